// Recurrent op family: RNN, GRU and LSTM (one layer, forward / reverse / bidirectional).
//
// Shared plan for every cell: the input projection X * W^T (+ biases) of all time steps is one
// GEMM per direction; each time step then does one GEMM H(t-1) * R^T over the whole batch and
// the gate arithmetic per batch row. With sequence_lens, a batch row stops after its length:
// its Y rows past the end stay zero and Y_h / Y_c hold its last computed state; in reverse
// direction row b starts at its own last step len(b)-1. A row of length 0 reports zero states.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "linalg_internal.h"
#include "npugap/exec/dispatch.h"
#include "npugap/exec/op_table.h"
#include "npugap/exec/parallel.h"

namespace npugap::exec {
namespace {

using linalg_internal::Gemm;

enum class CellKind { kRnn, kGru, kLstm };

enum class ActKind {
  kRelu,
  kTanh,
  kSigmoid,
  kAffine,
  kLeakyRelu,
  kThresholdedRelu,
  kScaledTanh,
  kHardSigmoid,
  kElu,
  kSoftsign,
  kSoftplus
};

struct Activation {
  ActKind kind = ActKind::kTanh;
  float alpha = 0.f;
  float beta = 0.f;
};

struct ActivationInfo {
  const char* name;
  ActKind kind;
  bool uses_alpha;
  bool uses_beta;
  float default_alpha;
  float default_beta;
};

// Defaults are those of the ONNX operators of the same name.
constexpr ActivationInfo kActivations[] = {
    {"relu", ActKind::kRelu, false, false, 0.f, 0.f},
    {"tanh", ActKind::kTanh, false, false, 0.f, 0.f},
    {"sigmoid", ActKind::kSigmoid, false, false, 0.f, 0.f},
    {"affine", ActKind::kAffine, true, true, 1.f, 0.f},
    {"leakyrelu", ActKind::kLeakyRelu, true, false, 0.01f, 0.f},
    {"thresholdedrelu", ActKind::kThresholdedRelu, true, false, 1.f, 0.f},
    {"scaledtanh", ActKind::kScaledTanh, true, true, 1.f, 1.f},
    {"hardsigmoid", ActKind::kHardSigmoid, true, true, 0.2f, 0.5f},
    {"elu", ActKind::kElu, true, false, 1.f, 0.f},
    {"softsign", ActKind::kSoftsign, false, false, 0.f, 0.f},
    {"softplus", ActKind::kSoftplus, false, false, 0.f, 0.f},
};

// Applies the activation to n contiguous values in place (the switch is outside the loops).
template <typename T>
void ApplyActivation(const Activation& act, T* x, int64_t n) {
  const T alpha = static_cast<T>(act.alpha), beta = static_cast<T>(act.beta);
  switch (act.kind) {
    case ActKind::kRelu:
      for (int64_t i = 0; i < n; ++i) x[i] = std::max(x[i], T(0));
      break;
    case ActKind::kTanh:
      for (int64_t i = 0; i < n; ++i) x[i] = std::tanh(x[i]);
      break;
    case ActKind::kSigmoid:
      // Written so that exp never overflows.
      for (int64_t i = 0; i < n; ++i) {
        const T e = std::exp(-std::abs(x[i]));
        x[i] = x[i] >= 0 ? T(1) / (T(1) + e) : e / (T(1) + e);
      }
      break;
    case ActKind::kAffine:
      for (int64_t i = 0; i < n; ++i) x[i] = alpha * x[i] + beta;
      break;
    case ActKind::kLeakyRelu:
      for (int64_t i = 0; i < n; ++i) x[i] = x[i] >= 0 ? x[i] : alpha * x[i];
      break;
    case ActKind::kThresholdedRelu:
      for (int64_t i = 0; i < n; ++i) x[i] = x[i] > alpha ? x[i] : T(0);
      break;
    case ActKind::kScaledTanh:
      for (int64_t i = 0; i < n; ++i) x[i] = alpha * std::tanh(beta * x[i]);
      break;
    case ActKind::kHardSigmoid:
      for (int64_t i = 0; i < n; ++i) x[i] = std::clamp(alpha * x[i] + beta, T(0), T(1));
      break;
    case ActKind::kElu:
      for (int64_t i = 0; i < n; ++i) x[i] = x[i] >= 0 ? x[i] : alpha * (std::exp(x[i]) - T(1));
      break;
    case ActKind::kSoftsign:
      for (int64_t i = 0; i < n; ++i) x[i] = x[i] / (T(1) + std::abs(x[i]));
      break;
    case ActKind::kSoftplus:
      for (int64_t i = 0; i < n; ++i)
        x[i] = x[i] > 0 ? x[i] + std::log1p(std::exp(-x[i])) : std::log1p(std::exp(x[i]));
      break;
  }
}

struct RnnConfig {
  CellKind kind = CellKind::kRnn;
  int64_t gates = 1;  // 1 (RNN), 3 (GRU: z r h), 4 (LSTM: i o f c)
  int64_t seq = 0, batch = 0, input = 0, hidden = 0, dirs = 1;
  bool reverse_only = false;  // direction == "reverse"
  bool batch_major = false;   // layout == 1
  bool has_clip = false;
  float clip = 0.f;
  bool linear_before_reset = false;  // GRU
  bool input_forget = false;         // LSTM
  std::vector<Activation> acts;      // acts_per_dir entries per direction
  int64_t acts_per_dir = 1;
};

Status ParseActivations(const KernelContext& ctx, RnnConfig& cfg) {
  std::vector<std::string> names;
  switch (cfg.kind) {
    case CellKind::kRnn:
      names = {"Tanh"};
      break;
    case CellKind::kGru:
      names = {"Sigmoid", "Tanh"};
      break;
    case CellKind::kLstm:
      names = {"Sigmoid", "Tanh", "Tanh"};
      break;
  }
  cfg.acts_per_dir = static_cast<int64_t>(names.size());
  const ir::Attribute* attr = ctx.node.FindAttribute("activations");
  if (attr != nullptr && !attr->strings.empty()) {
    names = attr->strings;
    // A list for one direction is accepted for both directions of a bidirectional cell.
    if (static_cast<int64_t>(names.size()) == cfg.acts_per_dir && cfg.dirs == 2) {
      names.insert(names.end(), attr->strings.begin(), attr->strings.end());
    }
  } else {
    const std::vector<std::string> one = names;
    for (int64_t d = 1; d < cfg.dirs; ++d) names.insert(names.end(), one.begin(), one.end());
  }
  if (static_cast<int64_t>(names.size()) != cfg.acts_per_dir * cfg.dirs) {
    return ctx.Error(
        fmt::format("expected {} activations, got {}", cfg.acts_per_dir * cfg.dirs, names.size()));
  }
  // activation_alpha / activation_beta are consumed in order by the activations that use them.
  const std::vector<float> alphas = ctx.node.GetFloats("activation_alpha");
  const std::vector<float> betas = ctx.node.GetFloats("activation_beta");
  size_t next_alpha = 0, next_beta = 0;
  for (const std::string& name : names) {
    std::string lower = name;
    std::transform(lower.begin(), lower.end(), lower.begin(),
                   [](unsigned char c) { return std::tolower(c); });
    const ActivationInfo* info = nullptr;
    for (const ActivationInfo& candidate : kActivations) {
      if (lower == candidate.name) info = &candidate;
    }
    if (info == nullptr) return ctx.Error(fmt::format("unknown activation '{}'", name));
    Activation act{info->kind, info->default_alpha, info->default_beta};
    if (info->uses_alpha && next_alpha < alphas.size()) act.alpha = alphas[next_alpha++];
    if (info->uses_beta && next_beta < betas.size()) act.beta = betas[next_beta++];
    cfg.acts.push_back(act);
  }
  return Status::Ok();
}

Status CheckShape(const KernelContext& ctx, size_t index, const char* name, const Shape& expected) {
  if (!ctx.has_input(index)) return Status::Ok();
  if (ctx.input(index).shape() != expected) {
    return ctx.Error(fmt::format("{} must have shape {}, got {}", name, ir::ShapeToString(expected),
                                 ir::ShapeToString(ctx.input(index).shape())));
  }
  if (index != 4 && ctx.input(index).dtype() != ctx.input(0).dtype()) {
    return ctx.Error(fmt::format("{} has a different element type than X", name));
  }
  return Status::Ok();
}

Expected<RnnConfig> MakeConfig(const KernelContext& ctx, CellKind kind) {
  RnnConfig cfg;
  cfg.kind = kind;
  cfg.gates = kind == CellKind::kRnn ? 1 : kind == CellKind::kGru ? 3 : 4;
  if (ctx.num_inputs() < 3 || !ctx.has_input(0) || !ctx.has_input(1) || !ctx.has_input(2)) {
    return ctx.Error("X, W and R are required");
  }
  const std::string direction = ctx.node.GetString("direction", "forward");
  if (direction == "bidirectional") {
    cfg.dirs = 2;
  } else if (direction == "reverse") {
    cfg.reverse_only = true;
  } else if (direction != "forward") {
    return ctx.Error(fmt::format("unknown direction '{}'", direction));
  }
  cfg.batch_major = ctx.opset >= 14 && ctx.node.GetInt("layout", 0) != 0;
  const Tensor& x = ctx.input(0);
  const Tensor& r = ctx.input(2);
  if (x.rank() != 3)
    return ctx.Error(fmt::format("X must have rank 3, got {}", ir::ShapeToString(x.shape())));
  cfg.seq = x.dim(cfg.batch_major ? 1 : 0);
  cfg.batch = x.dim(cfg.batch_major ? 0 : 1);
  cfg.input = x.dim(2);
  if (r.rank() != 3)
    return ctx.Error(fmt::format("R must have rank 3, got {}", ir::ShapeToString(r.shape())));
  cfg.hidden = ctx.node.GetInt("hidden_size", r.dim(2));
  if (cfg.hidden <= 0) return ctx.Error(fmt::format("hidden_size must be positive, got {}", cfg.hidden));
  const int64_t g = cfg.gates, h = cfg.hidden, dirs = cfg.dirs;
  NPUGAP_RETURN_IF_ERROR(CheckShape(ctx, 1, "W", {dirs, g * h, cfg.input}));
  NPUGAP_RETURN_IF_ERROR(CheckShape(ctx, 2, "R", {dirs, g * h, h}));
  NPUGAP_RETURN_IF_ERROR(CheckShape(ctx, 3, "B", {dirs, 2 * g * h}));
  NPUGAP_RETURN_IF_ERROR(CheckShape(ctx, 4, "sequence_lens", {cfg.batch}));
  const Shape state = cfg.batch_major ? Shape{cfg.batch, dirs, h} : Shape{dirs, cfg.batch, h};
  NPUGAP_RETURN_IF_ERROR(CheckShape(ctx, 5, "initial_h", state));
  if (kind == CellKind::kLstm) {
    NPUGAP_RETURN_IF_ERROR(CheckShape(ctx, 6, "initial_c", state));
    NPUGAP_RETURN_IF_ERROR(CheckShape(ctx, 7, "P", {dirs, 3 * h}));
    cfg.input_forget = ctx.node.GetInt("input_forget", 0) != 0;
  }
  if (ctx.has_input(4)) {
    const Tensor& lens = ctx.input(4);
    if (lens.dtype() != DType::kInt32 && lens.dtype() != DType::kInt64)
      return ctx.UnsupportedDType(lens.dtype());
    for (int64_t b = 0; b < cfg.batch; ++b) {
      const int64_t len = lens.dtype() == DType::kInt32 ? lens.data<int32_t>()[b] : lens.data<int64_t>()[b];
      if (len < 0 || len > cfg.seq) {
        return ctx.Error(fmt::format("sequence_lens[{}] = {} is outside [0, {}]", b, len, cfg.seq));
      }
    }
  }
  if (const ir::Attribute* clip = ctx.node.FindAttribute("clip")) {
    cfg.has_clip = true;
    cfg.clip = clip->f;
    if (!(cfg.clip > 0.f)) return ctx.Error(fmt::format("clip must be positive, got {}", cfg.clip));
  }
  cfg.linear_before_reset = kind == CellKind::kGru && ctx.node.GetInt("linear_before_reset", 0) != 0;
  NPUGAP_RETURN_IF_ERROR(ParseActivations(ctx, cfg));
  return cfg;
}

template <typename T>
void Clip(const RnnConfig& cfg, T* x, int64_t n) {
  if (!cfg.has_clip) return;
  const T c = static_cast<T>(cfg.clip);
  for (int64_t i = 0; i < n; ++i) x[i] = std::clamp(x[i], -c, c);
}

// Clip then activate: `clip` bounds the gate pre-activations (LSTM's h(Ct) is not clipped).
template <typename T>
void Activate(const RnnConfig& cfg, const Activation& act, T* x, int64_t n) {
  Clip(cfg, x, n);
  ApplyActivation(act, x, n);
}

template <typename T>
class RecurrentRunner {
 public:
  RecurrentRunner(const KernelContext& ctx, const RnnConfig& cfg) : ctx_(ctx), cfg_(cfg) {}

  void Run(T* y, T* y_h, T* y_c) {
    const int64_t b_count = cfg_.batch, h = cfg_.hidden;
    lens_.assign(static_cast<size_t>(b_count), cfg_.seq);
    if (ctx_.has_input(4)) {
      const Tensor& lens = ctx_.input(4);
      for (int64_t b = 0; b < b_count; ++b) {
        lens_[static_cast<size_t>(b)] =
            lens.dtype() == DType::kInt32 ? lens.data<int32_t>()[b] : lens.data<int64_t>()[b];
      }
    }
    for (int64_t d = 0; d < cfg_.dirs; ++d) {
      RunDirection(d, cfg_.reverse_only || d == 1, y);
      // Final states; a row with length 0 never ran and reports zeros.
      for (int64_t b = 0; b < b_count; ++b) {
        const int64_t at = cfg_.batch_major ? (b * cfg_.dirs + d) * h : (d * b_count + b) * h;
        const bool ran = lens_[static_cast<size_t>(b)] > 0;
        for (int64_t j = 0; j < h; ++j) {
          if (y_h) y_h[at + j] = ran ? h_prev_[static_cast<size_t>(b * h + j)] : T(0);
          if (y_c) y_c[at + j] = ran ? c_prev_[static_cast<size_t>(b * h + j)] : T(0);
        }
      }
    }
  }

 private:
  const T* OptionalInput(size_t i) const {
    return ctx_.has_input(i) ? ctx_.input(i).template data<T>() : nullptr;
  }

  void LoadState(size_t input, int64_t d, std::vector<T>& state) const {
    const int64_t b_count = cfg_.batch, h = cfg_.hidden;
    state.assign(static_cast<size_t>(b_count * h), T(0));
    const T* init = OptionalInput(input);
    if (init == nullptr) return;
    for (int64_t b = 0; b < b_count; ++b) {
      const int64_t at = cfg_.batch_major ? (b * cfg_.dirs + d) * h : (d * b_count + b) * h;
      std::copy(init + at, init + at + h, state.begin() + b * h);
    }
  }

  void RunDirection(int64_t d, bool reverse, T* y) {
    const int64_t seq = cfg_.seq, b_count = cfg_.batch, h = cfg_.hidden, gh = cfg_.gates * h;
    const T* x = ctx_.input(0).template data<T>();
    const T* w = ctx_.input(1).template data<T>() + d * gh * cfg_.input;
    const T* r = ctx_.input(2).template data<T>() + d * gh * h;
    const T* bias = OptionalInput(3) ? OptionalInput(3) + d * 2 * gh : nullptr;
    peep_ = OptionalInput(7) && cfg_.kind == CellKind::kLstm ? OptionalInput(7) + d * 3 * h : nullptr;
    acts_ = &cfg_.acts[static_cast<size_t>(d * cfg_.acts_per_dir)];

    // Input projection of every (time, batch) row, in X's own row order, plus Wb + Rb. GRU's Rbh
    // stays separate because with linear_before_reset it is scaled by the reset gate.
    xw_.resize(static_cast<size_t>(seq * b_count * gh));
    Gemm<T>(false, true, seq * b_count, gh, cfg_.input, x, cfg_.input, w, cfg_.input, T(0), xw_.data(), gh);
    rbh_ = nullptr;
    if (bias != nullptr) {
      std::vector<T> combined(static_cast<size_t>(gh));
      for (int64_t j = 0; j < gh; ++j) combined[static_cast<size_t>(j)] = bias[j] + bias[gh + j];
      if (cfg_.kind == CellKind::kGru) {
        for (int64_t j = 2 * h; j < gh; ++j) combined[static_cast<size_t>(j)] = bias[j];
        rbh_ = bias + gh + 2 * h;
      }
      ParallelFor(seq * b_count, std::max<int64_t>(1, 8192 / gh), [&](int64_t begin, int64_t end) {
        for (int64_t row = begin; row < end; ++row) {
          T* p = xw_.data() + row * gh;
          for (int64_t j = 0; j < gh; ++j) p[j] += combined[static_cast<size_t>(j)];
        }
      });
    }

    LoadState(5, d, h_prev_);
    if (cfg_.kind == CellKind::kLstm) LoadState(6, d, c_prev_);
    hr_.resize(static_cast<size_t>(b_count * gh));
    if (cfg_.kind == CellKind::kGru && !cfg_.linear_before_reset) {
      rh_.assign(static_cast<size_t>(b_count * h), T(0));
      hh_.resize(static_cast<size_t>(b_count * h));
    }
    const int64_t grain = std::max<int64_t>(1, 4096 / gh);

    for (int64_t step = 0; step < seq; ++step) {
      // Recurrent projection of the whole batch (GRU default mode: only the z and r gates here).
      const int64_t cols = cfg_.kind == CellKind::kGru && !cfg_.linear_before_reset ? 2 * h : gh;
      Gemm<T>(false, true, b_count, cols, h, h_prev_.data(), h, r, h, T(0), hr_.data(), gh);
      auto xw_row = [&](int64_t b) {
        const int64_t len = lens_[static_cast<size_t>(b)];
        const int64_t t = reverse ? len - 1 - step : step;
        return std::pair<int64_t, const T*>(
            t, xw_.data() + (cfg_.batch_major ? b * seq + t : t * b_count + b) * gh);
      };
      auto active = [&](int64_t b) { return step < lens_[static_cast<size_t>(b)]; };

      if (cfg_.kind == CellKind::kGru && !cfg_.linear_before_reset) {
        ParallelFor(b_count, grain, [&](int64_t begin, int64_t end) {
          for (int64_t b = begin; b < end; ++b) {
            if (!active(b)) continue;
            T* g = hr_.data() + b * gh;
            const T* xr = xw_row(b).second;
            for (int64_t j = 0; j < 2 * h; ++j) g[j] += xr[j];
            Activate(cfg_, acts_[0], g, 2 * h);  // z and r
            const T* hp = h_prev_.data() + b * h;
            for (int64_t j = 0; j < h; ++j) rh_[static_cast<size_t>(b * h + j)] = g[h + j] * hp[j];
          }
        });
        Gemm<T>(false, true, b_count, h, h, rh_.data(), h, r + 2 * h * h, h, T(0), hh_.data(), h);
      }
      ParallelFor(b_count, grain, [&](int64_t begin, int64_t end) {
        for (int64_t b = begin; b < end; ++b) {
          if (!active(b)) continue;
          const auto [t, xr] = xw_row(b);
          T* hp = h_prev_.data() + b * h;
          T* g = hr_.data() + b * gh;
          switch (cfg_.kind) {
            case CellKind::kRnn:
              StepRnn(xr, g, hp);
              break;
            case CellKind::kGru:
              StepGru(b, xr, g, hp);
              break;
            case CellKind::kLstm:
              StepLstm(xr, g, hp, c_prev_.data() + b * h);
              break;
          }
          if (y != nullptr) {
            const int64_t at = cfg_.batch_major ? ((b * seq + t) * cfg_.dirs + d) * h
                                                : ((t * cfg_.dirs + d) * b_count + b) * h;
            std::copy(hp, hp + h, y + at);
          }
        }
      });
    }
  }

  // Ht = f(Xt*W^T + Ht-1*R^T + Wb + Rb)
  void StepRnn(const T* xr, T* g, T* hp) const {
    const int64_t h = cfg_.hidden;
    for (int64_t j = 0; j < h; ++j) g[j] += xr[j];
    Activate(cfg_, acts_[0], g, h);
    std::copy(g, g + h, hp);
  }

  // zt, rt = f(...); ht = g(Xt*Wh^T + (rt.Ht-1)*Rh^T + Rbh + Wbh) or, with linear_before_reset,
  // g(Xt*Wh^T + rt.(Ht-1*Rh^T + Rbh) + Wbh); Ht = (1-zt).ht + zt.Ht-1.
  void StepGru(int64_t b, const T* xr, T* g, T* hp) const {
    const int64_t h = cfg_.hidden;
    T* z = g;
    T* r = g + h;
    T* hg = g + 2 * h;
    if (cfg_.linear_before_reset) {
      for (int64_t j = 0; j < 2 * h; ++j) g[j] += xr[j];
      Activate(cfg_, acts_[0], g, 2 * h);
      for (int64_t j = 0; j < h; ++j) hg[j] = xr[2 * h + j] + r[j] * (hg[j] + (rbh_ ? rbh_[j] : T(0)));
    } else {
      // z and r were activated before the second GEMM; hh_ holds (rt.Ht-1)*Rh^T.
      const T* hh = hh_.data() + b * h;
      for (int64_t j = 0; j < h; ++j) hg[j] = xr[2 * h + j] + hh[j] + (rbh_ ? rbh_[j] : T(0));
    }
    Activate(cfg_, acts_[1], hg, h);
    for (int64_t j = 0; j < h; ++j) hp[j] = (T(1) - z[j]) * hg[j] + z[j] * hp[j];
  }

  // Gates in W/R/B order i, o, f, c; peepholes P in order i, o, f.
  void StepLstm(const T* xr, T* g, T* hp, T* cp) const {
    const int64_t h = cfg_.hidden;
    T* gi = g;
    T* go = g + h;
    T* gf = g + 2 * h;
    T* gc = g + 3 * h;
    for (int64_t j = 0; j < 4 * h; ++j) g[j] += xr[j];
    if (peep_ != nullptr) {
      for (int64_t j = 0; j < h; ++j) {
        gi[j] += peep_[j] * cp[j];
        gf[j] += peep_[2 * h + j] * cp[j];
      }
    }
    Activate(cfg_, acts_[0], gi, h);
    if (cfg_.input_forget) {
      for (int64_t j = 0; j < h; ++j) gf[j] = T(1) - gi[j];  // coupled input and forget gates
    } else {
      Activate(cfg_, acts_[0], gf, h);
    }
    Activate(cfg_, acts_[1], gc, h);
    for (int64_t j = 0; j < h; ++j) cp[j] = gf[j] * cp[j] + gi[j] * gc[j];
    if (peep_ != nullptr) {
      for (int64_t j = 0; j < h; ++j) go[j] += peep_[h + j] * cp[j];
    }
    Activate(cfg_, acts_[0], go, h);
    // h(Ct) goes through the scratch of the cell gate, which is no longer needed.
    std::copy(cp, cp + h, gc);
    ApplyActivation(acts_[2], gc, h);
    for (int64_t j = 0; j < h; ++j) hp[j] = go[j] * gc[j];
  }

  const KernelContext& ctx_;
  const RnnConfig& cfg_;
  std::vector<int64_t> lens_;
  std::vector<T> xw_, hr_, rh_, hh_, h_prev_, c_prev_;
  const T* rbh_ = nullptr;
  const T* peep_ = nullptr;
  const Activation* acts_ = nullptr;
};

Status RunRecurrent(KernelContext& ctx, CellKind kind) {
  NPUGAP_ASSIGN_OR_RETURN(RnnConfig cfg, MakeConfig(ctx, kind));
  const DType dtype = ctx.input(0).dtype();
  if (dtype != DType::kFloat32 && dtype != DType::kFloat64) return ctx.UnsupportedDType(dtype);
  const int64_t h = cfg.hidden, dirs = cfg.dirs;
  const Shape y_shape =
      cfg.batch_major ? Shape{cfg.batch, cfg.seq, dirs, h} : Shape{cfg.seq, dirs, cfg.batch, h};
  const Shape state_shape = cfg.batch_major ? Shape{cfg.batch, dirs, h} : Shape{dirs, cfg.batch, h};
  Tensor y, y_h, y_c;
  // Y starts zeroed: steps past a row's sequence length are never written.
  if (ctx.wants_output(0)) {
    NPUGAP_ASSIGN_OR_RETURN(y, Tensor::Zeros(dtype, y_shape));
  }
  if (ctx.wants_output(1)) {
    NPUGAP_ASSIGN_OR_RETURN(y_h, Tensor::Create(dtype, state_shape));
  }
  if (kind == CellKind::kLstm && ctx.wants_output(2)) {
    NPUGAP_ASSIGN_OR_RETURN(y_c, Tensor::Create(dtype, state_shape));
  }
  DispatchFloat(dtype, [&]<typename T>() {
    auto ptr = [](Tensor& t) { return t.defined() ? t.data<T>() : nullptr; };
    RecurrentRunner<T>(ctx, cfg).Run(ptr(y), ptr(y_h), ptr(y_c));
  });
  if (y.defined()) ctx.outputs[0] = std::move(y);
  if (y_h.defined()) ctx.outputs[1] = std::move(y_h);
  if (y_c.defined()) ctx.outputs[2] = std::move(y_c);
  return Status::Ok();
}

Status RnnKernel(KernelContext& ctx) { return RunRecurrent(ctx, CellKind::kRnn); }
Status GruKernel(KernelContext& ctx) { return RunRecurrent(ctx, CellKind::kGru); }
Status LstmKernel(KernelContext& ctx) { return RunRecurrent(ctx, CellKind::kLstm); }

// One kernel per op covers all versions: layout (opset 14) is only read from opset 14 on, and
// the opset-1 output_sequence attribute does not change which outputs are computed.
constexpr OpRow kRecurrentOps[] = {
    {"", "RNN", 1, 17, RnnKernel, &support::kVectorFloat},
    {"", "GRU", 1, 17, GruKernel, &support::kVectorFloat},
    {"", "LSTM", 1, 17, LstmKernel, &support::kVectorFloat},
};

}  // namespace

std::span<const OpRow> RecurrentOps() { return kRecurrentOps; }

}  // namespace npugap::exec
