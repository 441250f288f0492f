#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "op_test_expect.h"

namespace npugap {
namespace {

ir::Attribute Strings(std::vector<std::string> values) {
  ir::Attribute a;
  a.kind = ir::Attribute::Kind::kStrings;
  a.strings = std::move(values);
  return a;
}

double Sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }

void ExpectValues(const Tensor& t, const Shape& shape, const std::vector<double>& expected,
                  double tol = 1e-5) {
  ASSERT_EQ(t.shape(), shape);
  ASSERT_EQ(t.numel(), static_cast<int64_t>(expected.size()));
  for (size_t i = 0; i < expected.size(); ++i) {
    if (t.dtype() == ir::DType::kFloat64) {
      EXPECT_NEAR(t.data<double>()[i], expected[i], tol) << "at " << i;
    } else {
      EXPECT_NEAR(t.data<float>()[i], expected[i], tol) << "at " << i;
    }
  }
}

OpCall Rnn(std::vector<Tensor> inputs, std::map<std::string, ir::Attribute> attrs = {}) {
  OpCall call{.op_type = "RNN",
              .opset = 14,
              .attributes = std::move(attrs),
              .inputs = std::move(inputs),
              .num_outputs = 2};
  return call;
}

TEST(RecurrentTest, RnnSingleStepTanhWithBias) {
  // Ht = tanh(x*W + h0*R + Wb + Rb) = tanh(1*0.5 + 0 + 0.1 + 0.2)
  auto out = RunOp(
      Rnn({F32({1, 1, 1}, {1}), F32({1, 1, 1}, {0.5}), F32({1, 1, 1}, {0.7}), F32({1, 2}, {0.1, 0.2})}));
  ASSERT_TRUE(out.ok()) << out.status().message();
  ExpectValues((*out)[0], {1, 1, 1, 1}, {std::tanh(0.8)});
  ExpectValues((*out)[1], {1, 1, 1}, {std::tanh(0.8)});
}

TEST(RecurrentTest, RnnRecurrenceForwardReverseBidirectional) {
  // Relu cell, W = 1, R = 0.5, x = [1, 2]: forward h = 1, 2 + 0.5 = 2.5;
  // reverse (t = 1 first) h = 2, then 1 + 0.5 * 2 = 2.
  const Tensor x = F32({2, 1, 1}, {1, 2});
  auto forward =
      RunOp(Rnn({x, F32({1, 1, 1}, {1}), F32({1, 1, 1}, {0.5})}, {{"activations", Strings({"Relu"})}}));
  ASSERT_TRUE(forward.ok()) << forward.status().message();
  ExpectValues((*forward)[0], {2, 1, 1, 1}, {1, 2.5});
  ExpectValues((*forward)[1], {1, 1, 1}, {2.5});

  ir::Attribute relu;
  relu.kind = ir::Attribute::Kind::kStrings;
  relu.strings = {"Relu"};
  auto reverse = RunOp(Rnn({x, F32({1, 1, 1}, {1}), F32({1, 1, 1}, {0.5})},
                           {{"activations", relu}, {"direction", testing::StringAttr("reverse")}}));
  ASSERT_TRUE(reverse.ok()) << reverse.status().message();
  ExpectValues((*reverse)[0], {2, 1, 1, 1}, {2, 2});
  ExpectValues((*reverse)[1], {1, 1, 1}, {2});

  relu.strings = {"Relu", "Relu"};
  auto bidi = RunOp(Rnn({x, F32({2, 1, 1}, {1, 1}), F32({2, 1, 1}, {0.5, 0.5})},
                        {{"activations", relu}, {"direction", testing::StringAttr("bidirectional")}}));
  ASSERT_TRUE(bidi.ok()) << bidi.status().message();
  // Y[t, dir, batch, hidden]
  ExpectValues((*bidi)[0], {2, 2, 1, 1}, {1, 2, 2.5, 2});
  ExpectValues((*bidi)[1], {2, 1, 1}, {2.5, 2});
}

TEST(RecurrentTest, RnnSequenceLensStopsRowsAndZeroesPadding) {
  // Relu, W = R = 1: row 0 (length 3, x = 1) gives 1, 2, 3; row 1 (length 1, x = 5) gives 5.
  ir::Attribute relu;
  relu.kind = ir::Attribute::Kind::kStrings;
  relu.strings = {"Relu"};
  const Tensor lens = Tensor::FromVector<int32_t>({2}, {3, 1});
  auto out = RunOp(
      Rnn({F32({3, 2, 1}, {1, 5, 1, 5, 1, 5}), F32({1, 1, 1}, {1}), F32({1, 1, 1}, {1}), Tensor(), lens},
          {{"activations", relu}}));
  ASSERT_TRUE(out.ok()) << out.status().message();
  ExpectValues((*out)[0], {3, 1, 2, 1}, {1, 5, 2, 0, 3, 0});
  ExpectValues((*out)[1], {1, 2, 1}, {3, 5});

  // Reverse: row 1 starts at its own last step (t = 0).
  auto rev = RunOp(
      Rnn({F32({3, 2, 1}, {1, 5, 2, 7, 3, 9}), F32({1, 1, 1}, {1}), F32({1, 1, 1}, {1}), Tensor(), lens},
          {{"activations", relu}, {"direction", testing::StringAttr("reverse")}}));
  ASSERT_TRUE(rev.ok()) << rev.status().message();
  ExpectValues((*rev)[0], {3, 1, 2, 1}, {6, 5, 5, 0, 3, 0});
  ExpectValues((*rev)[1], {1, 2, 1}, {6, 5});
}

TEST(RecurrentTest, RnnActivationAlphaBetaAndClip) {
  ir::Attribute acts;
  acts.kind = ir::Attribute::Kind::kStrings;
  acts.strings = {"Affine"};
  // Affine(x) = 2x + 1 on x = -1.5.
  auto affine = RunOp(Rnn({F32({1, 1, 1}, {-1.5}), F32({1, 1, 1}, {1}), F32({1, 1, 1}, {0})},
                          {{"activations", acts},
                           {"activation_alpha", testing::FloatsAttr({2})},
                           {"activation_beta", testing::FloatsAttr({1})}}));
  ASSERT_TRUE(affine.ok()) << affine.status().message();
  ExpectValues((*affine)[1], {1, 1, 1}, {-2});

  // Clip bounds the activation input: Relu(clip(3, 0.5)) = 0.5.
  acts.strings = {"Relu"};
  auto clipped = RunOp(Rnn({F32({1, 1, 1}, {3}), F32({1, 1, 1}, {1}), F32({1, 1, 1}, {0})},
                           {{"activations", acts}, {"clip", testing::FloatAttr(0.5f)}}));
  ASSERT_TRUE(clipped.ok()) << clipped.status().message();
  ExpectValues((*clipped)[1], {1, 1, 1}, {0.5});
}

TEST(RecurrentTest, GruDefaultAndLinearBeforeReset) {
  // hidden 1: W = [Wz, Wr, Wh] = [0, 0, 1], R = [0, 0, 1], Rbh = 0.5, h0 = 1, x = 2.
  // z = r = sigmoid(0) = 0.5.
  // default: h~ = tanh(2 + (r*h0)*Rh + Rbh) = tanh(3);     H = 0.5*h~ + 0.5*h0
  // linear_before_reset: h~ = tanh(2 + r*(h0*Rh + Rbh)) = tanh(2.75)
  std::vector<Tensor> inputs = {F32({1, 1, 1}, {2}),
                                F32({1, 3, 1}, {0, 0, 1}),
                                F32({1, 3, 1}, {0, 0, 1}),
                                F32({1, 6}, {0, 0, 0, 0, 0, 0.5}),
                                Tensor(),
                                F32({1, 1, 1}, {1})};
  OpCall call{.op_type = "GRU", .opset = 14, .inputs = inputs, .num_outputs = 2};
  auto def = RunOp(call);
  ASSERT_TRUE(def.ok()) << def.status().message();
  ExpectValues((*def)[1], {1, 1, 1}, {0.5 * std::tanh(3.0) + 0.5});

  call.attributes["linear_before_reset"] = testing::IntAttr(1);
  auto lbr = RunOp(call);
  ASSERT_TRUE(lbr.ok()) << lbr.status().message();
  ExpectValues((*lbr)[1], {1, 1, 1}, {0.5 * std::tanh(2.75) + 0.5});
}

TEST(RecurrentTest, GruUpdateGateMixesState) {
  // Wz = 1 so z = sigmoid(x) with x = 1; Wh = 1, h0 = 0: H = (1 - z) * tanh(1).
  OpCall call{.op_type = "GRU",
              .opset = 14,
              .inputs = {F32({1, 1, 1}, {1}), F32({1, 3, 1}, {1, 0, 1}), F32({1, 3, 1}, {0, 0, 0})},
              .num_outputs = 2};
  auto out = RunOp(call);
  ASSERT_TRUE(out.ok()) << out.status().message();
  ExpectValues((*out)[0], {1, 1, 1, 1}, {(1 - Sigmoid(1)) * std::tanh(1.0)});
}

TEST(RecurrentTest, LstmPeepholesAndInitialCell) {
  // hidden 1, W = [Wi, Wo, Wf, Wc] = [0, 0, 0, 1], R = 0, P = [Pi, Po, Pf] = [1, 1, 1],
  // x = 1, h0 = 0, c0 = 2:
  // i = f = sigmoid(Pi*c0) = sigmoid(2), c~ = tanh(1), C = f*c0 + i*c~,
  // o = sigmoid(Po*C), H = o*tanh(C).
  const double i = Sigmoid(2.0);
  const double c = i * 2.0 + i * std::tanh(1.0);
  const double h = Sigmoid(c) * std::tanh(c);
  OpCall call{.op_type = "LSTM",
              .opset = 14,
              .inputs = {F32({1, 1, 1}, {1}), F32({1, 4, 1}, {0, 0, 0, 1}), F32({1, 4, 1}, {0, 0, 0, 0}),
                         Tensor(), Tensor(), Tensor(), F32({1, 1, 1}, {2}), F32({1, 3}, {1, 1, 1})},
              .num_outputs = 3};
  auto out = RunOp(call);
  ASSERT_TRUE(out.ok()) << out.status().message();
  ExpectValues((*out)[0], {1, 1, 1, 1}, {h});
  ExpectValues((*out)[1], {1, 1, 1}, {h});
  ExpectValues((*out)[2], {1, 1, 1}, {c});
}

TEST(RecurrentTest, LstmInputForgetAndDouble) {
  // input_forget couples f = 1 - i. Wi = 1, Wc = 1, x = 1, c0 = 1:
  // i = sigmoid(1), f = 1 - i, o = sigmoid(0) = 0.5, C = f*1 + i*tanh(1).
  auto D = [](Shape s, std::vector<double> v) { return Tensor::FromVector<double>(std::move(s), v); };
  const double i = Sigmoid(1.0);
  const double c = (1 - i) + i * std::tanh(1.0);
  OpCall call{.op_type = "LSTM",
              .opset = 14,
              .attributes = {{"input_forget", testing::IntAttr(1)}},
              .inputs = {D({1, 1, 1}, {1}), D({1, 4, 1}, {1, 0, 0, 1}), D({1, 4, 1}, {0, 0, 0, 0}), Tensor(),
                         Tensor(), Tensor(), D({1, 1, 1}, {1})},
              .num_outputs = 3};
  auto out = RunOp(call);
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ((*out)[0].dtype(), ir::DType::kFloat64);
  ExpectValues((*out)[2], {1, 1, 1}, {c}, 1e-12);
  ExpectValues((*out)[1], {1, 1, 1}, {0.5 * std::tanh(c)}, 1e-12);
}

TEST(RecurrentTest, LayoutOneMatchesLayoutZero) {
  // Same sequences in both layouts: batch 2, seq 3, input 2, hidden 2.
  const std::vector<float> w = {0.1f, -0.2f, 0.3f, 0.4f,  -0.5f, 0.6f, 0.7f,  -0.8f,
                                0.2f, 0.1f,  0.5f, -0.3f, 0.2f,  0.2f, -0.1f, 0.4f};
  const std::vector<float> r = {0.3f, 0.1f,  -0.2f, 0.2f, 0.5f,  -0.4f, 0.1f, 0.1f,
                                0.2f, -0.3f, 0.4f,  0.2f, -0.1f, 0.3f,  0.2f, 0.2f};
  // x_seq_major[t][b][i]
  const std::vector<float> x_seq = {1, 2, 3, 4, 0.5f, -1, 2, 0, -1, 1, 0.3f, 0.7f};
  std::vector<float> x_batch(12);
  for (int t = 0; t < 3; ++t) {
    for (int b = 0; b < 2; ++b) {
      for (int i = 0; i < 2; ++i) x_batch[(b * 3 + t) * 2 + i] = x_seq[(t * 2 + b) * 2 + i];
    }
  }
  OpCall seq_major{.op_type = "LSTM",
                   .opset = 14,
                   .inputs = {F32({3, 2, 2}, x_seq), F32({1, 8, 2}, w), F32({1, 8, 2}, r)},
                   .num_outputs = 3};
  OpCall batch_major = seq_major;
  batch_major.inputs[0] = F32({2, 3, 2}, x_batch);
  batch_major.attributes["layout"] = testing::IntAttr(1);
  auto a = RunOp(seq_major);
  auto b = RunOp(batch_major);
  ASSERT_TRUE(a.ok() && b.ok());
  ASSERT_EQ((*b)[0].shape(), (Shape{2, 3, 1, 2}));
  ASSERT_EQ((*b)[1].shape(), (Shape{2, 1, 2}));
  for (int t = 0; t < 3; ++t) {
    for (int bb = 0; bb < 2; ++bb) {
      for (int j = 0; j < 2; ++j) {
        EXPECT_FLOAT_EQ((*a)[0].data<float>()[(t * 2 + bb) * 2 + j],
                        (*b)[0].data<float>()[(bb * 3 + t) * 2 + j]);
      }
    }
  }
  for (int k = 0; k < 4; ++k) EXPECT_FLOAT_EQ((*a)[2].data<float>()[k], (*b)[2].data<float>()[k]);
}

TEST(RecurrentTest, RejectsBadInputs) {
  const Tensor w = F32({1, 1, 1}, {1});
  EXPECT_FALSE(RunOp(Rnn({F32({1, 1}, {1}), w, w})).ok());                          // X rank 2
  EXPECT_FALSE(RunOp(Rnn({F32({1, 1, 1}, {1}), F32({1, 2, 1}, {1, 1}), w})).ok());  // W rows
  EXPECT_FALSE(
      RunOp(Rnn({F32({1, 1, 1}, {1}), w, w}, {{"direction", testing::StringAttr("sideways")}})).ok());
  ir::Attribute acts;
  acts.kind = ir::Attribute::Kind::kStrings;
  acts.strings = {"Swish"};
  EXPECT_FALSE(RunOp(Rnn({F32({1, 1, 1}, {1}), w, w}, {{"activations", acts}})).ok());
  EXPECT_FALSE(RunOp(Rnn({F32({1, 1, 1}, {1}), w, w, Tensor(), Tensor::FromVector<int32_t>({1}, {2})})).ok());
  // Bidirectional needs two directions of weights.
  EXPECT_FALSE(
      RunOp(Rnn({F32({1, 1, 1}, {1}), w, w}, {{"direction", testing::StringAttr("bidirectional")}})).ok());
  OpCall lstm{.op_type = "LSTM",
              .opset = 14,
              .inputs = {F32({1, 1, 1}, {1}), F32({1, 3, 1}, {1, 1, 1}), F32({1, 3, 1}, {1, 1, 1})}};
  EXPECT_FALSE(RunOp(lstm).ok());  // LSTM needs 4 gates
  OpCall half{.op_type = "GRU",
              .opset = 14,
              .inputs = {Tensor::FromVector<int32_t>({1, 1, 1}, {1}),
                         Tensor::FromVector<int32_t>({1, 3, 1}, {1, 1, 1}),
                         Tensor::FromVector<int32_t>({1, 3, 1}, {1, 1, 1})}};
  auto unsupported = RunOp(half);
  ASSERT_FALSE(unsupported.ok());
  EXPECT_EQ(unsupported.status().code(), StatusCode::kUnsupported);
}

}  // namespace
}  // namespace npugap
