#include <gtest/gtest.h>

#include "op_test_expect.h"

namespace npugap {
namespace {

TEST(TextOps, StringNormalizerDropsStopwordsCaseInsensitivelyThenUppercases) {
  OpCall call{"StringNormalizer"};
  call.opset = 10;
  ir::Attribute stop;
  stop.kind = ir::Attribute::Kind::kStrings;
  stop.strings = {"monday"};
  call.attributes = {{"case_change_action", StringAttr("UPPER")}, {"stopwords", stop}};
  call.inputs = {Strings({1, 3}, {"Monday", "tuesday", "x"})};
  auto out = RunOp(call);
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ((*out)[0].shape(), (ir::Shape{1, 2}));
  EXPECT_EQ((*out)[0].strings(), (std::vector<std::string>{"TUESDAY", "X"}));
}

TEST(TextOps, StringNormalizerRejectsUnknownAction) {
  OpCall call{"StringNormalizer"};
  call.opset = 10;
  call.attributes = {{"case_change_action", StringAttr("TITLE")}};
  call.inputs = {Strings({1}, {"a"})};
  EXPECT_FALSE(RunOp(call).ok());
}

TEST(TextOps, TfIdfCountsUnigramsAndSkipBigrams) {
  // Pool: unigrams {2, 3}, bigrams {(2,3)}; output columns 0, 1, 2.
  OpCall call{"TfIdfVectorizer"};
  call.opset = 9;
  call.attributes = {{"min_gram_length", testing::IntAttr(1)}, {"max_gram_length", testing::IntAttr(2)},
                     {"max_skip_count", testing::IntAttr(1)},  {"mode", StringAttr("TF")},
                     {"ngram_counts", IntsAttr({0, 2})},       {"ngram_indexes", IntsAttr({0, 1, 2})},
                     {"pool_int64s", IntsAttr({2, 3, 2, 3})}};
  // Sequence 2 9 3: unigram 2 once, unigram 3 once, bigram (2,3) only with one skip.
  call.inputs = {ir::Tensor::FromVector<int64_t>({3}, {2, 9, 3})};
  auto out = RunOp(call);
  ASSERT_TRUE(out.ok()) << out.status().message();
  const float* o = (*out)[0].data<float>();
  EXPECT_EQ(o[0], 1.0f);
  EXPECT_EQ(o[1], 1.0f);
  EXPECT_EQ(o[2], 1.0f);
}

}  // namespace
}  // namespace npugap
