// Pass 1 of the lowering: every ir node becomes one device op named by its CANN kernel type, or
// none at all. ATC folds constants (an op whose inputs are all known before running) and turns
// views (Reshape, Flatten, Squeeze, ...) into address aliases, so those produce no kernel; their
// consumers read the viewed value directly.
#include <algorithm>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include <fmt/format.h>

#include "lower_graph.h"
#include "npugap/analysis/perf/lower/lower.h"

namespace npugap::analysis::perf {
namespace {

// How an ONNX op lowers. `train_type` replaces `type` when training (ReLU keeps a mask for its
// backward as ReluV2, MaxPool keeps argmax). Names follow the CANN kernels seen in
// shared/calibration/ascend910 where the op appears there, else the CANN op of the same name.
struct OpRule {
  std::string_view onnx;
  std::string_view type;
  std::string_view train_type;
  Category category;
};

constexpr OpRule kRules[] = {
    {"Conv", "Conv2D", "", Category::kCube},
    {"ConvTranspose", "Conv2DTranspose", "", Category::kCube},
    {"Gemm", "MatMul", "", Category::kCube},
    {"MatMul", "MatMul", "", Category::kCube},  // BatchMatMul when both operands are activations
    {"BatchNormalization", "BNInference", "BNTrainingUpdate", Category::kVector},
    {"LayerNormalization", "LayerNorm", "", Category::kVector},
    {"InstanceNormalization", "InstanceNorm", "", Category::kVector},
    {"Softmax", "Softmax", "", Category::kVector},
    {"LogSoftmax", "LogSoftmax", "", Category::kVector},
    {"Relu", "Relu", "ReluV2", Category::kVector},
    {"LeakyRelu", "LeakyRelu", "", Category::kVector},
    {"Sigmoid", "Sigmoid", "", Category::kVector},
    {"HardSigmoid", "HardSigmoid", "", Category::kVector},
    {"HardSwish", "HardSwish", "", Category::kVector},
    {"Tanh", "Tanh", "", Category::kVector},
    {"Gelu", "GeLU", "", Category::kVector},
    {"Erf", "Erf", "", Category::kVector},
    {"Clip", "ClipByValue", "", Category::kVector},  // ReLU6 in mobilenets
    {"Elu", "Elu", "", Category::kVector},
    {"Softplus", "Softplus", "", Category::kVector},
    {"Add", "Add", "", Category::kVector},
    {"Sub", "Sub", "", Category::kVector},
    {"Mul", "Mul", "", Category::kVector},
    {"Div", "RealDiv", "", Category::kVector},
    {"Pow", "Pow", "", Category::kVector},
    {"Sqrt", "Sqrt", "", Category::kVector},
    {"Reciprocal", "Reciprocal", "", Category::kVector},
    {"Exp", "Exp", "", Category::kVector},
    {"Log", "Log", "", Category::kVector},
    {"Neg", "Neg", "", Category::kVector},
    {"Abs", "Abs", "", Category::kVector},
    {"Max", "Maximum", "", Category::kVector},
    {"Min", "Minimum", "", Category::kVector},
    {"Where", "Select", "", Category::kVector},
    {"Equal", "Equal", "", Category::kVector},
    {"Less", "Less", "", Category::kVector},
    {"Greater", "Greater", "", Category::kVector},
    {"Not", "LogicalNot", "", Category::kVector},
    {"Cast", "Cast", "", Category::kTransDataCast},
    {"MaxPool", "MaxPool", "MaxPoolWithArgmax", Category::kVector},
    {"AveragePool", "AvgPool", "", Category::kVector},
    {"GlobalAveragePool", "ReduceMean", "", Category::kVector},
    {"GlobalMaxPool", "ReduceMax", "", Category::kVector},
    {"ReduceMean", "ReduceMean", "", Category::kVector},
    {"ReduceSum", "ReduceSum", "", Category::kVector},
    {"ReduceMax", "ReduceMax", "", Category::kVector},
    {"Transpose", "TransposeD", "", Category::kVector},
    {"Concat", "ConcatD", "", Category::kVector},
    {"Split", "SplitD", "", Category::kVector},
    {"Slice", "StridedSlice", "", Category::kVector},
    {"Gather", "Gather", "", Category::kVector},
    {"Expand", "BroadcastTo", "", Category::kVector},
    {"Tile", "Tile", "", Category::kVector},
    {"Pad", "PadD", "", Category::kVector},
    {"Resize", "ResizeBilinearV2", "", Category::kVector},
    {"Dropout", "DropoutDoMask", "DropoutDoMask", Category::kVector},
    {"TopK", "TopK", "", Category::kVector},
    {"ArgMax", "ArgMaxD", "", Category::kVector},
    {"CumSum", "Cumsum", "", Category::kVector},
    {"NonZero", "NonZero", "", Category::kAiCpu},
};

// Ops that only re-describe their first input (no data movement after ATC).
constexpr std::string_view kViews[] = {"Reshape", "Flatten", "Squeeze", "Unsqueeze", "Identity"};
// Ops whose outputs are known before running once shapes are static.
constexpr std::string_view kShapeOps[] = {"Shape", "Size", "Constant", "ConstantOfShape", "Range", "EyeLike"};

bool IsOneOf(std::string_view op, const auto& list) {
  return std::find(std::begin(list), std::end(list), op) != std::end(list);
}

const OpRule* FindRule(std::string_view onnx) {
  for (const OpRule& r : kRules) {
    if (r.onnx == onnx) return &r;
  }
  return nullptr;
}

// Trainable parameters: float initializers of more than one element, except BatchNorm's running
// statistics (inputs 3 and 4), which the optimizer does not update.
bool IsParameter(const ir::Graph& g, const ir::Node& node, size_t input) {
  const int v = node.inputs[input];
  if (v < 0 || !g.values[static_cast<size_t>(v)].is_initializer) return false;
  if (!ir::IsFloatingPoint(g.values[static_cast<size_t>(v)].type.dtype)) return false;
  if (node.op_type == "BatchNormalization" && input >= 3) return false;
  // Resize's roi / scales / sizes are attributes given as inputs, not weights.
  if ((node.op_type == "Resize" || node.op_type == "Upsample") && input >= 1) return false;
  const ir::Tensor* t = g.Initializer(v);
  return t != nullptr && t->numel() > 1;
}

}  // namespace

Expected<std::vector<DeviceOp>> MapNodes(const ir::Graph& g, const ShapeList& shapes, bool train) {
  std::vector<DeviceOp> ops;
  ops.reserve(g.nodes.size());
  std::unordered_set<int> known;       // values known before running (constants, shapes)
  std::unordered_map<int, int> alias;  // view output -> the value it views
  for (const auto& [v, t] : g.initializers) known.insert(v);
  auto root = [&](int v) {
    for (auto it = alias.find(v); it != alias.end(); it = alias.find(v)) v = it->second;
    return v;
  };
  auto shape_of = [&](int v, const ir::Node& node) -> Expected<ir::Shape> {
    const auto& s = shapes[static_cast<size_t>(v)];
    if (!s) {
      return Status::InvalidArgument(
          fmt::format("node '{}' ({}): value '{}' has no static shape (bind inputs "
                      "with --batch / --shape)",
                      node.name, node.op_type, g.values[static_cast<size_t>(v)].name));
    }
    return *s;
  };
  for (size_t n = 0; n < g.nodes.size(); ++n) {
    const ir::Node& node = g.nodes[n];
    const bool all_known = std::all_of(node.inputs.begin(), node.inputs.end(),
                                       [&](int v) { return v == ir::kNoValue || known.count(v) > 0; });
    if (IsOneOf(node.op_type, kShapeOps) || (all_known && !node.inputs.empty())) {
      for (int v : node.outputs) {
        if (v != ir::kNoValue) known.insert(v);
      }
      continue;
    }
    // Inference Dropout is the identity; training keeps it as a kernel.
    if (IsOneOf(node.op_type, kViews) || (node.op_type == "Dropout" && !train)) {
      if (!node.outputs.empty() && node.outputs[0] != ir::kNoValue && node.HasInput(0)) {
        alias[node.outputs[0]] = node.inputs[0];
        if (known.count(node.inputs[0])) known.insert(node.outputs[0]);
      }
      continue;
    }
    const OpRule* rule = FindRule(node.op_type);
    DeviceOp op;
    op.name = node.name;
    op.nodes = {static_cast<int>(n)};
    op.op_type =
        rule ? std::string(train && !rule->train_type.empty() ? rule->train_type : rule->type) : node.op_type;
    op.category = rule ? rule->category : Category::kVector;
    for (size_t i = 0; i < node.inputs.size(); ++i) {
      const int v = node.inputs[i];
      if (v == ir::kNoValue) continue;
      const auto& value = g.values[static_cast<size_t>(v)];
      if (!value.type.is_tensor) continue;
      NPUGAP_ASSIGN_OR_RETURN(ir::Shape s, shape_of(v, node));
      op.inputs.push_back({root(v), value.type.dtype, std::move(s), Format::kNd, IsParameter(g, node, i)});
    }
    for (int v : node.outputs) {
      if (v == ir::kNoValue) continue;
      const auto& value = g.values[static_cast<size_t>(v)];
      if (!shapes[static_cast<size_t>(v)] && value.consumers.empty() && !value.is_graph_output) continue;
      NPUGAP_ASSIGN_OR_RETURN(ir::Shape s, shape_of(v, node));
      op.outputs.push_back({v, value.type.dtype, std::move(s), Format::kNd, false});
    }
    if (op.outputs.empty()) continue;
    // Nearest-neighbour upsampling (YOLO's 2x Upsample) is CANN's ResizeNearestNeighborV2, not
    // the bilinear kernel; its backward is ResizeNearestNeighborV2Grad (lower_train.cc).
    if (node.op_type == "Resize" && node.GetString("mode", "nearest") == "nearest") {
      op.op_type = "ResizeNearestNeighborV2";
    }
    // A convolution with one group per input channel and a [C, 1, kh, kw] filter is MindSpore's
    // DepthwiseConv2dNative (mobilenets, EfficientNet): its own kernel with a C1HWNCoC0 filter
    // (cost_model_depthwise.cc), and DepthwiseConv2dNativeBackprop{Input,Filter} in training.
    if (node.op_type == "Conv" && op.inputs.size() >= 2 && op.inputs[0].shape.size() == 4 &&
        op.inputs[1].shape.size() == 4) {
      const int64_t group = node.GetInt("group", 1);
      const int64_t channels = op.inputs[0].shape[1];
      if (group > 1 && group == channels && op.inputs[1].shape[1] == 1 && op.inputs[1].shape[0] == channels) {
        op.op_type = "DepthwiseConv2dNative";
      }
    }
    if (node.op_type == "AveragePool" || node.op_type == "MaxPool") {
      const std::vector<int64_t> k = node.GetInts("kernel_shape");
      op.window = ir::Shape(k.begin(), k.end());
    }
    // Training MaxPool also writes the argmax MaxPoolGradWithArgmax reads: uint16 NC1HWC0
    // [N, C1, kh * kw, ceil(Ho * Wo / 16) + 1, 16] (TBE max_pool_with_argmax's op info; the
    // calibration's NC1HWC0 32x4x9x197x16 for a 3x3 pool of 64 channels to 56x56, read
    // typeid-shifted). Built in that 5-D shape, which the layout keeps.
    const int side_id = -static_cast<int>(2 * n + 1000000);  // as BN's statistics below
    if (train && node.op_type == "MaxPool" && op.window.size() == 2 && op.outputs.size() == 1 &&
        op.outputs[0].shape.size() == 4) {
      const ir::Shape& y = op.outputs[0].shape;
      op.outputs.push_back(
          {side_id,
           ir::DType::kUInt16,
           {y[0], (y[1] + 15) / 16, op.window[0] * op.window[1], (y[2] * y[3] + 15) / 16 + 1, 16},
           Format::kNc1hwc0,
           false});
    }
    // Training Dropout is DropoutDoMask(x, mask, keep_prob): the mask MindSpore's DropoutGenMask
    // makes is ND uint8 of numel / 8 elements, one bit per element, in both BERT calibration
    // records read typeid-shifted (12,582,912 elements -> 1,572,864; labelled uint32 as written);
    // ONNX's ratio / training_mode inputs and its mask output are not kernel operands.
    if (train && node.op_type == "Dropout" && !op.inputs.empty()) {
      const OpTensor x = op.inputs[0];
      const int64_t numel = internal::Numel(x.shape);
      op.inputs = {x,
                   {side_id, ir::DType::kUInt8, {(numel + 7) / 8}, Format::kNd, false},
                   {side_id - 1, x.dtype, {}, Format::kNd, false}};
      op.outputs.resize(1);
    }
    // MindSpore's nn.LeakyReLU is Maximum(alpha * x, x) (Minimum for alpha > 1): a Mul and a
    // Maximum kernel, whose backward is MaximumGrad (lower_train.cc). ATC keeps its LeakyRelu
    // kernel for inference.
    if (train && node.op_type == "LeakyRelu" && op.inputs.size() == 1 && op.outputs.size() == 1) {
      const float alpha = node.GetFloat("alpha", 0.01f);
      const OpTensor x = op.inputs[0];
      DeviceOp mul = op;
      mul.op_type = "Mul";
      OpTensor scaled = x;
      scaled.value = side_id - 1;
      mul.inputs = {x, {side_id, x.dtype, {}, Format::kNd, false}};
      mul.outputs = {scaled};
      ops.push_back(std::move(mul));
      op.op_type = alpha <= 1.0f ? "Maximum" : "Minimum";
      op.inputs = {scaled, x};
    }
    // MatMul of two activations (attention scores, context) is a BatchMatMul on the cube.
    if (node.op_type == "MatMul" && op.inputs.size() == 2 && !op.inputs[1].weight &&
        op.inputs[0].shape.size() > 2) {
      op.op_type = "BatchMatMul";
    }
    // Reshape + Transpose of a matmul result is one ConfusionTransposeD kernel (BERT's heads), and
    // so is Transpose + Reshape (the attention context merged back into the hidden state): the op
    // takes both orders (its transpose_first attribute). The BERT calibration has 96, four per
    // layer each way, and no TransposeD.
    const auto only_views_read = [&](int v) {
      const auto& readers = g.values[static_cast<size_t>(v)].consumers;
      return !readers.empty() && std::all_of(readers.begin(), readers.end(), [&](int r) {
        return g.nodes[static_cast<size_t>(r)].op_type == "Reshape";
      });
    };
    if (node.op_type == "Transpose" && node.HasInput(0) &&
        (alias.count(node.inputs[0]) || (!node.outputs.empty() && only_views_read(node.outputs[0])))) {
      op.op_type = "ConfusionTransposeD";
    }
    // Training BatchNorm is two kernels: the batch statistics (BNTrainingReduce) and the
    // normalisation with the running-average update (BNTrainingUpdate).
    if (train && node.op_type == "BatchNormalization") {
      DeviceOp reduce = op;
      reduce.op_type = "BNTrainingReduce";
      reduce.inputs = {op.inputs[0]};
      const int64_t c = op.inputs[0].shape.size() > 1 ? op.inputs[0].shape[1] : 1;
      const int stats_id = -static_cast<int>(2 * n + 1000000);
      reduce.outputs = {{stats_id, ir::DType::kFloat32, {c}, Format::kNd, false},
                        {stats_id - 1, ir::DType::kFloat32, {c}, Format::kNd, false}};
      reduce.atomic_output = true;
      op.inputs.push_back(reduce.outputs[0]);
      op.inputs.push_back(reduce.outputs[1]);
      // BNTrainingUpdate writes y and four fp32 channel vectors: mean, variance, batch_mean,
      // batch_variance (TBE bn_training_update; every update record lists them, before y's ReLU
      // output in the fused ones). The ONNX running-statistics outputs are those, not kernels'.
      const int update_id = -static_cast<int>(4 * n + 3000000);
      op.outputs.resize(1);
      for (int i = 0; i < 4; ++i)
        op.outputs.push_back({update_id - i, ir::DType::kFloat32, {c}, Format::kNd, false});
      ops.push_back(std::move(reduce));
    }
    ops.push_back(std::move(op));
  }
  return ops;
}

std::vector<DeviceOp> FlattenDenseMatMuls(std::vector<DeviceOp> ops) {
  // CANN's MatMul kernel is 2-D, and MindSpore's BERT reshapes the hidden state to
  // [batch * seq, hidden] around every Dense layer: the calibration lists each dense matmul on 2-D
  // FRACTAL_NZ operands (48x1024x16x16 for 16,384 x 768). Its weight gradient then sums over all
  // rows in one matmul (k = batch * seq), not over a batch of per-sequence products.
  const auto flatten = [](OpTensor& t) {
    if (t.shape.size() < 3) return false;
    const int64_t last = t.shape.back();
    t.shape = ir::Shape{internal::Numel(t.shape) / std::max<int64_t>(last, 1), last};
    return true;
  };
  std::unordered_set<int> hidden;  // values held as [rows, features]
  for (DeviceOp& op : ops) {
    if (op.category != Category::kCube || op.op_type.find("BatchMatMul") != std::string::npos ||
        op.op_type.find("MatMul") == std::string::npos || op.inputs.size() < 2 || !op.inputs[1].weight ||
        op.inputs[1].shape.size() != 2 || op.inputs[0].shape.size() < 3) {
      continue;
    }
    if (flatten(op.inputs[0])) hidden.insert(op.inputs[0].value);
    for (OpTensor& t : op.outputs) {
      if (flatten(t)) hidden.insert(t.value);
    }
  }
  // The hidden state stays 2-D between the dense layers (the records' LayerNorm, dropout and
  // residual Add kernels are on the same 48x1024x16x16): an elementwise-like kernel with one such
  // operand holds its other operands of that size as [rows, features] too; any other kernel
  // (a ConfusionTransposeD into the attention heads, the embedding Gather) holds only the operands
  // it shares with the hidden state so. Repeated until nothing changes, forward and backward.
  const auto spreads = [](const DeviceOp& op) {
    const std::string& t = op.op_type;
    return internal::IsElementwise(t) || t.rfind("LayerNorm", 0) == 0 || t == "DropoutDoMask" ||
           t == "AddN" || t == "Cast" || (t.rfind("FusionOp_", 0) == 0 && op.category == Category::kVector);
  };
  const auto visit = [&](DeviceOp& op) {
    bool changed = false;
    int64_t size = -1;
    for (auto* list : {&op.inputs, &op.outputs}) {
      for (OpTensor& t : *list) {
        if (!hidden.count(t.value)) continue;
        changed |= flatten(t);
        size = internal::Numel(t.shape);
      }
    }
    if (size < 0 || !spreads(op)) return changed;
    for (auto* list : {&op.inputs, &op.outputs}) {
      for (OpTensor& t : *list) {
        if (t.shape.size() < 3 || internal::Numel(t.shape) != size) continue;
        flatten(t);
        hidden.insert(t.value);
        changed = true;
      }
    }
    return changed;
  };
  for (bool changed = !hidden.empty(); changed;) {
    changed = false;
    for (DeviceOp& op : ops) changed |= visit(op);
    for (auto it = ops.rbegin(); it != ops.rend(); ++it) changed |= visit(*it);
  }
  return ops;
}

}  // namespace npugap::analysis::perf
