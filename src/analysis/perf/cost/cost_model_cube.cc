// The cube side of the cost model: the matrix view of matmul and convolution kernels from their
// device-format operands, padded to the fractal (docs/perf.md "Cube"). Its time, tiled over the
// cores and the on-chip buffers, is in cost_model_cube_time.cc.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <utility>
#include <vector>

#include "cost_model_internal.h"
#include "npugap/analysis/perf/calibrate/kernel_csv.h"

namespace npugap::analysis::perf::internal {
namespace {

int64_t RoundUp(int64_t v, int64_t to) { return to <= 0 ? v : (v + to - 1) / to * to; }

Status Bad(std::string_view what, const Operand* op) {
  return Status::InvalidArgument(op ? fmt::format("{} ({})", what, FormatOperand(*op)) : std::string(what));
}

const Operand* FindFormat(const std::vector<Operand>& ops, std::string_view format, size_t min_rank) {
  for (const Operand& op : ops) {
    if ((op.format == format || (format == "FracZ" && op.format == "FRACTAL_Z")) &&
        op.shape.size() >= min_rank)
      return &op;
  }
  return nullptr;
}

// MatMul / BatchMatMul: C (m x n) from the output, k from the dim of A that is not m.
Expected<CubeShape> MatMulShape(const Kernel& k) {
  if (k.inputs.size() < 2 || k.outputs.empty()) return Bad("matmul needs inputs A, B and an output", nullptr);
  const Operand& a = k.inputs[0];
  const Operand& b = k.inputs[1];
  const Operand& c = k.outputs[0];
  CubeShape s;
  const bool nz = c.format == "FRACTAL_NZ";
  const size_t tail = nz ? 4 : 2;  // NZ: [..., n1, m1, 16, 16]; ND: [..., m, n]
  if (c.shape.size() < tail || a.shape.size() < tail || b.shape.size() < tail) {
    return Bad(fmt::format("matmul operands need {} or more dims", tail), &c);
  }
  for (size_t i = 0; i + tail < c.shape.size(); ++i) s.batch *= c.shape[i];
  s.batch_matmul = s.batch > 1;
  const auto dim = [tail](const Operand& op, size_t i) { return op.shape[op.shape.size() - tail + i]; };
  const int64_t unit = nz ? 16 : 1;
  const int64_t m = nz ? dim(c, 1) : dim(c, 0);
  const int64_t n = nz ? dim(c, 0) : dim(c, 1);
  // A is m x k or k x m (transposed); in NZ its outer dims are swapped like C's.
  const int64_t a_m = nz ? dim(a, 1) : dim(a, 0);
  const int64_t a_other = nz ? dim(a, 0) : dim(a, 1);
  // k is the dim A and B share once C's m and n are accounted for: A holds one of m / n and k,
  // B the other and k, in either order (transposes, and a gradient dW = x^T dy whose inputs come
  // in the order of the forward op). Matching A alone is ambiguous when dims pad to the same
  // number of fractals (a batch of 1 and an output of 10 are both one 16-row fractal).
  const int64_t b0 = dim(b, 0), b1 = dim(b, 1);
  int64_t kk = 0;
  for (const auto [a_keep, a_k] : {std::pair{a_m, a_other}, std::pair{a_other, a_m}}) {
    for (const auto [b_keep, b_k] : {std::pair{b1, b0}, std::pair{b0, b1}}) {
      if (kk == 0 && a_k == b_k && ((a_keep == m && b_keep == n) || (a_keep == n && b_keep == m))) kk = a_k;
    }
  }
  if (kk == 0) {  // no consistent reading: A against m alone, as the operands are labelled
    if (a_m == m)
      kk = a_other;
    else if (a_other == m)
      kk = a_m;
    else
      kk = (b0 == n || b0 == n / std::max<int64_t>(unit, 1)) ? b1 : b0;
  }
  s.m = m * unit;
  s.n = n * unit;
  s.k = kk * unit;
  if (a.dtype == "int8" || a.dtype == "uint8") s.in_dtype = "int8";
  s.divisor_tiling = true;
  return s;
}

// How many times larger the unfolded (im2col) matrix is than the tensor it is built from.
double Expansion(int64_t matrix_elements, const Operand& source) {
  const int64_t n = Elements(source);
  return n > 0 ? std::max(1.0, static_cast<double>(matrix_elements) / static_cast<double>(n)) : 1.0;
}

// NC1HWC0 spatial extent as the cube sees it: N images of H*W pixels, each image padded to whole
// 16-pixel fractals. [N, C1, H, W, C0] keeps one image's pixels together, so a fractal of the
// unfolded matrix (16 pixels x C0) does not straddle two images.
int64_t Pixels(const Operand& op) { return op.shape[0] * RoundUp(op.shape[2] * op.shape[3], 16); }

// The unfolded operand of a convolution with weight `w` (FracZ [C1 x kh x kw, ...]) over the
// feature map `x` with output `y`: load3d at the window's stride, unless the window is a 1x1
// stride-1 one, which the cube loads as it lies (load2d). Row switches follow the width of
// `rows`, the map whose pixels the unfolded matrix runs along.
void SetLoad3d(CubeShape& s, CubeShape::Load3d where, const Operand& w, const Operand& x, const Operand& y,
               const Operand& rows) {
  if (w.shape.empty() || x.shape.size() != 5 || y.shape.size() != 5 || rows.shape.size() != 5) return;
  const bool window_1x1 = w.shape[0] == x.shape[1];
  const int stride = y.shape[3] > 0 ? static_cast<int>(std::max<int64_t>(1, x.shape[3] / y.shape[3])) : 1;
  if (window_1x1 && stride == 1) return;
  s.load3d = where;
  s.load3d_stride = stride;
  s.load3d_row_switches = Load3dRowSwitches(rows.shape[3]);
}

// Whether an input of a weight gradient can be its x or dy. Conv2DBackpropFilter takes nothing
// else (TBE's conv2d_backprop_filter_d(x, out_backprop, y, ...)), so a one-image 1x1 map counts:
// the squeeze-excitation convolutions at batch 1, which the kernel's load3d accepts ("load3d
// support h,w is 1" where the padded map equals the kernel). FusedDbnDw also takes per-channel
// [1, C1, 1, 1, C0] tensors, which only the feature-map test tells apart from x and dy.
bool IsWeightGradientMap(std::string_view op, const Operand& in) {
  if (op == "Conv2DBackpropFilter") return in.format == "NC1HWC0" && in.shape.size() == 5;
  return IsFeatureMap(in);
}

// x and dy of a weight gradient dW = x^T dy (FracZ [Cin1 x kh x kw, Cout1, 16, 16]): dy has
// Cout1 channel blocks, x a count that divides dW's rows and at least dy's height. The input order
// differs between kernels (Conv2DBackpropFilter lists dy first, FusedDbnDw x first).
std::optional<std::pair<const Operand*, const Operand*>> FilterGradientPair(std::string_view op,
                                                                            const Kernel& k,
                                                                            const Operand& dw) {
  for (const Operand& x : k.inputs) {
    for (const Operand& dy : k.inputs) {
      if (&x == &dy || !IsWeightGradientMap(op, x) || !IsWeightGradientMap(op, dy) || x.shape[1] <= 0)
        continue;
      if (dy.shape[1] == dw.shape[1] && dw.shape[0] % x.shape[1] == 0 && x.shape[2] >= dy.shape[2])
        return std::pair{&x, &dy};
    }
  }
  return std::nullopt;
}

Expected<CubeShape> ConvShape(std::string_view op, const Kernel& k) {
  CubeShape s;
  s.conv = true;
  if (op == "Conv2D") {
    const Operand* w = FindFormat(k.inputs, "FracZ", 4);
    if (!w) return Bad("Conv2D needs a FracZ weight input", nullptr);
    const Operand* y = FindFormat(k.outputs, "NC1HWC0", 5);
    if (!y) return Bad("Conv2D needs an NC1HWC0 output", nullptr);
    s.m = Pixels(*y);  // output pixels
    s.images = y->shape[0];
    s.k = w->shape[0] * w->shape[3];  // C1 * kh * kw * C0
    s.n = w->shape[1] * w->shape[2];  // Cout
    // A is the im2col of x, built on chip (load3d L1 -> L0A): HBM and L2 deliver x itself.
    s.a_expand = Expansion(s.m * s.k, k.inputs[0]);
    const Operand& x = k.inputs[0];
    if (x.format == "NC1HWC0" && x.shape.size() == 5) {
      SetLoad3d(s, CubeShape::Load3d::kA, *w, x, *y, *y);
      // TBE's conv2d compute (`_fmap_ddr2l1`, strideh_opti_flag: a 1x1 kernel, stride_h > 1, no
      // padding) loads only every stride_h-th row of x into L1, whole rows, and runs load3d at
      // stride_h 1: x is read once over its H / stride_h rows, the other rows never.
      const int64_t h = x.shape[2], oh = y->shape[2];
      const int64_t stride_h = oh > 0 ? h / oh : 1;
      if (w->shape[0] == x.shape[1] && stride_h > 1 && (h - 1) / stride_h + 1 == oh) {
        const int64_t read = Elements(x) / h * oh;
        s.a_expand = static_cast<double>(s.m * s.k) / static_cast<double>(read);
        s.unread_elements = Elements(x) - read;
      }
    }
  } else if (op == "Conv2DBackpropInput") {
    // dx = dy * W^T. TBE's general pattern (conv2d_backprop_input_general_compute.py) dilates a
    // strided forward's dy with zeros in UB and runs a stride-1 convolution over dx's pixels, the
    // zeros included. A 1x1 kernel takes the kernel-size-1 pattern instead
    // (conv2d_backprop_input_opti_compute.py, DeConvKernelSize1Pattern): the MADs run over dy's
    // pixels, and the result is dilated to dx in UB (a zero fill and a strided select), so the
    // drain writes dx's pixels, zeros included.
    const Operand* w = FindFormat(k.inputs, "FracZ", 4);
    const Operand* dx = FindFormat(k.outputs, "NC1HWC0", 5);
    if (!w || !dx) return Bad("Conv2DBackpropInput needs a FracZ weight and an NC1HWC0 output", nullptr);
    const Operand& dy = k.inputs[0];
    s.n = dx->shape[1] * dx->shape[4];
    s.k = w->shape[0] * w->shape[3] * w->shape[1] * w->shape[2] / std::max<int64_t>(s.n, 1);
    const bool kernel_1x1 = w->shape[0] == dx->shape[1];  // FracZ rows: C1 of dx x kh x kw
    if (kernel_1x1 && dy.format == "NC1HWC0" && dy.shape.size() == 5 && Pixels(dy) < Pixels(*dx)) {
      s.m = Pixels(dy);
      s.images = dy.shape[0];
      s.c_expand = static_cast<double>(Pixels(*dx)) / static_cast<double>(s.m);
    } else {
      s.m = Pixels(*dx);
      s.images = dx->shape[0];
      // The general pattern convolves the dilated dy at stride 1 over dx's pixels (load3d).
      if (!kernel_1x1) SetLoad3d(s, CubeShape::Load3d::kA, *w, *dx, *dx, *dx);
    }
    s.batch_cores_only = dy.format == "NC1HWC0" && dy.shape.size() == 5 && Pixels(dy) < Pixels(*dx);
    s.a_expand = Expansion(s.m * s.k, dy);  // dy, unfolded (and for the general pattern dilated) on chip
  } else {  // Conv2DBackpropFilter, FusedDbnDw: dW = x^T dy, k over dy's pixels
    const Operand* dw = FindFormat(k.outputs, "FracZ", 4);
    if (!dw) return Bad(fmt::format("{} needs a FracZ weight-gradient output", op), nullptr);
    s.m = dw->shape[1] * dw->shape[2];
    s.n = dw->shape[0] * dw->shape[3];
    // k runs over dy's pixels and B is the im2col of x, unfolded on chip (load3d L1 -> L0B). The
    // pair is found by its channel blocks: FusedDbnDw also takes the BN input (as large as dy) and
    // five per-channel [1, C1, 1, 1, C0] tensors, which are neither.
    if (const auto pair = FilterGradientPair(op, k, *dw)) {
      s.k = Pixels(*pair->second);
      s.b_expand = Expansion(s.n * s.k, *pair->first);
      SetLoad3d(s, CubeShape::Load3d::kB, *dw, *pair->first, *pair->second, *pair->second);
    } else {  // no x / dy pair by channels: the smallest map is dy, the largest x
      int64_t pixels = 0;
      const Operand* x = nullptr;
      for (const Operand& in : k.inputs) {
        if (!IsWeightGradientMap(op, in)) continue;
        pixels = pixels == 0 ? Pixels(in) : std::min(pixels, Pixels(in));
        if (!x || Elements(in) > Elements(*x)) x = &in;
      }
      if (pixels == 0) return Bad(fmt::format("{} needs NC1HWC0 activation inputs", op), nullptr);
      s.k = pixels;
      s.b_expand = Expansion(s.n * s.k, *x);
    }
  }
  return s;
}

}  // namespace

bool IsCubeOp(std::string_view t) {
  return t == "MatMul" || t == "MatMulV2" || t == "BatchMatMul" || t == "BatchMatMulV2" || t == "Conv2D" ||
         t == "Conv2DBackpropInput" || t == "Conv2DBackpropFilter" || t == "FusedDbnDw" ||
         t == "Conv2DTranspose" || IsDepthwiseCubeOp(t);
}

// TBE's matmul UB fusion (mmad_schedule.py, `sche_l1_mkn_l0_k_frac_frac`) computes the fused
// elementwise part per L0C tile: the L0C -> UB copy (tensor_c_ub), the GM -> UB copies of the
// epilogue's own inputs (`cache_read` of each placeholder, emitted as dma_copy) and its vector
// instructions are all `compute_at` the UB-chunk axis inside the tile loop. The AI Core runs each
// instruction queue in order and the queues beside each other, synchronised only where data
// depends (Huawei, Ascend AI processor "Pipeline": V, M, MTE1, MTE2, MTE3, set_flag / wait_flag):
// the next tile's MADs (M, with MTE2 / MTE1 for its operands) need this tile's epilogue only
// through L0C, free once the tile has been copied to UB. So the epilogue runs beside the next
// tile's MADs. Not claimed for a convolution: its schedules buffer L0C and UB as their tiling's
// CL0_pbuffer / CUB_pbuffer say, not as this one does.
bool EpilogueOverlapsCube(std::string_view cube_op) {
  return cube_op.find("MatMul") != std::string_view::npos;
}

// The inputs past A and B of C's size at least, which the epilogue itself loads per tile; a bias,
// a scalar or a broadcast mask is smaller than C.
std::vector<const Operand*> EpilogueGmInputs(const Kernel& kernel) {
  std::vector<const Operand*> inputs;
  if (kernel.outputs.empty()) return inputs;
  const int64_t c = Elements(kernel.outputs[0]);
  for (size_t i = 2; i < kernel.inputs.size(); ++i) {
    if (Elements(kernel.inputs[i]) >= c) inputs.push_back(&kernel.inputs[i]);
  }
  return inputs;
}

Expected<CubeShape> DeriveCubeShape(std::string_view cube_op, const Kernel& kernel,
                                    const target::Target& target) {
  // Conv2DTranspose (conv2d_transpose_d) is CANN's backprop-input convolution with dy as x.
  const std::string_view conv_op = cube_op == "Conv2DTranspose" ? "Conv2DBackpropInput" : cube_op;
  Expected<CubeShape> shape = IsDepthwiseCubeOp(cube_op) ? DepthwiseShape(cube_op, kernel)
                              : cube_op.substr(0, 4) == "Conv" || cube_op == "FusedDbnDw"
                                  ? ConvShape(conv_op, kernel)
                                  : MatMulShape(kernel);
  if (!shape.ok()) return shape;
  CubeShape s = *shape;
  // Which tiler cut the kernel shows in its launched block_dim (CubeTime); a kernel whose
  // block_dim the model chooses (0: a lowered graph) keeps the free split.
  s.divisor_tiling = s.divisor_tiling && kernel.block_dim > 0;
  // Element sizes as stored: the cube's loads and stores move the operands' bytes.
  const auto item = [](const Operand& op) {
    const int64_t n = Elements(op);
    return n > 0 ? std::max<int64_t>(1, StoredBytes(op, 1, true) / n) : ItemSize(op.dtype);
  };
  if (!kernel.inputs.empty()) s.in_bytes = item(kernel.inputs[0]);
  // L0C holds fp32 sums; C is written in its labelled type, as stored: a float32 label in an NZ
  // block of 16 is fp16 (the vector kernels' rule), an NC1HWC0 label stands (a convolution's
  // labels are its registered ones by then: WithConvolutionDtypes).
  if (!kernel.outputs.empty()) {
    const Operand& c = kernel.outputs[0];
    const int64_t n = Elements(c);
    s.out_bytes = n > 0 ? std::max<int64_t>(1, StoredBytes(c, 1, false) / n) : ItemSize(c.dtype);
  }
  if (s.batch <= 0 || s.m <= 0 || s.n <= 0 || s.k <= 0) {
    return Status::InvalidArgument(
        fmt::format("{}: non-positive matrix view {}x{}x{}x{}", cube_op, s.batch, s.m, s.n, s.k));
  }
  // Pad to the fractal [m, k, n] of the cube input type (16x16x16 fp16, 16x32x16 int8).
  const auto f = target.layout.fractal.find(s.in_dtype);
  if (f != target.layout.fractal.end()) {
    s.m = RoundUp(s.m, f->second.value[0]);
    s.k = RoundUp(s.k, f->second.value[1]);
    s.n = RoundUp(s.n, f->second.value[2]);
  }
  // Which tiler cut a 2-D matmul shows in its launched block_dim: the m x n split of TBE's static
  // schedule (cost_model_cube_static.cc) on the chip's cores. That count can also be a divisor
  // split of CANN's cache tiling (32 = 32 x 1 over 1024 x 48 fractals); the static schedule is
  // taken then (a choice, docs/fidelity.md session 14 mmtrue2). Otherwise the split stays the
  // cache tiling's or the free one (CubeTime). A kernel whose block_dim the model chooses (0: a
  // lowered graph) shows no tiler and keeps the free split.
  const bool matmul = cube_op.find("MatMul") != std::string_view::npos;
  if (matmul && s.batch == 1 && kernel.block_dim > 0 && target.kernel && target.kernel->static_matmul_m_l0) {
    StaticSplit split = StaticCoreSplit(s.m, s.n, s.k, target.compute.cube_cores.value);
    // `get_perfect_core_num` takes its core count from the build's `Device_core_num`, not from
    // the chip: a block_dim below the chip's cores that no divisor split of the cache tiling
    // gives, but that the static split over that many cores does (30 = 1 x 30), is read as the
    // static schedule built for block_dim cores (docs/fidelity.md, session 14 mmtrue3).
    if (split.m * split.n != kernel.block_dim && kernel.block_dim < target.compute.cube_cores.value &&
        !HasDivisorSplit(1, (s.m + 15) / 16, (s.n + 15) / 16, (s.k + 15) / 16, s.split_k, kernel.block_dim)) {
      split = StaticCoreSplit(s.m, s.n, s.k, kernel.block_dim);
    }
    if (split.m * split.n == kernel.block_dim) {
      s.static_m_cores = split.m;
      s.static_n_cores = split.n;
    }
  }
  return s;
}

}  // namespace npugap::analysis::perf::internal
