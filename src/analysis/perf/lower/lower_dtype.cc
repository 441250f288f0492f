// Pass 4: the dtype each kernel computes in, from the precision mode (ascend-facts §3.1-3.3), and
// the Cast kernels where a value reaches a consumer in another dtype. npugap's precision plan
// (analysis/precision/plan.h) is not used yet: it had not landed when this pass was written, so
// the modes' blanket rules are applied here per op class (cube / vector / black list).
//
// Weights of an inference model are converted by ATC at build time (no kernel); a training step
// casts its fp32 master weights every iteration (the Cast kernels of the calibration data).
#include <algorithm>
#include <map>
#include <string_view>
#include <unordered_map>

#include "lower_graph.h"

namespace npugap::analysis::perf {
namespace {

enum class Mode { kForceFp16, kAllowFp32ToFp16, kMixed, kOrigin, kForceFp32 };

struct ModeName {
  std::string_view name;
  Mode mode;
  bool bf16;
};
constexpr ModeName kModes[] = {
    {"force_fp16", Mode::kForceFp16, false},
    {"fp16", Mode::kForceFp16, false},
    {"allow_fp32_to_fp16", Mode::kAllowFp32ToFp16, false},
    {"allow_mix_precision", Mode::kMixed, false},
    {"allow_mix_precision_fp16", Mode::kMixed, false},
    {"mixed_float16", Mode::kMixed, false},
    {"allow_mix_precision_bf16", Mode::kMixed, true},
    {"mixed_bfloat16", Mode::kMixed, true},
    {"must_keep_origin_dtype", Mode::kOrigin, false},
    {"origin", Mode::kOrigin, false},
    {"force_fp32", Mode::kForceFp32, false},
    {"cube_fp16in_fp32out", Mode::kForceFp32, false},
};

// Ops mixed precision keeps in fp32 (numerically sensitive reductions, normalisation, loss and
// optimizer), assumed from what the ops compute. BatchNorm's kernels are not listed: they read
// the fp16 convolution output and keep fp32 statistics inside the fused kernel, as the
// calibration's FusionOp_Conv2D_BNTrainingReduce / BNTrainingUpdate records show.
constexpr std::string_view kBlack[] = {"Softmax",
                                       "LogSoftmax",
                                       "SoftmaxGradExt",
                                       "LogSoftmaxGrad",
                                       "LayerNorm",
                                       "LayerNormXBackpropV2",
                                       "LayerNormBetaGammaBackpropV2",
                                       "ReduceSum",
                                       "ReduceMean",
                                       "SoftmaxCrossEntropyWithLogits",
                                       "Exp",
                                       "Log",
                                       "Pow"};

template <size_t N>
bool Listed(const std::string_view (&list)[N], const std::string& t) {
  return std::find(std::begin(list), std::end(list), t) != std::end(list);
}
bool IsBlack(const std::string& t) { return Listed(kBlack, t); }

// Mixed-precision training (MindSpore's O2 / allow_mix_precision step, as the calibration steps
// show it read typeid-shifted, docs/fidelity.md "session 14, lowertrue"): the cube runs fp16 and
// every other kernel follows its input, so feature maps are fp16 from the first convolution or
// matmul on (BERT's embeddings, before the first matmul, stay fp32); LayerNorm and Softmax follow
// too (the 25 encoder LayerNorms and 12 Softmaxes are fp16). Only the loss is fp32, here the
// model's own loss kernels and those lower_train.cc adds (DeviceOp::keeps_fp32).
constexpr std::string_view kTrainBlack[] = {"LogSoftmax",
                                            "LogSoftmaxGrad",
                                            "SoftmaxCrossEntropyWithLogits",
                                            "SparseSoftmaxCrossEntropyWithLogits",
                                            "SigmoidCrossEntropyWithLogits",
                                            "SigmoidCrossEntropyWithLogitsGrad"};

bool IsTrainBlack(const std::string& t) { return Listed(kTrainBlack, t); }

// A batch-norm kernel: its per-channel operands (statistics, scale / offset and their gradients,
// rank <= 1 before layout) are fp32 whatever the feature map is (TBE's bn_training_* op info
// takes float32 only for them; every BN record reads them float32).
bool IsBatchNormKernel(const std::string& t) {
  return t.find("BNTraining") != std::string::npos || t.find("BNInfer") != std::string::npos ||
         t == "FusedDbnDw";
}

// The outputs TBE's op info fixes to float32 whatever the input: LayerNormXBackpropV2's
// res_for_gamma (its second output) and LayerNormBetaGammaBackpropV2's pd_gamma / pd_beta
// (layer_norm_x_backprop_v2.py / layer_norm_beta_gamma_backprop_v2.py; the BERT records read
// typeid-shifted agree).
bool OutputIsFp32(const std::string& t, size_t index) {
  return (t == "LayerNormXBackpropV2" && index == 1) || t == "LayerNormBetaGammaBackpropV2";
}
// ... and the input that reads it: LayerNormBetaGammaBackpropV2's res_for_gamma.
bool InputIsFp32(const std::string& t, size_t index) {
  return t == "LayerNormBetaGammaBackpropV2" && index == 1;
}

const ModeName* FindMode(const std::string& name) {
  for (const ModeName& m : kModes) {
    if (m.name == name) return &m;
  }
  return nullptr;
}

}  // namespace

std::vector<std::string> LowerPrecisionModes() {
  std::vector<std::string> out;
  for (const ModeName& m : kModes) out.emplace_back(m.name);
  return out;
}

bool IsLowerPrecisionMode(const std::string& name) { return FindMode(name) != nullptr; }

std::vector<DeviceOp> AssignDtypes(std::vector<DeviceOp> ops, const std::string& precision_mode, bool train,
                                   int64_t* casts) {
  const ModeName* m = FindMode(precision_mode);
  const Mode mode = m ? m->mode : Mode::kForceFp16;
  const ir::DType low = m && m->bf16 ? ir::DType::kBFloat16 : ir::DType::kFloat16;
  std::unordered_map<int, ir::DType> current;  // value id -> dtype it is stored in
  std::map<std::pair<int, ir::DType>, int> cast_of;
  int next_id = internal::NextFreeId(ops);
  int64_t inserted = 0;
  const bool mixed_train = mode == Mode::kMixed && train;
  std::vector<DeviceOp> out;
  out.reserve(ops.size() * 2);
  for (DeviceOp& op : ops) {
    // Mixed-precision training keeps fp32 master weights whatever dtype the file stores them in
    // (MindSpore's O2; the BERT records cast each of its 206 parameters float32 -> float16 every
    // step, read typeid-shifted, although npugap's BERT export stores them in fp16).
    if (mixed_train) {
      for (OpTensor& t : op.inputs) {
        if (t.weight && ir::IsFloatingPoint(t.dtype)) t.dtype = ir::DType::kFloat32;
      }
    }
    // The float dtype this op computes in.
    ir::DType first = ir::DType::kFloat32;
    for (const OpTensor& t : op.inputs) {
      if (ir::IsFloatingPoint(t.dtype)) {
        auto it = current.find(t.value);
        first = it != current.end() ? it->second : t.dtype;
        // Mixed-precision training keeps a gradient in its forward value's dtype (the bprop of
        // a Cast casts back), so a backward kernel follows the forward value, not the kernel
        // that happened to write the gradient (an fp32 loss, an fp16 cube dx into fp32 BERT
        // embeddings).
        if (mixed_train && t.grad_of) {
          if (auto f = current.find(*t.grad_of); f != current.end()) first = f->second;
        }
        break;
      }
    }
    ir::DType compute = first;
    const bool cube = op.category == Category::kCube;
    const bool optimizer = op.phase == Phase::kOptimizer;
    switch (mode) {
      case Mode::kForceFp16:
        compute = optimizer ? ir::DType::kFloat32 : low;
        break;
      case Mode::kAllowFp32ToFp16:
        compute = cube ? low : first;
        break;
      case Mode::kMixed:
        // Training keeps activations stored in their graph dtype and the cube converts on load, as
        // the MindSpore mixed-precision steps in shared/calibration/ascend910 label them (fp32
        // NC1HWC0 / FRACTAL_NZ activations between fused cube and vector kernels, Casts only for
        // fp16-stored parameters).
        if (train) {
          compute = op.keeps_fp32 || IsTrainBlack(op.op_type) || optimizer ? ir::DType::kFloat32
                    : cube                                                 ? low
                                                                           : first;
        } else {
          compute = cube ? low : (IsBlack(op.op_type) || optimizer ? ir::DType::kFloat32 : first);
        }
        break;
      case Mode::kOrigin:
        compute = first;
        break;
      case Mode::kForceFp32:
        compute = cube ? low : ir::DType::kFloat32;
        break;
    }
    if (op.op_type == "Cast" && !op.outputs.empty())
      compute = op.outputs[0].dtype;  // a model Cast keeps its target
    for (size_t index = 0; index < op.inputs.size(); ++index) {
      OpTensor& t = op.inputs[index];
      if (!ir::IsFloatingPoint(t.dtype) || op.op_type == "Cast") {
        if (auto it = current.find(t.value); it != current.end()) t.dtype = it->second;
        continue;
      }
      auto it = current.find(t.value);
      const ir::DType have = it != current.end() ? it->second : t.dtype;
      // Mixed-precision training runs every cube op on a copy of its master weight converted that
      // step: in the calibration each of ResNet-50's 53 convolution filters and its fc weight, and
      // each of BERT's matmul weights, has one Cast per step before its first cube kernel. A weight
      // already stored in the compute dtype (an fp32 model) is converted to the low dtype.
      ir::DType want = mode == Mode::kMixed && train && cube && t.weight && have == compute ? low : compute;
      if (mixed_train &&
          ((IsBatchNormKernel(op.op_type) && t.shape.size() <= 1) || InputIsFp32(op.op_type, index)))
        want = ir::DType::kFloat32;
      // A scalar constant no kernel writes (DropoutDoMask's keep_prob) is made in the dtype its
      // kernel computes in (the records' keep_prob has x's dtype).
      if (mixed_train && it == current.end() && !t.weight && t.value < 0 && t.shape.empty()) {
        t.dtype = want;
        continue;
      }
      // Optimizer kernels read gradients next to master weights and states as they are (mixed
      // training: casts an fp16 gradient a vector kernel wrote, BiasAddGrad's, to fp32); side
      // tensors no kernel writes (BN statistics, labels) are stored as they are read.
      if ((optimizer && !mixed_train) || (it == current.end() && !t.weight && t.value < 0)) continue;
      // Vector kernels read tensors no kernel writes (BN running statistics, masks, biases) in
      // the dtype they are stored in; in mixed training a parameter is cast from its fp32 master
      // copy for every kernel that computes in fp16 (LayerNorm's gamma / beta, biases).
      if (it == current.end() && !cube && !(mixed_train && t.weight)) continue;
      if (have == want) {
        t.dtype = want;
        continue;
      }
      if (t.weight && !train) {  // converted offline by ATC
        t.dtype = want;
        continue;
      }
      // Vector kernels read their parameters (BN scale / offset, LayerNorm gamma / beta, biases)
      // in the dtype they are stored in: no per-step Cast (the calibration's BN kernels).
      if (t.weight && !cube && !mixed_train) continue;
      auto key = std::make_pair(t.value, want);
      auto c = cast_of.find(key);
      if (c == cast_of.end()) {
        OpTensor in = t;
        in.dtype = have;
        OpTensor o = t;
        o.dtype = want;
        DeviceOp cast = internal::ConversionOp(op, "Cast", "/cast", in, o, next_id);
        const int cast_value = cast.outputs[0].value;
        c = cast_of.emplace(key, cast_value).first;
        current[cast_value] = want;
        out.push_back(std::move(cast));
        ++inserted;
      }
      t.value = c->second;
      t.weight = false;
      t.dtype = want;
    }
    for (size_t i = 0; i < op.outputs.size(); ++i) {
      OpTensor& t = op.outputs[i];
      if (ir::IsFloatingPoint(t.dtype)) {
        // cube_fp16in_fp32out: fp16 operands, fp32 result.
        t.dtype = mode == Mode::kForceFp32 && cube ? ir::DType::kFloat32 : compute;
        if (mixed_train) {
          // A cube kernel writes a weight gradient in fp32 from its fp32 sums, the dtype of the
          // master weight it updates (the records' FracZ / FRACTAL_NZ dW read typeid-shifted);
          // BN statistics and the TBE kernels' fixed fp32 outputs stay fp32.
          if ((cube && t.weight_grad) || (IsBatchNormKernel(op.op_type) && t.shape.size() <= 1) ||
              OutputIsFp32(op.op_type, i))
            t.dtype = ir::DType::kFloat32;
        }
      }
      current[t.value] = t.dtype;
    }
    out.push_back(std::move(op));
  }
  if (casts) *casts = inserted;
  return out;
}

}  // namespace npugap::analysis::perf
