// The softmax-family loss of a training step, in the two structures MindSpore gives it on Ascend:
//   - raw logits: nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean") is OneHot, the
//     SoftmaxCrossEntropyWithLogits kernel (loss and backprop in one) and ReduceMean; its bprop
//     (grad_nn_ops.py) multiplies the kernel's backprop by the loss gradient spread over the
//     classes (Mul), after ReduceMean's bprop (Tile, RealDiv by the count). The ResNet-50
//     calibration lists exactly these six.
//   - log-probabilities (the graph output is a LogSoftmax, as MindSpore BERT's GetMaskedLMOutput /
//     GetNextSentenceOutput end): model_zoo's BertPretrainingLoss writes the cross entropy by
//     hand, -ReduceSum(log_probs * OneHot(labels), -1), then the mean over the rows. Its bprops are
//     ReduceMean's (Tile, RealDiv), Neg's (Neg; UB-fused with the RealDiv into
//     FusionOp_RealDiv_Neg), ReduceSum's (Tile of the row gradient over the classes) and Mul's
//     (by the one-hot); the LogSoftmaxGrad is the forward LogSoftmax's own (lower_train.cc). The
//     BERT-base calibration lists this chain for both of its heads.
// BERT's masked-LM head weighs its rows (masked_lm_weights: Mul, ReduceSum, RealDiv by the weight
// sum instead of ReduceMean); the ONNX graph carries no such weights, so every output gets the
// plain mean (the records' next-sentence head; model_zoo BERT's finetuning CrossEntropyCalculation).
#include "lower_loss.h"

#include <utility>

namespace npugap::analysis::perf::internal {
namespace {

constexpr const char* kEltwiseFusion = "TbeEltwiseFusionPass";

class LossBuilder {
 public:
  LossBuilder(int64_t rows, int& next_id) : rows_(rows), next_id_(next_id) {}

  OpTensor New(ir::Shape shape, ir::DType dtype = ir::DType::kFloat32) {
    OpTensor t;  // ND, no weight
    t.value = next_id_--;
    t.dtype = dtype;
    t.shape = std::move(shape);
    return t;
  }
  OpTensor Rows() { return New({rows_}); }
  OpTensor Scalar() { return New({}); }

  static DeviceOp Op(std::string type, Phase phase, std::vector<OpTensor> in, std::vector<OpTensor> out) {
    DeviceOp op;
    op.op_type = std::move(type);
    op.name = "loss";
    op.category = Category::kVector;
    op.phase = phase;
    op.inputs = std::move(in);
    op.outputs = std::move(out);
    op.keeps_fp32 = true;  // the loss runs in fp32 under mixed precision (lower_dtype.cc)
    return op;
  }

 private:
  int64_t rows_;
  int& next_id_;
};

}  // namespace

LossKernels SoftmaxLossKernels(const OpTensor& out, const OpTensor& grad, bool log_probs, bool fuse_eltwise,
                               int& next_id) {
  LossBuilder b(out.shape[0], next_id);
  LossKernels k;
  const Phase fw = Phase::kForward, bw = Phase::kBackward;
  const int64_t rows = out.shape[0];
  // OneHot(indices, depth, on_value, off_value): the int32 labels, two fp32 scalars.
  const OpTensor labels = b.New({rows}, ir::DType::kInt32);
  const OpTensor onehot = b.New(out.shape);
  k.forward.push_back(LossBuilder::Op("OneHot", fw, {labels, b.Scalar(), b.Scalar()}, {onehot}));
  const OpTensor per_row = b.Rows();
  OpTensor backprop;
  if (log_probs) {
    const OpTensor product = b.New(out.shape);
    const OpTensor summed = b.Rows();
    k.forward.push_back(LossBuilder::Op("Mul", fw, {out, onehot}, {product}));
    k.forward.push_back(LossBuilder::Op("ReduceSum", fw, {product}, {summed}));
    k.forward.push_back(LossBuilder::Op("Neg", fw, {summed}, {per_row}));
  } else {
    // SoftmaxCrossEntropyWithLogits(features, labels) -> (loss, backprop) (TBE's kernel takes
    // 2-D features and labels: the logits flattened to [rows, classes], in ND).
    backprop = b.New(out.shape);
    k.forward.push_back(
        LossBuilder::Op("SoftmaxCrossEntropyWithLogits", fw, {out, onehot}, {per_row, backprop}));
  }
  k.loss = b.Scalar();
  k.forward.push_back(LossBuilder::Op("ReduceMean", fw, {per_row}, {k.loss}));

  // ReduceMean's bprop: the scalar gradient tiled over the rows, divided by their count.
  const OpTensor dloss = b.Scalar();
  const OpTensor tiled = b.Rows();
  k.backward.push_back(LossBuilder::Op("Tile", bw, {dloss}, {tiled}));
  const OpTensor drow = b.Rows();
  OpTensor column = drow;  // the row gradient as [rows, 1], spread over the classes below
  column.shape = {rows, 1};
  if (log_probs) {
    if (fuse_eltwise) {
      DeviceOp fused = LossBuilder::Op("FusionOp_RealDiv_Neg", bw, {tiled, b.Scalar()}, {drow});
      fused.fused_by = kEltwiseFusion;
      k.backward.push_back(std::move(fused));
    } else {
      const OpTensor divided = b.Rows();
      k.backward.push_back(LossBuilder::Op("RealDiv", bw, {tiled, b.Scalar()}, {divided}));
      k.backward.push_back(LossBuilder::Op("Neg", bw, {divided}, {drow}));
    }
    // ReduceSum's bprop: the row gradient [rows, 1] tiled over the classes; Mul's: times the one-hot.
    const OpTensor spread = b.New(out.shape);
    k.backward.push_back(LossBuilder::Op("Tile", bw, {column}, {spread}));
    k.backward.push_back(LossBuilder::Op("Mul", bw, {spread, onehot}, {grad}));
  } else {
    k.backward.push_back(LossBuilder::Op("RealDiv", bw, {tiled, b.Scalar()}, {drow}));
    k.backward.push_back(LossBuilder::Op("Mul", bw, {backprop, column}, {grad}));
  }
  return k;
}

// The cell allocates the float-status register (NPUAllocFloatStatus) and clears it before the
// gradients, reads it after them (NPUGetFloatStatus: 8 fp32 flags), sums the flags
// (ReduceSum(init, (0,))) and compares the sum with 1 (LessEqual(base, flag_sum)): overflow. What
// the loss-scale manager then does (DynamicLossScaleUpdateCell's scalar Select / Assign kernels)
// and the learning-rate schedule are the training script's choice and are not emitted.
std::vector<DeviceOp> LossScaleCheckKernels(int& next_id) {
  LossBuilder b(8, next_id);
  const Phase opt = Phase::kOptimizer;
  const OpTensor flags = b.Rows(), sum = b.Scalar(), overflow = b.New({}, ir::DType::kBool);
  std::vector<DeviceOp> out;
  for (const char* t : {"NPUAllocFloatStatus", "NPUGetFloatStatus", "NPUClearFloatStatus"})
    out.push_back(LossBuilder::Op(t, opt, {}, {flags}));
  out.push_back(LossBuilder::Op("ReduceSum", opt, {flags}, {sum}));
  out.push_back(LossBuilder::Op("LessEqual", opt, {b.Scalar(), sum}, {overflow}));
  for (DeviceOp& op : out) op.name = "loss_scale";
  return out;
}

}  // namespace npugap::analysis::perf::internal
