#include "npugap/ir/tensor.h"

#include <gtest/gtest.h>

namespace npugap::ir {

TEST(TensorTest, CheckedNumelRejectsOverflowAndNegativeDims) {
  EXPECT_EQ(CheckedNumel({2, 3, 4}).value(), 24);
  EXPECT_EQ(CheckedNumel({}).value(), 1);
  EXPECT_EQ(CheckedNumel({5, 0, 7}).value(), 0);
  EXPECT_FALSE(CheckedNumel({int64_t{1} << 40, int64_t{1} << 40}).ok());
  EXPECT_FALSE(CheckedNumel({-1, 3}).ok());
}

TEST(TensorTest, CreateRefusesTensorsOverTheMemoryLimit) {
  auto t = Tensor::Create(DType::kFloat32, {int64_t{1} << 20, int64_t{1} << 20});
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.status().message().find("GiB"), std::string::npos);
}

TEST(TensorTest, ReshapedSharesTheBufferAndCloneCopies) {
  Tensor t = Tensor::FromVector<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  Tensor r = t.Reshaped({3, 2});
  EXPECT_TRUE(r.SharesBufferWith(t));
  EXPECT_EQ(r.shape(), (Shape{3, 2}));
  Tensor c = t.Clone();
  EXPECT_FALSE(c.SharesBufferWith(t));
  c.data<float>()[0] = 42;
  EXPECT_EQ(t.data<float>()[0], 1);
}

TEST(TensorTest, ZerosAreZeroAndStringsLiveOutOfLine) {
  Tensor z = Tensor::Zeros(DType::kInt64, {4}).value();
  for (int64_t v : z.span<int64_t>()) EXPECT_EQ(v, 0);
  Tensor s = Tensor::Create(DType::kString, {2}).value();
  s.strings()[1] = "npu";
  EXPECT_EQ(s.Clone().strings()[1], "npu");
}

TEST(TensorTest, ShapeToStringNamesScalars) {
  EXPECT_EQ(ShapeToString({1, 3, 224, 224}), "1x3x224x224");
  EXPECT_EQ(ShapeToString({}), "scalar");
}

}  // namespace npugap::ir
