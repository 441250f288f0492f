// Detection op family: NonMaxSuppression and RoiAlign. Both follow the ONNX reference /
// onnxruntime algorithms exactly, since their outputs depend on tie-breaking and sampling details.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "npugap/exec/dispatch.h"
#include "npugap/exec/op_table.h"
#include "npugap/exec/parallel.h"

namespace npugap::exec {
namespace {

// ---- NonMaxSuppression ------------------------------------------------------------------------

struct Box {
  float y1, x1, y2, x2;  // normalised so that y1 <= y2 and x1 <= x2
};

Box ReadBox(const float* p, bool center_point) {
  if (center_point) {  // [x_center, y_center, width, height]
    const float half_w = p[2] / 2.f, half_h = p[3] / 2.f;
    return {p[1] - half_h, p[0] - half_w, p[1] + half_h, p[0] + half_w};
  }
  // [y1, x1, y2, x2] with any diagonal pair of corners.
  return {std::min(p[0], p[2]), std::min(p[1], p[3]), std::max(p[0], p[2]), std::max(p[1], p[3])};
}

// True when the IOU of a and b is above the threshold. Boxes of zero area never suppress.
bool SuppressByIou(const Box& a, const Box& b, float iou_threshold) {
  const float ix1 = std::max(a.x1, b.x1), iy1 = std::max(a.y1, b.y1);
  const float ix2 = std::min(a.x2, b.x2), iy2 = std::min(a.y2, b.y2);
  if (ix2 <= ix1 || iy2 <= iy1) return false;
  const float area_a = (a.x2 - a.x1) * (a.y2 - a.y1);
  const float area_b = (b.x2 - b.x1) * (b.y2 - b.y1);
  if (area_a <= 0.f || area_b <= 0.f) return false;
  const float inter = (ix2 - ix1) * (iy2 - iy1);
  return inter / (area_a + area_b - inter) > iou_threshold;
}

// NonMaxSuppression-10/11 (same semantics). Per batch and class, candidates with score above
// score_threshold (when given) are visited by descending score (ties: lower box index first);
// a candidate is kept unless its IOU with an already kept box exceeds iou_threshold, until
// max_output_boxes_per_class are kept (absent or 0: none). Output rows [batch, class, box] in
// batch, class, selection order.
Status NonMaxSuppressionKernel(KernelContext& ctx) {
  const Tensor& boxes = ctx.input(0);
  const Tensor& scores = ctx.input(1);
  if (boxes.dtype() != DType::kFloat32) return ctx.UnsupportedDType(boxes.dtype());
  if (scores.dtype() != DType::kFloat32) return ctx.UnsupportedDType(scores.dtype());
  if (boxes.rank() != 3 || boxes.dim(2) != 4) {
    return ctx.Error(
        fmt::format("boxes must be [batches, boxes, 4], got {}", ir::ShapeToString(boxes.shape())));
  }
  if (scores.rank() != 3 || scores.dim(0) != boxes.dim(0) || scores.dim(2) != boxes.dim(1)) {
    return ctx.Error(fmt::format("scores must be [{}, classes, {}], got {}", boxes.dim(0), boxes.dim(1),
                                 ir::ShapeToString(scores.shape())));
  }
  int64_t max_per_class = 0;
  if (ctx.has_input(2)) {
    const Tensor& t = ctx.input(2);
    if (t.numel() != 1) return ctx.Error("max_output_boxes_per_class must be a scalar");
    if (t.dtype() != DType::kInt64) return ctx.UnsupportedDType(t.dtype());
    max_per_class = std::max<int64_t>(t.data<int64_t>()[0], 0);
  }
  float iou_threshold = 0.f;
  if (ctx.has_input(3)) {
    const Tensor& t = ctx.input(3);
    if (t.numel() != 1) return ctx.Error("iou_threshold must be a scalar");
    if (t.dtype() != DType::kFloat32) return ctx.UnsupportedDType(t.dtype());
    iou_threshold = t.data<float>()[0];
    if (!(iou_threshold >= 0.f && iou_threshold <= 1.f)) {
      return ctx.Error(fmt::format("iou_threshold must be in [0, 1], got {}", iou_threshold));
    }
  }
  bool has_score_threshold = false;
  float score_threshold = 0.f;
  if (ctx.has_input(4)) {
    const Tensor& t = ctx.input(4);
    if (t.numel() != 1) return ctx.Error("score_threshold must be a scalar");
    if (t.dtype() != DType::kFloat32) return ctx.UnsupportedDType(t.dtype());
    has_score_threshold = true;
    score_threshold = t.data<float>()[0];
  }
  const int64_t center_point_box = ctx.node.GetInt("center_point_box", 0);
  if (center_point_box != 0 && center_point_box != 1) {
    return ctx.Error(fmt::format("center_point_box must be 0 or 1, got {}", center_point_box));
  }

  const int64_t batches = boxes.dim(0), num_boxes = boxes.dim(1), classes = scores.dim(1);
  std::vector<int64_t> selected;  // flattened [batch, class, box] triples
  std::vector<Box> batch_boxes(static_cast<size_t>(num_boxes));
  std::vector<int64_t> order;
  std::vector<Box> kept;
  for (int64_t b = 0; b < batches && max_per_class > 0; ++b) {
    const float* box_data = boxes.data<float>() + b * num_boxes * 4;
    for (int64_t i = 0; i < num_boxes; ++i)
      batch_boxes[static_cast<size_t>(i)] = ReadBox(box_data + i * 4, center_point_box);
    for (int64_t c = 0; c < classes; ++c) {
      const float* s = scores.data<float>() + (b * classes + c) * num_boxes;
      order.clear();
      for (int64_t i = 0; i < num_boxes; ++i) {
        if (!has_score_threshold || s[i] > score_threshold) order.push_back(i);
      }
      std::stable_sort(order.begin(), order.end(), [&](int64_t i, int64_t j) { return s[i] > s[j]; });
      kept.clear();
      for (int64_t i : order) {
        if (static_cast<int64_t>(kept.size()) >= max_per_class) break;
        const Box& candidate = batch_boxes[static_cast<size_t>(i)];
        bool suppressed = false;
        for (const Box& k : kept) {
          if (SuppressByIou(candidate, k, iou_threshold)) {
            suppressed = true;
            break;
          }
        }
        if (suppressed) continue;
        kept.push_back(candidate);
        selected.insert(selected.end(), {b, c, i});
      }
    }
  }
  const auto count = static_cast<int64_t>(selected.size() / 3);
  NPUGAP_ASSIGN_OR_RETURN(Tensor out, Tensor::Create(DType::kInt64, {count, 3}));
  std::copy(selected.begin(), selected.end(), out.data<int64_t>());
  ctx.outputs[0] = std::move(out);
  return Status::Ok();
}

// ---- RoiAlign ---------------------------------------------------------------------------------

// Four bilinear taps of one sample point (flat offsets into one H x W plane and weights).
struct Taps {
  int64_t pos[4] = {0, 0, 0, 0};
  double w[4] = {0, 0, 0, 0};
};

Taps BilinearTaps(double y, double x, int64_t height, int64_t width) {
  Taps t;
  // Samples more than one pixel outside the map contribute zero.
  if (y < -1.0 || y > static_cast<double>(height) || x < -1.0 || x > static_cast<double>(width)) return t;
  y = std::max(y, 0.0);
  x = std::max(x, 0.0);
  auto y_low = static_cast<int64_t>(y), x_low = static_cast<int64_t>(x);
  int64_t y_high, x_high;
  if (y_low >= height - 1) {
    y_high = y_low = height - 1;
    y = static_cast<double>(y_low);
  } else {
    y_high = y_low + 1;
  }
  if (x_low >= width - 1) {
    x_high = x_low = width - 1;
    x = static_cast<double>(x_low);
  } else {
    x_high = x_low + 1;
  }
  const double ly = y - static_cast<double>(y_low), lx = x - static_cast<double>(x_low);
  const double hy = 1.0 - ly, hx = 1.0 - lx;
  t.pos[0] = y_low * width + x_low;
  t.pos[1] = y_low * width + x_high;
  t.pos[2] = y_high * width + x_low;
  t.pos[3] = y_high * width + x_high;
  t.w[0] = hy * hx;
  t.w[1] = hy * lx;
  t.w[2] = ly * hx;
  t.w[3] = ly * lx;
  return t;
}

// RoiAlign-10/16. Each output bin averages (or, for mode=max, takes the max of) a
// sampling_ratio^2 grid of bilinear samples (adaptive ceil(roi_size / output_size) when 0).
// half_pixel (the opset-16 default) shifts ROI corners by -0.5; output_half_pixel (opset 10's
// only behaviour) does not, and instead forces ROIs to be at least 1x1. Like onnxruntime, max
// mode takes the max over samples of the max of the four *weighted* taps.
Status RoiAlignKernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  const Tensor& rois = ctx.input(1);
  const Tensor& batch_indices = ctx.input(2);
  if (x.rank() != 4)
    return ctx.Error(fmt::format("X must be [N, C, H, W], got {}", ir::ShapeToString(x.shape())));
  if (rois.rank() != 2 || rois.dim(1) != 4) {
    return ctx.Error(fmt::format("rois must be [num_rois, 4], got {}", ir::ShapeToString(rois.shape())));
  }
  if (batch_indices.rank() != 1 || batch_indices.dim(0) != rois.dim(0)) {
    return ctx.Error(fmt::format("batch_indices must be [{}], got {}", rois.dim(0),
                                 ir::ShapeToString(batch_indices.shape())));
  }
  if (rois.dtype() != x.dtype()) return ctx.Error("rois and X have different element types");
  if (batch_indices.dtype() != DType::kInt64 && batch_indices.dtype() != DType::kInt32) {
    return ctx.UnsupportedDType(batch_indices.dtype());
  }
  const std::string mode = ctx.node.GetString("mode", "avg");
  if (mode != "avg" && mode != "max") return ctx.Error(fmt::format("unknown mode '{}'", mode));
  const std::string transform = ctx.opset >= 16
                                    ? ctx.node.GetString("coordinate_transformation_mode", "half_pixel")
                                    : "output_half_pixel";
  if (transform != "half_pixel" && transform != "output_half_pixel") {
    return ctx.Error(fmt::format("unknown coordinate_transformation_mode '{}'", transform));
  }
  const bool half_pixel = transform == "half_pixel";
  const int64_t out_h = ctx.node.GetInt("output_height", 1), out_w = ctx.node.GetInt("output_width", 1);
  const int64_t sampling_ratio = ctx.node.GetInt("sampling_ratio", 0);
  const double spatial_scale = ctx.node.GetFloat("spatial_scale", 1.f);
  if (out_h <= 0 || out_w <= 0)
    return ctx.Error(fmt::format("output size {}x{} must be positive", out_h, out_w));
  if (sampling_ratio < 0)
    return ctx.Error(fmt::format("sampling_ratio must not be negative, got {}", sampling_ratio));
  const int64_t n = x.dim(0), channels = x.dim(1), height = x.dim(2), width = x.dim(3);
  const int64_t num_rois = rois.dim(0);
  if ((height == 0 || width == 0) && num_rois * channels > 0) {
    return ctx.Error(fmt::format("cannot sample ROIs from an empty {}x{} feature map", height, width));
  }
  const bool max_mode = mode == "max";
  std::vector<int64_t> roi_batch(static_cast<size_t>(num_rois));
  for (int64_t r = 0; r < num_rois; ++r) {
    roi_batch[static_cast<size_t>(r)] = batch_indices.dtype() == DType::kInt64
                                            ? batch_indices.data<int64_t>()[r]
                                            : batch_indices.data<int32_t>()[r];
    if (roi_batch[static_cast<size_t>(r)] < 0 || roi_batch[static_cast<size_t>(r)] >= n) {
      return ctx.Error(
          fmt::format("batch_indices[{}] = {} is outside [0, {})", r, roi_batch[static_cast<size_t>(r)], n));
    }
  }
  NPUGAP_ASSIGN_OR_RETURN(Tensor y, Tensor::Create(x.dtype(), {num_rois, channels, out_h, out_w}));
  const bool ok = DispatchFloat(x.dtype(), [&]<typename T>() {
    const T* in = x.data<T>();
    const T* roi_data = rois.data<T>();
    T* out = y.data<T>();
    ParallelFor(num_rois, 1, [&](int64_t begin, int64_t end) {
      std::vector<Taps> taps;
      for (int64_t r = begin; r < end; ++r) {
        const T* roi = roi_data + r * 4;
        const double offset = half_pixel ? 0.5 : 0.0;
        const double start_w = static_cast<double>(roi[0]) * spatial_scale - offset;
        const double start_h = static_cast<double>(roi[1]) * spatial_scale - offset;
        double roi_w = static_cast<double>(roi[2]) * spatial_scale - offset - start_w;
        double roi_h = static_cast<double>(roi[3]) * spatial_scale - offset - start_h;
        if (!half_pixel) {
          roi_w = std::max(roi_w, 1.0);
          roi_h = std::max(roi_h, 1.0);
        }
        const double bin_h = roi_h / static_cast<double>(out_h), bin_w = roi_w / static_cast<double>(out_w);
        const int64_t grid_h = sampling_ratio > 0 ? sampling_ratio : static_cast<int64_t>(std::ceil(bin_h));
        const int64_t grid_w = sampling_ratio > 0 ? sampling_ratio : static_cast<int64_t>(std::ceil(bin_w));
        const double count = static_cast<double>(std::max<int64_t>(grid_h * grid_w, 1));
        // Sample taps are shared by all channels.
        taps.clear();
        for (int64_t ph = 0; ph < out_h; ++ph) {
          for (int64_t pw = 0; pw < out_w; ++pw) {
            for (int64_t iy = 0; iy < grid_h; ++iy) {
              const double yy = start_h + static_cast<double>(ph) * bin_h +
                                (static_cast<double>(iy) + 0.5) * bin_h / static_cast<double>(grid_h);
              for (int64_t ix = 0; ix < grid_w; ++ix) {
                const double xx = start_w + static_cast<double>(pw) * bin_w +
                                  (static_cast<double>(ix) + 0.5) * bin_w / static_cast<double>(grid_w);
                taps.push_back(BilinearTaps(yy, xx, height, width));
              }
            }
          }
        }
        const int64_t samples = grid_h * grid_w;
        for (int64_t c = 0; c < channels; ++c) {
          const T* plane = in + (roi_batch[static_cast<size_t>(r)] * channels + c) * height * width;
          T* dst = out + (r * channels + c) * out_h * out_w;
          for (int64_t bin = 0; bin < out_h * out_w; ++bin) {
            const Taps* t = taps.data() + bin * samples;
            double value = 0.0;
            if (!max_mode) {
              for (int64_t s = 0; s < samples; ++s) {
                for (int k = 0; k < 4; ++k) value += t[s].w[k] * static_cast<double>(plane[t[s].pos[k]]);
              }
              value /= count;
            } else {
              for (int64_t s = 0; s < samples; ++s) {
                double v = t[s].w[0] * static_cast<double>(plane[t[s].pos[0]]);
                for (int k = 1; k < 4; ++k)
                  v = std::max(v, t[s].w[k] * static_cast<double>(plane[t[s].pos[k]]));
                value = s == 0 ? v : std::max(value, v);
              }
            }
            dst[bin] = static_cast<T>(value);
          }
        }
      }
    });
  });
  if (!ok) return ctx.UnsupportedDType(x.dtype());
  ctx.outputs[0] = std::move(y);
  return Status::Ok();
}

constexpr OpRow kDetectionOps[] = {
    {"", "NonMaxSuppression", 10, 17, NonMaxSuppressionKernel, &support::kAiCpuOnly},
    {"", "RoiAlign", 10, 17, RoiAlignKernel, &support::kVectorFloat},
};

}  // namespace

std::span<const OpRow> DetectionOps() { return kDetectionOps; }

}  // namespace npugap::exec
