// Optimizer update ops of the ai.onnx.preview.training domain: Adagrad, Momentum, Adam.
// Inputs: R (learning rate), T (update count), then the per-tensor groups; outputs all new X
// first, then each state kind in turn. The performance model reuses these as optimizer kernels.
#include <cmath>

#include "npugap/exec/op_table.h"

namespace npugap::exec {
namespace {

constexpr std::string_view kTrainingDomain = "ai.onnx.preview.training";

// Checks R, T and the group count; returns the number of optimized tensors.
Expected<size_t> Groups(const KernelContext& ctx, size_t per_group) {
  if (ctx.num_inputs() < 2 || (ctx.num_inputs() - 2) % per_group != 0) {
    return ctx.Error("inputs must be R, T and groups of " + std::to_string(per_group));
  }
  const size_t n = (ctx.num_inputs() - 2) / per_group;
  for (size_t i = 2; i < ctx.num_inputs(); ++i) {
    if (ctx.input(i).dtype() != DType::kFloat32) return ctx.UnsupportedDType(ctx.input(i).dtype());
    if (ctx.input(i).shape() != ctx.input(2 + (i - 2) % n).shape()) return ctx.Error("X, G and state shapes differ");
  }
  if (ctx.input(0).dtype() != DType::kFloat32 || ctx.input(1).dtype() != DType::kInt64) {
    return ctx.Error("R must be float32 and T int64");
  }
  return n;
}

Status AdagradKernel(KernelContext& ctx) {
  NPUGAP_ASSIGN_OR_RETURN(size_t n, Groups(ctx, 3));
  const float lr = ctx.input(0).data<float>()[0];
  const auto t = static_cast<float>(ctx.input(1).data<int64_t>()[0]);
  const float decay = ctx.node.GetFloat("decay_factor", 0.0f);
  const float eps = ctx.node.GetFloat("epsilon", 1e-6f);
  const float norm = ctx.node.GetFloat("norm_coefficient", 0.0f);
  const float r = lr / (1 + t * decay);
  for (size_t k = 0; k < n; ++k) {
    const Tensor& x = ctx.input(2 + k);
    const Tensor& g = ctx.input(2 + n + k);
    const Tensor& h = ctx.input(2 + 2 * n + k);
    Tensor x_new = Tensor::Empty(DType::kFloat32, x.shape());
    Tensor h_new = Tensor::Empty(DType::kFloat32, x.shape());
    for (int64_t i = 0; i < x.numel(); ++i) {
      const float g_reg = norm * x.data<float>()[i] + g.data<float>()[i];
      const float hv = h.data<float>()[i] + g_reg * g_reg;
      h_new.data<float>()[i] = hv;
      x_new.data<float>()[i] = x.data<float>()[i] - r * g_reg / (std::sqrt(hv) + eps);
    }
    ctx.outputs[k] = std::move(x_new);
    ctx.outputs[n + k] = std::move(h_new);
  }
  return Status::Ok();
}

Status MomentumKernel(KernelContext& ctx) {
  NPUGAP_ASSIGN_OR_RETURN(size_t n, Groups(ctx, 3));
  const float lr = ctx.input(0).data<float>()[0];
  const int64_t t = ctx.input(1).data<int64_t>()[0];
  const float alpha = ctx.node.GetFloat("alpha", 0.9f);
  const float beta = ctx.node.GetFloat("beta", 1.0f);
  const float norm = ctx.node.GetFloat("norm_coefficient", 0.0f);
  const std::string mode = ctx.node.GetString("mode", "standard");
  if (mode != "standard" && mode != "nesterov") return ctx.Error("mode '" + mode + "' is not standard or nesterov");
  const float beta_adjusted = t > 0 ? beta : 1.0f;  // the first update takes the whole gradient
  for (size_t k = 0; k < n; ++k) {
    const Tensor& x = ctx.input(2 + k);
    const Tensor& g = ctx.input(2 + n + k);
    const Tensor& v = ctx.input(2 + 2 * n + k);
    Tensor x_new = Tensor::Empty(DType::kFloat32, x.shape());
    Tensor v_new = Tensor::Empty(DType::kFloat32, x.shape());
    for (int64_t i = 0; i < x.numel(); ++i) {
      const float g_reg = norm * x.data<float>()[i] + g.data<float>()[i];
      const float vv = alpha * v.data<float>()[i] + beta_adjusted * g_reg;
      v_new.data<float>()[i] = vv;
      const float step = mode == "standard" ? vv : g_reg + alpha * vv;
      x_new.data<float>()[i] = x.data<float>()[i] - lr * step;
    }
    ctx.outputs[k] = std::move(x_new);
    ctx.outputs[n + k] = std::move(v_new);
  }
  return Status::Ok();
}

Status AdamKernel(KernelContext& ctx) {
  NPUGAP_ASSIGN_OR_RETURN(size_t n, Groups(ctx, 4));
  const float lr = ctx.input(0).data<float>()[0];
  const int64_t t = ctx.input(1).data<int64_t>()[0];
  const float alpha = ctx.node.GetFloat("alpha", 0.9f);
  const float beta = ctx.node.GetFloat("beta", 0.999f);
  const float eps = ctx.node.GetFloat("epsilon", 1e-6f);
  const float norm = ctx.node.GetFloat("norm_coefficient", 0.0f);
  const float norm_post = ctx.node.GetFloat("norm_coefficient_post", 0.0f);
  // Bias correction folded into the learning rate, as the ONNX reference does.
  // In double, as the reference computes beta**t with Python floats.
  const double td = static_cast<double>(t);
  const auto r = static_cast<float>(t > 0 ? lr * std::sqrt(1 - std::pow(static_cast<double>(beta), td)) /
                                                (1 - std::pow(static_cast<double>(alpha), td))
                                          : lr);
  for (size_t k = 0; k < n; ++k) {
    const Tensor& x = ctx.input(2 + k);
    const Tensor& g = ctx.input(2 + n + k);
    const Tensor& v = ctx.input(2 + 2 * n + k);
    const Tensor& h = ctx.input(2 + 3 * n + k);
    Tensor x_new = Tensor::Empty(DType::kFloat32, x.shape());
    Tensor v_new = Tensor::Empty(DType::kFloat32, x.shape());
    Tensor h_new = Tensor::Empty(DType::kFloat32, x.shape());
    for (int64_t i = 0; i < x.numel(); ++i) {
      const float g_reg = norm * x.data<float>()[i] + g.data<float>()[i];
      const float vv = alpha * v.data<float>()[i] + (1 - alpha) * g_reg;
      const float hv = beta * h.data<float>()[i] + (1 - beta) * g_reg * g_reg;
      v_new.data<float>()[i] = vv;
      h_new.data<float>()[i] = hv;
      const float xv = x.data<float>()[i] - r * vv / (std::sqrt(hv) + eps);
      x_new.data<float>()[i] = (1 - norm_post) * xv;
    }
    ctx.outputs[k] = std::move(x_new);
    ctx.outputs[n + k] = std::move(v_new);
    ctx.outputs[2 * n + k] = std::move(h_new);
  }
  return Status::Ok();
}

constexpr OpRow kRows[] = {
    {kTrainingDomain, "Adagrad", 1, 1, AdagradKernel, &support::kUnsupported},
    {kTrainingDomain, "Momentum", 1, 1, MomentumKernel, &support::kUnsupported},
    {kTrainingDomain, "Adam", 1, 1, AdamKernel, &support::kUnsupported},
};

}  // namespace

std::span<const OpRow> TrainingOps() { return kRows; }

}  // namespace npugap::exec
