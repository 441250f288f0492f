// Control flow: If, Loop, Scan. Bodies run through the executor's SubgraphRunner, in the scope of
// the calling node, so they can read the enclosing graphs' values by name.
#include <algorithm>
#include <cstring>

#include "npugap/exec/op_table.h"

namespace npugap::exec {
namespace {

bool ScalarTrue(const Tensor& t) {
  return t.numel() > 0 && (t.dtype() == DType::kBool ? t.data<bool>()[0] : false);
}

// Slice `index` of `t` along `axis` (the axis removed).
Tensor SliceAlong(const Tensor& t, int64_t axis, int64_t index) {
  Shape out_shape = t.shape();
  out_shape.erase(out_shape.begin() + axis);
  Tensor out = Tensor::Empty(t.dtype(), out_shape);
  int64_t outer = 1;
  for (int64_t i = 0; i < axis; ++i) outer *= t.dim(i);
  int64_t inner = 1;
  for (int64_t i = axis + 1; i < t.rank(); ++i) inner *= t.dim(i);
  const size_t elem = ir::DTypeSize(t.dtype());
  const auto* src = static_cast<const std::byte*>(t.raw_data());
  auto* dst = static_cast<std::byte*>(out.raw_data());
  for (int64_t o = 0; o < outer; ++o) {
    std::memcpy(dst + static_cast<size_t>(o * inner) * elem,
                src + static_cast<size_t>((o * t.dim(axis) + index) * inner) * elem, static_cast<size_t>(inner) * elem);
  }
  return out;
}

// Stacks equally shaped slices along a new `axis`.
Expected<Tensor> StackAlong(const std::vector<Tensor>& slices, int64_t axis, const KernelContext& ctx) {
  const Tensor& first = slices.front();
  for (const Tensor& s : slices) {
    if (s.shape() != first.shape() || s.dtype() != first.dtype()) {
      return ctx.Error("scan outputs of different shapes across iterations");
    }
  }
  if (first.dtype() == DType::kString) return ctx.UnsupportedDType(first.dtype());
  Shape shape = first.shape();
  shape.insert(shape.begin() + axis, static_cast<int64_t>(slices.size()));
  NPUGAP_ASSIGN_OR_RETURN(Tensor out, Tensor::Create(first.dtype(), shape));
  int64_t outer = 1;
  for (int64_t i = 0; i < axis; ++i) outer *= first.dim(i);
  const int64_t inner = outer == 0 ? 0 : first.numel() / std::max<int64_t>(outer, 1);
  const size_t elem = ir::DTypeSize(first.dtype());
  auto* dst = static_cast<std::byte*>(out.raw_data());
  const auto n = static_cast<int64_t>(slices.size());
  for (int64_t k = 0; k < n; ++k) {
    const auto* src = static_cast<const std::byte*>(slices[static_cast<size_t>(k)].raw_data());
    for (int64_t o = 0; o < outer; ++o) {
      std::memcpy(dst + static_cast<size_t>((o * n + k) * inner) * elem, src + static_cast<size_t>(o * inner) * elem,
                  static_cast<size_t>(inner) * elem);
    }
  }
  return out;
}

Status IfKernel(KernelContext& ctx) {
  const ir::Graph* branch = ctx.node.GetGraph(ScalarTrue(ctx.input(0)) ? "then_branch" : "else_branch");
  if (!branch) return ctx.Error("missing then_branch / else_branch");
  NPUGAP_ASSIGN_OR_RETURN(auto outputs, ctx.subgraphs->Run(*branch, {}));
  if (outputs.size() != ctx.num_outputs()) return ctx.Error("branch output count differs from the node's");
  for (size_t i = 0; i < outputs.size(); ++i) ctx.outputs[i] = std::move(outputs[i]);
  return Status::Ok();
}

// Loop(M, cond, v_initial...) with body(iter, cond, v...) -> (cond, v..., scan_outputs...).
Status LoopKernel(KernelContext& ctx) {
  const ir::Graph* body = ctx.node.GetGraph("body");
  if (!body) return ctx.Error("missing body");
  const int64_t max_trips = ctx.has_input(0) ? ctx.input(0).data<int64_t>()[0] : INT64_MAX;
  bool cond = ctx.has_input(1) ? ScalarTrue(ctx.input(1)) : true;
  std::vector<Tensor> carried;
  for (size_t i = 2; i < ctx.num_inputs(); ++i) carried.push_back(ctx.input(i));
  const size_t num_carried = carried.size();
  const size_t num_scan = ctx.num_outputs() - num_carried;
  if (body->outputs.size() != 1 + num_carried + num_scan) return ctx.Error("body output count does not match");
  std::vector<std::vector<Tensor>> scans(num_scan);
  for (int64_t iter = 0; iter < max_trips && cond; ++iter) {
    std::vector<Tensor> in;
    Tensor iter_t = Tensor::Empty(DType::kInt64, {});
    *iter_t.data<int64_t>() = iter;
    Tensor cond_t = Tensor::Empty(DType::kBool, {});
    *cond_t.data<bool>() = cond;
    in.push_back(iter_t);
    in.push_back(cond_t);
    in.insert(in.end(), carried.begin(), carried.end());
    NPUGAP_ASSIGN_OR_RETURN(auto out, ctx.subgraphs->Run(*body, in));
    cond = ScalarTrue(out[0]);
    for (size_t i = 0; i < num_carried; ++i) carried[i] = out[1 + i];
    for (size_t i = 0; i < num_scan; ++i) scans[i].push_back(out[1 + num_carried + i]);
  }
  for (size_t i = 0; i < num_carried; ++i) ctx.outputs[i] = carried[i];
  for (size_t i = 0; i < num_scan; ++i) {
    if (scans[i].empty()) {
      // Zero iterations: an empty tensor whose element type comes from the body's declaration.
      const ir::Value& v = body->values[static_cast<size_t>(body->outputs[1 + num_carried + i])];
      Shape shape{0};
      if (auto s = v.type.StaticShape()) shape.insert(shape.end(), s->begin(), s->end());
      NPUGAP_ASSIGN_OR_RETURN(ctx.outputs[num_carried + i], Tensor::Create(v.type.dtype, shape));
      continue;
    }
    NPUGAP_ASSIGN_OR_RETURN(ctx.outputs[num_carried + i], StackAlong(scans[i], 0, ctx));
  }
  return Status::Ok();
}

int64_t NormalizeAxis(int64_t axis, int64_t rank) { return axis < 0 ? axis + rank : axis; }

struct ScanResult {
  std::vector<Tensor> states;
  std::vector<Tensor> scan_outputs;
};

// One Scan: state variables carried, scan inputs sliced along their axes, scan outputs stacked.
Expected<ScanResult> RunScan(const KernelContext& ctx, std::vector<Tensor> state,
                             const std::vector<const Tensor*>& scan_inputs, size_t num_scan_outputs) {
  const ir::Graph* body = ctx.node.GetGraph("body");
  if (!body) return ctx.Error("missing body");
  const size_t num_scan_inputs = scan_inputs.size();
  // Opset 8 calls input directions "directions"; 9+ "scan_input_directions".
  const auto in_dirs = ctx.node.GetInts(ctx.opset < 9 ? "directions" : "scan_input_directions",
                                        std::vector<int64_t>(num_scan_inputs, 0));
  const auto out_dirs = ctx.node.GetInts("scan_output_directions", std::vector<int64_t>(num_scan_outputs, 0));
  const auto in_axes = ctx.node.GetInts("scan_input_axes", std::vector<int64_t>(num_scan_inputs, 0));
  const auto out_axes = ctx.node.GetInts("scan_output_axes", std::vector<int64_t>(num_scan_outputs, 0));
  if (in_dirs.size() != num_scan_inputs || in_axes.size() != num_scan_inputs || out_dirs.size() != num_scan_outputs ||
      out_axes.size() != num_scan_outputs) {
    return ctx.Error("scan direction / axis attributes do not match the number of scan inputs / outputs");
  }
  int64_t length = -1;
  std::vector<int64_t> axes(num_scan_inputs);
  for (size_t i = 0; i < num_scan_inputs; ++i) {
    const Tensor& t = *scan_inputs[i];
    axes[i] = NormalizeAxis(in_axes[i], t.rank());
    if (axes[i] < 0 || axes[i] >= t.rank()) return ctx.Error("scan_input_axes out of range");
    if (length >= 0 && t.dim(axes[i]) != length) return ctx.Error("scan inputs have different lengths");
    length = t.dim(axes[i]);
  }
  std::vector<std::vector<Tensor>> scans(num_scan_outputs);
  const size_t num_state = state.size();
  for (int64_t step = 0; step < length; ++step) {
    std::vector<Tensor> in = state;
    for (size_t i = 0; i < num_scan_inputs; ++i) {
      const int64_t idx = in_dirs[i] ? length - 1 - step : step;
      in.push_back(SliceAlong(*scan_inputs[i], axes[i], idx));
    }
    NPUGAP_ASSIGN_OR_RETURN(auto out, ctx.subgraphs->Run(*body, in));
    for (size_t i = 0; i < num_state; ++i) state[i] = out[i];
    for (size_t i = 0; i < num_scan_outputs; ++i) scans[i].push_back(out[num_state + i]);
  }
  ScanResult result{std::move(state), {}};
  for (size_t i = 0; i < num_scan_outputs; ++i) {
    if (scans[i].empty()) return ctx.Error("scan over zero steps");
    if (out_dirs[i]) std::reverse(scans[i].begin(), scans[i].end());
    const int64_t axis = NormalizeAxis(out_axes[i], scans[i][0].rank() + 1);
    NPUGAP_ASSIGN_OR_RETURN(Tensor stacked, StackAlong(scans[i], axis, ctx));
    result.scan_outputs.push_back(std::move(stacked));
  }
  return result;
}

// Scan 9+: inputs are the initial states then the scan inputs.
Status ScanKernel(KernelContext& ctx) {
  const auto num_scan_inputs = static_cast<size_t>(ctx.node.GetInt("num_scan_inputs", 0));
  if (num_scan_inputs == 0 || num_scan_inputs > ctx.num_inputs()) return ctx.Error("bad num_scan_inputs");
  const size_t num_state = ctx.num_inputs() - num_scan_inputs;
  if (ctx.num_outputs() < num_state) return ctx.Error("fewer outputs than state variables");
  std::vector<Tensor> state;
  for (size_t i = 0; i < num_state; ++i) state.push_back(ctx.input(i));
  std::vector<const Tensor*> scan_inputs(ctx.inputs.begin() + static_cast<std::ptrdiff_t>(num_state), ctx.inputs.end());
  NPUGAP_ASSIGN_OR_RETURN(ScanResult r, RunScan(ctx, std::move(state), scan_inputs, ctx.num_outputs() - num_state));
  for (size_t i = 0; i < num_state; ++i) ctx.outputs[i] = std::move(r.states[i]);
  for (size_t i = 0; i < r.scan_outputs.size(); ++i) ctx.outputs[num_state + i] = std::move(r.scan_outputs[i]);
  return Status::Ok();
}

// Scan 8: a leading batch axis on every state and scan input (scan axis 1) and an optional
// sequence_lens input first. Runs the opset-9 scan per batch item and stacks the results.
Status Scan8Kernel(KernelContext& ctx) {
  const auto num_scan_inputs = static_cast<size_t>(ctx.node.GetInt("num_scan_inputs", 0));
  if (ctx.num_inputs() < 1 + num_scan_inputs || num_scan_inputs == 0) return ctx.Error("bad num_scan_inputs");
  const size_t num_state = ctx.num_inputs() - 1 - num_scan_inputs;
  const size_t num_scan_outputs = ctx.num_outputs() - num_state;
  const Tensor& first_scan = ctx.input(1 + num_state);
  if (first_scan.rank() < 2) return ctx.Error("scan inputs need [batch, sequence, ...] dims");
  const int64_t batch = first_scan.dim(0);
  if (ctx.has_input(0)) {
    const Tensor& lens = ctx.input(0);
    for (int64_t b = 0; b < lens.numel(); ++b) {
      if (lens.data<int64_t>()[b] != first_scan.dim(1)) {
        return Status::Unsupported(ctx.Error("Scan-8 with sequence_lens shorter than the sequence").message());
      }
    }
  }
  std::vector<std::vector<Tensor>> per_batch(num_state + num_scan_outputs);
  for (int64_t b = 0; b < batch; ++b) {
    std::vector<Tensor> state;
    for (size_t i = 0; i < num_state; ++i) state.push_back(SliceAlong(ctx.input(1 + i), 0, b));
    std::vector<Tensor> slices;
    for (size_t i = 0; i < num_scan_inputs; ++i) slices.push_back(SliceAlong(ctx.input(1 + num_state + i), 0, b));
    std::vector<const Tensor*> scan_inputs;
    for (const Tensor& t : slices) scan_inputs.push_back(&t);
    NPUGAP_ASSIGN_OR_RETURN(ScanResult r, RunScan(ctx, std::move(state), scan_inputs, num_scan_outputs));
    for (size_t i = 0; i < num_state; ++i) per_batch[i].push_back(std::move(r.states[i]));
    for (size_t i = 0; i < num_scan_outputs; ++i) per_batch[num_state + i].push_back(std::move(r.scan_outputs[i]));
  }
  for (size_t i = 0; i < per_batch.size(); ++i) {
    if (per_batch[i].empty()) return ctx.Error("Scan-8 over an empty batch");
    NPUGAP_ASSIGN_OR_RETURN(ctx.outputs[i], StackAlong(per_batch[i], 0, ctx));
  }
  return Status::Ok();
}

constexpr OpRow kRows[] = {
    {"", "If", 1, 17, IfKernel, &support::kGraphLevel},
    {"", "Loop", 1, 17, LoopKernel, &support::kGraphLevel},
    {"", "Scan", 8, 8, Scan8Kernel, &support::kUnsupported},
    {"", "Scan", 9, 17, ScanKernel, &support::kUnsupported},
};

}  // namespace

std::span<const OpRow> ControlFlowOps() { return kRows; }

}  // namespace npugap::exec
