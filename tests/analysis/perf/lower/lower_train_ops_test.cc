// The training lowering of the ops the judged workloads add to ResNet-50 / BERT (YOLOv5's nearest
// upsampling, MobileNet's depthwise convolutions, transposed convolutions, DeepFM's FM term and
// sigmoid loss, Inception's average pools): the kernel types MindSpore's Ascend backend emits for
// them, with the operands the cost model needs, and every lowered kernel known to the cost model.
#include <gtest/gtest.h>

#include <functional>
#include <numeric>

#include "lower_test_models.h"
#include "npugap/analysis/perf/kernel.h"

namespace npugap::analysis::perf {
namespace {

using namespace lower_test;
using npugap::testing::ModelBuilder;

onnx::NodeProto* LastNode(ModelBuilder& b) {
  auto* g = b.proto().mutable_graph();
  return g->mutable_node(g->node_size() - 1);
}
void SetInts(ModelBuilder& b, const std::string& name, std::vector<int64_t> v) {
  auto* a = LastNode(b)->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INTS);
  for (int64_t x : v) a->add_ints(x);
}
void SetInt(ModelBuilder& b, const std::string& name, int64_t v) {
  auto* a = LastNode(b)->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INT);
  a->set_i(v);
}
void SetString(ModelBuilder& b, const std::string& name, const std::string& v) {
  auto* a = LastNode(b)->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::STRING);
  a->set_s(v);
}

Lowering Train(const ModelBuilder& b, Optimizer opt = Optimizer::kMomentum, bool eltwise_fusion = true) {
  LowerOptions o;
  o.train = true;
  o.optimizer = opt;
  // Off: each elementwise op keeps its own kernel and so its own bprop (UB fusion would make one
  // FusionOp_ chain, whose gradient is one elementwise kernel per input).
  if (!eltwise_fusion) o.fusion.passes["TbeEltwiseFusionPass"] = false;
  auto l = Lower(Load(b), Ascend910(), o);
  EXPECT_TRUE(l.ok()) << l.status().message();
  return l.ok() ? *l : Lowering{};
}
std::vector<std::string> Types(const Lowering& l) {
  std::vector<std::string> t;
  for (const LoweredKernel& k : l.kernels) t.push_back(k.kernel.op_type);
  return t;
}
const Kernel* Find(const Lowering& l, const std::string& type) {
  for (const LoweredKernel& k : l.kernels) {
    if (k.kernel.op_type == type) return &k.kernel;
  }
  return nullptr;
}
// The first kernel of `type`; fails the test (and gives an empty kernel) when there is none.
Kernel Must(const Lowering& l, const std::string& type) {
  const Kernel* k = Find(l, type);
  EXPECT_NE(k, nullptr) << type;
  return k ? *k : Kernel{};
}
void ExpectAllKnown(const Lowering& l) {
  for (const LoweredKernel& k : l.kernels) {
    const KernelCost c = PredictKernel(k.kernel, Ascend910());
    EXPECT_TRUE(c.known) << k.kernel.op_type;
    EXPECT_TRUE(c.note.empty()) << k.kernel.op_type << ": " << c.note;
  }
}
bool NoGradSuffixFor(const std::vector<std::string>& t, const std::vector<std::string>& forward_types) {
  for (const std::string& f : forward_types) {
    if (Count(t, f + "Grad") > 0) return false;
  }
  return true;
}

// x[2,3,8,8] -> Conv 1x1 (w0 [16,3,1,1]) -> `middle` ops -> GlobalAveragePool -> Flatten ->
// MatMul [C,10] -> y[2,10]: a stem whose output needs a gradient, so `middle` gets its dx.
ModelBuilder Stem(int64_t c) {
  ModelBuilder b;
  b.Input("x", {2, 3, 8, 8});
  b.FloatInitializer("w0", {c, 3, 1, 1}, Fill(c * 3));
  b.Node("Conv", {"x", "w0"}, {"s"}, "stem");
  return b;
}
void Head(ModelBuilder& b, const std::string& from, int64_t c) {
  b.Output("y", {2, 10});
  b.FloatInitializer("fc_w", {c, 10}, Fill(c * 10));
  b.Node("GlobalAveragePool", {from}, {"p"}, "gap");
  b.Node("Flatten", {"p"}, {"f"}, "flatten");
  b.Node("MatMul", {"f", "fc_w"}, {"y"}, "fc");
}

TEST(LowerTrainOpsTest, NearestResizeIsResizeNearestNeighborV2AndItsScalesAreNoParameter) {
  ModelBuilder b = Stem(16);
  b.FloatInitializer("scales", {4}, {1, 1, 2, 2});
  b.Node("Resize", {"s", "", "scales"}, {"u"}, "up");
  SetString(b, "mode", "nearest");
  Head(b, "u", 16);
  const Lowering l = Train(b);
  const auto t = Types(l);
  EXPECT_EQ(Count(t, "ResizeNearestNeighborV2"), 1);
  EXPECT_EQ(Count(t, "ResizeNearestNeighborV2Grad"), 1);
  EXPECT_EQ(Count(t, "ResizeBilinearV2"), 0);
  EXPECT_EQ(l.parameters, 16 * 3 + 16 * 10);  // w0, fc_w; not the 4 scales
  ExpectAllKnown(l);
}

TEST(LowerTrainOpsTest, DepthwiseConvolutionIsDepthwiseConv2dNativeWithC1hwncoc0Filters) {
  ModelBuilder b = Stem(32);
  b.FloatInitializer("wd", {32, 1, 3, 3}, Fill(32 * 9));
  b.Node("Conv", {"s", "wd"}, {"d"}, "dw");
  SetInt(b, "group", 32);
  SetInts(b, "pads", {1, 1, 1, 1});
  b.Node("Relu", {"d"}, {"r"}, "relu");
  Head(b, "r", 32);
  const Lowering l = Train(b);
  const auto t = Types(l);
  EXPECT_EQ(Count(t, "DepthwiseConv2dNative"), 1);
  EXPECT_EQ(Count(t, "DepthwiseConv2dNativeBackpropFilter"), 1);
  EXPECT_EQ(Count(t, "DepthwiseConv2dNativeBackpropInput"), 1);
  EXPECT_EQ(Count(t, "Conv2D"), 1);  // the stem only
  const Kernel fwd = Must(l, "DepthwiseConv2dNative");
  ASSERT_EQ(fwd.inputs.size(), 2u);
  EXPECT_EQ(fwd.inputs[1].format, "C1HWNCoC0");
  EXPECT_EQ(fwd.inputs[1].shape, (ir::Shape{2, 3, 3, 1, 16, 16}));  // 32 channels: C1 = 2
  const Kernel dx = Must(l, "DepthwiseConv2dNativeBackpropInput");
  EXPECT_EQ(dx.inputs[0].format, "C1HWNCoC0");  // (filter, dout), MindSpore's order
  const Kernel dw = Must(l, "DepthwiseConv2dNativeBackpropFilter");
  EXPECT_EQ(dw.outputs[0].format, "C1HWNCoC0");
  ExpectAllKnown(l);
}

TEST(LowerTrainOpsTest, TransposedConvolutionDifferentiatesAsConv2DAndConv2DBackpropFilter) {
  ModelBuilder b = Stem(16);
  b.FloatInitializer("wt", {16, 8, 2, 2}, Fill(16 * 8 * 4));
  b.Node("ConvTranspose", {"s", "wt"}, {"t"}, "tconv");
  SetInts(b, "strides", {2, 2});
  Head(b, "t", 8);
  const Lowering l = Train(b);
  const auto t = Types(l);
  EXPECT_EQ(Count(t, "Conv2DTranspose"), 1);
  EXPECT_EQ(Count(t, "Conv2DTransposeGrad"), 0);
  EXPECT_EQ(Count(t, "Conv2DBackpropFilter"), 2);  // the stem's and the transposed conv's
  EXPECT_EQ(Count(t, "Conv2D"), 2);                // the stem, and the transposed conv's dx
  ExpectAllKnown(l);
}

TEST(LowerTrainOpsTest, ElementwiseGradientsAreTheKernelsOfMindSporesBprops) {
  // s * g (g broadcast per channel), / d, - s, ReduceSum over W kept, Pad: Mul, RealDiv + Mul +
  // Neg, Neg, ReduceSum for the broadcast, Tile, Slice; no "<op>Grad" type.
  ModelBuilder b = Stem(16);
  b.Node("GlobalAveragePool", {"s"}, {"g"}, "gate");
  b.Node("Mul", {"s", "g"}, {"m"}, "mul");
  b.Node("Sigmoid", {"s"}, {"den"}, "den");
  b.Node("Div", {"m", "den"}, {"q"}, "div");
  b.Node("Sub", {"q", "s"}, {"sub"}, "sub");
  b.FloatInitializer("axes", {1}, {3});  // not read as an initializer: ReduceSum-13 takes int64 axes
  b.proto().mutable_graph()->mutable_initializer()->RemoveLast();
  b.Node("ReduceSum", {"sub"}, {"rs"}, "rsum");
  SetInt(b, "keepdims", 1);
  b.Node("Pad", {"rs"}, {"pd"}, "pad");
  SetInts(b, "pads", {0, 0, 1, 1, 0, 0, 1, 1});
  b.Opset("", 10);
  Head(b, "pd", 16);
  const Lowering l = Train(b, Optimizer::kMomentum, /*eltwise_fusion=*/false);
  const auto t = Types(l);
  EXPECT_TRUE(NoGradSuffixFor(t, {"Mul", "RealDiv", "Sub", "ReduceSum", "PadD"}));
  EXPECT_GE(Count(t, "Neg"), 2);      // d(q)/d(den) and d(sub)/d(s)
  EXPECT_GE(Count(t, "Slice"), 1);    // Pad's backward
  EXPECT_GE(Count(t, "RealDiv"), 3);  // forward, d/dm and d/dden
  ExpectAllKnown(l);
}

TEST(LowerTrainOpsTest, AvgPoolGradReadsItsMeanAndKernelMatrices) {
  ModelBuilder b = Stem(16);
  b.Node("AveragePool", {"s"}, {"a"}, "pool");
  SetInts(b, "kernel_shape", {3, 3});
  SetInts(b, "pads", {1, 1, 1, 1});
  Head(b, "a", 16);
  const Lowering l = Train(b);
  const Kernel g = Must(l, "AvgPoolGrad");
  ASSERT_EQ(g.inputs.size(), 3u);  // (dy, mean_matrix, kernel_matrix)
  EXPECT_EQ(g.inputs[1].format, "NC1HWC0");
  EXPECT_EQ(g.inputs[2].format, "C1HWNCoC0");
  EXPECT_EQ(g.inputs[2].shape, (ir::Shape{1, 3, 3, 1, 16, 16}));
  ExpectAllKnown(l);
}

TEST(LowerTrainOpsTest, SigmoidOutputTrainsWithSigmoidCrossEntropyOnItsLogits) {
  ModelBuilder b;
  b.Input("x", {4, 8}).Output("y", {4, 1});
  b.FloatInitializer("w", {8, 16}, Fill(128)).FloatInitializer("w2", {16, 1}, Fill(16));
  b.Node("MatMul", {"x", "w"}, {"h"}, "fc1");
  b.Node("Relu", {"h"}, {"r"}, "relu");
  b.Node("MatMul", {"r", "w2"}, {"z"}, "fc2");
  b.Node("Sigmoid", {"z"}, {"y"}, "ctr");
  const Lowering l = Train(b, Optimizer::kAdam);
  const auto t = Types(l);
  EXPECT_EQ(Count(t, "SigmoidCrossEntropyWithLogits"), 1);
  EXPECT_EQ(Count(t, "SigmoidCrossEntropyWithLogitsGrad"), 1);
  EXPECT_EQ(Count(t, "SoftmaxCrossEntropyWithLogits"), 0);
  EXPECT_EQ(Count(t, "SigmoidGrad"), 0);  // the loss differentiates the logits z directly
  EXPECT_EQ(Count(t, "Adam"), 2);
  EXPECT_EQ(Count(t, "ApplyAdamD"), 0);
  ExpectAllKnown(l);
  // Unfused, the loss reads z, the Sigmoid's input (the same ir value).
  const auto ops = AddTraining(Mapped(Load(b), true), Optimizer::kMomentum, false);
  const auto find = [&](const std::string& type) {
    return std::find_if(ops.begin(), ops.end(), [&](const DeviceOp& op) { return op.op_type == type; });
  };
  ASSERT_NE(find("Sigmoid"), ops.end());
  ASSERT_NE(find("SigmoidCrossEntropyWithLogits"), ops.end());
  EXPECT_EQ(find("SigmoidCrossEntropyWithLogits")->inputs[0].value, find("Sigmoid")->inputs[0].value);
  EXPECT_EQ(Count(lower_test::Types(ops), "SigmoidGrad"), 0);
}

TEST(LowerTrainOpsTest, ReluMaskArgmaxAndDropoutMaskAreKernelOperandsAsTheCalibrationListsThem) {
  // x[2,3,8,8] -> Conv [32,3,1,1] -> Relu -> MaxPool 3x3 s2 -> Conv [32,32,1,1] -> Dropout ->
  // GAP -> MatMul.
  ModelBuilder b = Stem(32);
  b.Node("Relu", {"s"}, {"r"}, "relu");
  b.Node("MaxPool", {"r"}, {"mp"}, "pool");
  SetInts(b, "kernel_shape", {3, 3});
  SetInts(b, "strides", {2, 2});
  SetInts(b, "pads", {1, 1, 1, 1});
  b.FloatInitializer("w1", {32, 32, 1, 1}, Fill(32 * 32));
  b.Node("Conv", {"mp", "w1"}, {"c"}, "conv");
  b.Node("Dropout", {"c"}, {"d"}, "drop");
  Head(b, "d", 32);
  const Lowering l = Train(b);
  // MaxPoolWithArgmax writes y and the argmax; its gradient reads (x, dy, argmax): 3x3 window,
  // 4x4 output -> ceil(16 / 16) + 1 = 2 fractals.
  const Kernel pool = Must(l, "MaxPoolWithArgmax");
  const Kernel pool_grad = Must(l, "MaxPoolGradWithArgmax");
  ASSERT_EQ(pool.outputs.size(), 2u);
  // uint16 NC1HWC0, as TBE's op info and the records read typeid-shifted have it.
  EXPECT_EQ(pool.outputs[1].dtype, "uint16");
  EXPECT_EQ(pool.outputs[1].format, "NC1HWC0");
  EXPECT_EQ(pool.outputs[1].shape, (ir::Shape{2, 2, 9, 2, 16}));  // 32 channels: C1 = 2
  ASSERT_EQ(pool_grad.inputs.size(), 3u);
  EXPECT_EQ(pool_grad.inputs[0].shape, pool.inputs[0].shape);   // x
  EXPECT_EQ(pool_grad.inputs[2].shape, pool.outputs[1].shape);  // argmax
  // ReluV2 writes an ND uint8 [N, C1, H, W, 2] bit mask, which its gradient reads.
  const Kernel relu = Must(l, "ReluV2");
  const Kernel relu_grad = Must(l, "ReluGradV2");
  ASSERT_EQ(relu.outputs.size(), 2u);
  EXPECT_EQ(relu.outputs[1].format, "ND");
  EXPECT_EQ(relu.outputs[1].dtype, "uint8");
  EXPECT_EQ(relu.outputs[1].shape, (ir::Shape{2, 2, 8, 8, 2}));
  EXPECT_EQ(relu_grad.inputs.back().shape, relu.outputs[1].shape);
  // DropoutDoMask(x, mask, keep_prob), forward and backward: a uint8 bit mask of numel / 8.
  int drops = 0;
  for (const LoweredKernel& k : l.kernels) {
    if (k.kernel.op_type != "DropoutDoMask") continue;
    ++drops;
    ASSERT_EQ(k.kernel.inputs.size(), 3u);
    EXPECT_EQ(k.kernel.inputs[1].dtype, "uint8");
    EXPECT_EQ(k.kernel.inputs[1].shape, (ir::Shape{2 * 32 * 4 * 4 / 8}));
  }
  EXPECT_EQ(drops, 2);
  ExpectAllKnown(l);
}

TEST(LowerTrainOpsTest, LeakyReluTrainsAsMulAndMaximumWithOneMaximumGrad) {
  ModelBuilder b = Stem(16);
  b.Node("LeakyRelu", {"s"}, {"l"}, "leaky");
  Head(b, "l", 16);
  const Lowering l = Train(b, Optimizer::kMomentum, /*eltwise_fusion=*/false);
  const auto t = Types(l);
  EXPECT_EQ(Count(t, "LeakyRelu"), 0);
  EXPECT_EQ(Count(t, "Maximum"), 1);
  EXPECT_EQ(Count(t, "MaximumGrad"), 1);  // (alpha * x, x, dy) -> both gradients in one kernel
  const Kernel grad = Must(l, "MaximumGrad");
  EXPECT_EQ(grad.inputs.size(), 3u);
  EXPECT_EQ(grad.outputs.size(), 2u);
  EXPECT_GE(Count(t, "Mul"), 2);  // alpha * x forward, dy * alpha backward
  ExpectAllKnown(l);
  // Inference keeps ATC's LeakyRelu kernel (fused into the convolution before it).
  auto inference = Lower(Load(b), Ascend910(), {});
  ASSERT_TRUE(inference.ok());
  const auto it = Types(*inference);
  EXPECT_TRUE(std::any_of(it.begin(), it.end(),
                          [](const std::string& k) { return k.find("LeakyRelu") != std::string::npos; }));
  EXPECT_EQ(Count(it, "Maximum"), 0);
}

// A Where on a bool mask (Greater) and a Split: the bool condition gets no gradient kernel, Where
// differentiates as Select (get_bprop_select) and Split as ConcatD (get_bprop_split), not as the
// kernel types "SelectGrad" / "SplitDGrad" that CANN does not have.
TEST(LowerTrainOpsTest, WhereAndSplitDifferentiateAsSelectAndConcatDAndTheBoolMaskGetsNoGradient) {
  ModelBuilder b = Stem(16);
  b.FloatInitializer("zero", {1}, {0.0f});
  b.Node("Greater", {"s", "zero"}, {"cond"}, "gt");
  b.Node("Where", {"cond", "s", "zero"}, {"w"}, "where");
  b.Node("Split", {"w"}, {"a", "c"}, "split");
  SetInt(b, "axis", 1);
  b.Node("Add", {"a", "c"}, {"sum"}, "add");
  Head(b, "sum", 8);
  const Lowering l = Train(b, Optimizer::kMomentum, /*eltwise_fusion=*/false);
  const auto t = Types(l);
  EXPECT_EQ(Count(t, "SelectGrad"), 0);
  EXPECT_EQ(Count(t, "SplitDGrad"), 0);
  EXPECT_EQ(Count(t, "GreaterGrad"), 0);
  EXPECT_EQ(Count(t, "Select"), 2);   // the forward and dx of the Where's x (y is a constant)
  EXPECT_EQ(Count(t, "ConcatD"), 1);  // the Split's input gradient, of both outputs' gradients
  const Kernel concat = Must(l, "ConcatD");
  EXPECT_EQ(concat.inputs.size(), 2u);
  ASSERT_EQ(concat.outputs.size(), 1u);
  const auto numel = [](const Operand& o) {
    return std::accumulate(o.shape.begin(), o.shape.end(), int64_t{1}, std::multiplies<>());
  };
  EXPECT_EQ(numel(concat.outputs[0]), numel(concat.inputs[0]) + numel(concat.inputs[1]));  // ND: unpadded
  for (const LoweredKernel& k : l.kernels) {
    if (k.phase != Phase::kBackward) continue;
    for (const Operand& o : k.kernel.outputs) EXPECT_NE(o.dtype, "bool") << k.kernel.op_type;
  }
  ExpectAllKnown(l);
}

// A model whose only output is 1-D gets no loss, so no backward: the lowering says so rather than
// reporting the forward pass as the training step; a [2, 10] output gets a loss and no warning.
TEST(LowerTrainOpsTest, TrainingWithoutALossableOutputWarns) {
  ModelBuilder b;
  b.Input("x", {8});
  b.Output("y", {8});
  b.FloatInitializer("w", {8}, Fill(8));
  b.Node("Mul", {"x", "w"}, {"m"}, "scale");
  b.Node("Relu", {"m"}, {"y"}, "relu");
  const Lowering l = Train(b);
  const auto no_loss = [](const Lowering& x) {
    return std::any_of(x.warnings.begin(), x.warnings.end(), [](const std::string& w) {
      return w.find("no float graph output") != std::string::npos;
    });
  };
  EXPECT_TRUE(no_loss(l));
  ModelBuilder c = Stem(16);
  Head(c, "s", 16);
  EXPECT_FALSE(no_loss(Train(c)));
}

// A matmul of two activations (here relu(x) by a transposed weight, no longer marked as a weight)
// differentiates as dA = dY B^T and dB = A^T dY, each with the other operand. Found by the gen13 sweep: dA
// read A itself in B's place, so BERT's FFN input gradient at batch 64 x 512 multiplied by a [32768, 256]
// matrix (8.6 ms, 4x per doubling of the batch).
TEST(LowerTrainOpsTest, MatMulOfTwoActivationsTakesTheOtherOperandInEachGradient) {
  ModelBuilder b(17);
  b.Input("x", {4, 48, 64}).Output("y", {4, 48, 32});
  b.FloatInitializer("w", {32, 64}, Fill(32 * 64));
  b.Node("Transpose", {"w"}, {"wt"}, "wt");
  SetInts(b, "perm", {1, 0});
  b.Node("Relu", {"x"}, {"r"}, "relu");
  b.Node("MatMul", {"r", "wt"}, {"y"}, "dense");
  const Lowering l = Train(b);
  int matmuls = 0;
  for (const LoweredKernel& k : l.kernels) {
    if (k.kernel.op_type.find("MatMul") == std::string::npos) continue;
    ++matmuls;

    // A and B (a fused epilogue's own inputs, ReluGradV2's mask, may have dA's shape)
    for (size_t i = 0; i < 2 && i < k.kernel.inputs.size(); ++i)
      EXPECT_NE(k.kernel.inputs[i].shape, k.kernel.outputs.at(0).shape)
          << "a gradient reads its own operand: " << k.kernel.name;
  }
  EXPECT_GE(matmuls, 2);  // the forward and dA at least
}

}  // namespace
}  // namespace npugap::analysis::perf
