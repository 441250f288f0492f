// npugap.RoundToFormat, the precision emulator's rounding step (src/exec/ops/emulation.cc): the
// emulated runner (analysis/precision/emulate.h) inserts it into its copy of a model; it never
// appears in a user's model. Its rows join the op table in op_table.cc.
#pragma once

#include <span>
#include <string_view>

#include "npugap/exec/op_table.h"
#include "npugap/numerics/format.h"

namespace npugap::exec {

inline constexpr std::string_view kEmulationDomain = "npugap";

// Set by the emulator on a node whose kernel keeps its partial sums in a narrower format (the
// plan's NodeNumerics::compute): value = numerics::Format | numerics::Overflow << 8. ReduceSum,
// ReduceMean and GlobalAveragePool read it and then sum sequentially, rounding after every add;
// every other kernel ignores it.
inline constexpr const char* kAccumulateFormatAttr = "_npugap_accumulate_format";
// Set by the emulator on a cube node (Conv, FusedConv, ConvTranspose, MatMul, Gemm) when the plan
// turns the finite-accumulator model on: value = fraction bits N. The node's float32 path then
// accumulates through numerics::CubeAccumulator (numerics/cube_accumulator.h) in plain loops.
inline constexpr const char* kCubeAccumulatorAttr = "_npugap_cube_accumulator_bits";
// Set by the emulator on a Conv node when the plan runs it through oneDNN's bf16 primitive
// (uniform_bf16: PyTorch's CPU bf16 convolution, data/precision/vector_kernels.json
// "uniform_kernels"): value 1. The node's float32 path then converts its (already bf16-valued)
// inputs to bf16 and runs oneDNN's bf16 convolution, whose result is bf16. Where oneDNN has no
// bf16 convolution (no AVX-512) it runs the fp32 one, which the emulator then rounds to bf16.
inline constexpr const char* kOneDnnBf16Attr = "_npugap_onednn_bf16";
// True when oneDNN on this CPU has a bf16 convolution (it has from AVX-512 on, or under
// ONEDNN_MAX_CPU_ISA=AVX2 not): where false, a kOneDnnBf16Attr Conv takes the fp32 fallback above.
// Asked once per process (oneDNN reads the CPU and ONEDNN_MAX_CPU_ISA once, too).
bool OneDnnHasBf16Convolution();
// Set by the emulator on a GlobalAveragePool / ReduceMean node whose mean is the sum rounded to
// the storage format, then divided (PyTorch's CPU mean: sum(...).div_(n)): value =
// numerics::Format | numerics::Overflow << 8. The sum itself is exact-ish (double) as usual.
inline constexpr const char* kMeanRoundsSumAttr = "_npugap_mean_rounds_sum";
// Set by the emulator on an inference BatchNormalization node computed as PyTorch's CPU bf16
// kernel does (value 1): alpha = scale / sqrtf(var + eps), beta = fma(-mean, alpha, B) per
// channel, y = fma(x, alpha, beta), all in float32.
inline constexpr const char* kBatchNormFmaAttr = "_npugap_batchnorm_fma";

// The format and overflow mode packed into kAccumulateFormatAttr / kMeanRoundsSumAttr.
struct PackedFormat {
  numerics::Format format;
  numerics::RoundingOptions rounding;
};
inline PackedFormat UnpackFormat(int64_t value) {
  PackedFormat p{static_cast<numerics::Format>(value & 0xff), {}};
  p.rounding.overflow = static_cast<numerics::Overflow>(value >> 8);
  return p;
}

std::span<const OpRow> EmulationOps();

}  // namespace npugap::exec
