// Loss ops of the normalization family: NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss
// (opset 12+). Both reduce to the same core: loss[n, d] = -logp[n, target[n, d], d] *
// weight[target], with weight 0 where target == ignore_index; "mean" divides the sum by the
// sum of the applied weights (the count of non-ignored samples without a weight input).
// Sums are accumulated in double.
#include <cmath>
#include <string>
#include <vector>

#include "npugap/exec/dispatch.h"
#include "npugap/exec/op_table.h"
#include "reduction_internal.h"

namespace npugap::exec {
namespace {

using reduction_internal::DimProduct;
using reduction_internal::HasHalfInput;
using reduction_internal::LogSoftmaxAlongAxis;
using reduction_internal::RunInFloat32;

enum class Reduction { kNone, kSum, kMean };

struct LossSetup {
  Reduction reduction = Reduction::kMean;
  bool has_ignore = false;
  int64_t ignore_index = 0;
  int64_t batch = 0;    // N
  int64_t classes = 0;  // C
  int64_t inner = 1;    // d1 * ... * dk
};

// Validates input (N, C, d1..dk), target (N, d1..dk), optional weight (C) and the attributes.
Expected<LossSetup> CheckLossInputs(const KernelContext& ctx) {
  if (ctx.num_inputs() < 2 || !ctx.has_input(1))
    return ctx.Error("expects inputs scores/input and labels/target");
  const Tensor& x = ctx.input(0);
  const Tensor& target = ctx.input(1);
  LossSetup s;
  const std::string reduction = ctx.node.GetString("reduction", "mean");
  if (reduction == "none") {
    s.reduction = Reduction::kNone;
  } else if (reduction == "sum") {
    s.reduction = Reduction::kSum;
  } else if (reduction != "mean") {
    return ctx.Error("reduction must be none, sum or mean, got '" + reduction + "'");
  }
  s.has_ignore = ctx.node.FindAttribute("ignore_index") != nullptr;
  s.ignore_index = ctx.node.GetInt("ignore_index", 0);
  if (x.rank() < 2)
    return ctx.Error("input must have shape (N, C, d1, ...), got " + ir::ShapeToString(x.shape()));
  bool shape_ok = target.rank() == x.rank() - 1 && target.dim(0) == x.dim(0);
  for (int64_t k = 1; shape_ok && k < target.rank(); ++k) shape_ok = target.dim(k) == x.dim(k + 1);
  if (!shape_ok) {
    return ctx.Error("target shape " + ir::ShapeToString(target.shape()) + " does not match input shape " +
                     ir::ShapeToString(x.shape()) + " (expected N, d1, ...)");
  }
  if (target.dtype() != DType::kInt64 && target.dtype() != DType::kInt32) {
    return ctx.UnsupportedDType(target.dtype());
  }
  s.batch = x.dim(0);
  s.classes = x.dim(1);
  s.inner = DimProduct(x.shape(), 2, x.rank());
  if (ctx.has_input(2)) {
    const Tensor& w = ctx.input(2);
    if (w.rank() != 1 || w.dim(0) != s.classes) {
      return ctx.Error("weight must have shape (" + std::to_string(s.classes) + "), got " +
                       ir::ShapeToString(w.shape()));
    }
    if (w.dtype() != x.dtype()) return ctx.UnsupportedDType(w.dtype());
  }
  return s;
}

template <typename T, typename I>
Status NllLoss(const KernelContext& ctx, const LossSetup& s, const T* logp, const I* target, const T* weight,
               const Shape& target_shape, Tensor& result) {
  const bool none = s.reduction == Reduction::kNone;
  NPUGAP_ASSIGN_OR_RETURN(Tensor out, Tensor::Create(ctx.input(0).dtype(), none ? target_shape : Shape{}));
  T* loss = out.data<T>();
  double sum = 0;
  double weight_sum = 0;
  for (int64_t n = 0; n < s.batch; ++n) {
    for (int64_t d = 0; d < s.inner; ++d) {
      const int64_t i = n * s.inner + d;
      const int64_t t = static_cast<int64_t>(target[i]);
      double value = 0;
      if (!(s.has_ignore && t == s.ignore_index)) {
        if (t < 0 || t >= s.classes) {
          return ctx.Error("target value " + std::to_string(t) + " is outside [0, " +
                           std::to_string(s.classes) + ")");
        }
        const double w = weight != nullptr ? static_cast<double>(weight[t]) : 1.0;
        value = -static_cast<double>(logp[(n * s.classes + t) * s.inner + d]) * w;
        weight_sum += w;
      }
      if (none) {
        loss[i] = static_cast<T>(value);
      } else {
        sum += value;
      }
    }
  }
  if (s.reduction == Reduction::kSum) loss[0] = static_cast<T>(sum);
  if (s.reduction == Reduction::kMean) loss[0] = static_cast<T>(sum / weight_sum);  // 0 / 0 = NaN, as in ONNX
  result = std::move(out);
  return Status::Ok();
}

// Runs NllLoss for the target's index type.
template <typename T>
Status NllLossForTarget(const KernelContext& ctx, const LossSetup& s, const T* logp, Tensor& result) {
  const Tensor& target = ctx.input(1);
  const T* weight = ctx.has_input(2) ? ctx.input(2).data<T>() : nullptr;
  if (target.dtype() == DType::kInt64) {
    return NllLoss(ctx, s, logp, target.data<int64_t>(), weight, target.shape(), result);
  }
  return NllLoss(ctx, s, logp, target.data<int32_t>(), weight, target.shape(), result);
}

// input holds log-probabilities already.
Status NllLossKernel(KernelContext& ctx) {
  if (HasHalfInput(ctx)) return RunInFloat32(ctx, &NllLossKernel);
  NPUGAP_ASSIGN_OR_RETURN(LossSetup s, CheckLossInputs(ctx));
  const Tensor& x = ctx.input(0);
  Status status = Status::Ok();
  const bool covered = DispatchFloat(
      x.dtype(), [&]<typename T>() { status = NllLossForTarget<T>(ctx, s, x.data<T>(), ctx.outputs[0]); });
  if (!covered) return ctx.UnsupportedDType(x.dtype());
  return status;
}

// log_prob = LogSoftmax(scores) along the class axis 1, then the NLL loss of it; output 1 is
// log_prob itself.
Status SoftmaxCrossEntropyKernel(KernelContext& ctx) {
  if (HasHalfInput(ctx)) return RunInFloat32(ctx, &SoftmaxCrossEntropyKernel);
  NPUGAP_ASSIGN_OR_RETURN(LossSetup s, CheckLossInputs(ctx));
  const Tensor& x = ctx.input(0);
  NPUGAP_ASSIGN_OR_RETURN(Tensor log_prob, Tensor::Create(x.dtype(), x.shape()));
  Status status = Status::Ok();
  const bool covered = DispatchFloat(x.dtype(), [&]<typename T>() {
    LogSoftmaxAlongAxis(x.data<T>(), log_prob.data<T>(), s.batch, s.classes, s.inner);
    status = NllLossForTarget<T>(ctx, s, log_prob.data<T>(), ctx.outputs[0]);
  });
  if (!covered) return ctx.UnsupportedDType(x.dtype());
  NPUGAP_RETURN_IF_ERROR(status);
  if (ctx.wants_output(1) && ctx.num_outputs() > 1) ctx.outputs[1] = std::move(log_prob);
  return Status::Ok();
}

constexpr OpRow kLossRows[] = {
    {"", "NegativeLogLikelihoodLoss", 12, 17, &NllLossKernel, &support::kVectorFloat},
    {"", "SoftmaxCrossEntropyLoss", 12, 17, &SoftmaxCrossEntropyKernel, &support::kVectorFloat},
};

}  // namespace

namespace reduction_internal {
std::span<const OpRow> LossOps() { return kLossRows; }
}  // namespace reduction_internal

}  // namespace npugap::exec
