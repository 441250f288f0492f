// MoE dispatch / combine: the drawn routing, its expansion into all-to-all-v transfers
// (deduplicated per destination rank), the combine as the reverse, and the two simulators on A3.
#include <gtest/gtest.h>

#include <limits>
#include <numeric>
#include <set>

#include "npugap/comm/moe.h"
#include "test_clusters.h"

namespace npugap::comm {
namespace {

using testing::Shipped;

MoeSpec Small(int tokens, int topk, int experts) {
  MoeSpec s;
  s.tokens = tokens;
  s.topk = topk;
  s.experts = experts;
  s.hidden = 64;
  s.seed = 7;
  return s;
}

TEST(CommMoe, RoutingDrawsDistinctExpertsAndIsReproducible) {
  const MoeSpec s = Small(500, 8, 64);
  auto a = DrawMoeRouting(s, 8);
  auto b = DrawMoeRouting(s, 8);
  ASSERT_TRUE(a.ok()) << a.status().message();
  EXPECT_EQ(a->expert, b->expert);
  std::vector<int64_t> hits(64, 0);
  for (size_t t = 0; t < a->expert.size(); t += 8) {
    std::set<int32_t> distinct(a->expert.begin() + t, a->expert.begin() + t + 8);
    EXPECT_EQ(distinct.size(), 8u) << "token " << t / 8;
    for (int32_t e : distinct) {
      ASSERT_GE(e, 0);
      ASSERT_LT(e, 64);
      ++hits[static_cast<size_t>(e)];
    }
  }
  // Uniform: 8 ranks x 500 tokens x 8 / 64 experts = 500 hits each, binomial sd about 21.
  for (int64_t h : hits) EXPECT_NEAR(static_cast<double>(h), 500.0, 110.0);
  MoeSpec other = s;
  other.seed = 8;
  EXPECT_NE(DrawMoeRouting(other, 8)->expert, a->expert);
}

TEST(CommMoe, ALargeTopKIsStillADistinctSubset) {
  // Above 64 experts per token the draws are looked up in a hash set instead of scanned: top-k
  // of k must still be every expert once, and a top-300 of 1000 300 distinct ones.
  for (const auto& [topk, experts] : {std::pair{2000, 2000}, std::pair{300, 1000}}) {
    auto r = DrawMoeRouting(Small(3, topk, experts), 2);
    ASSERT_TRUE(r.ok()) << r.status().message();
    for (size_t t = 0; t < r->expert.size(); t += static_cast<size_t>(topk)) {
      std::set<int32_t> distinct(r->expert.begin() + static_cast<std::ptrdiff_t>(t),
                                 r->expert.begin() + static_cast<std::ptrdiff_t>(t) + topk);
      EXPECT_EQ(distinct.size(), static_cast<size_t>(topk)) << "token " << t / topk;
      EXPECT_GE(*distinct.begin(), 0);
      EXPECT_LT(*distinct.rbegin(), experts);
    }
  }
}

TEST(CommMoe, TransferVolumeIsTheRoutingCountAndDeduplicatesPerRank) {
  const MoeSpec s = Small(300, 8, 32);
  const int ranks = 8;  // 4 experts per rank: a token often has two experts on one rank
  auto r = DrawMoeRouting(s, ranks);
  ASSERT_TRUE(r.ok());
  const MoeTokenCounts all = CountMoeTokens(*r, false);
  const MoeTokenCounts dedup = CountMoeTokens(*r, true);
  EXPECT_EQ(all.routed, int64_t{ranks} * 300 * 8);
  EXPECT_EQ(all.sent, all.routed);
  EXPECT_EQ(dedup.routed, all.routed);
  // Brute force from the routing: per (src, dst), the tokens with at least one expert on dst.
  int64_t copies = 0;
  for (int src = 0; src < ranks; ++src) {
    int64_t row_all = 0;
    for (int dst = 0; dst < ranks; ++dst) {
      int64_t n = 0;
      for (int t = 0; t < 300; ++t) {
        bool any = false;
        for (int k = 0; k < 8; ++k) any |= r->expert[(static_cast<size_t>(src) * 300 + t) * 8 + k] / 4 == dst;
        n += any;
      }
      EXPECT_EQ(dedup.tokens[src][dst], n) << src << " -> " << dst;
      row_all += all.tokens[src][dst];
      copies += n;
    }
    EXPECT_EQ(row_all, 300 * 8);
  }
  EXPECT_EQ(dedup.sent, copies);
  EXPECT_LT(dedup.sent, all.sent);  // 8 of 32 experts: P(two on one rank) is far from 0

  // One expert per rank: nothing to deduplicate.
  const MoeSpec one = Small(300, 8, 8 * 2);
  auto r1 = DrawMoeRouting(one, 16);
  ASSERT_TRUE(r1.ok());
  EXPECT_EQ(CountMoeTokens(*r1, true).sent, CountMoeTokens(*r1, false).sent);
}

TEST(CommMoe, DedupSendsATokenOnceToARankHoldingTwoOfItsExperts) {
  MoeRouting r{2, 2, 2, 4, {0, 1, 0, 2}};         // rank 0: token 0 -> experts 0,1 (rank 0); token 1 -> 0, 2
  r.expert.insert(r.expert.end(), {3, 2, 1, 3});  // rank 1: token 0 -> 3,2 (rank 1); token 1 -> 1, 3
  const MoeTokenCounts c = CountMoeTokens(r, true);
  EXPECT_EQ(c.tokens[0][0], 2);
  EXPECT_EQ(c.tokens[0][1], 1);
  EXPECT_EQ(c.tokens[1][1], 2);
  EXPECT_EQ(c.tokens[1][0], 1);
  EXPECT_EQ(c.sent, 6);
  EXPECT_EQ(CountMoeTokens(r, false).tokens[0][0], 3);
}

TEST(CommMoe, CombineIsTheReverseOfDispatch) {
  auto r = DrawMoeRouting(Small(200, 6, 48), 12);
  ASSERT_TRUE(r.ok());
  const MoeTokenCounts c = CountMoeTokens(*r, true);
  const auto d = MoeTransferBytes(c, MoePhase::kDispatch, MoeWireBytesPerToken(MoeDtype::kInt8, 64));
  const auto b = MoeTransferBytes(c, MoePhase::kCombine, MoeWireBytesPerToken(MoeDtype::kBf16, 64));
  for (size_t i = 0; i < 12; ++i)
    for (size_t j = 0; j < 12; ++j) {
      EXPECT_EQ(d[i][j], 68.0 * static_cast<double>(c.tokens[i][j]));  // 64 INT8 + a float32 scale
      EXPECT_EQ(b[j][i], 128.0 * static_cast<double>(c.tokens[i][j]));
    }
}

TEST(CommMoe, AnalyticalAndFlowAgreeOnA3) {
  const Cluster a3 = Shipped("atlas900-a3-superpod");
  MoeSpec s;  // the benchmark's setting: 4,096 tokens, hidden 7,168, top-8 of 256
  for (int ranks : {8, 16, 32, 64, 128})
    for (MoePhase phase : {MoePhase::kDispatch, MoePhase::kCombine}) {
      s.phase = phase;
      s.dtype = phase == MoePhase::kDispatch ? MoeDtype::kInt8 : MoeDtype::kBf16;
      SimOptions o;
      auto a = SimulateMoe(a3, ranks, s, o);
      o.kind = SimKind::kFlow;
      auto f = SimulateMoe(a3, ranks, s, o);
      ASSERT_TRUE(a.ok() && f.ok()) << a.status().message() << f.status().message();
      EXPECT_EQ(a->collective.algo, "level0:fullmesh");
      EXPECT_EQ(a->collective.dispatch_s, 0.0);
      EXPECT_EQ(a->rank0_tokens, f->rank0_tokens);
      EXPECT_NEAR(f->collective.time_s / a->collective.time_s, 1.0, 0.01) << ranks << " ranks";
    }
}

TEST(CommMoe, BadSpecsAreOneLineErrors) {
  MoeSpec s;
  EXPECT_NE(ValidateMoeSpec(s, 1).message().find("--ranks 1"), std::string::npos);
  s.experts = 100;
  EXPECT_NE(ValidateMoeSpec(s, 8).message().find("--experts 100: not divisible by --ranks 8"),
            std::string::npos);
  s.experts = 4;
  EXPECT_NE(ValidateMoeSpec(s, 2).message().find("--topk 8: more than the 4 experts"), std::string::npos);
  s = MoeSpec{};
  s.tokens = 0;
  EXPECT_NE(ValidateMoeSpec(s, 8).message().find("--tokens 0"), std::string::npos);
  EXPECT_FALSE(ParseMoeDtype("fp8").ok());
  EXPECT_NE(ParseMoeDtype("fp8").status().message().find("valid: int8, bf16"), std::string::npos);
}

}  // namespace
}  // namespace npugap::comm

namespace npugap::comm {
namespace {

// The analytical mesh cost of an all-to-all-v counts each port's ingress as well as its egress:
// an incast (every rank sends to rank 0) loads rank 0's port with 7 senders' bytes, where a shift
// (rank i to i + 1) loads every port with one. The flow simulator shares the port among the
// senders on its own; both must see the incast about 7x slower.
TEST(CommMoe, AnalyticalMeshCountsTheReceivingPort) {
  const Cluster a3 = testing::Shipped("atlas900-a3-superpod");
  const int p = 8;
  const double b = 64.0 * 1024 * 1024;
  const auto spec = [&](bool incast) {
    CollectiveSpec s;
    s.op = Op::kAllToAllV;
    s.alltoallv.assign(p, std::vector<double>(p, 0.0));
    for (int i = 0; i < p; ++i) {
      const int dst = incast ? 0 : (i + 1) % p;
      if (dst != i) s.alltoallv[static_cast<size_t>(i)][static_cast<size_t>(dst)] = b;
    }
    s.bytes = b;
    return s;
  };
  SimOptions o;
  o.plan = Plan{{Algo::kMesh}};
  o.host_dispatch = false;
  o.buffsize_bytes = std::numeric_limits<double>::infinity();
  double t[2][2];  // [flow][incast]
  for (int flow = 0; flow < 2; ++flow) {
    o.kind = flow ? SimKind::kFlow : SimKind::kAnalytical;
    for (int incast = 0; incast < 2; ++incast) {
      auto r = SimulateCollective(a3, p, spec(incast == 1), o);
      ASSERT_TRUE(r.ok()) << r.status().message();
      t[flow][incast] = r->time_s;
    }
  }
  EXPECT_GT(t[0][1] / t[0][0], 6.0) << "analytical incast / shift";
  EXPECT_NEAR(t[0][1] / t[1][1], 1.0, 0.05) << "analytical / flow, incast";
  EXPECT_NEAR(t[0][0] / t[1][0], 1.0, 0.05) << "analytical / flow, shift";
}

}  // namespace
}  // namespace npugap::comm
