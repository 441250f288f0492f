// Pass 2: graph fusion and UB fusion. Each pattern is a row of kChains (a producer -> consumer
// chain of op types) or one of the two structural matchers (decomposed LayerNorm and GELU, which
// torch exports as small DAGs). Fused kernel names follow shared/calibration/ascend910
// (FusionOp_Conv2D_BNTrainingReduce, FusionOp_BNTrainingUpdate_ReLUV2, FusionOp_MatMul_GeLU,
// FusionOp_BatchMatMul_FusedMulAdd, ...). The pass names are the switch names of
// --fusion_switch_file; they are CANN-style names chosen by npugap (assumed: the research notes
// do not list CANN's pass names), docs/perf_iteration.md lists them.
#include <algorithm>
#include <string_view>
#include <unordered_set>

#include "lower_graph.h"

namespace npugap::analysis::perf {
namespace {

using internal::OpGraph;

enum class When : uint8_t { kInference, kTraining, kBoth };

using StepFn = bool (*)(const DeviceOp& op, const DeviceOp* prev);

struct ChainPattern {
  std::string_view pass;
  std::string_view group;  // "GraphFusion" | "UBFusion"
  When when;
  std::vector<StepFn> steps;
  std::string_view result;   // fused op type; empty: "FusionOp_" + the chain's types
  bool keep_first_type;      // graph fusion that folds the rest into the first op (BN into Conv)
  bool shared_intermediate;  // the first op's output may have other readers (Conv -> BN reduce + update)
};

bool Is(const DeviceOp& op, std::string_view t) { return op.op_type == t; }
bool IsConv(const DeviceOp& op, const DeviceOp*) { return Is(op, "Conv2D"); }
bool IsMatMul(const DeviceOp& op, const DeviceOp*) { return Is(op, "MatMul"); }
bool IsAnyMatMul(const DeviceOp& op, const DeviceOp*) { return Is(op, "MatMul") || Is(op, "BatchMatMul"); }
bool IsBatchMatMul(const DeviceOp& op, const DeviceOp*) { return Is(op, "BatchMatMul"); }
bool IsBnInference(const DeviceOp& op, const DeviceOp*) { return Is(op, "BNInference"); }
bool IsBnReduce(const DeviceOp& op, const DeviceOp*) { return Is(op, "BNTrainingReduce"); }
bool IsBnUpdate(const DeviceOp& op, const DeviceOp*) { return Is(op, "BNTrainingUpdate"); }
bool IsReluV2(const DeviceOp& op, const DeviceOp*) { return Is(op, "ReluV2"); }
bool IsConvActivation(const DeviceOp& op, const DeviceOp*) {
  return Is(op, "Relu") || Is(op, "ClipByValue") || Is(op, "LeakyRelu") || Is(op, "Sigmoid") ||
         Is(op, "HardSwish");
}
bool IsMatMulActivation(const DeviceOp& op, const DeviceOp*) {
  return Is(op, "GeLU") || Is(op, "Relu") || Is(op, "Tanh") || Is(op, "Sigmoid");
}
// An Add of two same-shaped tensors (the residual), not a broadcast bias.
bool IsResidualAdd(const DeviceOp& op, const DeviceOp*) {
  return Is(op, "Add") && op.inputs.size() == 2 && op.inputs[0].shape == op.inputs[1].shape;
}
// An Add of a 1-D weight along the last dim: a matmul's bias.
bool IsBiasAdd(const DeviceOp& op, const DeviceOp* prev) {
  if (!Is(op, "Add") || op.inputs.size() != 2 || prev == nullptr || prev->outputs.empty()) return false;
  const ir::Shape& out = prev->outputs[0].shape;
  for (const OpTensor& t : op.inputs) {
    if (t.weight && t.shape.size() == 1 && !out.empty() && t.shape[0] == out.back()) return true;
  }
  return false;
}
bool IsScalarScale(const DeviceOp& op, const DeviceOp*) {
  if (!(Is(op, "Mul") || Is(op, "RealDiv")) || op.inputs.size() != 2) return false;
  return internal::Numel(op.inputs[1].shape) == 1 || internal::Numel(op.inputs[0].shape) == 1;
}
bool IsAdd(const DeviceOp& op, const DeviceOp*) { return Is(op, "Add"); }

// Graph fusion first (it changes what UB fusion sees), then UB fusion, in this order.
const std::vector<ChainPattern>& Chains() {
  static const std::vector<ChainPattern> kChains = {
      {"ConvBatchnormFusionPass", "GraphFusion", When::kInference, {IsConv, IsBnInference}, "", true, false},
      {"MatMulBiasAddFusionPass", "GraphFusion", When::kBoth, {IsAnyMatMul, IsBiasAdd}, "", true, false},
      {"TbeConvBnreduceFusionPass", "UBFusion", When::kTraining, {IsConv, IsBnReduce}, "", false, true},
      {"TbeBnupdateEltwiseEltwiseFusionPass",
       "UBFusion",
       When::kTraining,
       {IsBnUpdate, IsResidualAdd, IsReluV2},
       "FusionOp_BNTrainingUpdate_Add_ReLUV2",
       false,
       false},
      {"TbeBnupdateEltwiseFusionPass",
       "UBFusion",
       When::kTraining,
       {IsBnUpdate, IsReluV2},
       "FusionOp_BNTrainingUpdate_ReLUV2",
       false,
       false},
      {"TbeConvDoubleInElemwiseFusionPass",
       "UBFusion",
       When::kInference,
       {IsConv, IsResidualAdd, IsConvActivation},
       "",
       false,
       false},
      {"TbeConvElemwiseFusionPass",
       "UBFusion",
       When::kInference,
       {IsConv, IsConvActivation},
       "",
       false,
       false},
      {"TbeMatmulElemwiseFusionPass",
       "UBFusion",
       When::kBoth,
       {IsMatMul, IsMatMulActivation},
       "",
       false,
       false},
      {"TbeBatchMatmulFusedMulAddFusionPass",
       "UBFusion",
       When::kBoth,
       {IsBatchMatMul, IsScalarScale, IsAdd},
       "FusionOp_BatchMatMul_FusedMulAdd",
       false,
       false},
  };
  return kChains;
}

bool Applies(When when, bool train) { return when == When::kBoth || (when == When::kTraining) == train; }

// Fusion over a list with stable indices: merged ops take the place of their last member, the
// other members become tombstones, and the list is compacted once at the end. The dataflow is
// built once; readers of a tombstone are redirected to the op it was merged into.
class Fuser {
 public:
  explicit Fuser(std::vector<DeviceOp>& ops) : ops_(ops), graph_(ops), merged_into_(ops.size(), -1) {}

  bool Alive(int i) const { return merged_into_[static_cast<size_t>(i)] < 0; }
  DeviceOp& Op(int i) { return ops_[static_cast<size_t>(i)]; }
  int Producer(int value) const { return Resolve(graph_.Producer(value)); }
  std::vector<int> Readers(int value) const {
    std::vector<int> out;
    for (int r : graph_.Consumers(value)) {
      const int x = Resolve(r);
      if (std::find(out.begin(), out.end(), x) == out.end()) out.push_back(x);
    }
    return out;
  }
  int SoleReader(int value) const {
    auto r = Readers(value);
    return r.size() == 1 ? r[0] : -1;
  }
  int ReaderOfType(int value, std::string_view type) {
    for (int r : Readers(value)) {
      if (Op(r).op_type == type) return r;
    }
    return -1;
  }
  int Out0(int i) { return Op(i).outputs.empty() ? 0 : Op(i).outputs[0].value; }

  // Merges `members` into one op of `type`; returns how many ops disappeared.
  int64_t Fuse(std::vector<int> members, const std::string& type, const std::string& pass,
               bool keep_internal) {
    std::sort(members.begin(), members.end());
    members.erase(std::unique(members.begin(), members.end()), members.end());
    std::unordered_set<int> set(members.begin(), members.end());
    std::unordered_set<int> made;
    for (int i : members) {
      for (const OpTensor& t : Op(i).outputs) made.insert(t.value);
    }
    DeviceOp out = Op(members.front());
    out.op_type = type;
    out.fused_by = pass;
    out.inputs.clear();
    out.outputs.clear();
    out.nodes.clear();
    std::string names;
    std::unordered_set<int> seen;
    for (int i : members) {
      const DeviceOp& op = Op(i);
      names += (names.empty() ? "" : "+") + op.name;
      out.nodes.insert(out.nodes.end(), op.nodes.begin(), op.nodes.end());
      out.atomic_output = out.atomic_output || op.atomic_output;
      if (op.category == Category::kCube) out.category = Category::kCube;
      for (const OpTensor& t : op.inputs) {
        if (made.count(t.value) == 0 && seen.insert(t.value).second) out.inputs.push_back(t);
      }
      for (const OpTensor& t : op.outputs) {
        const auto readers = Readers(t.value);
        const bool outside = readers.empty() || std::any_of(readers.begin(), readers.end(),
                                                            [&](int r) { return set.count(r) == 0; });
        if (outside || keep_internal) out.outputs.push_back(t);
      }
    }
    out.name = names;
    const int last = members.back();
    for (int i : members) {
      if (i != last) merged_into_[static_cast<size_t>(i)] = last;
    }
    Op(last) = std::move(out);
    return static_cast<int64_t>(members.size()) - 1;
  }

  void Compact() {
    std::vector<DeviceOp> kept;
    kept.reserve(ops_.size());
    for (size_t i = 0; i < ops_.size(); ++i) {
      if (merged_into_[i] < 0) kept.push_back(std::move(ops_[i]));
    }
    ops_ = std::move(kept);
  }

  size_t size() const { return ops_.size(); }

 private:
  int Resolve(int i) const {
    while (i >= 0 && merged_into_[static_cast<size_t>(i)] >= 0) i = merged_into_[static_cast<size_t>(i)];
    return i;
  }
  std::vector<DeviceOp>& ops_;
  OpGraph graph_;
  std::vector<int> merged_into_;
};

// One chain pattern over the whole list; returns how many ops fusion removed.
int64_t ApplyChain(std::vector<DeviceOp>& ops, const ChainPattern& p) {
  // Most patterns do not occur in a given model: skip building the dataflow for them.
  if (std::none_of(ops.begin(), ops.end(), [&](const DeviceOp& op) { return p.steps[0](op, nullptr); }))
    return 0;
  int64_t removed = 0;
  Fuser f(ops);
  for (int start = 0; start < static_cast<int>(f.size()); ++start) {
    if (!f.Alive(start) || !p.steps[0](f.Op(start), nullptr)) continue;
    std::vector<int> chain = {start};
    for (size_t s = 1; s < p.steps.size(); ++s) {
      const DeviceOp& prev = f.Op(chain.back());
      if (prev.outputs.empty()) break;
      int next = -1;
      if (s == 1 && p.shared_intermediate) {
        for (int r : f.Readers(prev.outputs[0].value)) {
          if (p.steps[s](f.Op(r), &prev)) {
            next = r;
            break;
          }
        }
      } else {
        next = f.SoleReader(prev.outputs[0].value);
      }
      if (next < 0 || f.Op(next).phase != prev.phase || !p.steps[s](f.Op(next), &prev)) break;
      chain.push_back(next);
    }
    if (chain.size() != p.steps.size()) continue;
    std::string type;
    if (p.keep_first_type) {
      type = f.Op(start).op_type;
    } else if (!p.result.empty()) {
      type = p.result;
    } else {
      type = "FusionOp";
      for (int i : chain) type += "_" + f.Op(i).op_type;
    }
    removed += f.Fuse(chain, type, std::string(p.pass), p.shared_intermediate);
  }
  f.Compact();
  return removed;
}
}  // namespace

// Structural matchers (decomposed LayerNorm / GELU) and the elementwise-chain pass.
int64_t FuseDecomposedLayerNorm(std::vector<DeviceOp>& ops);
int64_t FuseDecomposedGelu(std::vector<DeviceOp>& ops);
int64_t FuseElementwiseChains(std::vector<DeviceOp>& ops);

std::vector<std::pair<std::string, std::string>> FusionPassNames() {
  std::vector<std::pair<std::string, std::string>> names = {{"LayerNormFusionPass", "GraphFusion"},
                                                            {"GeluFusionPass", "GraphFusion"}};
  for (const ChainPattern& p : Chains()) names.emplace_back(p.pass, p.group);
  names.emplace_back("TbeEltwiseFusionPass", "UBFusion");
  return names;
}

std::vector<DeviceOp> FuseOps(std::vector<DeviceOp> ops, const FusionSwitches& sw, bool train,
                              int64_t* fused_away) {
  int64_t removed = 0;
  if (sw.Enabled("LayerNormFusionPass", "GraphFusion")) removed += FuseDecomposedLayerNorm(ops);
  if (sw.Enabled("GeluFusionPass", "GraphFusion")) removed += FuseDecomposedGelu(ops);
  for (const ChainPattern& p : Chains()) {
    if (Applies(p.when, train) && sw.Enabled(std::string(p.pass), std::string(p.group))) {
      removed += ApplyChain(ops, p);
    }
  }
  if (sw.Enabled("TbeEltwiseFusionPass", "UBFusion")) removed += FuseElementwiseChains(ops);
  if (fused_away) *fused_away = removed;
  return ops;
}

// ---- structural matchers -------------------------------------------------------------------

// x -> ReduceMean -> Sub(x, mean) -> Pow -> ReduceMean -> Add(eps) -> Sqrt -> RealDiv(sub, .) ->
// Mul(gamma) -> Add(beta): torch's LayerNorm exported below opset 17.
int64_t FuseDecomposedLayerNorm(std::vector<DeviceOp>& ops) {
  if (std::none_of(ops.begin(), ops.end(), [](const DeviceOp& op) { return op.op_type == "ReduceMean"; }))
    return 0;
  int64_t removed = 0;
  Fuser f(ops);
  for (int i = 0; i < static_cast<int>(f.size()); ++i) {
    if (!f.Alive(i) || f.Op(i).op_type != "ReduceMean" || f.Op(i).inputs.empty()) continue;
    const int x = f.Op(i).inputs[0].value;
    const int sub = f.ReaderOfType(f.Out0(i), "Sub");
    if (sub < 0 || f.Op(sub).inputs[0].value != x) continue;
    const int pow = f.ReaderOfType(f.Out0(sub), "Pow");
    const int div = f.ReaderOfType(f.Out0(sub), "RealDiv");
    if (pow < 0 || div < 0) continue;
    const int mean2 = f.ReaderOfType(f.Out0(pow), "ReduceMean");
    const int eps = mean2 < 0 ? -1 : f.ReaderOfType(f.Out0(mean2), "Add");
    const int sqrt = eps < 0 ? -1 : f.ReaderOfType(f.Out0(eps), "Sqrt");
    if (sqrt < 0 || f.ReaderOfType(f.Out0(sqrt), "RealDiv") != div) continue;
    std::vector<int> members = {i, sub, pow, mean2, eps, sqrt, div};
    const int mul = f.ReaderOfType(f.Out0(div), "Mul");
    if (mul >= 0 && f.Readers(f.Out0(div)).size() == 1) {
      members.push_back(mul);
      const int beta = f.ReaderOfType(f.Out0(mul), "Add");
      if (beta >= 0 && f.Readers(f.Out0(mul)).size() == 1) members.push_back(beta);
    }
    removed += f.Fuse(members, "LayerNorm", "LayerNormFusionPass", false);
  }
  f.Compact();
  return removed;
}

// x -> RealDiv(sqrt 2) -> Erf -> Add(1) -> Mul(x, .) -> Mul(0.5): torch's exact GELU below opset 20.
int64_t FuseDecomposedGelu(std::vector<DeviceOp>& ops) {
  if (std::none_of(ops.begin(), ops.end(), [](const DeviceOp& op) { return op.op_type == "Erf"; })) return 0;
  int64_t removed = 0;
  Fuser f(ops);
  for (int i = 0; i < static_cast<int>(f.size()); ++i) {
    if (!f.Alive(i) || f.Op(i).op_type != "Erf" || f.Op(i).inputs.empty()) continue;
    const int div = f.Producer(f.Op(i).inputs[0].value);
    if (div < 0 || f.Op(div).op_type != "RealDiv") continue;
    const int x = f.Op(div).inputs[0].value;
    const int add = f.ReaderOfType(f.Out0(i), "Add");
    const int mul = add < 0 ? -1 : f.ReaderOfType(f.Out0(add), "Mul");
    if (mul < 0) continue;
    const auto& mul_in = f.Op(mul).inputs;
    if (std::none_of(mul_in.begin(), mul_in.end(), [&](const OpTensor& t) { return t.value == x; })) continue;
    std::vector<int> members = {div, i, add, mul};
    const int half = f.ReaderOfType(f.Out0(mul), "Mul");
    if (half >= 0 && f.Readers(f.Out0(mul)).size() == 1) members.push_back(half);
    removed += f.Fuse(members, "GeLU", "GeluFusionPass", false);
  }
  f.Compact();
  return removed;
}

// Consecutive elementwise vector ops, each the only reader of the previous one's output and of
// the same output size, become one UB-fused kernel (FusionOp_Mul_Neg in the BERT calibration).
int64_t FuseElementwiseChains(std::vector<DeviceOp>& ops) {
  int64_t removed = 0;
  Fuser f(ops);
  for (int i = 0; i < static_cast<int>(f.size()); ++i) {
    if (!f.Alive(i) || !internal::IsElementwise(f.Op(i).op_type) || !f.Op(i).fused_by.empty() ||
        f.Op(i).outputs.empty()) {
      continue;
    }
    std::vector<int> chain = {i};
    // Up to 4 ops: the UB holds a few operand tiles at once (assumed bound).
    while (chain.size() < 4) {
      const DeviceOp& last = f.Op(chain.back());
      if (last.outputs.size() != 1) break;
      const int next = f.SoleReader(last.outputs[0].value);
      if (next < 0) break;
      const DeviceOp& n = f.Op(next);
      if (!internal::IsElementwise(n.op_type) || !n.fused_by.empty() || n.phase != last.phase ||
          n.outputs.empty() ||
          internal::Numel(n.outputs[0].shape) != internal::Numel(last.outputs[0].shape)) {
        break;
      }
      chain.push_back(next);
    }
    if (chain.size() < 2) continue;
    std::string type = "FusionOp";
    for (int c : chain) type += "_" + f.Op(c).op_type;
    removed += f.Fuse(chain, type, "TbeEltwiseFusionPass", false);
  }
  f.Compact();
  return removed;
}

}  // namespace npugap::analysis::perf
