// Control flow: If, Loop, Scan. Bodies run through the executor's SubgraphRunner, in the scope of
// the calling node, so they can read the enclosing graphs' values by name.
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

// Scan (opset 9+): state variables carried, scan inputs sliced along their axes.
Status ScanKernel(KernelContext& ctx) {
  const ir::Graph* body = ctx.node.GetGraph("body");
  if (!body) return ctx.Error("missing body");
  const auto num_scan_inputs = static_cast<size_t>(ctx.node.GetInt("num_scan_inputs", 0));
  if (num_scan_inputs == 0 || num_scan_inputs > ctx.num_inputs()) return ctx.Error("bad num_scan_inputs");
  const size_t num_state = ctx.num_inputs() - num_scan_inputs;
  const size_t num_scan_outputs = ctx.num_outputs() - num_state;
  const auto in_dirs = ctx.node.GetInts("scan_input_directions", std::vector<int64_t>(num_scan_inputs, 0));
  const auto out_dirs = ctx.node.GetInts("scan_output_directions", std::vector<int64_t>(num_scan_outputs, 0));
  const auto in_axes = ctx.node.GetInts("scan_input_axes", std::vector<int64_t>(num_scan_inputs, 0));
  const auto out_axes = ctx.node.GetInts("scan_output_axes", std::vector<int64_t>(num_scan_outputs, 0));
  std::vector<Tensor> state;
  for (size_t i = 0; i < num_state; ++i) state.push_back(ctx.input(i));
  int64_t length = -1;
  std::vector<int64_t> axes(num_scan_inputs);
  for (size_t i = 0; i < num_scan_inputs; ++i) {
    const Tensor& t = ctx.input(num_state + i);
    axes[i] = NormalizeAxis(in_axes[i], t.rank());
    if (axes[i] < 0 || axes[i] >= t.rank()) return ctx.Error("scan_input_axes out of range");
    if (length >= 0 && t.dim(axes[i]) != length) return ctx.Error("scan inputs have different lengths");
    length = t.dim(axes[i]);
  }
  std::vector<std::vector<Tensor>> scans(num_scan_outputs);
  for (int64_t step = 0; step < length; ++step) {
    std::vector<Tensor> in = state;
    for (size_t i = 0; i < num_scan_inputs; ++i) {
      const int64_t idx = in_dirs[i] ? length - 1 - step : step;
      in.push_back(SliceAlong(ctx.input(num_state + i), axes[i], idx));
    }
    NPUGAP_ASSIGN_OR_RETURN(auto out, ctx.subgraphs->Run(*body, in));
    for (size_t i = 0; i < num_state; ++i) state[i] = out[i];
    for (size_t i = 0; i < num_scan_outputs; ++i) scans[i].push_back(out[num_state + i]);
  }
  for (size_t i = 0; i < num_state; ++i) ctx.outputs[i] = state[i];
  for (size_t i = 0; i < num_scan_outputs; ++i) {
    if (scans[i].empty()) return ctx.Error("scan over zero steps");
    if (out_dirs[i]) std::reverse(scans[i].begin(), scans[i].end());
    const int64_t axis = NormalizeAxis(out_axes[i], scans[i][0].rank() + 1);
    NPUGAP_ASSIGN_OR_RETURN(ctx.outputs[num_state + i], StackAlong(scans[i], axis, ctx));
  }
  return Status::Ok();
}

constexpr OpRow kRows[] = {
    {"", "If", 1, 17, IfKernel},
    {"", "Loop", 1, 17, LoopKernel},
    {"", "Scan", 9, 17, ScanKernel},
};

}  // namespace

std::span<const OpRow> ControlFlowOps() { return kRows; }

}  // namespace npugap::exec
