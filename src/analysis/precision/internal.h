// Pieces of the precision plan shared between its source files: the mode table, the
// mixed-precision op lists, the vector kernels' intermediate precision, and the user override
// files in ATC's own formats (--keep_dtype, --modify_mixlist).
#pragma once

#include <functional>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "npugap/analysis/precision/plan.h"
#include "npugap/base/status.h"
#include "npugap/ir/graph.h"
#include "npugap/numerics/format.h"

namespace npugap::analysis::precision::internal {

// What a precision mode does to a float32 graph, in the terms of ascend-facts §3.1 / §3.2.
enum class ModeKind : uint8_t {
  kForceLow,        // force_fp16, v2 fp16: every float op in fp16
  kCubeLowIn,       // force_fp32 / cube_fp16in_fp32out: cube fp16 in, fp32 out; vector fp32
  kAllowFp32ToLow,  // allow_fp32_to_fp16: cube lowered to fp16, vector keeps fp32 where it can
  kOrigin,          // must_keep_origin_dtype, v2 origin: the graph's dtypes
  kMixed,           // allow_mix_precision*, mixed_*: white / black / gray lists
  kUniform,         // uniform_<fmt>: every tensor stored in <fmt>, fp32 compute (PyTorch CPU semantics)
};

struct ModeSpec {
  std::string name;  // canonical
  ModeKind kind = ModeKind::kForceLow;
  numerics::Format low = numerics::Format::kFP16;       // the reduced storage / vector format
  numerics::Format cube_low = numerics::Format::kFP16;  // the cube input format of lowered ops
};

// Every accepted name, in the order the help lists them.
std::vector<std::string> ModeNames();
std::optional<ModeSpec> FindMode(std::string_view name);

enum class ListKind : uint8_t { kWhite, kBlack, kGray };
std::string_view ListKindName(ListKind k);  // "white", "black", "gray"

struct OpListEntry {
  std::string onnx;    // ONNX op type
  std::string ascend;  // Ascend IR op type (what --keep_dtype OpType:: and --modify_mixlist name)
  ListKind list = ListKind::kGray;
  std::string source;
  std::string confidence;
  bool from_mixlist = false;  // moved there by the user's --modify_mixlist
};

struct OpLists {
  std::vector<OpListEntry> ops;
  // The entry for an ONNX op type, or nullptr (then: gray).
  const OpListEntry* Find(std::string_view onnx_op) const;
  // The entry named by an ONNX or Ascend IR op type, or nullptr.
  OpListEntry* FindByAnyName(std::string_view name);
};
// data/precision/mixed_precision_lists.json as embedded.
Expected<OpLists> BuiltinOpLists();

// Applies an ATC --modify_mixlist JSON file. A parse error is an error naming line and column;
// names no op type is known by are warnings.
Status ApplyMixlist(const std::string& path, OpLists& lists, std::vector<std::string>& warnings);
// The same for the JSON text; `path` names it in messages.
Status ApplyMixlistText(const std::string& path, const std::string& text, OpLists& lists,
                        std::vector<std::string>& warnings);

// The vector kernels that keep partial results in a chosen format (data/precision/vector_kernels.json).
struct VectorKernel {
  std::string onnx;
  bool high_performance_low = false;  // high_performance keeps partial sums in the low format
  bool high_precision_low = false;
  std::string source;
};
Expected<std::vector<VectorKernel>> BuiltinVectorKernels();
// ONNX op types whose high_performance implementation the plan marks (vector_kernels.json
// "high_performance_formulas"); each must be one the emulator can expand.
Expected<std::set<std::string>> BuiltinHighPerformanceFormulas();

// The PyTorch CPU kernels a uniform_<fmt> plan reproduces with a KernelVariant
// (vector_kernels.json "uniform_kernels"): op type, variant, the storage formats it was measured in.
struct UniformKernel {
  std::string onnx;
  KernelVariant variant = KernelVariant::kPlain;
  std::vector<numerics::Format> formats;
  std::string source;
  std::string confidence;  // measured, official, ... (every data entry carries one)
};
Expected<std::vector<UniformKernel>> BuiltinUniformKernels();

// --- the emulated run's graph edits (emulate.cc, emulate_formulas.cc) ---
int NewEmulationValue(ir::Graph& g, const std::string& base, ir::ValueType type);
// Makes the rounding node for one step of a formula: value `in` rounded into value `out`.
using FormulaRound = std::function<ir::Node(int in, int out, const std::string& name)>;
// The ops ExpandHighPerformance knows.
std::set<std::string> HighPerformanceFormulaOps();
// Rewrites `node` into the last instruction of its high_performance formula (it keeps its name
// and outputs, so the usual output rounding follows it) and returns the earlier instructions,
// each followed by its rounding, to run before it (emulate_formulas.cc).
Expected<std::vector<ir::Node>> ExpandHighPerformance(ir::Graph& g, ir::Node& node,
                                                      const FormulaRound& round);

// The slot (0 or 1) of x when `mul` is Mul(x, Sigmoid(x)) and the Sigmoid feeds nothing else
// (torch.onnx's export of torch.nn.SiLU); -1 otherwise.
int SiluInputSlot(const ir::Graph& g, const ir::Node& mul);
// Rewrites that Mul into the last step of PyTorch's bf16 silu kernel, Div(x, d), and returns the
// steps before it, each followed by its rounding: d = round(1 + round(exp(-x))).
Expected<std::vector<ir::Node>> ExpandTorchSilu(ir::Graph& g, ir::Node& mul, int x_slot,
                                                const FormulaRound& round);

// An ATC --keep_dtype file: one node name or `OpType::<type>` per line.
struct KeepDtype {
  std::set<std::string> nodes;     // node names
  std::set<std::string> op_types;  // ONNX op types (Ascend IR names mapped back)
};
Expected<KeepDtype> ReadKeepDtype(const std::string& path, const ir::Graph& graph, OpLists& lists,
                                  std::vector<std::string>& warnings);

// 1-based line and column of byte offset `pos` in `text`.
std::pair<int, int> LineColumn(std::string_view text, size_t pos);

}  // namespace npugap::analysis::precision::internal
