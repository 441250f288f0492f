// A model of a finite cube accumulator, for the precision emulator's optional
// `finite_accumulator` policy (analysis/precision/plan.h). Off by default: the cube kernels then
// add exact products in FP32 (ascend-facts §2.1: L0C accumulates in FP32).
//
// The model, as the issue states it and as MMASIM models tensor cores bit-accurately
// (precision-anchors §8: per-term alignment to the largest exponent, truncation toward zero,
// 23-25 fraction bits on NVIDIA parts): the products of one 16-wide K fractal (ascend-facts §2.1:
// the fp16 / bf16 fractal is 16 x 16 x 16) are aligned to the largest exponent among them, each is
// truncated toward zero to `fraction_bits` bits below that exponent, the truncated terms are
// summed exactly, and the sum is added to the FP32 accumulator with round-to-nearest-even.
// Huawei does not publish the cube's adder tree, so this is a model, not the hardware: the width
// N, the truncation (not rounding) and the per-fractal grouping are assumed.
#pragma once

#include <span>

namespace npugap::numerics {

inline constexpr int kCubeFractalK = 16;
// N is kept to what a double holds exactly: 16 aligned terms of N + 1 bits sum to at most N + 5
// bits, and products of float32 inputs (48 bits) are exact in a double.
inline constexpr int kMinAccumulatorBits = 1;
inline constexpr int kMaxAccumulatorBits = 48;

// The exact sum of one fractal's products after alignment and truncation.
double AlignedFractalSum(std::span<const double> products, int fraction_bits);

// Accumulates the products of one output element in K order, one fractal at a time.
class CubeAccumulator {
 public:
  explicit CubeAccumulator(int fraction_bits) : bits_(fraction_bits) {}

  // `product` must be the exact product (a double holds any float x float product).
  void Add(double product) {
    pending_[count_++] = product;
    if (count_ == kCubeFractalK) EndFractal();
  }
  // Closes a fractal early: the K axis is padded with zeros to the next fractal (a conv's
  // input-channel block at one kernel tap, or a matrix's last K block).
  void EndFractal();
  float Result() {
    EndFractal();
    return acc_;
  }

 private:
  int bits_;
  int count_ = 0;
  float acc_ = 0.f;
  double pending_[kCubeFractalK];
};

}  // namespace npugap::numerics
