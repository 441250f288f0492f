// Allocator replay over a model: the event sequence of an iteration, and the torch_npu / CUDA
// difference on a 1 MiB activation, checked by hand.
#include "npugap/analysis/memory/replay.h"

#include <gtest/gtest.h>

#include "../../onnx/model_builder.h"
#include "npugap/onnx/import.h"

namespace npugap::analysis::memory {
namespace {

using npugap::testing::ModelBuilder;
constexpr int64_t MiB = kMiB;
constexpr int64_t kQuarterMiB = MiB / 4;  // float32 elements in 1 MiB

ir::Model ReluModel(int64_t batch) {
  ModelBuilder b;
  b.Input("x", {-1, kQuarterMiB}).Output("y", {-1, kQuarterMiB}).Node("Relu", {"x"}, {"y"});
  onnx_import::ImportOptions o;
  o.batch = batch;
  auto m = onnx_import::LoadModelFromBytes(b.Bytes(), ".", "relu.onnx", o);
  EXPECT_TRUE(m.ok()) << m.status().message();
  return m.ok() ? std::move(m).value() : ir::Model{};
}

TEST(ReplayTest, InferenceEventsFollowLifetimes) {
  const ir::Model m = ReluModel(1);
  auto ev = IterationEvents(m.graph, *StaticShapes(m.graph), false, Amp::kNone);
  ASSERT_TRUE(ev.ok()) << ev.status().message();
  const int64_t x = m.graph.FindValue("x"), y = m.graph.FindValue("y");
  const std::vector<std::pair<int64_t, int64_t>> expected = {{x, MiB}, {y, MiB}, {x, 0}, {y, 0}};
  ASSERT_EQ(ev->size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ((*ev)[i].id, expected[i].first) << i;
    EXPECT_EQ((*ev)[i].bytes, expected[i].second) << i;
  }
}

TEST(ReplayTest, TrainingFreesSavedTensorsInBackward) {
  // Relu saves its output: y stays allocated through forward, its gradient is allocated first in
  // backward, and x needs no gradient (a graph input).
  const ir::Model m = ReluModel(1);
  auto ev = IterationEvents(m.graph, *StaticShapes(m.graph), true, Amp::kNone);
  ASSERT_TRUE(ev.ok());
  const int64_t x = m.graph.FindValue("x"), y = m.graph.FindValue("y");
  const int64_t grad_y = 2 * static_cast<int64_t>(m.graph.values.size()) + y;
  const std::vector<std::pair<int64_t, int64_t>> expected = {{x, MiB},      {y, MiB},    {x, 0},
                                                             {grad_y, MiB}, {grad_y, 0}, {y, 0}};
  ASSERT_EQ(ev->size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ((*ev)[i].id, expected[i].first) << i;
    EXPECT_EQ((*ev)[i].bytes, expected[i].second) << i;
  }
}

TEST(ReplayTest, NpuPadMovesOneMiBTensorsToTheLargePool) {
  // Batch 1: x and y are 1 MiB. torch_npu: 1 MiB + 512 B blocks, large pool, one 20 MiB
  // segment. CUDA: two 1 MiB small-pool blocks in one 2 MiB segment. Batch 2 (2 MiB tensors) fits
  // in the NPU's cached 20 MiB but needs a new 20 MiB large segment on CUDA: reserved grows there.
  const ir::Model m1 = ReluModel(1), m2 = ReluModel(2);
  auto s1 = *StaticShapes(m1.graph), s2 = *StaticShapes(m2.graph);
  ReplayOptions o;
  o.batches = {1, 2, 1, 2};
  auto runs = ReplayAllocators(
      m1.graph, [&](int64_t b) -> Expected<ShapeMap> { return b == 1 ? s1 : s2; }, o);
  ASSERT_TRUE(runs.ok()) << runs.status().message();
  ASSERT_EQ(runs->size(), 3u);
  const ReplayResult& npu = (*runs)[0];
  const ReplayResult& expandable = (*runs)[1];
  const ReplayResult& cuda = (*runs)[2];
  EXPECT_EQ(npu.name, "torch_npu");
  EXPECT_EQ(expandable.name, "torch_npu expandable_segments");
  EXPECT_EQ(cuda.name, "cuda");
  for (const auto& it : npu.iterations) EXPECT_EQ(it.reserved, 20 * MiB);
  EXPECT_EQ(npu.iterations[0].peak_allocated, 2 * (MiB + 512));
  EXPECT_EQ(npu.reserved_growth, 0);
  EXPECT_EQ(cuda.iterations[0].reserved, 2 * MiB);
  EXPECT_EQ(cuda.iterations[0].peak_allocated, 2 * MiB);
  EXPECT_EQ(cuda.iterations[1].reserved, 22 * MiB);
  EXPECT_EQ(cuda.reserved_growth, 20 * MiB);
  EXPECT_EQ(expandable.peak_reserved, 20 * MiB);
  EXPECT_NEAR(npu.fragmentation, 1.0 - static_cast<double>(2 * (2 * MiB + 512)) / (20.0 * MiB), 1e-12);
}

}  // namespace
}  // namespace npugap::analysis::memory
