// Small models for the precision plan and emulator tests, and plan lookup by node name.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "../compat/compat_test_util.h"
#include "npugap/analysis/precision/emulate.h"
#include "npugap/analysis/precision/plan.h"

namespace npugap::analysis::precision::testing {

using npugap::testing::Import;
using npugap::testing::ModelBuilder;
using npugap::testing::Target;

// x[2,4] -> MatMul(W) -> mm -> Relu -> r -> Softmax -> s -> Add(s, r) -> y, and a Reshape of y.
inline ir::Model MlpModel() {
  ModelBuilder b;
  b.Input("x", {2, 4}).Output("z", {8});
  b.FloatInitializer(
      "W", {4, 4},
      {0.1f, 0.2f, 0.3f, 0.4f, 0.5f, 0.6f, 0.7f, 0.8f, 0.9f, 1.0f, 1.1f, 1.2f, 1.3f, 1.4f, 1.5f, 1.6f});
  npugap::testing::Int64Initializer(b, "shape", {8});
  b.Node("MatMul", {"x", "W"}, {"mm"}, "n_mm")
      .Node("Relu", {"mm"}, {"r"}, "n_relu")
      .Node("Softmax", {"r"}, {"s"}, "n_softmax")
      .Node("Add", {"s", "r"}, {"y"}, "n_add")
      .Node("Reshape", {"y", "shape"}, {"z"}, "n_reshape");
  return Import(b);
}

// x[1,1,4,4] -> Conv(W 1x1x3x3) -> y[1,1,2,2].
inline ir::Model ConvModel() {
  ModelBuilder b;
  b.Input("x", {1, 1, 4, 4}).Output("y", {1, 1, 2, 2});
  b.FloatInitializer("W", {1, 1, 3, 3}, {0.1f, 0.2f, 0.3f, 0.4f, 0.5f, 0.6f, 0.7f, 0.8f, 0.9f});
  b.Node("Conv", {"x", "W"}, {"y"}, "n_conv");
  return Import(b);
}

inline PrecisionPlan Plan(const ir::Model& m, const std::string& target, PrecisionOptions o) {
  auto p = BuildPrecisionPlan(m, Target(target), o);
  EXPECT_TRUE(p.ok()) << p.status().message();
  return p.ok() ? std::move(p).value() : PrecisionPlan{};
}

inline PrecisionPlan Plan(const ir::Model& m, const std::string& target, const std::string& mode) {
  PrecisionOptions o;
  o.mode = mode;
  return Plan(m, target, o);
}

inline NodeNumerics Of(const ir::Model& m, const PrecisionPlan& p, const std::string& node) {
  for (size_t i = 0; i < m.graph.nodes.size() && i < p.nodes.size(); ++i) {
    if (m.graph.nodes[i].name == node) return p.nodes[i];
  }
  ADD_FAILURE() << "no node " << node;
  return {};
}

// The first element of the first output of `m` emulated under plan `p` on input x; NaN (and a
// test failure) when the emulator refuses or fails.
inline float EmulatedFirstValue(const ir::Model& m, const PrecisionPlan& p, const ir::Tensor& x,
                                bool fuse = true) {
  auto r = EmulatedRunner::Create(m, p, {1, fuse});
  EXPECT_TRUE(r.ok()) << r.status().message();
  if (!r.ok()) return NAN;
  auto out = r->Run({x});
  EXPECT_TRUE(out.ok()) << out.status().message();
  return out.ok() ? out->at(0).data<float>()[0] : NAN;
}

}  // namespace npugap::analysis::precision::testing
