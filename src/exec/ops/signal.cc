// Signal op family (opset 17): DFT, STFT, the cosine-sum windows (Hann, Hamming, Blackman) and
// MelWeightMatrix. Transforms are computed in double precision whatever the element type;
// float16 / bfloat16 signals go through float32.
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <numbers>
#include <vector>

#include <fmt/format.h>

#include "npugap/exec/dispatch.h"
#include "npugap/exec/op_table.h"
#include "npugap/exec/parallel.h"
#include "npugap/numerics/half.h"

namespace npugap::exec {
namespace {

using Complex = std::complex<double>;

// ---- FFT --------------------------------------------------------------------------------------

// Plain complex product: std::complex's operator* goes through a slow NaN-recovering libgcc
// call (__muldc3) unless compiled with -fcx-limited-range.
inline Complex Mul(const Complex& a, const Complex& b) {
  return {a.real() * b.real() - a.imag() * b.imag(), a.real() * b.imag() + a.imag() * b.real()};
}

bool IsPowerOfTwo(int64_t n) { return n > 0 && (n & (n - 1)) == 0; }

// e^{-2 pi i k / n}, with the angle reduced exactly in integers first.
Complex Twiddle(int64_t k, int64_t n) {
  const double angle = -2.0 * std::numbers::pi * static_cast<double>(k % n) / static_cast<double>(n);
  return {std::cos(angle), std::sin(angle)};
}

// A forward DFT of one length. Powers of two use an iterative radix-2 FFT; lengths whose prime
// factors are all small use a recursive mixed-radix FFT (decimation in time, one generic
// butterfly per factor); lengths with a large prime factor use Bluestein's chirp-z transform
// through a power-of-two FFT. Twiddles come from one exact table e^{-2 pi i j / n}. Read-only
// after construction, so threads share one plan.
class FftPlan {
 public:
  explicit FftPlan(int64_t n) : n_(n) {
    if (n_ <= 1) return;
    if (IsPowerOfTwo(n_)) {
      InitRadix2(n_);
      return;
    }
    int64_t rest = n_;
    for (int64_t p : {4, 2, 3, 5}) {
      while (rest % p == 0) {
        factors_.push_back(p);
        rest /= p;
      }
    }
    for (int64_t p = 7; p * p <= rest; p += 2) {
      while (rest % p == 0) {
        factors_.push_back(p);
        rest /= p;
      }
    }
    if (rest > 1) factors_.push_back(rest);
    if (*std::max_element(factors_.begin(), factors_.end()) <= kMaxRadix) {
      mixed_twiddles_.resize(static_cast<size_t>(n_));
      for (int64_t j = 0; j < n_; ++j) mixed_twiddles_[static_cast<size_t>(j)] = Twiddle(j, n_);
      return;
    }
    factors_.clear();
    m_ = 1;
    while (m_ < 2 * n_ - 1) m_ <<= 1;
    InitRadix2(m_);
    chirp_.resize(static_cast<size_t>(n_));
    for (int64_t k = 0; k < n_; ++k) {
      // e^{-pi i k^2 / n}; k^2 mod 2n keeps the angle small and exact.
      chirp_[static_cast<size_t>(k)] = Twiddle((k * k) % (2 * n_), 2 * n_);
    }
    chirp_fft_.assign(static_cast<size_t>(m_), Complex(0, 0));
    for (int64_t k = 0; k < n_; ++k) {
      chirp_fft_[static_cast<size_t>(k)] = std::conj(chirp_[static_cast<size_t>(k)]);
      if (k > 0) chirp_fft_[static_cast<size_t>(m_ - k)] = std::conj(chirp_[static_cast<size_t>(k)]);
    }
    Radix2(chirp_fft_.data(), m_);
  }

  // In-place DFT of data[0..n). `work` is per-thread scratch. The inverse is not scaled.
  void Transform(Complex* data, bool inverse, std::vector<Complex>& work) const {
    if (n_ <= 1) return;
    if (inverse) {
      for (int64_t i = 0; i < n_; ++i) data[i] = std::conj(data[i]);  // IDFT(x) = conj(DFT(conj(x)))
    }
    if (IsPowerOfTwo(n_)) {
      Radix2(data, n_);
    } else if (!factors_.empty()) {
      work.assign(data, data + n_);
      MixedRadix(work.data(), data, n_, 1, 0);
    } else {
      Bluestein(data, work);
    }
    if (inverse) {
      for (int64_t i = 0; i < n_; ++i) data[i] = std::conj(data[i]);
    }
  }

 private:
  static constexpr int64_t kMaxRadix = 64;

  void InitRadix2(int64_t n) {
    radix2_twiddles_.resize(static_cast<size_t>(n / 2));
    for (int64_t k = 0; k < n / 2; ++k) radix2_twiddles_[static_cast<size_t>(k)] = Twiddle(k, n);
    bit_reverse_.assign(static_cast<size_t>(n), 0);
    int bits = 0;
    while ((int64_t{1} << bits) < n) ++bits;
    for (int64_t i = 0; i < n; ++i) {
      int64_t r = 0;
      for (int b = 0; b < bits; ++b) r |= ((i >> b) & 1) << (bits - 1 - b);
      bit_reverse_[static_cast<size_t>(i)] = r;
    }
  }

  // Forward radix-2 FFT of length n (a power of two) with this plan's radix-2 tables.
  void Radix2(Complex* a, int64_t n) const {
    for (int64_t i = 0; i < n; ++i) {
      const int64_t r = bit_reverse_[static_cast<size_t>(i)];
      if (i < r) std::swap(a[i], a[r]);
    }
    for (int64_t len = 2; len <= n; len <<= 1) {
      const int64_t half = len / 2, step = n / len;
      for (int64_t i = 0; i < n; i += len) {
        for (int64_t j = 0; j < half; ++j) {
          const Complex v = Mul(a[i + j + half], radix2_twiddles_[static_cast<size_t>(j * step)]);
          a[i + j + half] = a[i + j] - v;
          a[i + j] += v;
        }
      }
    }
  }

  // out[0..len) = DFT of in[0], in[stride], ..., len = n_ / (product of factors before `level`).
  void MixedRadix(const Complex* in, Complex* out, int64_t len, int64_t stride, size_t level) const {
    const int64_t p = factors_[level], m = len / p;
    // Sub-transforms of length 1 are the inputs themselves; otherwise recurse.
    if (m > 1) {
      for (int64_t q = 0; q < p; ++q) MixedRadix(in + q * stride, out + q * m, m, stride * p, level + 1);
    }
    // Combine p sub-transforms of length m: out[k + s m] = sum_q W_len^{q k} W_p^{q s} sub_q[k].
    const int64_t scale = n_ / len;  // W_len^j = W_n^{j * scale}; q * k * scale < n
    const Complex* w = mixed_twiddles_.data();
    Complex t[kMaxRadix];
    for (int64_t k = 0; k < m; ++k) {
      if (m == 1) {
        for (int64_t q = 0; q < p; ++q) t[q] = in[q * stride];
      } else {
        for (int64_t q = 0; q < p; ++q) t[q] = Mul(out[q * m + k], w[q * k * scale]);
      }
      for (int64_t s = 0; s < p; ++s) {
        Complex sum = t[0];
        int64_t index = 0;                  // q * s * (n / p) mod n
        const int64_t step = s * (n_ / p);  // < n
        for (int64_t q = 1; q < p; ++q) {
          index += step;
          if (index >= n_) index -= n_;
          sum += Mul(t[q], w[index]);
        }
        out[k + s * m] = sum;
      }
    }
  }

  void Bluestein(Complex* data, std::vector<Complex>& work) const {
    work.assign(static_cast<size_t>(m_), Complex(0, 0));
    for (int64_t k = 0; k < n_; ++k)
      work[static_cast<size_t>(k)] = Mul(data[k], chirp_[static_cast<size_t>(k)]);
    Radix2(work.data(), m_);
    for (int64_t k = 0; k < m_; ++k) {
      work[static_cast<size_t>(k)] =
          std::conj(Mul(work[static_cast<size_t>(k)], chirp_fft_[static_cast<size_t>(k)]));
    }
    Radix2(work.data(), m_);  // inverse FFT via conjugation
    const double scale = 1.0 / static_cast<double>(m_);
    for (int64_t k = 0; k < n_; ++k) {
      data[k] = Mul(std::conj(work[static_cast<size_t>(k)]) * scale, chirp_[static_cast<size_t>(k)]);
    }
  }

  int64_t n_;
  std::vector<int64_t> factors_;         // mixed radix: prime (or 4) factors of n
  std::vector<Complex> mixed_twiddles_;  // mixed radix: e^{-2 pi i j / n}, j < n
  int64_t m_ = 0;                        // Bluestein: power-of-two convolution length
  std::vector<Complex> radix2_twiddles_;
  std::vector<int64_t> bit_reverse_;
  std::vector<Complex> chirp_, chirp_fft_;
};

// ---- helpers ----------------------------------------------------------------------------------

Expected<int64_t> ReadIntScalar(const KernelContext& ctx, size_t index, const char* name) {
  if (!ctx.has_input(index)) return ctx.Error(fmt::format("input '{}' is required", name));
  const Tensor& t = ctx.input(index);
  if (t.numel() != 1)
    return ctx.Error(fmt::format("'{}' must be a scalar, got shape {}", name, ir::ShapeToString(t.shape())));
  if (t.dtype() == DType::kInt32) return static_cast<int64_t>(t.data<int32_t>()[0]);
  if (t.dtype() == DType::kInt64) return t.data<int64_t>()[0];
  return ctx.UnsupportedDType(t.dtype());
}

Expected<double> ReadFloatScalar(const KernelContext& ctx, size_t index, const char* name) {
  if (!ctx.has_input(index)) return ctx.Error(fmt::format("input '{}' is required", name));
  const Tensor& t = ctx.input(index);
  if (t.numel() != 1)
    return ctx.Error(fmt::format("'{}' must be a scalar, got shape {}", name, ir::ShapeToString(t.shape())));
  switch (t.dtype()) {
    case DType::kFloat32:
      return static_cast<double>(t.data<float>()[0]);
    case DType::kFloat64:
      return t.data<double>()[0];
    case DType::kFloat16:
      return static_cast<double>(numerics::HalfToFloat(t.data<uint16_t>()[0]));
    case DType::kBFloat16:
      return static_cast<double>(numerics::BFloat16ToFloat(t.data<uint16_t>()[0]));
    default:
      return ctx.UnsupportedDType(t.dtype());
  }
}

// A tensor of the numeric type `dtype_code` (an ONNX DataType, from output_datatype) holding
// `values` converted like Cast does.
Expected<Tensor> MakeTypedTensor(const KernelContext& ctx, int64_t dtype_code, Shape shape,
                                 const std::vector<double>& values) {
  if (!ir::IsKnownDType(static_cast<int32_t>(dtype_code))) {
    return ctx.Error(fmt::format("output_datatype {} is not a known data type", dtype_code));
  }
  const auto dtype = static_cast<DType>(dtype_code);
  if (dtype == DType::kFloat16 || dtype == DType::kBFloat16) {
    NPUGAP_ASSIGN_OR_RETURN(Tensor t, Tensor::Create(dtype, std::move(shape)));
    uint16_t* out = t.data<uint16_t>();
    for (size_t i = 0; i < values.size(); ++i) {
      const auto f = static_cast<float>(values[i]);
      out[i] = dtype == DType::kFloat16 ? numerics::FloatToHalf(f) : numerics::FloatToBFloat16(f);
    }
    return t;
  }
  if (dtype == DType::kBool || dtype == DType::kString || ir::DTypeSize(dtype) == 0 ||
      dtype == DType::kComplex64 || dtype == DType::kComplex128) {
    return ctx.UnsupportedDType(dtype);
  }
  NPUGAP_ASSIGN_OR_RETURN(Tensor t, Tensor::Create(dtype, std::move(shape)));
  DispatchNumeric(dtype, [&]<typename T>() {
    T* out = t.data<T>();
    for (size_t i = 0; i < values.size(); ++i) out[i] = static_cast<T>(values[i]);
  });
  return t;
}

// float16 / bfloat16 signals are widened to float32 and the result narrowed back.
Tensor WidenToFloat32(const Tensor& t) {
  if (t.dtype() != DType::kFloat16 && t.dtype() != DType::kBFloat16) return t;
  Tensor out = Tensor::Empty(DType::kFloat32, t.shape());
  const uint16_t* in = t.data<uint16_t>();
  for (int64_t i = 0; i < t.numel(); ++i) {
    out.data<float>()[i] =
        t.dtype() == DType::kFloat16 ? numerics::HalfToFloat(in[i]) : numerics::BFloat16ToFloat(in[i]);
  }
  return out;
}

Tensor NarrowFromFloat32(const Tensor& t, DType dtype) {
  if (dtype != DType::kFloat16 && dtype != DType::kBFloat16) return t;
  Tensor out = Tensor::Empty(dtype, t.shape());
  for (int64_t i = 0; i < t.numel(); ++i) {
    const float f = t.data<float>()[i];
    out.data<uint16_t>()[i] =
        dtype == DType::kFloat16 ? numerics::FloatToHalf(f) : numerics::FloatToBFloat16(f);
  }
  return out;
}

bool IsSignalType(DType t) {
  return t == DType::kFloat32 || t == DType::kFloat64 || t == DType::kFloat16 || t == DType::kBFloat16;
}

// ---- DFT --------------------------------------------------------------------------------------

// DFT-17. Input [batch, d1..dN, 1 (real) | 2 (complex)], transform along `axis` (counted on the
// input rank, so it must not be the last dim). dft_length zero-pads or truncates the signal;
// onesided keeps bins 0..n/2; inverse scales by 1/n. onesided with complex input keeps the
// first n/2+1 bins of the full transform.
Status DftKernel(KernelContext& ctx) {
  const Tensor& x_in = ctx.input(0);
  if (!IsSignalType(x_in.dtype())) return ctx.UnsupportedDType(x_in.dtype());
  const int64_t rank = x_in.rank();
  if (rank < 2 || (x_in.dim(rank - 1) != 1 && x_in.dim(rank - 1) != 2)) {
    return ctx.Error(fmt::format("input must be [batch, signal dims..., 1 or 2], got {}",
                                 ir::ShapeToString(x_in.shape())));
  }
  int64_t axis = ctx.node.GetInt("axis", 1);
  if (axis < 0) axis += rank;
  if (axis < 0 || axis >= rank - 1) {
    return ctx.Error(fmt::format("axis {} is invalid for input rank {}", ctx.node.GetInt("axis", 1), rank));
  }
  const bool onesided = ctx.node.GetInt("onesided", 0) != 0;
  const bool inverse = ctx.node.GetInt("inverse", 0) != 0;
  if (onesided && inverse) return ctx.Error("onesided and inverse cannot both be set");
  const int64_t n_in = x_in.dim(axis);
  int64_t n = n_in;
  if (ctx.has_input(1)) {
    NPUGAP_ASSIGN_OR_RETURN(n, ReadIntScalar(ctx, 1, "dft_length"));
    if (n <= 0) return ctx.Error(fmt::format("dft_length must be positive, got {}", n));
  }
  const int64_t out_n = onesided ? n / 2 + 1 : n;
  Shape out_shape = x_in.shape();
  out_shape[static_cast<size_t>(axis)] = n == 0 ? 0 : out_n;
  out_shape.back() = 2;
  const Tensor x = WidenToFloat32(x_in);
  NPUGAP_ASSIGN_OR_RETURN(Tensor y, Tensor::Create(x.dtype(), out_shape));
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < axis; ++d) outer *= x.dim(d);
  for (int64_t d = axis + 1; d < rank - 1; ++d) inner *= x.dim(d);
  const int64_t comps = x.dim(rank - 1);
  const FftPlan plan(n);
  const double scale = inverse && n > 0 ? 1.0 / static_cast<double>(n) : 1.0;
  const int64_t copy_n = std::min(n, n_in);
  DispatchFloat(x.dtype(), [&]<typename T>() {
    const T* in = x.data<T>();
    T* out = y.data<T>();
    ParallelFor(outer * inner, std::max<int64_t>(1, 4096 / std::max<int64_t>(n, 1)),
                [&](int64_t begin, int64_t end) {
                  std::vector<Complex> line(static_cast<size_t>(n)), work;
                  for (int64_t l = begin; l < end; ++l) {
                    const int64_t o = l / inner, i = l % inner;
                    const T* src = in + (o * n_in * inner + i) * comps;
                    for (int64_t j = 0; j < copy_n; ++j) {
                      const T* p = src + j * inner * comps;
                      line[static_cast<size_t>(j)] =
                          Complex(static_cast<double>(p[0]), comps == 2 ? static_cast<double>(p[1]) : 0.0);
                    }
                    std::fill(line.begin() + copy_n, line.end(), Complex(0, 0));
                    plan.Transform(line.data(), inverse, work);
                    T* dst = out + (o * out_n * inner + i) * 2;
                    for (int64_t k = 0; k < out_n && n > 0; ++k) {
                      dst[k * inner * 2] = static_cast<T>(line[static_cast<size_t>(k)].real() * scale);
                      dst[k * inner * 2 + 1] = static_cast<T>(line[static_cast<size_t>(k)].imag() * scale);
                    }
                  }
                });
  });
  ctx.outputs[0] = NarrowFromFloat32(y, x_in.dtype());
  return Status::Ok();
}

// ---- STFT -------------------------------------------------------------------------------------

// STFT-17. signal [batch, length, 1|2] (or [batch, length], real). The DFT size is frame_length,
// else the window length; frames = (length - size) / frame_step + 1. Output
// [batch, frames, bins, 2] with bins = size/2+1 when onesided (the default).
Status StftKernel(KernelContext& ctx) {
  const Tensor& s_in = ctx.input(0);
  if (!IsSignalType(s_in.dtype())) return ctx.UnsupportedDType(s_in.dtype());
  if (!(s_in.rank() == 2 || (s_in.rank() == 3 && (s_in.dim(2) == 1 || s_in.dim(2) == 2)))) {
    return ctx.Error(
        fmt::format("signal must be [batch, length, 1 or 2], got {}", ir::ShapeToString(s_in.shape())));
  }
  NPUGAP_ASSIGN_OR_RETURN(const int64_t step, ReadIntScalar(ctx, 1, "frame_step"));
  if (step <= 0) return ctx.Error(fmt::format("frame_step must be positive, got {}", step));
  int64_t size = -1;
  if (ctx.has_input(3)) {
    NPUGAP_ASSIGN_OR_RETURN(size, ReadIntScalar(ctx, 3, "frame_length"));
    if (size <= 0) return ctx.Error(fmt::format("frame_length must be positive, got {}", size));
  }
  Tensor window;
  if (ctx.has_input(2)) {
    const Tensor& w = ctx.input(2);
    if (w.rank() != 1)
      return ctx.Error(fmt::format("window must be 1-D, got {}", ir::ShapeToString(w.shape())));
    if (w.dtype() != s_in.dtype()) return ctx.Error("window and signal have different element types");
    if (size >= 0 && w.dim(0) != size) {
      return ctx.Error(fmt::format("window length {} differs from frame_length {}", w.dim(0), size));
    }
    size = w.dim(0);
    window = WidenToFloat32(w);
  }
  if (size <= 0) return ctx.Error("STFT needs frame_length or a non-empty window");
  const bool onesided = ctx.node.GetInt("onesided", 1) != 0;
  const int64_t batch = s_in.dim(0), length = s_in.dim(1);
  const int64_t comps = s_in.rank() == 3 ? s_in.dim(2) : 1;
  if (length < size)
    return ctx.Error(fmt::format("signal length {} is shorter than the frame {}", length, size));
  const int64_t frames = (length - size) / step + 1;
  const int64_t bins = onesided ? size / 2 + 1 : size;
  const Tensor signal = WidenToFloat32(s_in);
  NPUGAP_ASSIGN_OR_RETURN(Tensor y, Tensor::Create(signal.dtype(), {batch, frames, bins, 2}));
  const FftPlan plan(size);
  DispatchFloat(signal.dtype(), [&]<typename T>() {
    const T* in = signal.data<T>();
    const T* win = window.defined() ? window.data<T>() : nullptr;
    T* out = y.data<T>();
    ParallelFor(batch * frames, std::max<int64_t>(1, 4096 / size), [&](int64_t begin, int64_t end) {
      std::vector<Complex> line(static_cast<size_t>(size)), work;
      for (int64_t bf = begin; bf < end; ++bf) {
        const int64_t b = bf / frames, f = bf % frames;
        const T* src = in + (b * length + f * step) * comps;
        for (int64_t j = 0; j < size; ++j) {
          const double w = win ? static_cast<double>(win[j]) : 1.0;
          const double re = static_cast<double>(src[j * comps]);
          const double im = comps == 2 ? static_cast<double>(src[j * comps + 1]) : 0.0;
          line[static_cast<size_t>(j)] = Complex(re * w, im * w);
        }
        plan.Transform(line.data(), false, work);
        T* dst = out + bf * bins * 2;
        for (int64_t k = 0; k < bins; ++k) {
          dst[2 * k] = static_cast<T>(line[static_cast<size_t>(k)].real());
          dst[2 * k + 1] = static_cast<T>(line[static_cast<size_t>(k)].imag());
        }
      }
    });
  });
  ctx.outputs[0] = NarrowFromFloat32(y, s_in.dtype());
  return Status::Ok();
}

// ---- windows ----------------------------------------------------------------------------------

// w[n] = a0 - a1 cos(2 pi n / N) + a2 cos(4 pi n / N), N = size (periodic, the default) or
// size - 1 (symmetric). A symmetric window of size 1 is [1] (the 0/0 limit, as in numpy).
Status CosineSumWindow(KernelContext& ctx, double a0, double a1, double a2) {
  NPUGAP_ASSIGN_OR_RETURN(const int64_t size, ReadIntScalar(ctx, 0, "size"));
  if (size < 0) return ctx.Error(fmt::format("size must not be negative, got {}", size));
  const bool periodic = ctx.node.GetInt("periodic", 1) != 0;
  const double denom = static_cast<double>(periodic ? size : size - 1);
  std::vector<double> values(static_cast<size_t>(size));
  for (int64_t i = 0; i < size; ++i) {
    if (denom <= 0) {
      values[static_cast<size_t>(i)] = 1.0;
      continue;
    }
    const double angle = 2.0 * std::numbers::pi * static_cast<double>(i) / denom;
    values[static_cast<size_t>(i)] = a0 - a1 * std::cos(angle) + a2 * std::cos(2.0 * angle);
  }
  NPUGAP_ASSIGN_OR_RETURN(ctx.outputs[0],
                          MakeTypedTensor(ctx, ctx.node.GetInt("output_datatype", 1), {size}, values));
  return Status::Ok();
}

Status HannWindowKernel(KernelContext& ctx) { return CosineSumWindow(ctx, 0.5, 0.5, 0.0); }
Status HammingWindowKernel(KernelContext& ctx) { return CosineSumWindow(ctx, 25.0 / 46.0, 21.0 / 46.0, 0.0); }
Status BlackmanWindowKernel(KernelContext& ctx) { return CosineSumWindow(ctx, 0.42, 0.5, 0.08); }

// ---- MelWeightMatrix --------------------------------------------------------------------------

// MelWeightMatrix-17, as the ONNX reference computes it: num_mel_bins + 2 points equally spaced
// on the mel scale mel(f) = 2595 log10(1 + f/700) between the edges (step = range / (bins + 2)),
// mapped to spectrogram bins floor((dft_length + 1) * f / sample_rate); filter i is the
// triangle over points i, i+1, i+2 with peak 1. Output [dft_length/2 + 1, num_mel_bins].
Status MelWeightMatrixKernel(KernelContext& ctx) {
  NPUGAP_ASSIGN_OR_RETURN(const int64_t mel_bins, ReadIntScalar(ctx, 0, "num_mel_bins"));
  NPUGAP_ASSIGN_OR_RETURN(const int64_t dft_length, ReadIntScalar(ctx, 1, "dft_length"));
  NPUGAP_ASSIGN_OR_RETURN(const int64_t sample_rate, ReadIntScalar(ctx, 2, "sample_rate"));
  NPUGAP_ASSIGN_OR_RETURN(const double lower_hz, ReadFloatScalar(ctx, 3, "lower_edge_hertz"));
  NPUGAP_ASSIGN_OR_RETURN(const double upper_hz, ReadFloatScalar(ctx, 4, "upper_edge_hertz"));
  if (mel_bins <= 0 || dft_length <= 0 || sample_rate <= 0) {
    return ctx.Error(fmt::format("num_mel_bins ({}), dft_length ({}) and sample_rate ({}) must be positive",
                                 mel_bins, dft_length, sample_rate));
  }
  if (!(lower_hz >= 0 && lower_hz <= upper_hz)) {
    return ctx.Error(
        fmt::format("need 0 <= lower_edge_hertz ({}) <= upper_edge_hertz ({})", lower_hz, upper_hz));
  }
  const int64_t spec_bins = dft_length / 2 + 1;
  auto to_mel = [](double hz) { return 2595.0 * std::log10(1.0 + hz / 700.0); };
  const double low_mel = to_mel(lower_hz);
  const double mel_step = (to_mel(upper_hz) - low_mel) / static_cast<double>(mel_bins + 2);
  std::vector<int64_t> points(static_cast<size_t>(mel_bins + 2));
  for (int64_t i = 0; i < mel_bins + 2; ++i) {
    const double hz = 700.0 * (std::pow(10.0, (low_mel + mel_step * static_cast<double>(i)) / 2595.0) - 1.0);
    points[static_cast<size_t>(i)] = static_cast<int64_t>(
        std::floor(static_cast<double>(dft_length + 1) * hz / static_cast<double>(sample_rate)));
  }
  std::vector<double> values(static_cast<size_t>(spec_bins * mel_bins), 0.0);
  auto set = [&](int64_t row, int64_t col, double v) {
    if (row >= 0 && row < spec_bins) values[static_cast<size_t>(row * mel_bins + col)] = v;
  };
  for (int64_t i = 0; i < mel_bins; ++i) {
    const int64_t left = points[static_cast<size_t>(i)], center = points[static_cast<size_t>(i + 1)],
                  right = points[static_cast<size_t>(i + 2)];
    if (center == left) {
      set(center, i, 1.0);
    } else {
      for (int64_t j = left; j <= center; ++j)
        set(j, i, static_cast<double>(j - left) / static_cast<double>(center - left));
    }
    for (int64_t j = center; j < right; ++j)
      set(j, i, static_cast<double>(right - j) / static_cast<double>(right - center));
  }
  NPUGAP_ASSIGN_OR_RETURN(ctx.outputs[0], MakeTypedTensor(ctx, ctx.node.GetInt("output_datatype", 1),
                                                          {spec_bins, mel_bins}, values));
  return Status::Ok();
}

constexpr OpRow kSignalOps[] = {
    {"", "DFT", 17, 17, DftKernel, &support::kUnsupported},
    {"", "STFT", 17, 17, StftKernel, &support::kUnsupported},
    {"", "HannWindow", 17, 17, HannWindowKernel, &support::kUnsupported},
    {"", "HammingWindow", 17, 17, HammingWindowKernel, &support::kUnsupported},
    {"", "BlackmanWindow", 17, 17, BlackmanWindowKernel, &support::kUnsupported},
    {"", "MelWeightMatrix", 17, 17, MelWeightMatrixKernel, &support::kUnsupported},
};

}  // namespace

std::span<const OpRow> SignalOps() { return kSignalOps; }

}  // namespace npugap::exec
