// Tests of the indexing op family: gather / scatter kernels and TopK, Unique, CumSum. Expected
// values are the examples of the ONNX operator docs or worked out by hand.
#include <gtest/gtest.h>

#include "indexing_test_util.h"
#include "npugap/numerics/half.h"
#include "op_test_expect.h"

namespace npugap::testing::indexing {
namespace {

// ---- Gather ----------------------------------------------------------------------------------

TEST(IndexingGather, Axis0CopiesRows) {
  auto out =
      RunAll({.op_type = "Gather", .inputs = {F32({3, 2}, {1, 2, 3, 4, 5, 6}), I64({2, 2}, {0, 1, 1, 2})}});
  ExpectValues<float>(out[0], {2, 2, 2}, {1, 2, 3, 4, 3, 4, 5, 6});
}

TEST(IndexingGather, Axis1NegativeInt32Indices) {
  auto out = RunAll({.op_type = "Gather",
                     .attributes = {{"axis", IntAttr(1)}},
                     .inputs = {F32({3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9}), Make<int32_t>({2}, {0, -1})}});
  ExpectValues<float>(out[0], {3, 2}, {1, 3, 4, 6, 7, 9});
}

TEST(IndexingGather, ScalarIndexDropsTheAxis) {
  auto out = RunAll({.op_type = "Gather",
                     .attributes = {{"axis", IntAttr(-1)}},
                     .inputs = {I64({2, 3}, {1, 2, 3, 4, 5, 6}), I64({}, {2})}});
  ExpectValues<int64_t>(out[0], {2}, {3, 6});
}

TEST(IndexingGather, MovesFloat16BitsAndStrings) {
  Tensor half = Tensor::Empty(DType::kFloat16, {3});
  for (int i = 0; i < 3; ++i) half.data<uint16_t>()[i] = numerics::FloatToHalf(static_cast<float>(i + 1));
  auto out = RunAll({.op_type = "Gather", .inputs = {half, I64({2}, {2, 0})}});
  ASSERT_EQ(out[0].dtype(), DType::kFloat16);
  EXPECT_EQ(numerics::HalfToFloat(out[0].data<uint16_t>()[0]), 3.0f);
  EXPECT_EQ(numerics::HalfToFloat(out[0].data<uint16_t>()[1]), 1.0f);

  Tensor words = Tensor::Empty(DType::kString, {3});
  words.strings() = {"a", "b", "c"};
  out = RunAll({.op_type = "Gather", .inputs = {words, I64({2}, {1, 1})}});
  ASSERT_EQ(out[0].dtype(), DType::kString);
  EXPECT_EQ(out[0].strings(), (std::vector<std::string>{"b", "b"}));
}

TEST(IndexingGather, RejectsBadIndicesAndAxis) {
  ExpectInvalid({.op_type = "Gather", .inputs = {F32({3}, {1, 2, 3}), I64({1}, {3})}});
  ExpectInvalid({.op_type = "Gather", .inputs = {F32({3}, {1, 2, 3}), I64({1}, {-4})}});
  ExpectInvalid({.op_type = "Gather",
                 .attributes = {{"axis", IntAttr(1)}},
                 .inputs = {F32({3}, {1, 2, 3}), I64({1}, {0})}});
  auto unsupported = RunOp({.op_type = "Gather", .inputs = {F32({3}, {1, 2, 3}), F32({1}, {0})}});
  ASSERT_FALSE(unsupported.ok());
  EXPECT_EQ(unsupported.status().code(), StatusCode::kUnsupported);
}

// ---- GatherElements --------------------------------------------------------------------------

TEST(IndexingGatherElements, DocExamples) {
  auto out = RunAll({.op_type = "GatherElements",
                     .attributes = {{"axis", IntAttr(1)}},
                     .inputs = {F32({2, 2}, {1, 2, 3, 4}), I64({2, 2}, {0, 0, 1, 0})}});
  ExpectValues<float>(out[0], {2, 2}, {1, 1, 4, 3});
  out = RunAll(
      {.op_type = "GatherElements",
       .inputs = {F32({3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9}), Make<int32_t>({2, 3}, {1, 2, 0, 2, 0, 0})}});
  ExpectValues<float>(out[0], {2, 3}, {4, 8, 3, 7, 2, 3});
  out = RunAll({.op_type = "GatherElements",
                .inputs = {F32({3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9}), I64({2, 3}, {-1, -2, 0, -2, 0, 0})}});
  ExpectValues<float>(out[0], {2, 3}, {7, 5, 3, 4, 2, 3});
}

TEST(IndexingGatherElements, RejectsBadShapes) {
  ExpectInvalid({.op_type = "GatherElements", .inputs = {F32({2, 2}, {1, 2, 3, 4}), I64({2}, {0, 1})}});
  ExpectInvalid({.op_type = "GatherElements", .inputs = {F32({2, 2}, {1, 2, 3, 4}), I64({1, 1}, {2})}});
  ExpectInvalid({.op_type = "GatherElements",
                 .attributes = {{"axis", IntAttr(0)}},
                 .inputs = {F32({2, 2}, {1, 2, 3, 4}), I64({1, 3}, {0, 0, 0})}});
}

// ---- GatherND --------------------------------------------------------------------------------

TEST(IndexingGatherND, DocExamples) {
  const Tensor data = I64({2, 2}, {0, 1, 2, 3});
  auto out = RunAll({.op_type = "GatherND", .inputs = {data, I64({2, 2}, {0, 0, 1, 1})}});
  ExpectValues<int64_t>(out[0], {2}, {0, 3});
  out = RunAll({.op_type = "GatherND", .inputs = {data, I64({2, 1}, {1, 0})}});
  ExpectValues<int64_t>(out[0], {2, 2}, {2, 3, 0, 1});
  const Tensor cube = I64({2, 2, 2}, {0, 1, 2, 3, 4, 5, 6, 7});
  out = RunAll({.op_type = "GatherND", .inputs = {cube, I64({2, 1, 2}, {0, 1, 1, 0})}});
  ExpectValues<int64_t>(out[0], {2, 1, 2}, {2, 3, 4, 5});
  out = RunAll({.op_type = "GatherND",
                .attributes = {{"batch_dims", IntAttr(1)}},
                .inputs = {cube, I64({2, 1}, {1, 0})}});
  ExpectValues<int64_t>(out[0], {2, 2}, {2, 3, 4, 5});
  out = RunAll({.op_type = "GatherND", .inputs = {cube, Make<int32_t>({1, 3}, {-1, 0, -1})}});
  ExpectValues<int64_t>(out[0], {1}, {5});
}

TEST(IndexingGatherND, RejectsBadShapes) {
  const Tensor data = I64({2, 2}, {0, 1, 2, 3});
  ExpectInvalid({.op_type = "GatherND", .inputs = {data, I64({1, 3}, {0, 0, 0})}});
  ExpectInvalid({.op_type = "GatherND", .inputs = {data, I64({1, 2}, {0, 2})}});
  ExpectInvalid({.op_type = "GatherND",
                 .attributes = {{"batch_dims", IntAttr(1)}},
                 .inputs = {data, I64({3, 1}, {0, 0, 0})}});
  ExpectInvalid({.op_type = "GatherND",
                 .attributes = {{"batch_dims", IntAttr(2)}},
                 .inputs = {data, I64({2, 1}, {0, 0})}});
}

// ---- ScatterElements / Scatter ---------------------------------------------------------------

TEST(IndexingScatterElements, DocExampleAxis0) {
  auto out = RunAll({.op_type = "ScatterElements",
                     .inputs = {F32({3, 3}, std::vector<float>(9, 0.0f)), I64({2, 3}, {1, 0, 2, 0, 2, 1}),
                                F32({2, 3}, {1.0f, 1.1f, 1.2f, 2.0f, 2.1f, 2.2f})}});
  ExpectValues<float>(out[0], {3, 3}, {2.0f, 1.1f, 0.0f, 1.0f, 0.0f, 2.2f, 0.0f, 2.1f, 1.2f});
}

TEST(IndexingScatterElements, Axis1NegativeIndicesAndReductions) {
  const Tensor data = F32({1, 5}, {1, 2, 3, 4, 5});
  auto out = RunAll({.op_type = "ScatterElements",
                     .attributes = {{"axis", IntAttr(1)}},
                     .inputs = {data, I64({1, 2}, {1, -2}), F32({1, 2}, {1.5f, 2.5f})}});
  ExpectValues<float>(out[0], {1, 5}, {1, 1.5f, 3, 2.5f, 5});
  out = RunAll({.op_type = "ScatterElements",
                .attributes = {{"axis", IntAttr(1)}, {"reduction", StringAttr("add")}},
                .inputs = {data, I64({1, 2}, {1, 1}), F32({1, 2}, {1.5f, 2.5f})}});
  ExpectValues<float>(out[0], {1, 5}, {1, 6, 3, 4, 5});
  out = RunAll({.op_type = "ScatterElements",
                .attributes = {{"axis", IntAttr(1)}, {"reduction", StringAttr("mul")}},
                .inputs = {data, I64({1, 2}, {1, 1}), F32({1, 2}, {1.5f, 2.0f})}});
  ExpectValues<float>(out[0], {1, 5}, {1, 6, 3, 4, 5});
  // Without reduction the last of duplicate indices wins.
  out = RunAll({.op_type = "ScatterElements",
                .attributes = {{"axis", IntAttr(1)}},
                .inputs = {data, I64({1, 2}, {3, 3}), F32({1, 2}, {7, 8})}});
  ExpectValues<float>(out[0], {1, 5}, {1, 2, 3, 8, 5});
  // The input buffer is left alone.
  EXPECT_EQ(data.data<float>()[3], 4.0f);
}

TEST(IndexingScatterElements, DeprecatedScatter) {
  auto out = RunAll({.op_type = "Scatter",
                     .opset = 10,
                     .attributes = {{"axis", IntAttr(1)}},
                     .inputs = {I64({1, 3}, {1, 2, 3}), Make<int32_t>({1, 1}, {0}), I64({1, 1}, {9})}});
  ExpectValues<int64_t>(out[0], {1, 3}, {9, 2, 3});
}

TEST(IndexingScatterElements, RejectsBadInputs) {
  const Tensor data = F32({2, 2}, {1, 2, 3, 4});
  ExpectInvalid({.op_type = "ScatterElements", .inputs = {data, I64({1, 2}, {0, 1}), F32({2}, {1, 2})}});
  ExpectInvalid({.op_type = "ScatterElements", .inputs = {data, I64({1, 2}, {0, 2}), F32({1, 2}, {1, 2})}});
  ExpectInvalid({.op_type = "ScatterElements",
                 .attributes = {{"reduction", StringAttr("median")}},
                 .inputs = {data, I64({1, 2}, {0, 1}), F32({1, 2}, {1, 2})}});
  ExpectInvalid({.op_type = "ScatterElements",
                 .attributes = {{"axis", IntAttr(2)}},
                 .inputs = {data, I64({1, 2}, {0, 1}), F32({1, 2}, {1, 2})}});
}

// ---- ScatterND -------------------------------------------------------------------------------

TEST(IndexingScatterND, DocExamples) {
  auto out = RunAll(
      {.op_type = "ScatterND",
       .inputs = {F32({8}, {1, 2, 3, 4, 5, 6, 7, 8}), I64({4, 1}, {4, 3, 1, 7}), F32({4}, {9, 10, 11, 12})}});
  ExpectValues<float>(out[0], {8}, {1, 11, 3, 10, 9, 6, 7, 12});
  // Whole-row updates.
  out = RunAll({.op_type = "ScatterND",
                .inputs = {I64({2, 2, 2}, {0, 0, 0, 0, 0, 0, 0, 0}), I64({1, 1}, {-1}),
                           I64({1, 2, 2}, {1, 2, 3, 4})}});
  ExpectValues<int64_t>(out[0], {2, 2, 2}, {0, 0, 0, 0, 1, 2, 3, 4});
}

TEST(IndexingScatterND, Reductions) {
  const Tensor data = F32({4}, {1, 2, 3, 4});
  auto out = RunAll({.op_type = "ScatterND",
                     .attributes = {{"reduction", StringAttr("add")}},
                     .inputs = {data, I64({2, 1}, {0, 0}), F32({2}, {5, 6})}});
  ExpectValues<float>(out[0], {4}, {12, 2, 3, 4});
  out = RunAll({.op_type = "ScatterND",
                .attributes = {{"reduction", StringAttr("mul")}},
                .inputs = {data, I64({2, 1}, {3, 3}), F32({2}, {2, 3})}});
  ExpectValues<float>(out[0], {4}, {1, 2, 3, 24});
}

TEST(IndexingScatterND, RejectsBadInputs) {
  const Tensor data = F32({4}, {1, 2, 3, 4});
  ExpectInvalid({.op_type = "ScatterND", .inputs = {data, I64({1, 1}, {4}), F32({1}, {0})}});
  ExpectInvalid({.op_type = "ScatterND", .inputs = {data, I64({1, 2}, {0, 0}), F32({1}, {0})}});
  ExpectInvalid({.op_type = "ScatterND", .inputs = {data, I64({2, 1}, {0, 1}), F32({3}, {0, 0, 0})}});
}

// ---- TopK ------------------------------------------------------------------------------------

TEST(IndexingTopK, LargestAndSmallestAlongAxis1) {
  const Tensor x = F32({3, 4}, {0, 1, 2, 3, 4, 5, 6, 7, 11, 10, 9, 8});
  auto out = RunAll({.op_type = "TopK",
                     .attributes = {{"axis", IntAttr(1)}},
                     .inputs = {x, I64({1}, {3})},
                     .num_outputs = 2});
  ExpectValues<float>(out[0], {3, 3}, {3, 2, 1, 7, 6, 5, 11, 10, 9});
  ExpectValues<int64_t>(out[1], {3, 3}, {3, 2, 1, 3, 2, 1, 0, 1, 2});
  out = RunAll({.op_type = "TopK",
                .attributes = {{"largest", IntAttr(0)}},
                .inputs = {x, I64({1}, {2})},
                .num_outputs = 2});
  ExpectValues<float>(out[0], {3, 2}, {0, 1, 4, 5, 8, 9});
  ExpectValues<int64_t>(out[1], {3, 2}, {0, 1, 0, 1, 3, 2});
}

TEST(IndexingTopK, TiesKeepLowerIndexFirstAndAxis0) {
  auto out = RunAll({.op_type = "TopK",
                     .attributes = {{"axis", IntAttr(0)}},
                     .inputs = {Make<int32_t>({4, 2}, {1, 5, 3, 5, 3, 5, 2, 4}), I64({}, {2})},
                     .num_outputs = 2});
  ExpectValues<int32_t>(out[0], {2, 2}, {3, 5, 3, 5});
  ExpectValues<int64_t>(out[1], {2, 2}, {1, 0, 2, 1});
}

TEST(IndexingTopK, Opset1TakesKFromAttribute) {
  auto out = RunAll({.op_type = "TopK",
                     .opset = 9,
                     .attributes = {{"k", IntAttr(1)}},
                     .inputs = {F32({2, 3}, {1, 3, 2, 6, 5, 4})},
                     .num_outputs = 2});
  ExpectValues<float>(out[0], {2, 1}, {3, 6});
  ExpectValues<int64_t>(out[1], {2, 1}, {1, 0});
}

TEST(IndexingTopK, RejectsBadK) {
  const Tensor x = F32({3}, {1, 2, 3});
  ExpectInvalid({.op_type = "TopK", .inputs = {x, I64({1}, {4})}, .num_outputs = 2});
  ExpectInvalid({.op_type = "TopK", .inputs = {x, I64({1}, {-1})}, .num_outputs = 2});
  ExpectInvalid({.op_type = "TopK", .inputs = {x, I64({2}, {1, 1})}, .num_outputs = 2});
  ExpectInvalid({.op_type = "TopK",
                 .attributes = {{"axis", IntAttr(1)}},
                 .inputs = {x, I64({1}, {1})},
                 .num_outputs = 2});
}

// ---- Unique ----------------------------------------------------------------------------------

TEST(IndexingUnique, SortedAndUnsortedWithoutAxis) {
  const Tensor x = F32({6}, {2, 1, 1, 3, 4, 3});
  auto out = RunAll({.op_type = "Unique", .inputs = {x}, .num_outputs = 4});
  ExpectValues<float>(out[0], {4}, {1, 2, 3, 4});
  ExpectValues<int64_t>(out[1], {4}, {1, 0, 3, 4});
  ExpectValues<int64_t>(out[2], {6}, {1, 0, 0, 2, 3, 2});
  ExpectValues<int64_t>(out[3], {4}, {2, 1, 2, 1});
  out =
      RunAll({.op_type = "Unique", .attributes = {{"sorted", IntAttr(0)}}, .inputs = {x}, .num_outputs = 4});
  ExpectValues<float>(out[0], {4}, {2, 1, 3, 4});
  ExpectValues<int64_t>(out[1], {4}, {0, 1, 3, 4});
  ExpectValues<int64_t>(out[2], {6}, {0, 1, 1, 2, 3, 2});
  ExpectValues<int64_t>(out[3], {4}, {1, 2, 2, 1});
}

TEST(IndexingUnique, SlicesAlongAxis) {
  // Columns of [[1, 0, 1], [2, 5, 2]]: (1,2), (0,5), (1,2) -> unique sorted (0,5), (1,2).
  auto out = RunAll({.op_type = "Unique",
                     .attributes = {{"axis", IntAttr(-1)}},
                     .inputs = {I64({2, 3}, {1, 0, 1, 2, 5, 2})},
                     .num_outputs = 4});
  ExpectValues<int64_t>(out[0], {2, 2}, {0, 1, 5, 2});
  ExpectValues<int64_t>(out[1], {2}, {1, 0});
  ExpectValues<int64_t>(out[2], {3}, {1, 0, 1});
  ExpectValues<int64_t>(out[3], {2}, {1, 2});
  out = RunAll({.op_type = "Unique",
                .attributes = {{"axis", IntAttr(0)}},
                .inputs = {F32({3, 3}, {1, 0, 0, 1, 0, 0, 2, 3, 4})},
                .num_outputs = 4});
  ExpectValues<float>(out[0], {2, 3}, {1, 0, 0, 2, 3, 4});
  ExpectValues<int64_t>(out[2], {3}, {0, 0, 1});
}

TEST(IndexingUnique, RejectsBadAxis) {
  ExpectInvalid({.op_type = "Unique", .attributes = {{"axis", IntAttr(2)}}, .inputs = {F32({2}, {1, 2})}});
}

// ---- CumSum ----------------------------------------------------------------------------------

TEST(IndexingCumSum, ExclusiveAndReverse) {
  const Tensor x = F32({5}, {1, 2, 3, 4, 5});
  const Tensor axis = Make<int32_t>({}, {0});
  auto out = RunAll({.op_type = "CumSum", .inputs = {x, axis}});
  ExpectValues<float>(out[0], {5}, {1, 3, 6, 10, 15});
  out = RunAll({.op_type = "CumSum", .attributes = {{"exclusive", IntAttr(1)}}, .inputs = {x, axis}});
  ExpectValues<float>(out[0], {5}, {0, 1, 3, 6, 10});
  out = RunAll({.op_type = "CumSum", .attributes = {{"reverse", IntAttr(1)}}, .inputs = {x, axis}});
  ExpectValues<float>(out[0], {5}, {15, 14, 12, 9, 5});
  out = RunAll({.op_type = "CumSum",
                .attributes = {{"reverse", IntAttr(1)}, {"exclusive", IntAttr(1)}},
                .inputs = {x, axis}});
  ExpectValues<float>(out[0], {5}, {14, 12, 9, 5, 0});
}

TEST(IndexingCumSum, TwoDimensionsBothAxes) {
  const Tensor x = I64({2, 3}, {1, 2, 3, 4, 5, 6});
  auto out = RunAll({.op_type = "CumSum", .inputs = {x, I64({1}, {0})}});
  ExpectValues<int64_t>(out[0], {2, 3}, {1, 2, 3, 5, 7, 9});
  out = RunAll({.op_type = "CumSum", .inputs = {x, I64({}, {-1})}});
  ExpectValues<int64_t>(out[0], {2, 3}, {1, 3, 6, 4, 9, 15});
}

TEST(IndexingCumSum, RejectsBadAxis) {
  const Tensor x = F32({2}, {1, 2});
  ExpectInvalid({.op_type = "CumSum", .inputs = {x, I64({}, {1})}});
  ExpectInvalid({.op_type = "CumSum", .inputs = {x, I64({2}, {0, 0})}});
}

}  // namespace
}  // namespace npugap::testing::indexing
