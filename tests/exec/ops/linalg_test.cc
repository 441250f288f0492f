#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "op_test_expect.h"

namespace npugap {
namespace {

// Deterministic values in [-1, 1) for larger cases.
std::vector<float> Pattern(int64_t n, int seed) {
  std::vector<float> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i)
    v[static_cast<size_t>(i)] = static_cast<float>(((i * 37 + seed * 11) % 23) - 11) / 11.f;
  return v;
}

Expected<std::vector<Tensor>> Einsum(const std::string& equation, std::vector<Tensor> inputs) {
  return RunOp(OpCall{.op_type = "Einsum",
                      .opset = 12,
                      .attributes = {{"equation", testing::StringAttr(equation)}},
                      .inputs = std::move(inputs)});
}

void ExpectTensor(const Expected<std::vector<Tensor>>& out, const Shape& shape,
                  const std::vector<float>& expected, float tol = 1e-5f) {
  ASSERT_TRUE(out.ok()) << out.status().message();
  const Tensor& t = (*out)[0];
  ASSERT_EQ(t.shape(), shape);
  ASSERT_EQ(t.numel(), static_cast<int64_t>(expected.size()));
  for (size_t i = 0; i < expected.size(); ++i)
    EXPECT_NEAR(t.data<float>()[i], expected[i], tol) << "at " << i;
}

TEST(LinalgTest, EinsumMatmulExplicitAndImplicit) {
  const Tensor a = F32({2, 3}, {1, 2, 3, 4, 5, 6});
  const Tensor b = F32({3, 2}, {7, 8, 9, 10, 11, 12});
  // [[1*7+2*9+3*11, 1*8+2*10+3*12], [4*7+5*9+6*11, 4*8+5*10+6*12]]
  ExpectTensor(Einsum("ij,jk->ik", {a, b}), {2, 2}, {58, 64, 139, 154});
  ExpectTensor(Einsum("ij, jk", {a, b}), {2, 2}, {58, 64, 139, 154});
  // Transposed output: (AB)^T.
  ExpectTensor(Einsum("ij,jk->ki", {a, b}), {2, 2}, {58, 139, 64, 154});
}

TEST(LinalgTest, EinsumSingleOperandForms) {
  const Tensor m = F32({3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
  ExpectTensor(Einsum("ii", {m}), {}, {15});           // trace (implicit output: none)
  ExpectTensor(Einsum("ii->i", {m}), {3}, {1, 5, 9});  // diagonal
  ExpectTensor(Einsum("ij->ji", {m}), {3, 3}, {1, 4, 7, 2, 5, 8, 3, 6, 9});
  ExpectTensor(Einsum("ba", {m}), {3, 3}, {1, 4, 7, 2, 5, 8, 3, 6, 9});  // implicit output is sorted: "ab"
  ExpectTensor(Einsum("ij->", {m}), {}, {45});
  ExpectTensor(Einsum("ij->j", {m}), {3}, {12, 15, 18});
}

TEST(LinalgTest, EinsumVectorsAndThreeOperands) {
  const Tensor u = F32({3}, {1, 2, 3});
  const Tensor v = F32({3}, {4, 5, 6});
  ExpectTensor(Einsum("i,i", {u, v}), {}, {32});
  ExpectTensor(Einsum("i,j->ij", {u, F32({2}, {1, -1})}), {3, 2}, {1, -1, 2, -2, 3, -3});
  // u^T M v with M = I*2: 2 * (1*4 + 2*5 + 3*6) = 64.
  const Tensor m = F32({3, 3}, {2, 0, 0, 0, 2, 0, 0, 0, 2});
  ExpectTensor(Einsum("i,ij,j->", {u, m, v}), {}, {64});
  // Chain of matrices: A B C with B = 2I.
  const Tensor a = F32({2, 3}, {1, 2, 3, 4, 5, 6});
  const Tensor c = F32({3, 1}, {1, 1, 1});
  ExpectTensor(Einsum("ij,jk,kl->il", {a, m, c}), {2, 1}, {12, 30});
  // A label summed inside one operand only ("i" of a): column sums dotted with v.
  ExpectTensor(Einsum("ij,j->", {a, v}), {}, {5 * 4 + 7 * 5 + 9 * 6});
}

TEST(LinalgTest, EinsumEllipsisBroadcastsBatchDims) {
  // a: [2, 2, 2] (I and 2I), b: [1, 2, 2] broadcast over the batch.
  const Tensor a = F32({2, 2, 2}, {1, 0, 0, 1, 2, 0, 0, 2});
  const Tensor b = F32({1, 2, 2}, {1, 2, 3, 4});
  ExpectTensor(Einsum("...ij,...jk->...ik", {a, b}), {2, 2, 2}, {1, 2, 3, 4, 2, 4, 6, 8});
  // Implicit output puts the ellipsis dims first.
  ExpectTensor(Einsum("...ij,...jk", {a, b}), {2, 2, 2}, {1, 2, 3, 4, 2, 4, 6, 8});
  // Batch diagonal: "...ii->...i".
  ExpectTensor(Einsum("...ii->...i", {a}), {2, 2}, {1, 1, 2, 2});
}

TEST(LinalgTest, EinsumBatchedContractionsMatchNaiveLoops) {
  // Exercises the batched-GEMM fast path with transposed operands and a permuted output.
  const int64_t B = 3, I = 5, J = 7, K = 4;
  const std::vector<float> a = Pattern(B * I * J, 1);  // a[b][i][j]
  const std::vector<float> c = Pattern(B * K * J, 2);  // c[b][k][j]
  auto out = Einsum("bij,bkj->kbi", {F32({B, I, J}, a), F32({B, K, J}, c)});
  ASSERT_TRUE(out.ok()) << out.status().message();
  ASSERT_EQ((*out)[0].shape(), (Shape{K, B, I}));
  for (int64_t b = 0; b < B; ++b) {
    for (int64_t i = 0; i < I; ++i) {
      for (int64_t k = 0; k < K; ++k) {
        double sum = 0;
        for (int64_t j = 0; j < J; ++j) sum += a[(b * I + i) * J + j] * c[(b * K + k) * J + j];
        EXPECT_NEAR((*out)[0].data<float>()[(k * B + b) * I + i], sum, 1e-4);
      }
    }
  }
  // "jb" first operand transposed relative to its storage.
  auto t = Einsum("ji,jk->ik", {F32({J, I}, Pattern(J * I, 3)), F32({J, K}, Pattern(J * K, 4))});
  ASSERT_TRUE(t.ok());
  const std::vector<float> x = Pattern(J * I, 3), y = Pattern(J * K, 4);
  for (int64_t i = 0; i < I; ++i) {
    for (int64_t k = 0; k < K; ++k) {
      double sum = 0;
      for (int64_t j = 0; j < J; ++j) sum += x[j * I + i] * y[j * K + k];
      EXPECT_NEAR((*t)[0].data<float>()[i * K + k], sum, 1e-4);
    }
  }
}

TEST(LinalgTest, EinsumIntegerAndDouble) {
  auto ints = Einsum("ij,j->i", {Tensor::FromVector<int64_t>({2, 2}, {1, 2, 3, 4}),
                                 Tensor::FromVector<int64_t>({2}, {5, 6})});
  ASSERT_TRUE(ints.ok()) << ints.status().message();
  EXPECT_EQ((*ints)[0].data<int64_t>()[0], 17);
  EXPECT_EQ((*ints)[0].data<int64_t>()[1], 39);
  auto dbl = Einsum("i,i->",
                    {Tensor::FromVector<double>({2}, {0.5, 0.25}), Tensor::FromVector<double>({2}, {2, 4})});
  ASSERT_TRUE(dbl.ok());
  EXPECT_DOUBLE_EQ((*dbl)[0].data<double>()[0], 2.0);
}

TEST(LinalgTest, EinsumRejectsBadEquations) {
  const Tensor a = F32({2, 3}, {1, 2, 3, 4, 5, 6});
  EXPECT_FALSE(Einsum("ij,ij->ij", {a, F32({3, 2}, {1, 2, 3, 4, 5, 6})}).ok());  // size mismatch
  EXPECT_FALSE(Einsum("ij,jk->ik", {a}).ok());                                   // two terms, one input
  EXPECT_FALSE(Einsum("ijk->i", {a}).ok());                                      // rank mismatch
  EXPECT_FALSE(Einsum("i1->i", {a}).ok());                                       // bad character
  EXPECT_FALSE(Einsum("ij->iz", {a}).ok());                                      // output label unknown
  EXPECT_FALSE(Einsum("ij->ii", {a}).ok());                                      // repeated output label
  EXPECT_FALSE(Einsum("i..j->i", {a}).ok());                                     // broken ellipsis
  EXPECT_FALSE(Einsum("...j->j", {a}).ok());  // output drops the dims "..." stands for
  EXPECT_FALSE(Einsum("ij,jk", {a, Tensor::FromVector<double>({3, 1}, {1, 2, 3})}).ok());  // mixed types
}

TEST(LinalgTest, DetOfSmallMatrices) {
  auto det = [](Shape shape, std::vector<float> v) {
    return RunOp(OpCall{.op_type = "Det", .opset = 11, .inputs = {F32(shape, v)}});
  };
  ExpectTensor(det({2, 2}, {1, 2, 3, 4}), {}, {-2});
  // Needs a row swap: det [[0, 1], [1, 0]] = -1.
  ExpectTensor(det({2, 2}, {0, 1, 1, 0}), {}, {-1});
  // 3x3 by cofactors: 2(1*1-0*2) - 0 + 1(0*2-1*1) ... = 2*(1-0) - 0*(..) + 1*(0*2 - 1*1) = 1.
  ExpectTensor(det({3, 3}, {2, 0, 1, 0, 1, 0, 1, 2, 1}), {}, {1});
  // Batch [2, 2, 2] and a singular matrix.
  ExpectTensor(det({2, 2, 2}, {3, 0, 0, 4, 1, 2, 2, 4}), {2}, {12, 0});
  auto d =
      RunOp(OpCall{.op_type = "Det", .opset = 11, .inputs = {Tensor::FromVector<double>({1, 1}, {-3.5})}});
  ASSERT_TRUE(d.ok());
  EXPECT_DOUBLE_EQ((*d)[0].data<double>()[0], -3.5);
}

TEST(LinalgTest, DetRejectsNonSquare) {
  EXPECT_FALSE(
      RunOp(OpCall{.op_type = "Det", .opset = 11, .inputs = {F32({2, 3}, {1, 2, 3, 4, 5, 6})}}).ok());
  EXPECT_FALSE(RunOp(OpCall{.op_type = "Det", .opset = 11, .inputs = {F32({3}, {1, 2, 3})}}).ok());
  auto ints =
      RunOp(OpCall{.op_type = "Det", .opset = 11, .inputs = {Tensor::FromVector<int32_t>({1, 1}, {1})}});
  ASSERT_FALSE(ints.ok());
  EXPECT_EQ(ints.status().code(), StatusCode::kUnsupported);
}

}  // namespace
}  // namespace npugap
