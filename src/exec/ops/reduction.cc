// Reduction op family: ReduceSum, ReduceMean, ReduceMax, ReduceMin, ReduceProd, ReduceL1,
// ReduceL2, ReduceLogSum, ReduceLogSumExp, ReduceSumSquare, ArgMax, ArgMin. Softmax, LogSoftmax
// and Hardmax live in reduction_softmax.cc.
//
// Every reduction is planned the same way: dims of size 1 are dropped, neighbouring dims that
// are both reduced or both kept are merged, and the input is viewed as [outer, reduce, inner].
// That covers reducing the last axes (inner = 1: contiguous rows), a middle block of axes and
// the leading axes. Any other pattern (e.g. axes [0, 2] of NCHW) is first gathered into a
// [kept, reduced] buffer. Accumulation: float32 and float64 accumulate in double, signed
// integers in int64, unsigned in uint64, with 8 interleaved lanes per row and rows cut into
// fixed blocks of 16384 elements that are merged in order, so that results do not depend on
// the thread count. float16 / bfloat16 inputs are computed in float32.
#include <cmath>
#include <limits>
#include <type_traits>
#include <vector>

#include "npugap/exec/dispatch.h"
#include "npugap/exec/emulation_op.h"
#include "npugap/exec/op_table.h"
#include "npugap/exec/parallel.h"
#include "npugap/numerics/format.h"
#include "reduction_internal.h"

namespace npugap::exec {
namespace {

using reduction_internal::DimProduct;
using reduction_internal::IsHalfType;
using reduction_internal::MarkReducedAxes;
using reduction_internal::NormalizeAxis;
using reduction_internal::RunInFloat32;

constexpr int64_t kLanes = 8;
constexpr int64_t kRowBlock = int64_t{1} << 14;  // elements per independently summed block
constexpr int64_t kInnerBlock = 256;             // inner columns reduced together

// The type that T accumulates in.
template <typename T>
using Wide = std::conditional_t<std::is_floating_point_v<T>, double,
                                std::conditional_t<std::is_signed_v<T>, int64_t, uint64_t>>;

template <typename Acc>
Acc AbsValue(Acc v) {
  if constexpr (std::is_unsigned_v<Acc>) {
    return v;
  } else {
    return v < 0 ? -v : v;
  }
}

// A reducer says how to start (Init), take one element (Add), combine two partial results
// (Merge) and produce the output element from the accumulator and the reduced count (Finish).
template <typename T>
struct SumReducer {
  using Acc = Wide<T>;
  static Acc Init() { return 0; }
  static Acc Add(Acc a, T x) { return a + static_cast<Acc>(x); }
  static Acc Merge(Acc a, Acc b) { return a + b; }
  static T Finish(Acc a, int64_t) { return static_cast<T>(a); }
};

template <typename T>
struct MeanReducer : SumReducer<T> {
  using Acc = Wide<T>;
  static T Finish(Acc a, int64_t n) {
    if constexpr (std::is_floating_point_v<T>) {
      return static_cast<T>(a / static_cast<double>(n));  // 0 / 0 = NaN for an empty reduction
    } else {
      return n == 0 ? T{0} : static_cast<T>(a / static_cast<Acc>(n));
    }
  }
};

template <typename T>
struct SumSquareReducer : SumReducer<T> {
  using Acc = Wide<T>;
  static Acc Add(Acc a, T x) { return a + static_cast<Acc>(x) * static_cast<Acc>(x); }
};

template <typename T>
struct L2Reducer : SumSquareReducer<T> {
  using Acc = Wide<T>;
  static T Finish(Acc a, int64_t) { return static_cast<T>(std::sqrt(static_cast<double>(a))); }
};

template <typename T>
struct L1Reducer : SumReducer<T> {
  using Acc = Wide<T>;
  static Acc Add(Acc a, T x) { return a + AbsValue(static_cast<Acc>(x)); }
};

template <typename T>
struct LogSumReducer : SumReducer<T> {
  using Acc = Wide<T>;
  static T Finish(Acc a, int64_t) { return static_cast<T>(std::log(static_cast<double>(a))); }
};

template <typename T>
struct ProdReducer {
  using Acc = Wide<T>;
  static Acc Init() { return 1; }
  static Acc Add(Acc a, T x) { return a * static_cast<Acc>(x); }
  static Acc Merge(Acc a, Acc b) { return a * b; }
  static T Finish(Acc a, int64_t) { return static_cast<T>(a); }
};

// Max / Min propagate NaN like numpy. Their Add ignores NaN and the drivers flag NaN per lane
// instead (kNaNFlag), because GCC vectorizes that and not `x > a || x != x`. An empty
// reduction gives -inf / +inf (lowest / highest value for integers), as ONNX specifies from
// opset 18 on.
template <typename T>
struct MaxReducer {
  static constexpr bool kNaNFlag = std::is_floating_point_v<T>;
  using Acc = T;
  static Acc Init() {
    if constexpr (std::is_floating_point_v<T>) {
      return -std::numeric_limits<T>::infinity();
    } else {
      return std::numeric_limits<T>::lowest();
    }
  }
  static Acc Add(Acc a, T x) { return x > a ? x : a; }
  static Acc Merge(Acc a, Acc b) { return (b > a || b != b) ? b : a; }  // NaN sticks
  static T Finish(Acc a, int64_t) { return a; }
};

template <typename T>
struct MinReducer {
  static constexpr bool kNaNFlag = std::is_floating_point_v<T>;
  using Acc = T;
  static Acc Init() {
    if constexpr (std::is_floating_point_v<T>) {
      return std::numeric_limits<T>::infinity();
    } else {
      return std::numeric_limits<T>::max();
    }
  }
  static Acc Add(Acc a, T x) { return x < a ? x : a; }
  static Acc Merge(Acc a, Acc b) { return (b < a || b != b) ? b : a; }  // NaN sticks
  static T Finish(Acc a, int64_t) { return a; }
};

// log(sum(exp(x))) kept stable by an online running max: the accumulator is (max, sum of
// exp(x - max)), rescaled when a bigger element arrives.
struct LogSumExpAcc {
  double max;
  double sum;
};

template <typename T>
struct LogSumExpReducer {
  using Acc = LogSumExpAcc;
  static constexpr double kInf = std::numeric_limits<double>::infinity();
  static Acc Init() { return {-kInf, 0.0}; }
  static Acc Add(Acc a, T xt) { return Merge(a, {static_cast<double>(xt), 1.0}); }
  static Acc Merge(Acc a, Acc b) {
    if (std::isnan(a.max) || std::isnan(b.max)) return {NAN, NAN};
    if (b.max == -kInf) return a;  // exp(-inf) adds nothing
    if (a.max == -kInf) return b;
    if (a.max == kInf || b.max == kInf) return {kInf, 1.0};
    if (b.max <= a.max) return {a.max, a.sum + b.sum * std::exp(b.max - a.max)};
    return {b.max, a.sum * std::exp(a.max - b.max) + b.sum};
  }
  static T Finish(Acc a, int64_t) {
    if (a.max == -kInf || a.max == kInf || std::isnan(a.max)) return static_cast<T>(a.max);
    return static_cast<T>(a.max + std::log(a.sum));
  }
};

// How a reduction walks its input: as [outer, reduce, inner] over the input itself or, when
// `permute` is set, over a gathered copy laid out as [kept, reduced] (inner = 1).
struct ReducePlan {
  Shape out_shape;
  int64_t outer = 1;
  int64_t reduce = 1;
  int64_t inner = 1;
  bool permute = false;
  Shape group_shape;          // merged dims of the input (sizes > 1)
  std::vector<int64_t> perm;  // kept groups, then reduced groups
};

// Reads the axes (attribute, or input 1 of ReduceSum from opset 13) and builds the plan.
Expected<ReducePlan> MakeReducePlan(const KernelContext& ctx, const Tensor& x, bool axes_from_input) {
  const int64_t rank = x.rank();
  std::vector<int64_t> axes;
  if (axes_from_input) {
    if (ctx.has_input(1)) {
      const Tensor& axes_tensor = ctx.input(1);
      if (axes_tensor.rank() > 1) return ctx.Error("axes input must be 1-D");
      if (axes_tensor.dtype() == DType::kInt64) {
        axes.assign(axes_tensor.data<int64_t>(), axes_tensor.data<int64_t>() + axes_tensor.numel());
      } else if (axes_tensor.dtype() == DType::kInt32) {
        axes.assign(axes_tensor.data<int32_t>(), axes_tensor.data<int32_t>() + axes_tensor.numel());
      } else {
        return ctx.Error("axes input must be int64");
      }
    }
  } else {
    axes = ctx.node.GetInts("axes");
  }
  std::vector<bool> reduced(static_cast<size_t>(rank), false);
  if (axes.empty()) {
    // noop_with_empty_axes (ReduceSum 13+): reduce nothing, so the element map still applies.
    const bool noop = ctx.node.GetInt("noop_with_empty_axes", 0) != 0;
    if (!noop) reduced.assign(static_cast<size_t>(rank), true);
  }
  NPUGAP_RETURN_IF_ERROR(MarkReducedAxes(ctx, axes, rank, reduced));
  const bool keepdims = ctx.node.GetInt("keepdims", 1) != 0;

  ReducePlan plan;
  std::vector<bool> group_reduced;
  for (int64_t d = 0; d < rank; ++d) {
    const int64_t size = x.dim(d);
    const bool r = reduced[static_cast<size_t>(d)];
    if (r) {
      if (keepdims) plan.out_shape.push_back(1);
    } else {
      plan.out_shape.push_back(size);
    }
    if (size == 1) continue;
    if (!group_reduced.empty() && group_reduced.back() == r) {
      plan.group_shape.back() *= size;
    } else {
      plan.group_shape.push_back(size);
      group_reduced.push_back(r);
    }
  }
  int64_t kept = 1;
  for (size_t g = 0; g < plan.group_shape.size(); ++g) {
    (group_reduced[g] ? plan.reduce : kept) *= plan.group_shape[g];
  }
  const size_t groups = group_reduced.size();
  // The patterns that need no gather: [K], [R], [K R], [R K], [K R K].
  const bool leading_reduced = groups > 0 && group_reduced[0];
  if (groups <= 1 || (groups == 2) || (groups == 3 && !leading_reduced)) {
    if (groups == 0) {
      plan.outer = 1;
    } else if (leading_reduced) {
      plan.outer = 1;
      plan.inner = groups == 2 ? plan.group_shape[1] : 1;
    } else {
      plan.outer = plan.group_shape[0];
      plan.inner = groups == 3 ? plan.group_shape[2] : 1;
    }
    return plan;
  }
  plan.permute = true;
  for (size_t g = 0; g < groups; ++g) {
    if (!group_reduced[g]) plan.perm.push_back(static_cast<int64_t>(g));
  }
  for (size_t g = 0; g < groups; ++g) {
    if (group_reduced[g]) plan.perm.push_back(static_cast<int64_t>(g));
  }
  plan.outer = kept;
  plan.inner = 1;
  return plan;
}

// Copies x (shape `shape`, contiguous) into dst transposed by `perm`.
template <typename T>
void PermuteCopy(const T* x, const Shape& shape, const std::vector<int64_t>& perm, T* dst) {
  const size_t rank = shape.size();
  std::vector<int64_t> in_strides(rank, 1);
  for (size_t d = rank - 1; d > 0; --d) in_strides[d - 1] = in_strides[d] * shape[d];
  Shape out_shape(rank);
  std::vector<int64_t> strides(rank);  // input stride of each output dim
  for (size_t d = 0; d < rank; ++d) {
    out_shape[d] = shape[static_cast<size_t>(perm[d])];
    strides[d] = in_strides[static_cast<size_t>(perm[d])];
  }
  const int64_t row_len = out_shape.back();
  const int64_t row_stride = strides.back();
  const int64_t rows = DimProduct(out_shape, 0, static_cast<int64_t>(rank) - 1);
  ParallelFor(rows, std::max<int64_t>(1, 4096 / row_len), [&](int64_t begin, int64_t end) {
    for (int64_t row = begin; row < end; ++row) {
      int64_t rest = row;
      int64_t offset = 0;
      for (size_t d = rank - 1; d > 0; --d) {
        const int64_t size = out_shape[d - 1];
        offset += (rest % size) * strides[d - 1];
        rest /= size;
      }
      const T* src = x + offset;
      T* out = dst + row * row_len;
      for (int64_t i = 0; i < row_len; ++i) out[i] = src[i * row_stride];
    }
  });
}

// True for reducers whose Add ignores NaN, leaving NaN to a per-lane flag.
template <typename R>
constexpr bool FlagsNaN() {
  if constexpr (requires { R::kNaNFlag; }) {
    return R::kNaNFlag;
  } else {
    return false;
  }
}
template <typename R>
constexpr bool kFlagsNaN = FlagsNaN<R>();

// Reduces n contiguous elements with kLanes interleaved accumulators (vectorizes).
template <typename R, typename T>
typename R::Acc ReduceContiguousBlock(const T* x, int64_t n) {
  using Acc = typename R::Acc;
  Acc lanes[kLanes];
  int nan[kLanes] = {};
  for (int64_t j = 0; j < kLanes; ++j) lanes[j] = R::Init();
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    for (int64_t j = 0; j < kLanes; ++j) {
      lanes[j] = R::Add(lanes[j], x[i + j]);
      if constexpr (kFlagsNaN<R>) nan[j] |= x[i + j] != x[i + j];
    }
  }
  for (; i < n; ++i) {
    lanes[0] = R::Add(lanes[0], x[i]);
    if constexpr (kFlagsNaN<R>) nan[0] |= x[i] != x[i];
  }
  if constexpr (kFlagsNaN<R>) {
    for (int j = 0; j < kLanes; ++j) {
      if (nan[j]) return std::numeric_limits<T>::quiet_NaN();
    }
  }
  for (int64_t width = kLanes / 2; width >= 1; width /= 2) {
    for (int64_t j = 0; j < width; ++j) lanes[j] = R::Merge(lanes[j], lanes[j + width]);
  }
  return lanes[0];
}

// A whole row, cut into fixed blocks merged in order.
template <typename R, typename T>
typename R::Acc ReduceContiguousRow(const T* x, int64_t n) {
  typename R::Acc acc = R::Init();
  for (int64_t start = 0; start < n; start += kRowBlock) {
    acc = R::Merge(acc, ReduceContiguousBlock<R>(x + start, std::min(kRowBlock, n - start)));
  }
  return acc;
}

// [outer, reduce] with contiguous rows.
template <typename R, typename T>
void ReduceRows(const T* x, T* y, int64_t outer, int64_t reduce) {
  using Acc = typename R::Acc;
  const int64_t blocks = (reduce + kRowBlock - 1) / kRowBlock;
  if (outer < GetNumThreads() && blocks > 1) {
    // Few long rows: the blocks of one row in parallel, merged in the same order as above.
    std::vector<Acc> partial(static_cast<size_t>(blocks));
    for (int64_t o = 0; o < outer; ++o) {
      const T* row = x + o * reduce;
      ParallelFor(blocks, 1, [&](int64_t begin, int64_t end) {
        for (int64_t b = begin; b < end; ++b) {
          partial[static_cast<size_t>(b)] =
              ReduceContiguousBlock<R>(row + b * kRowBlock, std::min(kRowBlock, reduce - b * kRowBlock));
        }
      });
      Acc acc = R::Init();
      for (const Acc& p : partial) acc = R::Merge(acc, p);
      y[o] = R::Finish(acc, reduce);
    }
    return;
  }
  const int64_t grain = std::max<int64_t>(1, kRowBlock / std::max<int64_t>(reduce, 1));
  if (reduce == 1) {
    // Nothing reduced (size-1 axes, noop_with_empty_axes): an element map.
    ParallelFor(outer, kRowBlock, [&](int64_t begin, int64_t end) {
      for (int64_t o = begin; o < end; ++o) {
        y[o] = R::Finish(R::Add(R::Init(), x[o]), 1);
        if constexpr (kFlagsNaN<R>) y[o] = x[o] != x[o] ? x[o] : y[o];
      }
    });
    return;
  }
  if (reduce < 2 * kLanes) {
    // Short rows: the lanes would cost more than they save.
    ParallelFor(outer, grain, [&](int64_t begin, int64_t end) {
      for (int64_t o = begin; o < end; ++o) {
        const T* row = x + o * reduce;
        Acc acc = R::Init();
        bool nan = false;
        for (int64_t r = 0; r < reduce; ++r) {
          acc = R::Add(acc, row[r]);
          if constexpr (kFlagsNaN<R>) nan |= row[r] != row[r];
        }
        y[o] = R::Finish(acc, reduce);
        if constexpr (kFlagsNaN<R>) y[o] = nan ? std::numeric_limits<T>::quiet_NaN() : y[o];
      }
    });
    return;
  }
  ParallelFor(outer, grain, [&](int64_t begin, int64_t end) {
    for (int64_t o = begin; o < end; ++o) {
      y[o] = R::Finish(ReduceContiguousRow<R>(x + o * reduce, reduce), reduce);
    }
  });
}

// [outer, reduce, inner] with inner > 1: accumulates kInnerBlock columns at a time, reading
// each input row contiguously.
template <typename R, typename T>
void ReduceMiddle(const T* x, T* y, int64_t outer, int64_t reduce, int64_t inner) {
  using Acc = typename R::Acc;
  const int64_t blocks = (inner + kInnerBlock - 1) / kInnerBlock;
  const int64_t work_per_task = std::max<int64_t>(1, reduce * std::min(inner, kInnerBlock));
  ParallelFor(outer * blocks, std::max<int64_t>(1, kRowBlock / work_per_task),
              [&](int64_t begin, int64_t end) {
                Acc acc[kInnerBlock];
                int nan[kInnerBlock];
                for (int64_t task = begin; task < end; ++task) {
                  const int64_t o = task / blocks;
                  const int64_t i0 = (task % blocks) * kInnerBlock;
                  const int64_t len = std::min(kInnerBlock, inner - i0);
                  for (int64_t i = 0; i < len; ++i) {
                    acc[i] = R::Init();
                    nan[i] = 0;
                  }
                  const T* base = x + o * reduce * inner + i0;
                  for (int64_t r = 0; r < reduce; ++r) {
                    const T* row = base + r * inner;
                    for (int64_t i = 0; i < len; ++i) {
                      acc[i] = R::Add(acc[i], row[i]);
                      if constexpr (kFlagsNaN<R>) nan[i] |= row[i] != row[i];
                    }
                  }
                  T* out = y + o * inner + i0;
                  for (int64_t i = 0; i < len; ++i) {
                    out[i] = R::Finish(acc[i], reduce);
                    if constexpr (kFlagsNaN<R>)
                      out[i] = nan[i] ? std::numeric_limits<T>::quiet_NaN() : out[i];
                  }
                }
              });
}

template <typename R, typename T>
Status RunReduce(const Tensor& x, const ReducePlan& plan, Tensor& result) {
  NPUGAP_ASSIGN_OR_RETURN(Tensor y, Tensor::Create(x.dtype(), plan.out_shape));
  T* out = y.data<T>();
  if (y.numel() == 0) {
    // Nothing to compute.
  } else if (x.numel() == 0) {
    // Reducing over an empty axis: every output is the reduction of nothing.
    const T empty = R::Finish(R::Init(), 0);
    for (int64_t i = 0; i < y.numel(); ++i) out[i] = empty;
  } else if (plan.permute) {
    NPUGAP_ASSIGN_OR_RETURN(Tensor gathered, Tensor::Create(x.dtype(), {x.numel()}));
    PermuteCopy(x.data<T>(), plan.group_shape, plan.perm, gathered.data<T>());
    ReduceRows<R>(gathered.data<T>(), out, plan.outer, plan.reduce);
  } else if (plan.inner == 1) {
    ReduceRows<R>(x.data<T>(), out, plan.outer, plan.reduce);
  } else {
    ReduceMiddle<R>(x.data<T>(), out, plan.outer, plan.reduce, plan.inner);
  }
  result = std::move(y);
  return Status::Ok();
}

// Sum / mean with the partial sum kept in a narrower format (the precision emulator's
// kAccumulateFormatAttr, emulation_op.h): sequential, rounding after every add. Slow and simple:
// it runs only on nodes the emulator marks.
Status ReduceInFormat(const Tensor& x, const ReducePlan& plan, bool mean, const ir::Attribute& attr,
                      Tensor& result) {
  const auto [format, opt] = UnpackFormat(attr.i);
  NPUGAP_ASSIGN_OR_RETURN(Tensor y, Tensor::Create(DType::kFloat32, plan.out_shape));
  const float* in = x.data<float>();
  Tensor gathered;
  if (plan.permute) {
    NPUGAP_ASSIGN_OR_RETURN(gathered, Tensor::Create(DType::kFloat32, {x.numel()}));
    PermuteCopy(in, plan.group_shape, plan.perm, gathered.data<float>());
    in = gathered.data<float>();
  }
  const int64_t inner = plan.permute ? 1 : plan.inner;
  float* out = y.data<float>();
  for (int64_t o = 0; o < plan.outer; ++o) {
    for (int64_t i = 0; i < inner; ++i) {
      float s = 0;
      for (int64_t r = 0; r < plan.reduce; ++r)
        s = numerics::RoundScalar(format, s + in[(o * plan.reduce + r) * inner + i], opt);
      out[o * inner + i] = mean ? (plan.reduce > 0 ? s / static_cast<float>(plan.reduce) : NAN) : s;
    }
  }
  result = std::move(y);
  return Status::Ok();
}

// Mean as PyTorch's CPU kernels compute it in a low-precision dtype (the precision emulator's
// kMeanRoundsSumAttr, emulation_op.h): the ordinary sum, rounded to the storage format, then
// divided by the count in float32.
Status MeanRoundingSum(const Tensor& x, const ReducePlan& plan, const ir::Attribute& attr, Tensor& result) {
  const auto [format, opt] = UnpackFormat(attr.i);
  NPUGAP_RETURN_IF_ERROR((RunReduce<SumReducer<float>, float>(x, plan, result)));
  const float count = static_cast<float>(plan.reduce);
  for (float& v : result.span<float>())
    v = plan.reduce > 0 ? numerics::RoundScalar(format, v, opt) / count : NAN;
  return Status::Ok();
}

// One kernel per reducer. ReduceSum takes its axes from input 1 from opset 13 on; every
// other Reduce* keeps the attribute up to opset 17.
template <template <typename> class Reducer, bool kAxesInputFrom13>
Status ReduceKernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  if (IsHalfType(x.dtype())) return RunInFloat32(ctx, &ReduceKernel<Reducer, kAxesInputFrom13>);
  NPUGAP_ASSIGN_OR_RETURN(ReducePlan plan, MakeReducePlan(ctx, x, kAxesInputFrom13 && ctx.opset >= 13));
  constexpr bool kSum = std::is_same_v<Reducer<float>, SumReducer<float>>;
  constexpr bool kMean = std::is_same_v<Reducer<float>, MeanReducer<float>>;
  if constexpr (kSum || kMean) {
    if (const ir::Attribute* a = ctx.node.FindAttribute(kAccumulateFormatAttr);
        a && x.dtype() == DType::kFloat32) {
      return ReduceInFormat(x, plan, kMean, *a, ctx.outputs[0]);
    }
  }
  if constexpr (kMean) {
    if (const ir::Attribute* a = ctx.node.FindAttribute(kMeanRoundsSumAttr);
        a && x.dtype() == DType::kFloat32)
      return MeanRoundingSum(x, plan, *a, ctx.outputs[0]);
  }
  Status status = Status::Ok();
  const bool covered = DispatchNumeric(
      x.dtype(), [&]<typename T>() { status = RunReduce<Reducer<T>, T>(x, plan, ctx.outputs[0]); });
  if (!covered) return ctx.UnsupportedDType(x.dtype());
  return status;
}

// ArgMax / ArgMin along one axis. Ties pick the first index, or the last with
// select_last_index (opset 12+). NaN counts as the extreme value, as in numpy.
template <bool kMax, bool kLast, typename T>
bool Better(T x, T best) {
  if constexpr (std::is_floating_point_v<T>) {
    if (x != x) return kLast || best == best;  // NaN wins, the first (or last) one
    if (best != best) return false;
  }
  if constexpr (kMax) {
    return kLast ? x >= best : x > best;
  } else {
    return kLast ? x <= best : x < best;
  }
}

template <bool kMax, bool kLast, typename T>
void ArgReduce(const T* x, int64_t* y, int64_t outer, int64_t n, int64_t inner) {
  if (inner == 1) {
    ParallelFor(outer, std::max<int64_t>(1, kRowBlock / n), [&](int64_t begin, int64_t end) {
      for (int64_t o = begin; o < end; ++o) {
        const T* row = x + o * n;
        T best = row[0];
        int64_t best_index = 0;
        for (int64_t r = 1; r < n; ++r) {
          if (Better<kMax, kLast>(row[r], best)) {
            best = row[r];
            best_index = r;
          }
        }
        y[o] = best_index;
      }
    });
    return;
  }
  const int64_t blocks = (inner + kInnerBlock - 1) / kInnerBlock;
  ParallelFor(outer * blocks, std::max<int64_t>(1, kRowBlock / (n * kInnerBlock)),
              [&](int64_t begin, int64_t end) {
                T best[kInnerBlock];
                for (int64_t task = begin; task < end; ++task) {
                  const int64_t o = task / blocks;
                  const int64_t i0 = (task % blocks) * kInnerBlock;
                  const int64_t len = std::min(kInnerBlock, inner - i0);
                  const T* base = x + o * n * inner + i0;
                  int64_t* out = y + o * inner + i0;
                  for (int64_t i = 0; i < len; ++i) {
                    best[i] = base[i];
                    out[i] = 0;
                  }
                  for (int64_t r = 1; r < n; ++r) {
                    const T* row = base + r * inner;
                    for (int64_t i = 0; i < len; ++i) {
                      if (Better<kMax, kLast>(row[i], best[i])) {
                        best[i] = row[i];
                        out[i] = r;
                      }
                    }
                  }
                }
              });
}

template <bool kMax>
Status ArgKernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  if (IsHalfType(x.dtype())) return RunInFloat32(ctx, &ArgKernel<kMax>, {-1});
  const int64_t rank = x.rank();
  int64_t axis = ctx.node.GetInt("axis", 0);
  if (!NormalizeAxis(axis, rank)) {
    return ctx.Error("axis " + std::to_string(axis) + " is out of range for rank " + std::to_string(rank));
  }
  const bool keepdims = ctx.node.GetInt("keepdims", 1) != 0;
  const bool last = ctx.opset >= 12 && ctx.node.GetInt("select_last_index", 0) != 0;
  const int64_t n = x.dim(axis);
  Shape out_shape;
  for (int64_t d = 0; d < rank; ++d) {
    if (d != axis) {
      out_shape.push_back(x.dim(d));
    } else if (keepdims) {
      out_shape.push_back(1);
    }
  }
  NPUGAP_ASSIGN_OR_RETURN(Tensor y, Tensor::Create(DType::kInt64, out_shape));
  if (y.numel() > 0 && n == 0) return ctx.Error("cannot take the arg max/min over an empty axis");
  const int64_t outer = DimProduct(x.shape(), 0, axis);
  const int64_t inner = DimProduct(x.shape(), axis + 1, rank);
  const bool covered = DispatchNumeric(x.dtype(), [&]<typename T>() {
    if (y.numel() == 0) return;
    if (last) {
      ArgReduce<kMax, true>(x.data<T>(), y.data<int64_t>(), outer, n, inner);
    } else {
      ArgReduce<kMax, false>(x.data<T>(), y.data<int64_t>(), outer, n, inner);
    }
  });
  if (!covered) return ctx.UnsupportedDType(x.dtype());
  ctx.outputs[0] = std::move(y);
  return Status::Ok();
}

constexpr OpRow kReductionRows[] = {
    {"", "ReduceSum", 1, 17, &ReduceKernel<SumReducer, true>, &support::kVectorArith},
    {"", "ReduceMean", 1, 17, &ReduceKernel<MeanReducer, false>, &support::kVectorFloat},
    {"", "ReduceMax", 1, 17, &ReduceKernel<MaxReducer, false>, &support::kVectorArith},
    {"", "ReduceMin", 1, 17, &ReduceKernel<MinReducer, false>, &support::kVectorArith},
    {"", "ReduceProd", 1, 17, &ReduceKernel<ProdReducer, false>, &support::kVectorArith},
    {"", "ReduceL1", 1, 17, &ReduceKernel<L1Reducer, false>, &support::kVectorFloat},
    {"", "ReduceL2", 1, 17, &ReduceKernel<L2Reducer, false>, &support::kVectorFloat},
    {"", "ReduceLogSum", 1, 17, &ReduceKernel<LogSumReducer, false>, &support::kVectorFloat},
    {"", "ReduceLogSumExp", 1, 17, &ReduceKernel<LogSumExpReducer, false>, &support::kVectorFloat},
    {"", "ReduceSumSquare", 1, 17, &ReduceKernel<SumSquareReducer, false>, &support::kVectorFloat},
    {"", "ArgMax", 1, 17, &ArgKernel<true>, &support::kVectorArith},
    {"", "ArgMin", 1, 17, &ArgKernel<false>, &support::kVectorArith},
};

}  // namespace

std::span<const OpRow> ReductionOps() {
  static const std::vector<OpRow> rows = JoinRows(kReductionRows, reduction_internal::SoftmaxOps());
  return rows;
}

}  // namespace npugap::exec
