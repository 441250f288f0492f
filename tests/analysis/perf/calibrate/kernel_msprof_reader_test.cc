// The profiler readers' parts: CSV fields, CANN's format and dtype spellings, and every bad-input
// path of an op_summary / kernel_details file, each naming the file, line and column.
#include <gtest/gtest.h>

#include "../../../../src/analysis/perf/calibrate/kernel_reader_csv.h"
#include "../../../../src/analysis/perf/calibrate/kernel_reader_spellings.h"
#include "npugap/analysis/perf/calibrate/kernel_profile_reader.h"

namespace npugap::analysis::perf {
namespace {

std::vector<std::string> Values(std::string_view line) {
  std::vector<CsvField> fields;
  const Status s = SplitCsvLine(line, fields);
  EXPECT_TRUE(s.ok()) << s.message();
  std::vector<std::string> out;
  for (const CsvField& f : fields) out.push_back(CsvValue(f));
  return out;
}

std::string SplitError(std::string_view line) {
  std::vector<CsvField> fields;
  const Status s = SplitCsvLine(line, fields);
  EXPECT_FALSE(s.ok());
  return s.message();
}

TEST(PerfKernelReaderCsv, QuotedFields) {
  EXPECT_EQ(Values("a,\"b,c\",,\"\"\"1,2;3\"\"\",\"x\ty\""),
            (std::vector<std::string>{"a", "b,c", "", "\"1,2;3\"", "x\ty"}));
  EXPECT_EQ(Values("a,"), (std::vector<std::string>{"a", ""}));
  EXPECT_EQ(Values(""), (std::vector<std::string>{""}));
  EXPECT_EQ(SplitError("a,\"b,c"), "column 2: unterminated quoted field (a quoted field may not span lines)");
  EXPECT_EQ(SplitError("a,\"b\"c,d"), "column 2: text after the closing quote of a quoted field");
  EXPECT_EQ(CsvQuote("plain"), "plain");
  EXPECT_EQ(CsvQuote("a,\"b\""), "\"a,\"\"b\"\"\"");
  EXPECT_EQ(Values(CsvQuote("a,\"b\"")), (std::vector<std::string>{"a,\"b\""}));
}

TEST(PerfKernelReaderCsv, Dims) {
  EXPECT_EQ(*ParseDims("32,3,224,224", ','), (std::vector<int64_t>{32, 3, 224, 224}));
  EXPECT_TRUE(ParseDims("", ',')->empty());
  EXPECT_EQ(ParseDims("4,,2", ',').status().message(), "unparseable dim '' in shape");
  EXPECT_EQ(ParseDims("16777216,16777216,2", ',').status().message(),
            "shape has more than 2^48 elements (dim '2')");
}

TEST(PerfKernelReaderSpellings, Formats) {
  EXPECT_EQ(*FormatFromCann("ND"), "ND");
  EXPECT_EQ(*FormatFromCann("FORMAT_ND"), "ND");
  EXPECT_EQ(*FormatFromCann("NC1HWC0"), "NC1HWC0");
  EXPECT_EQ(*FormatFromCann("FRACTAL_Z"), "FracZ");
  EXPECT_EQ(*FormatFromCann("FRACTAL_Z:16"), "FracZ");
  EXPECT_EQ(*FormatFromCann("FORMAT_FRACTAL_NZ"), "FRACTAL_NZ");
  EXPECT_EQ(*FormatFromCann("FRAC_NZ_"), "FRACTAL_NZ");
  EXPECT_EQ(*FormatFromCann("NDC1HWC0"), "NDC1HWC0");
  EXPECT_EQ(FormatFromCann("NCWH").status().message(), "unknown format 'NCWH'");
  EXPECT_TRUE(IsDeviceFormat("FracZ"));
  EXPECT_TRUE(IsDeviceFormat("FRACTAL_NZ_C0_16"));
  EXPECT_FALSE(IsDeviceFormat("FORMAT_ND"));
}

TEST(PerfKernelReaderSpellings, Dtypes) {
  EXPECT_EQ(*DtypeFromCann("FLOAT"), "float32");
  EXPECT_EQ(*DtypeFromCann("FLOAT16"), "float16");
  EXPECT_EQ(*DtypeFromCann("DT_BF16"), "bfloat16");
  EXPECT_EQ(*DtypeFromCann("DOUBLE"), "float64");
  EXPECT_EQ(*DtypeFromCann("INT64"), "int64");
  EXPECT_EQ(*DtypeFromCann("BOOL"), "bool");
  EXPECT_EQ(*DtypeFromCann("DT_FLOAT8_E4M3FN"), "float8_e4m3fn");
  EXPECT_EQ(*DtypeFromCann("FLOAT16_"), "float16");
  EXPECT_EQ(DtypeFromCann("float16").status().message(), "unknown data type 'float16'");
}

// An op_summary header (current msprof) and a row builder for the bad-input cases.
constexpr std::string_view kHeader =
    "Device_id,Model ID,Task ID,Stream ID,Op Name,OP Type,OP State,Task Type,Task Start Time(us),"
    "Task Duration(us),Task Wait Time(us),Block Num,HF32 Eligible,Input Shapes,Input Data Types,Input "
    "Formats,"
    "Output Shapes,Output Data Types,Output Formats\n";

struct Row {
  std::string type = "Add", core = "AI_CORE", duration = "3.5", block = "8";
  std::string in_shapes = "\"\"\"4,8;4,8\"\"\"", in_types = "FLOAT16;FLOAT16", in_formats = "ND;ND";
  std::string out_shapes = "\"\"\"4,8\"\"\"", out_types = "FLOAT16", out_formats = "ND";
  std::string Text() const {
    return "0,4294967295,1,2,Add_1," + type + ",static," + core + ",100.0\t," + duration + ",0," + block +
           ",NO," + in_shapes + "," + in_types + "," + in_formats + "," + out_shapes + "," + out_types + "," +
           out_formats + "\n";
  }
};

std::string ErrorOf(const std::string& text) {
  auto p = ParseKernelProfile(text, "op_summary_0.csv");
  EXPECT_FALSE(p.ok());
  return p.ok() ? std::string() : p.status().message();
}

std::string RowError(Row r) { return ErrorOf(std::string(kHeader) + Row{}.Text() + r.Text()); }

TEST(PerfMsprofReader, GoodRowReads) {
  auto p = ParseKernelProfile(std::string(kHeader) + Row{}.Text(), "op_summary_0.csv");
  ASSERT_TRUE(p.ok()) << p.status().message();
  ASSERT_EQ(p->table.records.size(), 1u);
  EXPECT_EQ(FormatOperand(p->table.records[0].kernel.inputs[1]), "ND:float16:4x8");
}

TEST(PerfMsprofReader, BadNumbers) {
  Row r;
  r.block = "x";
  EXPECT_EQ(RowError(r), "op_summary_0.csv:3: column 'Block Num' (12): 'x' is not a non-negative integer");
  r = Row{};
  r.block = "-2";
  EXPECT_EQ(RowError(r), "op_summary_0.csv:3: column 'Block Num' (12): '-2' is not a non-negative integer");
  r = Row{};
  r.duration = "fast";
  EXPECT_EQ(RowError(r), "op_summary_0.csv:3: column 'Task Duration(us)' (10): 'fast' is not a number");
  r.duration = "N/A";
  EXPECT_EQ(RowError(r), "op_summary_0.csv:3: column 'Task Duration(us)' (10): 'N/A' is not a number");
  r.duration = "-1.5";
  EXPECT_EQ(RowError(r), "op_summary_0.csv:3: column 'Task Duration(us)' (10): negative time -1.5");
  // N/A block dim: not recorded, read as 0 (the cost model chooses).
  r = Row{};
  r.block = "N/A";
  auto p = ParseKernelProfile(std::string(kHeader) + r.Text(), "o.csv");
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_EQ(p->table.records[0].kernel.block_dim, 0);
}

TEST(PerfMsprofReader, BadTensors) {
  Row r;
  r.in_formats = "ND;NCWH";
  EXPECT_EQ(RowError(r),
            "op_summary_0.csv:3: column 'Input Formats' (16): tensor 2 'NCWH': unknown format 'NCWH'");
  r = Row{};
  r.out_types = "HALF";
  EXPECT_EQ(RowError(r),
            "op_summary_0.csv:3: column 'Output Data Types' (18): tensor 1 'HALF': unknown data type 'HALF'");
  r = Row{};
  r.in_shapes = "\"\"\"4,8;4,x\"\"\"";
  EXPECT_EQ(RowError(r),
            "op_summary_0.csv:3: column 'Input Shapes' (14): tensor 2 '4,x': unparseable dim 'x' in shape");
  r = Row{};
  r.in_types = "FLOAT16";
  EXPECT_EQ(
      RowError(r),
      "op_summary_0.csv:3: column 'Input Data Types' (15): 1 tensors, but column 'Input Shapes' (14) has 2");
  r = Row{};
  r.out_shapes = "N/A";
  EXPECT_EQ(RowError(r),
            "op_summary_0.csv:3: column 'Output Data Types' (18): 1 tensors, but column 'Output Shapes' (17) "
            "has 0");
}

TEST(PerfMsprofReader, BadKernelTypeAndQuotes) {
  Row r;
  r.type = "Add-1";
  EXPECT_EQ(RowError(r), "op_summary_0.csv:3: column 'OP Type' (6): bad kernel type 'Add-1'");
  r = Row{};
  r.out_formats = "\"ND";
  EXPECT_EQ(RowError(r),
            "op_summary_0.csv:3: column 19: unterminated quoted field (a quoted field may not span lines)");
}

TEST(PerfMsprofReader, MissingColumnsAndFields) {
  EXPECT_EQ(
      ErrorOf("Op Name,OP Type,Task Type,Block Num\nAdd_1,Add,AI_CORE,8\n"),
      "op_summary_0.csv:1: missing column 'Task Duration(us)' (or 'Duration(us)') in the msprof op_summary "
      "header");
  EXPECT_EQ(ErrorOf("Name,Type,Accelerator Core,Duration(us),Block Dim\nAdd_1,Add,AI_CORE,3.5,8\n"),
            "op_summary_0.csv:1: missing column 'Input Shapes' in the torch_npu kernel_details header "
            "(tensor shapes "
            "are recorded by msprof --task-time=l1, torch_npu profiler_level Level1)");
  EXPECT_EQ(ErrorOf(std::string(kHeader) + "0,4294967295,1,2,Add_1,Add,static,AI_CORE,100.0,3.5\n"),
            "op_summary_0.csv:2: column 'Block Num' (12): missing (the row has 10 fields, the header 19)");
}

TEST(PerfMsprofReader, RowsThatAreNoKernelCounted) {
  Row comm;
  comm.core = "COMMUNICATION";
  comm.block = comm.in_shapes = comm.in_types = comm.in_formats = "N/A";
  comm.out_shapes = comm.out_types = comm.out_formats = "N/A";
  Row l0;  // task_time l0: no kernel type
  l0.type = "N/A";
  Row dsa;
  dsa.core = "DSA_SQE";
  auto p = ParseKernelProfile(
      std::string(kHeader) + Row{}.Text() + comm.Text() + comm.Text() + l0.Text() + dsa.Text(), "o.csv");
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_EQ(p->rows, 5);
  EXPECT_EQ(p->table.records.size(), 1u);
  EXPECT_EQ(p->skipped, (std::vector<std::pair<std::string, int>>{
                            {"COMMUNICATION", 2}, {"DSA_SQE", 1}, {"no kernel type (N/A)", 1}}));
  // A file of such rows only holds nothing to predict.
  EXPECT_EQ(
      ErrorOf(std::string(kHeader) + comm.Text() + l0.Text()),
      "op_summary_0.csv: no AI Core / AI CPU kernel among its 2 rows: skipped 1 COMMUNICATION, 1 no kernel "
      "type (N/A)");
  EXPECT_EQ(ErrorOf(std::string(kHeader)), "op_summary_0.csv: no AI Core / AI CPU kernel among its 0 rows");
}

TEST(PerfMsprofReader, SideWithoutTensorsAndScalars) {
  Row r;
  r.out_shapes = r.out_types = r.out_formats = "N/A";  // no outputs (a memset kernel)
  r.in_shapes = "\"\"\"4,8;\"\"\"";                    // the second input a scalar
  auto p = ParseKernelProfile(std::string(kHeader) + r.Text(), "o.csv");
  ASSERT_TRUE(p.ok()) << p.status().message();
  const Kernel& k = p->table.records[0].kernel;
  EXPECT_TRUE(k.outputs.empty());
  ASSERT_EQ(k.inputs.size(), 2u);
  EXPECT_TRUE(k.inputs[1].shape.empty());
}

}  // namespace
}  // namespace npugap::analysis::perf
