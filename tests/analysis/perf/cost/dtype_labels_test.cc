// How kernel records' dtype labels are read: as written, or as MindSpore profiler names that sit
// one place early in the TypeId order (dtype_labels.h).
#include "npugap/analysis/perf/cost/dtype_labels.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "ascend910_profile.h"

namespace npugap::analysis::perf {
namespace {

std::string Shifted(std::string_view label) {
  auto r = ReadDtypeLabel(label, DtypeLabels::kTypeIdShifted);
  EXPECT_TRUE(r.ok()) << r.status().message();
  return r.ok() ? *r : std::string();
}

TEST(PerfDtypeLabels, ReadingsByName) {
  ASSERT_TRUE(ParseDtypeLabels("as-written").ok());
  EXPECT_EQ(*ParseDtypeLabels("as-written"), DtypeLabels::kAsWritten);
  EXPECT_EQ(*ParseDtypeLabels("typeid-shifted"), DtypeLabels::kTypeIdShifted);
  EXPECT_EQ(DtypeLabelReadings(), (std::vector<std::string>{"as-written", "typeid-shifted"}));
  const auto bad = ParseDtypeLabels("swapped");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(),
            "--dtype-labels 'swapped': not a reading; valid: as-written, typeid-shifted");
}

// Each label read as the type one place later in MindSpore's TypeId order; the calibration CSV
// spells NUMBER_TYPE_FLOAT float32 and NUMBER_TYPE_UINT uint32.
TEST(PerfDtypeLabels, ShiftedReadingIsTheNextTypeId) {
  EXPECT_EQ(Shifted("number_type_begin"), "bool");  // comparison outputs, Select's condition
  EXPECT_EQ(Shifted("int8"), "int16");
  EXPECT_EQ(Shifted("int16"), "int32");  // the global step
  EXPECT_EQ(Shifted("int32"), "int64");
  EXPECT_EQ(Shifted("uint32"), "uint8");  // ReLUV2's bit mask
  EXPECT_EQ(Shifted("uint8"), "uint16");  // MaxPoolWithArgmax's argmax
  EXPECT_EQ(Shifted("uint16"), "uint32");
  EXPECT_EQ(Shifted("float32"), "float16");  // feature maps, cube operands
  EXPECT_EQ(Shifted("float16"), "float32");  // BN statistics, master weights
  EXPECT_EQ(*ReadDtypeLabel("float32", DtypeLabels::kAsWritten), "float32");
}

TEST(PerfDtypeLabels, LabelsWhoseSuccessorIsNoSizedTypeAreErrors) {
  for (const char* label : {"bool", "int64", "uint64", "float64", "bfloat16"}) {
    const auto r = ReadDtypeLabel(label, DtypeLabels::kTypeIdShifted);
    ASSERT_FALSE(r.ok()) << label;
    EXPECT_EQ(r.status().message(),
              fmt::format("dtype label '{}' has no typeid-shifted reading (the type after it "
                          "in MindSpore's TypeId order is not a sized type)",
                          label));
  }
}

constexpr std::string_view kRecords =
    "op_type,block_dim,inputs,outputs,time_us\n"
    "LessEqual,1,ND:float16:;ND:float16:,ND:number_type_begin:,1.9\n"
    "FusionOp_BNTrainingUpdate_ReLUV2,30,NC1HWC0:float32:32x4x56x56x16;NC1HWC0:float16:1x4x1x1x16,"
    "NC1HWC0:float32:32x4x56x56x16;ND:uint32:32x4x56x56x2,47.8\n";

TEST(PerfDtypeLabels, ApplyRelabelsEveryOperandAndKeepsTheRowText) {
  auto table = ParseKernelCsv(kRecords, "k.csv");
  ASSERT_TRUE(table.ok()) << table.status().message();
  const std::string row = table->records[1].text;
  ASSERT_TRUE(ApplyDtypeLabels(*table, DtypeLabels::kAsWritten, "k.csv").ok());
  EXPECT_EQ(table->records[1].kernel.inputs[0].dtype, "float32");

  ASSERT_TRUE(ApplyDtypeLabels(*table, DtypeLabels::kTypeIdShifted, "k.csv").ok());
  const Kernel& cmp = table->records[0].kernel;
  EXPECT_EQ(cmp.inputs[0].dtype, "float32");
  EXPECT_EQ(cmp.outputs[0].dtype, "bool");
  const Kernel& bn = table->records[1].kernel;
  EXPECT_EQ(bn.inputs[0].dtype, "float16");
  EXPECT_EQ(bn.inputs[1].dtype, "float32");
  EXPECT_EQ(bn.outputs[0].dtype, "float16");
  EXPECT_EQ(bn.outputs[1].dtype, "uint8");
  EXPECT_EQ(table->records[1].text, row);  // --out writes the row as read
}

TEST(PerfDtypeLabels, ApplyErrorNamesFileLineColumnAndOperand) {
  auto table = ParseKernelCsv(std::string(kRecords) + "Cast,1,ND:float16:4,ND:float64:4,1.5\n", "k.csv");
  ASSERT_TRUE(table.ok()) << table.status().message();
  const Status s = ApplyDtypeLabels(*table, DtypeLabels::kTypeIdShifted, "k.csv");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.message(),
            "k.csv:4: column 'outputs': operand 'ND:float64:4': dtype label 'float64' has no typeid-shifted "
            "reading (the type after it in MindSpore's TypeId order is not a sized type)");
}

// The reading reaches the cost model: a memory-bound Add labelled float32 moves half its bytes
// when the label is read as the float16 it names.
TEST(PerfDtypeLabels, ShiftedFloat32LabelHalvesAMemoryBoundKernelsBytes) {
  const std::string row = "Add,30,ND:float32:8388608;ND:float32:8388608,ND:float32:8388608,1.0\n";
  auto table = ParseKernelCsv(std::string("op_type,block_dim,inputs,outputs,time_us\n") + row, "k.csv");
  ASSERT_TRUE(table.ok()) << table.status().message();
  const KernelCost written = PredictKernel(table->records[0].kernel, Ascend910WithoutHeads());
  ASSERT_TRUE(ApplyDtypeLabels(*table, DtypeLabels::kTypeIdShifted, "k.csv").ok());
  const KernelCost shifted = PredictKernel(table->records[0].kernel, Ascend910WithoutHeads());
  ASSERT_EQ(written.bound, Bound::kMemory);
  EXPECT_NEAR(shifted.memory_us / written.memory_us, 0.5, 1e-9);
}

}  // namespace
}  // namespace npugap::analysis::perf
