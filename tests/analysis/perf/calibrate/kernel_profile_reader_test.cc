// ReadKernelProfile on small files of each format (tests/data/profiles/, headers as their sources
// write them, see the README there): the format told by the header, the records, the repeated
// launches merged, the rows that are no kernel counted, and the dtype reading each format needs.
#include "npugap/analysis/perf/calibrate/kernel_profile_reader.h"

#include <gtest/gtest.h>

#include "../../../../src/analysis/perf/calibrate/kernel_reader_csv.h"

namespace npugap::analysis::perf {
namespace {

const std::string kProfiles = std::string(NPUGAP_TEST_DATA_DIR) + "/profiles/";

KernelProfile Read(const std::string& file, std::optional<DtypeLabels> labels = std::nullopt) {
  auto p = ReadKernelProfile(kProfiles + file, labels);
  EXPECT_TRUE(p.ok()) << p.status().message();
  return p.ok() ? *p : KernelProfile{};
}

const KernelRecord* Find(const KernelProfile& p, std::string_view op_type) {
  for (const KernelRecord& r : p.table.records) {
    if (r.kernel.op_type == op_type) return &r;
  }
  ADD_FAILURE() << "no " << op_type;
  return nullptr;
}

TEST(PerfKernelProfile, MsprofOpSummary) {
  const KernelProfile p = Read("op_summary_0.csv");
  EXPECT_EQ(p.format, ProfileFormat::kMsprofOpSummary);
  EXPECT_EQ(p.dtype_labels, DtypeLabels::kAsWritten);
  EXPECT_EQ(p.rows, 8);
  ASSERT_EQ(p.table.records.size(), 6u);  // the second Conv2D launch merged, the allReduce skipped
  EXPECT_EQ(p.merged_launches, 1);
  EXPECT_EQ(p.skipped, (std::vector<std::pair<std::string, int>>{{"COMMUNICATION", 1}}));

  const KernelRecord* conv = Find(p, "Conv2D");
  ASSERT_NE(conv, nullptr);
  EXPECT_EQ(conv->kernel.name, "Conv2D_1");
  EXPECT_EQ(conv->kernel.block_dim, 32);
  EXPECT_EQ(conv->launches, 2);
  EXPECT_DOUBLE_EQ(conv->time_us, (365.3 + 369.1) / 2);
  EXPECT_EQ(conv->line, 3);
  ASSERT_EQ(conv->kernel.inputs.size(), 2u);
  EXPECT_EQ(FormatOperand(conv->kernel.inputs[0]), "NC1HWC0:float16:32x1x224x224x16");
  EXPECT_EQ(FormatOperand(conv->kernel.inputs[1]), "FracZ:float16:49x4x16x16");  // FRACTAL_Z
  EXPECT_EQ(FormatOperand(conv->kernel.outputs[0]), "NC1HWC0:float16:32x4x112x112x16");

  EXPECT_EQ(FormatOperand(Find(p, "Cast")->kernel.inputs[0]), "ND:float32:2048x1024");  // GE's FLOAT
  EXPECT_EQ(FormatOperand(Find(p, "MatMulV2")->kernel.inputs[1]), "ND:bfloat16:1024x4096");
  EXPECT_FALSE(Find(p, "MatMulV2")->kernel.aicpu);
  const KernelRecord* mix = Find(p, "MatMulV3");  // MIX_AIC: an AI Core kernel, kept
  EXPECT_EQ(mix->kernel.block_dim, 24);
  const KernelRecord* mask = Find(p, "DropOutGenMask");
  EXPECT_TRUE(mask->kernel.aicpu);
  ASSERT_EQ(mask->kernel.inputs.size(), 2u);
  EXPECT_EQ(FormatOperand(mask->kernel.inputs[1]), "ND:float16:");  // the empty entry: a scalar
  EXPECT_EQ(FormatOperand(mask->kernel.outputs[0]), "ND:uint8:8192");
}

TEST(PerfKernelProfile, RecordsWrittenInTheCalibrationFormat) {
  const KernelProfile p = Read("op_summary_0.csv");
  EXPECT_EQ(p.table.header, "op_type,block_dim,inputs,outputs,time_us,launches,name");
  EXPECT_EQ(
      Find(p, "Conv2D")->text,
      "Conv2D,32,NC1HWC0:float16:32x1x224x224x16;FracZ:float16:49x4x16x16,NC1HWC0:float16:32x4x112x112x16,"
      "367.2,2,Conv2D_1");
  // The rows read back as a calibration CSV (true dtypes: as-written), record for record.
  std::string text = p.table.header + "\n";
  for (const KernelRecord& r : p.table.records) text += r.text + "\n";
  auto back = ParseKernelProfile(text, "out.csv", DtypeLabels::kAsWritten);
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(back->format, ProfileFormat::kCalibrationCsv);
  ASSERT_EQ(back->table.records.size(), p.table.records.size());
  for (size_t i = 0; i < p.table.records.size(); ++i) {
    const Kernel& a = p.table.records[i].kernel;
    const Kernel& b = back->table.records[i].kernel;
    EXPECT_EQ(a.op_type, b.op_type);
    EXPECT_EQ(a.block_dim, b.block_dim);
    ASSERT_EQ(a.inputs.size(), b.inputs.size());
    for (size_t k = 0; k < a.inputs.size(); ++k)
      EXPECT_EQ(FormatOperand(a.inputs[k]), FormatOperand(b.inputs[k]));
    EXPECT_NEAR(p.table.records[i].time_us, back->table.records[i].time_us, 1e-6);
  }
}

TEST(PerfKernelProfile, TorchNpuKernelDetails) {
  const KernelProfile p = Read("kernel_details.csv");
  EXPECT_EQ(p.format, ProfileFormat::kTorchNpuKernelDetails);
  EXPECT_EQ(p.dtype_labels, DtypeLabels::kAsWritten);
  EXPECT_EQ(p.rows, 7);
  ASSERT_EQ(p.table.records.size(), 4u);  // MatMulV2, Cast, TransData, NonZero; step 2 merged
  EXPECT_EQ(p.merged_launches, 2);
  EXPECT_EQ(p.skipped, (std::vector<std::pair<std::string, int>>{{"HCCL", 1}}));
  const KernelRecord* mm = Find(p, "MatMulV2");
  EXPECT_EQ(mm->kernel.name, "aclnnMatmul_MatMulCommon_MatMulV2");
  EXPECT_EQ(mm->launches, 2);
  EXPECT_DOUBLE_EQ(mm->time_us, (185.5 + 186.7) / 2);
  EXPECT_EQ(FormatOperand(mm->kernel.inputs[0]), "ND:bfloat16:8192x4096");
  EXPECT_EQ(FormatOperand(Find(p, "TransData")->kernel.outputs[0]), "FRACTAL_NZ:float16:32x256x16x16");
  EXPECT_EQ(Find(p, "Cast")->kernel.block_dim, 40);  // AI_VECTOR_CORE kept
  EXPECT_TRUE(Find(p, "NonZero")->kernel.aicpu);
  EXPECT_EQ(FormatOperand(Find(p, "NonZero")->kernel.inputs[0]), "ND:bool:8192");
}

TEST(PerfKernelProfile, KernelDetailsOfCann7) {
  const KernelProfile p = Read("kernel_details_cann7.csv");
  EXPECT_EQ(p.format, ProfileFormat::kTorchNpuKernelDetails);
  ASSERT_EQ(p.table.records.size(), 3u);
  EXPECT_EQ(p.skipped, (std::vector<std::pair<std::string, int>>{{"HCCL", 1}}));
  const KernelRecord* slice = Find(p, "Slice");
  ASSERT_EQ(slice->kernel.inputs.size(), 3u);
  EXPECT_EQ(FormatOperand(slice->kernel.inputs[0]), "ND:int32:8x1025");  // FORMAT_ND
  EXPECT_EQ(FormatOperand(slice->kernel.inputs[2]), "ND:int64:2");
  EXPECT_EQ(FormatOperand(Find(p, "Cast")->kernel.outputs[0]), "ND:int32:8x1025");
}

TEST(PerfKernelProfile, CalibrationCsvReadTypeIdShifted) {
  const KernelProfile p = Read("calibration.csv");
  EXPECT_EQ(p.format, ProfileFormat::kCalibrationCsv);
  EXPECT_EQ(p.dtype_labels, DtypeLabels::kTypeIdShifted);
  EXPECT_EQ(p.rows, 4);
  EXPECT_EQ(p.merged_launches, 0);
  EXPECT_TRUE(p.skipped.empty());
  EXPECT_EQ(p.table.header, "op_type,block_dim,inputs,outputs,time_us");
  const KernelRecord* conv = Find(p, "Conv2D");
  EXPECT_EQ(conv->kernel.inputs[0].dtype, "float16");  // labelled float32, one TypeId early
  EXPECT_EQ(conv->text,
            "Conv2D,32,NC1HWC0:float32:32x1x224x224x16;FracZ:float16:49x4x16x16,"
            "NC1HWC0:float32:32x4x112x112x16,365.3");  // as read
  EXPECT_EQ(Find(p, "LessEqual")->kernel.outputs[0].dtype, "bool");
  // --dtype-labels as-written overrides the format's reading.
  const KernelProfile written = Read("calibration.csv", DtypeLabels::kAsWritten);
  EXPECT_EQ(written.dtype_labels, DtypeLabels::kAsWritten);
  EXPECT_EQ(Find(written, "Conv2D")->kernel.inputs[0].dtype, "float32");
  // typeid-shifted can be asked of a profiler file too, where GE's true names mostly have no shift.
  auto shifted = ReadKernelProfile(kProfiles + "op_summary_0.csv", DtypeLabels::kTypeIdShifted);
  ASSERT_FALSE(shifted.ok());
  EXPECT_EQ(shifted.status().message(),
            kProfiles +
                "op_summary_0.csv:5: column 'inputs': operand 'ND:bfloat16:2048x1024': dtype label "
                "'bfloat16' has no typeid-shifted reading (the type after it in MindSpore's TypeId order "
                "is not a sized type)");
}

TEST(PerfKernelProfile, NamesOfFormatsAndReadings) {
  EXPECT_EQ(ProfileFormatName(ProfileFormat::kCalibrationCsv), "calibration CSV");
  EXPECT_EQ(ProfileFormatName(ProfileFormat::kMsprofOpSummary), "msprof op_summary");
  EXPECT_EQ(ProfileFormatName(ProfileFormat::kTorchNpuKernelDetails), "torch_npu kernel_details");
  EXPECT_EQ(DtypeLabelsName(DtypeLabels::kAsWritten), "as-written");
  EXPECT_EQ(DtypeLabelsName(DtypeLabels::kTypeIdShifted), "typeid-shifted");
}

TEST(PerfKernelProfile, ByteOrderMarkAndCrLf) {
  auto text = ReadTextFile(kProfiles + "kernel_details_cann7.csv");
  ASSERT_TRUE(text.ok());
  std::string crlf = "\xEF\xBB\xBF";
  for (char c : *text) crlf += c == '\n' ? std::string("\r\n") : std::string(1, c);
  auto p = ParseKernelProfile(crlf, "k.csv");
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_EQ(p->format, ProfileFormat::kTorchNpuKernelDetails);
  EXPECT_EQ(p->table.records.size(), 3u);
}

TEST(PerfKernelProfile, MissingFileAndEmptyFile) {
  auto missing = ReadKernelProfile(kProfiles + "no_such.csv");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().message(), kProfiles + "no_such.csv: cannot open");
  auto empty = ParseKernelProfile("", "e.csv");
  ASSERT_FALSE(empty.ok());
  EXPECT_EQ(empty.status().message(), "e.csv: empty file, expected a header row");
  // A header naming no format's columns is read as the calibration CSV, which names what it lacks.
  auto other = ParseKernelProfile("a,b\n1,2\n", "o.csv");
  ASSERT_FALSE(other.ok());
  EXPECT_EQ(other.status().message(), "o.csv:1: missing column 'op_type' in the header 'a,b'");
}

}  // namespace
}  // namespace npugap::analysis::perf
