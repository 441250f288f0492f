// Per-node verdicts: the op table's support column evaluated against one target profile.
#include <algorithm>

#include <fmt/format.h>

#include "internal.h"
#include "npugap/exec/op_table.h"

namespace npugap::compat::internal {
namespace {

using exec::Contains;
using exec::DTypeSet;
using ir::DType;

// Profile dtype names (docs/targets.md) to IR dtypes; int4, hf32, fp8 and hif8 have no ONNX
// tensor type and do not matter for placing ONNX ops.
DTypeSet FormatsToSet(const std::vector<std::string>& formats) {
  DTypeSet s = 0;
  for (const std::string& f : formats) {
    if (f == "fp16")
      s |= exec::TypeSet({DType::kFloat16});
    else if (f == "bf16")
      s |= exec::TypeSet({DType::kBFloat16});
    else if (f == "fp32")
      s |= exec::TypeSet({DType::kFloat32});
    else if (f == "int8")
      s |= exec::TypeSet({DType::kInt8, DType::kUInt8});
  }
  return s;
}

bool IsStandardDomain(const std::string& d) { return d.empty() || d == "ai.onnx"; }

DType ValueDType(const ir::Graph& g, int value) {
  if (value < 0 || static_cast<size_t>(value) >= g.values.size()) return DType::kUndefined;
  return g.values[static_cast<size_t>(value)].type.dtype;
}

// The AI Core dtypes of a rule on this target: bf16 only where the vector unit has it; on the
// cube, fp32 stays fp32 only under a dtype-keeping precision mode, and then needs an fp32 cube.
DTypeSet AiCoreTypes(const exec::SupportRule& rule, const TargetView& view) {
  DTypeSet s = rule.aicore;
  const DTypeSet bf16 = exec::TypeSet({DType::kBFloat16});
  const DTypeSet fp32 = exec::TypeSet({DType::kFloat32});
  if ((view.vector_types & bf16) == 0) s &= ~bf16;
  if (rule.cube && view.keep_fp32 && (view.cube_types & fp32) == 0) s &= ~fp32;
  return s;
}

struct DTypeVerdict {
  Verdict verdict = Verdict::kAiCore;
  std::string reason;
};

DTypeVerdict CheckDType(DType t, const exec::SupportRule& rule, DTypeSet aicore) {
  if (t == DType::kUndefined) return {};
  if (t == DType::kString) return {Verdict::kUnsupported, "string tensors do not exist on the device"};
  if (Contains(aicore, t)) return {};
  const std::string name(ir::DTypeName(t));
  if (Contains(rule.aicpu, t)) {
    return {Verdict::kAiCpu, rule.aicore == 0 ? "AI CPU kernel only"
                                              : fmt::format("{}: no AI Core kernel, AI CPU fallback", name)};
  }
  return {Verdict::kUnsupported, fmt::format("{}: neither an AI Core nor an AI CPU kernel takes it", name)};
}

NodeResult Make(const ir::Node& n, Verdict v, AtcError e, std::string reason, std::string_view basis = {}) {
  return {n.name, "", n.op_type, n.domain, v, e, std::move(reason), std::string(basis)};
}

}  // namespace

TargetView MakeTargetView(const target::Target& target, const std::string& precision_mode_v2,
                          const std::vector<std::string>& plugin_domains) {
  TargetView view;
  if (target.compiler) {
    view.soc_version = target.compiler->soc_version.value;
    view.opset_min = target.compiler->onnx_opset_min.value;
    view.opset_max = target.compiler->onnx_opset_max.value;
  }
  view.vector_types = FormatsToSet(target.numerics.vector_formats.value);
  view.cube_types = FormatsToSet(target.numerics.cube_input_formats.value);
  view.keep_fp32 = precision_mode_v2 == "origin";
  for (const std::string& domain : plugin_domains) {
    view.plugins.push_back({{domain, {"*"}, "aicore"}, "--plugin-domain"});
  }
  if (target.compiler) {
    for (size_t i = 0; i < target.compiler->custom_ops.size(); ++i) {
      view.plugins.push_back({target.compiler->custom_ops[i], fmt::format("compiler.custom_ops[{}]", i)});
    }
  }
  return view;
}

NodeResult ClassifyNode(const ir::Graph& g, const ir::Node& n, int64_t opset, const TargetView& view) {
  const std::string& domain = n.domain;
  const TargetView::Plugin* domain_plugin = nullptr;  // the first plugin of the node's domain
  for (const TargetView::Plugin& p : view.plugins) {
    if (IsStandardDomain(domain)) break;  // plugins are for ops of their own domain
    if (p.plugin.domain != domain) continue;
    if (domain_plugin == nullptr) domain_plugin = &p;
    const auto& types = p.plugin.op_types;
    if (std::find(types.begin(), types.end(), "*") == types.end() &&
        std::find(types.begin(), types.end(), n.op_type) == types.end()) {
      continue;
    }
    const bool aicore = p.plugin.engine == "aicore";
    return Make(n, aicore ? Verdict::kAiCore : Verdict::kAiCpu, AtcError::kNone,
                fmt::format("custom-op plugin ({}) for {}::{} on {}", p.declared_by, domain, n.op_type,
                            aicore ? "AI Core" : "AI CPU"),
                "declared by the user: custom-op plugin installed with CANN");
  }
  if (!IsStandardDomain(domain)) {
    // ATC's ONNX parser registers ai.onnx ops only; ascend-facts §3.6 quotes E19010 "No parser is
    // registered for Op" for the dynamo exporter's pkg.onnxscript.torch_lib.common domain. The
    // parser fails before any kernel is looked up, so it is E19010 and not EZ3003 (docs/compat.md).
    if (domain_plugin != nullptr) {
      std::string types;  // every op type the domain's plugins declare
      for (const TargetView::Plugin& p : view.plugins) {
        if (p.plugin.domain != domain) continue;
        for (const std::string& t : p.plugin.op_types) types += (types.empty() ? "" : ", ") + t;
      }
      return Make(
          n, Verdict::kUnsupported, AtcError::kE19010,
          fmt::format("the custom-op plugin for domain '{}' ({}) registers no parser for {} (it has: {})",
                      domain, domain_plugin->declared_by, n.op_type, types),
          "ascend-facts §3.6: E19010 No parser is registered for Op");
    }
    return Make(n, Verdict::kUnsupported, AtcError::kE19010,
                fmt::format("domain '{}' has no ATC parser (declare a custom-op plugin in the profile's "
                            "compiler.custom_ops, or replace the op)",
                            n.domain),
                "ascend-facts §3.6: E19010 No parser is registered for Op (non-ai.onnx domain)");
  }
  if (opset < view.opset_min || opset > view.opset_max) {
    return Make(n, Verdict::kUnsupported, AtcError::kE19010,
                fmt::format("ai.onnx opset {} outside ATC's {}..{}: no parser for ai.onnx::{}::{}", opset,
                            view.opset_min, view.opset_max, opset, n.op_type));
  }
  const exec::OpRow* row = exec::OpTable::Default().Find(n.domain, n.op_type, opset);
  if (row == nullptr || row->support == nullptr) {
    return Make(n, Verdict::kUnknown, AtcError::kNone,
                fmt::format("npugap has no rule for {} at opset {}", n.op_type, opset));
  }
  const exec::SupportRule& rule = *row->support;
  if (rule.aicore == 0 && rule.aicpu == 0) {
    return Make(n, Verdict::kUnsupported, AtcError::kEZ3003, "no ATC kernel for this op", rule.basis);
  }
  // The data dtype and the first output's dtype (a Cast to float64 is as bad as a float64 input).
  DTypeVerdict worst;
  if (rule.dtype_from != exec::DTypeFrom::kAny) {
    const DTypeSet aicore = AiCoreTypes(rule, view);
    const int data = rule.dtype_from == exec::DTypeFrom::kInput0 ? (n.inputs.empty() ? -1 : n.inputs[0])
                                                                 : (n.outputs.empty() ? -1 : n.outputs[0]);
    const int out = n.outputs.empty() ? -1 : n.outputs[0];
    for (int v : {data, out}) {
      DTypeVerdict d = CheckDType(ValueDType(g, v), rule, aicore);
      if (d.verdict > worst.verdict) worst = std::move(d);
    }
  }
  if (rule.aicore == 0 && worst.verdict == Verdict::kAiCore) worst = {Verdict::kAiCpu, "AI CPU kernel only"};
  if (worst.verdict == Verdict::kUnsupported) {
    return Make(n, Verdict::kUnsupported, AtcError::kEZ3002, worst.reason, rule.basis);
  }
  if (rule.attrs != nullptr) {
    exec::AttrVerdict a = rule.attrs({g, n, view.soc_version});
    if (a.engine == exec::Engine::kNone) {
      return Make(n, Verdict::kUnsupported, AtcError::kEZ3003, a.reason, rule.basis);
    }
    if (a.engine == exec::Engine::kAiCpu && worst.verdict == Verdict::kAiCore) {
      return Make(n, Verdict::kAiCpu, AtcError::kNone, a.reason + ": AI CPU fallback", rule.basis);
    }
  }
  return Make(n, worst.verdict, AtcError::kNone, worst.reason, rule.basis);
}

}  // namespace npugap::compat::internal
