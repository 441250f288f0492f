// The compatibility check: would ATC compile this model for this target, where would each op run
// (AI Core, AI CPU fallback, nowhere), and which shapes are dynamic? A pure function of the model,
// the target profile and the options; the CLI (`npugap check`) renders the result.
//
// Per node the verdict comes from the op table's support column (exec/op_support.h) evaluated
// against the profile; the dynamic-shape findings come from a walk over the graph that tracks
// which values are known before running (constants, shapes of bound inputs). docs/compat.md.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "npugap/base/status.h"
#include "npugap/ir/graph.h"
#include "npugap/target/target.h"

namespace npugap::compat {

enum class Verdict { kAiCore, kAiCpu, kUnsupported, kUnknown };
std::string_view VerdictName(Verdict v);  // "aicore", "aicpu", "unsupported", "unknown"

// The ATC error a node would raise (ascend-facts §3.6); kNone when it compiles.
enum class AtcError { kNone, kE19010, kEZ3002, kEZ3003 };
std::string_view AtcErrorName(AtcError e);  // "", "E19010", "EZ3002", "EZ3003"

struct NodeResult {
  // Main-graph nodes: the node's name. Nodes of an If / Loop / Scan body: the path through the
  // owning nodes and their graph attributes, e.g. "loop/body/Add_3" ("If_0/then_branch/Relu_1").
  std::string name;
  std::string scope;  // the body the node is in ("loop/body"); empty in the main graph
  std::string op_type;
  std::string domain;
  Verdict verdict = Verdict::kAiCore;
  AtcError error = AtcError::kNone;
  std::string reason;  // empty for a plain AI Core op
  std::string basis;   // where the rule comes from (op_support.h basis string)
};

enum class FindingKind {
  kSymbolicInput,       // a graph input with unbound dims
  kShapeSubgraph,       // Shape -> ... -> Reshape/Expand/...: folds when inputs are bound
  kDataDependentShape,  // NonZero, Unique, TopK with runtime k, Resize with computed sizes, Range ...
  kControlFlow,         // If / Loop / Scan
};
std::string_view FindingKindName(FindingKind k);  // "symbolic_input", "shape_subgraph", ...

struct Finding {
  FindingKind kind = FindingKind::kSymbolicInput;
  bool blocking = true;            // ATC cannot build a static offline model while this stands
  std::string subject;             // the input or node it is about
  std::vector<std::string> nodes;  // the nodes involved (a shape chain), in graph order
  std::string detail;              // what is dynamic
  std::string fix;                 // what to do: an ATC option, --write-static, replacing an op
};

struct Summary {
  int64_t aicore = 0;
  int64_t aicpu = 0;
  int64_t unsupported = 0;
  int64_t unknown = 0;       // ops npugap has no rule for
  int64_t in_subgraphs = 0;  // of all the counted nodes, those inside If / Loop / Scan bodies
};

struct CheckOptions {
  // ATC --precision_mode_v2; empty: the profile's default. "origin" keeps fp32, so fp32 cube ops
  // on a target without an fp32 cube fall back to AI CPU (ascend-facts §3.1).
  std::string precision_mode_v2;
  // Non-standard domains with a custom-op plugin installed (--plugin-domain): every op of them on
  // AI Core, searched before the profile's compiler.custom_ops, so they override it.
  std::vector<std::string> plugin_domains;
};

struct CheckResult {
  std::string target;
  std::string soc_version;  // empty when the target has no ATC (cpu-dev, h200)
  std::string precision_mode_v2;
  int64_t opset = 0;
  std::string opset_error;  // non-empty when ATC rejects the model's opset (E19010)
  // Main graph in order; each node's If / Loop / Scan bodies follow it (attributes by name).
  std::vector<NodeResult> nodes;
  std::vector<Finding> dynamic;
  Summary summary;
  // ATC would build a static offline model as is: no unsupported op, opset in range, no blocking
  // dynamic-shape finding. AI CPU fallbacks still deploy (slower) and keep this true.
  bool deployable = false;
  // Nothing to report at all: deployable, every op on AI Core, no finding.
  bool clean = false;
};

// Fails only when the target has no ATC (not an Ascend profile).
Expected<CheckResult> CheckModel(const ir::Model& model, const target::Target& target,
                                 const CheckOptions& options = {});

}  // namespace npugap::compat
