// The precision emulator's one op: npugap.RoundToFormat rounds a float32 tensor to a number
// format (quantize-dequantize) and reports what rounding did. The emulated runner
// (analysis/precision/emulate.cc) inserts it around the FP32 kernels where the numerics plan says
// a value is read or stored in a narrower format; it never appears in a user's model.
//
// Inputs: X (any dtype; non-float32 tensors pass through). Outputs: Y (X rounded), Stats (int64
// [4]: overflow, inf_nan, saturated, flushed). Attributes: format, rounding, overflow, subnormals
// (the numerics enums as ints), seed (stochastic rounding), in_place (round X's own buffer).
#include <algorithm>
#include <atomic>
#include <cstring>

#include "npugap/exec/emulation_op.h"
#include "npugap/exec/parallel.h"
#include "npugap/numerics/format.h"

namespace npugap::exec {
namespace {

constexpr int64_t kBlock = 16384;  // elements copied and rounded while in L1/L2
// Elements per thread. Rounding runs at several 10^9 elements/s per core, so all but the largest
// activations round on one thread: an OpenMP region costs a barrier, and on a loaded machine a
// preempted thread makes that barrier cost more than the rounding (measured, docs/benchmarks.md).
constexpr int64_t kPerThread = int64_t{1} << 22;

Status RoundToFormat(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  NPUGAP_ASSIGN_OR_RETURN(Tensor stats, Tensor::Zeros(DType::kInt64, {4}));
  if (x.dtype() != DType::kFloat32) {
    ctx.outputs[0] = x;
    ctx.outputs[1] = stats;
    return Status::Ok();
  }
  const auto format = static_cast<numerics::Format>(ctx.node.GetInt("format", 0));
  numerics::RoundingOptions opt;
  opt.rounding = static_cast<numerics::Rounding>(ctx.node.GetInt("rounding", 0));
  opt.overflow = static_cast<numerics::Overflow>(ctx.node.GetInt("overflow", 0));
  opt.subnormals = static_cast<numerics::Subnormals>(ctx.node.GetInt("subnormals", 0));
  opt.seed = static_cast<uint64_t>(ctx.node.GetInt("seed", 0));
  // in_place: the emulator sets it where X is a fresh buffer that only this node reads (a cube
  // kernel's output), so one pass over memory replaces allocate + copy + round.
  const bool in_place = ctx.node.GetInt("in_place", 0) != 0;
  Tensor y = in_place ? x : Tensor::Empty(DType::kFloat32, x.shape());
  const float* in = x.data<float>();
  float* out = y.data<float>();
  std::atomic<int64_t> overflow{0}, inf_nan{0}, saturated{0}, flushed{0};
  ParallelFor(x.numel(), kPerThread, [&](int64_t begin, int64_t end) {
    numerics::RoundStats local;
    for (int64_t b = begin; b < end; b += kBlock) {
      const int64_t n = std::min(kBlock, end - b);
      if (!in_place) std::memcpy(out + b, in + b, static_cast<size_t>(n) * sizeof(float));
      local += numerics::RoundArray(format, {out + b, static_cast<size_t>(n)}, opt, static_cast<uint64_t>(b));
    }
    overflow += local.overflow;
    inf_nan += local.inf_nan;
    saturated += local.saturated;
    flushed += local.flushed;
  });
  int64_t* s = stats.data<int64_t>();
  s[0] = overflow;
  s[1] = inf_nan;
  s[2] = saturated;
  s[3] = flushed;
  ctx.outputs[0] = std::move(y);
  ctx.outputs[1] = std::move(stats);
  return Status::Ok();
}

// Never in a user model, so never deployed: the rule only keeps the table's column filled.
constexpr SupportRule kEmulatorOnly{
    0, 0, DTypeFrom::kAny, false, nullptr, "npugap's emulator step, inserted at run time; not an ONNX op"};

}  // namespace

std::span<const OpRow> EmulationOps() {
  static const OpRow kRows[] = {
      {kEmulationDomain, "RoundToFormat", 1, 1, RoundToFormat, &kEmulatorOnly},
  };
  return kRows;
}

}  // namespace npugap::exec
