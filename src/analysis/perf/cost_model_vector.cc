// The vector side of the cost model: which class each non-cube op type is in, how many vector
// instructions it spends per element (the arithmetic of its formula, docs/perf.md "Vector"), and
// the time of that arithmetic on the vector lanes.
#include <algorithm>
#include <array>

#include "cost_model_internal.h"

namespace npugap::analysis::perf::internal {
namespace {

struct Entry {
  std::string_view op_type;
  VectorRule rule;
};
constexpr VectorRule E(double ops) { return {VectorClass::kElementwise, ops}; }
constexpr VectorRule kMove{VectorClass::kMove, 0};
constexpr VectorRule kGather{VectorClass::kGatherLike, 0};
constexpr VectorRule kLatency{VectorClass::kLatency, 0};

// Ops per element count the operations of each op's formula over the largest operand; one vector
// instruction (transcendental ones included: the Da Vinci vector unit has exp/ln/rec/sqrt) is one
// pass over its elements. Reductions count one add per element.
constexpr std::array kRules = {
    // one operation per element
    Entry{"Add", E(1)},
    Entry{"Sub", E(1)},
    Entry{"Mul", E(1)},
    Entry{"RealDiv", E(1)},
    Entry{"Div", E(1)},
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
    Entry{"Sqrt", E(1)},
    Entry{"Rsqrt", E(1)},
    Entry{"Exp", E(1)},
    Entry{"Log", E(1)},
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
    Entry{"ReduceSum", E(1)},
    Entry{"ReduceSumD", E(1)},
    Entry{"ReduceMean", E(1)},
    Entry{"ReduceMeanD", E(1)},
    Entry{"ReduceMax", E(1)},
    Entry{"ReduceMaxD", E(1)},
    Entry{"SquareSumV1", E(2)},
    Entry{"SquareSumV2", E(2)},
    Entry{"ClipByNormNoDivSum", E(3)},
    // x^y = exp(y ln x); tanh = (e^2x - 1) / (e^2x + 1); sigmoid = 1 / (1 + e^-x)
    Entry{"Pow", E(3)},
    Entry{"Tanh", E(4)},
    Entry{"TanhGrad", E(3)},
    Entry{"Sigmoid", E(3)},
    Entry{"SigmoidGrad", E(3)},
    Entry{"MinimumGrad", E(3)},
    Entry{"MaximumGrad", E(3)},
    // gelu (tanh form): x^3, 2 mul, add, tanh (4), add, 2 mul = 11; its gradient about 15
    Entry{"GeLU", E(11)},
    Entry{"Gelu", E(11)},
    Entry{"GeLUGrad", E(15)},
    Entry{"GeluGrad", E(15)},
    Entry{"FastGelu", E(4)},
    Entry{"FastGeluGrad", E(6)},
    // softmax: max, sub, exp, sum, div; log-softmax adds a log; grads: mul, sum, sub, mul
    Entry{"Softmax", E(5)},
    Entry{"SoftmaxV2", E(5)},
    Entry{"SoftmaxGrad", E(4)},
    Entry{"SoftmaxGradExt", E(5)},
    Entry{"LogSoftmax", E(6)},
    Entry{"LogSoftmaxV2", E(6)},
    Entry{"LogSoftmaxGrad", E(4)},
    Entry{"SoftmaxCrossEntropyWithLogits", E(9)},
    // layer norm: mean (1), x - mean, square, sum (3), scale by rstd (1), affine (2) = 7
    Entry{"LayerNorm", E(7)},
    Entry{"LayerNormV3", E(7)},
    // dx = rstd (dy g - mean(dy g) - xhat mean(dy g xhat)): xhat (2) + 8
    Entry{"LayerNormXBackprop", E(10)},
    Entry{"LayerNormXBackpropV2", E(10)},
    Entry{"LayerNormBetaGammaBackprop", E(3)},
    Entry{"LayerNormBetaGammaBackpropV2", E(3)},
    // batch norm (training) split as CANN emits it: reduce (sum, square, sum), update
    // (x - mean, * rstd, * gamma, + beta), update grad (xhat (2), dy xhat, two sums),
    // reduce grad (xhat (2), two scaled subtractions, * gamma rstd)
    Entry{"BNTrainingReduce", E(3)},
    Entry{"BNTrainingUpdate", E(4)},
    Entry{"BNTrainingUpdateV2", E(4)},
    Entry{"BNTrainingUpdateGrad", E(5)},
    Entry{"BNTrainingReduceGrad", E(6)},
    Entry{"BNInfer", E(2)},
    // dropout: select by the mask, scale; gen mask: a counter-based random number and a compare
    Entry{"DropoutDoMask", E(2)},
    Entry{"DropoutGenMask", E(4)},
    // optimizers: momentum (g scale, accum = accum m + g, var -= lr accum); LAMB moments (7),
    // bias corrections (2), sqrt + eps + div (3), weight decay (2); LAMB trust-ratio step (4)
    Entry{"FusedMulAdd", E(2)},
    Entry{"FusedMulAddN", E(2)},
    Entry{"ApplyMomentum", E(4)},
    Entry{"FusedMulApplyMomentum", E(5)},
    Entry{"ApplyAdam", E(10)},
    Entry{"ApplyAdamD", E(10)},
    Entry{"LambApplyOptimizerAssign", E(14)},
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
};

}  // namespace

std::optional<VectorRule> FindVectorRule(std::string_view op_type) {
  for (const Entry& e : kRules) {
    if (e.op_type == op_type) return e.rule;
  }
  return std::nullopt;
}

double VectorTime(int64_t elements, double ops, std::string_view dtype, int cores,
                  const target::Target& target) {
  // 2048-bit vector unit: 128 fp16 or 64 fp32 lanes per cycle per core.
  const double bits = static_cast<double>(ItemSize(dtype) * 8);
  const double lanes = std::max(1.0, static_cast<double>(target.compute.vector_width.value) / bits);
  return static_cast<double>(elements) * ops / (std::max(cores, 1) * lanes * target.compute.clock.value);
}

}  // namespace npugap::analysis::perf::internal
