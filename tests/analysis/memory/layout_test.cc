// Layout padding and allocator rounding against hand-computed byte counts.
#include "npugap/analysis/memory/layout.h"

#include <gtest/gtest.h>

namespace npugap::analysis::memory {
namespace {

const target::Target& Load(const std::string& name) {
  static std::map<std::string, target::Target> cache;
  if (!cache.count(name)) {
    auto t = target::LoadTarget(name);
    EXPECT_TRUE(t.ok()) << t.status().message();
    cache[name] = t.ok() ? *t : target::Target{};
  }
  return cache[name];
}

TEST(LayoutTest, AllocBytesAddsThePadBeforeRounding) {
  EXPECT_EQ(AllocBytes(0, 32, 512), 512);
  EXPECT_EQ(AllocBytes(480, 32, 512), 512);   // 480 + 32 = 512
  EXPECT_EQ(AllocBytes(481, 32, 512), 1024);  // 513 -> 1024
  EXPECT_EQ(AllocBytes(512, 0, 512), 512);    // CUDA: no pad
  EXPECT_EQ(AllocBytes(512, 32, 512), 1024);  // the pad costs a whole block
  EXPECT_EQ(AllocBytes(1 << 20, Load("ascend910b2")), (1 << 20) + 512);
  EXPECT_EQ(AllocBytes(1 << 20, Load("h200")), 1 << 20);  // pad 0 on the GPU reference
}

TEST(LayoutTest, Nc1hwc0PadsChannelsToC0) {
  const auto& b2 = Load("ascend910b2");
  EXPECT_EQ(C0For(b2, ir::DType::kFloat32), 16);
  EXPECT_EQ(PaddedBytes({1, 3, 224, 224}, ir::DType::kFloat32, Layout::kNc1hwc0, b2), 16 * 224 * 224 * 4);
  EXPECT_EQ(PaddedBytes({2, 64, 7, 7}, ir::DType::kFloat32, Layout::kNc1hwc0, b2), 2 * 64 * 7 * 7 * 4);
  EXPECT_EQ(PaddedBytes({1, 24, 8, 8}, ir::DType::kFloat16, Layout::kNc1hwc0, b2), 32 * 8 * 8 * 2);
  // int8's C0 is 32 (32 B / 1 B).
  EXPECT_EQ(PaddedBytes({1, 24, 8, 8}, ir::DType::kInt8, Layout::kNc1hwc0, b2), 32 * 8 * 8);
  // The 310P3 profile has no fp32 entry: float32 uses fp16's C0, as torch_npu's FormatHelper does.
  EXPECT_EQ(PaddedBytes({1, 3, 4, 4}, ir::DType::kFloat32, Layout::kNc1hwc0, Load("ascend310p3")),
            16 * 4 * 4 * 4);
}

TEST(LayoutTest, FractalNzPadsBothMatrixDims) {
  const auto& b2 = Load("ascend910b2");
  // ND {100, 30} -> rows to 16 (112), columns to 16 (32).
  EXPECT_EQ(PaddedBytes({100, 30}, ir::DType::kFloat16, Layout::kFractalNz, b2), 112 * 32 * 2);
  EXPECT_EQ(PaddedBytes({8, 100, 30}, ir::DType::kFloat32, Layout::kFractalNz, b2), 8 * 112 * 32 * 4);
  EXPECT_EQ(PaddedBytes({30}, ir::DType::kFloat32, Layout::kFractalNz, b2), 16 * 32 * 4);  // one row
  // Folded rows: 8 x 100 = 800 rows (a multiple of 16) instead of 8 x 112.
  EXPECT_EQ(PaddedBytes({8, 100, 30}, ir::DType::kFloat32, Layout::kFractalNzRows, b2), 800 * 32 * 4);
  EXPECT_EQ(PaddedBytes({1, 56, 56, 384}, ir::DType::kFloat32, Layout::kFractalNzRows, b2), 3136 * 384 * 4);
  // FRACTAL_Z conv weight [64, 3, 3, 3]: C_in 3 -> 16.
  EXPECT_EQ(PaddedBytes({64, 3, 3, 3}, ir::DType::kFloat32, Layout::kFractalZ, b2), 64 * 16 * 9 * 4);
}

TEST(LayoutTest, TargetsWithoutLayoutsKeepNd) {
  const auto& h200 = Load("h200");
  EXPECT_EQ(C0For(h200, ir::DType::kFloat32), 0);
  EXPECT_EQ(PaddedBytes({1, 3, 224, 224}, ir::DType::kFloat32, Layout::kNc1hwc0, h200), 3 * 224 * 224 * 4);
  EXPECT_EQ(PaddedBytes({100, 30}, ir::DType::kFloat32, Layout::kFractalNz, h200), 100 * 30 * 4);
}

TEST(LayoutTest, SaturatesInsteadOfOverflowing) {
  const auto& b2 = Load("ascend910b2");
  EXPECT_EQ(PaddedBytes({int64_t{1} << 40, int64_t{1} << 40}, ir::DType::kFloat32, Layout::kNd, b2),
            std::numeric_limits<int64_t>::max());
}

}  // namespace
}  // namespace npugap::analysis::memory
