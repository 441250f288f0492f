// The lowering as a kernel inventory: the lowered kernels written in the calibration CSV format
// (lower_csv.h), and the structural rules that make the inventory of a training step match the
// one MindSpore ran on the 910 (shared/calibration/ascend910): per-channel BN operands, the atomic
// cleans, the ReLU masks, the per-step weight Casts.
#include <gtest/gtest.h>

#include "lower_test_models.h"
#include "npugap/analysis/perf/calibrate/calibration.h"
#include "npugap/analysis/perf/iteration.h"
#include "npugap/analysis/perf/calibrate/kernel_csv.h"
#include "npugap/analysis/perf/lower/lower_csv.h"

namespace npugap::analysis::perf {
namespace {

using namespace lower_test;
using npugap::testing::ModelBuilder;

Lowering TrainStep(const std::string& precision = "allow_mix_precision") {
  LowerOptions o;
  o.train = true;
  o.precision_mode = precision;
  auto l = Lower(Load(ResidualBlock()), Ascend910(), o);
  EXPECT_TRUE(l.ok()) << l.status().message();
  return l.ok() ? *l : Lowering{};
}

TEST(LowerCsvTest, LoweredKernelsReadBackAsCalibrationRecordsWithTheirOwnTimes) {
  const Lowering l = TrainStep();
  auto it = SimulateIteration(l, Ascend910(), {}, &PredictKernel);
  ASSERT_TRUE(it.ok()) << it.status().message();
  auto csv = LoweredKernelsCsv(l, *it);
  ASSERT_TRUE(csv.ok()) << csv.status().message();
  auto table = ParseKernelCsv(*csv, "lowered.csv");
  ASSERT_TRUE(table.ok()) << table.status().message();
  ASSERT_EQ(table->records.size(), l.kernels.size());
  for (size_t i = 0; i < l.kernels.size(); ++i) {
    const Kernel& k = table->records[i].kernel;
    EXPECT_EQ(k.op_type, l.kernels[i].kernel.op_type);
    EXPECT_EQ(k.inputs.size(), l.kernels[i].kernel.inputs.size());
    EXPECT_EQ(k.outputs.size(), l.kernels[i].kernel.outputs.size());
    EXPECT_GT(k.block_dim, 0) << k.op_type;  // the cost model's choice, written down
  }
  // The cost model on the written records gives back the times written (block_dim included).
  const CalibrationReport rep = Calibrate(table->records, Ascend910());
  EXPECT_GT(rep.measured_us, 0);
  EXPECT_NEAR(rep.predicted_us, rep.measured_us, 1e-3 * rep.measured_us);
}

TEST(LowerCsvTest, OperandsAndNodeNamesStayInsideTheirFields) {
  EXPECT_EQ(FormatOperand({"NC1HWC0", "float16", {1, 4, 1, 1, 16}}), "NC1HWC0:float16:1x4x1x1x16");
  EXPECT_EQ(FormatOperand({"ND", "float32", {}}), "ND:float32:");
  Lowering l;
  LoweredKernel k;
  k.kernel.op_type = "Relu";
  k.kernel.name = "a,b\nc";
  k.kernel.inputs = {{"ND", "float16", {4}}};
  l.kernels = {k};
  IterationResult it;
  it.kernels.resize(1);
  auto csv = LoweredKernelsCsv(l, it);
  ASSERT_TRUE(csv.ok());
  EXPECT_NE(csv->find(",a_b_c\n"), std::string::npos) << *csv;
  // A timeline of another lowering is a caller's bug, reported, not written.
  it.kernels.clear();
  EXPECT_FALSE(LoweredKernelsCsv(l, it).ok());
}

// x[2, CIN, 4, 4] -> Conv 1x1 (CIN -> C) -> BatchNorm -> Relu -> y.
ModelBuilder ConvBnRelu(int64_t c, int64_t cin) {
  ModelBuilder b;
  b.Input("x", {2, cin, 4, 4}).Output("y", {2, c, 4, 4});
  b.FloatInitializer("w", {c, cin, 1, 1}, Fill(c * cin));
  for (const char* p : {"s", "b", "m", "v"}) b.FloatInitializer(p, {c}, Fill(c, 1.0f));
  b.Node("Conv", {"x", "w"}, {"c"}, "conv");
  b.Node("BatchNormalization", {"c", "s", "b", "m", "v"}, {"n"}, "bn");
  b.Node("Relu", {"n"}, {"y"}, "relu");
  return b;
}

const Kernel* Find(const Lowering& l, const std::string& type, size_t* index = nullptr) {
  for (size_t i = 0; i < l.kernels.size(); ++i) {
    if (l.kernels[i].kernel.op_type == type) {
      if (index) *index = i;
      return &l.kernels[i].kernel;
    }
  }
  return nullptr;
}

bool IsChannel5hd(const Operand& o, int64_t c1) {
  return o.format == "NC1HWC0" && o.shape == std::vector<int64_t>{1, c1, 1, 1, 16};
}

TEST(LowerInventoryTest, BatchNormKernelsTakePerChannelTensorsIn5hd) {
  const Lowering l = TrainStep();
  const Kernel* reduce = Find(l, "FusionOp_Conv2D_BNTrainingReduce");
  ASSERT_NE(reduce, nullptr);
  ASSERT_EQ(reduce->outputs.size(), 3u);
  EXPECT_TRUE(IsChannel5hd(reduce->outputs[1], 1) && IsChannel5hd(reduce->outputs[2], 1));
  const Kernel* grad = Find(l, "BNTrainingUpdateGrad");
  ASSERT_NE(grad, nullptr);
  for (const Operand& o : grad->outputs) EXPECT_TRUE(IsChannel5hd(o, 1)) << o.format;
  // gamma / beta and the running statistics live in NC1HWC0: no TransData for them, and their
  // momentum updates run there.
  for (const auto& k : l.kernels) {
    if (k.kernel.op_type == "TransData") EXPECT_FALSE(IsChannel5hd(k.kernel.outputs[0], 1));
  }
  int bn_updates = 0;
  for (const auto& k : l.kernels) {
    if (k.kernel.op_type == "FusedMulApplyMomentum" && IsChannel5hd(k.kernel.inputs[0], 1)) {
      ++bn_updates;
      EXPECT_EQ(k.kernel.inputs[2].format, "ND");  // the scalars stay ND
    }
  }
  EXPECT_EQ(bn_updates, 4);  // gamma and beta of two BNs
}

TEST(LowerInventoryTest, BackwardKernelsCarryMindSporesOperands) {
  const Lowering l = TrainStep();
  const Kernel* rg = Find(l, "BNTrainingReduceGrad");
  ASSERT_NE(rg, nullptr);
  ASSERT_EQ(rg->inputs.size(), 7u);  // dy, x, diff_scale, diff_offset, scale, batch_mean, batch_variance
  for (size_t i = 2; i < 7; ++i) EXPECT_TRUE(IsChannel5hd(rg->inputs[i], 1));
  // Conv2DBackpropFilter(dout, input), on a 16 -> 32 channel convolution: dy has C1 = 2, x C1 = 1.
  LowerOptions o;
  o.train = true;
  o.precision_mode = "allow_mix_precision";
  auto widen = Lower(Load(ConvBnRelu(32, 16)), Ascend910(), o);
  ASSERT_TRUE(widen.ok()) << widen.status().message();
  const Kernel* dw = Find(*widen, "Conv2DBackpropFilter");
  ASSERT_NE(dw, nullptr);
  ASSERT_EQ(dw->inputs.size(), 2u);
  EXPECT_EQ(dw->inputs[0].shape, (std::vector<int64_t>{2, 2, 4, 4, 16}));
  EXPECT_EQ(dw->inputs[1].shape, (std::vector<int64_t>{2, 1, 4, 4, 16}));
  EXPECT_EQ(dw->outputs[0].format, "FracZ");
  // Conv2DBackpropInput(dout, filter): the filter is operand 1, in FRACTAL_Z.
  const Kernel* dx = Find(l, "FusionOp_Conv2DBackpropInput_AddN_ReluGradV2");
  ASSERT_NE(dx, nullptr);
  EXPECT_EQ(dx->inputs[0].format, "NC1HWC0");
  EXPECT_EQ(dx->inputs[1].format, "FracZ");
}

TEST(LowerInventoryTest, AtomicCleansZeroTheAccumulatedOutputsOnly) {
  const Lowering l = TrainStep();
  size_t at = 0;
  ASSERT_NE(Find(l, "FusionOp_Conv2D_BNTrainingReduce", &at), nullptr);
  ASSERT_GT(at, 0u);
  const Kernel& clean = l.kernels[at - 1].kernel;
  ASSERT_EQ(clean.op_type, "AtomicAddrClean");
  // The two BN sums, not the convolution's output.
  ASSERT_EQ(clean.inputs.size(), 2u);
  EXPECT_TRUE(IsChannel5hd(clean.inputs[0], 1) && IsChannel5hd(clean.inputs[1], 1));
}

TEST(LowerInventoryTest, BnUpdateGradAccumulatesAtomicallyOnlyWhenC1CannotFillTheCores) {
  LowerOptions o;
  o.train = true;
  o.precision_mode = "allow_mix_precision";
  for (const int64_t c : {int64_t{256}, int64_t{512}}) {  // C1 = 16 and 32 on 32 cores
    auto l = Lower(Load(ConvBnRelu(c, c)), Ascend910(), o);
    ASSERT_TRUE(l.ok()) << l.status().message();
    size_t at = 0;
    ASSERT_NE(Find(*l, "BNTrainingUpdateGrad", &at), nullptr);
    const bool cleaned = at > 0 && l->kernels[at - 1].kernel.op_type == "AtomicAddrClean";
    EXPECT_EQ(cleaned, c / 16 < Ascend910().compute.vector_cores.value) << c;
  }
}

TEST(LowerInventoryTest, MixedTrainingCastsEachConvolutionFilterOncePerStep) {
  const Lowering l = TrainStep();
  int filter_casts = 0;
  for (const auto& k : l.kernels) {
    if (k.kernel.op_type != "Cast") continue;
    if (k.kernel.inputs[0].format == "FracZ") {
      EXPECT_EQ(k.phase, Phase::kForward);
      ++filter_casts;
      EXPECT_EQ(k.kernel.inputs[0].dtype, "float32");
      EXPECT_EQ(k.kernel.outputs[0].dtype, "float16");
    }
  }
  EXPECT_EQ(filter_casts, 2);
  // force_fp16 casts them too; must_keep_origin_dtype runs the fp32 model as it is.
  EXPECT_EQ(TrainStep("must_keep_origin_dtype").casts, 0);
}

// x[2, 4, 8] -> MatMul(w 8x6) -> Add(bias) -> y[2, 4, 6]: a dense layer on a sequence.
ModelBuilder DenseOnSequence() {
  ModelBuilder b;
  b.Input("x", {2, 4, 8}).Output("y", {2, 4, 6});
  b.FloatInitializer("w", {8, 6}, Fill(48)).FloatInitializer("b", {6}, Fill(6));
  b.Node("MatMul", {"x", "w"}, {"m"}, "dense");
  b.Node("Add", {"m", "b"}, {"y"}, "bias");
  return b;
}

TEST(LowerInventoryTest, DenseLayersRunAsOneTwoDimensionalMatMul) {
  const auto ops = FlattenDenseMatMuls(FuseOps(Mapped(Load(DenseOnSequence()), true), {}, true));
  ASSERT_EQ(ops.size(), 1u);  // MatMul + bias
  EXPECT_EQ(ops[0].inputs[0].shape, (ir::Shape{8, 8}));
  EXPECT_EQ(ops[0].inputs[1].shape, (ir::Shape{8, 6}));
  EXPECT_EQ(ops[0].outputs[0].shape, (ir::Shape{8, 6}));
  // The weight gradient then sums over all 8 rows in one matmul: x^T [8 x 8] by dy [8 x 6].
  const auto train = AddTraining(ops, Optimizer::kMomentum, true);
  int dw = 0;
  for (const auto& op : train) {
    if (op.op_type == "MatMul" && op.phase == Phase::kBackward && op.outputs[0].shape == ir::Shape{8, 6}) {
      ++dw;
      EXPECT_EQ(op.inputs[0].shape, (ir::Shape{8, 8}));
      EXPECT_EQ(op.inputs[1].shape, (ir::Shape{8, 6}));
    }
  }
  EXPECT_EQ(dw, 1);
}

TEST(LowerInventoryTest, LossScaledGradientsAreUnscaledInTheirProducerOrByAMul) {
  LowerOptions o;
  o.train = true;
  o.precision_mode = "allow_mix_precision";
  o.optimizer = Optimizer::kLamb;
  auto l = Lower(Load(DenseOnSequence()), Ascend910(), o);
  ASSERT_TRUE(l.ok()) << l.status().message();
  const Kernel* dw = Find(*l, "FusionOp_MatMul_Mul");
  ASSERT_NE(dw, nullptr);  // the weight gradient's matmul takes the 1 / loss-scale product
  EXPECT_EQ(dw->inputs.size(), 3u);
  // ... and writes the gradient of the fp32 master weight in fp32, from the cube's fp32 sums
  // (the records' FusionOp_MatMul_Mul read typeid-shifted), with an fp32 scale.
  EXPECT_EQ(dw->outputs[0].dtype, "float32");
  EXPECT_EQ(dw->inputs[2].dtype, "float32");
  size_t at = 0;
  ASSERT_NE(Find(*l, "BiasAddGrad", &at), nullptr);
  int muls = 0;
  for (const auto& k : l->kernels) {
    // (The loss's own Mul, the softmax cross entropy's bprop, is no unscaling.)
    if (k.kernel.op_type != "Mul" || k.kernel.name == "loss") continue;
    ++muls;
    // The bias gradient, written by a vector kernel in fp16, is unscaled in fp32 after a Cast.
    EXPECT_EQ(k.kernel.inputs[0].dtype, "float32");
  }
  EXPECT_EQ(muls, 1);
  // Momentum folds the product into FusedMulApplyMomentum; fp32 training has no loss scale.
  o.optimizer = Optimizer::kMomentum;
  auto m = Lower(Load(DenseOnSequence()), Ascend910(), o);
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(Find(*m, "FusionOp_MatMul_Mul"), nullptr);
  for (const auto& k : m->kernels) EXPECT_TRUE(k.kernel.op_type != "Mul" || k.kernel.name == "loss");
  o.optimizer = Optimizer::kLamb;
  o.precision_mode = "must_keep_origin_dtype";
  auto fp32 = Lower(Load(DenseOnSequence()), Ascend910(), o);
  ASSERT_TRUE(fp32.ok());
  EXPECT_EQ(Find(*fp32, "FusionOp_MatMul_Mul"), nullptr);
}

TEST(LowerInventoryTest, MixedTrainingWritesFilterGradientsInFp32) {
  // From fp16 operands (the records' Conv2DBackpropFilter read typeid-shifted: NC1HWC0 float16
  // in, FracZ float32 out).
  int filters = 0;
  for (const auto& k : TrainStep().kernels) {
    if (k.kernel.op_type == "Conv2DBackpropFilter") {
      ++filters;
      EXPECT_EQ(k.kernel.inputs[0].dtype, "float16");
      EXPECT_EQ(k.kernel.inputs[1].dtype, "float16");
      EXPECT_EQ(k.kernel.outputs[0].format, "FracZ");
      EXPECT_EQ(k.kernel.outputs[0].dtype, "float32");
    }
  }
  EXPECT_GE(filters, 1);
  for (const auto& k : TrainStep("must_keep_origin_dtype").kernels) {
    if (k.kernel.op_type == "Conv2DBackpropFilter") EXPECT_EQ(k.kernel.outputs[0].dtype, "float32");
  }
}

TEST(LowerInventoryTest, TheHiddenStateStaysTwoDimensionalAroundDenseLayers) {
  const auto ops = FlattenDenseMatMuls(FuseOps(Mapped(Load(LayerNormThenDense()), false), {}, false));
  ASSERT_EQ(Types(ops), (std::vector<std::string>{"Add", "LayerNorm", "MatMul"}));
  // The LayerNorm and the Add before it, which share the dense layer's input, hold it as
  // [rows, features]; the [8, 32] position embedding keeps its shape.
  EXPECT_EQ(ops[1].inputs[0].shape, (ir::Shape{32, 32}));
  EXPECT_EQ(ops[1].outputs[0].shape, (ir::Shape{32, 32}));
  EXPECT_EQ(ops[0].inputs[0].shape, (ir::Shape{32, 32}));
  EXPECT_EQ(ops[0].inputs[1].shape, (ir::Shape{8, 32}));
  EXPECT_EQ(ops[0].outputs[0].shape, (ir::Shape{32, 32}));
  EXPECT_EQ(ops[1].inputs[1].shape, (ir::Shape{32}));  // gamma
}

TEST(LowerInventoryTest, LayerNormKeepsItsRowStatisticsForTheBackward) {
  const ModelBuilder b = LayerNormThenDense();
  LowerOptions o;
  o.train = true;
  o.precision_mode = "allow_mix_precision";
  o.optimizer = Optimizer::kLamb;
  auto l = Lower(Load(b), Ascend910(), o);
  ASSERT_TRUE(l.ok()) << l.status().message();
  const Kernel* fwd = Find(*l, "LayerNorm");
  ASSERT_NE(fwd, nullptr);
  ASSERT_EQ(fwd->outputs.size(), 3u);  // y, mean, variance
  EXPECT_EQ(fwd->outputs[1].shape, (std::vector<int64_t>{32, 1}));
  EXPECT_EQ(fwd->outputs[1].format, "ND");
  size_t xat = 0, gat = 0;
  const Kernel* dx = Find(*l, "LayerNormXBackpropV2", &xat);
  const Kernel* dg = Find(*l, "LayerNormBetaGammaBackpropV2", &gat);
  ASSERT_NE(dx, nullptr);
  ASSERT_NE(dg, nullptr);
  ASSERT_EQ(dx->inputs.size(), 5u);  // dy, x, variance, mean, gamma
  EXPECT_EQ(dx->inputs[2].shape, (std::vector<int64_t>{32, 1}));
  ASSERT_EQ(dx->outputs.size(), 2u);  // dx, res_for_gamma
  EXPECT_LT(xat, gat);                // the gamma / beta gradient reads res_for_gamma
  ASSERT_EQ(dg->inputs.size(), 2u);
  EXPECT_EQ(dg->inputs[1].shape, dx->outputs[1].shape);
  // The statistics stay ND without TransData; the data keeps the matmul's FRACTAL_NZ.
  for (const auto& k : l->kernels) {
    if (k.kernel.op_type == "TransData") EXPECT_NE(k.kernel.inputs[0].shape.back(), 1);
  }
}

TEST(LowerInventoryTest, TransposeThenReshapeIsOneConfusionTranspose) {
  // x[2, 4, 3, 16] -> Transpose(0, 2, 1, 3) -> Reshape [2, 3, 64] -> Relu: the attention context
  // merged back into the hidden state.
  ModelBuilder b;
  b.Input("x", {2, 4, 3, 16}).Output("y", {2, 3, 64});
  b.Node("Transpose", {"x"}, {"t"}, "context");
  auto* graph = b.proto().mutable_graph();
  auto* perm = graph->mutable_node(0)->add_attribute();
  perm->set_name("perm");
  perm->set_type(onnx::AttributeProto::INTS);
  for (int64_t d : {0, 2, 1, 3}) perm->add_ints(d);
  auto* shape = graph->add_initializer();
  shape->set_name("shape");
  shape->set_data_type(onnx::TensorProto::INT64);
  shape->add_dims(3);
  for (int64_t d : {2, 3, 64}) shape->add_int64_data(d);
  b.Node("Reshape", {"t", "shape"}, {"r"}, "merge");
  b.Node("Relu", {"r"}, {"y"}, "act");
  const auto t = Types(Mapped(Load(b), false));
  EXPECT_EQ(t, (std::vector<std::string>{"ConfusionTransposeD", "Relu"}));
}

}  // namespace
}  // namespace npugap::analysis::perf
