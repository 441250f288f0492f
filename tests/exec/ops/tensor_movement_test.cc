// Tensor family, data movement: Transpose, Concat, Split, Slice, Expand, Tile, Pad,
// DepthToSpace, SpaceToDepth, ReverseSequence, Compress. Expected values come from the ONNX spec
// examples, numpy's documented behaviour, or (for the large transposes that exercise the tiled
// path) the index formula out[..., j, i] = in[..., i, j] evaluated element by element.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "op_test_expect.h"

namespace npugap {
namespace {

template <typename T>
Tensor Iota(Shape shape) {
  Tensor t = Tensor::Empty(ir::DTypeOf<T>::value, std::move(shape));
  for (int64_t i = 0; i < t.numel(); ++i) t.data<T>()[i] = static_cast<T>(i);
  return t;
}

constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();
constexpr int64_t kInt64Min = std::numeric_limits<int64_t>::min();

// ---- Transpose -----------------------------------------------------------------------------

TEST(TensorOpsTranspose, DefaultReversesDims) {
  const Tensor out = Run1({.op_type = "Transpose", .inputs = {Make<float>({2, 3}, {1, 2, 3, 4, 5, 6})}});
  EXPECT_EQ(out.shape(), (Shape{3, 2}));
  EXPECT_EQ(Values<float>(out), (std::vector<float>{1, 4, 2, 5, 3, 6}));
}

TEST(TensorOpsTranspose, SwapOuterDimsKeepsRuns) {
  const Tensor out = Run1({.op_type = "Transpose",
                           .attributes = {{"perm", IntsAttr({1, 0, 2})}},
                           .inputs = {Iota<int32_t>({2, 2, 2})}});
  EXPECT_EQ(Values<int32_t>(out), (std::vector<int32_t>{0, 1, 4, 5, 2, 3, 6, 7}));
}

TEST(TensorOpsTranspose, IdentityPermAliases) {
  const Tensor in = Iota<float>({2, 3});
  EXPECT_TRUE(Run1({.op_type = "Transpose", .attributes = {{"perm", IntsAttr({0, 1})}}, .inputs = {in}})
                  .SharesBufferWith(in));
}

// Batched last-two-dims swap, large enough for the tiled path, with ragged tile edges.
template <typename T>
void CheckBatchedSwap(int64_t batch, int64_t rows, int64_t cols) {
  const Tensor out = Run1({.op_type = "Transpose",
                           .attributes = {{"perm", IntsAttr({0, 2, 1})}},
                           .inputs = {Iota<T>({batch, rows, cols})}});
  ASSERT_EQ(out.shape(), (Shape{batch, cols, rows}));
  const T* o = out.data<T>();
  for (int64_t b = 0; b < batch; ++b) {
    for (int64_t j = 0; j < cols; ++j) {
      for (int64_t i = 0; i < rows; ++i) {
        ASSERT_EQ(o[(b * cols + j) * rows + i], static_cast<T>((b * rows + i) * cols + j))
            << b << " " << j << " " << i;
      }
    }
  }
}

TEST(TensorOpsTranspose, TiledSwapAllElementSizes) {
  CheckBatchedSwap<uint8_t>(2, 37, 50);
  CheckBatchedSwap<uint16_t>(3, 65, 33);
  CheckBatchedSwap<float>(3, 37, 50);
  CheckBatchedSwap<int64_t>(2, 40, 17);
}

// Swapping two outer dims above a short innermost run: tiled with the run as the element.
TEST(TensorOpsTranspose, TiledShortRuns) {
  const int64_t n = 12, c = 37, w = 3;
  const Tensor out = Run1({.op_type = "Transpose",
                           .attributes = {{"perm", IntsAttr({1, 0, 2})}},
                           .inputs = {Iota<int32_t>({n, c, w})}});
  ASSERT_EQ(out.shape(), (Shape{c, n, w}));
  for (int64_t ic = 0; ic < c; ++ic) {
    for (int64_t in = 0; in < n; ++in) {
      for (int64_t iw = 0; iw < w; ++iw) {
        ASSERT_EQ(out.data<int32_t>()[(ic * n + in) * w + iw], (in * c + ic) * w + iw);
      }
    }
  }
  std::vector<std::string> words;
  for (int i = 0; i < 8 * 9 * 2; ++i) words.push_back(std::to_string(i));
  const Tensor strings = Run1({.op_type = "Transpose",
                               .attributes = {{"perm", IntsAttr({1, 0, 2})}},
                               .inputs = {Strings({8, 9, 2}, words)}});
  EXPECT_EQ(strings.strings()[2], "18");                    // out[0][1][0] = in[1][0][0]
  EXPECT_EQ(strings.strings()[(8 * 8 + 0) * 2 + 1], "17");  // out[8][0][1] = in[0][8][1]
}

TEST(TensorOpsTranspose, NchwToNhwc) {
  const int64_t n = 2, c = 16, h = 9, w = 11;
  const Tensor out = Run1({.op_type = "Transpose",
                           .attributes = {{"perm", IntsAttr({0, 2, 3, 1})}},
                           .inputs = {Iota<float>({n, c, h, w})}});
  ASSERT_EQ(out.shape(), (Shape{n, h, w, c}));
  for (int64_t in = 0; in < n; ++in) {
    for (int64_t ih = 0; ih < h; ++ih) {
      for (int64_t iw = 0; iw < w; ++iw) {
        for (int64_t ic = 0; ic < c; ++ic) {
          ASSERT_EQ(out.data<float>()[((in * h + ih) * w + iw) * c + ic],
                    static_cast<float>(((in * c + ic) * h + ih) * w + iw));
        }
      }
    }
  }
}

TEST(TensorOpsTranspose, Strings) {
  const Tensor out = Run1({.op_type = "Transpose", .inputs = {Strings({2, 2}, {"a", "b", "c", "d"})}});
  EXPECT_EQ(out.strings(), (std::vector<std::string>{"a", "c", "b", "d"}));
}

TEST(TensorOpsTranspose, BadPermFails) {
  const Tensor in = Iota<float>({2, 3});
  EXPECT_FALSE(RunOp({.op_type = "Transpose", .attributes = {{"perm", IntsAttr({0})}}, .inputs = {in}}).ok());
  EXPECT_FALSE(
      RunOp({.op_type = "Transpose", .attributes = {{"perm", IntsAttr({1, 1})}}, .inputs = {in}}).ok());
  EXPECT_FALSE(
      RunOp({.op_type = "Transpose", .attributes = {{"perm", IntsAttr({0, 2})}}, .inputs = {in}}).ok());
}

// ---- Concat, Split -------------------------------------------------------------------------

TEST(TensorOpsConcat, InnerAndOuterAxis) {
  const Tensor a = Make<float>({2, 2}, {1, 2, 3, 4});
  const Tensor b = Make<float>({2, 1}, {5, 6});
  EXPECT_EQ(
      Values<float>(Run1({.op_type = "Concat", .attributes = {{"axis", IntAttr(1)}}, .inputs = {a, b}})),
      (std::vector<float>{1, 2, 5, 3, 4, 6}));
  const Tensor out = Run1({.op_type = "Concat",
                           .attributes = {{"axis", IntAttr(-2)}},
                           .inputs = {Strings({1, 2}, {"x", "y"}), Strings({1, 2}, {"z", "w"})}});
  EXPECT_EQ(out.shape(), (Shape{2, 2}));
  EXPECT_EQ(out.strings(), (std::vector<std::string>{"x", "y", "z", "w"}));
}

TEST(TensorOpsConcat, EmptyInputsAndErrors) {
  const Tensor a = Make<int64_t>({2}, {1, 2});
  const Tensor empty = Tensor::Empty(DType::kInt64, {0});
  EXPECT_EQ(Values<int64_t>(
                Run1({.op_type = "Concat", .attributes = {{"axis", IntAttr(0)}}, .inputs = {empty, a, a}})),
            (std::vector<int64_t>{1, 2, 1, 2}));
  EXPECT_FALSE(RunOp({.op_type = "Concat",
                      .attributes = {{"axis", IntAttr(0)}},
                      .inputs = {a, Make<int64_t>({1, 2}, {1, 2})}})
                   .ok());
  EXPECT_FALSE(RunOp({.op_type = "Concat", .attributes = {{"axis", IntAttr(1)}}, .inputs = {a, a}}).ok());
  EXPECT_FALSE(RunOp({.op_type = "Concat", .inputs = {a, a}}).ok());  // axis is required from opset 4
}

TEST(TensorOpsSplit, EqualAndGivenSizes) {
  auto out = RunOp({.op_type = "Split", .inputs = {Make<float>({6}, {1, 2, 3, 4, 5, 6})}, .num_outputs = 3});
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(Values<float>((*out)[2]), (std::vector<float>{5, 6}));
  out = RunOp({.op_type = "Split",
               .attributes = {{"axis", IntAttr(1)}},
               .inputs = {Iota<float>({2, 3}), Make<int64_t>({2}, {1, 2})},
               .num_outputs = 2});
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(Values<float>((*out)[0]), (std::vector<float>{0, 3}));
  EXPECT_EQ(Values<float>((*out)[1]), (std::vector<float>{1, 2, 4, 5}));
  out = RunOp({.op_type = "Split",
               .opset = 11,
               .attributes = {{"split", IntsAttr({2, 0, 1})}},
               .inputs = {Iota<int32_t>({3})},
               .num_outputs = 3});
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(Values<int32_t>((*out)[0]), (std::vector<int32_t>{0, 1}));
  EXPECT_EQ((*out)[1].numel(), 0);
}

TEST(TensorOpsSplit, BadSizesFail) {
  const Tensor in = Iota<float>({5});
  EXPECT_FALSE(RunOp({.op_type = "Split", .inputs = {in}, .num_outputs = 2}).ok());
  EXPECT_FALSE(
      RunOp({.op_type = "Split", .inputs = {in, Make<int64_t>({2}, {1, 2})}, .num_outputs = 2}).ok());
  EXPECT_FALSE(RunOp({.op_type = "Split", .inputs = {in, Make<int64_t>({1}, {5})}, .num_outputs = 2}).ok());
  EXPECT_FALSE(
      RunOp({.op_type = "Split", .attributes = {{"axis", IntAttr(1)}}, .inputs = {in}, .num_outputs = 1})
          .ok());
}

// ---- Slice ---------------------------------------------------------------------------------

TEST(TensorOpsSlice, SpecExamples) {
  const Tensor data = Make<float>({2, 4}, {1, 2, 3, 4, 5, 6, 7, 8});
  Tensor out = Run1({.op_type = "Slice",
                     .inputs = {data, Make<int64_t>({2}, {1, 0}), Make<int64_t>({2}, {2, 3}),
                                Make<int64_t>({2}, {0, 1}), Make<int64_t>({2}, {1, 2})}});
  EXPECT_EQ(out.shape(), (Shape{1, 2}));
  EXPECT_EQ(Values<float>(out), (std::vector<float>{5, 7}));
  out = Run1(
      {.op_type = "Slice", .inputs = {data, Make<int64_t>({2}, {0, 1}), Make<int64_t>({2}, {-1, 1000})}});
  EXPECT_EQ(out.shape(), (Shape{1, 3}));
  EXPECT_EQ(Values<float>(out), (std::vector<float>{2, 3, 4}));
}

TEST(TensorOpsSlice, NegativeStepsAndExtremeBounds) {
  const Tensor data = Iota<int32_t>({10});
  Tensor out = Run1({.op_type = "Slice",
                     .inputs = {data, Make<int64_t>({1}, {-1}), Make<int64_t>({1}, {kInt64Min}), Tensor{},
                                Make<int64_t>({1}, {-3})}});
  EXPECT_EQ(Values<int32_t>(out), (std::vector<int32_t>{9, 6, 3, 0}));
  out = Run1({.op_type = "Slice",
              .inputs = {data, Make<int64_t>({1}, {kInt64Max}), Make<int64_t>({1}, {2}), Tensor{},
                         Make<int64_t>({1}, {-1})}});
  EXPECT_EQ(Values<int32_t>(out), (std::vector<int32_t>{9, 8, 7, 6, 5, 4, 3}));
  out = Run1({.op_type = "Slice", .inputs = {data, Make<int32_t>({1}, {20}), Make<int32_t>({1}, {30})}});
  EXPECT_EQ(out.numel(), 0);
}

TEST(TensorOpsSlice, Opset1AttributesAndWholeAlias) {
  const Tensor data = Iota<float>({3, 4});
  const Tensor out = Run1(
      {.op_type = "Slice",
       .opset = 9,
       .attributes = {{"starts", IntsAttr({1})}, {"ends", IntsAttr({kInt64Max})}, {"axes", IntsAttr({1})}},
       .inputs = {data}});
  EXPECT_EQ(out.shape(), (Shape{3, 3}));
  EXPECT_EQ(Values<float>(out), (std::vector<float>{1, 2, 3, 5, 6, 7, 9, 10, 11}));
  EXPECT_TRUE(
      Run1({.op_type = "Slice", .inputs = {data, Make<int64_t>({1}, {0}), Make<int64_t>({1}, {kInt64Max})}})
          .SharesBufferWith(data));
}

TEST(TensorOpsSlice, BadArgumentsFail) {
  const Tensor data = Iota<float>({3, 4});
  const Tensor one = Make<int64_t>({1}, {0});
  EXPECT_FALSE(RunOp({.op_type = "Slice", .inputs = {data, one, one, one, Make<int64_t>({1}, {0})}}).ok());
  EXPECT_FALSE(RunOp({.op_type = "Slice", .inputs = {data, one, one, Make<int64_t>({1}, {2})}}).ok());
  EXPECT_FALSE(RunOp({.op_type = "Slice", .inputs = {data, one, Make<int64_t>({2}, {1, 1})}}).ok());
  EXPECT_FALSE(RunOp({.op_type = "Slice",
                      .inputs = {data, Make<int64_t>({2}, {0, 0}), Make<int64_t>({2}, {1, 1}),
                                 Make<int64_t>({2}, {1, -1})}})
                   .ok());
}

// ---- Expand, Tile --------------------------------------------------------------------------

TEST(TensorOpsExpand, BroadcastsBothWays) {
  const Tensor out =
      Run1({.op_type = "Expand", .inputs = {Make<float>({3, 1}, {1, 2, 3}), Make<int64_t>({3}, {2, 1, 4})}});
  EXPECT_EQ(out.shape(), (Shape{2, 3, 4}));
  std::vector<float> expected;
  for (int rep = 0; rep < 2; ++rep) {
    for (float v : {1.0f, 2.0f, 3.0f}) expected.insert(expected.end(), 4, v);
  }
  EXPECT_EQ(Values<float>(out), expected);
  EXPECT_FALSE(
      RunOp({.op_type = "Expand", .inputs = {Make<float>({3}, {1, 2, 3}), Make<int64_t>({1}, {2})}}).ok());
}

TEST(TensorOpsTile, RepeatsPerDim) {
  const Tensor out =
      Run1({.op_type = "Tile", .inputs = {Make<float>({2, 2}, {0, 1, 2, 3}), Make<int64_t>({2}, {2, 2})}});
  EXPECT_EQ(out.shape(), (Shape{4, 4}));
  EXPECT_EQ(Values<float>(out), (std::vector<float>{0, 1, 0, 1, 2, 3, 2, 3, 0, 1, 0, 1, 2, 3, 2, 3}));
  const Tensor col =
      Run1({.op_type = "Tile", .inputs = {Make<int8_t>({2, 1}, {4, 5}), Make<int64_t>({2}, {1, 3})}});
  EXPECT_EQ(Values<int8_t>(col), (std::vector<int8_t>{4, 4, 4, 5, 5, 5}));
}

TEST(TensorOpsTile, Opset1TilesOneAxis) {
  const Tensor out =
      Run1({.op_type = "Tile",
            .opset = 1,
            .inputs = {Make<float>({1, 2}, {1, 2}), Make<int64_t>({}, {3}), Make<int64_t>({}, {0})}});
  EXPECT_EQ(out.shape(), (Shape{3, 2}));
  EXPECT_EQ(Values<float>(out), (std::vector<float>{1, 2, 1, 2, 1, 2}));
}

TEST(TensorOpsTile, BadRepeatsFail) {
  const Tensor in = Iota<float>({2, 2});
  EXPECT_FALSE(RunOp({.op_type = "Tile", .inputs = {in, Make<int64_t>({1}, {2})}}).ok());
  EXPECT_FALSE(RunOp({.op_type = "Tile", .inputs = {in, Make<int64_t>({2}, {1, -1})}}).ok());
}

// ---- Pad -----------------------------------------------------------------------------------

OpCall PadCall(const std::string& mode, Tensor data, std::vector<int64_t> pads) {
  const int64_t n = static_cast<int64_t>(pads.size());
  return {.op_type = "Pad",
          .attributes = {{"mode", StringAttr(mode)}},
          .inputs = {data, Make<int64_t>({n}, pads)}};
}

TEST(TensorOpsPad, SpecExamples) {
  const Tensor data = Make<float>({3, 2}, {1.0f, 1.2f, 2.3f, 3.4f, 4.5f, 5.7f});
  EXPECT_EQ(Values<float>(Run1(PadCall("constant", data, {0, 2, 0, 0}))),
            (std::vector<float>{0, 0, 1.0f, 1.2f, 0, 0, 2.3f, 3.4f, 0, 0, 4.5f, 5.7f}));
  EXPECT_EQ(Values<float>(Run1(PadCall("reflect", data, {0, 2, 0, 0}))),
            (std::vector<float>{1.0f, 1.2f, 1.0f, 1.2f, 2.3f, 3.4f, 2.3f, 3.4f, 4.5f, 5.7f, 4.5f, 5.7f}));
  EXPECT_EQ(Values<float>(Run1(PadCall("edge", data, {0, 2, 0, 0}))),
            (std::vector<float>{1.0f, 1.0f, 1.0f, 1.2f, 2.3f, 2.3f, 2.3f, 3.4f, 4.5f, 4.5f, 4.5f, 5.7f}));
}

TEST(TensorOpsPad, LikeNumpyOnLongPadsAndBothAxes) {
  const Tensor row = Make<int32_t>({3}, {1, 2, 3});
  EXPECT_EQ(Values<int32_t>(Run1(PadCall("reflect", row, {3, 5}))),
            (std::vector<int32_t>{2, 3, 2, 1, 2, 3, 2, 1, 2, 3, 2}));
  EXPECT_EQ(Values<int32_t>(Run1(PadCall("edge", row, {2, 2}))), (std::vector<int32_t>{1, 1, 1, 2, 3, 3, 3}));
  // Edge on both axes: the corners take the corner value.
  const Tensor out = Run1(PadCall("edge", Make<int32_t>({2, 2}, {1, 2, 3, 4}), {1, 0, 0, 1}));
  EXPECT_EQ(out.shape(), (Shape{3, 3}));
  EXPECT_EQ(Values<int32_t>(out), (std::vector<int32_t>{1, 2, 2, 1, 2, 2, 3, 4, 4}));
}

TEST(TensorOpsPad, NegativePadsCropAndConstantInput) {
  OpCall call = PadCall("constant", Make<float>({4}, {1, 2, 3, 4}), {-1, 2});
  call.inputs.push_back(Make<float>({}, {7}));
  EXPECT_EQ(Values<float>(Run1(call)), (std::vector<float>{2, 3, 4, 7, 7}));
  const Tensor old = Run1({.op_type = "Pad",
                           .opset = 2,
                           .attributes = {{"pads", IntsAttr({1, 0})}, {"value", FloatAttr(5)}},
                           .inputs = {Make<int64_t>({2}, {8, 9})}});
  EXPECT_EQ(Values<int64_t>(old), (std::vector<int64_t>{5, 8, 9}));
}

TEST(TensorOpsPad, BadArgumentsFail) {
  const Tensor data = Iota<float>({2, 2});
  EXPECT_FALSE(RunOp(PadCall("constant", data, {1, 1})).ok());
  EXPECT_FALSE(RunOp(PadCall("wrap", data, {0, 0, 0, 0})).ok());
  EXPECT_FALSE(RunOp(PadCall("constant", data, {-3, 0, 0, 0})).ok());
  EXPECT_FALSE(RunOp(PadCall("edge", Tensor::Empty(DType::kFloat32, {0}), {1, 1})).ok());
}

// ---- DepthToSpace, SpaceToDepth, ReverseSequence, Compress ---------------------------------

TEST(TensorOpsDepthToSpace, DcrAndCrd) {
  // x[c] = c, shape [1, 8, 1, 1], blocksize 2: DCR takes channel (bh * 2 + bw) * 2 + c',
  // CRD takes c' * 4 + bh * 2 + bw (the reshapes in the spec).
  const Tensor x = Iota<float>({1, 8, 1, 1});
  const Tensor dcr =
      Run1({.op_type = "DepthToSpace", .attributes = {{"blocksize", IntAttr(2)}}, .inputs = {x}});
  EXPECT_EQ(dcr.shape(), (Shape{1, 2, 2, 2}));
  EXPECT_EQ(Values<float>(dcr), (std::vector<float>{0, 2, 4, 6, 1, 3, 5, 7}));
  const Tensor crd = Run1({.op_type = "DepthToSpace",
                           .attributes = {{"blocksize", IntAttr(2)}, {"mode", StringAttr("CRD")}},
                           .inputs = {x}});
  EXPECT_EQ(Values<float>(crd), (std::vector<float>{0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_FALSE(
      RunOp({.op_type = "DepthToSpace", .attributes = {{"blocksize", IntAttr(3)}}, .inputs = {x}}).ok());
  EXPECT_FALSE(RunOp({.op_type = "DepthToSpace",
                      .attributes = {{"blocksize", IntAttr(2)}},
                      .inputs = {Iota<float>({8})}})
                   .ok());
}

TEST(TensorOpsSpaceToDepth, InverseOfDcr) {
  // x[c, h, w] = c * 4 + h * 2 + w; output channel (bh * 2 + bw) * C + c.
  const Tensor out = Run1({.op_type = "SpaceToDepth",
                           .attributes = {{"blocksize", IntAttr(2)}},
                           .inputs = {Iota<float>({1, 2, 2, 2})}});
  EXPECT_EQ(out.shape(), (Shape{1, 8, 1, 1}));
  EXPECT_EQ(Values<float>(out), (std::vector<float>{0, 4, 1, 5, 2, 6, 3, 7}));
  EXPECT_FALSE(RunOp({.op_type = "SpaceToDepth",
                      .attributes = {{"blocksize", IntAttr(2)}},
                      .inputs = {Iota<float>({1, 1, 3, 2})}})
                   .ok());
}

TEST(TensorOpsReverseSequence, SpecExamples) {
  const Tensor time_major = Make<float>({4, 4}, {0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15});
  Tensor out = Run1({.op_type = "ReverseSequence",
                     .attributes = {{"time_axis", IntAttr(0)}, {"batch_axis", IntAttr(1)}},
                     .inputs = {time_major, Make<int64_t>({4}, {4, 3, 2, 1})}});
  EXPECT_EQ(Values<float>(out), (std::vector<float>{3, 6, 9, 12, 2, 5, 8, 13, 1, 4, 10, 14, 0, 7, 11, 15}));
  out = Run1({.op_type = "ReverseSequence",
              .attributes = {{"time_axis", IntAttr(1)}, {"batch_axis", IntAttr(0)}},
              .inputs = {Iota<float>({4, 4}), Make<int64_t>({4}, {1, 2, 3, 4})}});
  EXPECT_EQ(Values<float>(out), (std::vector<float>{0, 1, 2, 3, 5, 4, 6, 7, 10, 9, 8, 11, 15, 14, 13, 12}));
  EXPECT_FALSE(
      RunOp({.op_type = "ReverseSequence", .inputs = {Iota<float>({4, 4}), Make<int64_t>({4}, {1, 2, 3, 5})}})
          .ok());
  EXPECT_FALSE(
      RunOp({.op_type = "ReverseSequence", .inputs = {Iota<float>({4, 4}), Make<int64_t>({3}, {1, 2, 3})}})
          .ok());
}

TEST(TensorOpsCompress, LikeNumpyCompress) {
  const Tensor a = Make<float>({3, 2}, {1, 2, 3, 4, 5, 6});
  EXPECT_EQ(
      Values<float>(Run1(
          {.op_type = "Compress", .attributes = {{"axis", IntAttr(0)}}, .inputs = {a, Bools({2}, {0, 1})}})),
      (std::vector<float>{3, 4}));
  EXPECT_EQ(Values<float>(Run1({.op_type = "Compress",
                                .attributes = {{"axis", IntAttr(0)}},
                                .inputs = {a, Bools({3}, {0, 1, 1})}})),
            (std::vector<float>{3, 4, 5, 6}));
  const Tensor cols =
      Run1({.op_type = "Compress", .attributes = {{"axis", IntAttr(-1)}}, .inputs = {a, Bools({2}, {0, 1})}});
  EXPECT_EQ(cols.shape(), (Shape{3, 1}));
  EXPECT_EQ(Values<float>(cols), (std::vector<float>{2, 4, 6}));
  EXPECT_EQ(Values<float>(Run1({.op_type = "Compress", .inputs = {a, Bools({2}, {0, 1})}})),
            (std::vector<float>{2}));
  EXPECT_FALSE(RunOp({.op_type = "Compress",
                      .attributes = {{"axis", IntAttr(0)}},
                      .inputs = {a, Bools({4}, {0, 0, 0, 1})}})
                   .ok());
  EXPECT_FALSE(
      RunOp({.op_type = "Compress", .attributes = {{"axis", IntAttr(2)}}, .inputs = {a, Bools({1}, {1})}})
          .ok());
}

}  // namespace
}  // namespace npugap
