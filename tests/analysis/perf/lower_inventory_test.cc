// The lowering as a kernel inventory: the lowered kernels written in the calibration CSV format
// (lower_csv.h), and the structural rules that make the inventory of a training step match the
// one MindSpore ran on the 910 (shared/calibration/ascend910): per-channel BN operands, the atomic
// cleans, the ReLU masks, the per-step weight Casts.
#include <gtest/gtest.h>

#include "lower_test_models.h"
#include "npugap/analysis/perf/calibration.h"
#include "npugap/analysis/perf/iteration.h"
#include "npugap/analysis/perf/kernel_csv.h"
#include "npugap/analysis/perf/lower_csv.h"

namespace npugap::analysis::perf {
namespace {

using namespace lower_test;

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

}  // namespace
}  // namespace npugap::analysis::perf
