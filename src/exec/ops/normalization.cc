// Normalization op family: BatchNormalization, InstanceNormalization, LayerNormalization,
// LpNormalization, LRN, MeanVarianceNormalization. The losses (NegativeLogLikelihoodLoss,
// SoftmaxCrossEntropyLoss) live in normalization_loss.cc.
//
// Statistics (means, variances, norms) are accumulated in double with two passes over data
// that is in cache (mean first, then the mean of squared differences), which avoids the
// cancellation of E[x^2] - E[x]^2. float16 / bfloat16 inputs are computed in float32.
#include <cmath>
#include <string>
#include <vector>

#include "npugap/exec/broadcast.h"
#include "npugap/exec/dispatch.h"
#include "npugap/exec/emulation_op.h"
#include "npugap/exec/op_table.h"
#include "npugap/exec/parallel.h"
#include "reduction_internal.h"

namespace npugap::exec {
namespace {

using reduction_internal::DimProduct;
using reduction_internal::Float32ToHalf;
using reduction_internal::HasHalfInput;
using reduction_internal::MarkReducedAxes;
using reduction_internal::NormalizeAxis;
using reduction_internal::RowSum;
using reduction_internal::RunInFloat32;

constexpr int64_t kLanes = 8;
constexpr int64_t kGrainElements = int64_t{1} << 14;

// Sum of (x - mean)^2 over n contiguous elements, in double.
template <typename T>
double SquaredDeviationSum(const T* x, int64_t n, double mean) {
  double lanes[kLanes] = {};
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    for (int64_t j = 0; j < kLanes; ++j) {
      const double d = static_cast<double>(x[i + j]) - mean;
      lanes[j] += d * d;
    }
  }
  for (; i < n; ++i) {
    const double d = static_cast<double>(x[i]) - mean;
    lanes[0] += d * d;
  }
  double sum = 0;
  for (double l : lanes) sum += l;
  return sum;
}

// Mean and population variance of n contiguous elements (n > 0), in double.
template <typename T>
void MeanAndVariance(const T* x, int64_t n, double& mean, double& variance) {
  mean = RowSum(x, n) / static_cast<double>(n);
  variance = SquaredDeviationSum(x, n, mean) / static_cast<double>(n);
}

// Checks that every input given is of x's dtype (after float16 inputs became float32).
Status CheckSameDType(const KernelContext& ctx) {
  const DType t = ctx.input(0).dtype();
  for (size_t i = 1; i < ctx.num_inputs(); ++i) {
    if (ctx.has_input(i) && ctx.input(i).dtype() != t) return ctx.UnsupportedDType(ctx.input(i).dtype());
  }
  return Status::Ok();
}

// ---- BatchNormalization ------------------------------------------------------------------
// Inference: y = (x - mean) / sqrt(var + epsilon) * scale + B, computed as (x - mean) * a + B
// per channel (folding the mean into the bias too would cancel badly for a large mean and a
// small variance). training_mode = 1 (opset 14+) normalizes with the batch statistics (population
// variance) and returns the running statistics input * momentum + batch * (1 - momentum).
// spatial = 0 (before opset 9) has one set of statistics per activation: params of shape
// X.shape[1:], handled as C * D1 * ... channels of one element each. Before opset 14 the
// training outputs (mean, var, saved_mean, saved_var) are not implemented.
// Inference BatchNormalization as PyTorch's CPU kernel computes it in bf16 (the precision
// emulator's kBatchNormFmaAttr, emulation_op.h): per channel alpha = scale * (1 / sqrtf(var + eps))
// and beta = fma(-mean, alpha, B) in float32, then y = fma(x, alpha, beta).
void BatchNormFma(const float* x, const float* scale, const float* bias, const float* mean, const float* var,
                  float epsilon, int64_t n, int64_t channels, int64_t inner, float* y) {
  std::vector<float> alpha(static_cast<size_t>(channels)), beta(alpha.size());
  for (size_t c = 0; c < alpha.size(); ++c) {
    alpha[c] = scale[c] * (1.f / std::sqrt(var[c] + epsilon));
    beta[c] = std::fma(-mean[c], alpha[c], bias[c]);
  }
  ParallelFor(n * channels, std::max<int64_t>(1, kGrainElements / std::max<int64_t>(inner, 1)),
              [&](int64_t begin, int64_t end) {
                for (int64_t row = begin; row < end; ++row) {
                  const size_t c = static_cast<size_t>(row % channels);
                  for (int64_t i = row * inner; i < (row + 1) * inner; ++i)
                    y[i] = std::fma(x[i], alpha[c], beta[c]);
                }
              });
}

Status BatchNormKernel(KernelContext& ctx) {
  if (HasHalfInput(ctx)) return RunInFloat32(ctx, &BatchNormKernel, {0, 3, 4});
  if (ctx.num_inputs() < 5) return ctx.Error("expects 5 inputs (X, scale, B, mean, var)");
  const Tensor& x = ctx.input(0);
  for (size_t i = 1; i < 5; ++i) {
    if (!ctx.has_input(i)) return ctx.Error("input " + std::to_string(i) + " is missing");
  }
  NPUGAP_RETURN_IF_ERROR(CheckSameDType(ctx));
  if (x.rank() < 2)
    return ctx.Error("X must have rank >= 2 (N x C x ...), got " + ir::ShapeToString(x.shape()));
  const bool spatial = ctx.opset >= 9 || ctx.node.GetInt("spatial", 1) != 0;
  const int64_t n = x.dim(0);
  const int64_t channels = spatial ? x.dim(1) : DimProduct(x.shape(), 1, x.rank());
  const int64_t inner = spatial ? DimProduct(x.shape(), 2, x.rank()) : 1;
  const char* names[] = {"X", "scale", "B", "mean", "var"};
  for (size_t i = 1; i < 5; ++i) {
    if (ctx.input(i).numel() != channels) {
      return ctx.Error(std::string(names[i]) + " has shape " + ir::ShapeToString(ctx.input(i).shape()) +
                       ", expected " + std::to_string(channels) + " elements for X of shape " +
                       ir::ShapeToString(x.shape()));
    }
  }
  const bool training = ctx.opset >= 14 && ctx.node.GetInt("training_mode", 0) != 0;
  for (size_t i = 1; i < ctx.num_outputs() && !training; ++i) {
    if (!ctx.wants_output(i)) continue;
    if (ctx.opset < 14) {
      return Status::Unsupported("BatchNormalization training outputs before opset 14 are not implemented");
    }
    return ctx.Error("outputs running_mean / running_var need training_mode = 1");
  }
  const double epsilon = ctx.node.GetFloat("epsilon", 1e-5f);
  const double momentum = ctx.node.GetFloat("momentum", 0.9f);
  NPUGAP_ASSIGN_OR_RETURN(Tensor y, Tensor::Create(x.dtype(), x.shape()));
  if (ctx.node.GetInt(kBatchNormFmaAttr, 0) != 0 && !training && x.dtype() == DType::kFloat32) {
    BatchNormFma(x.data<float>(), ctx.input(1).data<float>(), ctx.input(2).data<float>(),
                 ctx.input(3).data<float>(), ctx.input(4).data<float>(), ctx.node.GetFloat("epsilon", 1e-5f),
                 n, channels, inner, y.data<float>());
    ctx.outputs[0] = std::move(y);
    return Status::Ok();
  }
  Status status = Status::Ok();
  const bool covered = DispatchFloat(x.dtype(), [&]<typename T>() {
    const T* scale = ctx.input(1).data<T>();
    const T* bias = ctx.input(2).data<T>();
    const T* mean_in = ctx.input(3).data<T>();
    const T* var_in = ctx.input(4).data<T>();
    std::vector<double> mean(mean_in, mean_in + channels);
    std::vector<double> var(var_in, var_in + channels);
    if (training) {
      // Batch statistics per channel over N and the spatial dims.
      const T* xd = x.data<T>();
      const double count = static_cast<double>(n * inner);
      ParallelFor(channels, 1, [&](int64_t begin, int64_t end) {
        for (int64_t c = begin; c < end; ++c) {
          double sum = 0;
          for (int64_t b = 0; b < n; ++b) sum += RowSum(xd + (b * channels + c) * inner, inner);
          const double m = sum / count;
          double sq = 0;
          for (int64_t b = 0; b < n; ++b)
            sq += SquaredDeviationSum(xd + (b * channels + c) * inner, inner, m);
          mean[static_cast<size_t>(c)] = m;
          var[static_cast<size_t>(c)] = sq / count;
        }
      });
      for (int k = 1; k <= 2; ++k) {
        if (!ctx.wants_output(static_cast<size_t>(k))) continue;
        const T* running = k == 1 ? mean_in : var_in;
        const std::vector<double>& batch = k == 1 ? mean : var;
        Expected<Tensor> out = Tensor::Create(x.dtype(), ctx.input(static_cast<size_t>(k + 2)).shape());
        if (!out.ok()) {
          status = out.status();
          return;
        }
        for (int64_t c = 0; c < channels; ++c) {
          out->data<T>()[c] = static_cast<T>(static_cast<double>(running[c]) * momentum +
                                             batch[static_cast<size_t>(c)] * (1.0 - momentum));
        }
        ctx.outputs[static_cast<size_t>(k)] = std::move(*out);
      }
    }
    std::vector<T> m(static_cast<size_t>(channels)), a(m.size()), b(m.size());
    for (size_t c = 0; c < a.size(); ++c) {
      m[c] = static_cast<T>(mean[c]);
      a[c] = static_cast<T>(static_cast<double>(scale[c]) / std::sqrt(var[c] + epsilon));
      b[c] = bias[c];
    }
    const T* xd = x.data<T>();
    T* yd = y.data<T>();
    if (inner == 1) {
      ParallelFor(n, std::max<int64_t>(1, kGrainElements / std::max<int64_t>(channels, 1)),
                  [&](int64_t begin, int64_t end) {
                    for (int64_t row = begin; row < end; ++row) {
                      for (int64_t c = 0; c < channels; ++c) {
                        const size_t k = static_cast<size_t>(c);
                        yd[row * channels + c] = (xd[row * channels + c] - m[k]) * a[k] + b[k];
                      }
                    }
                  });
      return;
    }
    ParallelFor(n * channels, std::max<int64_t>(1, kGrainElements / inner), [&](int64_t begin, int64_t end) {
      for (int64_t slice = begin; slice < end; ++slice) {
        const size_t k = static_cast<size_t>(slice % channels);
        const T mc = m[k], ac = a[k], bc = b[k];
        const T* p = xd + slice * inner;
        T* q = yd + slice * inner;
        for (int64_t i = 0; i < inner; ++i) q[i] = (p[i] - mc) * ac + bc;
      }
    });
  });
  if (!covered) return ctx.UnsupportedDType(x.dtype());
  NPUGAP_RETURN_IF_ERROR(status);
  ctx.outputs[0] = std::move(y);
  return Status::Ok();
}

// ---- InstanceNormalization ---------------------------------------------------------------
// y = scale[c] * (x - mean) / sqrt(var + epsilon) + B[c], statistics per (n, c) over the
// spatial dims.
Status InstanceNormKernel(KernelContext& ctx) {
  if (HasHalfInput(ctx)) return RunInFloat32(ctx, &InstanceNormKernel);
  if (ctx.num_inputs() < 3 || !ctx.has_input(1) || !ctx.has_input(2)) {
    return ctx.Error("expects 3 inputs (input, scale, B)");
  }
  const Tensor& x = ctx.input(0);
  NPUGAP_RETURN_IF_ERROR(CheckSameDType(ctx));
  if (x.rank() < 2)
    return ctx.Error("input must have rank >= 2 (N x C x ...), got " + ir::ShapeToString(x.shape()));
  const int64_t channels = x.dim(1);
  for (size_t i = 1; i < 3; ++i) {
    if (ctx.input(i).numel() != channels) {
      return ctx.Error(std::string(i == 1 ? "scale" : "B") + " has shape " +
                       ir::ShapeToString(ctx.input(i).shape()) + ", expected " + std::to_string(channels) +
                       " elements");
    }
  }
  const double epsilon = ctx.node.GetFloat("epsilon", 1e-5f);
  const int64_t inner = DimProduct(x.shape(), 2, x.rank());
  NPUGAP_ASSIGN_OR_RETURN(Tensor y, Tensor::Create(x.dtype(), x.shape()));
  const bool covered = DispatchFloat(x.dtype(), [&]<typename T>() {
    const T* scale = ctx.input(1).data<T>();
    const T* bias = ctx.input(2).data<T>();
    const T* xd = x.data<T>();
    T* yd = y.data<T>();
    if (inner == 0) return;
    ParallelFor(x.dim(0) * channels, std::max<int64_t>(1, kGrainElements / inner),
                [&](int64_t begin, int64_t end) {
                  for (int64_t slice = begin; slice < end; ++slice) {
                    const T* p = xd + slice * inner;
                    T* q = yd + slice * inner;
                    double mean, variance;
                    MeanAndVariance(p, inner, mean, variance);
                    const int64_t c = slice % channels;
                    const T m = static_cast<T>(mean);
                    const T a = static_cast<T>(static_cast<double>(scale[c]) / std::sqrt(variance + epsilon));
                    const T b = bias[c];
                    for (int64_t i = 0; i < inner; ++i) q[i] = (p[i] - m) * a + b;
                  }
                });
  });
  if (!covered) return ctx.UnsupportedDType(x.dtype());
  ctx.outputs[0] = std::move(y);
  return Status::Ok();
}

// ---- LayerNormalization ------------------------------------------------------------------

// Scale / B broadcast to the normalized shape X.shape[axis:], as one dense row.
template <typename T>
Expected<std::vector<T>> ExpandParam(const KernelContext& ctx, const Tensor& p, const Shape& norm_shape,
                                     const char* name) {
  Shape shape = p.shape();
  while (shape.size() > norm_shape.size() && shape.front() == 1) shape.erase(shape.begin());
  bool ok = shape.size() <= norm_shape.size();
  for (size_t i = 0; ok && i < shape.size(); ++i) {
    const int64_t want = norm_shape[norm_shape.size() - shape.size() + i];
    ok = shape[i] == want || shape[i] == 1;
  }
  if (!ok) {
    return ctx.Error(std::string(name) + " of shape " + ir::ShapeToString(p.shape()) +
                     " does not broadcast to the normalized shape " + ir::ShapeToString(norm_shape));
  }
  const int64_t len = DimProduct(norm_shape, 0, static_cast<int64_t>(norm_shape.size()));
  std::vector<T> row(static_cast<size_t>(len));
  const T* src = p.data<T>();
  if (p.numel() == len) {
    std::copy(src, src + len, row.begin());
    return row;
  }
  const std::vector<int64_t> strides = BroadcastStrides(shape, norm_shape);
  const size_t rank = norm_shape.size();
  std::vector<int64_t> index(rank, 0);
  for (int64_t i = 0; i < len; ++i) {
    int64_t offset = 0;
    for (size_t d = 0; d < rank; ++d) offset += index[d] * strides[d];
    row[static_cast<size_t>(i)] = src[offset];
    for (size_t d = rank; d-- > 0;) {
      if (++index[d] < norm_shape[d]) break;
      index[d] = 0;
    }
  }
  return row;
}

// Rows are X.shape[:axis] flattened, each normalized over X.shape[axis:] in one task. Mean and
// InvStdDev are float32 (stash_type 1) or bfloat16 (stash_type 16); statistics are computed
// in double whatever the stash type, which is at least as precise.
Status LayerNormKernel(KernelContext& ctx) {
  if (HasHalfInput(ctx)) return RunInFloat32(ctx, &LayerNormKernel, {0, -1, -1});
  if (ctx.num_inputs() < 2 || !ctx.has_input(1)) return ctx.Error("expects inputs X and Scale");
  const Tensor& x = ctx.input(0);
  NPUGAP_RETURN_IF_ERROR(CheckSameDType(ctx));
  const int64_t rank = x.rank();
  int64_t axis = ctx.node.GetInt("axis", -1);
  if (axis < -rank || axis > rank) {
    return ctx.Error("axis " + std::to_string(axis) + " is out of range for rank " + std::to_string(rank));
  }
  if (axis < 0) axis += rank;
  const int64_t stash_type = ctx.node.GetInt("stash_type", 1);
  if (stash_type != static_cast<int64_t>(DType::kFloat32) &&
      stash_type != static_cast<int64_t>(DType::kBFloat16)) {
    return Status::Unsupported("LayerNormalization stash_type " + std::to_string(stash_type) +
                               " is not supported");
  }
  const double epsilon = ctx.node.GetFloat("epsilon", 1e-5f);
  const Shape norm_shape(x.shape().begin() + axis, x.shape().end());
  const int64_t rows = DimProduct(x.shape(), 0, axis);
  const int64_t len = DimProduct(x.shape(), axis, rank);
  Shape stat_shape(x.shape().begin(), x.shape().begin() + axis);
  stat_shape.resize(static_cast<size_t>(rank), 1);
  NPUGAP_ASSIGN_OR_RETURN(Tensor y, Tensor::Create(x.dtype(), x.shape()));
  NPUGAP_ASSIGN_OR_RETURN(Tensor mean_out, Tensor::Create(DType::kFloat32, stat_shape));
  NPUGAP_ASSIGN_OR_RETURN(Tensor inv_std_out, Tensor::Create(DType::kFloat32, stat_shape));
  Status status = Status::Ok();
  const bool covered = DispatchFloat(x.dtype(), [&]<typename T>() {
    Expected<std::vector<T>> scale = ExpandParam<T>(ctx, ctx.input(1), norm_shape, "Scale");
    if (!scale.ok()) {
      status = scale.status();
      return;
    }
    std::vector<T> bias(static_cast<size_t>(len), T{0});
    if (ctx.has_input(2)) {
      Expected<std::vector<T>> b = ExpandParam<T>(ctx, ctx.input(2), norm_shape, "B");
      if (!b.ok()) {
        status = b.status();
        return;
      }
      bias = std::move(*b);
    }
    const T* xd = x.data<T>();
    T* yd = y.data<T>();
    const T* s = scale->data();
    const T* bp = bias.data();
    float* mean_d = mean_out.data<float>();
    float* inv_d = inv_std_out.data<float>();
    ParallelFor(rows, std::max<int64_t>(1, kGrainElements / std::max<int64_t>(len, 1)),
                [&](int64_t begin, int64_t end) {
                  for (int64_t r = begin; r < end; ++r) {
                    const T* p = xd + r * len;
                    T* q = yd + r * len;
                    double mean = NAN, variance = NAN;
                    if (len > 0) MeanAndVariance(p, len, mean, variance);
                    const double inv_std = 1.0 / std::sqrt(variance + epsilon);
                    mean_d[r] = static_cast<float>(mean);
                    inv_d[r] = static_cast<float>(inv_std);
                    const T m = static_cast<T>(mean);
                    const T inv = static_cast<T>(inv_std);
                    for (int64_t i = 0; i < len; ++i) q[i] = (p[i] - m) * inv * s[i] + bp[i];
                  }
                });
  });
  if (!covered) return ctx.UnsupportedDType(x.dtype());
  NPUGAP_RETURN_IF_ERROR(status);
  ctx.outputs[0] = std::move(y);
  Tensor* stats[] = {&mean_out, &inv_std_out};
  for (size_t k = 1; k <= 2; ++k) {
    if (!ctx.wants_output(k) || k >= ctx.num_outputs()) continue;
    if (stash_type == static_cast<int64_t>(DType::kBFloat16)) {
      NPUGAP_ASSIGN_OR_RETURN(ctx.outputs[k], Float32ToHalf(*stats[k - 1], DType::kBFloat16));
    } else {
      ctx.outputs[k] = std::move(*stats[k - 1]);
    }
  }
  return Status::Ok();
}

// ---- LpNormalization ---------------------------------------------------------------------
// y = x / ||x||_p along axis (p = 1 or 2). A zero norm gives y = 0 (as ONNX Runtime does)
// instead of 0 / 0.
Status LpNormKernel(KernelContext& ctx) {
  if (HasHalfInput(ctx)) return RunInFloat32(ctx, &LpNormKernel);
  const Tensor& x = ctx.input(0);
  const int64_t rank = x.rank();
  int64_t axis = ctx.node.GetInt("axis", -1);
  if (!NormalizeAxis(axis, rank)) {
    return ctx.Error("axis " + std::to_string(axis) + " is out of range for rank " + std::to_string(rank));
  }
  const int64_t p = ctx.node.GetInt("p", 2);
  if (p != 1 && p != 2) return ctx.Error("p must be 1 or 2, got " + std::to_string(p));
  const int64_t outer = DimProduct(x.shape(), 0, axis);
  const int64_t n = x.dim(axis);
  const int64_t inner = DimProduct(x.shape(), axis + 1, rank);
  NPUGAP_ASSIGN_OR_RETURN(Tensor y, Tensor::Create(x.dtype(), x.shape()));
  const bool covered = DispatchFloat(x.dtype(), [&]<typename T>() {
    const T* xd = x.data<T>();
    T* yd = y.data<T>();
    const int64_t per_task = std::max<int64_t>(1, n * inner);
    ParallelFor(outer, std::max<int64_t>(1, kGrainElements / per_task), [&](int64_t begin, int64_t end) {
      std::vector<double> norm(static_cast<size_t>(inner));
      for (int64_t o = begin; o < end; ++o) {
        const T* base = xd + o * n * inner;
        T* out = yd + o * n * inner;
        std::fill(norm.begin(), norm.end(), 0.0);
        for (int64_t r = 0; r < n; ++r) {
          const T* row = base + r * inner;
          for (int64_t i = 0; i < inner; ++i) {
            const double v = static_cast<double>(row[i]);
            norm[static_cast<size_t>(i)] += p == 1 ? std::abs(v) : v * v;
          }
        }
        for (double& v : norm) {
          if (p == 2) v = std::sqrt(v);
          v = v == 0 ? 0 : 1.0 / v;
        }
        for (int64_t r = 0; r < n; ++r) {
          for (int64_t i = 0; i < inner; ++i) {
            out[r * inner + i] = static_cast<T>(base[r * inner + i] * norm[static_cast<size_t>(i)]);
          }
        }
      }
    });
  });
  if (!covered) return ctx.UnsupportedDType(x.dtype());
  ctx.outputs[0] = std::move(y);
  return Status::Ok();
}

// ---- LRN ---------------------------------------------------------------------------------

// base^-beta, with the common betas (0.75 in AlexNet / GoogLeNet, 0.5, 1) done by square roots
// instead of pow.
inline double InversePower(double base, double beta) {
  if (beta == 0.75) return 1.0 / (std::sqrt(base) * std::sqrt(std::sqrt(base)));
  if (beta == 0.5) return 1.0 / std::sqrt(base);
  if (beta == 1.0) return 1.0 / base;
  return std::pow(base, -beta);
}

// y = x / (bias + alpha / size * sum of x^2 over channels [c - floor((size-1)/2),
// c + ceil((size-1)/2)]) ^ beta, across channels of an N x C x ... input.
Status LrnKernel(KernelContext& ctx) {
  if (HasHalfInput(ctx)) return RunInFloat32(ctx, &LrnKernel);
  const Tensor& x = ctx.input(0);
  if (x.rank() < 2)
    return ctx.Error("X must have rank >= 2 (N x C x ...), got " + ir::ShapeToString(x.shape()));
  const int64_t size = ctx.node.GetInt("size", 0);
  if (size <= 0) return ctx.Error("attribute size must be positive, got " + std::to_string(size));
  const double alpha = ctx.node.GetFloat("alpha", 1e-4f);
  const double beta = ctx.node.GetFloat("beta", 0.75f);
  const double bias = ctx.node.GetFloat("bias", 1.0f);
  const int64_t channels = x.dim(1);
  const int64_t inner = DimProduct(x.shape(), 2, x.rank());
  const int64_t before = (size - 1) / 2;
  const int64_t after = size - 1 - before;  // ceil((size - 1) / 2)
  NPUGAP_ASSIGN_OR_RETURN(Tensor y, Tensor::Create(x.dtype(), x.shape()));
  const bool covered = DispatchFloat(x.dtype(), [&]<typename T>() {
    const T* xd = x.data<T>();
    T* yd = y.data<T>();
    ParallelFor(
        x.dim(0) * channels, std::max<int64_t>(1, kGrainElements / std::max<int64_t>(inner * size, 1)),
        [&](int64_t begin, int64_t end) {
          std::vector<double> square_sum(static_cast<size_t>(inner));
          for (int64_t slice = begin; slice < end; ++slice) {
            const int64_t n = slice / channels;
            const int64_t c = slice % channels;
            std::fill(square_sum.begin(), square_sum.end(), 0.0);
            const int64_t lo = std::max<int64_t>(0, c - before);
            const int64_t hi = std::min(channels - 1, c + after);
            for (int64_t k = lo; k <= hi; ++k) {
              const T* p = xd + (n * channels + k) * inner;
              for (int64_t i = 0; i < inner; ++i) {
                square_sum[static_cast<size_t>(i)] += static_cast<double>(p[i]) * static_cast<double>(p[i]);
              }
            }
            const T* p = xd + slice * inner;
            T* q = yd + slice * inner;
            for (int64_t i = 0; i < inner; ++i) {
              const double base =
                  bias + alpha / static_cast<double>(size) * square_sum[static_cast<size_t>(i)];
              q[i] = static_cast<T>(static_cast<double>(p[i]) * InversePower(base, beta));
            }
          }
        });
  });
  if (!covered) return ctx.UnsupportedDType(x.dtype());
  ctx.outputs[0] = std::move(y);
  return Status::Ok();
}

// ---- MeanVarianceNormalization -----------------------------------------------------------
// y = (x - mean) / (sqrt(var) + 1e-9) over `axes` (default [0, 2, 3]); the 1e-9 comes from the
// ONNX function body. Statistics of a general axes set are gathered by walking x once per
// pass with the index of each element's statistics slot.
Status MvnKernel(KernelContext& ctx) {
  if (HasHalfInput(ctx)) return RunInFloat32(ctx, &MvnKernel);
  const Tensor& x = ctx.input(0);
  const int64_t rank = x.rank();
  const std::vector<int64_t> axes = ctx.node.GetInts("axes", {0, 2, 3});
  std::vector<bool> reduced(static_cast<size_t>(rank), false);
  NPUGAP_RETURN_IF_ERROR(MarkReducedAxes(ctx, axes, rank, reduced));
  Shape stat_shape = x.shape();
  int64_t count = 1;
  for (int64_t d = 0; d < rank; ++d) {
    if (reduced[static_cast<size_t>(d)]) {
      count *= stat_shape[static_cast<size_t>(d)];
      stat_shape[static_cast<size_t>(d)] = 1;
    }
  }
  const std::vector<int64_t> stat_strides = BroadcastStrides(stat_shape, x.shape());
  const int64_t stat_count = DimProduct(stat_shape, 0, rank);
  const int64_t row_len = rank == 0 ? 1 : x.dim(rank - 1);
  const int64_t row_stride = rank == 0 ? 0 : stat_strides.back();
  const int64_t rows = row_len == 0 ? 0 : x.numel() / row_len;
  // Statistics slot of the first element of each row.
  auto row_slot = [&](int64_t row) {
    int64_t slot = 0;
    for (int64_t d = rank - 1; d-- > 0;) {
      slot += (row % x.dim(d)) * stat_strides[static_cast<size_t>(d)];
      row /= x.dim(d);
    }
    return slot;
  };
  NPUGAP_ASSIGN_OR_RETURN(Tensor y, Tensor::Create(x.dtype(), x.shape()));
  const bool covered = DispatchFloat(x.dtype(), [&]<typename T>() {
    const T* xd = x.data<T>();
    T* yd = y.data<T>();
    std::vector<double> mean(static_cast<size_t>(stat_count), 0.0);
    std::vector<double> scale(static_cast<size_t>(stat_count), 0.0);
    // row_stride == 0: the last axis is reduced, so a whole row feeds one statistics slot.
    for (int64_t row = 0; row < rows; ++row) {
      const int64_t slot = row_slot(row);
      const T* p = xd + row * row_len;
      if (row_stride == 0) {
        mean[static_cast<size_t>(slot)] += RowSum(p, row_len);
      } else {
        double* m = mean.data() + slot;
        for (int64_t i = 0; i < row_len; ++i) m[i * row_stride] += static_cast<double>(p[i]);
      }
    }
    for (double& m : mean) m /= static_cast<double>(count);
    for (int64_t row = 0; row < rows; ++row) {
      const int64_t slot = row_slot(row);
      const T* p = xd + row * row_len;
      if (row_stride == 0) {
        scale[static_cast<size_t>(slot)] += SquaredDeviationSum(p, row_len, mean[static_cast<size_t>(slot)]);
      } else {
        for (int64_t i = 0; i < row_len; ++i) {
          const size_t k = static_cast<size_t>(slot + i * row_stride);
          const double d = static_cast<double>(p[i]) - mean[k];
          scale[k] += d * d;
        }
      }
    }
    for (double& v : scale) v = 1.0 / (std::sqrt(v / static_cast<double>(count)) + 1e-9);
    ParallelFor(rows, std::max<int64_t>(1, kGrainElements / std::max<int64_t>(row_len, 1)),
                [&](int64_t begin, int64_t end) {
                  for (int64_t row = begin; row < end; ++row) {
                    const int64_t slot = row_slot(row);
                    const T* p = xd + row * row_len;
                    T* q = yd + row * row_len;
                    for (int64_t i = 0; i < row_len; ++i) {
                      const size_t k = static_cast<size_t>(slot + i * row_stride);
                      q[i] = static_cast<T>((static_cast<double>(p[i]) - mean[k]) * scale[k]);
                    }
                  }
                });
  });
  if (!covered) return ctx.UnsupportedDType(x.dtype());
  ctx.outputs[0] = std::move(y);
  return Status::Ok();
}

constexpr OpRow kNormalizationRows[] = {
    {"", "BatchNormalization", 1, 17, &BatchNormKernel, &support::kVectorFloat},
    {"", "InstanceNormalization", 1, 17, &InstanceNormKernel, &support::kVectorFloat},
    // Opsets before 17: ONNX Runtime's contrib LayerNormalization, registered under the same
    // name in the default domain (its transformer optimizer emits it), has the same meaning.
    {"", "LayerNormalization", 1, 17, &LayerNormKernel, &support::kVectorFloat},
    {"", "LpNormalization", 1, 17, &LpNormKernel, &support::kVectorFloat},
    {"", "LRN", 1, 17, &LrnKernel, &support::kVectorFloat},
    {"", "MeanVarianceNormalization", 9, 17, &MvnKernel, &support::kVectorFloat},
};

}  // namespace

std::span<const OpRow> NormalizationOps() {
  static const std::vector<OpRow> rows = JoinRows(kNormalizationRows, reduction_internal::LossOps());
  return rows;
}

}  // namespace npugap::exec
