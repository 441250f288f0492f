// Micro-benchmarks of npugap's kernels on shapes from ResNet and ViT, called straight through
// the op table (no model file, no executor), like the kernel tests in tests/exec/ops.
//
//   ninja -C build-bench npugap_kernels_bench
//   build-bench/npugap_kernels_bench [--benchmark_filter=Conv] [--benchmark_min_time=0.5]
//
// Each benchmark takes the thread count as its argument (/1, /2). Counters: FLOP/s (or
// bytes/s for data-movement ops). A kernel missing from the op table makes its benchmark
// report an error ("no kernel for X") instead of a time.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "op_test_util.h"  // tests/exec/ops: OpCall, attribute helpers
#include "npugap/exec/parallel.h"

namespace {

using npugap::ir::Attribute;
using npugap::ir::DType;
using npugap::ir::Shape;
using npugap::ir::Tensor;
using npugap::testing::FloatAttr;
using npugap::testing::IntAttr;
using npugap::testing::IntsAttr;
using npugap::testing::OpCall;

Tensor RandomTensor(const Shape& shape, uint32_t seed) {
  Tensor t = Tensor::Empty(DType::kFloat32, shape);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  for (float& v : t.span<float>()) v = dist(rng);
  return t;
}

// A kernel looked up once, with its node and inputs built once; Run() calls only the kernel.
class PreparedOp {
 public:
  explicit PreparedOp(OpCall call) : call_(std::move(call)) {
    row_ = npugap::exec::OpTable::Default().Find(call_.domain, call_.op_type, call_.opset);
    node_.name = call_.op_type + "_bench";
    node_.op_type = call_.op_type;
    node_.domain = call_.domain;
    node_.attributes = call_.attributes;
    for (size_t i = 0; i < call_.inputs.size(); ++i) {
      node_.inputs.push_back(call_.inputs[i].defined() ? static_cast<int>(i) : npugap::ir::kNoValue);
    }
    for (int i = 0; i < call_.num_outputs; ++i) node_.outputs.push_back(100 + i);
  }

  // Empty string on success, else the reason.
  std::string Run(int threads) {
    if (row_ == nullptr) return "no kernel for " + call_.op_type + " at opset " + std::to_string(call_.opset);
    npugap::exec::KernelContext ctx{node_};
    ctx.opset = call_.opset;
    ctx.num_threads = threads;
    for (const Tensor& t : call_.inputs) ctx.inputs.push_back(t.defined() ? &t : nullptr);
    ctx.outputs.resize(static_cast<size_t>(call_.num_outputs));
    npugap::Status s = row_->kernel(ctx);
    if (!s.ok()) return s.message();
    benchmark::DoNotOptimize(ctx.outputs.front().raw_data());
    return {};
  }

 private:
  OpCall call_;
  const npugap::exec::OpRow* row_ = nullptr;
  npugap::ir::Node node_;
};

// Runs the op in the benchmark loop with state.range(0) threads; `flops` and `bytes` per call
// become rate counters when non-zero.
void RunBenchmark(benchmark::State& state, OpCall call, double flops, double bytes) {
  const int threads = static_cast<int>(state.range(0));
  npugap::exec::SetNumThreads(threads);
  PreparedOp op(std::move(call));
  if (std::string err = op.Run(threads); !err.empty()) {  // warm-up and check
    state.SkipWithError(err.c_str());
    return;
  }
  for (auto _ : state) {
    std::string err = op.Run(threads);
    if (!err.empty()) {
      state.SkipWithError(err.c_str());
      break;
    }
  }
  if (flops > 0) {
    state.counters["FLOP/s"] = benchmark::Counter(flops, benchmark::Counter::kIsIterationInvariantRate,
                                                  benchmark::Counter::kIs1000);
  }
  if (bytes > 0) {
    state.counters["bytes/s"] = benchmark::Counter(bytes, benchmark::Counter::kIsIterationInvariantRate,
                                                   benchmark::Counter::kIs1024);
  }
}

OpCall Conv(int64_t cin, int64_t cout, int64_t k, int64_t hw, int64_t batch) {
  OpCall c;
  c.op_type = "Conv";
  c.opset = 17;
  const int64_t pad = k / 2;
  c.attributes["kernel_shape"] = IntsAttr({k, k});
  c.attributes["pads"] = IntsAttr({pad, pad, pad, pad});
  c.attributes["strides"] = IntsAttr({1, 1});
  c.attributes["dilations"] = IntsAttr({1, 1});
  c.attributes["group"] = IntAttr(1);
  c.inputs = {RandomTensor({batch, cin, hw, hw}, 1), RandomTensor({cout, cin, k, k}, 2),
              RandomTensor({cout}, 3)};
  return c;
}

void BM_Conv3x3_64to64_56(benchmark::State& state) {
  RunBenchmark(state, Conv(64, 64, 3, 56, 1), 2.0 * 64 * 64 * 9 * 56 * 56, 0);
}
void BM_Conv1x1_256to64_56(benchmark::State& state) {
  RunBenchmark(state, Conv(256, 64, 1, 56, 1), 2.0 * 256 * 64 * 56 * 56, 0);
}

void BM_MatMul_8x197x768_768x768(benchmark::State& state) {
  OpCall c;
  c.op_type = "MatMul";
  c.opset = 13;
  c.inputs = {RandomTensor({8, 197, 768}, 4), RandomTensor({768, 768}, 5)};
  RunBenchmark(state, std::move(c), 2.0 * 8 * 197 * 768 * 768, 0);
}

void BM_Softmax_8x12x197x197(benchmark::State& state) {
  OpCall c;
  c.op_type = "Softmax";
  c.opset = 13;
  c.attributes["axis"] = IntAttr(-1);
  c.inputs = {RandomTensor({8, 12, 197, 197}, 6)};
  RunBenchmark(state, std::move(c), 0, 2.0 * 4 * 8 * 12 * 197 * 197);
}

void BM_LayerNorm_8x197x768(benchmark::State& state) {
  OpCall c;
  c.op_type = "LayerNormalization";
  c.opset = 17;
  c.attributes["axis"] = IntAttr(-1);
  c.attributes["epsilon"] = FloatAttr(1e-5f);
  c.inputs = {RandomTensor({8, 197, 768}, 7), RandomTensor({768}, 8), RandomTensor({768}, 9)};
  RunBenchmark(state, std::move(c), 0, 2.0 * 4 * 8 * 197 * 768);
}

void BM_Transpose_8x197x12x64_to_8x12x197x64(benchmark::State& state) {
  OpCall c;
  c.op_type = "Transpose";
  c.opset = 13;
  c.attributes["perm"] = IntsAttr({0, 2, 1, 3});
  c.inputs = {RandomTensor({8, 197, 12, 64}, 10)};
  RunBenchmark(state, std::move(c), 0, 2.0 * 4 * 8 * 197 * 12 * 64);
}

void BM_Add_8x197x768_plus_768(benchmark::State& state) {  // bias add: broadcast on the last axis
  OpCall c;
  c.op_type = "Add";
  c.opset = 14;
  c.inputs = {RandomTensor({8, 197, 768}, 11), RandomTensor({768}, 12)};
  RunBenchmark(state, std::move(c), 0, (2.0 * 8 * 197 * 768 + 768) * 4);
}

void BM_Add_1x64x56x56_plus_1x64x1x1(benchmark::State& state) {  // per-channel broadcast
  OpCall c;
  c.op_type = "Add";
  c.opset = 14;
  c.inputs = {RandomTensor({1, 64, 56, 56}, 13), RandomTensor({1, 64, 1, 1}, 14)};
  RunBenchmark(state, std::move(c), 0, (2.0 * 64 * 56 * 56 + 64) * 4);
}

void BM_Add_8x197x768_same_shape(benchmark::State& state) {  // residual add, no broadcast
  OpCall c;
  c.op_type = "Add";
  c.opset = 14;
  c.inputs = {RandomTensor({8, 197, 768}, 15), RandomTensor({8, 197, 768}, 16)};
  RunBenchmark(state, std::move(c), 0, 3.0 * 4 * 8 * 197 * 768);
}

#define NPUGAP_KERNEL_BENCH(fn) BENCHMARK(fn)->Arg(1)->Arg(2)->ArgName("threads")->Unit(benchmark::kMicrosecond)->UseRealTime()

NPUGAP_KERNEL_BENCH(BM_Conv3x3_64to64_56);
NPUGAP_KERNEL_BENCH(BM_Conv1x1_256to64_56);
NPUGAP_KERNEL_BENCH(BM_MatMul_8x197x768_768x768);
NPUGAP_KERNEL_BENCH(BM_Softmax_8x12x197x197);
NPUGAP_KERNEL_BENCH(BM_LayerNorm_8x197x768);
NPUGAP_KERNEL_BENCH(BM_Transpose_8x197x12x64_to_8x12x197x64);
NPUGAP_KERNEL_BENCH(BM_Add_8x197x768_plus_768);
NPUGAP_KERNEL_BENCH(BM_Add_1x64x56x56_plus_1x64x1x1);
NPUGAP_KERNEL_BENCH(BM_Add_8x197x768_same_shape);

}  // namespace

BENCHMARK_MAIN();
