// MatMul and Gemm. float32 runs on oneDNN's matmul primitive; other types on plain loops.
//
// A MatMul whose B is a matrix (rank <= 2, the weights of a linear layer) is one 2-D product
// with A's batch dims folded into its rows, and B is pre-packed into the layout the primitive
// prefers (cached per node, like conv weights). A batched B (attention's Q x K^T, scores x V)
// is an activation, so it is passed as it is, with oneDNN broadcasting the batch dims.
// Packing pays (oneDNN brgemm, thread CPU time, 1 thread, ms, batch 1 / 8, ViT-B/16 shapes):
//   197x768 x 768x3072:   packed 7.9 / 66    plain 15.6 / 134
//   197x3072 x 3072x768:  packed 7.0 / 65    plain 8.9 / 79
//   1x2048 x 2048x1000 (ResNet-50 fc, B transposed): packed 0.34 / 0.53   plain 0.58 / 0.79
#include <algorithm>
#include <bit>
#include <cstring>
#include <optional>
#include <type_traits>

#include "dnnl_util.h"
#include "nn_internal.h"
#include "npugap/exec/broadcast.h"
#include "npugap/exec/dispatch.h"

namespace npugap::exec::nn {

Expected<MatMulShape> ResolveMatMul(const KernelContext& ctx, const Shape& a, const Shape& b) {
  if (a.empty() || b.empty()) return ctx.Error("MatMul inputs must have rank >= 1");
  MatMulShape r;
  Shape a2 = a.size() == 1 ? Shape{1, a[0]} : a;
  Shape b2 = b.size() == 1 ? Shape{b[0], 1} : b;
  r.m = a2[a2.size() - 2];
  r.k = a2.back();
  r.n = b2.back();
  if (b2[b2.size() - 2] != r.k) {
    return ctx.Error("inner dimensions differ: A " + ir::ShapeToString(a) + ", B " + ir::ShapeToString(b));
  }
  const Shape a_batch(a2.begin(), a2.end() - 2), b_batch(b2.begin(), b2.end() - 2);
  NPUGAP_ASSIGN_OR_RETURN(r.batch_shape, BroadcastShapes(a_batch, b_batch));
  r.batch = 1;
  for (int64_t d : r.batch_shape) r.batch *= d;
  r.b_is_matrix =
      b_batch.empty() || std::all_of(b_batch.begin(), b_batch.end(), [](int64_t d) { return d == 1; });
  r.a_batch_padded = Shape(r.batch_shape.size() - a_batch.size(), 1);
  r.a_batch_padded.insert(r.a_batch_padded.end(), a_batch.begin(), a_batch.end());
  r.b_batch_padded = Shape(r.batch_shape.size() - b_batch.size(), 1);
  r.b_batch_padded.insert(r.b_batch_padded.end(), b_batch.begin(), b_batch.end());
  const std::vector<int64_t> a_strides = BroadcastStrides(a_batch, r.batch_shape);
  const std::vector<int64_t> b_strides = BroadcastStrides(b_batch, r.batch_shape);
  r.a_offsets.resize(static_cast<size_t>(r.batch));
  r.b_offsets.resize(static_cast<size_t>(r.batch));
  std::vector<int64_t> index(r.batch_shape.size(), 0);
  for (int64_t i = 0; i < r.batch; ++i) {
    int64_t ao = 0, bo = 0;
    for (size_t d = 0; d < index.size(); ++d) {
      ao += index[d] * a_strides[d];
      bo += index[d] * b_strides[d];
    }
    r.a_offsets[static_cast<size_t>(i)] = ao * r.m * r.k;
    r.b_offsets[static_cast<size_t>(i)] = bo * r.k * r.n;
    for (size_t d = index.size(); d-- > 0;) {
      if (++index[d] < r.batch_shape[d]) break;
      index[d] = 0;
    }
  }
  r.out = r.batch_shape;
  if (a.size() > 1) r.out.push_back(r.m);
  if (b.size() > 1) r.out.push_back(r.n);
  return r;
}

namespace {

using dnnl::memory;
namespace du = dnnl_util;

// ---- oneDNN ---------------------------------------------------------------------------------

struct MatMulEntry : du::CacheEntry {
  dnnl::matmul prim;
  memory::desc src, user_weights, weights, bias, dst;
  du::PackedWeights packed;
};

// A 2-D product y (rows x n) = alpha * op(a) op(b) [+ c], op = optional transpose. `c` is a
// bias of dims {1 or rows, 1 or n} (added only with alpha == 1). Weights are packed.
struct Gemm2d {
  int64_t rows = 0, k = 0, n = 0;
  bool trans_a = false, trans_b = false;
  float alpha = 1.f;
  memory::dims bias_dims;  // empty: no bias
};

Status DnnlGemm2d(KernelContext& ctx, const Gemm2d& p, const Tensor& a, const Tensor& b, const Tensor* c,
                  Tensor& y) {
  return du::Guard(ctx, [&]() -> Status {
    du::CacheKey key{
        &ctx.node,
        3,
        {p.rows, p.k, p.n, p.trans_a, p.trans_b, static_cast<int64_t>(std::bit_cast<uint32_t>(p.alpha))}};
    key.Add(p.bias_dims);
    NPUGAP_ASSIGN_OR_RETURN(
        std::shared_ptr<MatMulEntry> e,
        du::GetOrCreateAs<MatMulEntry>(std::move(key), [&]() -> Expected<std::shared_ptr<MatMulEntry>> {
          auto entry = std::make_shared<MatMulEntry>();
          const auto f32 = memory::data_type::f32;
          using tag = memory::format_tag;
          entry->src = memory::desc({p.rows, p.k}, f32, p.trans_a ? tag::ba : tag::ab);
          entry->user_weights = memory::desc({p.k, p.n}, f32, p.trans_b ? tag::ba : tag::ab);
          entry->dst = memory::desc({p.rows, p.n}, f32, tag::ab);
          const memory::desc w_any({p.k, p.n}, f32, tag::any);
          dnnl::primitive_attr attr;
          if (p.alpha != 1.f) attr.set_output_scales(0, {p.alpha});
          std::optional<dnnl::matmul::desc> desc;
          if (!p.bias_dims.empty()) {
            entry->bias = memory::desc(p.bias_dims, f32, tag::ab);
            desc.emplace(entry->src, w_any, entry->bias, entry->dst);
          } else {
            desc.emplace(entry->src, w_any, entry->dst);
          }
          dnnl::matmul::primitive_desc pd(*desc, attr, du::Engine());
          entry->prim = dnnl::matmul(pd);
          entry->weights = pd.weights_desc();
          return entry;
        }));
    memory weights = e->packed.Get(b, e->user_weights, e->weights);
    std::unordered_map<int, memory> args{{DNNL_ARG_SRC, du::Wrap(e->src, a.raw_data())},
                                         {DNNL_ARG_WEIGHTS, weights},
                                         {DNNL_ARG_DST, du::Wrap(e->dst, y.raw_data())}};
    if (c != nullptr) args[DNNL_ARG_BIAS] = du::Wrap(e->bias, c->raw_data());
    e->prim.execute(du::Stream(), args);
    du::Stream().wait();
    return Status::Ok();
  });
}

// Batched product with broadcast batch dims, all operands plain.
Status DnnlBatchedMatMul(KernelContext& ctx, const MatMulShape& s, const Tensor& a, const Tensor& b,
                         Tensor& y) {
  return du::Guard(ctx, [&]() -> Status {
    memory::dims a_dims(s.a_batch_padded), b_dims(s.b_batch_padded), y_dims(s.batch_shape);
    a_dims.insert(a_dims.end(), {s.m, s.k});
    b_dims.insert(b_dims.end(), {s.k, s.n});
    y_dims.insert(y_dims.end(), {s.m, s.n});
    du::CacheKey key{&ctx.node, 4, {}};
    key.Add(a_dims);
    key.Add(b_dims);
    NPUGAP_ASSIGN_OR_RETURN(
        std::shared_ptr<MatMulEntry> e,
        du::GetOrCreateAs<MatMulEntry>(std::move(key), [&]() -> Expected<std::shared_ptr<MatMulEntry>> {
          auto entry = std::make_shared<MatMulEntry>();
          const auto f32 = memory::data_type::f32;
          const auto tag = du::PlainTag(a_dims.size());
          entry->src = memory::desc(a_dims, f32, tag);
          entry->weights = memory::desc(b_dims, f32, tag);
          entry->dst = memory::desc(y_dims, f32, tag);
          dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(entry->src, entry->weights, entry->dst),
                                          du::Engine());
          entry->prim = dnnl::matmul(pd);
          return entry;
        }));
    e->prim.execute(du::Stream(), {{DNNL_ARG_SRC, du::Wrap(e->src, a.raw_data())},
                                   {DNNL_ARG_WEIGHTS, du::Wrap(e->weights, b.raw_data())},
                                   {DNNL_ARG_DST, du::Wrap(e->dst, y.raw_data())}});
    du::Stream().wait();
    return Status::Ok();
  });
}

// ---- plain loops ------------------------------------------------------------------------------

// Accumulator of a product of T: T for floats, wrapping 64-bit for integers (no signed overflow).
template <typename T>
using AccOf = std::conditional_t<std::is_floating_point_v<T>, T, uint64_t>;

template <typename T>
void ReferenceMatMul(const MatMulShape& s, const T* a, const T* b, T* y) {
  using Acc = AccOf<T>;
  ParallelFor(s.batch * s.m, std::max<int64_t>(1, 4096 / std::max<int64_t>(1, s.k * s.n)),
              [&](int64_t begin, int64_t end) {
                std::vector<Acc> row(static_cast<size_t>(s.n));
                for (int64_t bi = begin; bi < end; ++bi) {
                  const int64_t batch = bi / s.m, i = bi % s.m;
                  const T* ar = a + s.a_offsets[static_cast<size_t>(batch)] + i * s.k;
                  const T* bm = b + s.b_offsets[static_cast<size_t>(batch)];
                  std::fill(row.begin(), row.end(), Acc{0});
                  for (int64_t kk = 0; kk < s.k; ++kk) {
                    const Acc av = static_cast<Acc>(ar[kk]);
                    const T* br = bm + kk * s.n;
                    for (int64_t j = 0; j < s.n; ++j)
                      row[static_cast<size_t>(j)] += av * static_cast<Acc>(br[j]);
                  }
                  T* yr = y + bi * s.n;
                  for (int64_t j = 0; j < s.n; ++j) yr[j] = static_cast<T>(row[static_cast<size_t>(j)]);
                }
              });
}

Status MatMulFloat32(KernelContext& ctx, const MatMulShape& s, const Tensor& a, const Tensor& b, Tensor& y) {
  if (s.k == 0) {
    std::fill(y.data<float>(), y.data<float>() + y.numel(), 0.f);
    return Status::Ok();
  }
  if (const int bits = CubeAccumulatorBits(ctx); bits > 0) {
    FiniteAccumulatorMatMul(s, a.data<float>(), b.data<float>(), y.data<float>(), bits);
    return Status::Ok();
  }
  Status st;
  if (s.b_is_matrix) {
    // A's batch dims fold into rows (A is contiguous); B is one matrix.
    const int64_t a_batch = a.numel() / (s.m * s.k);
    if (a_batch == s.batch) {
      Gemm2d p;
      p.rows = s.batch * s.m;
      p.k = s.k;
      p.n = s.n;
      st = DnnlGemm2d(ctx, p, a, b, nullptr, y);
    } else {
      st = DnnlBatchedMatMul(ctx, s, a, b, y);
    }
  } else {
    st = DnnlBatchedMatMul(ctx, s, a, b, y);
  }
  if (!du::IsUnimplemented(st)) return st;
  ReferenceMatMul<float>(s, a.data<float>(), b.data<float>(), y.data<float>());
  return Status::Ok();
}

}  // namespace

// MatMul (numpy semantics): 1-D operands get a dim of 1 added and removed again; batch dims
// broadcast. float16 / bfloat16 are computed in float32.
Status MatMul(KernelContext& ctx) {
  if (ctx.num_inputs() < 2 || !ctx.has_input(0) || !ctx.has_input(1))
    return ctx.Error("needs inputs A and B");
  const Tensor& a = ctx.input(0);
  const Tensor& b = ctx.input(1);
  if (a.dtype() != b.dtype()) return ctx.Error("A and B must have one element type");
  NPUGAP_ASSIGN_OR_RETURN(MatMulShape s, ResolveMatMul(ctx, a.shape(), b.shape()));
  NPUGAP_ASSIGN_OR_RETURN(Tensor y, Tensor::Create(a.dtype(), s.out));
  if (y.numel() > 0) {
    if (a.dtype() == DType::kFloat32) {
      NPUGAP_RETURN_IF_ERROR(MatMulFloat32(ctx, s, a, b, y));
    } else if (a.dtype() == DType::kFloat16 || a.dtype() == DType::kBFloat16) {
      Tensor yf = Tensor::Empty(DType::kFloat32, s.out);
      NPUGAP_RETURN_IF_ERROR(MatMulFloat32(ctx, s, ToFloat32(a), ToFloat32(b), yf));
      y = FromFloat32(yf, a.dtype());
    } else {
      const bool known = DispatchNumeric(
          a.dtype(), [&]<typename T>() { ReferenceMatMul<T>(s, a.data<T>(), b.data<T>(), y.data<T>()); });
      if (!known) return ctx.UnsupportedDType(a.dtype());
    }
  }
  ctx.outputs[0] = std::move(y);
  return Status::Ok();
}

namespace {

// Y = alpha * op(A) op(B) + beta * C in plain loops (C already broadcast-checked).
template <typename T>
void ReferenceGemm(int64_t m, int64_t k, int64_t n, bool trans_a, bool trans_b, T alpha, T beta, const T* a,
                   const T* b, const T* c, const Shape& c_shape, T* y) {
  const int64_t c_rows = c_shape.size() == 2 ? c_shape[0] : 1;
  const int64_t c_cols = c_shape.empty() ? 1 : c_shape.back();
  ParallelFor(m, 1, [&](int64_t begin, int64_t end) {
    std::vector<AccOf<T>> row(static_cast<size_t>(n));
    for (int64_t i = begin; i < end; ++i) {
      std::fill(row.begin(), row.end(), AccOf<T>{0});
      for (int64_t kk = 0; kk < k; ++kk) {
        const auto av = static_cast<AccOf<T>>(trans_a ? a[kk * m + i] : a[i * k + kk]);
        for (int64_t j = 0; j < n; ++j) {
          row[static_cast<size_t>(j)] += av * static_cast<AccOf<T>>(trans_b ? b[j * k + kk] : b[kk * n + j]);
        }
      }
      for (int64_t j = 0; j < n; ++j) {
        T v = static_cast<T>(alpha * static_cast<T>(row[static_cast<size_t>(j)]));
        if (c) v = static_cast<T>(v + beta * c[(c_rows == 1 ? 0 : i) * c_cols + (c_cols == 1 ? 0 : j)]);
        y[i * n + j] = v;
      }
    }
  });
}

}  // namespace

// Gemm: Y = alpha * A' B' + beta * C, A' / B' optionally transposed, C broadcast to (M, N)
// (opsets < 7 had a `broadcast` flag; broadcasting is accepted regardless). C is optional
// from opset 11. On the float32 path C rides along as oneDNN's bias when alpha == beta == 1,
// and is added afterwards otherwise.
Status Gemm(KernelContext& ctx) {
  if (ctx.num_inputs() < 2 || !ctx.has_input(0) || !ctx.has_input(1))
    return ctx.Error("needs inputs A and B");
  const Tensor& a = ctx.input(0);
  const Tensor& b = ctx.input(1);
  const Tensor* c = ctx.has_input(2) ? &ctx.input(2) : nullptr;
  if (a.rank() != 2 || b.rank() != 2) {
    return ctx.Error("A and B must be matrices, got " + ir::ShapeToString(a.shape()) + " and " +
                     ir::ShapeToString(b.shape()));
  }
  if (a.dtype() != b.dtype() || (c && c->dtype() != a.dtype()))
    return ctx.Error("A, B and C must share a type");
  const bool trans_a = ctx.node.GetInt("transA", 0) != 0, trans_b = ctx.node.GetInt("transB", 0) != 0;
  const float alpha = ctx.node.GetFloat("alpha", 1.f), beta = ctx.node.GetFloat("beta", 1.f);
  const int64_t m = trans_a ? a.dim(1) : a.dim(0), k = trans_a ? a.dim(0) : a.dim(1);
  const int64_t n = trans_b ? b.dim(0) : b.dim(1), kb = trans_b ? b.dim(1) : b.dim(0);
  if (k != kb) {
    return ctx.Error("inner dimensions differ: A " + ir::ShapeToString(a.shape()) + ", B " +
                     ir::ShapeToString(b.shape()));
  }
  if (c && beta == 0.f) c = nullptr;
  if (c) {
    const Shape& cs = c->shape();
    const bool ok = cs.size() <= 2 && (cs.empty() || cs.back() == 1 || cs.back() == n) &&
                    (cs.size() < 2 || cs[0] == 1 || cs[0] == m);
    if (!ok)
      return ctx.Error("C " + ir::ShapeToString(cs) + " does not broadcast to " + std::to_string(m) + "x" +
                       std::to_string(n));
  }
  NPUGAP_ASSIGN_OR_RETURN(Tensor y, Tensor::Create(a.dtype(), {m, n}));
  if (y.numel() == 0) {
    ctx.outputs[0] = std::move(y);
    return Status::Ok();
  }
  const Shape c_shape = c ? c->shape() : Shape{};
  auto run_float = [&](const Tensor& af, const Tensor& bf, const Tensor* cf, Tensor& yf) -> Status {
    if (const int bits = CubeAccumulatorBits(ctx); bits > 0) {
      FiniteAccumulatorGemm({m, k, n, trans_a, trans_b, alpha, beta, c_shape}, af.data<float>(),
                            bf.data<float>(), cf ? cf->data<float>() : nullptr, yf.data<float>(), bits);
      return Status::Ok();
    }
    Gemm2d p;
    p.rows = m;
    p.k = k;
    p.n = n;
    p.trans_a = trans_a;
    p.trans_b = trans_b;
    p.alpha = alpha;
    const bool bias = cf != nullptr && alpha == 1.f && beta == 1.f;
    if (bias) p.bias_dims = {c_shape.size() == 2 ? c_shape[0] : 1, c_shape.empty() ? 1 : c_shape.back()};
    Status st = k == 0 ? Status::Ok() : DnnlGemm2d(ctx, p, af, bf, bias ? cf : nullptr, yf);
    if (k == 0 || du::IsUnimplemented(st)) {
      ReferenceGemm<float>(m, k, n, trans_a, trans_b, alpha, beta, af.data<float>(), bf.data<float>(),
                           cf ? cf->data<float>() : nullptr, c_shape, yf.data<float>());
      return Status::Ok();
    }
    NPUGAP_RETURN_IF_ERROR(st);
    if (cf != nullptr && !bias) {
      const float* cd = cf->data<float>();
      float* yd = yf.data<float>();
      const int64_t c_rows = c_shape.size() == 2 ? c_shape[0] : 1,
                    c_cols = c_shape.empty() ? 1 : c_shape.back();
      for (int64_t i = 0; i < m; ++i) {
        for (int64_t j = 0; j < n; ++j) {
          yd[i * n + j] += beta * cd[(c_rows == 1 ? 0 : i) * c_cols + (c_cols == 1 ? 0 : j)];
        }
      }
    }
    return Status::Ok();
  };
  if (a.dtype() == DType::kFloat32) {
    NPUGAP_RETURN_IF_ERROR(run_float(a, b, c, y));
  } else if (a.dtype() == DType::kFloat16 || a.dtype() == DType::kBFloat16) {
    std::optional<Tensor> cf;
    if (c) cf = ToFloat32(*c);
    Tensor yf = Tensor::Empty(DType::kFloat32, {m, n});
    NPUGAP_RETURN_IF_ERROR(run_float(ToFloat32(a), ToFloat32(b), cf ? &*cf : nullptr, yf));
    y = FromFloat32(yf, a.dtype());
  } else {
    const bool known = DispatchNumeric(a.dtype(), [&]<typename T>() {
      ReferenceGemm<T>(m, k, n, trans_a, trans_b, static_cast<T>(alpha), static_cast<T>(beta), a.data<T>(),
                       b.data<T>(), c ? c->data<T>() : nullptr, c_shape, y.data<T>());
    });
    if (!known) return ctx.UnsupportedDType(a.dtype());
  }
  ctx.outputs[0] = std::move(y);
  return Status::Ok();
}

}  // namespace npugap::exec::nn
