// The loss kernels of a classifier output in a training step (lower_train.cc puts them on each
// float graph output of rank >= 2 that is not sigmoid-trained), as MindSpore emits them on Ascend.
#pragma once

#include <vector>

#include "npugap/analysis/perf/lower/lower.h"

namespace npugap::analysis::perf::internal {

struct LossKernels {
  std::vector<DeviceOp> forward;   // in step order
  std::vector<DeviceOp> backward;  // in step order; the last one writes the output's gradient
  OpTensor loss;                   // the fp32 scalar the forward ends in
};

// `out` is the graph output flattened to [rows, classes]; `grad` the tensor (same shape) that
// receives its gradient. `log_probs`: a LogSoftmax writes `out` (MindSpore BERT's heads end in
// one); `fuse_eltwise`: TbeEltwiseFusionPass is on. New tensor ids count down from `next_id`.
LossKernels SoftmaxLossKernels(const OpTensor& out, const OpTensor& grad, bool log_probs, bool fuse_eltwise,
                               int& next_id);

// The loss-scale overflow check of a mixed-precision step, as MindSpore's loss-scale cells
// (nn.TrainOneStepWithLossScaleCell, model_zoo BERT's BertTrainOneStepWithLossScaleCell) write it.
std::vector<DeviceOp> LossScaleCheckKernels(int& next_id);

}  // namespace npugap::analysis::perf::internal
