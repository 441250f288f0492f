#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <vector>

#include "op_test_expect.h"

namespace npugap {
namespace {

Tensor I64(int64_t v) { return Tensor::FromVector<int64_t>({}, {v}); }

void ExpectTensor(const Expected<std::vector<Tensor>>& out, const Shape& shape,
                  const std::vector<double>& expected, double tol = 1e-5) {
  ASSERT_TRUE(out.ok()) << out.status().message();
  const Tensor& t = (*out)[0];
  ASSERT_EQ(t.shape(), shape);
  ASSERT_EQ(t.numel(), static_cast<int64_t>(expected.size()));
  for (size_t i = 0; i < expected.size(); ++i) {
    const double v = t.dtype() == ir::DType::kFloat64 ? t.data<double>()[i] : t.data<float>()[i];
    EXPECT_NEAR(v, expected[i], tol) << "at " << i;
  }
}

Expected<std::vector<Tensor>> Dft(std::vector<Tensor> inputs,
                                  std::map<std::string, ir::Attribute> attrs = {}) {
  return RunOp(
      OpCall{.op_type = "DFT", .opset = 17, .attributes = std::move(attrs), .inputs = std::move(inputs)});
}

TEST(SignalTest, DftOfRealSignal) {
  // DFT [1, 2, 3, 4] = [10, -2+2i, -2, -2-2i].
  const Tensor x = F32({1, 4, 1}, {1, 2, 3, 4});
  ExpectTensor(Dft({x}), {1, 4, 2}, {10, 0, -2, 2, -2, 0, -2, -2});
  ExpectTensor(Dft({x}, {{"onesided", testing::IntAttr(1)}}), {1, 3, 2}, {10, 0, -2, 2, -2, 0});
  // Odd length (direct sum path): DFT [1, 2, 3] = [6, -1.5 + (sqrt(3)/2) i, -1.5 - (sqrt(3)/2) i].
  const double h = std::sqrt(3.0) / 2;
  ExpectTensor(Dft({F32({1, 3, 1}, {1, 2, 3})}), {1, 3, 2}, {6, 0, -1.5, h, -1.5, -h});
}

TEST(SignalTest, DftLengthPadsAndTruncates) {
  // [1, 2] zero-padded to 4: X[k] = 1 + 2 e^{-i pi k / 2} = [3, 1-2i, -1, 1+2i].
  ExpectTensor(Dft({F32({1, 2, 1}, {1, 2}), I64(4)}), {1, 4, 2}, {3, 0, 1, -2, -1, 0, 1, 2});
  // Truncated to the first 2 values of [1, 2, 3]: [3, -1].
  ExpectTensor(Dft({F32({1, 3, 1}, {1, 2, 3}), Tensor::FromVector<int32_t>({}, {2})}), {1, 2, 2},
               {3, 0, -1, 0});
}

TEST(SignalTest, DftInverseOfComplexAndAxis) {
  // IDFT of [10, -2+2i, -2, -2-2i] is [1, 2, 3, 4].
  ExpectTensor(Dft({F32({1, 4, 2}, {10, 0, -2, 2, -2, 0, -2, -2})}, {{"inverse", testing::IntAttr(1)}}),
               {1, 4, 2}, {1, 0, 2, 0, 3, 0, 4, 0});
  // axis = 2 on [1, 2, 2, 1]: each row [a, b] -> [a + b, a - b].
  ExpectTensor(Dft({F32({1, 2, 2, 1}, {1, 2, 3, 5})}, {{"axis", testing::IntAttr(2)}}), {1, 2, 2, 2},
               {3, 0, -1, 0, 8, 0, -2, 0});
  // axis = 1 on the same input: columns [1, 3] and [2, 5].
  ExpectTensor(Dft({F32({1, 2, 2, 1}, {1, 2, 3, 5})}), {1, 2, 2, 2}, {4, 0, 7, 0, -2, 0, -3, 0});
}

TEST(SignalTest, DftLongLengthsMatchFormula) {
  // An impulse at position 1 transforms to e^{-2 pi i k / n}: 256 uses radix 2, 130 = 2*5*13 mixed
  // radix and the prime 257 Bluestein.
  for (int64_t n : {256, 130, 257}) {
    std::vector<double> x(static_cast<size_t>(n), 0.0);
    x[1] = 1.0;
    auto out = Dft({Tensor::FromVector<double>({1, n, 1}, x)});
    ASSERT_TRUE(out.ok()) << out.status().message();
    const double* y = (*out)[0].data<double>();
    for (int64_t k = 0; k < n; ++k) {
      const double angle = -2 * std::numbers::pi * static_cast<double>(k) / static_cast<double>(n);
      EXPECT_NEAR(y[2 * k], std::cos(angle), 1e-12) << n << " " << k;
      EXPECT_NEAR(y[2 * k + 1], std::sin(angle), 1e-12) << n << " " << k;
    }
  }
}

TEST(SignalTest, DftRejectsBadArguments) {
  const Tensor x = F32({1, 4, 1}, {1, 2, 3, 4});
  EXPECT_FALSE(Dft({x}, {{"axis", testing::IntAttr(2)}}).ok());  // the complex dim
  EXPECT_FALSE(Dft({x}, {{"axis", testing::IntAttr(5)}}).ok());
  EXPECT_FALSE(Dft({x}, {{"onesided", testing::IntAttr(1)}, {"inverse", testing::IntAttr(1)}}).ok());
  EXPECT_FALSE(Dft({F32({1, 2, 3}, {1, 2, 3, 4, 5, 6})}).ok());  // last dim 3
  EXPECT_FALSE(Dft({x, I64(0)}).ok());
}

TEST(SignalTest, StftFramesWithWindowAndLength) {
  // signal 0..7, frames of 4 every 4 samples: 2 frames, 3 one-sided bins.
  const Tensor signal = F32({1, 8, 1}, {0, 1, 2, 3, 4, 5, 6, 7});
  // Window picking sample 1 of each frame: X[k] = s e^{-i pi k / 2} = [s, -i s, -s].
  auto picked =
      RunOp(OpCall{.op_type = "STFT", .opset = 17, .inputs = {signal, I64(4), F32({4}, {0, 1, 0, 0})}});
  ExpectTensor(picked, {1, 2, 3, 2}, {1, 0, 0, -1, -1, 0, 5, 0, 0, -5, -5, 0});
  // No window, frame_length 4, full spectrum: frame [0,1,2,3] -> [6, -2+2i, -2, -2-2i].
  auto full = RunOp(OpCall{.op_type = "STFT",
                           .opset = 17,
                           .attributes = {{"onesided", testing::IntAttr(0)}},
                           .inputs = {signal, I64(4), Tensor(), I64(4)}});
  ASSERT_TRUE(full.ok()) << full.status().message();
  ASSERT_EQ((*full)[0].shape(), (Shape{1, 2, 4, 2}));
  const std::vector<float> first = {6, 0, -2, 2, -2, 0, -2, -2};
  for (size_t i = 0; i < first.size(); ++i) EXPECT_NEAR((*full)[0].data<float>()[i], first[i], 1e-5);
}

TEST(SignalTest, StftRejectsBadArguments) {
  const Tensor signal = F32({1, 8, 1}, {0, 1, 2, 3, 4, 5, 6, 7});
  EXPECT_FALSE(RunOp(OpCall{.op_type = "STFT", .opset = 17, .inputs = {signal, I64(4)}}).ok());  // no size
  EXPECT_FALSE(
      RunOp(OpCall{.op_type = "STFT", .opset = 17, .inputs = {signal, I64(0), Tensor(), I64(4)}}).ok());
  EXPECT_FALSE(
      RunOp(OpCall{.op_type = "STFT", .opset = 17, .inputs = {signal, I64(4), F32({2}, {1, 1}), I64(4)}})
          .ok());
  EXPECT_FALSE(
      RunOp(OpCall{.op_type = "STFT", .opset = 17, .inputs = {signal, I64(4), Tensor(), I64(16)}}).ok());
}

Expected<std::vector<Tensor>> Window(const std::string& op, int64_t size, int64_t periodic,
                                     int64_t dtype = 1) {
  return RunOp(OpCall{
      .op_type = op,
      .opset = 17,
      .attributes = {{"periodic", testing::IntAttr(periodic)}, {"output_datatype", testing::IntAttr(dtype)}},
      .inputs = {Tensor::FromVector<int32_t>({}, {static_cast<int32_t>(size)})}});
}

TEST(SignalTest, CosineSumWindows) {
  // Hann periodic N = 4: 0.5 - 0.5 cos(pi n / 2); symmetric size 5 has N = 4 too.
  ExpectTensor(Window("HannWindow", 4, 1), {4}, {0, 0.5, 1, 0.5});
  ExpectTensor(Window("HannWindow", 5, 0), {5}, {0, 0.5, 1, 0.5, 0});
  // Hamming a0 = 25/46, a1 = 21/46.
  ExpectTensor(Window("HammingWindow", 4, 1), {4}, {4.0 / 46, 25.0 / 46, 1, 25.0 / 46});
  // Blackman 0.42 - 0.5 cos + 0.08 cos(2x), as float64.
  auto blackman = Window("BlackmanWindow", 4, 1, 11);
  ASSERT_TRUE(blackman.ok());
  EXPECT_EQ((*blackman)[0].dtype(), ir::DType::kFloat64);
  ExpectTensor(blackman, {4}, {0, 0.34, 1, 0.34}, 1e-12);
  EXPECT_FALSE(Window("HannWindow", -1, 1).ok());
  EXPECT_FALSE(Window("HannWindow", 4, 1, 99).ok());  // not a data type
}

TEST(SignalTest, MelWeightMatrixMatchesOnnxExample) {
  // The example of the ONNX operator tests: 8 mel bins, dft_length 16, 8192 Hz, 0..4096 Hz.
  auto out =
      RunOp(OpCall{.op_type = "MelWeightMatrix",
                   .opset = 17,
                   .inputs = {Tensor::FromVector<int32_t>({}, {8}), Tensor::FromVector<int32_t>({}, {16}),
                              Tensor::FromVector<int32_t>({}, {8192}), F32({}, {0}), F32({}, {4096})}});
  std::vector<double> expected(9 * 8, 0.0);
  const int ones[][2] = {{0, 0}, {0, 1}, {1, 2}, {1, 3}, {2, 4}, {3, 5}, {4, 6}, {5, 7}};
  for (const auto& rc : ones) expected[static_cast<size_t>(rc[0] * 8 + rc[1])] = 1.0;
  ExpectTensor(out, {9, 8}, expected);
  EXPECT_FALSE(RunOp(OpCall{.op_type = "MelWeightMatrix",
                            .opset = 17,
                            .inputs = {I64(8), I64(0), I64(8192), F32({}, {0}), F32({}, {4096})}})
                   .ok());
}

}  // namespace
}  // namespace npugap
