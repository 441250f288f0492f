// uniform_<fmt>'s PyTorch kernel variants (data/precision/vector_kernels.json "uniform_kernels"):
// which nodes the plan marks, and what the marked kernels compute. Every expected number below
// was checked against PyTorch 1.13 on the CPU (bf16 tensors; see each test).
#include <cmath>
#include <random>
#include <set>

#include <oneapi/dnnl/dnnl.hpp>

#include "../../../src/analysis/precision/internal.h"
#include "npugap/analysis/precision/emulate.h"
#include "npugap/exec/emulation_op.h"
#include "npugap/exec/executor.h"
#include "precision_test_util.h"

namespace npugap::analysis::precision {
namespace {

using numerics::Format;
using testing::EmulatedFirstValue;
using testing::Of;
using testing::Plan;

ir::Tensor Floats(ir::Shape shape, std::vector<float> v) {
  return ir::Tensor::FromVector<float>(std::move(shape), v);
}

// The first output element of `m` under uniform_bf16, with the PyTorch kernel variants or with
// every node's variant reset to kPlain (one fp32 computation, one rounding).
float EmulateOne(const ir::Model& m, const ir::Tensor& x, bool variants = true) {
  PrecisionPlan p = Plan(m, "ascend910b2", "uniform_bf16");
  if (!variants) {
    for (NodeNumerics& n : p.nodes) n.kernel = KernelVariant::kPlain;
  }
  return EmulatedFirstValue(m, p, x);
}

// x[1,2,1,1] -> Conv -> BatchNormalization -> Relu -> GlobalAveragePool -> ReduceMean -> y.
ir::Model ConvBnGapModel() {
  npugap::testing::ModelBuilder b;
  b.Input("x", {1, 2, 1, 1}).Output("y", {1, 1, 1, 1});
  b.FloatInitializer("W", {1, 2, 1, 1}, {1.f, 1.f});
  for (const char* p : {"s", "b", "m", "v"}) b.FloatInitializer(p, {1}, {1.f});
  b.Node("Conv", {"x", "W"}, {"c"}, "conv")
      .Node("BatchNormalization", {"c", "s", "b", "m", "v"}, {"bn"}, "bn")
      .Node("Relu", {"bn"}, {"r"}, "relu")
      .Node("GlobalAveragePool", {"r"}, {"g"}, "gap")
      .Node("ReduceMean", {"g"}, {"y"}, "mean");
  npugap::testing::IntsAttr(npugap::testing::LastNode(b), "axes", {1});
  return npugap::testing::Import(b);
}

// Every entry of vector_kernels.json "uniform_kernels" loads, names a format, and carries its
// measurement as the source with one of the project's confidence tags.
TEST(UniformKernelsTest, DataEntriesCarrySourceAndConfidence) {
  auto kernels = internal::BuiltinUniformKernels();
  ASSERT_TRUE(kernels.ok()) << kernels.status().message();
  ASSERT_FALSE(kernels->empty());
  const std::set<std::string> tags = {"official", "third-party", "measured", "derived", "assumed", "config"};
  for (const internal::UniformKernel& k : *kernels) {
    EXPECT_NE(k.variant, KernelVariant::kPlain) << k.onnx;
    EXPECT_FALSE(k.formats.empty()) << k.onnx;
    EXPECT_GT(k.source.size(), 20u) << k.onnx;
    EXPECT_TRUE(tags.count(k.confidence)) << k.onnx << ": " << k.confidence;
  }
}

TEST(UniformKernelsTest, Bf16MarksConvBatchNormAndMeansOthersStayPlain) {
  const ir::Model m = ConvBnGapModel();
  const PrecisionPlan p = Plan(m, "ascend910b2", "uniform_bf16");
  EXPECT_EQ(Of(m, p, "conv").kernel, KernelVariant::kOneDnnBf16);
  EXPECT_EQ(Of(m, p, "bn").kernel, KernelVariant::kBatchNormFma);
  EXPECT_EQ(Of(m, p, "relu").kernel, KernelVariant::kPlain);
  EXPECT_EQ(Of(m, p, "gap").kernel, KernelVariant::kMeanRoundsSum);
  EXPECT_EQ(Of(m, p, "mean").kernel, KernelVariant::kMeanRoundsSum);
  EXPECT_NE(Of(m, p, "conv").reason.find("oneDNN"), std::string::npos) << Of(m, p, "conv").reason;
}

TEST(UniformKernelsTest, Fp16MarksOnlyTheMeansAndAscendModesNothing) {
  const ir::Model m = ConvBnGapModel();
  const PrecisionPlan fp16 = Plan(m, "ascend910b2", "uniform_fp16");
  EXPECT_EQ(Of(m, fp16, "conv").kernel, KernelVariant::kPlain);  // measured in bf16 only
  EXPECT_EQ(Of(m, fp16, "bn").kernel, KernelVariant::kPlain);
  EXPECT_EQ(Of(m, fp16, "gap").kernel, KernelVariant::kMeanRoundsSum);
  // The Ascend modes model the NPU, not PyTorch.
  for (const char* mode :
       {"force_fp16", "allow_mix_precision_bf16", "must_keep_origin_dtype", "mixed_bfloat16"}) {
    const PrecisionPlan p = Plan(m, "ascend910b2", mode);
    for (const NodeNumerics& n : p.nodes) EXPECT_EQ(n.kernel, KernelVariant::kPlain) << mode;
  }
}

// sum(0.6015625, 0.06201171875, 1.734375) = 2.39794921875, bf16 2.390625; / 3 = 0.796875, which
// is what torch.tensor(v, dtype=bfloat16).mean() and adaptive_avg_pool2d(x, 1) return. One
// rounding of the mean would give 0.80078125.
ir::Model MeanModel(const std::string& op) {
  npugap::testing::ModelBuilder b;
  b.Input("x", {1, 1, 1, 3}).Output("y", {1, 1, 1, 1});
  b.Node(op, {"x"}, {"y"}, "mean");
  if (op == "ReduceMean") npugap::testing::IntsAttr(npugap::testing::LastNode(b), "axes", {2, 3});
  return npugap::testing::Import(b);
}

TEST(UniformKernelsTest, MeanRoundsTheSumBeforeDividingAsPyTorch) {
  const ir::Tensor x = Floats({1, 1, 1, 3}, {0.6015625f, 0.06201171875f, 1.734375f});
  for (const char* op : {"GlobalAveragePool", "ReduceMean"}) {
    const ir::Model m = MeanModel(op);
    EXPECT_EQ(EmulateOne(m, x), 0.796875f) << op;
    EXPECT_EQ(EmulateOne(m, x, /*variants=*/false), 0.80078125f) << op;
  }
}

// BatchNorm with x = -1.421875, mean = -1.9296875, var = 1.859375, scale = -0.1416015625,
// B = 0.052734375 (all bf16): PyTorch's F.batch_norm in bf16 gives 8.642673492431641e-07 =
// bf16(fma(x, alpha, fma(-mean, alpha, B))), alpha = scale * (1 / sqrtf(var + 1e-5)); the ONNX
// formula (x - mean) * (scale / sqrt(var + eps)) + B rounded once gives 8.530914783477783e-07.
TEST(UniformKernelsTest, BatchNormIsPyTorchsScaleAndShiftWithFmas) {
  npugap::testing::ModelBuilder b;
  b.Input("x", {1, 1, 1, 1}).Output("y", {1, 1, 1, 1});
  b.FloatInitializer("s", {1}, {-0.1416015625f}).FloatInitializer("b", {1}, {0.052734375f});
  b.FloatInitializer("m", {1}, {-1.9296875f}).FloatInitializer("v", {1}, {1.859375f});
  b.Node("BatchNormalization", {"x", "s", "b", "m", "v"}, {"y"}, "bn");
  const ir::Model m = npugap::testing::Import(b);
  const ir::Tensor x = Floats({1, 1, 1, 1}, {-1.421875f});
  EXPECT_EQ(EmulateOne(m, x), 8.642673492431641e-07f);
  EXPECT_EQ(EmulateOne(m, x, /*variants=*/false), 8.530914783477783e-07f);
}

// Training-mode BatchNorm normalizes with the batch statistics, which the fma variant does not
// model (it was measured on inference): the plan leaves it plain, so its reason line does not
// claim the fma form the kernel would not run.
TEST(UniformKernelsTest, TrainingModeBatchNormStaysPlain) {
  npugap::testing::ModelBuilder b(15);
  b.Input("x", {2, 1, 1, 1}).Output("y", {2, 1, 1, 1});
  for (const char* p : {"s", "b", "m", "v"}) b.FloatInitializer(p, {1}, {1.f});
  b.Node("BatchNormalization", {"x", "s", "b", "m", "v"}, {"y"}, "bn");
  auto* t = npugap::testing::LastNode(b)->add_attribute();
  t->set_name("training_mode");
  t->set_type(onnx::AttributeProto::INT);
  t->set_i(1);
  const ir::Model m = npugap::testing::Import(b);
  const NodeNumerics bn = Of(m, Plan(m, "ascend910b2", "uniform_bf16"), "bn");
  EXPECT_EQ(bn.kernel, KernelVariant::kPlain);
  EXPECT_EQ(bn.reason.find("fma"), std::string::npos) << bn.reason;
}

// x * Sigmoid(x) (torch.onnx's torch.nn.SiLU) at x = -3.375: PyTorch's bf16 F.silu gives
// -0.111328125 = bf16(x / bf16(1 + bf16(exp(-x)))); the graph taken literally,
// bf16(x * bf16(sigmoid(x))), gives -0.1123046875. With the Sigmoid feeding a second node the
// pattern is not SiLU and stays literal.
ir::Model SiluModel(bool sigmoid_also_output) {
  npugap::testing::ModelBuilder b;
  b.Input("x", {1, 1}).Output("y", {1, 1});
  if (sigmoid_also_output) b.Output("s", {1, 1});
  b.Node("Sigmoid", {"x"}, {"s"}, "sigmoid").Node("Mul", {"s", "x"}, {"y"}, "mul");
  return npugap::testing::Import(b);
}

TEST(UniformKernelsTest, MulOfSigmoidIsPyTorchsSiluChain) {
  const ir::Model m = SiluModel(false);
  EXPECT_EQ(Of(m, Plan(m, "ascend910b2", "uniform_bf16"), "mul").kernel, KernelVariant::kSiluChain);
  EXPECT_EQ(Of(m, Plan(m, "ascend910b2", "uniform_fp16"), "mul").kernel, KernelVariant::kPlain);
  const ir::Tensor x = Floats({1, 1}, {-3.375f});
  EXPECT_EQ(EmulateOne(m, x), -0.111328125f);
  EXPECT_EQ(EmulateOne(m, x, /*variants=*/false), -0.1123046875f);
  const ir::Model shared = SiluModel(true);
  EXPECT_EQ(Of(shared, Plan(shared, "ascend910b2", "uniform_bf16"), "mul").kernel, KernelVariant::kPlain);
  // The Ascend modes run the exported pair as the NPU would, never PyTorch's silu.
  for (const char* mode :
       {"force_fp16", "allow_mix_precision_bf16", "must_keep_origin_dtype", "mixed_bfloat16"})
    EXPECT_EQ(Of(m, Plan(m, "ascend910b2", mode), "mul").kernel, KernelVariant::kPlain) << mode;
}

// The pattern is only SiLU where the Mul's other input is the Sigmoid's own input, in either
// order, and the Sigmoid feeds that Mul alone: Mul(x, Sigmoid(z)) and a Sigmoid that also feeds an
// Add stay literal (one rounding each), and Mul(x, Sigmoid(x)) with x first is the chain again.
TEST(UniformKernelsTest, SiluPatternNeedsTheSigmoidsOwnInputAndNoOtherConsumer) {
  {
    npugap::testing::ModelBuilder b;
    b.Input("x", {1, 1}).Input("z", {1, 1}).Output("y", {1, 1});
    b.Node("Sigmoid", {"z"}, {"s"}, "sigmoid").Node("Mul", {"x", "s"}, {"y"}, "mul");
    const ir::Model m = npugap::testing::Import(b);
    EXPECT_EQ(Of(m, Plan(m, "ascend910b2", "uniform_bf16"), "mul").kernel, KernelVariant::kPlain);
  }
  {
    npugap::testing::ModelBuilder b;
    b.Input("x", {1, 1}).Output("y", {1, 1}).Output("t", {1, 1});
    b.Node("Sigmoid", {"x"}, {"s"}, "sigmoid")
        .Node("Mul", {"x", "s"}, {"y"}, "mul")
        .Node("Add", {"s", "x"}, {"t"}, "add");
    const ir::Model m = npugap::testing::Import(b);
    EXPECT_EQ(Of(m, Plan(m, "ascend910b2", "uniform_bf16"), "mul").kernel, KernelVariant::kPlain);
  }
  npugap::testing::ModelBuilder b;
  b.Input("x", {1, 1}).Output("y", {1, 1});
  b.Node("Sigmoid", {"x"}, {"s"}, "sigmoid").Node("Mul", {"x", "s"}, {"y"}, "mul");
  const ir::Model m = npugap::testing::Import(b);
  EXPECT_EQ(Of(m, Plan(m, "ascend910b2", "uniform_bf16"), "mul").kernel, KernelVariant::kSiluChain);
  EXPECT_EQ(EmulateOne(m, Floats({1, 1}, {-3.375f})), -0.111328125f);
}

// A plan that marks a Mul as SiLU when the graph has no Sigmoid of its other input (a plan edited
// by hand, or built for another model with the same node names) is refused with the node's name.
TEST(UniformKernelsTest, SiluChainOnAMulWithoutSigmoidIsAnError) {
  npugap::testing::ModelBuilder b;
  b.Input("x", {1, 1}).Input("z", {1, 1}).Output("y", {1, 1});
  b.Node("Mul", {"x", "z"}, {"y"}, "mul");
  const ir::Model m = npugap::testing::Import(b);
  PrecisionPlan p = Plan(m, "ascend910b2", "uniform_bf16");
  ASSERT_EQ(p.nodes.size(), 1u);
  p.nodes[0].kernel = KernelVariant::kSiluChain;
  auto r = EmulatedRunner::Create(m, p, {1, true});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("'mul' is not Mul(x, Sigmoid(x))"), std::string::npos)
      << r.status().message();
}

// The Conv kernel under kOneDnnBf16Attr rounds its fp32 accumulator, bias included, to bf16 once:
// 1 + 2^-8 + 2^-9 (bias) = 1.005859375 -> 1.0078125. Without the attribute it stays fp32.
TEST(UniformKernelsTest, OneDnnBf16ConvRoundsAccumulatorAndBiasOnce) {
  // oneDNN has bf16 primitives from AVX-512 on (the ISA values are bit sets); below that the
  // kernel falls back to fp32 (ctest uniform_bf16_cli checks that path).
  const auto isa = static_cast<int>(dnnl::get_effective_cpu_isa());
  if ((isa & dnnl_cpu_isa_avx512_core) != dnnl_cpu_isa_avx512_core)
    GTEST_SKIP() << "no oneDNN bf16 on this CPU";
  npugap::testing::ModelBuilder b;
  b.Input("x", {1, 2, 1, 1}).Output("y", {1, 1, 1, 1});
  b.FloatInitializer("W", {1, 2, 1, 1}, {1.f, 1.f}).FloatInitializer("B", {1}, {std::ldexp(1.f, -9)});
  b.Node("Conv", {"x", "W", "B"}, {"y"}, "conv");
  ir::Model m = npugap::testing::Import(b);
  const ir::Tensor x = Floats({1, 2, 1, 1}, {1.f, std::ldexp(1.f, -8)});
  auto plain = exec::Executor::Create(m, {1, false});
  ASSERT_TRUE(plain.ok());
  auto y = plain->Run({x});
  ASSERT_TRUE(y.ok()) << y.status().message();
  EXPECT_EQ((*y)[0].data<float>()[0], 1.005859375f);
  ir::Attribute on;
  on.kind = ir::Attribute::Kind::kInt;
  on.i = 1;
  m.graph.nodes[0].attributes[exec::kOneDnnBf16Attr] = on;
  auto bf16 = exec::Executor::Create(m, {1, false});
  ASSERT_TRUE(bf16.ok());
  y = bf16->Run({x});
  ASSERT_TRUE(y.ok()) << y.status().message();
  EXPECT_EQ((*y)[0].data<float>()[0], 1.0078125f);
}

// The policy is defined on the Conv as written: an executor that fuses the marked Conv with its
// Relu refuses it with a one-line error naming the node, rather than running something else.
TEST(UniformKernelsTest, OneDnnBf16ConvRefusesAFusedConv) {
  npugap::testing::ModelBuilder b;
  b.Input("x", {1, 16, 8, 8}).Output("y", {1, 16, 8, 8});
  b.FloatInitializer("W", {16, 16, 1, 1}, std::vector<float>(256, 0.5f));
  b.Node("Conv", {"x", "W"}, {"c"}, "stem_conv").Node("Relu", {"c"}, {"y"}, "relu");
  ir::Model m = npugap::testing::Import(b);
  ir::Attribute on;
  on.kind = ir::Attribute::Kind::kInt;
  on.i = 1;
  m.graph.nodes[0].attributes[exec::kOneDnnBf16Attr] = on;
  auto fused = exec::Executor::Create(m, {1, true});
  ASSERT_TRUE(fused.ok()) << fused.status().message();
  auto y = fused->Run({Floats({1, 16, 8, 8}, std::vector<float>(1024, 1.f))});
  ASSERT_FALSE(y.ok());
  EXPECT_NE(y.status().message().find("stem_conv"), std::string::npos) << y.status().message();
  EXPECT_NE(y.status().message().find("the oneDNN bf16 policy takes an unfused Conv"), std::string::npos)
      << y.status().message();
}

// A 3x3 convolution of bf16 values (16 -> 16 channels, K = 144) and a depthwise one, through the
// oneDNN bf16 path and through fp32 rounded afterwards: every output is a bf16 value within one
// bf16 step of the other path, and the two differ only in summation order (a few outputs).
TEST(UniformKernelsTest, OneDnnBf16ConvAgreesWithFp32RoundedUpToSummationOrder) {
  for (const int64_t group : {int64_t{1}, int64_t{16}}) {
    npugap::testing::ModelBuilder b;
    b.Input("x", {2, 16, 8, 8}).Output("y", {2, 16, 8, 8});
    std::mt19937 rng(7);
    std::normal_distribution<float> d(0.f, 1.f);
    std::vector<float> w(static_cast<size_t>(16 * (16 / group) * 9)), x(2 * 16 * 64);
    for (float& v : w) v = d(rng);
    for (float& v : x) v = d(rng);
    numerics::RoundArray(Format::kBF16, w);
    numerics::RoundArray(Format::kBF16, x);
    b.FloatInitializer("W", {16, 16 / group, 3, 3}, w).Node("Conv", {"x", "W"}, {"y"}, "conv");
    auto* n = npugap::testing::LastNode(b);
    npugap::testing::IntsAttr(n, "pads", {1, 1, 1, 1});
    auto* g = n->add_attribute();
    g->set_name("group");
    g->set_type(onnx::AttributeProto::INT);
    g->set_i(group);
    const ir::Model m = npugap::testing::Import(b);
    const PrecisionPlan p = Plan(m, "ascend910b2", "uniform_bf16");
    PrecisionPlan plain = p;
    plain.nodes[0].kernel = KernelVariant::kPlain;
    auto run = [&](const PrecisionPlan& plan) {
      auto r = EmulatedRunner::Create(m, plan, {1, false});
      EXPECT_TRUE(r.ok());
      auto out = r->Run({Floats({2, 16, 8, 8}, x)});
      EXPECT_TRUE(out.ok());
      return std::vector<float>(out->at(0).data<float>(), out->at(0).data<float>() + out->at(0).numel());
    };
    const std::vector<float> got = run(p), ref = run(plain);
    ASSERT_EQ(got.size(), ref.size());
    int differ = 0;
    for (size_t i = 0; i < got.size(); ++i) {
      EXPECT_EQ(numerics::RoundScalar(Format::kBF16, got[i], {}), got[i]);
      // one bf16 step: 2^-7 of the magnitude
      EXPECT_LE(std::abs(got[i] - ref[i]), std::abs(ref[i]) * std::ldexp(1.f, -7)) << i;
      differ += got[i] != ref[i];
    }
    EXPECT_LT(differ, static_cast<int>(got.size()) / 50) << "group " << group;
  }
}

}  // namespace
}  // namespace npugap::analysis::precision
