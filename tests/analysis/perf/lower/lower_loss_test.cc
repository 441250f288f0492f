// The loss of a training step (lower_loss.cc): MindSpore's SoftmaxCrossEntropyWithLogits chain on
// raw logits (the ResNet-50 records), and BertPretrainingLoss's hand-written cross entropy on a
// LogSoftmax output (the BERT-base records).
#include <gtest/gtest.h>

#include "lower_test_models.h"

namespace npugap::analysis::perf {
namespace {

using namespace lower_test;

// x [8, 32] -> dense [32, 24] (-> LogSoftmax when `log_probs`) -> y [8, 24]; `heads` such outputs.
ModelBuilder Classifier(bool log_probs, int heads = 1) {
  ModelBuilder b(17);
  b.Input("x", {8, 32});
  for (int h = 0; h < heads; ++h) {
    const std::string n = std::to_string(h), y = "y" + n;
    b.Output(y, {8, 24});
    b.FloatInitializer("w" + n, {32, 24}, Fill(32 * 24));
    b.Node("MatMul", {"x", "w" + n}, {log_probs ? "m" + n : y}, "dense" + n);
    if (log_probs) b.Node("LogSoftmax", {"m" + n}, {y}, "log_softmax" + n);
  }
  return b;
}

std::vector<LoweredKernel> LossKernels(const ModelBuilder& b, bool eltwise_fusion = true) {
  LowerOptions o;
  o.train = true;
  o.precision_mode = "allow_mix_precision";
  o.optimizer = Optimizer::kLamb;
  if (!eltwise_fusion) o.fusion.passes["TbeEltwiseFusionPass"] = false;
  auto l = Lower(Load(b), Ascend910(), o);
  EXPECT_TRUE(l.ok()) << l.status().message();
  std::vector<LoweredKernel> out;
  if (!l.ok()) return out;
  for (const LoweredKernel& k : l->kernels) {
    if (k.kernel.name == "loss" || k.kernel.op_type.find("LogSoftmax") == 0) out.push_back(k);
  }
  return out;
}

std::vector<std::string> Types(const std::vector<LoweredKernel>& ks) {
  std::vector<std::string> out;
  for (const LoweredKernel& k : ks) out.push_back(k.kernel.op_type);
  return out;
}

TEST(LowerLossTest, RawLogitsTakeSoftmaxCrossEntropyWithLogitsInNdAndItsBprop) {
  const auto ks = LossKernels(Classifier(false));
  EXPECT_EQ(Types(ks), (std::vector<std::string>{"OneHot", "SoftmaxCrossEntropyWithLogits", "ReduceMean",
                                                 "Tile", "RealDiv", "Mul"}));
  ASSERT_EQ(ks.size(), 6u);
  // TBE's kernel takes 2-D ND features and labels; it writes the per-row loss and the backprop.
  const Kernel& sce = ks[1].kernel;
  for (const Operand& o : sce.inputs) EXPECT_EQ(o.format, "ND");
  EXPECT_EQ(sce.inputs[0].shape, (std::vector<int64_t>{8, 24}));
  ASSERT_EQ(sce.outputs.size(), 2u);
  EXPECT_EQ(sce.outputs[0].shape, (std::vector<int64_t>{8}));
  // The bprop: the kernel's backprop times the row gradient [8, 1], in fp32.
  const Kernel& mul = ks[5].kernel;
  EXPECT_EQ(mul.inputs[1].shape, (std::vector<int64_t>{8, 1}));
  EXPECT_EQ(mul.outputs[0].dtype, "float32");
  EXPECT_EQ(ks[5].phase, Phase::kBackward);
}

TEST(LowerLossTest, LogSoftmaxOutputTakesTheHandWrittenCrossEntropyOfMindSporeBert) {
  const auto ks = LossKernels(Classifier(true));
  EXPECT_EQ(Types(ks),
            (std::vector<std::string>{"LogSoftmax", "OneHot", "Mul", "ReduceSum", "Neg", "ReduceMean", "Tile",
                                      "FusionOp_RealDiv_Neg", "Tile", "Mul", "LogSoftmaxGrad"}));
  ASSERT_EQ(ks.size(), 11u);
  for (const LoweredKernel& k : ks) {
    EXPECT_NE(k.kernel.op_type, "SoftmaxCrossEntropyWithLogits");
    for (const Operand& o : k.kernel.inputs) EXPECT_EQ(o.format, "ND") << k.kernel.op_type;
  }
  // ReduceSum's bprop tiles the row gradient over the 24 classes.
  EXPECT_EQ(ks[8].kernel.inputs[0].shape, (std::vector<int64_t>{8, 1}));
  EXPECT_EQ(ks[8].kernel.outputs[0].shape, (std::vector<int64_t>{8, 24}));
  // LogSoftmaxGrad(y, dy): the forward output and the loss's gradient, both full size, fp32.
  const Kernel& grad = ks[10].kernel;
  ASSERT_EQ(grad.inputs.size(), 2u);
  for (const Operand& o : grad.inputs) {
    EXPECT_EQ(o.shape, (std::vector<int64_t>{8, 24}));
    EXPECT_EQ(o.dtype, "float32");
  }
}

TEST(LowerLossTest, WithoutEltwiseFusionTheMeanBpropIsRealDivThenNeg) {
  const auto ks = LossKernels(Classifier(true), /*eltwise_fusion=*/false);
  const auto t = Types(ks);
  EXPECT_EQ(std::count(t.begin(), t.end(), "FusionOp_RealDiv_Neg"), 0);
  EXPECT_EQ(std::count(t.begin(), t.end(), "RealDiv"), 1);
  EXPECT_EQ(std::count(t.begin(), t.end(), "Neg"), 2);
}

TEST(LowerLossTest, TwoHeadsAddTheirLossesAfterBothForwards) {
  const auto ks = LossKernels(Classifier(true, 2));
  const auto t = Types(ks);
  ASSERT_EQ(std::count(t.begin(), t.end(), "Add"), 1);
  const size_t add = static_cast<size_t>(std::find(t.begin(), t.end(), "Add") - t.begin());
  // Both ReduceMeans come before the Add, every Tile (a bprop) after it.
  size_t means = 0;
  for (size_t i = 0; i < t.size(); ++i) {
    if (t[i] == "ReduceMean") {
      EXPECT_LT(i, add);
      ++means;
    }
    if (t[i] == "Tile") EXPECT_GT(i, add);
  }
  EXPECT_EQ(means, 2u);
  EXPECT_EQ(ks[add].phase, Phase::kForward);
}

TEST(LowerLossTest, MixedPrecisionChecksTheFloatStatusAsTheLossScaleCellDoes) {
  LowerOptions o;
  o.train = true;
  o.precision_mode = "allow_mix_precision";
  auto l = Lower(Load(Classifier(false)), Ascend910(), o);
  ASSERT_TRUE(l.ok()) << l.status().message();
  std::vector<LoweredKernel> check;
  for (const LoweredKernel& k : l->kernels) {
    if (k.kernel.name == "loss_scale") check.push_back(k);
  }
  EXPECT_EQ(Types(check), (std::vector<std::string>{"NPUAllocFloatStatus", "NPUGetFloatStatus",
                                                    "NPUClearFloatStatus", "ReduceSum", "LessEqual"}));
  ASSERT_EQ(check.size(), 5u);
  // The 8 fp32 flags summed to one value, compared with 1.
  EXPECT_EQ(check[3].kernel.inputs[0].shape, (std::vector<int64_t>{8}));
  EXPECT_EQ(check[3].kernel.inputs[0].dtype, "float32");
  EXPECT_TRUE(check[3].kernel.outputs[0].shape.empty());
  // fp32 training has no loss scale, so no check.
  o.precision_mode = "must_keep_origin_dtype";
  auto fp32 = Lower(Load(Classifier(false)), Ascend910(), o);
  ASSERT_TRUE(fp32.ok());
  for (const LoweredKernel& k : fp32->kernels) EXPECT_NE(k.kernel.name, "loss_scale");
}

}  // namespace
}  // namespace npugap::analysis::perf
