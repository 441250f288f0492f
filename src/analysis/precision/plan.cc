// BuildPrecisionPlan: per node, the unit that runs it and the formats it reads, computes and
// stores in, from the model, the target's numerics and the precision mode (rules in
// docs/precision.md, facts in ascend-facts §2-3), plus the Casts the graph compiler would insert.
#include "npugap/analysis/precision/plan.h"

#include <algorithm>

#include <fmt/format.h>

#include "analysis/precision/internal.h"
#include "npugap/exec/op_table.h"
#include "npugap/numerics/cube_accumulator.h"

namespace npugap::analysis::precision {
namespace {

using internal::ListKind;
using internal::ModeKind;
using internal::ModeSpec;
using numerics::Format;

bool IsFloat(ir::DType t) {
  // Undeclared dtypes are treated as float: the emulator only rounds float32 tensors anyway.
  return t == ir::DType::kFloat32 || t == ir::DType::kFloat16 || t == ir::DType::kBFloat16 ||
         t == ir::DType::kUndefined;
}

bool Has(const target::TextList& list, std::string_view fmt) {
  return std::find(list.value.begin(), list.value.end(), fmt) != list.value.end();
}

std::string FormatName(Format f) { return std::string(numerics::Info(f).name); }

bool IsConvLike(const ir::Node& n) {
  return n.op_type == "Conv" || n.op_type == "ConvTranspose" || n.op_type == "FusedConv";
}

// Which unit runs the node, from the op table's support column (exec/op_support.h).
Unit ClassifyUnit(const ir::Model& model, const ir::Node& n) {
  const auto it = model.opsets.find(n.domain);
  const int64_t opset = it != model.opsets.end() ? it->second : model.DefaultOpset();
  const exec::OpRow* row = exec::OpTable::Default().Find(n.domain, n.op_type, opset);
  if (row == nullptr || row->support == nullptr) return Unit::kVector;
  const exec::SupportRule* r = row->support;
  if (r->cube) return Unit::kCube;
  if (r == &exec::support::kMovement || r == &exec::support::kGraphLevel) return Unit::kNone;
  if (r->aicore == 0) return Unit::kAiCpu;
  return Unit::kVector;
}

struct Context {
  const ir::Model& model;
  const target::Target& target;
  const PrecisionOptions& options;
  ModeSpec mode;
  internal::OpLists lists;
  std::vector<internal::VectorKernel> kernels;
  std::set<std::string> hp_formulas;  // ops with a high_performance formula (vector_kernels.json)
  internal::KeepDtype keep;
  bool hf32_conv = false, hf32_matmul = false;
  std::vector<Format> stored;  // per value: the format it is held in
  std::vector<internal::UniformKernel> uniform_kernels;
};

Format OriginFormat(const Context& c, const ir::Node& n) {
  for (int v : n.inputs) {
    if (v == ir::kNoValue) continue;
    const ir::DType t = c.model.graph.values[static_cast<size_t>(v)].type.dtype;
    if (t == ir::DType::kFloat16) return Format::kFP16;
    if (t == ir::DType::kBFloat16) return Format::kBF16;
    if (t == ir::DType::kFloat32) return Format::kFP32;
  }
  return Format::kFP32;
}

// A cube op that keeps fp32: HF32 where torch_npu's switch allows it (conv on, matmul off by
// default, ascend-facts §2.3). `must_keep`: no lower-precision fallback (origin modes), so a cube
// without fp32 sends the op to AI CPU; otherwise ATC picks the higher precision it has, fp16 in /
// fp32 out (ascend-facts §3.1, §3.3).
NodeNumerics CubeFp32(const Context& c, const ir::Node& n, bool must_keep) {
  NodeNumerics r;
  r.unit = Unit::kCube;
  if (Has(c.target.numerics.cube_input_formats, "fp32")) {
    const bool hf32 = IsConvLike(n) ? c.hf32_conv : c.hf32_matmul;
    r.input = hf32 ? Format::kHF32 : Format::kFP32;
    r.reason = hf32 ? "fp32 cube op computes from HF32 inputs (allow_hf32 on)" : "fp32 cube op";
    return r;
  }
  if (must_keep) {
    r.unit = Unit::kAiCpu;
    r.reason = fmt::format("fp32 cube op; the {} cube takes no fp32: AI CPU fallback", c.target.name);
    return r;
  }
  r.input = Format::kFP16;
  r.reason = fmt::format("the {} cube takes no fp32: fp16 in, fp32 out", c.target.name);
  return r;
}

// Intermediate precision of a vector kernel whose data is in `low` (data/precision/vector_kernels.json).
Format VectorCompute(const Context& c, const ir::Node& n, Format low) {
  if (low == Format::kFP32) return Format::kFP32;
  for (const internal::VectorKernel& k : c.kernels) {
    if (k.onnx != n.op_type) continue;
    const bool keeps_low =
        c.options.op_select_implmode == "high_precision" ? k.high_precision_low : k.high_performance_low;
    return keeps_low ? low : Format::kFP32;
  }
  return low;
}

NodeNumerics Lowered(const Context& c, const ir::Node& n, Unit unit, Format low, Format cube_low,
                     std::string reason) {
  NodeNumerics r;
  r.unit = unit;
  r.input = unit == Unit::kCube ? cube_low : low;
  r.compute = unit == Unit::kVector ? VectorCompute(c, n, low) : Format::kFP32;
  r.output = low;
  r.high_performance_formula = unit == Unit::kVector && low == Format::kFP16 &&
                               c.options.op_select_implmode != "high_precision" &&
                               c.hp_formulas.count(n.op_type);
  r.reason = std::move(reason);
  return r;
}

NodeNumerics Fp32Vector(Unit unit, std::string reason) {
  NodeNumerics r;
  r.unit = unit;
  r.reason = std::move(reason);
  return r;
}

// The first reduced format among the node's float inputs that are not constants (gray list
// rule); fp32 when there is none. A plain Format, not std::optional<Format>: with the optional,
// valgrind memcheck reported a jump on an uninitialised byte of the plan (created in
// BuildPrecisionPlan's frame) in PrecisionPlanTest.ForceFp16PutsEveryFloatOpInFp16 at -O2 and none
// at -O0, i.e. GCC 12's code for the optional carried its uninitialised payload byte along.
Format LowInput(const Context& c, const ir::Node& n) {
  for (int v : n.inputs) {
    if (v == ir::kNoValue || c.model.graph.values[static_cast<size_t>(v)].is_initializer) continue;
    if (c.stored[static_cast<size_t>(v)] != Format::kFP32) return c.stored[static_cast<size_t>(v)];
  }
  return Format::kFP32;
}

// What a uniform_<fmt> kernel variant computes, for the plan's reason line.
std::string UniformKernelRule(KernelVariant v) {
  switch (v) {
    case KernelVariant::kOneDnnBf16:
      return "oneDNN's bf16 convolution (as PyTorch's CPU conv)";
    case KernelVariant::kMeanRoundsSum:
      return "mean = round(round(sum) / n) (as PyTorch's CPU mean)";
    case KernelVariant::kBatchNormFma:
      return "fma(x, alpha, beta) in fp32 (as PyTorch's CPU batch_norm)";
    case KernelVariant::kSiluChain:
      return "Mul(x, Sigmoid(x)) as PyTorch's silu, x / (1 + exp(-x)) rounded after each step";
    case KernelVariant::kPlain:
      break;
  }
  return "computed in fp32";
}

NodeNumerics ByMode(const Context& c, const ir::Node& n, Unit unit) {
  const ModeSpec& m = c.mode;
  const bool vector_fp32 = Has(c.target.numerics.vector_formats, "fp32");
  switch (m.kind) {
    case ModeKind::kForceLow:
      return Lowered(c, n, unit, m.low, m.cube_low, m.name + ": every float op in " + FormatName(m.low));
    case ModeKind::kCubeLowIn:
      if (unit == Unit::kCube) {
        NodeNumerics r = Fp32Vector(unit, m.name + ": cube fp16 in, fp32 out");
        r.input = Format::kFP16;
        return r;
      }
      if (vector_fp32) return Fp32Vector(unit, m.name + ": vector op in fp32");
      return Lowered(c, n, unit, Format::kFP16, Format::kFP16, m.name + ": no fp32 vector kernel, fp16");
    case ModeKind::kAllowFp32ToLow:
      if (unit == Unit::kCube)
        return Lowered(c, n, unit, m.low, m.cube_low, m.name + ": cube op lowered to fp16");
      if (vector_fp32) return Fp32Vector(unit, m.name + ": vector op keeps fp32");
      return Lowered(c, n, unit, m.low, m.cube_low, m.name + ": no fp32 vector kernel, lowered to fp16");
    case ModeKind::kOrigin: {
      const Format origin = OriginFormat(c, n);
      if (origin == Format::kFP32) {
        if (unit == Unit::kCube) return CubeFp32(c, n, /*must_keep=*/true);
        return Fp32Vector(unit, m.name + ": keeps fp32");
      }
      return Lowered(c, n, unit, origin, origin, m.name + ": keeps " + FormatName(origin));
    }
    case ModeKind::kUniform: {
      NodeNumerics r;
      r.unit = unit;
      r.input = r.output = m.low;
      r.reason = m.name + ": stored in " + FormatName(m.low) + ", computed in fp32";
      for (const internal::UniformKernel& k : c.uniform_kernels) {
        if (k.onnx != n.op_type || std::find(k.formats.begin(), k.formats.end(), m.low) == k.formats.end())
          continue;
        if (k.variant == KernelVariant::kSiluChain && internal::SiluInputSlot(c.model.graph, n) < 0) continue;
        // Measured on inference BatchNorm; the kernel computes training mode as before (normalization.cc).
        if (k.variant == KernelVariant::kBatchNormFma && n.GetInt("training_mode", 0) != 0) continue;
        r.kernel = k.variant;
        r.reason = m.name + ": stored in " + FormatName(m.low) + ", " + UniformKernelRule(k.variant);
      }
      return r;
    }
    case ModeKind::kMixed: {
      const internal::OpListEntry* e = c.lists.Find(n.op_type);
      const ListKind list = e ? e->list : (unit == Unit::kCube ? ListKind::kWhite : ListKind::kGray);
      NodeNumerics r;
      if (list == ListKind::kWhite) {
        r = Lowered(c, n, unit, m.low, m.cube_low,
                    fmt::format("white list: {}", FormatName(unit == Unit::kCube ? m.cube_low : m.low)));
        r.decision = Decision::kWhiteList;
      } else if (list == ListKind::kBlack) {
        r = unit == Unit::kCube ? CubeFp32(c, n, false) : Fp32Vector(unit, "");
        r.reason = "black list: fp32";
        r.decision = Decision::kBlackList;
      } else if (const Format low = LowInput(c, n); low != Format::kFP32) {
        r = Lowered(c, n, unit, low, low, "gray list: follows its " + FormatName(low) + " input");
        r.decision = Decision::kGrayList;
      } else {
        r = Fp32Vector(unit, "gray list: follows its fp32 inputs");
        r.decision = Decision::kGrayList;
      }
      if (e && e->from_mixlist) {
        r.decision = Decision::kMixlist;
        r.reason += " (" + e->source + ")";
      }
      return r;
    }
  }
  return Fp32Vector(unit, "");
}

// Keeps the node in its original precision (keep_dtype / keep_fp32_nodes): fp32 where the unit
// has it, else the higher precision the unit offers (ascend-facts §3.3).
NodeNumerics KeptFp32(const Context& c, const ir::Node& n, Unit unit, Decision d, std::string why) {
  NodeNumerics r = unit == Unit::kCube ? CubeFp32(c, n, false) : Fp32Vector(unit, "");
  if (unit != Unit::kCube && !Has(c.target.numerics.vector_formats, "fp32"))
    r = Lowered(c, n, unit, Format::kFP16, Format::kFP16, "");
  r.decision = d;
  r.reason = why + (r.reason.empty() ? "" : "; " + r.reason);
  return r;
}

Status CheckModeOnTarget(const ModeSpec& m, const target::Target& t) {
  if (m.kind == ModeKind::kUniform || m.kind == ModeKind::kOrigin) return Status::Ok();
  for (Format f : {m.low, m.cube_low}) {
    const std::string name = FormatName(f);
    const bool cube = Has(t.numerics.cube_input_formats, name);
    const bool vector = Has(t.numerics.vector_formats, name);
    if (f == m.cube_low ? !cube : !(cube || vector)) {
      return Status::InvalidArgument(fmt::format(
          "precision mode '{}' needs {} on the cube, which target '{}' does not have (cube inputs: {})",
          m.name, name, t.name, fmt::join(t.numerics.cube_input_formats.value, ", ")));
    }
  }
  return Status::Ok();
}

}  // namespace

std::vector<std::string> PrecisionModeNames() { return internal::ModeNames(); }

Expected<PrecisionPlan> BuildPrecisionPlan(const ir::Model& model, const target::Target& target,
                                           const PrecisionOptions& options) {
  const std::string mode_name =
      options.mode.empty() ? target.framework.default_precision_mode.value : options.mode;
  const std::optional<ModeSpec> mode = internal::FindMode(mode_name);
  if (!mode) {
    return Status::InvalidArgument(fmt::format("unknown precision mode '{}'; valid: {}", mode_name,
                                               fmt::join(PrecisionModeNames(), ", ")));
  }
  NPUGAP_RETURN_IF_ERROR(CheckModeOnTarget(*mode, target));
  NPUGAP_ASSIGN_OR_RETURN(internal::OpLists lists, internal::BuiltinOpLists());
  NPUGAP_ASSIGN_OR_RETURN(std::vector<internal::VectorKernel> kernels, internal::BuiltinVectorKernels());
  if (!options.op_select_implmode.empty() && options.op_select_implmode != "high_precision" &&
      options.op_select_implmode != "high_performance") {
    return Status::InvalidArgument(fmt::format(
        "op_select_implmode '{}': expected high_precision or high_performance", options.op_select_implmode));
  }

  if (options.finite_accumulator && (options.accumulator_fraction_bits < numerics::kMinAccumulatorBits ||
                                     options.accumulator_fraction_bits > numerics::kMaxAccumulatorBits)) {
    return Status::InvalidArgument(fmt::format("cube accumulator fraction bits {}: expected {} to {}",
                                               options.accumulator_fraction_bits,
                                               numerics::kMinAccumulatorBits, numerics::kMaxAccumulatorBits));
  }
  PrecisionPlan plan;
  plan.mode = mode->name;
  plan.finite_accumulator = options.finite_accumulator;
  plan.accumulator_fraction_bits = options.accumulator_fraction_bits;
  plan.rounding.rounding = options.rounding;
  plan.rounding.seed = options.seed;
  // uniform_* reproduces PyTorch's CPU semantics, which are IEEE; the ATC modes take the target's.
  const bool saturation =
      mode->kind != ModeKind::kUniform && target.numerics.overflow_mode.value == "saturation";
  plan.rounding.overflow =
      options.overflow.value_or(saturation ? numerics::Overflow::kSaturation : numerics::Overflow::kIeee);
  plan.rounding.subnormals = target.numerics.subnormals.value == "flush" ? numerics::Subnormals::kFlush
                                                                         : numerics::Subnormals::kKeep;

  NPUGAP_ASSIGN_OR_RETURN(std::set<std::string> hp_formulas, internal::BuiltinHighPerformanceFormulas());
  Context c{model, target, options, *mode, std::move(lists), std::move(kernels), std::move(hp_formulas), {},
            false, false,  {},      {}};
  if (mode->kind == ModeKind::kUniform) {
    NPUGAP_ASSIGN_OR_RETURN(c.uniform_kernels, internal::BuiltinUniformKernels());
  }
  if (!options.modify_mixlist_file.empty() || !options.modify_mixlist_text.empty()) {
    NPUGAP_RETURN_IF_ERROR(options.modify_mixlist_file.empty()
                               ? internal::ApplyMixlistText("(suggested mixlist)",
                                                            options.modify_mixlist_text, c.lists,
                                                            plan.warnings)
                               : internal::ApplyMixlist(options.modify_mixlist_file, c.lists, plan.warnings));
    if (mode->kind != ModeKind::kMixed) {
      plan.warnings.push_back(fmt::format(
          "--modify_mixlist has no effect in precision mode '{}' (only in mixed modes)", mode->name));
    }
  }
  if (!options.keep_dtype_file.empty()) {
    NPUGAP_ASSIGN_OR_RETURN(
        c.keep, internal::ReadKeepDtype(options.keep_dtype_file, model.graph, c.lists, plan.warnings));
    if (mode->kind == ModeKind::kOrigin) {
      plan.warnings.push_back(fmt::format(
          "--keep_dtype has no effect in precision mode '{}': dtypes are kept anyway", mode->name));
    }
  }
  const bool hf32 = target.numerics.hf32.value;
  c.hf32_conv = hf32 && options.allow_hf32_conv.value_or(target.framework.allow_hf32_conv.value);
  c.hf32_matmul = hf32 && options.allow_hf32_matmul.value_or(target.framework.allow_hf32_matmul.value);

  const ir::Graph& g = model.graph;
  std::set<std::string> node_names;
  for (const ir::Node& n : g.nodes) node_names.insert(n.name);
  for (const std::string& name : options.keep_fp32_nodes) {
    if (!node_names.count(name))
      return Status::InvalidArgument(fmt::format("keep-fp32 node '{}' is not in the model", name));
  }
  const std::set<std::string> keep_fp32(options.keep_fp32_nodes.begin(), options.keep_fp32_nodes.end());

  c.stored.assign(g.values.size(), Format::kFP32);
  plan.nodes.reserve(g.nodes.size());
  for (const ir::Node& n : g.nodes) {
    const Unit unit = ClassifyUnit(model, n);
    NodeNumerics r;
    if (unit == Unit::kNone) {
      // Shape and data-movement ops: values pass through in the format they arrive in.
      r.unit = Unit::kNone;
      r.input = r.compute = r.output = LowInput(c, n);
      r.reason = "no float math: values pass through";
    } else if (keep_fp32.count(n.name)) {
      r = KeptFp32(c, n, unit, Decision::kKeepFp32, "kept in fp32 (keep_fp32_nodes)");
    } else if (mode->kind != ModeKind::kOrigin && mode->kind != ModeKind::kUniform &&
               (c.keep.nodes.count(n.name) || c.keep.op_types.count(n.op_type))) {
      r = KeptFp32(c, n, unit, Decision::kKeepDtype, "--keep_dtype");
    } else {
      r = ByMode(c, n, unit);
    }
    // Casts: a float activation whose stored format differs from what this node reads. Weights
    // are converted once at compile time, so they need none.
    if (unit != Unit::kNone) {
      for (int v : n.inputs) {
        if (v == ir::kNoValue) continue;
        const ir::Value& val = g.values[static_cast<size_t>(v)];
        if (val.is_initializer || !IsFloat(val.type.dtype)) continue;
        const Format from = c.stored[static_cast<size_t>(v)];
        // HF32 is the cube's reading of fp32 data, not a stored format: no Cast kernel.
        const Format to = r.input == Format::kHF32 ? Format::kFP32 : r.input;
        if (from != to) plan.casts.push_back({val.name, n.name, from, to});
      }
    }
    for (int v : n.outputs) {
      if (v != ir::kNoValue && IsFloat(g.values[static_cast<size_t>(v)].type.dtype))
        c.stored[static_cast<size_t>(v)] = r.output;
    }
    plan.nodes.push_back(std::move(r));
  }
  return plan;
}

}  // namespace npugap::analysis::precision
