// Einsum-12 of the linalg family: parses the equation into labels, sums away labels private to
// one operand, contracts operands pairwise (left to right) and maps each pairwise contraction
// that is a batched matrix product onto GEMM; everything else runs a plain strided loop nest.
#include <algorithm>
#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "linalg_internal.h"
#include "npugap/exec/broadcast.h"
#include "npugap/exec/dispatch.h"
#include "npugap/exec/parallel.h"

namespace npugap::exec::linalg_internal {
namespace {

// Letters get label ids in ASCII order ('A'..'Z' = 0..25, 'a'..'z' = 26..51), so sorting ids
// sorts the implicit output the way numpy does. Ellipsis dims get ids from kNumLetters on.
constexpr int kNumLetters = 52;

int LetterLabel(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return 26 + (c - 'a');
  return -1;
}

struct EinsumTerm {
  std::vector<int> letters;
  int ellipsis_at = -1;  // index into letters before which "..." stands, -1 when absent
};

Expected<EinsumTerm> ParseTerm(const KernelContext& ctx, std::string_view text) {
  EinsumTerm term;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '.') {
      if (text.substr(i, 3) != "..." || term.ellipsis_at >= 0) {
        return ctx.Error(fmt::format("equation term '{}' has a malformed or repeated ellipsis", text));
      }
      term.ellipsis_at = static_cast<int>(term.letters.size());
      i += 2;
      continue;
    }
    const int label = LetterLabel(text[i]);
    if (label < 0)
      return ctx.Error(fmt::format("equation term '{}' has invalid character '{}'", text, text[i]));
    term.letters.push_back(label);
  }
  return term;
}

struct EinsumPlan {
  std::vector<std::vector<int>> input_labels;  // label of every dim of every input
  std::vector<int> output_labels;
  std::vector<int64_t> label_size;  // by label id
};

Expected<EinsumPlan> PlanEinsum(const KernelContext& ctx, std::string equation) {
  std::erase(equation, ' ');
  const size_t arrow = equation.find("->");
  const std::string lhs = equation.substr(0, arrow);
  std::vector<EinsumTerm> terms;
  for (size_t start = 0;;) {
    const size_t comma = lhs.find(',', start);
    NPUGAP_ASSIGN_OR_RETURN(EinsumTerm term,
                            ParseTerm(ctx, std::string_view(lhs).substr(start, comma - start)));
    terms.push_back(std::move(term));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  if (terms.size() != ctx.num_inputs()) {
    return ctx.Error(fmt::format("equation '{}' has {} operand terms but the node has {} inputs", equation,
                                 terms.size(), ctx.num_inputs()));
  }

  // Ellipsis width: the largest number of dims any "..." stands for (right-aligned broadcast).
  int64_t ellipsis_rank = 0;
  for (size_t i = 0; i < terms.size(); ++i) {
    const int64_t rank = ctx.input(i).rank();
    const auto letters = static_cast<int64_t>(terms[i].letters.size());
    if (terms[i].ellipsis_at < 0 ? rank != letters : rank < letters) {
      return ctx.Error(
          fmt::format("equation term {} names {} dims but input {} has rank {}", i, letters, i, rank));
    }
    if (terms[i].ellipsis_at >= 0) ellipsis_rank = std::max(ellipsis_rank, rank - letters);
  }

  EinsumPlan plan;
  plan.label_size.assign(static_cast<size_t>(kNumLetters + ellipsis_rank), -1);
  std::vector<int> letter_count(kNumLetters, 0);
  for (size_t i = 0; i < terms.size(); ++i) {
    const EinsumTerm& term = terms[i];
    const Shape& shape = ctx.input(i).shape();
    std::vector<int>& labels = plan.input_labels.emplace_back();
    const int64_t own_ellipsis = static_cast<int64_t>(shape.size() - term.letters.size());
    for (size_t j = 0; j <= term.letters.size(); ++j) {
      if (static_cast<int>(j) == term.ellipsis_at) {
        for (int64_t e = 0; e < own_ellipsis; ++e)
          labels.push_back(kNumLetters + ellipsis_rank - own_ellipsis + e);
      }
      if (j < term.letters.size()) {
        labels.push_back(term.letters[j]);
        ++letter_count[static_cast<size_t>(term.letters[j])];
      }
    }
    for (size_t d = 0; d < labels.size(); ++d) {
      int64_t& size = plan.label_size[static_cast<size_t>(labels[d])];
      const int64_t dim = shape[d];
      const bool is_ellipsis = labels[d] >= kNumLetters;
      if (size < 0 || (is_ellipsis && size == 1)) {
        size = dim;
      } else if (size != dim && !(is_ellipsis && dim == 1)) {
        return ctx.Error(
            fmt::format("einsum dim {} of input {} has size {} but the same label has size {} elsewhere", d,
                        i, dim, size));
      }
    }
  }

  if (arrow == std::string::npos) {
    // Implicit output: the ellipsis dims, then letters used exactly once, alphabetically.
    for (int64_t e = 0; e < ellipsis_rank; ++e)
      plan.output_labels.push_back(static_cast<int>(kNumLetters + e));
    for (int l = 0; l < kNumLetters; ++l) {
      if (letter_count[static_cast<size_t>(l)] == 1) plan.output_labels.push_back(l);
    }
  } else {
    NPUGAP_ASSIGN_OR_RETURN(EinsumTerm out, ParseTerm(ctx, std::string_view(equation).substr(arrow + 2)));
    if (out.ellipsis_at < 0 && ellipsis_rank > 0) {
      // As numpy: dims covered by "..." in the inputs must appear in the output.
      return ctx.Error(
          fmt::format("output of equation '{}' needs '...' for the inputs' ellipsis dims", equation));
    }
    for (size_t j = 0; j <= out.letters.size(); ++j) {
      if (static_cast<int>(j) == out.ellipsis_at) {
        for (int64_t e = 0; e < ellipsis_rank; ++e)
          plan.output_labels.push_back(static_cast<int>(kNumLetters + e));
      }
      if (j == out.letters.size()) break;
      const int l = out.letters[j];
      if (letter_count[static_cast<size_t>(l)] == 0) {
        return ctx.Error(fmt::format("output label {} of equation '{}' is not in any input", j, equation));
      }
      if (std::count(out.letters.begin(), out.letters.end(), l) > 1) {
        return ctx.Error(fmt::format("output of equation '{}' repeats a label", equation));
      }
      plan.output_labels.push_back(l);
    }
  }
  return plan;
}

bool Contains(const std::vector<int>& labels, int label) {
  return std::find(labels.begin(), labels.end(), label) != labels.end();
}

// An operand as a strided view with one dim per distinct label. A label repeated in an input
// (a diagonal) becomes one dim whose stride is the sum of the repeated dims' strides; a size-1
// ellipsis dim broadcast against a larger one gets stride 0.
template <typename T>
struct View {
  const T* data = nullptr;
  std::vector<int> labels;
  std::vector<int64_t> strides;

  int64_t StrideOf(int label) const {
    for (size_t i = 0; i < labels.size(); ++i) {
      if (labels[i] == label) return strides[i];
    }
    return 0;
  }
};

template <typename T>
View<T> MakeView(const Tensor& t, const std::vector<int>& dim_labels,
                 const std::vector<int64_t>& label_size) {
  View<T> v;
  v.data = t.data<T>();
  const std::vector<int64_t> strides = ContiguousStrides(t.shape());
  for (size_t d = 0; d < dim_labels.size(); ++d) {
    const int64_t stride =
        (t.dim(static_cast<int64_t>(d)) == 1 && label_size[static_cast<size_t>(dim_labels[d])] != 1)
            ? 0
            : strides[d];
    auto it = std::find(v.labels.begin(), v.labels.end(), dim_labels[d]);
    if (it == v.labels.end()) {
      v.labels.push_back(dim_labels[d]);
      v.strides.push_back(stride);
    } else {
      v.strides[static_cast<size_t>(it - v.labels.begin())] += stride;
    }
  }
  return v;
}

// out[target labels] = sum over the other labels of the product of all operands. The plain loop
// nest that handles every equation: an odometer over the output, and for each output element an
// odometer over the summed labels with the innermost one as a tight loop.
template <typename T>
class GeneralContraction {
 public:
  GeneralContraction(const std::vector<View<T>>& ops, const std::vector<int>& target,
                     const std::vector<int64_t>& label_size)
      : ops_(ops), n_ops_(ops.size()), n_out_(target.size()) {
    std::vector<int> reduce;
    for (const View<T>& v : ops) {
      for (int l : v.labels) {
        if (!Contains(target, l) && !Contains(reduce, l)) reduce.push_back(l);
      }
    }
    n_red_ = reduce.size();
    out_size_.resize(n_out_);
    red_size_.resize(n_red_);
    out_stride_.resize(n_ops_ * n_out_);
    red_stride_.resize(n_ops_ * n_red_);
    for (size_t d = 0; d < n_out_; ++d) {
      out_size_[d] = label_size[static_cast<size_t>(target[d])];
      out_numel_ *= out_size_[d];
      for (size_t o = 0; o < n_ops_; ++o) out_stride_[o * n_out_ + d] = ops[o].StrideOf(target[d]);
    }
    for (size_t d = 0; d < n_red_; ++d) {
      red_size_[d] = label_size[static_cast<size_t>(reduce[d])];
      red_numel_ *= red_size_[d];
      for (size_t o = 0; o < n_ops_; ++o) red_stride_[o * n_red_ + d] = ops[o].StrideOf(reduce[d]);
    }
    inner_ = n_red_ == 0 ? 1 : red_size_[n_red_ - 1];
    red_outer_ = inner_ == 0 ? 0 : red_numel_ / inner_;
  }

  void Run(T* out) const {
    ParallelFor(out_numel_, std::max<int64_t>(1, 16384 / std::max<int64_t>(red_numel_, 1)),
                [&](int64_t begin, int64_t end) { RunRange(out, begin, end); });
  }

 private:
  using Acc = std::conditional_t<std::is_floating_point_v<T>, double, uint64_t>;

  void RunRange(T* out, int64_t begin, int64_t end) const {
    std::vector<int64_t> out_coord(n_out_, 0), base(n_ops_, 0), red_coord(n_red_, 0), off(n_ops_, 0);
    std::vector<int64_t> inner_stride(n_ops_, 0);
    for (size_t o = 0; o < n_ops_ && n_red_ > 0; ++o) inner_stride[o] = red_stride_[o * n_red_ + n_red_ - 1];
    int64_t rest = begin;
    for (size_t d = n_out_; d-- > 0;) {
      out_coord[d] = rest % out_size_[d];
      rest /= out_size_[d];
      for (size_t o = 0; o < n_ops_; ++o) base[o] += out_coord[d] * out_stride_[o * n_out_ + d];
    }
    for (int64_t idx = begin; idx < end; ++idx) {
      Acc sum = 0;
      off = base;
      std::fill(red_coord.begin(), red_coord.end(), 0);
      for (int64_t r = 0; r < red_outer_; ++r) {
        sum += InnerSum(off, inner_stride);
        Step(red_coord, off, red_size_, red_stride_, n_red_ == 0 ? 0 : n_red_ - 1, n_red_);
      }
      out[idx] = static_cast<T>(sum);
      Step(out_coord, base, out_size_, out_stride_, n_out_, n_out_);
    }
  }

  // Sum over the innermost summed label of the product of the operands.
  Acc InnerSum(const std::vector<int64_t>& off, const std::vector<int64_t>& stride) const {
    Acc sum = 0;
    if (n_ops_ == 1) {
      const T* p = ops_[0].data + off[0];
      for (int64_t j = 0; j < inner_; ++j) sum += static_cast<Acc>(p[j * stride[0]]);
    } else if (n_ops_ == 2) {
      const T* p = ops_[0].data + off[0];
      const T* q = ops_[1].data + off[1];
      for (int64_t j = 0; j < inner_; ++j)
        sum += static_cast<Acc>(p[j * stride[0]]) * static_cast<Acc>(q[j * stride[1]]);
    } else {
      for (int64_t j = 0; j < inner_; ++j) {
        Acc prod = 1;
        for (size_t o = 0; o < n_ops_; ++o) prod *= static_cast<Acc>(ops_[o].data[off[o] + j * stride[o]]);
        sum += prod;
      }
    }
    return sum;
  }

  // Advances the odometer over dims [0, dims) (strides laid out [operand][rank]), keeping every
  // operand's offset in step.
  void Step(std::vector<int64_t>& coord, std::vector<int64_t>& off, const std::vector<int64_t>& size,
            const std::vector<int64_t>& stride, size_t dims, size_t rank) const {
    for (size_t d = dims; d-- > 0;) {
      for (size_t o = 0; o < n_ops_; ++o) off[o] += stride[o * rank + d];
      if (++coord[d] < size[d]) return;
      for (size_t o = 0; o < n_ops_; ++o) off[o] -= coord[d] * stride[o * rank + d];
      coord[d] = 0;
    }
  }

  const std::vector<View<T>>& ops_;
  size_t n_ops_, n_out_, n_red_ = 0;
  std::vector<int64_t> out_size_, red_size_, out_stride_, red_stride_;
  int64_t out_numel_ = 1, red_numel_ = 1, inner_ = 1, red_outer_ = 0;
};

template <typename T>
void ContractGeneral(const std::vector<View<T>>& ops, const std::vector<int>& target,
                     const std::vector<int64_t>& label_size, T* out) {
  GeneralContraction<T>(ops, target, label_size).Run(out);
}

// The stride of a group of labels read as one flattened dim of a view, or false when the group
// is not laid out as one (e.g. transposed inside the group). An empty group has size 1.
template <typename T>
bool FlattenGroup(const View<T>& v, const std::vector<int>& group, const std::vector<int64_t>& label_size,
                  int64_t* stride) {
  int64_t expected = -1;  // the stride the next-outer dim must have
  *stride = 0;
  for (size_t i = group.size(); i-- > 0;) {
    const int64_t size = label_size[static_cast<size_t>(group[i])];
    if (size == 1) continue;
    const int64_t s = v.StrideOf(group[i]);
    if (expected < 0) {
      *stride = s;
    } else if (s != expected) {
      return false;
    }
    expected = s * size;
  }
  return true;
}

// A [batch, rows, cols] operand ready for Gemm: pointer, transpose flag and strides.
template <typename T>
struct GemmOperand {
  const T* data = nullptr;
  bool trans = false;
  int64_t ld = 0;
  int64_t batch_stride = 0;
};

template <typename T>
GemmOperand<T> PrepareGemmOperand(const View<T>& v, const std::vector<int>& batch,
                                  const std::vector<int>& rows, const std::vector<int>& cols,
                                  const std::vector<int64_t>& label_size,
                                  std::deque<std::vector<T>>& storage) {
  auto group_size = [&](const std::vector<int>& g) {
    int64_t n = 1;
    for (int l : g) n *= label_size[static_cast<size_t>(l)];
    return n;
  };
  const int64_t nb = group_size(batch), nr = group_size(rows), nc = group_size(cols);
  int64_t bs = 0, rs = 0, cs = 0;
  GemmOperand<T> op;
  if (FlattenGroup(v, batch, label_size, &bs) && FlattenGroup(v, rows, label_size, &rs) &&
      FlattenGroup(v, cols, label_size, &cs)) {
    op.data = v.data;
    op.batch_stride = bs;
    if ((nc == 1 || cs == 1) && (nr == 1 || rs >= nc)) {
      op.ld = nr == 1 ? std::max<int64_t>(nc, 1) : rs;
      return op;
    }
    if ((nr == 1 || rs == 1) && (nc == 1 || cs >= nr)) {
      op.trans = true;
      op.ld = nc == 1 ? std::max<int64_t>(nr, 1) : cs;
      return op;
    }
  }
  // Pack into a contiguous [batch, rows, cols] copy.
  std::vector<int64_t> sizes, strides;
  for (const auto* g : {&batch, &rows, &cols}) {
    for (int l : *g) {
      sizes.push_back(label_size[static_cast<size_t>(l)]);
      strides.push_back(v.StrideOf(l));
    }
  }
  std::vector<T>& buf = storage.emplace_back(static_cast<size_t>(nb * nr * nc));
  GatherStrided(v.data, sizes, strides, buf.data());
  op.data = buf.data();
  op.trans = false;
  op.ld = std::max<int64_t>(nc, 1);
  op.batch_stride = nr * nc;
  return op;
}

// Fast path for two operands: when every label is a batch (both inputs and output), M (first
// input and output), N (second input and output) or K (both inputs, summed) label, the
// contraction is a batched matrix product. Returns false when the equation does not fit.
template <typename T>
bool TryContractAsGemm(const View<T>& a, const View<T>& b, const std::vector<int>& target,
                       const std::vector<int64_t>& label_size, T* out) {
  for (int l : a.labels) {
    if (!Contains(b.labels, l) && !Contains(target, l)) return false;
  }
  for (int l : b.labels) {
    if (!Contains(a.labels, l) && !Contains(target, l)) return false;
  }
  std::vector<int> batch, m, n, k;
  for (int l : target) {
    const bool in_a = Contains(a.labels, l), in_b = Contains(b.labels, l);
    (in_a && in_b ? batch : in_a ? m : n).push_back(l);
  }
  for (int l : a.labels) {
    if (Contains(b.labels, l) && !Contains(target, l)) k.push_back(l);
  }
  auto group_size = [&](const std::vector<int>& g) {
    int64_t s = 1;
    for (int l : g) s *= label_size[static_cast<size_t>(l)];
    return s;
  };
  const int64_t nb = group_size(batch), nm = group_size(m), nn = group_size(n), nk = group_size(k);
  if (nb * nm * nn == 0) return true;

  std::deque<std::vector<T>> storage;
  const GemmOperand<T> ga = PrepareGemmOperand(a, batch, m, k, label_size, storage);
  const GemmOperand<T> gb = PrepareGemmOperand(b, batch, k, n, label_size, storage);
  std::vector<int> natural = batch;
  natural.insert(natural.end(), m.begin(), m.end());
  natural.insert(natural.end(), n.begin(), n.end());
  T* c = out;
  if (natural != target) c = storage.emplace_back(static_cast<size_t>(nb * nm * nn)).data();

  auto run_batch = [&](int64_t i, bool parallel) {
    Gemm<T>(ga.trans, gb.trans, nm, nn, nk, ga.data + i * ga.batch_stride, ga.ld,
            gb.data + i * gb.batch_stride, gb.ld, T(0), c + i * nm * nn, nn, parallel);
  };
  if (nb > 1 && nm * nn * std::max<int64_t>(nk, 1) < (int64_t{1} << 18)) {
    ParallelFor(nb, 1, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) run_batch(i, false);
    });
  } else {
    for (int64_t i = 0; i < nb; ++i) run_batch(i, true);
  }

  if (c != out) {
    // Permute the [batch, m, n] result into the target order.
    const std::vector<int64_t> natural_strides = [&] {
      std::vector<int64_t> sizes;
      for (int l : natural) sizes.push_back(label_size[static_cast<size_t>(l)]);
      return ContiguousStrides(sizes);
    }();
    std::vector<int64_t> sizes, strides;
    for (int l : target) {
      sizes.push_back(label_size[static_cast<size_t>(l)]);
      strides.push_back(natural_strides[static_cast<size_t>(std::find(natural.begin(), natural.end(), l) -
                                                            natural.begin())]);
    }
    GatherStrided(static_cast<const T*>(c), sizes, strides, out);
  }
  return true;
}

template <typename T>
void Contract(const std::vector<View<T>>& ops, const std::vector<int>& target,
              const std::vector<int64_t>& label_size, T* out) {
  if (ops.size() == 2 && TryContractAsGemm(ops[0], ops[1], target, label_size, out)) return;
  ContractGeneral(ops, target, label_size, out);
}

template <typename T>
void RunEinsum(const KernelContext& ctx, const EinsumPlan& plan, Tensor& output) {
  const std::vector<int64_t>& label_size = plan.label_size;
  std::vector<View<T>> views;
  for (size_t i = 0; i < ctx.num_inputs(); ++i) {
    views.push_back(MakeView<T>(ctx.input(i), plan.input_labels[i], label_size));
  }
  T* out = output.data<T>();
  if (views.size() == 1) {
    const View<T>& v = views[0];
    if (std::all_of(v.labels.begin(), v.labels.end(),
                    [&](int l) { return Contains(plan.output_labels, l); })) {
      // Nothing summed: a transpose and/or diagonal, i.e. a strided copy.
      std::vector<int64_t> sizes, strides;
      for (int l : plan.output_labels) {
        sizes.push_back(label_size[static_cast<size_t>(l)]);
        strides.push_back(v.StrideOf(l));
      }
      GatherStrided(v.data, sizes, strides, out);
    } else {
      ContractGeneral(views, plan.output_labels, label_size, out);
    }
    return;
  }
  // True when label l is needed after operand `i`: by a later operand or by the output.
  auto needed_after = [&](int l, size_t i) {
    if (Contains(plan.output_labels, l)) return true;
    for (size_t j = i + 1; j < views.size(); ++j) {
      if (Contains(views[j].labels, l)) return true;
    }
    return false;
  };
  std::deque<std::vector<T>> storage;
  auto materialize = [&](std::vector<View<T>> ops, std::vector<int> labels) {
    int64_t numel = 1;
    for (int l : labels) numel *= label_size[static_cast<size_t>(l)];
    std::vector<T>& buf = storage.emplace_back(static_cast<size_t>(numel));
    Contract(ops, labels, label_size, buf.data());
    View<T> v;
    v.data = buf.data();
    v.labels = std::move(labels);
    std::vector<int64_t> sizes;
    for (int l : v.labels) sizes.push_back(label_size[static_cast<size_t>(l)]);
    v.strides = ContiguousStrides(sizes);
    return v;
  };
  // Sum away labels that occur in one operand only (and not in the output) first, so that the
  // pairwise products below fit the batched-GEMM fast path.
  for (size_t i = 0; i < views.size(); ++i) {
    std::vector<int> keep;
    for (int l : views[i].labels) {
      bool elsewhere = Contains(plan.output_labels, l);
      for (size_t j = 0; j < views.size() && !elsewhere; ++j)
        elsewhere = j != i && Contains(views[j].labels, l);
      if (elsewhere) keep.push_back(l);
    }
    if (keep.size() != views[i].labels.size()) views[i] = materialize({views[i]}, keep);
  }
  // Contract left to right, keeping only the labels still needed.
  View<T> acc = views[0];
  for (size_t i = 1; i < views.size(); ++i) {
    if (i + 1 == views.size()) {
      Contract<T>({acc, views[i]}, plan.output_labels, label_size, out);
      return;
    }
    std::vector<int> keep;
    for (int l : acc.labels) {
      if (Contains(views[i].labels, l) && needed_after(l, i)) keep.push_back(l);
    }
    for (int l : acc.labels) {
      if (!Contains(views[i].labels, l) && needed_after(l, i)) keep.push_back(l);
    }
    for (int l : views[i].labels) {
      if (!Contains(acc.labels, l) && needed_after(l, i)) keep.push_back(l);
    }
    acc = materialize({acc, views[i]}, keep);
  }
}

}  // namespace

// Einsum-12. All inputs share one numeric type; float32/float64 accumulate in double, integers
// wrap like two's complement.
Status EinsumKernel(KernelContext& ctx) {
  if (ctx.num_inputs() == 0) return ctx.Error("Einsum needs at least one input");
  for (size_t i = 0; i < ctx.num_inputs(); ++i) {
    if (!ctx.has_input(i)) return ctx.Error(fmt::format("input {} is missing", i));
    if (ctx.input(i).dtype() != ctx.input(0).dtype()) return ctx.Error("inputs have different element types");
  }
  const ir::Attribute* eq = ctx.node.FindAttribute("equation");
  if (eq == nullptr) return ctx.Error("missing attribute 'equation'");
  NPUGAP_ASSIGN_OR_RETURN(EinsumPlan plan, PlanEinsum(ctx, eq->s));
  Shape out_shape;
  for (int l : plan.output_labels) out_shape.push_back(plan.label_size[static_cast<size_t>(l)]);
  const DType dtype = ctx.input(0).dtype();
  NPUGAP_ASSIGN_OR_RETURN(Tensor output, Tensor::Create(dtype, out_shape));
  if (!DispatchNumeric(dtype, [&]<typename T>() { RunEinsum<T>(ctx, plan, output); })) {
    return ctx.UnsupportedDType(dtype);
  }
  ctx.outputs[0] = std::move(output);
  return Status::Ok();
}

}  // namespace npugap::exec::linalg_internal
