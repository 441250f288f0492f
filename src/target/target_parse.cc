// ParseTarget: walks one profile in schema order (docs/targets.md), converting every fact to base
// units, then checks what no single field can: cross-field consistency.
#include <fmt/format.h>

#include <cmath>
#include <set>

#include "custom_ops_parse.h"
#include "profile_reader.h"

namespace npugap::target {
namespace {

using internal::Bound;
using internal::Dim;
using internal::ProfileReader;
using nlohmann::json;

const std::initializer_list<std::string_view> kDtypes = {"fp32", "hf32", "tf32", "fp16", "bf16",
                                                         "fp8",  "hif8", "int8", "int4"};
const std::initializer_list<std::string_view> kPrecisionModes = {"force_fp32",
                                                                 "cube_fp16in_fp32out",
                                                                 "force_fp16",
                                                                 "allow_fp32_to_fp16",
                                                                 "must_keep_origin_dtype",
                                                                 "allow_mix_precision",
                                                                 "allow_mix_precision_fp16",
                                                                 "allow_mix_precision_bf16",
                                                                 "allow_fp32_to_bf16"};
const std::initializer_list<std::string_view> kPrecisionModesV2 = {
    "fp16", "origin", "cube_fp16in_fp32out", "mixed_float16", "mixed_bfloat16", "mixed_hif8"};

bool IsDtype(std::string_view s) {
  for (std::string_view d : kDtypes) {
    if (d == s) return true;
  }
  return false;
}

void ReadCompute(ProfileReader& r, const json& root, Target& t) {
  const json& c = r.Section(root, "compute");
  r.WarnUnknownKeys(c, "compute",
                    {"core_coupling", "cube_cores", "vector_cores", "clock", "vector_width", "cube"});
  Compute& out = t.compute;
  out.core_coupling = r.ReadText(c, "compute.core_coupling", {"coupled", "separated", "sm", "cpu"});
  out.cube_cores = r.ReadCount(c, "compute.cube_cores", Dim::kNone, Bound::kPositive);
  out.vector_cores = r.ReadCount(c, "compute.vector_cores", Dim::kNone, Bound::kPositive);
  out.clock = r.ReadNumber(c, "compute.clock", Dim::kFrequency, Bound::kPositive);
  out.vector_width = r.ReadCount(c, "compute.vector_width", Dim::kBits, Bound::kPositive);
  const json& cube = r.Section(c, "compute.cube");
  for (const auto& [dtype, entry] : cube.items()) {
    const std::string path = "compute.cube." + dtype;
    if (!IsDtype(dtype)) {
      r.warnings().push_back(fmt::format("{}: field '{}': unknown dtype, ignored", t.origin, path));
      continue;
    }
    const json& rate = r.Section(cube, path);
    r.WarnUnknownKeys(rate, path, {"macs_per_cycle", "peak"});
    CubeRate cr;
    cr.macs_per_cycle = r.ReadNumber(rate, path + ".macs_per_cycle", Dim::kMacsPerCycle, Bound::kPositive);
    cr.peak = r.ReadNumber(rate, path + ".peak", Dim::kRate, Bound::kPositive);
    out.cube[dtype] = cr;
  }
}

// kernel.vector_instructions.CLASS: {"float16": cycles per element, "float32": ...}.
void ReadVectorInstructions(ProfileReader& r, const json& vi, KernelCosts& out) {
  r.WarnUnknownKeys(vi, "kernel.vector_instructions", {"simple", "transcendental", "divide", "reduce"});
  for (const auto& [cls, unused] : vi.items()) {
    if (cls != "simple" && cls != "transcendental" && cls != "divide" && cls != "reduce") continue;
    const std::string path = "kernel.vector_instructions." + cls;
    const json& entry = r.Section(vi, path);
    r.WarnUnknownKeys(entry, path, {"float16", "float32"});
    for (const char* dtype : {"float16", "float32"}) {
      out.vector_instructions[cls][dtype] =
          r.ReadNumber(entry, path + "." + dtype, Dim::kNone, Bound::kPositive);
    }
  }
}

// kernel.vector_instruction_heads: {"simple": cycles per instruction, ...}.
void ReadVectorInstructionHeads(ProfileReader& r, const json& vh, KernelCosts& out) {
  r.WarnUnknownKeys(vh, "kernel.vector_instruction_heads", {"simple", "transcendental", "divide", "reduce"});
  for (const std::string cls : {"simple", "transcendental", "divide", "reduce"}) {
    if (!vh.contains(cls)) continue;
    out.vector_instruction_heads[cls] =
        r.ReadNumber(vh, "kernel.vector_instruction_heads." + cls, Dim::kNone, Bound::kNonNegative);
  }
}

// kernel.<section>: {"<name>": cycles per instruction, ...} for the given names:
// dma_instruction_heads {"gm_to_ub", "ub_to_gm"}, cube_instruction_heads {"mad", "load2d", "load3d"}.
void ReadInstructionHeads(ProfileReader& r, const json& heads, const std::string& section,
                          std::initializer_list<std::string_view> names, std::map<std::string, Number>& out) {
  r.WarnUnknownKeys(heads, "kernel." + section, names);
  for (const std::string_view name : names) {
    const std::string key(name);
    if (!heads.contains(key)) continue;
    out[key] = r.ReadNumber(heads, "kernel." + section + "." + key, Dim::kNone, Bound::kNonNegative);
  }
}

void ReadMemoryAndBuffers(ProfileReader& r, const json& root, Target& t) {
  const json& m = r.Section(root, "memory");
  r.WarnUnknownKeys(m, "memory", {"type", "device", "bandwidth", "reserve", "alloc_alignment", "alloc_pad"});
  t.memory.type = r.ReadText(m, "memory.type");
  t.memory.device = r.ReadCount(m, "memory.device", Dim::kBytes, Bound::kPositive);
  t.memory.bandwidth = r.ReadNumber(m, "memory.bandwidth", Dim::kBandwidth, Bound::kPositive);
  t.memory.reserve = r.ReadCount(m, "memory.reserve", Dim::kBytes, Bound::kNonNegative);
  t.memory.alloc_alignment = r.ReadCount(m, "memory.alloc_alignment", Dim::kBytes, Bound::kPositive);
  t.memory.alloc_pad = r.ReadCount(m, "memory.alloc_pad", Dim::kBytes, Bound::kNonNegative);

  auto size = [&](const json& parent, const std::string& path) {
    return r.ReadOptional(parent, path,
                          [&] { return r.ReadCount(parent, path, Dim::kBytes, Bound::kPositive); });
  };
  const json& b = r.Section(root, "buffers");
  r.WarnUnknownKeys(b, "buffers", {"l2", "l1", "l0a", "l0b", "l0c", "ub"});
  t.buffers = {size(b, "buffers.l2"),  size(b, "buffers.l1"),  size(b, "buffers.l0a"),
               size(b, "buffers.l0b"), size(b, "buffers.l0c"), size(b, "buffers.ub")};
  const json& a = r.Section(root, "buffer_alignment");
  r.WarnUnknownKeys(a, "buffer_alignment", {"l1", "l0a", "l0b", "l0c", "ub"});
  t.buffer_alignment = {size(a, "buffer_alignment.l1"), size(a, "buffer_alignment.l0a"),
                        size(a, "buffer_alignment.l0b"), size(a, "buffer_alignment.l0c"),
                        size(a, "buffer_alignment.ub")};

  if (const json* d = r.OptionalSection(root, "datapath")) {
    r.WarnUnknownKeys(*d, "datapath",
                      {"gm_to_l1", "l2_to_l1", "l1_to_l0a", "l1_to_l0b", "l0c_to_l2", "l0c_to_gm", "gm_to_ub",
                       "ub_to_gm", "l0c_to_ub"});
    auto rate = [&](const char* key) {
      return r.ReadNumber(*d, std::string("datapath.") + key, Dim::kBytesPerCycle, Bound::kPositive);
    };
    t.datapath = Datapath{rate("gm_to_l1"),  rate("l2_to_l1"),  rate("l1_to_l0a"), rate("l1_to_l0b"),
                          rate("l0c_to_l2"), rate("l0c_to_gm"), rate("gm_to_ub"),  rate("ub_to_gm")};
    if (d->contains("l0c_to_ub")) t.datapath->l0c_to_ub = rate("l0c_to_ub");
  }

  const json& l = r.Section(root, "layout");
  r.WarnUnknownKeys(l, "layout", {"fractal", "c0"});
  const json& fractal = r.Section(l, "layout.fractal");
  for (const auto& [dtype, unused] : fractal.items()) {
    if (!IsDtype(dtype)) {
      r.warnings().push_back(
          fmt::format("{}: field 'layout.fractal.{}': unknown dtype, ignored", t.origin, dtype));
      continue;
    }
    t.layout.fractal[dtype] = r.ReadShape3(fractal, "layout.fractal." + dtype);
  }
  const json& c0 = r.Section(l, "layout.c0");
  for (const auto& [dtype, unused] : c0.items()) {
    if (!IsDtype(dtype)) {
      r.warnings().push_back(
          fmt::format("{}: field 'layout.c0.{}': unknown dtype, ignored", t.origin, dtype));
      continue;
    }
    t.layout.c0[dtype] = r.ReadCount(c0, "layout.c0." + dtype, Dim::kNone, Bound::kPositive);
  }
}

void ReadNumericsAndFramework(ProfileReader& r, const json& root, Target& t) {
  const json& n = r.Section(root, "numerics");
  r.WarnUnknownKeys(
      n, "numerics",
      {"overflow_mode", "cube_input_formats", "vector_formats", "accumulator", "hf32", "subnormals"});
  t.numerics.overflow_mode = r.ReadText(n, "numerics.overflow_mode", {"saturation", "inf_nan"});
  t.numerics.cube_input_formats = r.ReadTextList(n, "numerics.cube_input_formats", kDtypes);
  t.numerics.vector_formats = r.ReadTextList(n, "numerics.vector_formats", kDtypes);
  t.numerics.accumulator = r.ReadText(n, "numerics.accumulator", {"fp32", "fp16", "int32"});
  t.numerics.hf32 = r.ReadFlag(n, "numerics.hf32");
  t.numerics.subnormals = r.ReadText(n, "numerics.subnormals", {"keep", "flush"});

  const json& f = r.Section(root, "framework");
  r.WarnUnknownKeys(f, "framework",
                    {"default_precision_mode", "jit_compile_default", "allow_hf32_conv", "allow_hf32_matmul",
                     "comm_buffer"});
  t.framework.default_precision_mode = r.ReadText(f, "framework.default_precision_mode", kPrecisionModes);
  t.framework.jit_compile_default = r.ReadOptional(
      f, "framework.jit_compile_default", [&] { return r.ReadFlag(f, "framework.jit_compile_default"); });
  t.framework.allow_hf32_conv = r.ReadFlag(f, "framework.allow_hf32_conv");
  t.framework.allow_hf32_matmul = r.ReadFlag(f, "framework.allow_hf32_matmul");
  t.framework.comm_buffer = r.ReadOptional(f, "framework.comm_buffer", [&] {
    return r.ReadCount(f, "framework.comm_buffer", Dim::kBytes, Bound::kPositive);
  });

  if (const json* c = r.OptionalSection(root, "compiler")) {
    r.WarnUnknownKeys(*c, "compiler",
                      {"soc_version", "onnx_opset_min", "onnx_opset_max", "precision_mode_default",
                       "precision_mode_v2_default", "custom_ops"});
    t.compiler = Compiler{
        r.ReadText(*c, "compiler.soc_version"),
        r.ReadCount(*c, "compiler.onnx_opset_min", Dim::kNone, Bound::kPositive),
        r.ReadCount(*c, "compiler.onnx_opset_max", Dim::kNone, Bound::kPositive),
        r.ReadText(*c, "compiler.precision_mode_default", kPrecisionModes),
        r.ReadText(*c, "compiler.precision_mode_v2_default", kPrecisionModesV2),
        internal::ReadCustomOps(r, *c),
    };
  }
}

void ReadHostAndLinks(ProfileReader& r, const json& root, Target& t) {
  const json& h = r.Section(root, "host");
  r.WarnUnknownKeys(
      h, "host",
      {"pcie", "h2d_bandwidth", "eager_dispatch_per_op", "graph_launch_per_kernel", "jit_compile_per_op"});
  t.host.pcie = r.ReadText(h, "host.pcie");
  t.host.h2d_bandwidth = r.ReadOptional(h, "host.h2d_bandwidth", [&] {
    return r.ReadNumber(h, "host.h2d_bandwidth", Dim::kBandwidth, Bound::kPositive);
  });
  t.host.eager_dispatch_per_op =
      r.ReadNumber(h, "host.eager_dispatch_per_op", Dim::kTime, Bound::kNonNegative);
  t.host.graph_launch_per_kernel =
      r.ReadNumber(h, "host.graph_launch_per_kernel", Dim::kTime, Bound::kNonNegative);
  t.host.jit_compile_per_op = r.ReadOptional(h, "host.jit_compile_per_op", [&] {
    return r.ReadNumber(h, "host.jit_compile_per_op", Dim::kTime, Bound::kNonNegative);
  });

  if (const json* a = r.OptionalSection(root, "aicpu")) {
    r.WarnUnknownKeys(*a, "aicpu", {"cores", "flops_per_core", "task_overhead"});
    t.aicpu = AiCpu{r.ReadCount(*a, "aicpu.cores", Dim::kNone, Bound::kPositive),
                    r.ReadNumber(*a, "aicpu.flops_per_core", Dim::kRate, Bound::kPositive),
                    r.ReadNumber(*a, "aicpu.task_overhead", Dim::kTime, Bound::kNonNegative)};
  }

  // Optional and may be left out: only the per-kernel cost model reads it (docs/perf.md).
  if (const json* k = root.contains("kernel") ? r.OptionalSection(root, "kernel") : nullptr) {
    r.WarnUnknownKeys(*k, "kernel",
                      {"launch_overhead", "block_start", "vector_instructions", "vector_instruction_heads",
                       "dma_instruction_heads", "cube_instruction_heads", "static_matmul_m_l0"});
    t.kernel = KernelCosts{r.ReadNumber(*k, "kernel.launch_overhead", Dim::kTime, Bound::kNonNegative),
                           r.ReadNumber(*k, "kernel.block_start", Dim::kTime, Bound::kNonNegative),
                           {},
                           {},
                           {},
                           {},
                           std::nullopt};
    if (k->contains("static_matmul_m_l0")) {
      t.kernel->static_matmul_m_l0 = r.ReadOptional(*k, "kernel.static_matmul_m_l0", [&] {
        return r.ReadCount(*k, "kernel.static_matmul_m_l0", Dim::kNone, Bound::kPositive);
      });
    }
    if (const json* vi = k->contains("vector_instructions")
                             ? r.OptionalSection(*k, "kernel.vector_instructions")
                             : nullptr) {
      ReadVectorInstructions(r, *vi, *t.kernel);
    }
    if (const json* vh = k->contains("vector_instruction_heads")
                             ? r.OptionalSection(*k, "kernel.vector_instruction_heads")
                             : nullptr) {
      ReadVectorInstructionHeads(r, *vh, *t.kernel);
    }
    if (const json* dh = k->contains("dma_instruction_heads")
                             ? r.OptionalSection(*k, "kernel.dma_instruction_heads")
                             : nullptr) {
      ReadInstructionHeads(r, *dh, "dma_instruction_heads", {"gm_to_ub", "ub_to_gm"},
                           t.kernel->dma_instruction_heads);
    }
    if (const json* ch = k->contains("cube_instruction_heads")
                             ? r.OptionalSection(*k, "kernel.cube_instruction_heads")
                             : nullptr) {
      ReadInstructionHeads(r, *ch, "cube_instruction_heads", {"mad", "load2d", "load3d"},
                           t.kernel->cube_instruction_heads);
    }
  }

  const json& ic = r.Section(root, "interconnect");
  r.WarnUnknownKeys(ic, "interconnect", {"intra_node", "scale_out"});
  if (const json* l = r.OptionalSection(ic, "interconnect.intra_node")) {
    const std::string p = "interconnect.intra_node.";
    r.WarnUnknownKeys(*l, "interconnect.intra_node",
                      {"type", "peers", "bandwidth_per_peer", "total_bandwidth"});
    t.interconnect.intra_node =
        Link{r.ReadText(*l, p + "type"), r.ReadCount(*l, p + "peers", Dim::kNone, Bound::kPositive),
             r.ReadNumber(*l, p + "bandwidth_per_peer", Dim::kBandwidth, Bound::kPositive),
             r.ReadNumber(*l, p + "total_bandwidth", Dim::kBandwidth, Bound::kPositive)};
  }
  if (const json* s = r.OptionalSection(ic, "interconnect.scale_out")) {
    const std::string p = "interconnect.scale_out.";
    r.WarnUnknownKeys(*s, "interconnect.scale_out", {"type", "ports", "port_bandwidth"});
    t.interconnect.scale_out =
        ScaleOut{r.ReadText(*s, p + "type"), r.ReadCount(*s, p + "ports", Dim::kNone, Bound::kPositive),
                 r.ReadNumber(*s, p + "port_bandwidth", Dim::kBandwidth, Bound::kPositive)};
  }

  if (const json* k = r.OptionalSection(root, "package")) {
    r.WarnUnknownKeys(*k, "package", {"dies", "die_link", "peak_fp16", "device", "bandwidth"});
    t.package = Package{r.ReadCount(*k, "package.dies", Dim::kNone, Bound::kPositive),
                        r.ReadText(*k, "package.die_link"),
                        r.ReadNumber(*k, "package.peak_fp16", Dim::kRate, Bound::kPositive),
                        r.ReadCount(*k, "package.device", Dim::kBytes, Bound::kPositive),
                        r.ReadNumber(*k, "package.bandwidth", Dim::kBandwidth, Bound::kPositive)};
  }
}

// What no single field can check. Hard inconsistencies are errors; a stated peak that disagrees
// with cores x MACs x 2 x clock is a warning, since a user may know a measured figure better.
void CrossCheck(ProfileReader& r, Target& t) {
  const std::set<std::string> formats(t.numerics.cube_input_formats.value.begin(),
                                      t.numerics.cube_input_formats.value.end());
  for (const std::string& f : formats) {
    if (!t.compute.cube.count(f))
      r.Fail("numerics.cube_input_formats", fmt::format("'{}' has no compute.cube.{}", f, f));
  }
  for (const auto& [dtype, rate] : t.compute.cube) {
    if (!formats.count(dtype)) {
      r.Fail("compute.cube." + dtype,
             fmt::format("'{}' is not listed in numerics.cube_input_formats", dtype));
    }
    const double formula = static_cast<double>(t.compute.cube_cores.value) * rate.macs_per_cycle.value * 2 *
                           t.compute.clock.value;
    if (std::abs(formula - rate.peak.value) > 0.02 * rate.peak.value) {
      r.warnings().push_back(fmt::format(
          "{}: field 'compute.cube.{}.peak': {:.4g} TFLOPS differs by more than 2% from cube_cores x "
          "macs_per_cycle x 2 x clock = {:.4g} TFLOPS",
          t.origin, dtype, rate.peak.value / 1e12, formula / 1e12));
    }
  }
  if (t.memory.reserve.value >= t.memory.device.value) {
    r.Fail("memory.reserve", "must be smaller than memory.device");
  }
  if (t.compiler && t.compiler->onnx_opset_min.value > t.compiler->onnx_opset_max.value) {
    r.Fail("compiler.onnx_opset_min", "greater than compiler.onnx_opset_max");
  }
  if (t.package && t.package->dies.value < 2)
    r.Fail("package.dies", "a package section needs 2 or more dies");
  if (!t.is_ascend()) return;

  // The Ascend analyses (layouts, ATC check, cost model) need every Ascend-only section.
  const std::pair<const char*, bool> required[] = {
      {"compiler", t.compiler.has_value()},
      {"datapath", t.datapath.has_value()},
      {"aicpu", t.aicpu.has_value()},
      {"buffers.l2", t.buffers.l2.has_value()},
      {"buffers.l1", t.buffers.l1.has_value()},
      {"buffers.l0a", t.buffers.l0a.has_value()},
      {"buffers.l0b", t.buffers.l0b.has_value()},
      {"buffers.l0c", t.buffers.l0c.has_value()},
      {"buffers.ub", t.buffers.ub.has_value()},
      {"buffer_alignment.l1", t.buffer_alignment.l1.has_value()},
      {"buffer_alignment.l0a", t.buffer_alignment.l0a.has_value()},
      {"buffer_alignment.l0b", t.buffer_alignment.l0b.has_value()},
      {"buffer_alignment.l0c", t.buffer_alignment.l0c.has_value()},
      {"buffer_alignment.ub", t.buffer_alignment.ub.has_value()},
      {"host.h2d_bandwidth", t.host.h2d_bandwidth.has_value()},
  };
  for (const auto& [field, present] : required) {
    if (!present) r.Fail(field, "null, but required for kind 'ascend'");
  }
  for (const auto& [dtype, unused] : t.compute.cube) {
    if (!t.layout.fractal.count(dtype))
      r.Fail("layout.fractal." + dtype, "missing for cube input format " + dtype);
    if (!t.layout.c0.count(dtype)) r.Fail("layout.c0." + dtype, "missing for cube input format " + dtype);
  }
}

}  // namespace

Expected<Target> ParseTarget(std::string_view json_text, const std::string& origin) {
  json root;
  try {
    root = json::parse(json_text);
  } catch (const json::parse_error& e) {
    // e.what() is "[json.exception.parse_error.101] parse error at line L, column C: ..."; keep the tail.
    std::string what = e.what();
    const size_t pos = what.find("] ");
    if (pos != std::string::npos) what = what.substr(pos + 2);
    return Status::InvalidArgument(fmt::format("{}: invalid JSON: {}", origin, what));
  }
  if (!root.is_object()) return Status::InvalidArgument(origin + ": expected a JSON object at the top level");

  Target t;
  t.origin = origin;
  t.json_text = std::string(json_text);
  ProfileReader r(origin);
  try {
    r.WarnUnknownKeys(root, "",
                      {"schema_version", "name", "description", "kind", "compute", "memory", "buffers",
                       "buffer_alignment", "datapath", "layout", "numerics", "framework", "compiler", "host",
                       "aicpu", "kernel", "interconnect", "package"});
    const auto version = root.find("schema_version");
    if (version == root.end()) r.Fail("schema_version", "missing");
    if (!version->is_number_integer() || version->get<int64_t>() != 1) {
      r.Fail("schema_version", "expected 1, got " + version->dump());
    }
    t.name = r.ReadString(root, "name");
    if (t.name.empty() ||
        t.name.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789._-") != std::string::npos) {
      r.Fail("name",
             fmt::format("'{}' must be non-empty lower-case letters, digits, '.', '_' or '-'", t.name));
    }
    t.description = r.ReadString(root, "description");
    t.kind = r.ReadString(root, "kind");
    if (t.kind != "ascend" && t.kind != "gpu" && t.kind != "cpu") {
      r.Fail("kind", fmt::format("'{}' is not one of ascend, gpu, cpu", t.kind));
    }
    ReadCompute(r, root, t);
    ReadMemoryAndBuffers(r, root, t);
    ReadNumericsAndFramework(r, root, t);
    ReadHostAndLinks(r, root, t);
    CrossCheck(r, t);
  } catch (const internal::ProfileError& e) {
    return Status::InvalidArgument(e.what());
  } catch (const json::exception& e) {
    // Only reachable through a reader bug; still one line, never a crash.
    return Status::Internal(fmt::format("{}: {}", origin, e.what()));
  }
  t.facts = std::move(r.facts());
  t.warnings = std::move(r.warnings());
  return t;
}

}  // namespace npugap::target
