// The calibration CSV reader: good rows, and each bad-input path naming the line and column.
#include <gtest/gtest.h>

#include "npugap/analysis/perf/calibrate/kernel_csv.h"

namespace npugap::analysis::perf {
namespace {

constexpr std::string_view kHeader = "op_type,block_dim,inputs,outputs,time_us\n";

std::string ErrorOf(std::string_view text) {
  auto t = ParseKernelCsv(text, "k.csv");
  EXPECT_FALSE(t.ok());
  return t.ok() ? std::string() : t.status().message();
}

TEST(PerfKernelCsv, ReadsRecordsOperandsAndScalars) {
  const std::string text = std::string(kHeader) +
                           "Conv2D,30,NC1HWC0:float32:32x1x224x224x16;FracZ:float16:49x4x16x16,"
                           "NC1HWC0:float16:32x4x112x112x16,365.307\n"
                           "AtomicAddrClean,1,ND:float32:,,1.6\r\n";
  auto t = ParseKernelCsv(text, "k.csv");
  ASSERT_TRUE(t.ok()) << t.status().message();
  ASSERT_EQ(t->records.size(), 2u);
  const auto& conv = t->records[0];
  EXPECT_EQ(conv.kernel.op_type, "Conv2D");
  EXPECT_EQ(conv.kernel.block_dim, 30);
  ASSERT_EQ(conv.kernel.inputs.size(), 2u);
  EXPECT_EQ(conv.kernel.inputs[1].format, "FracZ");
  EXPECT_EQ(conv.kernel.inputs[1].shape, (std::vector<int64_t>{49, 4, 16, 16}));
  EXPECT_DOUBLE_EQ(conv.time_us, 365.307);
  EXPECT_EQ(conv.line, 2);
  const auto& clean = t->records[1];
  EXPECT_TRUE(clean.kernel.inputs[0].shape.empty());  // a scalar
  EXPECT_TRUE(clean.kernel.outputs.empty());
  EXPECT_EQ(clean.line, 3);
}

TEST(PerfKernelCsv, ColumnsInAnyOrderWithExtras) {
  auto t = ParseKernelCsv(
      "time_us,name,outputs,inputs,block_dim,op_type\n2.5,x,ND:float16:4,ND:float16:4,1,Cast\n", "k.csv");
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_EQ(t->records[0].kernel.op_type, "Cast");
  EXPECT_DOUBLE_EQ(t->records[0].time_us, 2.5);
}

TEST(PerfKernelCsv, MissingColumnInHeader) {
  EXPECT_EQ(ErrorOf("op_type,block_dim,inputs,outputs\nAdd,1,,,\n"),
            "k.csv:1: missing column 'time_us' in the header 'op_type,block_dim,inputs,outputs'");
}

TEST(PerfKernelCsv, MissingFieldInRow) {
  EXPECT_EQ(ErrorOf(std::string(kHeader) + "Add,1,ND:float16:4,ND:float16:4,1.0\nAdd,1,ND:float16:4\n"),
            "k.csv:3: column 'outputs' (4): missing (the row has 3 fields, the header 5)");
}

TEST(PerfKernelCsv, UnparseableShapeNamesLineAndColumn) {
  EXPECT_EQ(ErrorOf(std::string(kHeader) + "Add,1,ND:float16:4x?;ND:float16:4,ND:float16:4,1.0\n"),
            "k.csv:2: column 'inputs' (3): operand 'ND:float16:4x?': unparseable dim '?' in shape");
  EXPECT_EQ(ErrorOf(std::string(kHeader) + "Add,1,ND:float16:4,ND:float16:-4,1.0\n"),
            "k.csv:2: column 'outputs' (4): operand 'ND:float16:-4': unparseable dim '-4' in shape");
}

TEST(PerfKernelCsv, ShapeTooLargeForByteCounts) {
  // 4e9^3 elements overflow int64 byte counts (the prediction came out negative before this check).
  EXPECT_EQ(
      ErrorOf(std::string(kHeader) + "Add,1,ND:float16:4000000000x4000000000x4000000000,ND:float16:4,1\n"),
      "k.csv:2: column 'inputs' (3): operand 'ND:float16:4000000000x4000000000x4000000000': shape has "
      "more than 2^48 elements (dim '4000000000')");
  // A zero dim does not hide a huge one from the check: the other dims are multiplied by it later.
  EXPECT_NE(ErrorOf(std::string(kHeader) + "Add,1,ND:float16:0x300000000x300000000,ND:float16:4,1\n"), "");
  // 2^48 elements exactly is accepted.
  EXPECT_TRUE(
      ParseKernelCsv(std::string(kHeader) + "Add,1,ND:float16:16777216x16777216,ND:float16:4,1\n", "k.csv")
          .ok());
}

TEST(PerfKernelCsv, UnknownFormatAndMalformedOperand) {
  EXPECT_EQ(ErrorOf(std::string(kHeader) + "Add,1,NCWH5:float16:4,ND:float16:4,1.0\n"),
            "k.csv:2: column 'inputs' (3): operand 'NCWH5:float16:4': unknown format 'NCWH5'");
  EXPECT_EQ(ErrorOf(std::string(kHeader) + "Add,1,ND:float16,ND:float16:4,1.0\n"),
            "k.csv:2: column 'inputs' (3): operand 'ND:float16' is not FORMAT:dtype:d0xd1x...");
}

TEST(PerfKernelCsv, NegativeOrNonNumericTimeAndBlockDim) {
  EXPECT_EQ(ErrorOf(std::string(kHeader) + "Add,1,ND:float16:4,ND:float16:4,-3.5\n"),
            "k.csv:2: column 'time_us' (5): negative time -3.5");
  EXPECT_EQ(ErrorOf(std::string(kHeader) + "Add,1,ND:float16:4,ND:float16:4,fast\n"),
            "k.csv:2: column 'time_us' (5): 'fast' is not a number");
  EXPECT_EQ(ErrorOf(std::string(kHeader) + "Add,x,ND:float16:4,ND:float16:4,1\n"),
            "k.csv:2: column 'block_dim' (2): 'x' is not a non-negative integer");
}

TEST(PerfKernelCsv, EmptyFile) { EXPECT_EQ(ErrorOf(""), "k.csv: empty file, expected a header row"); }

}  // namespace
}  // namespace npugap::analysis::perf
