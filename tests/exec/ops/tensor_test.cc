// Tensor family: metadata ops (Constant, Identity, Reshape, Flatten, Squeeze, Unsqueeze, Shape,
// Size, Dropout), generators (ConstantOfShape, Range, EyeLike, Trilu, OneHot, NonZero) and Cast.
// Expected values are worked out by hand from the ONNX spec. Data movement is tested in
// tensor_movement_test.cc.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "npugap/numerics/half.h"
#include "op_test_expect.h"

namespace npugap {
namespace {

StatusCode CodeOf(const OpCall& call) { return RunOp(call).status().code(); }

// ---- Constant, Identity --------------------------------------------------------------------

TEST(TensorOpsConstant, ValueAttributes) {
  ir::Attribute tensor;
  tensor.kind = ir::Attribute::Kind::kTensor;
  tensor.t = Make<int32_t>({2}, {7, 8});
  Tensor out = Run1({.op_type = "Constant", .attributes = {{"value", tensor}}});
  EXPECT_EQ(out.dtype(), DType::kInt32);
  EXPECT_EQ(Values<int32_t>(out), (std::vector<int32_t>{7, 8}));

  out = Run1({.op_type = "Constant", .attributes = {{"value_floats", testing::FloatsAttr({1.5f, -2})}}});
  EXPECT_EQ(out.shape(), (Shape{2}));
  EXPECT_EQ(Values<float>(out), (std::vector<float>{1.5f, -2}));

  out = Run1({.op_type = "Constant", .attributes = {{"value_int", IntAttr(-4)}}});
  EXPECT_EQ(out.rank(), 0);
  EXPECT_EQ(out.dtype(), DType::kInt64);
  EXPECT_EQ(*out.data<int64_t>(), -4);

  ir::Attribute strings;
  strings.kind = ir::Attribute::Kind::kStrings;
  strings.strings = {"a", "bc"};
  out = Run1({.op_type = "Constant", .attributes = {{"value_strings", strings}}});
  EXPECT_EQ(out.strings(), (std::vector<std::string>{"a", "bc"}));
}

TEST(TensorOpsConstant, NoValueIsUnsupported) {
  EXPECT_EQ(CodeOf({.op_type = "Constant"}), StatusCode::kUnsupported);
}

TEST(TensorOpsIdentity, AliasesInput) {
  const Tensor in = Make<float>({2}, {1, 2});
  const Tensor out = Run1({.op_type = "Identity", .inputs = {in}});
  EXPECT_TRUE(out.SharesBufferWith(in));
}

// ---- Reshape, Flatten, Squeeze, Unsqueeze --------------------------------------------------

TEST(TensorOpsReshape, ZeroCopiesDimAndMinusOneIsInferred) {
  const Tensor in = Tensor::Empty(DType::kFloat32, {2, 3, 4});
  const Tensor out = Run1({.op_type = "Reshape", .inputs = {in, Make<int64_t>({3}, {0, -1, 2})}});
  EXPECT_EQ(out.shape(), (Shape{2, 6, 2}));
  EXPECT_TRUE(out.SharesBufferWith(in));
}

TEST(TensorOpsReshape, AllowZeroKeepsZero) {
  const Tensor in = Tensor::Empty(DType::kFloat32, {0, 3, 4});
  const Tensor out = Run1({.op_type = "Reshape",
                           .attributes = {{"allowzero", IntAttr(1)}},
                           .inputs = {in, Make<int64_t>({3}, {3, 4, 0})}});
  EXPECT_EQ(out.shape(), (Shape{3, 4, 0}));
}

TEST(TensorOpsReshape, Opset1ReadsShapeAttribute) {
  const Tensor out = Run1({.op_type = "Reshape",
                           .opset = 1,
                           .attributes = {{"shape", IntsAttr({4, -1})}},
                           .inputs = {Tensor::Empty(DType::kFloat32, {2, 6})}});
  EXPECT_EQ(out.shape(), (Shape{4, 3}));
}

TEST(TensorOpsReshape, BadShapesFail) {
  const Tensor in = Tensor::Empty(DType::kFloat32, {2, 3});
  EXPECT_FALSE(RunOp({.op_type = "Reshape", .inputs = {in, Make<int64_t>({2}, {-1, -1})}}).ok());
  EXPECT_FALSE(RunOp({.op_type = "Reshape", .inputs = {in, Make<int64_t>({2}, {4, 2})}}).ok());
  EXPECT_FALSE(RunOp({.op_type = "Reshape", .inputs = {in, Make<int64_t>({2}, {4, -1})}}).ok());
  EXPECT_FALSE(RunOp({.op_type = "Reshape", .inputs = {in, Make<int64_t>({1}, {-2})}}).ok());
}

TEST(TensorOpsFlatten, Axes) {
  const Tensor in = Tensor::Empty(DType::kFloat32, {2, 3, 4, 5});
  EXPECT_EQ(Run1({.op_type = "Flatten", .inputs = {in}}).shape(), (Shape{2, 60}));
  EXPECT_EQ(Run1({.op_type = "Flatten", .attributes = {{"axis", IntAttr(0)}}, .inputs = {in}}).shape(),
            (Shape{1, 120}));
  EXPECT_EQ(Run1({.op_type = "Flatten", .attributes = {{"axis", IntAttr(4)}}, .inputs = {in}}).shape(),
            (Shape{120, 1}));
  EXPECT_EQ(Run1({.op_type = "Flatten", .attributes = {{"axis", IntAttr(-1)}}, .inputs = {in}}).shape(),
            (Shape{24, 5}));
  EXPECT_FALSE(RunOp({.op_type = "Flatten", .attributes = {{"axis", IntAttr(5)}}, .inputs = {in}}).ok());
}

TEST(TensorOpsSqueeze, AllOnesOrListedAxes) {
  const Tensor in = Tensor::Empty(DType::kFloat32, {1, 3, 1, 2});
  EXPECT_EQ(Run1({.op_type = "Squeeze", .inputs = {in}}).shape(), (Shape{3, 2}));
  EXPECT_EQ(Run1({.op_type = "Squeeze", .inputs = {in, Make<int64_t>({1}, {-2})}}).shape(), (Shape{1, 3, 2}));
  EXPECT_EQ(Run1({.op_type = "Squeeze", .opset = 11, .attributes = {{"axes", IntsAttr({0})}}, .inputs = {in}})
                .shape(),
            (Shape{3, 1, 2}));
  EXPECT_FALSE(RunOp({.op_type = "Squeeze", .inputs = {in, Make<int64_t>({1}, {1})}}).ok());
  EXPECT_FALSE(RunOp({.op_type = "Squeeze", .inputs = {in, Make<int64_t>({1}, {4})}}).ok());
}

TEST(TensorOpsUnsqueeze, AxesCountInOutputRank) {
  const Tensor in = Tensor::Empty(DType::kFloat32, {3, 4});
  EXPECT_EQ(Run1({.op_type = "Unsqueeze", .inputs = {in, Make<int64_t>({2}, {-1, 0})}}).shape(),
            (Shape{1, 3, 4, 1}));
  EXPECT_EQ(
      Run1({.op_type = "Unsqueeze", .opset = 11, .attributes = {{"axes", IntsAttr({1})}}, .inputs = {in}})
          .shape(),
      (Shape{3, 1, 4}));
  EXPECT_FALSE(RunOp({.op_type = "Unsqueeze", .inputs = {in, Make<int64_t>({2}, {1, 1})}}).ok());
  EXPECT_FALSE(RunOp({.op_type = "Unsqueeze", .inputs = {in, Make<int64_t>({1}, {3})}}).ok());
}

// ---- Shape, Size, Dropout ------------------------------------------------------------------

TEST(TensorOpsShape, StartEndClamp) {
  const Tensor in = Tensor::Empty(DType::kFloat32, {2, 3, 4});
  EXPECT_EQ(Values<int64_t>(Run1({.op_type = "Shape", .inputs = {in}})), (std::vector<int64_t>{2, 3, 4}));
  EXPECT_EQ(
      Values<int64_t>(Run1({.op_type = "Shape", .attributes = {{"start", IntAttr(-1)}}, .inputs = {in}})),
      (std::vector<int64_t>{4}));
  EXPECT_EQ(Values<int64_t>(Run1({.op_type = "Shape",
                                  .attributes = {{"start", IntAttr(-10)}, {"end", IntAttr(-1)}},
                                  .inputs = {in}})),
            (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(
      Run1({.op_type = "Shape", .attributes = {{"start", IntAttr(2)}, {"end", IntAttr(1)}}, .inputs = {in}})
          .numel(),
      0);
}

TEST(TensorOpsSize, CountsElements) {
  const Tensor out = Run1({.op_type = "Size", .inputs = {Tensor::Empty(DType::kInt8, {2, 3, 4})}});
  EXPECT_EQ(out.rank(), 0);
  EXPECT_EQ(*out.data<int64_t>(), 24);
}

TEST(TensorOpsDropout, InferenceIsIdentityWithFullMask) {
  const Tensor in = Make<float>({3}, {1, -2, 3});
  auto out = RunOp({.op_type = "Dropout", .inputs = {in, Tensor::Scalar(0.3f)}, .num_outputs = 2});
  ASSERT_TRUE(out.ok());
  EXPECT_TRUE((*out)[0].SharesBufferWith(in));
  EXPECT_EQ((*out)[1].dtype(), DType::kBool);
  EXPECT_EQ(Values<uint8_t>((*out)[1]), (std::vector<uint8_t>{1, 1, 1}));
  // Before opset 10 the mask has the input's type.
  out = RunOp({.op_type = "Dropout", .opset = 7, .inputs = {in}, .num_outputs = 2});
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(Values<float>((*out)[1]), (std::vector<float>{1, 1, 1}));
}

TEST(TensorOpsDropout, TrainingModeIsUnsupported) {
  const Tensor in = Make<float>({3}, {1, -2, 3});
  EXPECT_EQ(CodeOf({.op_type = "Dropout", .inputs = {in, Tensor::Scalar(0.5f), Bools({}, {1})}}),
            StatusCode::kUnsupported);
  // Ratio 0 drops nothing, so training mode is still exact.
  EXPECT_TRUE(RunOp({.op_type = "Dropout", .inputs = {in, Tensor::Scalar(0.0f), Bools({}, {1})}}).ok());
}

// ---- generators ----------------------------------------------------------------------------

TEST(TensorOpsConstantOfShape, FillsWithValue) {
  ir::Attribute value;
  value.kind = ir::Attribute::Kind::kTensor;
  value.t = Make<int32_t>({1}, {7});
  Tensor out = Run1({.op_type = "ConstantOfShape",
                     .attributes = {{"value", value}},
                     .inputs = {Make<int64_t>({2}, {2, 3})}});
  EXPECT_EQ(out.dtype(), DType::kInt32);
  EXPECT_EQ(Values<int32_t>(out), std::vector<int32_t>(6, 7));
  out = Run1({.op_type = "ConstantOfShape", .inputs = {Make<int64_t>({1}, {0})}});
  EXPECT_EQ(out.dtype(), DType::kFloat32);
  EXPECT_EQ(out.numel(), 0);
  EXPECT_FALSE(RunOp({.op_type = "ConstantOfShape", .inputs = {Make<int64_t>({1}, {-1})}}).ok());
}

TEST(TensorOpsRange, IntAndFloat) {
  Tensor out = Run1({.op_type = "Range",
                     .inputs = {Make<int32_t>({}, {10}), Make<int32_t>({}, {4}), Make<int32_t>({}, {-3})}});
  EXPECT_EQ(Values<int32_t>(out), (std::vector<int32_t>{10, 7}));  // ceil(-6 / -3) = 2
  out = Run1(
      {.op_type = "Range", .inputs = {Make<float>({}, {1}), Make<float>({}, {2}), Make<float>({}, {0.25f})}});
  EXPECT_EQ(Values<float>(out), (std::vector<float>{1, 1.25f, 1.5f, 1.75f}));
  out = Run1({.op_type = "Range",
              .inputs = {Make<int64_t>({}, {5}), Make<int64_t>({}, {1}), Make<int64_t>({}, {2})}});
  EXPECT_EQ(out.numel(), 0);
  EXPECT_FALSE(RunOp({.op_type = "Range",
                      .inputs = {Make<int64_t>({}, {0}), Make<int64_t>({}, {1}), Make<int64_t>({}, {0})}})
                   .ok());
  EXPECT_FALSE(RunOp({.op_type = "Range",
                      .inputs = {Make<int64_t>({}, {0}), Make<int32_t>({}, {1}), Make<int64_t>({}, {1})}})
                   .ok());
}

TEST(TensorOpsEyeLike, DiagonalAndDtype) {
  const Tensor in = Tensor::Empty(DType::kInt32, {3, 4});
  Tensor out = Run1({.op_type = "EyeLike", .attributes = {{"k", IntAttr(1)}}, .inputs = {in}});
  EXPECT_EQ(Values<int32_t>(out), (std::vector<int32_t>{0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}));
  out = Run1({.op_type = "EyeLike",
              .attributes = {{"dtype", IntAttr(static_cast<int64_t>(DType::kFloat16))}, {"k", IntAttr(-2)}},
              .inputs = {in}});
  EXPECT_EQ(out.dtype(), DType::kFloat16);
  EXPECT_EQ(Values<uint16_t>(out), (std::vector<uint16_t>{0, 0, 0, 0, 0, 0, 0, 0, 0x3c00, 0, 0, 0}));
  EXPECT_FALSE(RunOp({.op_type = "EyeLike", .inputs = {Tensor::Empty(DType::kFloat32, {3})}}).ok());
}

TEST(TensorOpsTrilu, UpperAndLowerWithK) {
  const Tensor in = Make<float>({3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
  EXPECT_EQ(Values<float>(Run1({.op_type = "Trilu", .inputs = {in}})),
            (std::vector<float>{1, 2, 3, 0, 5, 6, 0, 0, 9}));
  EXPECT_EQ(Values<float>(Run1({.op_type = "Trilu", .inputs = {in, Make<int64_t>({}, {1})}})),
            (std::vector<float>{0, 2, 3, 0, 0, 6, 0, 0, 0}));
  EXPECT_EQ(Values<float>(Run1({.op_type = "Trilu", .attributes = {{"upper", IntAttr(0)}}, .inputs = {in}})),
            (std::vector<float>{1, 0, 0, 4, 5, 0, 7, 8, 9}));
  EXPECT_EQ(Values<float>(Run1({.op_type = "Trilu",
                                .attributes = {{"upper", IntAttr(0)}},
                                .inputs = {in, Make<int64_t>({}, {-1})}})),
            (std::vector<float>{0, 0, 0, 4, 0, 0, 7, 8, 0}));
  EXPECT_EQ(Values<float>(Run1({.op_type = "Trilu", .inputs = {in, Make<int64_t>({}, {-100})}})),
            Values<float>(in));
  EXPECT_FALSE(RunOp({.op_type = "Trilu", .inputs = {Make<float>({2}, {1, 2})}}).ok());
}

TEST(TensorOpsOneHot, AxisAndNegativeIndices) {
  const Tensor indices = Make<int64_t>({3}, {0, -1, 5});
  const Tensor depth = Make<float>({}, {3});
  const Tensor values = Make<float>({2}, {0, 9});
  Tensor out = Run1({.op_type = "OneHot", .inputs = {indices, depth, values}});
  EXPECT_EQ(out.shape(), (Shape{3, 3}));
  EXPECT_EQ(Values<float>(out), (std::vector<float>{9, 0, 0, 0, 0, 9, 0, 0, 0}));
  out = Run1({.op_type = "OneHot", .attributes = {{"axis", IntAttr(0)}}, .inputs = {indices, depth, values}});
  EXPECT_EQ(out.shape(), (Shape{3, 3}));
  EXPECT_EQ(Values<float>(out), (std::vector<float>{9, 0, 0, 0, 0, 0, 0, 9, 0}));
  EXPECT_FALSE(
      RunOp({.op_type = "OneHot", .attributes = {{"axis", IntAttr(2)}}, .inputs = {indices, depth, values}})
          .ok());
  EXPECT_FALSE(RunOp({.op_type = "OneHot", .inputs = {indices, depth, Make<float>({1}, {1})}}).ok());
}

TEST(TensorOpsNonZero, RowMajorCoordinates) {
  Tensor out = Run1({.op_type = "NonZero", .inputs = {Make<float>({2, 2}, {1, 0, -0.0f, 3})}});
  EXPECT_EQ(out.shape(), (Shape{2, 2}));
  EXPECT_EQ(Values<int64_t>(out), (std::vector<int64_t>{0, 1, 0, 1}));
  out = Run1({.op_type = "NonZero", .inputs = {Make<uint16_t>({3}, {0x8000, 0x3c00, 0})}});
  EXPECT_EQ(Values<int64_t>(out), (std::vector<int64_t>{0, 1}));  // uint16, not float16: 0x8000 counts
  out = Run1({.op_type = "NonZero", .inputs = {Bools({3}, {0, 1, 1})}});
  EXPECT_EQ(Values<int64_t>(out), (std::vector<int64_t>{1, 2}));
}

TEST(TensorOpsNonZero, HalfNegativeZeroIsZero) {
  Tensor in = Tensor::Empty(DType::kFloat16, {3});
  in.data<uint16_t>()[0] = 0x8000;  // -0
  in.data<uint16_t>()[1] = 0x3c00;  // 1
  in.data<uint16_t>()[2] = 0;
  EXPECT_EQ(Values<int64_t>(Run1({.op_type = "NonZero", .inputs = {in}})), (std::vector<int64_t>{1}));
}

// ---- Cast ----------------------------------------------------------------------------------

OpCall CastCall(const Tensor& in, DType to) {
  return {.op_type = "Cast", .attributes = {{"to", IntAttr(static_cast<int64_t>(to))}}, .inputs = {in}};
}

TEST(TensorOpsCast, FloatToIntegersTruncatesAndWraps) {
  const Tensor in = Make<float>({5}, {1.9f, -1.9f, -1.0f, 300.0f, std::nanf("")});
  EXPECT_EQ(Values<int32_t>(Run1(CastCall(in, DType::kInt32))), (std::vector<int32_t>{1, -1, -1, 300, 0}));
  EXPECT_EQ(Values<uint8_t>(Run1(CastCall(in, DType::kUInt8))), (std::vector<uint8_t>{1, 255, 255, 44, 0}));
  EXPECT_EQ(Values<uint8_t>(Run1(CastCall(in, DType::kBool))), (std::vector<uint8_t>{1, 1, 1, 1, 1}));
}

TEST(TensorOpsCast, IntegersAndBool) {
  const Tensor in = Make<int64_t>({3}, {-1, 0, 258});
  EXPECT_EQ(Values<uint8_t>(Run1(CastCall(in, DType::kUInt8))), (std::vector<uint8_t>{255, 0, 2}));
  EXPECT_EQ(Values<uint8_t>(Run1(CastCall(in, DType::kBool))), (std::vector<uint8_t>{1, 0, 1}));
  EXPECT_EQ(Values<double>(Run1(CastCall(Bools({2}, {1, 0}), DType::kFloat64))), (std::vector<double>{1, 0}));
}

TEST(TensorOpsCast, HalfAndBFloat16RoundToNearestEven) {
  // 1 + 2^-11 is halfway between the float16 values 1 and 1 + 2^-10: ties go to even (1).
  // 1 + 3 * 2^-11 is halfway between 1 + 2^-10 and 1 + 2^-9: ties go to 1 + 2^-9.
  const Tensor in = Make<float>({3}, {1.0f + 0x1p-11f, 1.0f + 3 * 0x1p-11f, -2.0f});
  EXPECT_EQ(Values<uint16_t>(Run1(CastCall(in, DType::kFloat16))),
            (std::vector<uint16_t>{0x3c00, 0x3c02, 0xc000}));
  // bfloat16 keeps 7 mantissa bits: 1 + 2^-8 is a tie to 1; 1 + 3 * 2^-8 rounds up to 1 + 2^-6.
  const Tensor in_bf = Make<float>({2}, {1.0f + 0x1p-8f, 1.0f + 3 * 0x1p-8f});
  EXPECT_EQ(Values<uint16_t>(Run1(CastCall(in_bf, DType::kBFloat16))),
            (std::vector<uint16_t>{0x3f80, 0x3f82}));
  Tensor half = Tensor::Empty(DType::kFloat16, {2});
  half.data<uint16_t>()[0] = 0x3e00;  // 1.5
  half.data<uint16_t>()[1] = 0xfc00;  // -inf
  const std::vector<double> back = Values<double>(Run1(CastCall(half, DType::kFloat64)));
  EXPECT_EQ(back[0], 1.5);
  EXPECT_EQ(back[1], -std::numeric_limits<double>::infinity());
}

TEST(TensorOpsCast, FloatToStringLikeNumpy) {
  const Tensor in = Make<float>(
      {6}, {0.9767611f, 1.0f, -2.5f, 1e-5f, std::numeric_limits<float>::infinity(), std::nanf("")});
  EXPECT_EQ(Run1(CastCall(in, DType::kString)).strings(),
            (std::vector<std::string>{"0.9767611", "1.0", "-2.5", "1e-05", "INF", "NaN"}));
  EXPECT_EQ(Run1(CastCall(Make<int32_t>({2}, {-7, 12}), DType::kString)).strings(),
            (std::vector<std::string>{"-7", "12"}));
}

TEST(TensorOpsCast, StringToNumbers) {
  const Tensor in = Strings({6}, {"0.5", "+INF", "-inf", "NaN", "1E3", " 2.25 "});
  const std::vector<float> out = Values<float>(Run1(CastCall(in, DType::kFloat32)));
  EXPECT_EQ(out[0], 0.5f);
  EXPECT_EQ(out[1], std::numeric_limits<float>::infinity());
  EXPECT_EQ(out[2], -std::numeric_limits<float>::infinity());
  EXPECT_TRUE(std::isnan(out[3]));
  EXPECT_EQ(out[4], 1000.0f);
  EXPECT_EQ(out[5], 2.25f);
  EXPECT_EQ(Values<int64_t>(Run1(CastCall(Strings({2}, {"9007199254740993", "100.5"}), DType::kInt64))),
            (std::vector<int64_t>{9007199254740993LL, 100}));
  EXPECT_FALSE(RunOp(CastCall(Strings({1}, {"hello"}), DType::kFloat32)).ok());
}

TEST(TensorOpsCast, Opset1TypeNameAndSameTypeAlias) {
  const Tensor in = Make<float>({2}, {1.5f, -3});
  const Tensor out =
      Run1({.op_type = "Cast", .opset = 1, .attributes = {{"to", StringAttr("INT64")}}, .inputs = {in}});
  EXPECT_EQ(Values<int64_t>(out), (std::vector<int64_t>{1, -3}));
  EXPECT_TRUE(Run1(CastCall(in, DType::kFloat32)).SharesBufferWith(in));
  EXPECT_FALSE(
      RunOp({.op_type = "Cast", .opset = 1, .attributes = {{"to", StringAttr("REAL")}}, .inputs = {in}})
          .ok());
  EXPECT_FALSE(RunOp({.op_type = "Cast", .inputs = {in}}).ok());
  EXPECT_EQ(CodeOf(CastCall(in, DType::kComplex64)), StatusCode::kUnsupported);
}

TEST(TensorOpsCastLike, TakesTypeOfSecondInput) {
  const Tensor out = Run1(
      {.op_type = "CastLike", .inputs = {Make<double>({2}, {2.5, -1}), Tensor::Empty(DType::kInt16, {0})}});
  EXPECT_EQ(out.dtype(), DType::kInt16);
  EXPECT_EQ(Values<int16_t>(out), (std::vector<int16_t>{2, -1}));
}

}  // namespace
}  // namespace npugap
