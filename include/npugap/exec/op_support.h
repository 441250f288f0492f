// The support-rule column of the op table: where ATC would place an op on an Ascend NPU (AI Core,
// AI CPU fallback, or nowhere). It lives next to each kernel (exec/ops/<family>.cc) so that an op
// cannot be added to the executor without saying how it deploys; analysis/compat evaluates it
// against a target profile. docs/compat.md says where each rule comes from.
//
// A rule is about the op's data dtype (one input, or the output for ops that make tensors from a
// shape): which dtypes have an AI Core kernel, which an AI CPU kernel. The profile narrows the AI
// Core set further (bf16 only where the vector unit computes it; fp32 on the cube only where the
// cube takes fp32 and the precision mode keeps dtypes). Attribute limits are a function.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>

#include "npugap/ir/dtype.h"
#include "npugap/ir/graph.h"

namespace npugap::exec {

// A set of DTypes as bits (DType values are < 32).
using DTypeSet = uint32_t;
constexpr DTypeSet TypeSet(std::initializer_list<ir::DType> types) {
  DTypeSet s = 0;
  for (ir::DType t : types) s |= DTypeSet{1} << static_cast<int>(t);
  return s;
}
constexpr bool Contains(DTypeSet s, ir::DType t) {
  const int bit = static_cast<int>(t);
  return bit >= 0 && bit < 32 && (s >> bit & 1U) != 0;
}

enum class Engine : uint8_t { kAiCore, kAiCpu, kNone };

// What an attribute rule sees about the target: enough to differ between SoC families without
// the exec module depending on target profiles.
struct SupportQuery {
  const ir::Graph& graph;
  const ir::Node& node;
  std::string_view soc_version;  // ATC --soc_version of the target, e.g. "Ascend910B2"
};

// An attribute limit that is exceeded: the engine the op lands on instead and why.
struct AttrVerdict {
  Engine engine = Engine::kAiCore;
  std::string reason;  // empty when the attributes are within the AI Core kernel's limits
};
using AttrRuleFn = AttrVerdict (*)(const SupportQuery&);

// The tensor whose dtype decides the kernel: the first input, the first output (ops that make a
// tensor from a shape), or none (ops ATC resolves itself).
enum class DTypeFrom : int8_t { kInput0, kOutput0, kAny };

// How the op deploys, per the research notes where they say it, otherwise assumed (see basis).
struct SupportRule {
  DTypeSet aicore;                            // data dtypes with an AI Core kernel
  DTypeSet aicpu;                             // data dtypes with an AI CPU kernel (fallback)
  DTypeFrom dtype_from = DTypeFrom::kInput0;  // which tensor carries the data dtype; kAny: none
  bool cube = false;                          // runs on the cube (Conv, MatMul): fp32 follows cube formats
  AttrRuleFn attrs = nullptr;                 // attribute limits, or nullptr
  std::string_view basis;                     // source, or "assumed: why"
};

namespace support {

using ir::DType;
inline constexpr DTypeSet kFloat = TypeSet({DType::kFloat16, DType::kBFloat16, DType::kFloat32});
inline constexpr DTypeSet kInts = TypeSet({DType::kInt8, DType::kUInt8, DType::kInt32, DType::kInt64});
inline constexpr DTypeSet kWideInts =
    TypeSet({DType::kInt16, DType::kUInt16, DType::kUInt32, DType::kUInt64});
inline constexpr DTypeSet kBool = TypeSet({DType::kBool});
inline constexpr DTypeSet kF64 = TypeSet({DType::kFloat64});
inline constexpr DTypeSet kAllNumeric = kFloat | kInts | kWideInts | kBool | kF64;

// Float math on the vector unit (activations, transcendental functions, normalization, softmax,
// pooling): no double on AI Core, the AI CPU kernels take fp16/fp32/fp64.
inline constexpr SupportRule kVectorFloat{
    kFloat,
    TypeSet({DType::kFloat16, DType::kFloat32, DType::kFloat64}),
    DTypeFrom::kInput0,
    false,
    nullptr,
    "assumed: vector unit computes fp16/bf16/fp32 only (profile numerics.vector_formats); fp64 on AI CPU"};
// Arithmetic, comparison, logic and select: also int32/int64/int8/uint8 on AI Core.
inline constexpr SupportRule kVectorArith{
    kFloat | kInts | kBool,
    kFloat | kInts | kWideInts | kBool | kF64,
    DTypeFrom::kInput0,
    false,
    nullptr,
    "assumed: TBE elementwise kernels cover fp16/bf16/fp32/int8/uint8/int32/int64; other ints and fp64 on AI "
    "CPU"};
// Copies and views (Reshape, Transpose, Concat, Gather...): any dtype of at most 8 bytes moves on
// AI Core except fp64, which AI Core kernels do not declare.
inline constexpr SupportRule kMovement{
    kFloat | kInts | kWideInts | kBool,
    kAllNumeric,
    DTypeFrom::kInput0,
    false,
    nullptr,
    "assumed: data-movement kernels are dtype-agnostic copies; fp64 not declared by AI Core kernels"};
// Ops ATC evaluates while building the graph (Constant, Shape, Size, Identity of constants...).
inline constexpr SupportRule kGraphLevel{
    kAllNumeric, kAllNumeric, DTypeFrom::kAny,
    false,       nullptr,     "assumed: resolved by ATC's graph engine, no device kernel"};
// Cube ops: fp16/bf16/int8 (and fp32 where the cube takes it); fp32 without an fp32 cube falls
// back to AI CPU under a dtype-keeping precision mode (ascend-facts §3.1).
inline constexpr SupportRule kCube{
    kFloat | TypeSet({DType::kInt8}),
    TypeSet({DType::kFloat32, DType::kFloat64, DType::kInt32, DType::kInt64}),
    DTypeFrom::kInput0,
    true,
    nullptr,
    "ascend-facts §3.1: fp32 cube op without an fp32 AI Core kernel falls back to AI CPU (origin modes)"};
// Ops with data-dependent output sizes or sequential algorithms that CANN runs on AI CPU.
inline constexpr SupportRule kAiCpuOnly{
    0,     kAllNumeric, DTypeFrom::kInput0,
    false, nullptr,     "assumed: data-dependent output or sequential algorithm; AI CPU kernel"};
// Ops ATC's ONNX parser has no mapping for (EZ3003).
inline constexpr SupportRule kUnsupported{0,     0,       DTypeFrom::kAny,
                                          false, nullptr, "assumed: no ATC parser or kernel for this op"};

// Attribute rules (defined in src/exec/op_support.cc).
AttrVerdict ConvAttrs(const SupportQuery& q);
AttrVerdict ResizeAttrs(const SupportQuery& q);

inline constexpr SupportRule kConv{
    kFloat | TypeSet({DType::kInt8}),
    TypeSet({DType::kFloat32, DType::kFloat64}),
    DTypeFrom::kInput0,
    true,
    ConvAttrs,
    "ascend-facts §3.1 for fp32; assumed Conv2D limits: 1-D to 3-D, dilation and stride 1..255"};
// ascend-facts §3.6: ResizeBilinearV2 takes fp16/fp32 on AI Core and the AI CPU kernel rejects uint8.
inline constexpr SupportRule kResize{
    kFloat,
    TypeSet({DType::kFloat32, DType::kFloat16}),
    DTypeFrom::kInput0,
    false,
    ResizeAttrs,
    "ascend-facts §3.6 (uint8 ResizeBilinearV2: EZ3002); cubic assumed AI CPU"};

}  // namespace support
}  // namespace npugap::exec
