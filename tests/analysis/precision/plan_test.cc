// The numerics plan: per-node formats for each precision mode on the target profiles, the
// mixed-precision lists, and the user overrides in ATC's formats.
#include <filesystem>
#include <fstream>

#include "precision_test_util.h"

namespace npugap::analysis::precision {
namespace {

using numerics::Format;
using testing::ConvModel;
using testing::MlpModel;
using testing::Of;
using testing::Plan;

std::string WriteFile(const std::string& name, const std::string& text) {
  const auto path = std::filesystem::temp_directory_path() / ("npugap_plan_test_" + name);
  std::ofstream(path) << text;
  return path.string();
}

TEST(PrecisionPlanTest, ForceFp16PutsEveryFloatOpInFp16) {
  const ir::Model m = MlpModel();
  const PrecisionPlan p = Plan(m, "ascend910b2", "force_fp16");
  const NodeNumerics mm = Of(m, p, "n_mm");
  EXPECT_EQ(mm.unit, Unit::kCube);
  EXPECT_EQ(mm.input, Format::kFP16);
  EXPECT_EQ(mm.compute, Format::kFP32);  // fp32 accumulation in L0C
  EXPECT_EQ(mm.output, Format::kFP16);
  const NodeNumerics relu = Of(m, p, "n_relu");
  EXPECT_EQ(relu.unit, Unit::kVector);
  EXPECT_EQ(relu.input, Format::kFP16);
  EXPECT_EQ(relu.output, Format::kFP16);
  EXPECT_EQ(Of(m, p, "n_softmax").compute, Format::kFP32);  // data: softmax sums in fp32
  const NodeNumerics reshape = Of(m, p, "n_reshape");
  EXPECT_EQ(reshape.unit, Unit::kNone);
  EXPECT_EQ(reshape.output, Format::kFP16);  // passes its fp16 input through
  // One Cast: the fp32 graph input into the fp16 MatMul; weights are converted offline.
  ASSERT_EQ(p.casts.size(), 1u);
  EXPECT_EQ(p.casts[0].value, "x");
  EXPECT_EQ(p.casts[0].consumer, "n_mm");
  EXPECT_EQ(p.casts[0].to, Format::kFP16);
  EXPECT_EQ(p.rounding.overflow, numerics::Overflow::kIeee);  // 910B: INF/NaN mode
}

TEST(PrecisionPlanTest, SaturationIsTheDefaultOn910And310P) {
  const ir::Model m = MlpModel();
  EXPECT_EQ(Plan(m, "ascend910", "force_fp16").rounding.overflow, numerics::Overflow::kSaturation);
  EXPECT_EQ(Plan(m, "ascend310p3", "force_fp16").rounding.overflow, numerics::Overflow::kSaturation);
  PrecisionOptions o;
  o.mode = "force_fp16";
  o.overflow = numerics::Overflow::kIeee;
  EXPECT_EQ(Plan(m, "ascend910", o).rounding.overflow, numerics::Overflow::kIeee);
  // uniform_* reproduces PyTorch's IEEE semantics whatever the target.
  EXPECT_EQ(Plan(m, "ascend910", "uniform_bf16").rounding.overflow, numerics::Overflow::kIeee);
}

TEST(PrecisionPlanTest, EmptyModeIsTheFrameworkDefault) {
  const ir::Model m = MlpModel();
  EXPECT_EQ(Plan(m, "ascend910b2", "").mode, "must_keep_origin_dtype");
  EXPECT_EQ(Plan(m, "ascend910", "").mode, "allow_fp32_to_fp16");
}

TEST(PrecisionPlanTest, Hf32OnConvOnlyByDefault) {
  const ir::Model conv = ConvModel();
  const ir::Model mlp = MlpModel();
  EXPECT_EQ(Of(conv, Plan(conv, "ascend910b2", "must_keep_origin_dtype"), "n_conv").input, Format::kHF32);
  EXPECT_EQ(Of(mlp, Plan(mlp, "ascend910b2", "must_keep_origin_dtype"), "n_mm").input, Format::kFP32);
  PrecisionOptions o;
  o.mode = "origin";
  o.allow_hf32_conv = false;
  o.allow_hf32_matmul = true;
  EXPECT_EQ(Of(conv, Plan(conv, "ascend910b2", o), "n_conv").input, Format::kFP32);
  EXPECT_EQ(Of(mlp, Plan(mlp, "ascend910b2", o), "n_mm").input, Format::kHF32);
  // No HF32 on the 910 (and its cube takes no fp32: an fp32 conv goes to AI CPU).
  const NodeNumerics on910 = Of(conv, Plan(conv, "ascend910", "must_keep_origin_dtype"), "n_conv");
  EXPECT_EQ(on910.unit, Unit::kAiCpu);
  EXPECT_EQ(on910.input, Format::kFP32);
}

TEST(PrecisionPlanTest, ForceFp32IsCubeFp16InFp32Out) {
  const ir::Model m = MlpModel();
  for (const char* mode : {"force_fp32", "cube_fp16in_fp32out"}) {
    const PrecisionPlan p = Plan(m, "ascend910b2", mode);
    const NodeNumerics mm = Of(m, p, "n_mm");
    EXPECT_EQ(mm.input, Format::kFP16) << mode;
    EXPECT_EQ(mm.output, Format::kFP32) << mode;
    EXPECT_EQ(Of(m, p, "n_relu").input, Format::kFP32) << mode;
  }
}

TEST(PrecisionPlanTest, AllowFp32ToFp16LowersCubeOnlyAndCastsBack) {
  const ir::Model m = MlpModel();
  const PrecisionPlan p = Plan(m, "ascend910", "allow_fp32_to_fp16");
  EXPECT_EQ(Of(m, p, "n_mm").output, Format::kFP16);
  EXPECT_EQ(Of(m, p, "n_relu").input, Format::kFP32);
  // x -> fp16 into the MatMul, mm fp16 -> fp32 into the Relu.
  ASSERT_EQ(p.casts.size(), 2u);
  EXPECT_EQ(p.casts[1].value, "mm");
  EXPECT_EQ(p.casts[1].from, Format::kFP16);
  EXPECT_EQ(p.casts[1].to, Format::kFP32);
}

TEST(PrecisionPlanTest, MixedListsWhiteBlackGray) {
  const ir::Model m = MlpModel();
  const PrecisionPlan p = Plan(m, "ascend910b2", "mixed_float16");
  EXPECT_EQ(Of(m, p, "n_mm").decision, Decision::kWhiteList);
  EXPECT_EQ(Of(m, p, "n_mm").output, Format::kFP16);
  EXPECT_EQ(Of(m, p, "n_softmax").decision, Decision::kBlackList);
  EXPECT_EQ(Of(m, p, "n_softmax").output, Format::kFP32);
  // Add reads the black-list softmax (fp32) first: the gray rule takes the first reduced input.
  const NodeNumerics add = Of(m, p, "n_add");
  EXPECT_EQ(add.decision, Decision::kGrayList);
  EXPECT_EQ(add.output, Format::kFP16);
  const PrecisionPlan bf = Plan(m, "ascend910b2", "mixed_bfloat16");
  EXPECT_EQ(Of(m, bf, "n_mm").input, Format::kBF16);
}

TEST(PrecisionPlanTest, KeepDtypeLinesByNameAndOpType) {
  const ir::Model m = MlpModel();
  PrecisionOptions o;
  o.mode = "force_fp16";
  o.keep_dtype_file = WriteFile("keep.cfg", "n_mm\nOpType::SoftmaxV2\nno_such_node\nOpType::NoSuchOp\n\n");
  const PrecisionPlan p = Plan(m, "ascend910b2", o);
  EXPECT_EQ(Of(m, p, "n_mm").decision, Decision::kKeepDtype);
  EXPECT_EQ(Of(m, p, "n_mm").output, Format::kFP32);
  EXPECT_EQ(Of(m, p, "n_softmax").decision, Decision::kKeepDtype);  // Ascend IR name SoftmaxV2
  EXPECT_EQ(Of(m, p, "n_relu").output, Format::kFP16);
  ASSERT_EQ(p.warnings.size(), 2u);
  EXPECT_NE(p.warnings[0].find(":3: 'no_such_node'"), std::string::npos) << p.warnings[0];
  EXPECT_NE(p.warnings[1].find(":4: 'OpType::NoSuchOp'"), std::string::npos) << p.warnings[1];
  // On a 910 (cube without fp32) a kept MatMul is fp16 in, fp32 out.
  const NodeNumerics on910 = Of(m, Plan(m, "ascend910", o), "n_mm");
  EXPECT_EQ(on910.input, Format::kFP16);
  EXPECT_EQ(on910.output, Format::kFP32);
  o.keep_dtype_file = "/nonexistent/keep.cfg";
  EXPECT_FALSE(BuildPrecisionPlan(m, testing::Target("ascend910b2"), o).ok());
}

TEST(PrecisionPlanTest, ModifyMixlistMovesOpsBetweenLists) {
  const ir::Model m = MlpModel();
  PrecisionOptions o;
  o.mode = "allow_mix_precision";
  o.modify_mixlist_file = WriteFile(
      "mix.json",
      R"({"black-list": {"to-add": ["BatchMatMul"]}, "white-list": {"to-add": ["Relu", "NoSuchOp"]}})");
  const PrecisionPlan p = Plan(m, "ascend910b2", o);
  EXPECT_EQ(p.mode, "allow_mix_precision_fp16");
  EXPECT_EQ(Of(m, p, "n_mm").decision, Decision::kMixlist);
  EXPECT_EQ(Of(m, p, "n_mm").output, Format::kFP32);
  EXPECT_EQ(Of(m, p, "n_relu").output, Format::kFP16);
  ASSERT_EQ(p.warnings.size(), 1u);
  EXPECT_NE(p.warnings[0].find("NoSuchOp"), std::string::npos);

  o.modify_mixlist_file = WriteFile("bad.json", "{\n  \"black-list\": {\"to-add\": [\"Relu\",]}\n}\n");
  const auto bad = BuildPrecisionPlan(m, testing::Target("ascend910b2"), o);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("bad.json:2:"), std::string::npos) << bad.status().message();
}

TEST(PrecisionPlanTest, ReductionIntermediateFollowsImplMode) {
  npugap::testing::ModelBuilder b;
  b.Input("x", {2, 4}).Output("y", {2, 1});
  b.Node("ReduceMean", {"x"}, {"y"}, "n_mean");
  const ir::Model m = npugap::testing::Import(b);
  EXPECT_EQ(Of(m, Plan(m, "ascend910b2", "force_fp16"), "n_mean").compute, Format::kFP16);
  PrecisionOptions o;
  o.mode = "force_fp16";
  o.op_select_implmode = "high_precision";
  EXPECT_EQ(Of(m, Plan(m, "ascend910b2", o), "n_mean").compute, Format::kFP32);
  o.op_select_implmode = "fastest";
  EXPECT_FALSE(BuildPrecisionPlan(m, testing::Target("ascend910b2"), o).ok());
}

TEST(PrecisionPlanTest, UniformStoresEverythingInTheFormat) {
  const ir::Model m = MlpModel();
  const PrecisionPlan p = Plan(m, "ascend910b2", "uniform_bf16");
  for (const char* n : {"n_mm", "n_relu", "n_softmax", "n_add"}) {
    EXPECT_EQ(Of(m, p, n).input, Format::kBF16) << n;
    EXPECT_EQ(Of(m, p, n).compute, Format::kFP32) << n;
    EXPECT_EQ(Of(m, p, n).output, Format::kBF16) << n;
  }
}

TEST(PrecisionPlanTest, KeepFp32NodesOverrideTheMode) {
  const ir::Model m = MlpModel();
  PrecisionOptions o;
  o.mode = "force_fp16";
  o.keep_fp32_nodes = {"n_softmax"};
  const PrecisionPlan p = Plan(m, "ascend910b2", o);
  EXPECT_EQ(Of(m, p, "n_softmax").decision, Decision::kKeepFp32);
  EXPECT_EQ(Of(m, p, "n_softmax").input, Format::kFP32);
  o.keep_fp32_nodes = {"nope"};
  EXPECT_FALSE(BuildPrecisionPlan(m, testing::Target("ascend910b2"), o).ok());
}

TEST(PrecisionPlanTest, BadModesAreErrorsThatListTheValidOnes) {
  const ir::Model m = MlpModel();
  PrecisionOptions o;
  o.mode = "fp17";
  const auto r = BuildPrecisionPlan(m, testing::Target("ascend910b2"), o);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("'fp17'"), std::string::npos);
  EXPECT_NE(r.status().message().find("must_keep_origin_dtype"), std::string::npos);
  EXPECT_NE(r.status().message().find("uniform_bf16"), std::string::npos);
  // bf16 needs a cube that takes it: not the 910's.
  o.mode = "mixed_bfloat16";
  EXPECT_FALSE(BuildPrecisionPlan(m, testing::Target("ascend910"), o).ok());
  o.mode = "mixed_hif8";
  EXPECT_FALSE(BuildPrecisionPlan(m, testing::Target("ascend910b2"), o).ok());
  for (const std::string& name : PrecisionModeNames()) {
    if (name.find("bf16") != std::string::npos || name.find("bfloat16") != std::string::npos ||
        name == "mixed_hif8")
      continue;
    o.mode = name;
    EXPECT_TRUE(BuildPrecisionPlan(m, testing::Target("ascend910"), o).ok()) << name;
  }
}

}  // namespace
}  // namespace npugap::analysis::precision
