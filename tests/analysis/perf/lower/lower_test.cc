// Each lowering pass on small imported models: node mapping, fusion patterns and their switches,
// training kernels, dtypes and Casts, AI CPU placement, layouts and padded device shapes.
#include "npugap/analysis/perf/lower/lower.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "lower_test_models.h"

namespace npugap::analysis::perf {
namespace {

using npugap::testing::ModelBuilder;
using namespace lower_test;

TEST(LowerMapTest, ViewsAndConstantsProduceNoKernel) {
  const auto ops = Mapped(Load(ResidualBlock()), false);
  const auto t = Types(ops);
  EXPECT_EQ(Count(t, "Flatten"), 0);
  EXPECT_EQ(ops.size(), 10u);  // 11 nodes, Flatten is a view
  EXPECT_EQ(t[0], "Conv2D");
  EXPECT_EQ(t[1], "BNInference");
  EXPECT_EQ(t[8], "MatMul");
  // The MatMul reads the pooled value through the Flatten alias.
  EXPECT_EQ(ops[8].inputs[0].value, ops[7].outputs[0].value);
  EXPECT_EQ(ops[8].inputs[0].shape, (ir::Shape{2, 16}));
  EXPECT_TRUE(ops[8].inputs[1].weight);
}

TEST(LowerMapTest, TrainingSplitsBatchNormAndKeepsReluMasks) {
  const auto t = Types(Mapped(Load(ResidualBlock()), true));
  EXPECT_EQ(Count(t, "BNTrainingReduce"), 2);
  EXPECT_EQ(Count(t, "BNTrainingUpdate"), 2);
  EXPECT_EQ(Count(t, "ReluV2"), 2);
  EXPECT_EQ(Count(t, "Relu"), 0);
}

TEST(LowerMapTest, MissingShapeIsAnErrorNamingTheValue) {
  ModelBuilder b;
  b.Input("x", {-1, 4}).Output("y", {-1, 4}).Node("Relu", {"x"}, {"y"}, "r");
  const ir::Model m = Load(b);
  ShapeList shapes(m.graph.values.size());
  auto ops = MapNodes(m.graph, shapes, false);
  ASSERT_FALSE(ops.ok());
  EXPECT_NE(ops.status().message().find("'x'"), std::string::npos) << ops.status().message();
}

TEST(LowerFusionTest, InferenceFoldsBatchNormAndFusesActivations) {
  const auto ops = FuseOps(Mapped(Load(ResidualBlock()), false), {}, false);
  const auto t = Types(ops);
  EXPECT_EQ(Count(t, "FusionOp_Conv2D_Relu"), 1);
  EXPECT_EQ(Count(t, "FusionOp_Conv2D_Add_Relu"), 1);
  EXPECT_EQ(Count(t, "BNInference"), 0);
  EXPECT_EQ(Count(t, "MatMul"), 1);  // bias folded into the matmul
  EXPECT_EQ(Count(t, "Add"), 0);
  const auto mm = std::find(t.begin(), t.end(), "MatMul") - t.begin();
  EXPECT_EQ(ops[static_cast<size_t>(mm)].inputs.size(), 3u);
}

TEST(LowerFusionTest, SwitchFileTurnsPassesOff) {
  auto sw = ParseFusionSwitches("ConvBatchnormFusionPass:off\nTbeConvElemwiseFusionPass:off\n", "f.cfg");
  ASSERT_TRUE(sw.ok()) << sw.status().message();
  const auto t = Types(FuseOps(Mapped(Load(ResidualBlock()), false), *sw, false));
  EXPECT_EQ(Count(t, "BNInference"), 2);
  EXPECT_EQ(Count(t, "FusionOp_Conv2D_Relu"), 0);
  // ALL off in one group leaves the other group on; a named pass overrides ALL.
  auto all = ParseFusionSwitches(R"({"Switch":{"GraphFusion":{"ALL":"off","MatMulBiasAddFusionPass":"on"}}})",
                                 "f.json");
  ASSERT_TRUE(all.ok()) << all.status().message();
  EXPECT_FALSE(all->Enabled("ConvBatchnormFusionPass", "GraphFusion"));
  EXPECT_TRUE(all->Enabled("MatMulBiasAddFusionPass", "GraphFusion"));
  EXPECT_TRUE(all->Enabled("TbeConvElemwiseFusionPass", "UBFusion"));
}

TEST(LowerFusionTest, SwitchFileErrorsNameLineAndValue) {
  auto bad = ParseFusionSwitches("# comment\nConvBatchnormFusionPass:maybe\n", "f.cfg");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("f.cfg:2"), std::string::npos) << bad.status().message();
  EXPECT_NE(bad.status().message().find("maybe"), std::string::npos);
  EXPECT_FALSE(ParseFusionSwitches("NoColonHere\n", "f.cfg").ok());
  EXPECT_FALSE(ParseFusionSwitches(R"({"Switch":{"Other":{}}})", "f.json").ok());
  EXPECT_FALSE(ParseFusionSwitches("{not json", "f.json").ok());
  auto unknown = ParseFusionSwitches("MadeUpPass:off\n", "f.cfg");
  ASSERT_TRUE(unknown.ok());
  ASSERT_EQ(unknown->warnings.size(), 1u);
  EXPECT_NE(unknown->warnings[0].find("MadeUpPass"), std::string::npos);
}

TEST(LowerFusionTest, TrainingFusesConvWithBnReduceAndBnUpdateWithRelu) {
  const auto t = Types(FuseOps(Mapped(Load(ResidualBlock()), true), {}, true));
  EXPECT_EQ(Count(t, "FusionOp_Conv2D_BNTrainingReduce"), 2);
  EXPECT_EQ(Count(t, "FusionOp_BNTrainingUpdate_ReLUV2"), 1);
  EXPECT_EQ(Count(t, "FusionOp_BNTrainingUpdate_Add_ReLUV2"), 1);
  EXPECT_EQ(Count(t, "BNTrainingUpdate"), 0);
}

// x[4,8,32] -> LayerNorm decomposed as torch exports it below opset 17 -> MatMul(32x64) + bias ->
// GELU decomposed -> y; and scores = BatchMatMul(q, k) / 8 + mask -> Softmax.
TEST(LowerFusionTest, DecomposedLayerNormAndGeluBecomeSingleKernels) {
  ModelBuilder b;
  b.Input("x", {4, 8, 32}).Output("y", {4, 8, 64});
  b.FloatInitializer("two", {}, {2.0f}).FloatInitializer("eps", {}, {1e-5f});
  b.FloatInitializer("g", {32}, Fill(32)).FloatInitializer("beta", {32}, Fill(32));
  b.FloatInitializer("w", {32, 64}, Fill(32 * 64)).FloatInitializer("bias", {64}, Fill(64));
  b.FloatInitializer("sqrt2", {}, {1.4142f})
      .FloatInitializer("one", {}, {1.0f})
      .FloatInitializer("half", {}, {0.5f});
  b.Node("ReduceMean", {"x"}, {"mu"}).Node("Sub", {"x", "mu"}, {"d"}).Node("Pow", {"d", "two"}, {"d2"});
  b.Node("ReduceMean", {"d2"}, {"var"}).Node("Add", {"var", "eps"}, {"ve"}).Node("Sqrt", {"ve"}, {"sd"});
  b.Node("Div", {"d", "sd"}, {"n"}).Node("Mul", {"n", "g"}, {"ng"}).Node("Add", {"ng", "beta"}, {"ln"});
  b.Node("MatMul", {"ln", "w"}, {"h0"}).Node("Add", {"h0", "bias"}, {"h"});
  b.Node("Div", {"h", "sqrt2"}, {"hs"}).Node("Erf", {"hs"}, {"e"}).Node("Add", {"e", "one"}, {"e1"});
  b.Node("Mul", {"h", "e1"}, {"he"}).Node("Mul", {"he", "half"}, {"y"});
  for (int i : {0, 3}) {  // ReduceMean over the last axis, keepdims
    auto* a = b.proto().mutable_graph()->mutable_node(i)->add_attribute();
    a->set_name("axes");
    a->set_type(onnx::AttributeProto::INTS);
    a->add_ints(-1);
  }
  const auto t = Types(FuseOps(Mapped(Load(b), false), {}, false));
  EXPECT_EQ(t, (std::vector<std::string>{"LayerNorm", "FusionOp_MatMul_GeLU"}));
  FusionSwitches off;
  off.passes["LayerNormFusionPass"] = false;
  off.passes["GeluFusionPass"] = false;
  off.passes["TbeEltwiseFusionPass"] = false;
  EXPECT_GT(FuseOps(Mapped(Load(b), false), off, false).size(), 10u);
}

TEST(LowerFusionTest, AttentionScoresFuseScaleAndMaskIntoTheBatchMatMul) {
  ModelBuilder b;
  b.Input("q", {2, 4, 16, 8})
      .Input("k", {2, 4, 8, 16})
      .Input("mask", {2, 1, 1, 16})
      .Output("p", {2, 4, 16, 16});
  b.FloatInitializer("scale", {}, {8.0f});
  b.Node("MatMul", {"q", "k"}, {"s"}).Node("Div", {"s", "scale"}, {"ss"}).Node("Add", {"ss", "mask"}, {"sm"});
  b.Node("Softmax", {"sm"}, {"p"});
  const auto t = Types(FuseOps(Mapped(Load(b), false), {}, false));
  EXPECT_EQ(t, (std::vector<std::string>{"FusionOp_BatchMatMul_FusedMulAdd", "Softmax"}));
}

TEST(LowerFusionTest, ElementwiseChainsFuseUpToFourOps) {
  ModelBuilder b;
  b.Input("x", {64}).Output("y", {64});
  b.Node("Neg", {"x"}, {"a"}).Node("Exp", {"a"}, {"c"}).Node("Abs", {"c"}, {"y"});
  const auto t = Types(FuseOps(Mapped(Load(b), false), {}, false));
  EXPECT_EQ(t, (std::vector<std::string>{"FusionOp_Neg_Exp_Abs"}));
}

std::vector<DeviceOp> Training(Optimizer opt) {
  return AddTraining(FuseOps(Mapped(Load(ResidualBlock()), true), {}, true), opt, true);
}

TEST(LowerTrainingTest, BackwardKernelsAsMindSporeNamesThem) {
  TrainingInfo info;
  const auto ops =
      AddTraining(FuseOps(Mapped(Load(ResidualBlock()), true), {}, true), Optimizer::kMomentum, true, &info);
  const auto t = Types(ops);
  EXPECT_EQ(Count(t, "SoftmaxCrossEntropyWithLogits"), 1);
  EXPECT_EQ(Count(t, "BNTrainingUpdateGrad"), 2);
  // conv2 (1x1 at 8x8) keeps BNTrainingReduceGrad + Conv2DBackpropFilter, like conv1 (3x3 at 8x8).
  EXPECT_EQ(Count(t, "BNTrainingReduceGrad"), 2);
  EXPECT_EQ(Count(t, "Conv2DBackpropFilter"), 2);
  // conv2's input gradient is the last one into relu1's output, which also feeds the residual:
  // it sums both and applies relu1's gradient in one kernel. conv1 reads the graph input: no dx.
  EXPECT_EQ(Count(t, "FusionOp_Conv2DBackpropInput_AddN_ReluGradV2"), 1);
  EXPECT_EQ(Count(t, "Conv2DBackpropInput"), 0);
  // GAP backward and the loss's ReduceMean bprop (Tile, RealDiv), then the softmax cross
  // entropy's bprop Mul; relu2's gradient on its own (its reader is the pooling, not a cube op).
  EXPECT_EQ(Count(t, "Tile"), 2);
  EXPECT_EQ(Count(t, "Mul"), 1);
  EXPECT_EQ(Count(t, "ReluGradV2"), 1);
  // fc: dW and dx matmuls, bias grad.
  EXPECT_EQ(Count(t, "MatMul"), 3);
  EXPECT_EQ(Count(t, "BiasAddGrad"), 1);
  // 2 conv weights + 4 BN params + fc weight and bias = 8 parameters; weight decay on 3.
  EXPECT_EQ(Count(t, "FusedMulApplyMomentum"), 8);
  EXPECT_EQ(Count(t, "FusedMulAddN"), 3);
  EXPECT_EQ(info.parameters, 16 * 27 + 256 + 4 * 16 + 160 + 10);
  EXPECT_EQ(info.gradient_bytes, info.parameters * 4);
  // Backward comes after forward, in reverse order: the loss before conv2's gradients.
  const auto loss = std::find(t.begin(), t.end(), "SoftmaxCrossEntropyWithLogits") - t.begin();
  const auto dx = std::find(t.begin(), t.end(), "FusionOp_Conv2DBackpropInput_AddN_ReluGradV2") - t.begin();
  EXPECT_LT(loss, dx);
}

TEST(LowerTrainingTest, OptimizersEmitTheirUpdateKernels) {
  const auto lamb = Types(Training(Optimizer::kLamb));
  EXPECT_EQ(Count(lamb, "LambApplyOptimizerAssign"), 8);
  EXPECT_EQ(Count(lamb, "LambApplyWeightAssign"), 8);
  EXPECT_EQ(Count(lamb, "SquareSumV1"), 16);
  EXPECT_EQ(Count(lamb, "FusedMulApplyMomentum"), 0);
  EXPECT_EQ(Count(Types(Training(Optimizer::kAdam)), "Adam"), 8);
  // AdamWeightDecay: decay on the 3 weights of rank >= 2, none on the 5 BN / bias vectors.
  const auto adamw = Types(Training(Optimizer::kAdamW));
  EXPECT_EQ(Count(adamw, "AdamApplyOneWithDecayAssign"), 3);
  EXPECT_EQ(Count(adamw, "AdamApplyOneAssign"), 5);
  EXPECT_TRUE(ParseOptimizer("adamw").ok());
  EXPECT_FALSE(ParseOptimizer("sgdx").ok());
}

TEST(LowerDtypeTest, AllowFp32ToFp16CastsAroundCubeOpsOnly) {
  const auto ops =
      AssignDtypes(FuseOps(Mapped(Load(ResidualBlock()), false), {}, false), "allow_fp32_to_fp16", false);
  const auto t = Types(ops);
  // x -> fp16 before conv1; the conv outputs fp16 feed the fp16 conv2 / GAP (follows fp16);
  // weights are converted offline: no Cast for them.
  EXPECT_GE(Count(t, "Cast"), 1);
  for (const auto& op : ops) {
    if (op.op_type == "Cast") EXPECT_FALSE(op.inputs[0].weight);
    if (op.category == Category::kCube) EXPECT_EQ(op.inputs[0].dtype, ir::DType::kFloat16) << op.op_type;
  }
  int64_t casts_origin = -1;
  AssignDtypes(FuseOps(Mapped(Load(ResidualBlock()), false), {}, false), "must_keep_origin_dtype", false,
               &casts_origin);
  EXPECT_EQ(casts_origin, 0);
}

TEST(LowerDtypeTest, TrainingCastsMasterWeightsEveryStep) {
  // force_fp16: the fp32 master weights of the two convolutions and the fc are cast every step.
  int64_t casts = 0;
  AssignDtypes(Training(Optimizer::kMomentum), "force_fp16", true, &casts);
  EXPECT_GE(casts, 3);
  // Mixed-precision training (the calibration steps read typeid-shifted): the image is cast to
  // fp16 before conv1, each cube op's fp32 master weight is cast once per step although the
  // backward reads it again (conv1, conv2, the fc weight and its bias, fused into the fc MatMul),
  // the fp16 logits are cast to fp32 for the loss and the loss's gradient back to fp16 (the
  // bprop of that Cast), and the fc bias gradient, which a vector kernel writes in fp16, is cast
  // to fp32 for its momentum update: 8.
  const auto mixed = AssignDtypes(Training(Optimizer::kMomentum), "allow_mix_precision", true, &casts);
  EXPECT_EQ(casts, 8);
  int convs = 0;
  for (const auto& op : mixed) {
    if (op.op_type == "FusionOp_Conv2D_BNTrainingReduce") {
      ++convs;
      EXPECT_EQ(op.inputs[0].dtype, ir::DType::kFloat16);
      EXPECT_EQ(op.inputs[1].dtype, ir::DType::kFloat16);
      EXPECT_FALSE(op.inputs[1].weight);  // the step's converted copy
    }
    if (op.op_type == "FusedMulApplyMomentum") {
      for (const auto& t : op.inputs) EXPECT_EQ(t.dtype, ir::DType::kFloat32);
    }
    if (op.op_type == "SoftmaxCrossEntropyWithLogits") EXPECT_EQ(op.inputs[0].dtype, ir::DType::kFloat32);
    // The backward follows the forward value's dtype: dlogits is read in fp16, as the fc ran.
    if (op.op_type == "BiasAddGrad") {
      EXPECT_EQ(op.inputs[0].dtype, ir::DType::kFloat16);
      EXPECT_EQ(op.outputs[0].dtype, ir::DType::kFloat16);
    }
  }
  EXPECT_EQ(convs, 2);
}

TEST(LowerLayoutTest, DeviceShapesPadAsTheCalibrationRecordsThem) {
  const auto& t = Ascend910();
  // shared/calibration/ascend910/resnet50_bs32_train.csv: the stem weight and the fc weight.
  EXPECT_EQ(DeviceShape({64, 3, 7, 7}, ir::DType::kFloat16, Format::kFractalZ, t),
            (ir::Shape{49, 4, 16, 16}));
  EXPECT_EQ(DeviceShape({100, 2048}, ir::DType::kFloat32, Format::kFractalNz, t),
            (ir::Shape{128, 7, 16, 16}));
  EXPECT_EQ(DeviceShape({32, 3, 224, 224}, ir::DType::kFloat32, Format::kNc1hwc0, t),
            (ir::Shape{32, 1, 224, 224, 16}));
  EXPECT_EQ(DeviceShape({5, 7}, ir::DType::kFloat16, Format::kNd, t), (ir::Shape{5, 7}));
}

TEST(LowerLayoutTest, TransDataAtEveryFormatBoundary) {
  int64_t transdata = 0;
  const auto ops =
      AssignLayouts(FuseOps(Mapped(Load(ResidualBlock()), false), {}, false), Ascend910(), &transdata);
  const auto t = Types(ops);
  // ND input -> NC1HWC0 for conv1; GAP output NC1HWC0 [2,16,1,1] -> FRACTAL_NZ [2,16] for the fc;
  // fc output NZ stays (graph output read by nobody).
  EXPECT_EQ(t[0], "TransData");
  EXPECT_EQ(ops[0].inputs[0].format, Format::kNd);
  EXPECT_EQ(ops[0].outputs[0].format, Format::kNc1hwc0);
  EXPECT_EQ(transdata, Count(t, "TransData"));
  EXPECT_EQ(transdata, 2);
  for (const auto& op : ops) {
    if (op.op_type == "FusionOp_Conv2D_Relu") {
      EXPECT_EQ(op.inputs[1].format, Format::kFractalZ);
      EXPECT_EQ(op.outputs[0].format, Format::kNc1hwc0);
    }
    if (op.op_type == "MatMul") EXPECT_EQ(op.inputs[0].format, Format::kFractalNz);
  }
  // A target without NPU layouts counts no TransData; convolutions are described blocked,
  // matmuls row-major.
  const auto cpu = *target::LoadTarget("cpu-dev");
  const auto ref = AssignLayouts(FuseOps(Mapped(Load(ResidualBlock()), false), {}, false), cpu, &transdata);
  EXPECT_EQ(transdata, 0);
  for (const auto& op : ref) {
    if (op.op_type == "MatMul") EXPECT_EQ(op.inputs[0].format, Format::kNd);
    if (op.op_type == "FusionOp_Conv2D_Relu") EXPECT_EQ(op.outputs[0].format, Format::kNc1hwc0);
  }
}

TEST(LowerPipelineTest, KernelsCarryDeviceOperandsAndAtomicCleans) {
  LowerOptions o;
  o.train = true;
  o.precision_mode = "force_fp16";
  auto l = Lower(Load(ResidualBlock()), Ascend910(), o);
  ASSERT_TRUE(l.ok()) << l.status().message();
  int64_t atomic = 0;
  for (size_t i = 0; i < l->kernels.size(); ++i) {
    const Kernel& k = l->kernels[i].kernel;
    if (k.op_type == "AtomicAddrClean") {
      ++atomic;
      ASSERT_LT(i + 1, l->kernels.size());
    }
    if (k.op_type == "FusionOp_Conv2D_BNTrainingReduce") {
      EXPECT_EQ(k.inputs[0].format, "NC1HWC0");
      EXPECT_EQ(k.inputs[0].shape.size(), 5u);
      EXPECT_EQ(k.inputs[1].format, "FracZ");
      EXPECT_EQ(k.inputs[0].dtype, "float16");
      EXPECT_EQ(l->kernels[i - 1].kernel.op_type, "AtomicAddrClean");
    }
  }
  EXPECT_GE(atomic, 4);  // 2 BN reduces, 2 filter gradients
  EXPECT_GT(l->transdata, 0);
  EXPECT_GT(l->casts, 0);
  EXPECT_EQ(l->input_bytes, 2 * 3 * 8 * 8 * 4);
  EXPECT_FALSE(Lower(Load(ResidualBlock()), Ascend910(), LowerOptions{false, false, "fp17", {}, {}}).ok());
}

TEST(LowerPipelineTest, EagerModeRunsEveryOpAsItsOwnKernel) {
  LowerOptions graph, eager;
  eager.eager = true;
  auto g = Lower(Load(ResidualBlock()), Ascend910(), graph);
  auto e = Lower(Load(ResidualBlock()), Ascend910(), eager);
  ASSERT_TRUE(g.ok() && e.ok());
  EXPECT_GT(e->kernels.size(), g->kernels.size());
  EXPECT_EQ(e->fused_ops, 1);  // only linear's matmul + bias, one framework op
  EXPECT_GT(g->fused_ops, 0);
}

TEST(LowerPlacementTest, OpsWithoutAnAiCoreKernelGoToTheAiCpu) {
  ModelBuilder b;
  b.Input("x", {4, 4}, onnx::TensorProto::DOUBLE).Output("y", {4, 4}, onnx::TensorProto::DOUBLE);
  b.Node("Exp", {"x"}, {"y"}, "exp64");
  auto l = Lower(Load(b), Ascend910(), {});
  ASSERT_TRUE(l.ok()) << l.status().message();
  ASSERT_EQ(l->kernels.size(), 1u);
  EXPECT_TRUE(l->kernels[0].kernel.aicpu);
  EXPECT_EQ(l->kernels[0].category, Category::kAiCpu);
  EXPECT_EQ(l->aicpu, 1);
}

}  // namespace
}  // namespace npugap::analysis::perf
