// Device bytes of one tensor: the NPU data layout it is stored in (NC1HWC0 / FRACTAL_NZ pad
// dims up to the cube's block sizes) and the framework allocator's pad and rounding. All
// constants come from the target profile (layout.c0, layout.fractal, memory.alloc_*).
#pragma once

#include <cstdint>
#include <string_view>

#include "npugap/ir/dtype.h"
#include "npugap/ir/tensor.h"
#include "npugap/target/target.h"

namespace npugap::analysis::memory {

// ND: as the model states it. NC1HWC0 (5HD): channels of an NCHW tensor rounded up to C0.
// FRACTAL_NZ: the last two dims rounded up to the fractal's M (rows) and C0 (columns).
// FRACTAL_Z (convolution weights) pads C_in and C_out to 16 like NZ pads its two dims, so it is
// computed as kFractalNz over the [C_out, C_in*kh*kw] view with C_in padded (see PaddedBytes).
// kFractalNzRows: FRACTAL_NZ of a MatMul operand whose leading dims fold into the rows (a MatMul
// with a 2-D weight is one (batch x M) x K product: torch's linear views its input as 2-D before
// the mm, so only the folded row count is padded to 16, not each batch's M).
enum class Layout { kNd, kNc1hwc0, kFractalNz, kFractalNzRows, kFractalZ };
std::string_view LayoutName(Layout layout);

// C0 and fractal M for a tensor dtype on this target, or 0 when the target has no such layout
// (non-Ascend targets: empty layout section). float32 uses the fp32 entry when the profile has
// one, else fp16's: torch_npu's FormatHelper treats float32 as 2-byte for the NZ block
// (ascend-facts §2.2).
int64_t C0For(const target::Target& target, ir::DType dtype);
int64_t FractalRowsFor(const target::Target& target, ir::DType dtype);

// Bytes of `shape` x dtype once laid out as `layout` on `target`. A layout that does not apply
// (wrong rank, target without C0) is stored as ND. Saturates at INT64_MAX instead of overflowing.
int64_t PaddedBytes(const ir::Shape& shape, ir::DType dtype, Layout layout, const target::Target& target);

// What the framework allocator hands out for `bytes`: memory.alloc_pad added first, then rounded
// up to memory.alloc_alignment (torch_npu: +32 B, 512 B blocks; ascend-facts §4.3). Zero bytes
// still take one aligned block, as torch_npu's round_size returns kMinBlockSize for them.
int64_t AllocBytes(int64_t bytes, int64_t pad, int64_t alignment);
int64_t AllocBytes(int64_t bytes, const target::Target& target);

int64_t RoundUp(int64_t value, int64_t multiple);

}  // namespace npugap::analysis::memory
