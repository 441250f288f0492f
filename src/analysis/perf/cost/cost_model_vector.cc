// The vector side of the cost model: which class each non-cube op type is in, how many vector
// instructions it spends per element (the arithmetic of its formula, docs/perf.md "Vector"), and
// the time of that arithmetic on the vector lanes.
#include <algorithm>
#include <array>
#include <map>
#include <string>

#include "cost_model_internal.h"

namespace npugap::analysis::perf::internal {
namespace {

struct Entry {
  std::string_view op_type;
  VectorRule rule;
};
constexpr VectorRule E(double simple) { return {VectorClass::kElementwise, {simple, 0, 0, 0}}; }
// An elementwise op that computes in float32 whatever it stores (a cast per 2-byte operand)
constexpr VectorRule E32(double simple) { return {VectorClass::kElementwise, {simple, 0, 0, 0, 0, true}}; }
// simple, transcendental (exp / ln / sqrt), divide, cross-lane reduce instructions per element
constexpr VectorRule V(double s, double t, double d, double r) {
  return {VectorClass::kElementwise, {s, t, d, r}};
}
// The counts of V, computed in float32 (a cast per 2-byte full-size operand)
constexpr VectorRule V32(double s, double t, double d, double r) {
  return {VectorClass::kElementwise, {s, t, d, r, 0, true}};
}
// A row-wise kernel (reductions along the last axis of each row): the counts of V, then `b` per-row
// values broadcast back over the row
constexpr VectorRule Row(double s, double t, double d, double r, double b) {
  return {VectorClass::kElementwise, {s, t, d, r, b}};
}
// A row-wise kernel that computes in float32 (Row, with the fp32 flag)
constexpr VectorRule Row32(double s, double t, double d, double r, double b) {
  return {VectorClass::kElementwise, {s, t, d, r, b, true}};
}
// A row-wise kernel that sums in float32 and does the rest in its stored dtype (Row, with the
// fp32_reduce flag; cost_model_fp32_reduce.cc)
constexpr VectorRule RowSum32(double s, double t, double d, double r, double b) {
  return {VectorClass::kElementwise, {s, t, d, r, b, false, 0, true}};
}
// `rule` with `s` simple and `t` transcendental instructions per UB tile on its per-row values
// (VectorOps::per_row_*, cost_model_row_values.cc)
constexpr VectorRule WithRowValueOps(VectorRule rule, double s, double t) {
  rule.ops.per_row_simple = s, rule.ops.per_row_transcendental = t;
  return rule;
}
// A batch-norm reduction of `simple` ops per element, `sums` of them lane-wise sums over N, H, W
// emitted as halving trees per UB tile (VectorOps::tree_sums), computed in float32
constexpr VectorRule BnSums(double simple, double sums) {
  return {VectorClass::kElementwise, {simple, 0, 0, 0, 0, true, sums}};
}
constexpr VectorRule kMove{VectorClass::kMove, {}};
constexpr VectorRule kGather{VectorClass::kGatherLike, {}};
constexpr VectorRule kLatency{VectorClass::kLatency, {}};

// Ops per element count the instructions of each op's formula over the largest operand, by class
// (VectorOps). Reductions over an outer axis (BiasAddGrad, BN sums over N, H, W in NC1HWC0, whose
// C0 channels are the lanes) are lane-wise accumulations: simple adds. Only a reduction along the
// innermost axis of each row (softmax, layer norm) is a cross-lane `reduce`.
constexpr std::array kRules = {
    // one operation per element
    Entry{"Add", E(1)},
    Entry{"Sub", E(1)},
    Entry{"Mul", E(1)},
    Entry{"RealDiv", V(0, 0, 1, 0)},
    Entry{"Div", V(0, 0, 1, 0)},
    Entry{"Maximum", E(1)},
    Entry{"Minimum", E(1)},
    Entry{"Neg", E(1)},
    Entry{"Abs", E(1)},
    Entry{"Relu", E(1)},
    Entry{"ReluGrad", E(1)},
    Entry{"ReluGradV2", E(1)},
    Entry{"ReLUV2", E(2)},
    Entry{"ReluV2", E(2)},  // the standalone CANN kernel; ReLUV2 is its spelling inside FusionOp_ names
    Entry{"Cast", E(1)},
    Entry{"Sqrt", V(0, 1, 0, 0)},
    Entry{"Rsqrt", E(1)},
    Entry{"Exp", V(0, 1, 0, 0)},
    Entry{"Log", V(0, 1, 0, 0)},
    Entry{"Reciprocal", E(1)},
    Entry{"Square", E(1)},
    Entry{"Select", E(1)},
    Entry{"Greater", E(1)},
    Entry{"GreaterEqual", E(1)},
    Entry{"Less", E(1)},
    Entry{"LessEqual", E(1)},
    Entry{"Equal", E(1)},
    Entry{"NotEqual", E(1)},
    Entry{"LogicalAnd", E(1)},
    Entry{"LogicalOr", E(1)},
    Entry{"LogicalNot", E(1)},
    Entry{"AssignAdd", E(1)},
    Entry{"AssignSub", E(1)},
    Entry{"AddN", E(1)},
    Entry{"BiasAdd", E(1)},
    Entry{"OneHot", E(1)},
    Entry{"UnsortedSegmentSum", E(1)},
    // reductions: one add (or max) per element read
    Entry{"BiasAddGrad", E(1)},
    // CANN's reduce_sum_d casts float16 to float32 when the vector unit sums in float32
    // (`api_check_support("tbe.dsl.reduce_sum", "float32")`), as square_sum_v1 does
    Entry{"ReduceSum", E32(1)},
    Entry{"ReduceSumD", E32(1)},
    Entry{"ReduceMean", E(1)},
    Entry{"ReduceMeanD", E(1)},
    Entry{"ReduceMax", E(1)},
    Entry{"ReduceMaxD", E(1)},
    // x^2 summed over every axis: the sum runs along the innermost axis too, so it is a cross-lane
    // reduce (the rule above). CANN's square_sum_v1 DSL squares (vmul), casts the square to
    // float32 when the vector unit sums in float32, and sums in float32; the square is counted in
    // float32 here too (the flag is per op, so the fp16 vmul is over-counted by 0.0103 cycles per
    // element). square_sum_v2's source was not found: the same reduce, in its stored type.
    Entry{"SquareSumV1", V32(1, 0, 0, 1)},
    Entry{"SquareSumV2", V(1, 0, 0, 1)},
    Entry{"ClipByNormNoDivSum", E(3)},
    // x^y = exp(y ln x): ln, mul, exp; tanh = (e^2x - 1) / (e^2x + 1): mul, exp, sub, add, div;
    // sigmoid = 1 / (1 + e^-x): neg, exp, add, reciprocal
    Entry{"Pow", V(1, 2, 0, 0)},
    Entry{"Tanh", V(3, 1, 1, 0)},
    Entry{"TanhGrad", E(3)},
    Entry{"Sigmoid", V(3, 1, 0, 0)},
    Entry{"SigmoidGrad", E(3)},
    Entry{"MinimumGrad", E(3)},
    Entry{"MaximumGrad", E(3)},
    // TBE's gelu DSL (a 2020 copy, impl/gelu.py on te.lang.cce) casts
    // float16 to float32 where vexp has float32 (the 910), in its default high_precision mode, and
    // computes x / (1 + e^(-2 sqrt(2/pi)(x + 0.044715 x^3))) in float32 (the fp32 flag): vmul,
    // vmul, vmuls, vadd, vmuls, exp, vadds, div. Its gradient (impl/gelu_grad.py of the same
    // copy) casts dy, x and y to float32 under the same check and computes 26 simple
    // instructions, one vexp and one vdiv (tanh as (x - x e^-2|x|) / ((1 + e^-2|x|)(|x| + eps)),
    // session 15 gelu10 / session 16 epi11, docs/fidelity.md); fast gelu x / (1 + e^(-1.702 x)):
    // 2 mul, exp, add, div
    Entry{"GeLU", V32(6, 1, 1, 0)},
    Entry{"Gelu", V32(6, 1, 1, 0)},
    Entry{"GeLUGrad", V32(26, 1, 1, 0)},
    Entry{"GeluGrad", V32(26, 1, 1, 0)},
    Entry{"FastGelu", V(2, 1, 1, 0)},
    Entry{"FastGeluGrad", V(4, 1, 1, 0)},
    // softmax: max (reduce), sub, exp, sum (reduce), div; log-softmax: max, sub, exp, sum, ln, sub;
    // grads: mul, sum, sub, mul; cross entropy: log-softmax, mul by labels, sum, and its gradient.
    // Broadcasts: softmax spreads its max and its sum back over the row, its gradient one sum
    Entry{"Softmax", Row(1, 1, 1, 2, 2)},
    Entry{"SoftmaxV2", Row(1, 1, 1, 2, 2)},
    Entry{"SoftmaxGrad", Row(3, 0, 0, 1, 1)},
    // SoftmaxGradExt: grad x1, its row sum in float32 (a cast up first), grad - sum, x1 x2, and
    // the product, in float16 (softmax_grad_ext DSL, cost_model_fp32_reduce.cc). The sum's
    // broadcast over the NZ C1 and C0 axes is two tbe.broadcast nodes (_broadcast_nz), the first
    // 1 / C1 of the full size and not counted; x2's single-element broadcast is not counted.
    Entry{"SoftmaxGradExt", RowSum32(4, 0, 0, 1, 1)},
    // Log-softmax and its gradient in float32, as CANN's log_softmax_v2 / log_softmax_grad DSL
    // compute whenever the vector unit has a float32 vexp (`has_improve_precision`): x - max,
    // exp, sum, then ln of the per-row sum only (one per row, not per element), x - ln sum; the
    // gradient dy - exp(x) sum(dy). The casts are the fp32 flag's.
    Entry{"LogSoftmax", Row32(2, 1, 0, 2, 2)},
    Entry{"LogSoftmaxV2", Row32(2, 1, 0, 2, 2)},
    Entry{"LogSoftmaxGrad", Row32(2, 1, 0, 1, 1)},
    Entry{"SoftmaxCrossEntropyWithLogits", Row(4, 2, 1, 3, 2)},
    // layer norm: mean (reduce), x - mean, square, sum (reduce), scale by rstd, affine (2); the
    // rstd itself is one scalar per row; mean and rstd are broadcast back over the row
    Entry{"LayerNorm", Row(4, 0, 0, 2, 2)},
    Entry{"LayerNormV3", Row(4, 0, 0, 2, 2)},
    // dx = rstd (dy g - mean(dy g) - xhat mean(dy g xhat)): dy g, xhat (2), dy g xhat, two row sums,
    // sub, sub, mul, mul; V2 also writes dx as fp16 (a cast). Beta / gamma: xhat (2), dy xhat and
    // the two column sums (lane-wise adds over the rows); V2 takes xhat (res_for_gamma, the
    // second output of LayerNormXBackpropV2) as an input and skips the 2. The x-gradient broadcasts
    // four per-row values (mean, rstd, the two scaled sums) and computes in float32: CANN's
    // layer_norm_x_backprop_v2 DSL (the dtype of its float32 labels; float16 is cast up whenever
    // the vector unit has a float32 exp, `has_improve_precision`)
    Entry{"LayerNormXBackprop", Row32(8, 0, 0, 2, 4)},
    // Per tile, on the per-row values: vadds, vmuls, 2 vmul (rstd, rstd^3), vlog, vexp, pd_var
    // (vmul, vmuls), pd_mean (vmul, vmuls), the 2 / m and 1 / m vmuls: 10 simple, 2 transcendental
    // (cost_model_row_values.cc)
    Entry{"LayerNormXBackpropV2", WithRowValueOps(Row32(9, 0, 0, 2, 4), 10, 2)},
    Entry{"LayerNormBetaGammaBackprop", E(5)},
    // V2 in float32: CANN's layer_norm_beta_gamma_backprop_v2 casts float16 up (has_improve_precision),
    // then vmul and the two column sums (tuple_sum)
    Entry{"LayerNormBetaGammaBackpropV2", E32(3)},
    // batch norm (training) split as CANN emits it: reduce (sum, square, sum), update
    // (x - mean, * rstd, * gamma, + beta), update grad (xhat (2), dy xhat, two sums),
    // reduce grad as its DSL computes it (bn_training_reduce_grad_compute: vmul of x by a
    // per-channel multiplier, vadd grads, vadd a per-channel addend, vmul by scale / std; the
    // per-channel broadcasts are fused into those instructions, `*_with_broadcast`, and its
    // per-channel preamble is on 1 x C1 x 1 x 1 x 16 tensors, not counted). CANN's bn_update_grad
    // schedule emits update grad's two sums (dy xhat and dy, `tuple_sum` over N, H, W) per UB tile
    // as `vector_dichotomy_add_for_bn_reduce` whenever the reduced loop is longer than one repeat
    // (`_need_dichotomy_add`); bn_reduce's schedule does the same, but BNTrainingReduce mostly
    // runs fused into a convolution, whose schedule is another one, so it keeps E(3).
    // bn_training_update and bn_training_update_grad cast a float16 x (and grads) to float32 and
    // compute in float32, y cast back (impl/bn_training_update.py `is_cast`; the grad whenever vdiv
    // has float32; public copy dengguojie/vue-element-admin @03d8784): the fp32 flag. Their channel
    // inputs are float32 only (check_dtype). bn_training_reduce_grad casts the same way (same
    // copy). FusedDbnDw's vector part is its own TIK kernel (FusedDbnDwBnGrad, below).
    Entry{"BNTrainingReduce", E32(3)},
    Entry{"BNTrainingUpdate", E32(4)},
    Entry{"BNTrainingUpdateV2", E32(4)},
    Entry{"BNTrainingUpdateGrad", BnSums(5, 2)},
    // The BN gradient inside FusedDbnDw (a part of that kernel, not a CANN kernel type): its TIK
    // kernel (impl/fused_dbn_dw.py, _cal_dbn_fm_fun) casts dy and x_norm to float32 (vconv), computes
    // dx = scale (dy + x_norm a + b) with a vmadd, a vadd and a vmul, and casts dx back to float16;
    // the casts are the fp32 flag's (one per full-size operand). Its big_x mode does the vmadd as a
    // scatter_vmul and a scatter_vadd (4 ops, not counted).
    Entry{"FusedDbnDwBnGrad", E32(3)},
    Entry{"BNTrainingReduceGrad", E32(4)},
    Entry{"BNInfer", E(2)},
    // A BatchNormalization ATC cannot fold into a convolution (DenseNet's pre-activation norms) is
    // BNInference (kernel bninference_d, op_impl impl/bninference_d.py, _fused_scale_bias_compute,
    // mean and variance folded on the host): vadd mean, vmul variance, vmul scale, vadd bias; an
    // fp16 x is cast to float32 first. The per-channel broadcasts are not counted (review13b).
    Entry{"BNInference", E32(4)},
    Entry{"BNInferenceD", E32(4)},
    // dropout: select by the mask, scale (the float32 path counts more: cost_model_dropout.cc); gen
    // mask: a counter-based random number and a compare
    Entry{"DropoutDoMask", E(2)},
    Entry{"DropoutGenMask", E(4)},
    // optimizers: momentum (g scale, accum = accum m + g, var -= lr accum); Adam: moments (7),
    // bias corrections (2 mul by a scalar reciprocal), sqrt, + eps, div; LAMB trust-ratio step (4).
    // The LAMB moment update as CANN's lamb_apply_optimizer_assign DSL writes it: every scalar
    // (the betas, 1 - betas, steps, epsilon, weight decay, its switch) is broadcast to the full
    // shape first (8 full-size copies), so both bias corrections 1 - beta^steps are computed per
    // element (ln, mul, exp, mul, add each) and divide m and v; moments 7, sqrt, + eps, the update
    // div, weight decay 3: 25 simple, 5 transcendental (2 ln, 2 exp, sqrt), 3 divisions.
    // CANN's fused_mul_apply_momentum casts float16 to float32 "for higher accuracy", broadcasts
    // its 3 scalars to the full shape and computes grad = x1 x2, accum m + grad, var - lr accum:
    // 5 ops and 3 copies in float32
    Entry{"FusedMulAdd", E(2)},
    Entry{"FusedMulAddN", E(2)},
    Entry{"ApplyMomentum", E(4)},
    Entry{"FusedMulApplyMomentum", E32(8)},
    Entry{"ApplyAdam", V(10, 1, 1, 0)},
    Entry{"ApplyAdamD", V(10, 1, 1, 0)},
    Entry{"LambApplyOptimizerAssign", V(25, 5, 3, 0)},
    Entry{"LambApplyWeightAssign", E(4)},
    // 3x3 stride-2 pooling: 9 window compares and argmax selects per output = 4.5 per input element
    Entry{"MaxPoolWithArgmax", E(4.5)},
    Entry{"MaxPoolGradWithArgmax", E(4.5)},
    Entry{"MaxPool", E(2.25)},
    Entry{"AvgPool", E(2.25)},
    // data movement
    Entry{"TransData", kMove},
    Entry{"Transpose", kMove},
    Entry{"TransposeD", kMove},
    Entry{"ConfusionTransposeD", kMove},
    Entry{"Concat", kMove},
    Entry{"ConcatD", kMove},
    Entry{"ConcatV2", kMove},
    Entry{"ConcatV2D", kMove},
    Entry{"Split", kMove},
    Entry{"SplitD", kMove},
    Entry{"SplitV", kMove},
    Entry{"SplitVD", kMove},
    Entry{"Pad", kMove},
    Entry{"PadD", kMove},
    Entry{"Tile", kMove},
    Entry{"TileD", kMove},
    Entry{"TensorMove", kMove},
    Entry{"Identity", kMove},
    Entry{"Assign", kMove},
    Entry{"Reshape", kMove},
    Entry{"StridedSliceGrad", kMove},
    Entry{"BroadcastTo", kMove},
    Entry{"BroadcastToD", kMove},
    Entry{"ExpandD", kMove},
    Entry{"Gather", kGather},
    Entry{"GatherV2", kGather},
    Entry{"GatherV2D", kGather},
    Entry{"StridedSlice", kGather},
    Entry{"StridedSliceD", kGather},
    Entry{"Slice", kGather},
    Entry{"SliceD", kGather},
    // fixed cost: float-status registers; AtomicAddrClean zeroes the atomic-add workspace of the
    // next kernel (the records list the whole tensor, but its time does not grow with it)
    Entry{"NPUAllocFloatStatus", kLatency},
    Entry{"NPUGetFloatStatus", kLatency},
    Entry{"NPUClearFloatStatus", kLatency},
    Entry{"AtomicAddrClean", kLatency},
    // Coverage of the other workloads of the calibration source (InceptionV3, ViT, YOLOv5, DeepFM
    // MindSpore training steps; docs/perf.md "Kernel types and their rules"). The names are
    // MindSpore's TBERegOp names (mindspore/ops/_op_impl/tbe/*.py), which the profiler records;
    // the counts are the full-size vector instructions of each op's TBE DSL compute in CANN's
    // op_impl (impl/<kernel_name>.py, static versions), a broadcast of a scalar to the full shape
    // counted as one simple instruction (a vector_dup).
    // sigmoid_cross_entropy_with_logits: float32 whenever vsub has float32; vmaxs, vabs, dup 0,
    // vsub, vexp, vadds, vlog, vmul, vsub, vadd
    Entry{"SigmoidCrossEntropyWithLogits", V32(8, 2, 0, 0)},
    // sigmoid_cross_entropy_with_logits_grad, float32: vexp, vadds, vdiv, vmuls, vadd, vmul
    Entry{"SigmoidCrossEntropyWithLogitsGrad", V32(4, 1, 1, 0)},
    // MindSpore's Adam (TBERegOp "Adam", kernel apply_adam; its DSL is apply_adam_d): 3 copies in
    // (vadds 0), m: vsub, vmuls, vadd; v: vmul, vsub, vmuls, vadd; vsqrt, vadds eps, vmuls alpha,
    // vdiv, vsub; 3 copies out. The bias-corrected alpha is a scalar computation.
    Entry{"Adam", V(16, 1, 1, 0)},
    // adam_apply_one_with_decay: square, 2 mul, add (v); sqrt, add eps; 2 mul, add (m); truediv;
    // mul, add (decay); mul, sub (update). The Assign variant computes the same and writes in place
    // adam_apply_one (BERT's and ViT's fused Adam without decay): square, mul_3, mul_2, add_1;
    // sqrt; add_2; mul_0, mul_1, add; truediv; mul_4, sub
    Entry{"AdamApplyOne", V(10, 1, 1, 0)},
    Entry{"AdamApplyOneAssign", V(10, 1, 1, 0)},
    Entry{"AdamApplyOneWithDecay", V(12, 1, 1, 0)},
    Entry{"AdamApplyOneWithDecayAssign", V(12, 1, 1, 0)},
    // apply_rms_prop_d (float32 only): vmul, vsub, vmuls, vadd (ms); vmuls, dup lr, vmul, vadds eps,
    // vsqrt, vdiv, vadd (mom); vsub (var)
    Entry{"ApplyRMSProp", V(10, 1, 1, 0)},
    Entry{"ApplyRMSPropD", V(10, 1, 1, 0)},
    // apply_ftrl_d, float32 (float16 is cast up when vexp has float32): 3 copies in, 5 scalar dups,
    // vmul, vadd (accum); vmuls; two powers as vlog, vmul, vexp; vsub, vdiv, vmul, vsub, vadd
    // (linear); sign (util_compute.sign, counted as 4 simple: an assumption, its source was not
    // read), vmul, vsub; vmuls, vdiv, vadd; vdiv, vabs, vcmp, vsel, cast; 3 copies out
    Entry{"ApplyFtrl", V32(32, 4, 3, 0)},
    Entry{"ApplyFtrlD", V32(32, 4, 3, 0)},
    // confusion_softmax_grad: vmul, a cast of the product to float32, the row sum (reduce_sum on
    // the last axis), broadcast back over the row, vsub
    Entry{"ConfusionSoftmaxGrad", Row(3, 0, 0, 1, 1)},
    // confusion_mul_grad: vmul (output 0), vmul and a sum over the broadcast (outer) axes
    // (output 1, lane-wise adds)
    Entry{"ConfusionMulGrad", E(3)},
    // leaky_relu: one vlrelu; leaky_relu_grad (float16): vmins, vmaxs, 2 vmuls, vadds, vabs, vmuls,
    // vadd, vmul (float32 has one more vmuls)
    Entry{"LeakyRelu", E(1)},
    Entry{"LeakyReluGrad", E(9)},
    // mish: vexp, vadds, vmul, vadds, vrec, vmuls, vadds, vmul; mish_grad (without the tanh
    // input): vexp, vadds, vmul, vadds, vrec, vmuls, 4 vmul, vmuls, vadd, vadds, vmul
    Entry{"Mish", V(7, 1, 0, 0)},
    Entry{"MishGrad", V(13, 1, 0, 0)},
    // softplus (the ln(1 + e^x) of MindSpore's x tanh(softplus(x)) Mish cells), float32 whenever
    // vexp has float32: vmaxs, vmins, vmuls, vexp, vadds, vlog, vadd, vexp, vadds, vlog, vadd, vadds;
    // softplus_grad, float32: vexp, vadds, vdiv, vmul
    Entry{"Softplus", V32(8, 4, 0, 0)},
    Entry{"SoftplusGrad", V32(2, 1, 1, 0)},
    // swish on the Ascend 910 (swish_overflow), float32: vmuls, vabs, vmuls, vadd, vmuls, 2 vexp,
    // vadds, vmul, vdiv
    Entry{"Swish", V32(7, 2, 1, 0)},
    // MobileNet's ReLU6 (MindSpore "ReLU6", CANN "Relu6"): vmaxs, vmins; relu6_grad (float16):
    // vmins, vmaxs, vadds, vmul, vmuls, vadds, vdiv, vmul (float32 skips the vmuls);
    // clip_by_value: its scalar bounds broadcast to the full shape (2 dups), vmin, vmax
    Entry{"ReLU6", E(2)},
    Entry{"Relu6", E(2)},
    Entry{"ReLU6Grad", V(7, 0, 1, 0)},
    Entry{"Relu6Grad", V(7, 0, 1, 0)},
    Entry{"ClipByValue", E(4)},
    // MobileNetV3's hard activations, float32 (an fp16 input is cast up; op_impl impl/hard_swish.py,
    // impl/hard_sigmoid.py): hard_swish: vadds 3, vmaxs 0, vmins 6, vmuls 1/6, vmul x;
    // hard_sigmoid: vmuls alpha, vadds beta, clip to [0, 1] (tbe.clip with scalar bounds, counted
    // as vmins + vmaxs: an assumption, clip's DSL was not read); hard_sigmoid_grad, in the input's
    // dtype: vmuls alpha, dup 0, vabs, vcmpsel (a vcmp and a vsel); hard_swish_grad (static), in the
    // input's dtype: dup 3, vdiv, vadds 0.5, two vcmpsel (clamp to 0 / 1), vmul dy (review13b).
    Entry{"HardSwish", E32(5)},
    Entry{"HardSigmoid", E32(4)},
    Entry{"HardSigmoidGrad", E(5)},
    Entry{"HardSwishGrad", V(7, 0, 1, 0)},
    // YOLOv5's 2x upsampling (resize_nearest_neighbor_v2_d) copies each input pixel to its
    // scale^2 output pixels: data movement. Its gradient (resize_nearest_neighbor_v2_grad_d, float32
    // 5HD only) sums the scale^2 gradients of each input pixel: one add per gradient element read
    Entry{"ResizeNearestNeighbor", kMove},
    Entry{"ResizeNearestNeighborV2", kMove},
    Entry{"ResizeNearestNeighborGrad", E(1)},
    Entry{"ResizeNearestNeighborV2Grad", E(1)},
};

constexpr std::array<std::string_view, 6> kAxisReductions = {"ReduceSum",   "ReduceSumD", "ReduceMean",
                                                             "ReduceMeanD", "ReduceMax",  "ReduceMaxD"};

// Whether the reduced axes include the innermost one, read from the shapes: the output's last dim
// (a kept 1, or a different dim) differs from the input's, or nothing is left. A square input
// reduced along either axis looks the same; it is read as an outer-axis reduction.
bool ReducesInnermostAxis(const Kernel& k) {
  if (k.inputs.empty() || k.outputs.empty() || k.inputs[0].shape.empty()) return false;
  const auto& in = k.inputs[0].shape;
  const auto& out = k.outputs[0].shape;
  if (Elements(k.outputs[0]) >= Elements(k.inputs[0])) return false;
  return out.empty() || out.back() != in.back();
}

}  // namespace

bool IsAxisReduction(std::string_view op_type) {
  return std::find(kAxisReductions.begin(), kAxisReductions.end(), op_type) != kAxisReductions.end();
}

VectorOps VectorOpsFor(std::string_view op_type, const VectorRule& rule, const Kernel& kernel) {
  VectorOps ops = rule.ops;
  if (IsAxisReduction(op_type) && ReducesInnermostAxis(kernel)) std::swap(ops.simple, ops.reduce);
  if (const auto pool = ArgmaxPoolOpsPerElement(op_type, kernel)) ops.simple = *pool;
  if (const auto dropout = DropoutDoMaskOps(op_type, kernel)) ops = *dropout;
  return ops;
}

std::optional<VectorRule> FindVectorRule(std::string_view op_type) {
  for (const Entry& e : kRules) {
    if (e.op_type == op_type) return e.rule;
  }
  return std::nullopt;
}

double VectorTime(int64_t elements, const VectorOps& ops, std::string_view dtype,
                  const target::Target& target) {
  const double n = static_cast<double>(elements);
  const double clock = target.compute.clock.value;
  // 2048-bit vector unit: 128 fp16 or 64 fp32 lanes per cycle per core, the rate of an
  // instruction class the profile does not list.
  const double bits = static_cast<double>(ItemSize(dtype) * 8);
  const double lanes = std::max(1.0, static_cast<double>(target.compute.vector_width.value) / bits);
  static const std::map<std::string, std::map<std::string, target::Number>> kNone;
  const auto& classes = target.kernel ? target.kernel->vector_instructions : kNone;
  // The profile's rates are given for float16 and float32; other types take the one of their size.
  const std::string key = ItemSize(dtype) <= 2 ? "float16" : "float32";
  double cycles = 0;
  // A per-row value broadcast back over its row is a `tbe.broadcast` node of the full shape, which
  // TBE's schedules emit as its own `vector_broadcast` instruction into a UB buffer (the schedules'
  // INSN_MAPPING: "broadcast" -> "vector_broadcast"), so it costs a simple op per element as well as
  // its per-row-slice head (cost_model_tiles.cc).
  for (const auto& [cls, count] :
       {std::pair{"simple", ops.simple + ops.broadcast}, std::pair{"transcendental", ops.transcendental},
        std::pair{"divide", ops.divide}, std::pair{"reduce", ops.reduce}}) {
    if (count <= 0) continue;
    double per_element = 1.0 / lanes;
    const auto it = classes.find(cls);
    if (it != classes.end()) {
      const auto rate = it->second.find(key);
      if (rate != it->second.end()) per_element = rate->second.value;
    }
    cycles += count * n * per_element;
  }
  return cycles / clock;
}

}  // namespace npugap::analysis::perf::internal
