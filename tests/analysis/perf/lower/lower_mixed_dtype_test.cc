// The dtypes of a mixed-precision training step (allow_mix_precision, MindSpore's O2) as the
// calibration steps show them read typeid-shifted (docs/fidelity.md, "session 14, lowertrue"):
// fp16 feature maps and cube operands, fp32 BN channel tensors, fp32 weight gradients from the
// cube, fp32 master weights cast before each use, fp32 optimizer and loss, and a gradient held in
// its forward value's dtype. The other precision modes keep their own mapping.
#include <gtest/gtest.h>

#include <algorithm>

#include "lower_test_models.h"

namespace npugap::analysis::perf {
namespace {

using namespace lower_test;
using npugap::testing::ModelBuilder;

Lowering Step(const ModelBuilder& b, const std::string& precision = "allow_mix_precision",
              Optimizer opt = Optimizer::kMomentum) {
  LowerOptions o;
  o.train = true;
  o.precision_mode = precision;
  o.optimizer = opt;
  auto l = Lower(Load(b), Ascend910(), o);
  EXPECT_TRUE(l.ok()) << l.status().message();
  return l.ok() ? *l : Lowering{};
}

std::vector<const Kernel*> All(const Lowering& l, const std::string& type) {
  std::vector<const Kernel*> out;
  for (const LoweredKernel& k : l.kernels) {
    if (k.kernel.op_type == type) out.push_back(&k.kernel);
  }
  return out;
}

// The only forward kernel of `fwd` and the only backward kernel of `bwd` (null when not one each).
std::pair<const Kernel*, const Kernel*> OneEach(const Lowering& l, const std::string& fwd,
                                                const std::string& bwd) {
  const auto f = All(l, fwd), b = All(l, bwd);
  EXPECT_EQ(f.size(), 1u) << fwd;
  EXPECT_EQ(b.size(), 1u) << bwd;
  if (f.size() != 1 || b.size() != 1) return {nullptr, nullptr};
  return {f[0], b[0]};
}

std::vector<std::string> Dtypes(const std::vector<Operand>& ops) {
  std::vector<std::string> out;
  for (const Operand& o : ops) out.push_back(o.dtype);
  return out;
}

bool IsChannel(const Operand& o) {
  return o.format == "NC1HWC0" && o.shape.size() == 5 && o.shape[0] == 1 && o.shape[2] == 1 &&
         o.shape[3] == 1;
}

TEST(LowerMixedDtypeTest, BatchNormKeepsFp32ChannelsBesideFp16FeatureMaps) {
  const Lowering l = Step(ResidualBlock());
  const auto reduce = All(l, "FusionOp_Conv2D_BNTrainingReduce");
  ASSERT_EQ(reduce.size(), 2u);
  for (const Kernel* k : reduce) {
    EXPECT_EQ(Dtypes(k->inputs), (std::vector<std::string>{"float16", "float16"}));
    EXPECT_EQ(Dtypes(k->outputs), (std::vector<std::string>{"float16", "float32", "float32"}));
  }
  // BNTrainingUpdate writes mean, variance, batch_mean and batch_variance (fp32) before the
  // ReLU's fp16 output and its uint8 bit mask, as the fused records list them.
  const auto update = All(l, "FusionOp_BNTrainingUpdate_ReLUV2");
  ASSERT_EQ(update.size(), 1u);
  EXPECT_EQ(Dtypes(update[0]->outputs),
            (std::vector<std::string>{"float32", "float32", "float32", "float32", "float16", "uint8"}));
  for (size_t i = 0; i < 4; ++i) EXPECT_TRUE(IsChannel(update[0]->outputs[i])) << i;
  EXPECT_EQ(update[0]->inputs[0].dtype, "float16");
  for (size_t i = 1; i < update[0]->inputs.size(); ++i) {
    EXPECT_TRUE(IsChannel(update[0]->inputs[i])) << i;
    EXPECT_EQ(update[0]->inputs[i].dtype, "float32") << i;  // no per-step Cast of gamma / beta
  }
  for (const Kernel* k : All(l, "BNTrainingUpdateGrad")) {
    EXPECT_EQ(Dtypes(k->inputs), (std::vector<std::string>{"float16", "float16", "float32", "float32"}));
    EXPECT_EQ(Dtypes(k->outputs), (std::vector<std::string>{"float32", "float32"}));
  }
  for (const Kernel* k : All(l, "BNTrainingReduceGrad")) {
    EXPECT_EQ(k->inputs[0].dtype, "float16");
    EXPECT_EQ(k->inputs[2].dtype, "float32");
    EXPECT_EQ(k->outputs[0].dtype, "float16");
  }
  // No Cast of a per-channel tensor anywhere.
  for (const Kernel* k : All(l, "Cast")) EXPECT_FALSE(IsChannel(k->inputs[0]));
}

TEST(LowerMixedDtypeTest, OtherPrecisionModesKeepTheirMapping) {
  // must_keep_origin_dtype runs the fp32 model in fp32: no Cast, fp32 weight gradients.
  const Lowering origin = Step(ResidualBlock(), "must_keep_origin_dtype");
  EXPECT_EQ(origin.casts, 0);
  for (const LoweredKernel& k : origin.kernels) {
    for (const auto* side : {&k.kernel.inputs, &k.kernel.outputs}) {
      for (const Operand& o : *side) EXPECT_NE(o.dtype, "float16") << k.kernel.op_type;
    }
  }
  // force_fp16 runs every kernel but the optimizer in fp16, BN channels included.
  const Lowering fp16 = Step(ResidualBlock(), "force_fp16");
  const auto update = All(fp16, "FusionOp_BNTrainingUpdate_ReLUV2");
  ASSERT_EQ(update.size(), 1u);
  EXPECT_EQ(update[0]->outputs[0].dtype, "float16");
  for (const Kernel* k : All(fp16, "Conv2DBackpropFilter")) EXPECT_EQ(k->outputs[0].dtype, "float16");
}

TEST(LowerMixedDtypeTest, MasterWeightsAreFp32WhateverTheFileStores) {
  // The same block with fp16 parameters in the file: mixed-precision training still updates fp32
  // master weights and casts them every step (the BERT records' 206 float32 -> float16 Casts).
  std::vector<DeviceOp> ops = FuseOps(Mapped(Load(ResidualBlock()), true), {}, true);
  for (DeviceOp& op : ops) {
    for (OpTensor& t : op.inputs) {
      if (t.weight) t.dtype = ir::DType::kFloat16;
    }
  }
  int64_t casts = 0;
  const auto mixed =
      AssignDtypes(AddTraining(ops, Optimizer::kMomentum, true), "allow_mix_precision", true, &casts);
  int weight_casts = 0;
  for (const DeviceOp& op : mixed) {
    if (op.op_type == "Cast" && op.inputs[0].weight) {
      ++weight_casts;
      EXPECT_EQ(op.inputs[0].dtype, ir::DType::kFloat32);
      EXPECT_EQ(op.outputs[0].dtype, ir::DType::kFloat16);
    }
    if (op.op_type == "FusedMulApplyMomentum") EXPECT_EQ(op.inputs[0].dtype, ir::DType::kFloat32);
  }
  EXPECT_EQ(weight_casts, 4);  // conv1, conv2, fc weight, fc bias
}

TEST(LowerMixedDtypeTest, LayersBeforeTheFirstCubeOpStayFp32AndSoDoTheirGradients) {
  // x + position embedding -> LayerNorm -> dense: BERT's embeddings run fp32 until the first
  // matmul casts (the records' fp32 ND embedding LayerNorm among 25 fp16 ones); the gradient the
  // matmul writes in fp16 is cast back to fp32 for the LayerNorm's backward.
  const Lowering l = Step(LayerNormThenDense(), "allow_mix_precision", Optimizer::kLamb);
  const auto ln = All(l, "LayerNorm");
  ASSERT_EQ(ln.size(), 1u);
  EXPECT_EQ(Dtypes(ln[0]->inputs), (std::vector<std::string>{"float32", "float32", "float32"}));
  const auto mm = All(l, "MatMul");
  ASSERT_FALSE(mm.empty());
  EXPECT_EQ(mm[0]->inputs[0].dtype, "float16");
  EXPECT_EQ(mm[0]->inputs[1].dtype, "float16");
  const auto dx = All(l, "LayerNormXBackpropV2");
  ASSERT_EQ(dx.size(), 1u);
  EXPECT_EQ(dx[0]->inputs[0].dtype, "float32");  // dy, after the Cast of the matmul's fp16 dx
  EXPECT_EQ(Dtypes(dx[0]->outputs), (std::vector<std::string>{"float32", "float32"}));
  const bool cast_back = std::any_of(l.kernels.begin(), l.kernels.end(), [](const LoweredKernel& k) {
    return k.kernel.op_type == "Cast" && k.phase == Phase::kBackward &&
           k.kernel.inputs[0].dtype == "float16" && k.kernel.outputs[0].dtype == "float32";
  });
  EXPECT_TRUE(cast_back);
}

TEST(LowerMixedDtypeTest, LayerNormAfterADenseLayerRunsFp16AndItsTbeOutputsStayFp32) {
  // x -> dense -> LayerNorm -> y: the encoder's LayerNorm follows the fp16 matmul and casts its
  // fp32 gamma / beta; its backward writes res_for_gamma and the gamma / beta gradients in fp32
  // (TBE's op info), and the gamma / beta kernel reads res_for_gamma without a Cast.
  ModelBuilder b(17);
  b.Input("x", {4, 8, 32}).Output("y", {4, 8, 16});
  b.FloatInitializer("w", {32, 16}, Fill(32 * 16));
  b.FloatInitializer("g", {16}, Fill(16)).FloatInitializer("beta", {16}, Fill(16));
  b.Node("MatMul", {"x", "w"}, {"m"}, "dense");
  b.Node("LayerNormalization", {"m", "g", "beta"}, {"y"}, "ln");
  const Lowering l = Step(b, "allow_mix_precision", Optimizer::kLamb);
  const auto ln = All(l, "LayerNorm");
  ASSERT_EQ(ln.size(), 1u);
  EXPECT_EQ(Dtypes(ln[0]->inputs), (std::vector<std::string>{"float16", "float16", "float16"}));
  EXPECT_EQ(Dtypes(ln[0]->outputs), (std::vector<std::string>{"float16", "float16", "float16"}));
  const auto dx = All(l, "LayerNormXBackpropV2");
  const auto dg = All(l, "LayerNormBetaGammaBackpropV2");
  ASSERT_EQ(dx.size(), 1u);
  ASSERT_EQ(dg.size(), 1u);
  EXPECT_EQ(Dtypes(dx[0]->outputs), (std::vector<std::string>{"float16", "float32"}));
  EXPECT_EQ(dg[0]->inputs[1].dtype, "float32");  // as written: no Cast between
  EXPECT_EQ(Dtypes(dg[0]->outputs), (std::vector<std::string>{"float32", "float32"}));
  // LAMB's clipping and update read the fp32 gradients.
  for (const std::string type : {"SquareSumV1", "ClipByNormNoDivSum", "LambApplyOptimizerAssign", "Mul"}) {
    for (const Kernel* k : All(l, type)) {
      for (const Operand& o : k->inputs) EXPECT_EQ(o.dtype, "float32") << type;
    }
  }
}

TEST(LowerMixedDtypeTest, FusedInputGradientWithoutASumReadsDyFilterAndMaskOnly) {
  // x -> Conv (stem) -> Relu -> Conv 1x1 -> GAP -> MatMul: the second convolution's input gradient
  // fuses the ReLU gradient and reads (dy, filter, mask), as the records' 32
  // FusionOp_Conv2DBackpropInput_ReluGradV2 do; the kernel's own output is no input.
  ModelBuilder b;
  b.Input("x", {2, 3, 8, 8});
  b.FloatInitializer("w0", {16, 3, 1, 1}, Fill(48));
  b.Node("Conv", {"x", "w0"}, {"s"}, "stem");
  b.Node("Relu", {"s"}, {"r"}, "relu");
  b.FloatInitializer("w1", {16, 16, 1, 1}, Fill(256));
  b.Node("Conv", {"r", "w1"}, {"c"}, "conv");
  b.Output("y", {2, 10});
  b.FloatInitializer("fc_w", {16, 10}, Fill(160));
  b.Node("GlobalAveragePool", {"c"}, {"p"}, "gap");
  b.Node("Flatten", {"p"}, {"f"}, "flatten");
  b.Node("MatMul", {"f", "fc_w"}, {"y"}, "fc");
  const Lowering l = Step(b);
  const auto dx = All(l, "FusionOp_Conv2DBackpropInput_ReluGradV2");
  ASSERT_EQ(dx.size(), 1u);
  EXPECT_EQ(Dtypes(dx[0]->inputs), (std::vector<std::string>{"float16", "float16", "uint8"}));
  EXPECT_EQ(dx[0]->inputs[1].format, "FracZ");
  EXPECT_EQ(Dtypes(dx[0]->outputs), (std::vector<std::string>{"float16"}));
}

TEST(LowerMixedDtypeTest, TheLossIsFp32AndItsGradientReturnsToTheLogitsDtype) {
  const Lowering l = Step(ResidualBlock());
  const auto onehot = All(l, "OneHot");
  ASSERT_EQ(onehot.size(), 1u);
  EXPECT_EQ(Dtypes(onehot[0]->inputs), (std::vector<std::string>{"int32", "float32", "float32"}));
  for (const Kernel* k : All(l, "SoftmaxCrossEntropyWithLogits")) {
    for (const auto* side : {&k->inputs, &k->outputs}) {
      for (const Operand& o : *side) EXPECT_EQ(o.dtype, "float32");
    }
  }
  // The fc's backward reads dlogits in fp16 (the bprop of the logits' Cast), and its bias
  // gradient, an fp16 vector result, reaches the momentum update as fp32.
  for (const Kernel* k : All(l, "BiasAddGrad")) EXPECT_EQ(k->inputs[0].dtype, "float16");
  for (const Kernel* k : All(l, "FusedMulApplyMomentum")) {
    for (const Operand& o : k->inputs) EXPECT_EQ(o.dtype, "float32");
  }
}

TEST(LowerMixedDtypeTest, EagerModeRunsTheBnReduceGradAndTheBackwardsParts) {
  // Eager mode fuses nothing, so each BN has a BNTrainingReduce of its own and gets its own
  // BNTrainingReduceGrad, and the input gradient, its sum and the ReLU gradient are three kernels
  // (the UB fusion TbeConv2DBackpropElemwiseFusionPass is off as the forward's passes are).
  LowerOptions o;
  o.train = true;
  o.precision_mode = "allow_mix_precision";
  for (const bool eager : {false, true}) {
    o.eager = eager;
    auto l = Lower(Load(ResidualBlock()), Ascend910(), o);
    ASSERT_TRUE(l.ok()) << l.status().message();
    EXPECT_EQ(All(*l, "BNTrainingReduceGrad").size(), 2u) << eager;
    EXPECT_EQ(All(*l, "FusionOp_Conv2DBackpropInput_AddN_ReluGradV2").size(), eager ? 0u : 1u);
    EXPECT_EQ(All(*l, "Conv2DBackpropInput").size(), eager ? 1u : 0u);
    EXPECT_EQ(All(*l, "ReluGradV2").size(), eager ? 2u : 1u);
    for (const Kernel* k : All(*l, "BNTrainingReduceGrad")) {
      ASSERT_EQ(k->inputs.size(), 7u);  // dy, x, five channel tensors
      EXPECT_EQ(k->inputs[0].dtype, "float16");
      EXPECT_EQ(k->outputs[0].dtype, "float16");
    }
  }
  // A fusion switch file that turns the pass off does the same in graph mode.
  o.eager = false;
  o.fusion.passes["TbeConv2DBackpropElemwiseFusionPass"] = false;
  auto off = Lower(Load(ResidualBlock()), Ascend910(), o);
  ASSERT_TRUE(off.ok());
  EXPECT_TRUE(All(*off, "FusionOp_Conv2DBackpropInput_AddN_ReluGradV2").empty());
}

TEST(LowerMixedDtypeTest, GeluGradReadsTheGeluInputAndOutput) {
  // x -> dense -> GELU (Erf form, which the graph passes make one GeLU and UB fusion puts into
  // the matmul) -> dense -> y: FusionOp_MatMul_GeLU keeps the matmul result as a second output,
  // and the backward's FusionOp_MatMul_GeLUGrad reads (dy, w, x, y), as the BERT records list them.
  ModelBuilder b(17);
  b.Input("x", {4, 8, 32}).Output("y", {4, 8, 16});
  b.FloatInitializer("w1", {32, 64}, Fill(32 * 64)).FloatInitializer("w2", {64, 16}, Fill(64 * 16));
  b.FloatInitializer("sqrt2", {}, {1.4142135f}).FloatInitializer("one", {}, {1.0f});
  b.FloatInitializer("half", {}, {0.5f});
  b.Node("MatMul", {"x", "w1"}, {"h"}, "fc1");
  b.Node("Div", {"h", "sqrt2"}, {"d"}, "gelu_div");
  b.Node("Erf", {"d"}, {"e"}, "gelu_erf");
  b.Node("Add", {"e", "one"}, {"a"}, "gelu_add");
  b.Node("Mul", {"h", "a"}, {"m"}, "gelu_mul");
  b.Node("Mul", {"m", "half"}, {"g"}, "gelu_half");
  b.Node("MatMul", {"g", "w2"}, {"y"}, "fc2");
  const Lowering l = Step(b, "allow_mix_precision", Optimizer::kLamb);
  const auto [fwd, bwd] = OneEach(l, "FusionOp_MatMul_GeLU", "FusionOp_MatMul_GeLUGrad");
  ASSERT_NE(fwd, nullptr);
  ASSERT_EQ(fwd->outputs.size(), 2u);
  EXPECT_EQ(fwd->outputs[0].shape, fwd->outputs[1].shape);
  ASSERT_EQ(bwd->inputs.size(), 4u);
  EXPECT_EQ(bwd->inputs[2].shape, fwd->outputs[0].shape);
  EXPECT_EQ(bwd->inputs[3].shape, fwd->outputs[0].shape);
  for (const Operand& o : bwd->inputs) EXPECT_EQ(o.dtype, "float16");
}

TEST(LowerMixedDtypeTest, SoftmaxGradExtReadsDyTheSoftmaxOutputAndAScalar) {
  // x -> dense -> Softmax -> dense -> y: SoftmaxGradExt(dy, y, scale), all fp16 after the fp16
  // matmul, its dy from the second matmul's dx (as a BatchMatMul reads BERT's attention softmax).
  ModelBuilder b(17);
  b.Input("x", {4, 8, 32}).Output("y", {4, 8, 16});
  b.FloatInitializer("w", {32, 16}, Fill(32 * 16)).FloatInitializer("w2", {16, 16}, Fill(16 * 16));
  b.Node("MatMul", {"x", "w"}, {"m"}, "dense");
  b.Node("Softmax", {"m"}, {"p"}, "softmax");
  b.Node("MatMul", {"p", "w2"}, {"y"}, "dense2");
  const Lowering l = Step(b, "allow_mix_precision", Optimizer::kLamb);
  const auto [sm, grad] = OneEach(l, "Softmax", "SoftmaxGradExt");
  ASSERT_NE(sm, nullptr);
  ASSERT_EQ(grad->inputs.size(), 3u);
  EXPECT_EQ(grad->inputs[1].shape, sm->outputs[0].shape);
  EXPECT_TRUE(grad->inputs[2].shape.empty());
  EXPECT_EQ(Dtypes(grad->inputs), (std::vector<std::string>{"float16", "float16", "float16"}));
}

TEST(LowerMixedDtypeTest, LambRunsWhereItsWeightLivesAndReadsTheClippedGradient) {
  // The dense weight is ND: its LAMB update runs in ND (the records' LambApplyOptimizerAssign),
  // so the FRACTAL_NZ weight gradient is converted for it, not the weight and its states into
  // NZ; and the clipping RealDiv rewrites the gradient, so the update converts the clipped
  // gradient, not the copy SquareSumV1 read before (two NZ -> ND TransData per matmul gradient,
  // as the records have 153 for 76).
  const Lowering l = Step(LayerNormThenDense(), "allow_mix_precision", Optimizer::kLamb);
  int nd_updates = 0;
  for (const Kernel* k : All(l, "LambApplyOptimizerAssign")) {
    for (const Operand& o : k->inputs) EXPECT_EQ(o.format, "ND");
    ++nd_updates;
  }
  EXPECT_GE(nd_updates, 1);
  int to_nz = 0, to_nd = 0;
  for (const LoweredKernel& k : l.kernels) {
    if (k.kernel.op_type != "TransData" || k.kernel.inputs[0].dtype != "float32") continue;
    to_nz += k.kernel.outputs[0].format == "FRACTAL_NZ" && k.phase == Phase::kOptimizer ? 1 : 0;
    // (The forward's conversion of the logits for the loss, ND only, is not one of them.)
    to_nd += k.phase != Phase::kForward && k.kernel.inputs[0].format == "FRACTAL_NZ" &&
                     k.kernel.outputs[0].format == "ND" &&
                     k.kernel.inputs[0].shape == std::vector<int64_t>{1, 2, 16, 16}
                 ? 1
                 : 0;
  }
  EXPECT_EQ(to_nz, 0);
  EXPECT_EQ(to_nd, 2);  // the [32, 16] weight gradient: for SquareSumV1 and for the update
}

}  // namespace
}  // namespace npugap::analysis::perf
