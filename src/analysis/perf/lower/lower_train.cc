// Pass 3 (training only): the loss, the backward kernels in reverse forward order, and the
// optimizer update kernels, named and fused as the MindSpore training steps in
// shared/calibration/ascend910 show them:
//   - BN:   BNTrainingUpdateGrad, then BNTrainingReduceGrad fused with the filter gradient as
//           FusedDbnDw where the activation is large, else BNTrainingReduceGrad +
//           Conv2DBackpropFilter;
//   - dx:   the input gradient of a cube op absorbs the gradient sum (AddN) and the activation
//           gradient of its input's producer: FusionOp_Conv2DBackpropInput_AddN_ReluGradV2,
//           FusionOp_MatMul_GeLUGrad, FusionOp_MatMul_AddN;
//   - opt:  FusedMulAddN (weight decay on >= 2-D weights) + FusedMulApplyMomentum (ResNet),
//           SquareSum / ClipByNormNoDivSum / LambApply* (BERT), Adam (MindSpore nn.Adam),
//           AdamApplyOne(WithDecay)Assign (AdamWeightDecay, --optimizer adamw).
#include <algorithm>
#include <tuple>
#include <unordered_map>
#include <unordered_set>

#include <fmt/format.h>

#include "lower_graph.h"
#include "lower_loss.h"

namespace npugap::analysis::perf {
namespace {

using internal::Numel;

// The UB fusion passes that make the backward's fused kernels.
constexpr const char* kDxFusion = "TbeConv2DBackpropElemwiseFusionPass";
constexpr const char* kUnscaleFusion = "TbeMatmulElemwiseFusionPass";

std::vector<std::string> Components(const std::string& type) {
  std::vector<std::string> out;
  if (type.rfind("FusionOp_", 0) != 0) return {type};
  std::string rest = type.substr(9);
  size_t pos = 0;
  while ((pos = rest.find('_')) != std::string::npos) {
    out.push_back(rest.substr(0, pos));
    rest = rest.substr(pos + 1);
  }
  out.push_back(rest);
  return out;
}
bool Has(const std::vector<std::string>& c, const std::string& t) {
  return std::find(c.begin(), c.end(), t) != c.end();
}

// The gradient kernel of an activation that ends a forward op, or "" when it does not end in one.
std::string ActivationGrad(const std::string& op_type) {
  const std::string last = Components(op_type).back();
  if (last == "ReluV2" || last == "ReLUV2") return "ReluGradV2";
  if (last == "Relu") return "ReluGrad";
  if (last == "GeLU") return "GeLUGrad";
  if (last == "Sigmoid") return "SigmoidGrad";
  if (last == "Tanh") return "TanhGrad";
  if (last == "ClipByValue") return "Relu6Grad";
  if (last == "HardSwish") return "HardSwishGrad";
  return "";
}

class Backward {
 public:
  Backward(const std::vector<DeviceOp>& fwd, Optimizer opt, bool mixed, bool fuse_dx, bool fuse_unscale,
           bool fuse_eltwise)
      : fwd_(fwd),
        graph_(fwd),
        next_id_(internal::NextFreeId(fwd)),
        opt_(opt),
        mixed_(mixed),
        fuse_dx_(fuse_dx),
        fuse_unscale_(fuse_unscale),
        fuse_eltwise_(fuse_eltwise) {
    for (const DeviceOp& op : fwd_) {
      for (const OpTensor& t : op.inputs) {
        if (!t.weight && graph_.Producer(t.value) >= 0) ++need_[t.value];
      }
    }
  }

  std::vector<DeviceOp> Run(TrainingInfo* info) {
    out_ = fwd_;
    AddLoss();
    for (int i = static_cast<int>(fwd_.size()) - 1; i >= 0; --i) Visit(fwd_[static_cast<size_t>(i)]);
    for (DeviceOp& op : deferred_) out_.push_back(std::move(op));
    if (mixed_) {
      for (DeviceOp& op : internal::LossScaleCheckKernels(next_id_)) out_.push_back(std::move(op));
    }
    if (info) {
      info->parameters = parameters_;
      info->gradient_bytes = gradient_bytes_;
    }
    return std::move(out_);
  }

 private:
  OpTensor Fresh(const OpTensor& like) {
    OpTensor t = like;
    t.value = next_id_--;
    t.weight = false;
    return t;
  }
  // A new tensor that holds the gradient of forward value `v` (AssignDtypes stores it in v's dtype).
  OpTensor GradOf(const OpTensor& v) {
    OpTensor t = Fresh(v);
    t.grad_of = v.value;
    return t;
  }
  OpTensor Scalar(ir::DType dtype, int64_t n) { return {next_id_--, dtype, {n}, Format::kNd, false}; }
  // A per-channel fp32 tensor of an NCHW activation (BN statistics, gamma / beta and their
  // gradients), laid out by AssignLayouts as NC1HWC0 [1, C1, 1, 1, C0].
  OpTensor Channel(const OpTensor& x) {
    return Scalar(ir::DType::kFloat32, x.shape.size() > 1 ? x.shape[1] : 1);
  }
  // The per-channel inputs CANN's BNTrainingReduceGrad reads after dy and x: diff_scale,
  // diff_offset, scale, batch_mean, batch_variance (TBE bn_training_reduce_grad; the calibration's
  // BNTrainingReduceGrad and FusedDbnDw records carry the same five).
  std::vector<OpTensor> ReduceGradChannels(const OpTensor& x) {
    std::vector<OpTensor> out;
    for (int i = 0; i < 5; ++i) out.push_back(Channel(x));
    return out;
  }

  DeviceOp& Emit(std::string type, Category cat, Phase phase, std::vector<OpTensor> in,
                 std::vector<OpTensor> out, const std::string& name = "") {
    DeviceOp op;
    op.op_type = std::move(type);
    op.category = cat;
    op.phase = phase;
    op.name = name.empty() ? op.op_type : name;
    op.inputs = std::move(in);
    op.outputs = std::move(out);
    op.atomic_output = op.op_type == "Conv2DBackpropFilter" || op.op_type == "FusedDbnDw" ||
                       op.op_type.rfind("SquareSum", 0) == 0 || op.op_type == "BNTrainingUpdateGrad";
    out_.push_back(std::move(op));
    return out_.back();
  }

  // The gradient of a forward value, created on first use.
  OpTensor Grad(const OpTensor& v) {
    auto it = grad_.find(v.value);
    if (it == grad_.end()) it = grad_.emplace(v.value, GradOf(v)).first;
    OpTensor g = it->second;
    g.shape = v.shape;
    return g;
  }
  bool HasGrad(int value) const { return grad_.count(value) > 0; }
  // Only floating-point activations carry a gradient: a bool attention mask broadcast by Expand or
  // the condition of a Where gets none (MindSpore's bprops return zeros_like for them, no kernel).
  bool RequiresGrad(const OpTensor& t) const {
    return !t.weight && graph_.Producer(t.value) >= 0 && ir::IsFloatingPoint(t.dtype);
  }

  // A softmax-family loss on each float graph output of rank >= 2 (logits [N, C], or [B, S, V]
  // flattened; lower_loss.cc), its forward kernels first, then the total loss (the sum of the
  // outputs' losses, as BertPretrainingLoss adds its two), then each loss's backward.
  void AddLoss() {
    std::unordered_set<int> read;
    for (const DeviceOp& op : fwd_) {
      for (const OpTensor& t : op.inputs) read.insert(t.value);
    }
    std::vector<DeviceOp> backward;
    std::vector<OpTensor> losses, outputs;
    for (const DeviceOp& op : fwd_) {
      for (const OpTensor& t : op.outputs) {
        if (read.count(t.value) || t.shape.size() < 2 || !ir::IsFloatingPoint(t.dtype)) continue;
        if (AddSigmoidLoss(t)) continue;
        const int64_t classes = t.shape.back();
        OpTensor logits = t;
        logits.shape = {Numel(t.shape) / std::max<int64_t>(classes, 1), classes};
        OpTensor g = Grad(t);
        g.shape = logits.shape;
        internal::LossKernels k = internal::SoftmaxLossKernels(
            logits, g, Components(op.op_type).back() == "LogSoftmax", fuse_eltwise_, next_id_);
        for (DeviceOp& o : k.forward) out_.push_back(std::move(o));
        for (DeviceOp& o : k.backward) backward.push_back(std::move(o));
        losses.push_back(k.loss);
        outputs.push_back(t);
      }
    }
    for (size_t i = 1; i < losses.size(); ++i)
      Emit("Add", Category::kVector, Phase::kForward, {losses[0], losses[i]}, {losses[0]}, "loss")
          .keeps_fp32 = true;
    for (DeviceOp& o : backward) out_.push_back(std::move(o));
    for (const OpTensor& t : outputs) {
      need_[t.value] += 1;
      Contribute(t, "", Category::kVector, Phase::kBackward, {}, "loss");
    }
  }

  // A binary / multi-label output takes MindSpore's SigmoidCrossEntropyWithLogits (and its Grad,
  // grad_nn_ops.py's bprop) instead of the softmax loss: an output a Sigmoid writes (the loss then
  // reads the Sigmoid's input, the logits: DeepFM's CTR head), a [N, 1] score, or a dense
  // prediction map of rank >= 4 (YOLO's objectness / class maps, trained with BCE-with-logits).
  // Which outputs are sigmoid-trained is a guess from the graph's shape (not in the ONNX file).
  bool AddSigmoidLoss(const OpTensor& out) {
    const int p = graph_.Producer(out.value);
    // A Sigmoid fused into the kernel before it (FusionOp_MatMul_Sigmoid) leaves no logits
    // tensor: the loss then reads the output, and the sigmoid's gradient is still not taken.
    const bool after_sigmoid = p >= 0 && Components(fwd_[static_cast<size_t>(p)].op_type).back() == "Sigmoid";
    if (!after_sigmoid && out.shape.back() != 1 && out.shape.size() < 4) return false;
    const bool alone = after_sigmoid && fwd_[static_cast<size_t>(p)].op_type == "Sigmoid" &&
                       !fwd_[static_cast<size_t>(p)].inputs.empty();
    const OpTensor logits = alone ? fwd_[static_cast<size_t>(p)].inputs[0] : out;
    if (!RequiresGrad(logits)) return false;
    OpTensor labels = Fresh(logits);
    OpTensor loss = Fresh(logits);
    loss.dtype = ir::DType::kFloat32;
    Emit("SigmoidCrossEntropyWithLogits", Category::kVector, Phase::kForward, {logits, labels}, {loss},
         "loss")
        .keeps_fp32 = true;
    Emit("ReduceMean", Category::kVector, Phase::kForward, {loss}, {Scalar(ir::DType::kFloat32, 1)}, "loss")
        .keeps_fp32 = true;
    need_[logits.value] += 1;
    // The sigmoid's own gradient is not taken: the loss differentiates the logits directly.
    if (after_sigmoid) act_done_.insert(p);
    Emit("SigmoidCrossEntropyWithLogitsGrad", Category::kVector, Phase::kBackward,
         {logits, labels, Fresh(loss)}, {Grad(logits)}, "loss")
        .keeps_fp32 = true;
    Contribute(logits, "", Category::kVector, Phase::kBackward, {}, "loss");
    return true;
  }

  // Registers one gradient contribution to `x`. `base` is the kernel that computes it (empty:
  // the identity, as through a residual Add). On the last contribution the gradient sum and the
  // activation gradient of x's producer are fused into a cube kernel, or emitted on their own.
  void Contribute(const OpTensor& x, const std::string& base, Category cat, Phase phase,
                  std::vector<OpTensor> in, const std::string& name) {
    if (!RequiresGrad(x)) return;  // graph inputs and constants need no gradient
    // An identity contribution (through a residual Add or a BN update) that comes first is the
    // consumer's gradient tensor itself: no kernel writes a copy.
    // The tensor is then x's gradient too, held in x's dtype where x's forward dtype differs.
    if (base.empty() && !in.empty() && grad_.count(x.value) == 0) {
      OpTensor g = in[0];
      g.grad_of = x.value;
      grad_.emplace(x.value, g);
    }
    const int remaining = --pending_for(x.value);
    const bool last = remaining <= 0;
    const int producer = graph_.Producer(x.value);
    const std::string act = producer >= 0 && !act_done_.count(producer)
                                ? ActivationGrad(fwd_[static_cast<size_t>(producer)].op_type)
                                : "";
    const bool sum = need_[x.value] > 1;
    OpTensor g = Grad(x);
    if (!last || (!sum && act.empty())) {
      if (!base.empty()) Emit(base, cat, phase, std::move(in), {g}, name);
      return;
    }
    act_done_.insert(producer);
    if (!base.empty() && cat == Category::kCube && fuse_dx_) {
      std::string type = "FusionOp_" + base + (sum ? "_AddN" : "") + (act.empty() ? "" : "_" + act);
      // The other contributions being summed; without a sum the kernel reads dy, the filter and
      // the mask only (the records' FusionOp_Conv2DBackpropInput_ReluGradV2).
      if (sum) in.push_back(g);
      if (act == "ReluGradV2") in.push_back(ReluMask(producer));
      if (act == "GeLUGrad") {
        for (const OpTensor& t : GeluOperands(producer)) in.push_back(t);
      }
      DeviceOp& op = Emit(type, cat, phase, std::move(in), {g}, name);
      op.fused_by = kDxFusion;
      return;
    }
    if (!base.empty()) Emit(base, cat, phase, std::move(in), {g}, name);
    if (sum) Emit("AddN", Category::kVector, phase, {g, g}, {g}, name);
    if (!act.empty()) {
      const DeviceOp& p = fwd_[static_cast<size_t>(producer)];
      std::vector<OpTensor> in = {g};
      if (act == "GeLUGrad") {
        for (const OpTensor& t : GeluOperands(producer)) in.push_back(t);
      } else {
        in.push_back(act == "ReluGradV2" ? ReluMask(producer) : p.outputs.back());
      }
      Emit(act, Category::kVector, phase, std::move(in), {g}, p.name);
    }
  }
  // The bit mask ReluV2 writes beside its output for ReluGradV2, made on first use: ND uint8
  // [N, C1, H, W, 2] for an NCHW activation (one bit per element), as the ResNet-50 calibration's
  // FusionOp_..._ReLUV2 outputs and ReluGradV2 inputs list it read typeid-shifted (32x4x112x112x2
  // for 32x64x112x112; the label as written, uint32, is one TypeId early). Other ranks: the
  // forward output, as before (no record shows a non-4-D ReluV2).
  OpTensor ReluMask(int producer) {
    DeviceOp& fwd = out_[static_cast<size_t>(producer)];  // out_ starts as a copy of fwd_
    // The activation is the first 4-D output (a BN update's statistics come first when fused).
    const auto& outs = fwd_[static_cast<size_t>(producer)].outputs;
    const auto y4 =
        std::find_if(outs.begin(), outs.end(), [](const OpTensor& t) { return t.shape.size() == 4; });
    if (y4 == outs.end()) return outs.back();
    const OpTensor& y = *y4;
    auto it = relu_mask_.find(producer);
    if (it != relu_mask_.end()) return it->second;
    const int64_t c1 = (y.shape[1] + 15) / 16;
    OpTensor mask{
        next_id_--, ir::DType::kUInt8, {y.shape[0], c1, y.shape[2], y.shape[3], 2}, Format::kNd, false};
    fwd.outputs.push_back(mask);
    relu_mask_.emplace(producer, mask);
    return mask;
  }

  // GeLUGrad(dy, x, y) reads the GeLU's input and output (TBE gelu_grad; the records'
  // GeLUGrad and FusionOp_MatMul_GeLUGrad list both). A GeLU fused into the matmul before it
  // then keeps the matmul result as a second output for the backward (the records'
  // FusionOp_MatMul_GeLU writes two FRACTAL_NZ tensors), made on first use.
  std::vector<OpTensor> GeluOperands(int producer) {
    const DeviceOp& f = fwd_[static_cast<size_t>(producer)];
    if (f.outputs.empty()) return {};
    const OpTensor& y = f.outputs[0];
    if (f.op_type == "GeLU" && !f.inputs.empty()) return {f.inputs[0], y};
    auto it = gelu_input_.find(producer);
    if (it == gelu_input_.end()) {
      OpTensor x = Fresh(y);
      out_[static_cast<size_t>(producer)].outputs.push_back(x);  // out_ starts as a copy of fwd_
      it = gelu_input_.emplace(producer, x).first;
    }
    return {it->second, y};
  }

  int& pending_for(int value) {
    auto it = pending_.find(value);
    if (it == pending_.end()) it = pending_.emplace(value, need_[value]).first;
    return it->second;
  }

  // The gradient of a parameter, as the kernel that computes it writes it.
  OpTensor ParamGrad(const OpTensor& w) {
    auto it = param_grad_.find(w.value);
    if (it == param_grad_.end()) {
      OpTensor g = Fresh(w);
      g.weight_grad = true;
      it = param_grad_.emplace(w.value, g).first;
    }
    return it->second;
  }

  // Mixed-precision training scales the loss, so each parameter gradient is divided by the scale
  // before an optimizer that does not fold that product in (LAMB, Adam; FusedMulApplyMomentum
  // does). UB fusion puts the Mul into the matmul that writes the gradient (the calibration's 75
  // FusionOp_MatMul_Mul weight gradients of BERT); a gradient a vector kernel writes (BiasAddGrad,
  // LayerNormBetaGammaBackpropV2) gets its own Mul (its 126 Mul kernels on 768 / 3,072 vectors).
  // The scale is fp32 (the records' FusionOp_MatMul_Mul read typeid-shifted), and so is the Mul:
  // it reads the fp32 gradient of an fp32 master weight.
  void Unscale(const OpTensor& g, const std::string& name) {
    const OpTensor scale = Scalar(ir::DType::kFloat32, 1);
    for (auto it = out_.rbegin(); it != out_.rend(); ++it) {
      if (std::none_of(it->outputs.begin(), it->outputs.end(),
                       [&](const OpTensor& t) { return t.value == g.value; }))
        continue;
      if (fuse_unscale_ && (it->op_type == "MatMul" || it->op_type == "BatchMatMul")) {
        it->op_type = "FusionOp_" + it->op_type + "_Mul";
        it->inputs.push_back(scale);
        it->fused_by = kUnscaleFusion;
        return;
      }
      break;
    }
    Emit("Mul", Category::kVector, Phase::kBackward, {g, scale}, {g}, name).keeps_fp32 = true;
  }

  // Optimizer kernels for one parameter, right after its gradient (MindSpore interleaves them).
  void Update(const OpTensor& w, const std::string& name) {
    if (!seen_params_.insert(w.value).second) return;
    parameters_ += Numel(w.shape);
    // Mixed-precision gradients are those of the fp32 master weights (lower_dtype.cc).
    gradient_bytes_ +=
        Numel(w.shape) * static_cast<int64_t>(ir::DTypeSize(mixed_ ? ir::DType::kFloat32 : w.dtype));
    OpTensor g = ParamGrad(w);
    if (mixed_ && opt_ != Optimizer::kMomentum) Unscale(g, name);
    OpTensor w32 = w;
    w32.dtype = ir::DType::kFloat32;
    OpTensor s = Scalar(ir::DType::kFloat32, 1);
    switch (opt_) {
      case Optimizer::kMomentum:
        if (w.shape.size() >= 2)
          Emit("FusedMulAddN", Category::kVector, Phase::kOptimizer, {g, w32, s}, {g}, name);
        Emit("FusedMulApplyMomentum", Category::kVector, Phase::kOptimizer, {w32, Fresh(w32), s, g, s}, {w32},
             name);
        break;
      case Optimizer::kAdam:
        // MindSpore's nn.Adam emits the Adam kernel (var, m, v, beta1_power, beta2_power, lr,
        // beta1, beta2, epsilon, grad), updating var, m and v in place.
        {
          OpTensor m = Fresh(w32), v = Fresh(w32);
          Emit("Adam", Category::kVector, Phase::kOptimizer, {w32, m, v, s, s, s, s, s, s, g}, {w32, m, v},
               name);
        }
        break;
      case Optimizer::kAdamW: {
        // AdamWeightDecay's update fused by graph mode (the ViT step perfcover listed):
        // AdamApplyOneWithDecayAssign(grad, v, m, var, lr, beta1, 1 - beta1, beta2, 1 - beta2,
        // weight_decay, eps) on weights, AdamApplyOneAssign (no decay input) on what the default
        // decay filter exempts (LayerNorm gamma / beta and biases: the 1-D parameters).
        OpTensor m = Fresh(w32), v = Fresh(w32);
        const bool decay = w.shape.size() >= 2;
        std::vector<OpTensor> in = {g, v, m, w32, s, s, s, s, s};
        if (decay) in.push_back(s);
        in.push_back(s);
        Emit(decay ? "AdamApplyOneWithDecayAssign" : "AdamApplyOneAssign", Category::kVector,
             Phase::kOptimizer, std::move(in), {v, m, w32}, name);
        break;
      }
      case Optimizer::kLamb: {
        // Gradient clipping by global norm during backward, the LAMB update after it.
        // The clipping reads the fp32 gradients of the fp32 master weights (the records'
        // SquareSumV1 / RealDiv read typeid-shifted are all float32).
        for (auto [type, in, out] : {std::tuple{"SquareSumV1", std::vector<OpTensor>{g}, s},
                                     std::tuple{"ClipByNormNoDivSum", std::vector<OpTensor>{s, s, s, s}, s},
                                     std::tuple{"RealDiv", std::vector<OpTensor>{g, s}, g}})
          Emit(type, Category::kVector, Phase::kBackward, in, {out}, name).keeps_fp32 = true;
        auto defer = [&](std::string type, std::vector<OpTensor> in, std::vector<OpTensor> out) {
          DeviceOp op;
          op.op_type = std::move(type);
          op.name = name;
          op.phase = Phase::kOptimizer;
          op.inputs = std::move(in);
          op.outputs = std::move(out);
          op.atomic_output = op.op_type.rfind("SquareSum", 0) == 0;
          deferred_.push_back(std::move(op));
        };
        OpTensor m = Fresh(w32), v = Fresh(w32);
        defer("SquareSumV2", {w32}, {s, Fresh(w32)});
        defer("LambApplyOptimizerAssign", {g, m, v, w32, s, s, s, s, s, s}, {Fresh(w32), m, v});
        defer("Sqrt", {s}, {s});
        defer("SquareSumV1", {w32}, {s});
        defer("Sqrt", {s}, {s});
        defer("LambApplyWeightAssign", {s, s, s, w32, w32}, {w32});
        break;
      }
    }
  }

  static bool FusedDbnDwApplies(const OpTensor& conv_out, const OpTensor& weight) {
    // Inferred from the ResNet-50 calibration (shared/calibration/ascend910): the BN reduce grad is
    // fused into the filter gradient at 56x56 and above, and for 1x1 convolutions at 28x28.
    if (conv_out.shape.size() != 4 || weight.shape.size() != 4) return false;
    const int64_t hw = conv_out.shape[2] * conv_out.shape[3];
    const bool one_by_one = weight.shape[2] == 1 && weight.shape[3] == 1;
    return hw >= 56 * 56 || (one_by_one && hw >= 28 * 28);
  }

  void Visit(const DeviceOp& f) {
    if (f.outputs.empty() || std::none_of(f.outputs.begin(), f.outputs.end(),
                                          [&](const OpTensor& t) { return HasGrad(t.value); })) {
      return;
    }
    const auto c = Components(f.op_type);
    // The output the gradient flows back through: the first one that has a gradient (a fused
    // BNTrainingUpdate_ReLUV2 lists its four statistics before the ReLU's output).
    const auto main =
        std::find_if(f.outputs.begin(), f.outputs.end(), [&](const OpTensor& t) { return HasGrad(t.value); });
    const OpTensor dy = Grad(*main);
    const std::string& name = f.name;
    const Phase bw = Phase::kBackward;
    std::vector<OpTensor> acts, weights;
    for (const OpTensor& t : f.inputs) (t.weight ? weights : acts).push_back(t);

    if (Has(c, "BNTrainingUpdate")) {
      // dgamma / dbeta; the gradient wrt the normalised input flows on to the BN reduce grad.
      OpTensor x = f.inputs[0];
      std::vector<OpTensor> dparams;
      for (const OpTensor& w : weights) dparams.push_back(ParamGrad(w));
      if (dparams.empty()) dparams = {Channel(x), Channel(x)};
      // Inputs dy, x, batch_mean, batch_variance (TBE bn_training_update_grad).
      Emit("BNTrainingUpdateGrad", Category::kVector, bw, {dy, x, Channel(x), Channel(x)}, dparams, name);
      for (const OpTensor& w : weights) Update(w, name);
      // The statistics' gradient runs with the convolution when the BN reduce is fused into it
      // (FusedDbnDw or BNTrainingReduceGrad there); a BNTrainingReduce of its own (eager mode, or
      // a BN after a pooling or concat) gets its BNTrainingReduceGrad here, before x's gradient.
      const int p = graph_.Producer(x.value);
      const bool reduce_in_producer =
          p >= 0 && Has(Components(fwd_[static_cast<size_t>(p)].op_type), "BNTrainingReduce");
      for (const OpTensor& a : acts) {
        if (a.shape != x.shape) continue;
        if (a.value == x.value && !reduce_in_producer && RequiresGrad(x)) {
          OpTensor gx = GradOf(x);
          std::vector<OpTensor> in = {dy, x};
          const std::vector<OpTensor> channels = ReduceGradChannels(x);
          in.insert(in.end(), channels.begin(), channels.end());
          Emit("BNTrainingReduceGrad", Category::kVector, bw, std::move(in), {gx}, name);
          Contribute(x, "", Category::kVector, bw, {gx}, name);
          continue;
        }
        Contribute(a, "", Category::kVector, bw, {dy}, name);
      }
      return;
    }
    if (f.op_type == "Conv2DTranspose" || f.op_type == "DepthwiseConv2dNative") {
      ConvBackwardUnfused(f, dy, weights);
      return;
    }
    if (Has(c, "Conv2D")) {
      const OpTensor& a = f.inputs[0];
      const OpTensor w = f.inputs.size() > 1 ? f.inputs[1] : a;
      OpTensor g = dy;
      if (Has(c, "BNTrainingReduce")) {
        g = GradOf(f.outputs[0]);
        std::vector<OpTensor> channels = ReduceGradChannels(f.outputs[0]);
        if (FusedDbnDwApplies(f.outputs[0], w)) {
          std::vector<OpTensor> in = {a, dy, f.outputs[0]};
          in.insert(in.end(), channels.begin(), channels.end());
          Emit("FusedDbnDw", Category::kCube, bw, std::move(in), {g, ParamGrad(w)}, name);
        } else {
          std::vector<OpTensor> in = {dy, f.outputs[0]};
          in.insert(in.end(), channels.begin(), channels.end());
          Emit("BNTrainingReduceGrad", Category::kVector, bw, std::move(in), {g}, name);
          // MindSpore's operand order: Conv2DBackpropFilter(dout, input), as the records list it.
          Emit("Conv2DBackpropFilter", Category::kCube, bw, {g, a}, {ParamGrad(w)}, name);
        }
      } else {
        Emit("Conv2DBackpropFilter", Category::kCube, bw, {g, a}, {ParamGrad(w)}, name);
        if (weights.size() > 1)
          Emit("BiasAddGrad", Category::kVector, bw, {g}, {ParamGrad(weights[1])}, name);
      }
      for (const OpTensor& p : weights) Update(p, name);
      // Conv2DBackpropInput(dout, filter), MindSpore's order, as the records list it.
      Contribute(a, "Conv2DBackpropInput", Category::kCube, bw, {g, w}, name);
      return;
    }
    if (Has(c, "MatMul") || Has(c, "BatchMatMul")) {
      const std::string mm = Has(c, "BatchMatMul") ? "BatchMatMul" : "MatMul";
      if (!weights.empty()) {
        const OpTensor& w = weights[0];
        Emit(mm, Category::kCube, bw, {acts.empty() ? w : acts[0], dy}, {ParamGrad(w)}, name);  // dW = x^T dy
        if (weights.size() > 1)
          Emit("BiasAddGrad", Category::kVector, bw, {dy}, {ParamGrad(weights[1])}, name);
        for (const OpTensor& p : weights) Update(p, name);
        for (const OpTensor& a : acts) Contribute(a, mm, Category::kCube, bw, {dy, w}, name);
      } else {
        for (size_t i = 0; i < acts.size(); ++i) {
          std::vector<OpTensor> in = {dy, acts[i]};           // a lone A, or an epilogue's scale / mask
          if (acts.size() > 1 && i == 0) in = {dy, acts[1]};  // dA = dY B^T
          if (acts.size() > 1 && i == 1) in = {acts[0], dy};  // dB = A^T dY
          Contribute(acts[i], mm, Category::kCube, bw, std::move(in), name);
        }
      }
      return;
    }
    // Vector ops: one gradient kernel per activation input, named as CANN names the grad op.
    std::string grad_type;
    if (Has(c, "Softmax"))
      grad_type = "SoftmaxGradExt";
    else if (Has(c, "LogSoftmax"))
      grad_type = "LogSoftmaxGrad";
    else if (Has(c, "LayerNorm"))
      grad_type = "LayerNormXBackpropV2";
    else if (Has(c, "DropoutDoMask"))
      grad_type = "DropoutDoMask";
    else if (Has(c, "MaxPoolWithArgmax"))
      grad_type = "MaxPoolGradWithArgmax";
    else if (Has(c, "AvgPool"))
      grad_type = "AvgPoolGrad";
    else if (f.op_type == "ResizeNearestNeighborV2" || f.op_type == "ResizeBilinearV2")
      grad_type = f.op_type + "Grad";
    else if (f.op_type == "ReduceSum")
      grad_type = "Tile";  // bprop_reducesum: reshape + tile of dout
    else if (f.op_type == "PadD")
      grad_type = "Slice";  // get_bprop_pad (grad_nn_ops.py): P.Slice()(dout, begin, shape(x))
    else if (Has(c, "ConfusionTransposeD") || Has(c, "TransposeD"))
      grad_type = f.op_type;
    else if (Has(c, "Cast"))
      grad_type = "Cast";
    else if (Has(c, "ReduceMean"))
      grad_type = "Tile";
    else if (Has(c, "Gather"))
      grad_type = "UnsortedSegmentSum";
    else if (Has(c, "StridedSlice"))
      grad_type = "StridedSliceGrad";
    else if (Has(c, "ConcatD"))
      grad_type = "SplitVD";
    else if (f.op_type == "SplitD" || f.op_type == "SplitVD")
      grad_type = "ConcatD";  // get_bprop_split (grad_array_ops.py): concat of the douts
    else if (f.op_type == "BroadcastTo")
      grad_type = "ReduceSum";  // get_bprop_broadcast_to: reduce_sum over the broadcast axes
    else if (f.op_type == "Select")
      grad_type = "Select";  // get_bprop_select: select(cond, dout, zeros) per value input
    else if (std::all_of(c.begin(), c.end(), [](const std::string& p) { return p == "Add"; }))
      grad_type = "";  // identity for same-shaped inputs, ReduceSum for broadcast
    else if (!ActivationGrad(f.op_type).empty() && c.size() == 1)
      grad_type = "";  // done by the consumer
    else
      // The gradient of a UB-fused elementwise chain is elementwise too: one vector kernel of the
      // output's size per input (named like the simplest such CANN kernel).
      grad_type = c.size() > 1 && internal::IsElementwise(c[0]) ? "Mul" : f.op_type + "Grad";
    if (Has(c, "LayerNorm")) {
      LayerNormBackward(f, dy, acts, weights);
      return;
    }
    if (Has(c, "Gather") && !weights.empty()) {
      // UnsortedSegmentSum(dy, indices), as the records list it.
      std::vector<OpTensor> in = {dy};
      for (const OpTensor& t : acts) {
        if (!ir::IsFloatingPoint(t.dtype)) in.push_back(t);
      }
      Emit("UnsortedSegmentSum", Category::kVector, bw, std::move(in), {ParamGrad(weights[0])}, name);
      Update(weights[0], name);
      return;
    }
    for (const OpTensor& p : weights) {
      if (!Has(c, "LayerNorm")) {
        // A weight read by a vector op (a bias Add, a position embedding): a reduction of dy.
        Emit("ReduceSum", Category::kVector, bw, {dy}, {ParamGrad(p)}, name);
        Update(p, name);
      }
    }
    if (f.op_type == "Mul" || f.op_type == "RealDiv" || f.op_type == "Sub") {
      for (size_t i = 0; i < f.inputs.size(); ++i) {
        if (RequiresGrad(f.inputs[i])) BinaryGrad(f, f.op_type, i, f.inputs[i], dy);
      }
      return;
    }
    if (grad_type == "AvgPoolGrad" && !acts.empty()) {
      // AvgPoolGrad(dy, mean_matrix, kernel_matrix) (TBE avg_pool_grad_d): a depthwise
      // backprop-input of dy with a [C, 1, kh, kw] kernel of ones, scaled by the per-pixel
      // divisor; both matrices are constants of the graph.
      const OpTensor& x = acts[0];
      OpTensor mean = Fresh(dy);
      const int64_t kh = f.window.size() == 2 ? f.window[0] : 1, kw = f.window.size() == 2 ? f.window[1] : 1;
      OpTensor kernel{
          next_id_--, dy.dtype, {x.shape.size() > 1 ? x.shape[1] : 1, 1, kh, kw}, Format::kNd, false};
      Contribute(x, "AvgPoolGrad", Category::kVector, bw, {dy, mean, kernel}, name);
      return;
    }
    if ((f.op_type == "Maximum" || f.op_type == "Minimum") && f.inputs.size() == 2) {
      // One MaximumGrad(x, y, dout) -> (dx, dy) kernel (G.MaximumGrad in grad_math_ops.py).
      std::vector<OpTensor> grads;
      for (const OpTensor& t : f.inputs) grads.push_back(GradOf(t));
      Emit(f.op_type + "Grad", Category::kVector, bw, {f.inputs[0], f.inputs[1], dy}, grads, name);
      for (size_t i = 0; i < 2; ++i) Contribute(f.inputs[i], "", Category::kVector, bw, {grads[i]}, name);
      return;
    }
    if (f.op_type == "MaxPoolWithArgmax" && f.outputs.size() == 2 && !acts.empty()) {
      // MaxPoolGradWithArgmax(x, dy, argmax), as the ResNet-50 calibration lists it.
      Contribute(acts[0], grad_type, Category::kVector, bw, {acts[0], dy, f.outputs[1]}, name);
      return;
    }
    if (grad_type == "SoftmaxGradExt" && !acts.empty() && !f.outputs.empty()) {
      // SoftmaxGradExt(dy, y, scale): the softmax gradient reads the softmax's output and a
      // scalar (TBE softmax_grad_ext's grad, x1, x2; every BERT record lists the three).
      const OpTensor scale{next_id_--, dy.dtype, {}, Format::kNd, false};
      Contribute(acts[0], grad_type, Category::kVector, bw, {dy, f.outputs[0], scale}, name);
      return;
    }
    if (grad_type == "LogSoftmaxGrad" && !acts.empty() && !f.outputs.empty()) {
      // LogSoftmaxGrad(y, dy): MindSpore's LogSoftmax bprop reads the forward output and dout (the
      // BERT records' two full-size inputs).
      Contribute(acts[0], grad_type, Category::kVector, bw, {f.outputs[0], dy}, name);
      return;
    }
    if (f.op_type == "DropoutDoMask" && f.inputs.size() == 3) {
      // DropoutDoMask(dy, mask, keep_prob): the backward reapplies the forward's mask.
      Contribute(f.inputs[0], grad_type, Category::kVector, bw, {dy, f.inputs[1], f.inputs[2]}, name);
      return;
    }
    if (grad_type == "ConcatD" && !acts.empty()) {
      // One ConcatD of every output's gradient (an output nothing reads contributes zeros).
      std::vector<OpTensor> douts;
      for (const OpTensor& o : f.outputs) douts.push_back(HasGrad(o.value) ? Grad(o) : Fresh(o));
      Contribute(acts[0], grad_type, Category::kVector, bw, std::move(douts), name);
      return;
    }
    if (f.op_type == "Select" && f.inputs.size() == 3) {
      // Select(cond, dout, zeros) for x, Select(cond, zeros, dout) for y; cond gets no gradient.
      for (size_t i = 1; i < 3; ++i)
        Contribute(f.inputs[i], "Select", Category::kVector, bw, {f.inputs[0], dy, Fresh(dy)}, name);
      return;
    }
    for (const OpTensor& a : acts) {
      std::string type = grad_type;
      if (type.empty() && Has(c, "Add") && Numel(a.shape) != Numel(dy.shape)) type = "ReduceSum";
      Contribute(a, type, Category::kVector, bw, {dy}, name);
      if (f.op_type == "ReduceMean" && !type.empty())
        Emit("RealDiv", Category::kVector, bw, {Grad(a)}, {Grad(a)}, name);
    }
  }

  // A transposed convolution (MindSpore's Conv2DTranspose is Conv2DBackpropInput) differentiates
  // as its bprop in grad_nn_ops.py: dx = Conv2D(dy, w), dw = Conv2DBackpropFilter(x, dy). A
  // depthwise convolution uses DepthwiseConv2dNativeBackprop{Filter,Input}. Neither input
  // gradient is fused with the activation gradient after it (no such fusion is modelled).
  void ConvBackwardUnfused(const DeviceOp& f, const OpTensor& dy, const std::vector<OpTensor>& weights) {
    const bool depthwise = f.op_type == "DepthwiseConv2dNative";
    const OpTensor& a = f.inputs[0];
    const OpTensor w = f.inputs.size() > 1 ? f.inputs[1] : a;
    const Phase bw = Phase::kBackward;
    if (depthwise) {
      Emit("DepthwiseConv2dNativeBackpropFilter", Category::kCube, bw, {a, dy}, {ParamGrad(w)}, f.name);
    } else {
      Emit("Conv2DBackpropFilter", Category::kCube, bw, {a, dy}, {ParamGrad(w)}, f.name);
    }
    if (weights.size() > 1) Emit("BiasAddGrad", Category::kVector, bw, {dy}, {ParamGrad(weights[1])}, f.name);
    for (const OpTensor& p : weights) Update(p, f.name);
    if (!RequiresGrad(a)) return;
    OpTensor dx = GradOf(a);
    // MindSpore's operand orders: DepthwiseConv2dNativeBackpropInput(filter, dout), Conv2D(dout, filter).
    Emit(depthwise ? "DepthwiseConv2dNativeBackpropInput" : "Conv2D", Category::kCube, bw,
         depthwise ? std::vector<OpTensor>{w, dy} : std::vector<OpTensor>{dy, w}, {dx}, f.name);
    Contribute(a, "", Category::kVector, bw, {dx}, f.name);
  }

  // The gradient kernels of a binary elementwise op for input `index`, as MindSpore's bprops
  // (grad_math_ops.py) emit them: Mul: dout * other; RealDiv: dx = dout / y and
  // dy = -(dx * out); Sub: dout, Neg for y. A broadcast input then sums its gradient back with
  // ReduceSum (binop_grad_common).
  void BinaryGrad(const DeviceOp& f, const std::string& type, size_t index, const OpTensor& a,
                  const OpTensor& dy) {
    const Phase bw = Phase::kBackward;
    const bool broadcast = Numel(a.shape) != Numel(dy.shape);
    OpTensor full = GradOf(a);
    full.shape = dy.shape;
    if (type == "Mul") {
      Emit("Mul", Category::kVector, bw, {dy, f.inputs[f.inputs.size() - 1 - index]}, {full}, f.name);
    } else if (type == "RealDiv") {
      Emit("RealDiv", Category::kVector, bw, {dy, f.inputs.back()}, {full}, f.name);
      if (index == 1) {
        Emit("Mul", Category::kVector, bw, {full, f.outputs[0]}, {full}, f.name);
        Emit("Neg", Category::kVector, bw, {full}, {full}, f.name);
      }
    } else if (index == 1) {  // Sub
      Emit("Neg", Category::kVector, bw, {dy}, {full}, f.name);
    } else {
      full = dy;
    }
    if (broadcast) {
      Contribute(a, "ReduceSum", Category::kVector, bw, {full}, f.name);
    } else {
      Contribute(a, "", Category::kVector, bw, {full}, f.name);
    }
  }

  // CANN's LayerNorm writes y, mean and variance (one per row, [rows, 1]); its backward is
  // LayerNormXBackpropV2(dy, x, variance, mean, gamma) -> (dx, res_for_gamma), then
  // LayerNormBetaGammaBackpropV2(dy, res_for_gamma) -> (dgamma, dbeta) (TBE's layer_norm_x_backprop_v2
  // / layer_norm_beta_gamma_backprop_v2; the BERT calibration records list these operands).
  void LayerNormBackward(const DeviceOp& f, const OpTensor& dy, const std::vector<OpTensor>& acts,
                         const std::vector<OpTensor>& weights) {
    const OpTensor& x = f.inputs[0];
    const int64_t features = x.shape.empty() ? 1 : x.shape.back();
    const int64_t rows = Numel(x.shape) / std::max<int64_t>(features, 1);
    const OpTensor mean{next_id_--, ir::DType::kFloat32, {rows, 1}, Format::kNd, false};
    const OpTensor variance{next_id_--, ir::DType::kFloat32, {rows, 1}, Format::kNd, false};
    // The forward kernel is out_[its index in fwd_] (out_ starts as a copy of fwd_).
    out_[static_cast<size_t>(&f - fwd_.data())].outputs.push_back(mean);
    out_[static_cast<size_t>(&f - fwd_.data())].outputs.push_back(variance);
    std::vector<OpTensor> in = {dy, x, variance, mean};
    if (!weights.empty()) in.push_back(weights[0]);
    const OpTensor res = Fresh(x);
    bool res_written = false;
    for (const OpTensor& a : acts) {
      const size_t before = out_.size();
      Contribute(a, "LayerNormXBackpropV2", Category::kVector, Phase::kBackward, in, f.name);
      for (size_t i = before; i < out_.size(); ++i) {
        if (out_[i].op_type != "LayerNormXBackpropV2") continue;
        out_[i].outputs.push_back(res);
        res_written = true;
      }
    }
    // Without an input gradient (x is a graph input) the gamma / beta gradient reads x itself.
    std::vector<OpTensor> dparams;
    for (const OpTensor& w : weights) dparams.push_back(ParamGrad(w));
    Emit("LayerNormBetaGammaBackpropV2", Category::kVector, Phase::kBackward, {dy, res_written ? res : x},
         dparams, f.name);
    for (const OpTensor& p : weights) Update(p, f.name);
  }

  const std::vector<DeviceOp>& fwd_;
  internal::OpGraph graph_;
  int next_id_;
  Optimizer opt_;
  bool mixed_;
  bool fuse_dx_, fuse_unscale_, fuse_eltwise_;  // the backward's UB fusion passes are on
  std::vector<DeviceOp> out_, deferred_;
  std::unordered_map<int, OpTensor> grad_, param_grad_;
  std::unordered_map<int, int> need_, pending_;
  std::unordered_map<int, OpTensor> relu_mask_;   // forward op index -> its ReluV2 mask
  std::unordered_map<int, OpTensor> gelu_input_;  // forward op index -> its fused GeLU's input
  std::unordered_set<int> act_done_, seen_params_;
  int64_t parameters_ = 0, gradient_bytes_ = 0;
};

}  // namespace

Expected<Optimizer> ParseOptimizer(const std::string& name) {
  if (name == "momentum") return Optimizer::kMomentum;
  if (name == "lamb") return Optimizer::kLamb;
  if (name == "adam") return Optimizer::kAdam;
  if (name == "adamw") return Optimizer::kAdamW;
  return Status::InvalidArgument(
      fmt::format("--optimizer '{}': expected momentum, lamb, adam or adamw", name));
}

std::vector<DeviceOp> AddTraining(std::vector<DeviceOp> ops, Optimizer optimizer, bool mixed_precision,
                                  TrainingInfo* info, const FusionSwitches& switches) {
  Backward b(ops, optimizer, mixed_precision, switches.Enabled(kDxFusion, "UBFusion"),
             switches.Enabled(kUnscaleFusion, "UBFusion"),
             switches.Enabled("TbeEltwiseFusionPass", "UBFusion"));
  return b.Run(info);
}

}  // namespace npugap::analysis::perf
