// Target profiles: what npugap knows about a deployment target (Ascend NPUs) or a development
// reference (an x86 box, an NVIDIA H200). Every number carries the source it came from and how far
// to trust it, because many Ascend figures are not published and the analyses must say so.
//
// The profiles are data (data/targets/*.json, documented in docs/targets.md), embedded into the
// binary at build time so that built-in names work from any working directory.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "npugap/base/status.h"

namespace npugap::target {

// How far a number can be trusted, strongest first.
enum class Confidence { kOfficial, kConfig, kThirdParty, kDerived, kAssumed };
std::string_view ConfidenceName(Confidence c);  // "official", "config", "third-party", "derived", "assumed"

struct Provenance {
  std::string source;  // research-note section and original source; for `assumed`, the reason
  Confidence confidence = Confidence::kAssumed;
};

// One fact of a profile. Numbers are held in npugap's base units whatever the profile wrote:
// bytes, Hz, bytes/s, seconds, FLOP/s (OP/s for integer types), bits, bytes/cycle, MACs/cycle.
template <typename T>
struct Fact {
  T value{};
  Provenance origin;
};
using Number = Fact<double>;
using Count = Fact<int64_t>;  // integral numbers: core counts, byte sizes, opsets
using Text = Fact<std::string>;
using Flag = Fact<bool>;
using TextList = Fact<std::vector<std::string>>;
using Shape3 = Fact<std::array<int64_t, 3>>;

struct CubeRate {
  Number macs_per_cycle;  // per cube core (per SM / CPU core on reference targets)
  Number peak;            // FLOP/s (OP/s for int8/int4) of the whole device
};

struct Compute {
  Text core_coupling;  // coupled | separated | sm | cpu
  Count cube_cores;
  Count vector_cores;
  Number clock;                          // Hz
  Count vector_width;                    // bits per vector unit
  std::map<std::string, CubeRate> cube;  // by cube input dtype: fp16, bf16, fp32, hf32, tf32, fp8, int8, int4
};

struct Memory {
  Text type;
  Count device;           // bytes of device memory
  Number bandwidth;       // bytes/s
  Count reserve;          // bytes taken by runtime, driver and framework before the model
  Count alloc_alignment;  // bytes; the framework allocator rounds every block to this
  Count alloc_pad;        // bytes added to every allocation before rounding (torch_npu: 32)
};

// On-chip buffers in bytes; absent where the architecture has no such buffer.
struct Buffers {
  std::optional<Count> l2, l1, l0a, l0b, l0c, ub;
};
struct BufferAlignment {
  std::optional<Count> l1, l0a, l0b, l0c, ub;
};

// Per-core data-path widths in bytes/cycle (CANN's own cost model, Ascend only).
struct Datapath {
  Number gm_to_l1, l2_to_l1, l1_to_l0a, l1_to_l0b, l0c_to_l2, l0c_to_gm, gm_to_ub, ub_to_gm;
  std::optional<Number> l0c_to_ub;  // a coupled core's cube output L0C -> UB (optional)
};

struct Layout {
  std::map<std::string, Shape3> fractal;  // dtype -> [m, k, n] of one cube fractal
  std::map<std::string, Count> c0;        // dtype -> C0 of NC1HWC0 / last-dim block of FRACTAL_NZ
};

struct Numerics {
  Text overflow_mode;  // saturation | inf_nan
  TextList cube_input_formats;
  TextList vector_formats;
  Text accumulator;  // fp32 | fp16 | int32
  Flag hf32;
  Text subnormals;  // keep | flush
};

struct Framework {
  Text default_precision_mode;  // torch_npu's ACL_PRECISION_MODE (or its equivalent off Ascend)
  std::optional<Flag> jit_compile_default;
  Flag allow_hf32_conv;
  Flag allow_hf32_matmul;
  std::optional<Count> comm_buffer;  // bytes per direction per communicator (HCCL_BUFFSIZE)
};

// A custom-op plugin installed next to CANN: an ATC parser plugin for `op_types` of `domain` with a
// kernel on `engine`. What the user installed, not a hardware fact, so it has no source/confidence.
struct CustomOpPlugin {
  std::string domain;                 // as in the model's nodes; never a standard ONNX domain
  std::vector<std::string> op_types;  // the op types it registers; {"*"}: every op of the domain
  std::string engine;                 // aicore | aicpu
};

struct Compiler {
  Text soc_version;  // ATC --soc_version
  Count onnx_opset_min;
  Count onnx_opset_max;
  Text precision_mode_default;             // ATC --precision_mode
  Text precision_mode_v2_default;          // ATC --precision_mode_v2
  std::vector<CustomOpPlugin> custom_ops;  // compiler.custom_ops (optional member; empty: none)
};

struct Host {
  Text pcie;
  std::optional<Number> h2d_bandwidth;  // bytes/s; absent when the model runs in host memory
  Number eager_dispatch_per_op;         // seconds of host time per op in eager mode
  Number graph_launch_per_kernel;       // seconds per kernel in graph (sink) mode
  std::optional<Number> jit_compile_per_op;
};

struct AiCpu {
  Count cores;
  Number flops_per_core;  // FLOP/s
  Number task_overhead;   // seconds per AI CPU task (launch + sync)
};

// Device-side costs of one kernel that no other section holds (Ascend only; docs/perf.md).
struct KernelCosts {
  Number launch_overhead;  // seconds: start, scalar setup and completion of one AI Core kernel
  Number block_start;      // seconds: the scheduler's dispatch of each block after the first
  // Vector cycles per element on one core, by instruction class ("simple", "transcendental",
  // "divide", "reduce") and dtype ("float16", "float32"); a class left out runs at the full lane
  // rate (compute.vector_width / element bits). docs/perf.md, "Vector".
  std::map<std::string, std::map<std::string, Number>> vector_instructions;
  // Vector cycles of each instruction's fixed head, by class; paid once per instruction, i.e. once
  // per UB tile and op (docs/perf.md, "Tiles"). Empty: heads are not modelled.
  std::map<std::string, Number> vector_instruction_heads;
  // Cycles of each DMA instruction's fixed head on one core, by direction ("gm_to_ub": MTE2,
  // "ub_to_gm": MTE3); paid once per instruction, i.e. once per UB tile and operand (docs/perf.md,
  // "Tiles"). Empty: DMA heads are not modelled.
  std::map<std::string, Number> dma_instruction_heads;
  // Cycles of each cube-side instruction's fixed head on one core ("mad", "load2d", "load3d"),
  // paid per L0 tile step by convolutions (docs/perf.md, "Cube"). Empty: not modelled.
  std::map<std::string, Number> cube_instruction_heads;
  // Rows of the L0 (= L1) tile of TBE's static matmul schedule (matmul_tiling_gen, not public;
  // docs/perf.md, "Cube"). Absent: that schedule is not modelled.
  std::optional<Count> static_matmul_m_l0;
};

struct Link {
  Text type;
  Count peers;
  Number bandwidth_per_peer;  // bytes/s per direction
  Number total_bandwidth;     // bytes/s per direction
};
struct ScaleOut {
  Text type;
  Count ports;
  Number port_bandwidth;  // bytes/s per direction
};
struct Interconnect {
  std::optional<Link> intra_node;
  std::optional<ScaleOut> scale_out;
};

// Set when one package holds several dies; the rest of the profile then describes one die.
struct Package {
  Count dies;
  Text die_link;
  Number peak_fp16;  // FLOP/s of the whole package
  Count device;      // bytes
  Number bandwidth;  // bytes/s
};

// One fact as written in the profile, for display (`npugap targets show`).
struct FactRow {
  std::string field;  // dotted path, e.g. "compute.clock"
  std::string value;  // as written
  std::string unit;
  Provenance origin;
};

struct Target {
  std::string name;
  std::string description;
  std::string kind;    // ascend | gpu | cpu
  std::string origin;  // where it was loaded from: "built-in" or the file path
  Compute compute;
  Memory memory;
  Buffers buffers;
  BufferAlignment buffer_alignment;
  std::optional<Datapath> datapath;
  Layout layout;
  Numerics numerics;
  Framework framework;
  std::optional<Compiler> compiler;
  Host host;
  std::optional<AiCpu> aicpu;
  std::optional<KernelCosts> kernel;
  Interconnect interconnect;
  std::optional<Package> package;

  std::vector<FactRow> facts;         // every fact, in schema order
  std::vector<std::string> warnings;  // unknown keys, inconsistent peaks: reported, not fatal
  std::string json_text;              // the profile as loaded

  bool is_ascend() const { return kind == "ascend"; }
  // Peak of the cube unit for an input dtype in FLOP/s (OP/s), or nullopt when the dtype is not a
  // cube input format of this target.
  std::optional<double> PeakFlops(std::string_view dtype) const;
};

// The target used when a command is given no --target: the 910B2 (see docs/targets.md for why).
inline constexpr std::string_view kDefaultTarget = "ascend910b2";

// Built-in profile names, sorted.
std::vector<std::string> ListTargets();

// `name_or_path` is a built-in name (see ListTargets) or the path of a profile JSON file. Errors
// are one line naming the file and the field; warnings are collected in Target::warnings.
Expected<Target> LoadTarget(const std::string& name_or_path);

// Parses and validates a profile held in memory; `origin` names it in messages (a file path).
Expected<Target> ParseTarget(std::string_view json_text, const std::string& origin);

}  // namespace npugap::target
