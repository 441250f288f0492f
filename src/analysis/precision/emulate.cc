// EmulatedRunner: the FP32 executor runs a copy of the model in which npugap.RoundToFormat nodes
// (exec/ops/emulation.cc) stand where the plan says a value is read or stored in a narrower format:
//  - before a node, on each float activation whose stored format is not the node's input format
//    (graph inputs included), shared by every consumer that reads the same format;
//  - weights (initializers) are rounded once here, at Create, into new initializers;
//  - after a node, on each float output whose format is not fp32: the node then writes a raw
//    value and the rounding node writes the original value, so consumers and graph outputs read
//    the rounded tensor without being rewired.
// With options.fuse the model is fused first (exec/fusion.h) and the rounding goes around the
// fused kernels: Conv + BatchNorm + ReLU rounds once, at the end, in the format of the last node
// it absorbed, as the NPU's fused kernel stores its result once.
#include "npugap/analysis/precision/emulate.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <unordered_map>

#include <fmt/format.h>

#include "analysis/precision/internal.h"
#include "npugap/exec/emulation_op.h"
#include "npugap/exec/fusion.h"

namespace npugap::analysis::precision {
namespace {

using numerics::Format;

// What an executed node of the emulation graph is to the observer.
struct NodeRole {
  enum Kind { kOriginal, kRoundOutput, kRoundInput } kind = kOriginal;
  int base_node = -1;  // kOriginal: index into the base graph
  int slot = -1;       // kRoundOutput: which output of the preceding original node
  int rounds = 0;      // kOriginal: how many kRoundOutput nodes follow it
};

bool IsFloatValue(const ir::Value& v) {
  return v.type.is_tensor && (v.type.dtype == ir::DType::kFloat32 || v.type.dtype == ir::DType::kUndefined);
}

uint64_t NameSeed(uint64_t seed, const std::string& name) { return seed ^ std::hash<std::string>{}(name); }

}  // namespace

struct EmulatedRunner::State {
  PrecisionPlan plan;
  ir::Model base;       // the model as the observer sees it (fused when options.fuse)
  ir::Model emulation;  // base with rounding nodes; what the executor runs
  std::optional<exec::Executor> executor;
  std::unordered_map<const ir::Node*, NodeRole> roles;
};

Expected<EmulatedRunner> EmulatedRunner::Create(const ir::Model& model, PrecisionPlan plan,
                                                exec::ExecutorOptions options) {
  if (plan.nodes.size() != model.graph.nodes.size()) {
    return Status::InvalidArgument(fmt::format("precision plan has {} nodes, model '{}' has {}",
                                               plan.nodes.size(), model.path, model.graph.nodes.size()));
  }
  auto state = std::make_shared<State>();
  state->plan = std::move(plan);
  const PrecisionPlan& p = state->plan;
  // uniform_* defines a rounding after every op of the model as written (PyTorch's semantics),
  // which folding BatchNorm into a Conv would change: those plans always run unfused.
  if (p.mode.starts_with("uniform_")) options.fuse = false;
  if (options.fuse) {
    NPUGAP_ASSIGN_OR_RETURN(state->base, exec::FuseForExecution(model));
  } else {
    state->base = model;
  }
  std::unordered_map<std::string, int> original_index;
  for (size_t i = 0; i < model.graph.nodes.size(); ++i)
    original_index[model.graph.nodes[i].name] = static_cast<int>(i);

  const ir::Graph& bg = state->base.graph;
  ir::Model& em = state->emulation;
  em = state->base;
  em.opsets[std::string(exec::kEmulationDomain)] = 1;
  ir::Graph& g = em.graph;
  g.nodes.clear();
  std::vector<Format> stored(bg.values.size(), Format::kFP32);
  std::map<std::pair<int, Format>, int> rounded;  // (value, format) -> rounded value
  std::vector<NodeRole> roles;

  auto make_round = [&](int in, int out, Format f, const std::string& name, bool in_place = false) {
    ir::Node r;
    r.name = name;
    r.op_type = "RoundToFormat";
    r.domain = std::string(exec::kEmulationDomain);
    auto attr = [&](const char* key, int64_t v) {
      ir::Attribute a;
      a.kind = ir::Attribute::Kind::kInt;
      a.i = v;
      r.attributes[key] = a;
    };
    attr("format", static_cast<int64_t>(f));
    attr("rounding", static_cast<int64_t>(p.rounding.rounding));
    attr("overflow", static_cast<int64_t>(p.rounding.overflow));
    attr("subnormals", static_cast<int64_t>(p.rounding.subnormals));
    attr("seed", static_cast<int64_t>(NameSeed(p.rounding.seed, name)));
    if (in_place) attr("in_place", 1);
    ir::ValueType stats_type;
    stats_type.dtype = ir::DType::kInt64;
    stats_type.dims = std::vector<ir::Dim>{ir::Dim::Static(4)};
    r.inputs = {in};
    r.outputs = {out, internal::NewEmulationValue(g, name + "#stats", stats_type)};
    return r;
  };

  for (size_t bi = 0; bi < bg.nodes.size(); ++bi) {
    ir::Node n = bg.nodes[bi];
    const auto it = original_index.find(n.name);
    if (it == original_index.end())
      return Status::Internal(fmt::format("emulation: node '{}' not in the plan", n.name));
    const NodeNumerics& nn = p.nodes[static_cast<size_t>(it->second)];
    if (nn.unit != Unit::kNone && nn.input != Format::kFP32) {
      for (int& v : n.inputs) {
        if (v == ir::kNoValue || !IsFloatValue(bg.values[static_cast<size_t>(v)])) continue;
        if (stored[static_cast<size_t>(v)] == nn.input) continue;
        const auto key = std::make_pair(v, nn.input);
        if (auto r = rounded.find(key); r != rounded.end()) {
          v = r->second;
          continue;
        }
        const ir::Value& val = bg.values[static_cast<size_t>(v)];
        const std::string name = fmt::format("{}@{}", val.name, numerics::Info(nn.input).name);
        if (const ir::Tensor* w = bg.Initializer(v); w != nullptr && w->dtype() == ir::DType::kFloat32) {
          // Weights: rounded once, now.
          ir::Tensor copy = ir::Tensor::Empty(ir::DType::kFloat32, w->shape());
          std::copy(w->data<float>(), w->data<float>() + w->numel(), copy.data<float>());
          numerics::RoundArray(nn.input, copy.span<float>(), p.rounding);
          const int id = internal::NewEmulationValue(g, name, val.type);
          g.values[static_cast<size_t>(id)].is_initializer = true;
          g.initializers[id] = std::move(copy);
          rounded[key] = v = id;
          continue;
        }
        if (bg.Initializer(v) != nullptr) continue;  // non-float32 constant
        const int id = internal::NewEmulationValue(g, name, val.type);
        g.nodes.push_back(make_round(v, id, nn.input, name));
        roles.push_back({NodeRole::kRoundInput, -1, -1});
        rounded[key] = v = id;
      }
    }
    // high_performance: the op's formula as fp16 instructions, each rounded (emulate_formulas.cc).
    // Only float32 data (a Div may divide int64 shapes).
    if (nn.high_performance_formula && std::all_of(n.inputs.begin(), n.inputs.end(), [&](int v) {
          return v != ir::kNoValue && g.values[static_cast<size_t>(v)].type.dtype == ir::DType::kFloat32;
        })) {
      const internal::FormulaRound round = [&](int in, int out, const std::string& name) {
        return make_round(in, out, nn.input, name);
      };
      NPUGAP_ASSIGN_OR_RETURN(std::vector<ir::Node> steps, internal::ExpandHighPerformance(g, n, round));
      for (ir::Node& s : steps) {
        g.nodes.push_back(std::move(s));
        roles.push_back({NodeRole::kRoundInput, -1, -1});
      }
    }
    // Mul(x, Sigmoid(x)) under uniform_bf16: PyTorch's silu chain (emulate_formulas.cc).
    if (nn.kernel == KernelVariant::kSiluChain) {
      const internal::FormulaRound round = [&](int in, int out, const std::string& name) {
        return make_round(in, out, nn.output, name);
      };
      const int slot = internal::SiluInputSlot(bg, bg.nodes[bi]);
      NPUGAP_ASSIGN_OR_RETURN(std::vector<ir::Node> steps, internal::ExpandTorchSilu(g, n, slot, round));
      for (ir::Node& s : steps) {
        g.nodes.push_back(std::move(s));
        roles.push_back({NodeRole::kRoundInput, -1, -1});
      }
    }
    // Kernels that keep partial sums in a narrower format read it from the node (emulation_op.h).
    if (nn.unit == Unit::kVector && nn.compute != Format::kFP32 && nn.compute != Format::kHF32) {
      ir::Attribute a;
      a.kind = ir::Attribute::Kind::kInt;
      a.i = static_cast<int64_t>(nn.compute) | static_cast<int64_t>(p.rounding.overflow) << 8;
      n.attributes[exec::kAccumulateFormatAttr] = a;
    }
    // uniform_* kernels that follow PyTorch's CPU kernel rather than one rounding (plan.h).
    if (nn.kernel != KernelVariant::kPlain && nn.kernel != KernelVariant::kSiluChain) {
      ir::Attribute a;
      a.kind = ir::Attribute::Kind::kInt;
      a.i = 1;
      const char* key =
          nn.kernel == KernelVariant::kOneDnnBf16 ? exec::kOneDnnBf16Attr : exec::kBatchNormFmaAttr;
      if (nn.kernel == KernelVariant::kMeanRoundsSum) {
        key = exec::kMeanRoundsSumAttr;
        a.i = static_cast<int64_t>(nn.output) | static_cast<int64_t>(p.rounding.overflow) << 8;
      }
      n.attributes[key] = a;
    }
    if (p.finite_accumulator) {
      // The cube kernels' finite-accumulator policy runs on plain layouts: drop the fusion's
      // blocked-layout marks (only convolutions make or read blocked values, so all go at once).
      for (const char* key : {exec::kBlockedXAttr, exec::kBlockedZAttr, exec::kBlockedYAttr})
        n.attributes.erase(key);
      if (nn.unit == Unit::kCube) {
        ir::Attribute a;
        a.kind = ir::Attribute::Kind::kInt;
        a.i = p.accumulator_fraction_bits;
        n.attributes[exec::kCubeAccumulatorAttr] = a;
      }
    }
    // Outputs: the node writes a raw value, the rounding node the original one.
    std::vector<ir::Node> after;
    std::vector<NodeRole> after_roles;
    for (size_t o = 0; o < n.outputs.size(); ++o) {
      const int v = n.outputs[o];
      if (v == ir::kNoValue || !IsFloatValue(bg.values[static_cast<size_t>(v)])) continue;
      // The format the value is stored in: that of the original node that produced it (for a
      // fused kernel, the last node it absorbed).
      const int producer = v < static_cast<int>(model.graph.values.size())
                               ? model.graph.values[static_cast<size_t>(v)].producer
                               : -1;
      const NodeNumerics& pn = producer >= 0 ? p.nodes[static_cast<size_t>(producer)] : nn;
      if (pn.unit == Unit::kNone) {
        // Pass-through ops keep the format of their input.
        for (int in : bg.nodes[bi].inputs) {
          if (in != ir::kNoValue && IsFloatValue(bg.values[static_cast<size_t>(in)])) {
            stored[static_cast<size_t>(v)] = stored[static_cast<size_t>(in)];
            break;
          }
        }
        continue;
      }
      stored[static_cast<size_t>(v)] = pn.output;
      if (pn.output == Format::kFP32) continue;
      const std::string& vname = bg.values[static_cast<size_t>(v)].name;
      const int raw = internal::NewEmulationValue(g, vname + "#raw", bg.values[static_cast<size_t>(v)].type);
      n.outputs[o] = raw;
      // Cube kernels always write a fresh buffer, and the raw value has this one reader: round it
      // in place. Other kernels may return a view of an input (Identity-like), so they get a copy.
      after.push_back(make_round(raw, v, pn.output, vname + "@round", nn.unit == Unit::kCube));
      after_roles.push_back({NodeRole::kRoundOutput, -1, static_cast<int>(o)});
    }
    g.nodes.push_back(std::move(n));
    roles.push_back({NodeRole::kOriginal, static_cast<int>(bi), -1, static_cast<int>(after.size())});
    for (size_t k = 0; k < after.size(); ++k) {
      g.nodes.push_back(std::move(after[k]));
      roles.push_back(after_roles[k]);
    }
  }
  g.RebuildLinks();
  for (size_t i = 0; i < g.nodes.size(); ++i) state->roles[&g.nodes[i]] = roles[i];
  options.fuse = false;  // already fused above when asked
  NPUGAP_ASSIGN_OR_RETURN(exec::Executor executor, exec::Executor::Create(em, options));
  state->executor.emplace(std::move(executor));
  return EmulatedRunner(std::move(state));
}

const PrecisionPlan& EmulatedRunner::plan() const { return state_->plan; }

Expected<std::vector<ir::Tensor>> EmulatedRunner::Run(const std::vector<ir::Tensor>& inputs,
                                                      const EmulationObserver& observer) const {
  if (!observer) return state_->executor->Run(inputs);
  const State& s = *state_;
  // The original node that ran last, its outputs as the rounding nodes replace them, and the stats.
  int pending = -1;
  std::vector<ir::Tensor> outputs;
  std::vector<numerics::RoundStats> stats;
  std::vector<bool> was_rounded;
  int rounds_left = 0;
  auto flush = [&] {
    if (pending < 0) return;
    for (size_t o = 0; o < outputs.size(); ++o) {
      // Unrounded (fp32) outputs: only their non-finite values are counted.
      if (!was_rounded[o] && outputs[o].defined() && outputs[o].dtype() == ir::DType::kFloat32) {
        int64_t bad = 0;
        for (float v : outputs[o].span<const float>()) bad += std::isfinite(v) ? 0 : 1;
        stats[o].inf_nan = bad;
      }
    }
    observer(s.base.graph.nodes[static_cast<size_t>(pending)], outputs, stats);
    pending = -1;
  };
  auto result = s.executor->Run(inputs, [&](const ir::Node& node, const std::vector<ir::Tensor>& outs) {
    const NodeRole& role = s.roles.at(&node);
    if (role.kind == NodeRole::kOriginal) {
      flush();
      pending = role.base_node;
      outputs = outs;
      stats.assign(outs.size(), {});
      was_rounded.assign(outs.size(), false);
      // Handed on as soon as its outputs are final, so an observer that times nodes sees each
      // node's own time (plus its rounding).
      rounds_left = role.rounds;
      if (rounds_left == 0) flush();
    } else if (role.kind == NodeRole::kRoundOutput && pending >= 0) {
      outputs[static_cast<size_t>(role.slot)] = outs[0];
      was_rounded[static_cast<size_t>(role.slot)] = true;
      const int64_t* st = outs[1].data<int64_t>();
      stats[static_cast<size_t>(role.slot)] = {st[0], st[1], st[2], st[3]};
      if (--rounds_left == 0) flush();
    }
  });
  flush();
  return result;
}

std::vector<std::string> HostRunNotes(const PrecisionPlan& plan) {
  std::vector<std::string> notes;
  const auto convs = std::count_if(plan.nodes.begin(), plan.nodes.end(), [](const NodeNumerics& n) {
    return n.kernel == KernelVariant::kOneDnnBf16;
  });
  if (convs > 0 && !exec::OneDnnHasBf16Convolution()) {
    notes.push_back(fmt::format(
        "oneDNN has no bf16 convolution on this CPU (it needs AVX-512): {} Conv node{} ran the fp32 "
        "convolution rounded to bf16 once, so {} bits are not PyTorch's bf16 convolution's",
        convs, convs == 1 ? "" : "s", convs == 1 ? "its" : "their"));
  }
  return notes;
}

}  // namespace npugap::analysis::precision
