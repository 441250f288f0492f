// Pass 6: device formats (ascend-facts §2.2). Convolution chains run in NC1HWC0 (5HD) with
// FRACTAL_Z weights, matmuls read and write FRACTAL_NZ, format-agnostic vector ops (elementwise,
// LayerNorm, Softmax, dropout, transposes) take the format their input arrives in, and everything
// else is ND. Wherever a value reaches a consumer in another format a TransData kernel converts
// it, once per (value, format). Constant weights of an inference model are converted by ATC at
// build time; training weights live in the format of their first consumer (FRACTAL_Z for
// convolutions, as in the ResNet-50 calibration) or in ND (matmul weights, converted each step
// as in the BERT calibration).
#include <algorithm>
#include <map>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include "lower_graph.h"
#include "npugap/analysis/memory/layout.h"

namespace npugap::analysis::perf {
namespace {

enum class Family { kConv, kMatMul, kFollow, kNd };

bool StartsWith(const std::string& s, std::string_view p) { return s.rfind(p, 0) == 0; }
bool Contains(const std::string& s, std::string_view p) { return s.find(p) != std::string::npos; }

Family FamilyOf(const DeviceOp& op) {
  const std::string& t = op.op_type;
  if (op.aicpu) return Family::kNd;
  if (op.phase == Phase::kOptimizer) return Family::kFollow;  // updates run where the weight lives
  if (Contains(t, "Conv2D") || Contains(t, "DepthwiseConv2dNative") || Contains(t, "BNTraining") ||
      Contains(t, "BNInference") || t == "FusedDbnDw" || Contains(t, "MaxPool") || Contains(t, "AvgPool") ||
      StartsWith(t, "ReluGradV2") || t == "ReluV2") {
    return Family::kConv;
  }
  if (Contains(t, "MatMul")) return Family::kMatMul;
  // TBE's softmax_cross_entropy_with_logits takes 2-D features and labels only (or 4-D NCHW
  // float32, reduced over axis 1): a FRACTAL_NZ tensor is not its input, the logits go to ND.
  if (t == "SoftmaxCrossEntropyWithLogits") return Family::kNd;
  if (internal::IsElementwise(t) || StartsWith(t, "FusionOp_") || StartsWith(t, "LayerNorm") ||
      StartsWith(t, "Softmax") || StartsWith(t, "Reduce") || t == "DropoutDoMask" ||
      t == "ConfusionTransposeD" || t == "Cast" || t == "AddN" || Contains(t, "Grad") || t == "BiasAddGrad") {
    return Family::kFollow;
  }
  return Family::kNd;
}

// The operand of a convolution kernel that is its filter (after a Cast it is no longer marked
// as a weight): input 1 of a forward convolution and of the input gradient (dout, filter).
bool IsFilterSlot(const DeviceOp& op, const OpTensor& t, size_t slot) {
  if (Contains(op.op_type, "Conv2DBackpropInput")) return slot == 1;
  if (Contains(op.op_type, "Conv2dNativeBackpropInput")) return slot == 0;  // (filter, dout)
  if (op.op_type == "AvgPoolGrad") return slot == 2;  // (dy, mean_matrix, kernel_matrix)
  if (Contains(op.op_type, "Conv2DBackpropFilter") || Contains(op.op_type, "Conv2dNativeBackpropFilter") ||
      op.op_type == "FusedDbnDw")
    return false;
  if (StartsWith(op.op_type, "DepthwiseConv2dNative")) return slot == 1;
  if (StartsWith(op.op_type, "Conv2D") || StartsWith(op.op_type, "FusionOp_Conv2D")) return slot == 1;
  return t.weight;
}

// BatchNorm's kernels (and the convolutions they are fused into) take their per-channel tensors
// (statistics, gamma / beta and their gradients) in NC1HWC0 as [1, C1, 1, 1, C0], as every BN
// record of the ResNet-50 calibration lists them.
// A tensor the op mapping built in its NC1HWC0 device shape already (MaxPoolWithArgmax's uint16
// argmax, [N, C1, kh * kw, fractals, 16]): it keeps that format beside the op's other operands.
bool Prebuilt5hd(const OpTensor& t) { return t.format == Format::kNc1hwc0 && t.shape.size() == 5; }

bool TakesChannelsIn5hd(const std::string& t) { return Contains(t, "BNTraining") || t == "FusedDbnDw"; }

// The format a conv-family op wants for one operand.
Format ConvFormat(const DeviceOp& op, const OpTensor& t, bool weight_slot) {
  if (t.shape.size() == 1 && TakesChannelsIn5hd(op.op_type)) return Format::kNc1hwc0;
  if (t.shape.size() != 4) return Format::kNd;
  if (!weight_slot) return Format::kNc1hwc0;
  // Depthwise filters (and AvgPoolGrad's kernel of ones) are C1HWNCoC0, as MindSpore registers the
  // DepthwiseConv2dNative family's filter and cost_model_depthwise.cc reads it.
  return Contains(op.op_type, "Conv2dNative") || op.op_type == "AvgPoolGrad" ? Format::kC1hwncoc0
                                                                             : Format::kFractalZ;
}

struct Placed {
  Format format = Format::kNd;
  ir::Shape shape;  // logical shape as it was produced
};

}  // namespace

std::vector<DeviceOp> AssignLayouts(std::vector<DeviceOp> ops, const target::Target& target,
                                    int64_t* transdata) {
  // A reference target (cpu-dev, h200) has no NPU layouts: its convolutions still run in a
  // 16-channel blocked layout (oneDNN's nChw16c / OIhw16i16o, which npugap's own executor uses),
  // described with the same NC1HWC0 / FRACTAL_Z records so the cost model can read their shapes;
  // matmuls stay row-major (ND) and no TransData is counted: the frameworks reorder inside their
  // kernels.
  const bool npu = memory::C0For(target, ir::DType::kFloat16) > 0;
  const bool training =
      std::any_of(ops.begin(), ops.end(), [](const DeviceOp& o) { return o.phase != Phase::kForward; });
  std::unordered_map<int, Placed> where;
  // Home format of training weights: 4-D weights are convolution filters and live in FRACTAL_Z.
  // BN's gamma / beta and running statistics live in NC1HWC0, where its kernels read them (the
  // calibration's momentum updates of BN parameters run on NC1HWC0 [1, C1, 1, 1, C0]).
  const internal::OpGraph graph(ops);
  // Depthwise filters live in C1HWNCoC0: the values a depthwise op reads as its filter, traced back
  // through the Cast of an fp32 master weight (which comes before it).
  std::unordered_set<int> depthwise_filters;
  for (auto it = ops.rbegin(); it != ops.rend(); ++it) {
    for (size_t i = 0; i < it->inputs.size(); ++i) {
      const OpTensor& t = it->inputs[i];
      const bool filter = t.shape.size() == 4 && IsFilterSlot(*it, t, i) &&
                          ConvFormat(*it, t, /*weight_slot=*/true) == Format::kC1hwncoc0;
      const bool cast_of_filter =
          it->op_type == "Cast" && !it->outputs.empty() && depthwise_filters.count(it->outputs[0].value) > 0;
      if (filter || cast_of_filter) depthwise_filters.insert(t.value);
    }
  }
  for (const DeviceOp& op : ops) {
    for (const OpTensor& t : op.inputs) {
      // (A weight is written by its optimizer update, after every read.)
      if (where.count(t.value) || (!t.weight && graph.Producer(t.value) >= 0)) continue;
      if (t.weight && t.shape.size() == 4)
        where[t.value] = {depthwise_filters.count(t.value) ? Format::kC1hwncoc0 : Format::kFractalZ, t.shape};
      if (t.shape.size() == 1 && TakesChannelsIn5hd(op.op_type)) where[t.value] = {Format::kNc1hwc0, t.shape};
    }
  }
  std::map<std::pair<int, Format>, int> converted;
  int next_id = internal::NextFreeId(ops);
  int64_t inserted = 0;
  std::vector<DeviceOp> out;
  out.reserve(ops.size() * 2);
  for (DeviceOp& op : ops) {
    const Family family = FamilyOf(op);
    // Follow ops take the format of their first operand of rank >= 2 if every such operand can be
    // read in it (same last dims for NZ, same channels for 5HD); else ND.
    Format follow = Format::kNd;
    // LayerNorm's per-row statistics ([rows, 1]) stay ND beside NZ data (the BERT records).
    const auto row_stat = [&](const OpTensor& t) {
      return StartsWith(op.op_type, "LayerNorm") && t.shape.size() >= 2 && t.shape.back() == 1 &&
             !op.inputs.empty() && op.inputs[0].shape.size() >= 2 && op.inputs[0].shape.back() > 1;
    };
    if (family == Family::kFollow && !op.inputs.empty()) {
      // An optimizer kernel runs where its weight lives (FracZ filters, ND dense weights: the
      // records' FusedMulApplyMomentum on FracZ, LambApplyOptimizerAssign on ND), not where the
      // gradient it reads first was written.
      const auto weight =
          std::find_if(op.inputs.begin(), op.inputs.end(), [](const OpTensor& t) { return t.weight; });
      const OpTensor& lead =
          op.phase == Phase::kOptimizer && weight != op.inputs.end() ? *weight : op.inputs[0];
      auto it = where.find(lead.value);
      const Format f = it != where.end() ? it->second.format : Format::kNd;
      bool ok = f == Format::kFractalNz || f == Format::kNc1hwc0 || f == Format::kFractalZ ||
                f == Format::kC1hwncoc0;
      for (const OpTensor& t : op.inputs) {
        if (t.shape.size() < 2 || row_stat(t) || Prebuilt5hd(t)) continue;
        if (f == Format::kNc1hwc0 && (t.shape.size() != 4 || t.shape[1] != op.inputs[0].shape[1])) ok = false;
        if (f == Format::kFractalNz && t.shape.back() != op.inputs[0].shape.back()) ok = false;
        if ((f == Format::kFractalZ || f == Format::kC1hwncoc0) && t.shape != op.inputs[0].shape) ok = false;
      }
      if (op.inputs[0].shape.size() < 2) ok = false;
      follow = ok ? f : Format::kNd;
    }
    // A follow op on a per-channel tensor in NC1HWC0 (the update of a BN parameter) reads and
    // writes its tensors of that length in NC1HWC0 too; scalars stay ND.
    bool channels = false;
    if (family == Family::kFollow && !op.inputs.empty() && op.inputs[0].shape.size() == 1 &&
        op.inputs[0].shape[0] > 1) {
      auto it = where.find(op.inputs[0].value);
      channels = it != where.end() && it->second.format == Format::kNc1hwc0;
    }
    const auto per_channel = [&](const OpTensor& t) { return channels && t.shape == op.inputs[0].shape; };
    auto wanted = [&](const OpTensor& t, size_t slot) {
      if (Prebuilt5hd(t)) return Format::kNc1hwc0;
      switch (family) {
        case Family::kConv:
          return ConvFormat(op, t, IsFilterSlot(op, t, slot));
        case Family::kMatMul:
          return t.shape.size() >= 2 && npu ? Format::kFractalNz : Format::kNd;
        case Family::kFollow:
          if (per_channel(t)) return Format::kNc1hwc0;
          return t.shape.size() >= 2 && !row_stat(t) ? follow : Format::kNd;
        case Family::kNd:
          return Format::kNd;
      }
      return Format::kNd;
    };
    for (size_t i = 0; i < op.inputs.size(); ++i) {
      OpTensor& t = op.inputs[i];
      const Format want = wanted(t, i);
      auto it = where.find(t.value);
      // Side tensors no kernel writes (optimizer states, BN statistics, labels) are allocated in
      // the format their reader wants.
      if (it == where.end() && t.value < 0) {
        t.format = want;
        where[t.value] = {want, t.shape};
        continue;
      }
      const Placed have = it != where.end() ? it->second : Placed{Format::kNd, t.shape};
      if (have.format == want || (t.weight && !training) || !npu) {
        t.format = want;
        continue;
      }
      auto key = std::make_pair(t.value, want);
      auto c = converted.find(key);
      if (c == converted.end()) {
        OpTensor in = t;
        in.format = have.format;
        in.shape = have.shape;
        OpTensor o = t;
        o.format = want;
        DeviceOp td = internal::ConversionOp(op, "TransData", "/transdata", in, o, next_id);
        td.layout_fixed = true;
        const OpTensor& converted_to = td.outputs[0];
        where[converted_to.value] = {want, converted_to.shape};
        c = converted.emplace(key, converted_to.value).first;
        out.push_back(std::move(td));
        ++inserted;
      }
      t.value = c->second;
      t.weight = false;
      t.format = want;
    }
    for (size_t i = 0; i < op.outputs.size(); ++i) {
      OpTensor& t = op.outputs[i];
      Format f = Format::kNd;
      switch (family) {
        case Family::kConv:
          f = ConvFormat(op, t,
                         StartsWith(op.op_type, "Conv2DBackpropFilter") ||
                             StartsWith(op.op_type, "DepthwiseConv2dNativeBackpropFilter") ||
                             (op.op_type == "FusedDbnDw" && i == 1));
          break;
        case Family::kMatMul:
          f = t.shape.size() >= 2 && npu ? Format::kFractalNz : Format::kNd;
          break;
        case Family::kFollow:
          f = per_channel(t) ? Format::kNc1hwc0 : t.shape.size() >= 2 && !row_stat(t) ? follow : Format::kNd;
          break;
        case Family::kNd:
          f = Format::kNd;
          break;
      }
      if (Prebuilt5hd(t)) f = Format::kNc1hwc0;
      t.format = f;
      // A kernel that writes a value again (LAMB's clipping RealDiv on the gradient) makes the
      // conversions of its earlier contents stale: a later reader converts the new contents.
      const bool first_write = where.insert_or_assign(t.value, Placed{f, t.shape}).second;
      if (!first_write) {
        for (Format stale :
             {Format::kNd, Format::kNc1hwc0, Format::kFractalZ, Format::kFractalNz, Format::kC1hwncoc0})
          converted.erase({t.value, stale});
      }
    }
    out.push_back(std::move(op));
  }
  if (transdata) *transdata = inserted;
  return out;
}

ir::Shape DeviceShape(const ir::Shape& s, ir::DType dtype, Format format, const target::Target& target) {
  int64_t c0 = memory::C0For(target, dtype == ir::DType::kFloat32 ? ir::DType::kFloat16 : dtype);
  int64_t rows = memory::FractalRowsFor(target, ir::DType::kFloat16);
  if (c0 <= 0 || rows <= 0) {
    if (format == Format::kNd) return s;
    c0 = rows = 16;  // the blocked layout of a reference target (see AssignLayouts)
  }
  auto up = [](int64_t v, int64_t m) { return (v + m - 1) / m; };
  switch (format) {
    case Format::kNd:
      return s;
    case Format::kNc1hwc0:
      if (s.size() == 4) return {s[0], up(s[1], c0), s[2], s[3], c0};
      if (s.size() == 1) return {1, up(s[0], c0), 1, 1, c0};
      return s;
    case Format::kFractalZ:
      if (s.size() == 4) return {up(s[1], c0) * s[2] * s[3], up(s[0], rows), rows, c0};
      return s;
    case Format::kC1hwncoc0:
      // A depthwise filter [C * multiplier, 1, kh, kw] (multiplier 1): [C1, kh, kw, 1, 16, C0].
      if (s.size() == 4) return {up(s[0], c0), s[2], s[3], 1, rows, c0};
      return s;
    case Format::kFractalNz: {
      if (s.size() < 2) return s;
      ir::Shape out(s.begin(), s.end() - 2);
      out.push_back(up(s.back(), c0));
      out.push_back(up(s[s.size() - 2], rows));
      out.push_back(rows);
      out.push_back(c0);
      return out;
    }
  }
  return s;
}

}  // namespace npugap::analysis::perf
