// DropoutDoMask as CANN's hand-written kernel issues it. Both public copies read are not DSL
// kernels: the 2019 static one (impl/drop_out_do_mask.py, a TVM IR-builder kernel, `_do_operation`
// and `_sel_data`) and the 2020 dynamic TIK one (class DropOutDoMask, `_run_one_loop` and
// `_var_update`). Per UB tile both load the data and its uint8 bit mask into one buffer each, scale
// the data in place by 1 / keep_prob (`vmuls`, full repeats), then walk the tile 128 elements at a
// time: `set_cmpmask` from 16 mask bytes and a one-repeat float16 `vsel`. In float16 the vsel picks
// x or 0 directly (2 instructions per element: vmuls, vsel). In float32 the vsel picks 1.0 or 0.0
// into a float16 scratch vector, `vconv_f162f32` widens it (2 repeats of 64) and a float32 `vmul`
// (2 repeats) applies it to the data: vmuls, vconv and vmul at the float32 rate, and the vsel on
// 128 float16 lanes, half a float32 instruction per element (the vector width over 16 and 32-bit
// lanes: 128 against 64), 3.5 float32 instructions per element.
//
// The static kernel's loop (`_do_operation`) allocates one UB buffer per operand (the data, its
// mask) and works in place: each tile is loaded into the data buffer, scaled and selected there,
// and stored from it, with no double buffer. So the next tile's load into that buffer waits for
// this tile's store, and per tile the load, the vector work and the store follow one another
// (RunsTilesInPlace). The tile is `_get_ub_max_elements`: (UB bytes / item - 128) / 2.125 (the
// data, the zero / scratch vectors and the 1-bit mask: 1 + 1 + 0.125 item sizes), rounded down to
// 128 and then to 256 elements (DropoutDoMaskTileElements).
#include <algorithm>
#include <cmath>

#include "cost_model_internal.h"

namespace npugap::analysis::perf::internal {

std::optional<VectorOps> DropoutDoMaskOps(std::string_view op_type, const Kernel& kernel) {
  if (op_type != "DropoutDoMask" || kernel.inputs.empty()) return std::nullopt;
  VectorOps ops;
  ops.simple = ItemSize(kernel.inputs[0].dtype) >= 4 ? 3.5 : 2.0;
  return ops;
}

std::optional<double> DropoutDoMaskTileElements(const Kernel& kernel, std::string_view dtype,
                                                const target::Target& target) {
  if (kernel.op_type != "DropoutDoMask" || !target.buffers.ub) return std::nullopt;
  constexpr double kVectorRepeat = 128;       // ELEMENTS_VECTOR_OP_FP16, kept aside for one repeat
  constexpr double kBytesPerElement = 2.125;  // data + zero / scratch + 1-bit mask, in item sizes
  const double item = static_cast<double>(std::max<int64_t>(1, ItemSize(dtype)));
  const double total =
      std::floor((static_cast<double>(target.buffers.ub->value) / item - kVectorRepeat) / kBytesPerElement);
  return std::max(256.0, std::floor(std::floor(total / kVectorRepeat) * kVectorRepeat / 256.0) * 256.0);
}

bool RunsTilesInPlace(const Kernel& kernel) { return kernel.op_type == "DropoutDoMask"; }

}  // namespace npugap::analysis::perf::internal
