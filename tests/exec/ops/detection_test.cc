#include <gtest/gtest.h>

#include <vector>

#include "op_test_expect.h"

namespace npugap {
namespace {

Expected<std::vector<Tensor>> Nms(Tensor boxes, Tensor scores, int64_t max_boxes, float iou,
                                  float score = -1.f, int64_t center_point_box = 0) {
  std::vector<Tensor> inputs = {std::move(boxes), std::move(scores),
                                Tensor::FromVector<int64_t>({}, {max_boxes}), F32({}, {iou})};
  if (score >= 0.f) inputs.push_back(F32({}, {score}));
  return RunOp(OpCall{.op_type = "NonMaxSuppression",
                      .opset = 11,
                      .attributes = {{"center_point_box", testing::IntAttr(center_point_box)}},
                      .inputs = std::move(inputs)});
}

void ExpectSelected(const Expected<std::vector<Tensor>>& out, const std::vector<int64_t>& triples) {
  ASSERT_TRUE(out.ok()) << out.status().message();
  const Tensor& t = (*out)[0];
  ASSERT_EQ(t.dtype(), ir::DType::kInt64);
  ASSERT_EQ(t.shape(), (Shape{static_cast<int64_t>(triples.size() / 3), 3}));
  for (size_t i = 0; i < triples.size(); ++i) EXPECT_EQ(t.data<int64_t>()[i], triples[i]) << "at " << i;
}

// Box 0 and box 1 overlap with IOU 0.9 / 1.1 = 0.82; box 2 is far away.
const std::vector<float> kCorners = {0, 0, 1, 1, 0, 0.1f, 1, 1.1f, 0, 10, 1, 11};

TEST(DetectionTest, NmsSuppressesOverlapsInScoreOrder) {
  const Tensor boxes = F32({1, 3, 4}, kCorners);
  // Scores put box 1 first: it suppresses box 0.
  ExpectSelected(Nms(boxes, F32({1, 1, 3}, {0.8f, 0.9f, 0.7f}), 3, 0.5f), {0, 0, 1, 0, 0, 2});
  // IOU threshold above the overlap keeps everything, in score order.
  ExpectSelected(Nms(boxes, F32({1, 1, 3}, {0.8f, 0.9f, 0.7f}), 3, 0.9f), {0, 0, 1, 0, 0, 0, 0, 0, 2});
  // Score threshold and the per-class limit.
  ExpectSelected(Nms(boxes, F32({1, 1, 3}, {0.8f, 0.9f, 0.7f}), 3, 0.5f, 0.75f), {0, 0, 1});
  ExpectSelected(Nms(boxes, F32({1, 1, 3}, {0.8f, 0.9f, 0.7f}), 1, 0.5f), {0, 0, 1});
  ExpectSelected(Nms(boxes, F32({1, 1, 3}, {0.8f, 0.9f, 0.7f}), 0, 0.5f), {});
}

TEST(DetectionTest, NmsClassesBatchesTiesAndFormats) {
  // Two classes: class 1 prefers box 2. Equal scores pick the lower box index first.
  const Tensor boxes = F32({1, 3, 4}, kCorners);
  ExpectSelected(Nms(boxes, F32({1, 2, 3}, {0.5f, 0.5f, 0.5f, 0.1f, 0.2f, 0.3f}), 2, 0.5f),
                 {0, 0, 0, 0, 0, 2, 0, 1, 2, 0, 1, 1});
  // Flipped corners and the center format describe the same boxes.
  const Tensor flipped = F32({1, 3, 4}, {1, 1, 0, 0, 1, 1.1f, 0, 0.1f, 1, 11, 0, 10});
  ExpectSelected(Nms(flipped, F32({1, 1, 3}, {0.8f, 0.9f, 0.7f}), 3, 0.5f), {0, 0, 1, 0, 0, 2});
  const Tensor centers = F32({1, 3, 4}, {0.5f, 0.5f, 1, 1, 0.6f, 0.5f, 1, 1, 10.5f, 0.5f, 1, 1});
  ExpectSelected(Nms(centers, F32({1, 1, 3}, {0.8f, 0.9f, 0.7f}), 3, 0.5f, -1.f, 1), {0, 0, 1, 0, 0, 2});
  // Two batches.
  const Tensor two = F32({2, 1, 4}, {0, 0, 1, 1, 0, 0, 1, 1});
  ExpectSelected(Nms(two, F32({2, 1, 1}, {0.9f, 0.8f}), 1, 0.5f), {0, 0, 0, 1, 0, 0});
}

TEST(DetectionTest, NmsRejectsBadShapes) {
  EXPECT_FALSE(Nms(F32({3, 4}, kCorners), F32({1, 1, 3}, {1, 1, 1}), 3, 0.5f).ok());
  EXPECT_FALSE(Nms(F32({1, 3, 4}, kCorners), F32({1, 1, 2}, {1, 1}), 3, 0.5f).ok());
  EXPECT_FALSE(Nms(F32({1, 3, 4}, kCorners), F32({1, 1, 3}, {1, 1, 1}), 3, 1.5f).ok());
}

Expected<std::vector<Tensor>> RoiAlign(int64_t opset, std::vector<float> roi, int64_t out_size,
                                       const std::string& mode, const std::string& transform = "") {
  std::map<std::string, ir::Attribute> attrs = {{"output_height", testing::IntAttr(out_size)},
                                                {"output_width", testing::IntAttr(out_size)},
                                                {"sampling_ratio", testing::IntAttr(1)},
                                                {"mode", testing::StringAttr(mode)}};
  if (!transform.empty()) attrs["coordinate_transformation_mode"] = testing::StringAttr(transform);
  return RunOp(OpCall{
      .op_type = "RoiAlign",
      .opset = opset,
      .attributes = attrs,
      .inputs = {F32({1, 1, 2, 2}, {1, 2, 3, 4}), F32({1, 4}, roi), Tensor::FromVector<int64_t>({1}, {0})}});
}

void ExpectFloats(const Expected<std::vector<Tensor>>& out, const Shape& shape,
                  const std::vector<float>& expected) {
  ASSERT_TRUE(out.ok()) << out.status().message();
  ASSERT_EQ((*out)[0].shape(), shape);
  for (size_t i = 0; i < expected.size(); ++i)
    EXPECT_NEAR((*out)[0].data<float>()[i], expected[i], 1e-6) << "at " << i;
}

TEST(DetectionTest, RoiAlignBilinearSamples) {
  // X = [[1, 2], [3, 4]]. Opset 10 (no pixel shift): ROI [0,0,1,1], one sample at (0.5, 0.5)
  // -> mean of the four pixels.
  ExpectFloats(RoiAlign(10, {0, 0, 1, 1}, 1, "avg"), {1, 1, 1, 1}, {2.5f});
  // Opset 16 default half_pixel: corners shift by -0.5, the sample lands on pixel (0, 0).
  ExpectFloats(RoiAlign(16, {0, 0, 1, 1}, 1, "avg"), {1, 1, 1, 1}, {1.f});
  ExpectFloats(RoiAlign(16, {0, 0, 1, 1}, 1, "avg", "output_half_pixel"), {1, 1, 1, 1}, {2.5f});
  // 2x2 bins over [0, 2]: samples at 0.5 and 1.5; 1.5 is clamped to the last pixel.
  ExpectFloats(RoiAlign(10, {0, 0, 2, 2}, 2, "avg"), {1, 1, 2, 2}, {2.5f, 3.f, 3.5f, 4.f});
  // Max mode takes the largest weighted tap: max(0.25 * {1, 2, 3, 4}) = 1.
  ExpectFloats(RoiAlign(10, {0, 0, 1, 1}, 1, "max"), {1, 1, 1, 1}, {1.f});
}

TEST(DetectionTest, RoiAlignRejectsBadInputs) {
  EXPECT_FALSE(RoiAlign(16, {0, 0, 1, 1}, 1, "median").ok());
  EXPECT_FALSE(RoiAlign(16, {0, 0, 1, 1}, 1, "avg", "asymmetric").ok());
  EXPECT_FALSE(RunOp(OpCall{.op_type = "RoiAlign",
                            .opset = 16,
                            .inputs = {F32({1, 1, 2, 2}, {1, 2, 3, 4}), F32({1, 3}, {0, 0, 1}),
                                       Tensor::FromVector<int64_t>({1}, {0})}})
                   .ok());
  EXPECT_FALSE(RunOp(OpCall{.op_type = "RoiAlign",
                            .opset = 16,
                            .inputs = {F32({1, 1, 2, 2}, {1, 2, 3, 4}), F32({1, 4}, {0, 0, 1, 1}),
                                       Tensor::FromVector<int64_t>({1}, {1})}})
                   .ok());  // batch index out of range
}

}  // namespace
}  // namespace npugap
