// Verdicts for the nodes inside If / Loop / Scan bodies, named by their path, and custom-op
// plugins declared in the profile (compiler.custom_ops) with --plugin-domain as an override.
#include <gtest/gtest.h>

#include "compat_test_util.h"

namespace npugap::compat {
namespace {

using testing::Check;
using testing::Import;
using testing::ModelBuilder;
using testing::NodeNamed;

void TypedValue(onnx::ValueInfoProto* vi, const std::string& name, int elem, std::vector<int64_t> dims) {
  vi->set_name(name);
  auto* tt = vi->mutable_type()->mutable_tensor_type();
  tt->set_elem_type(elem);
  for (int64_t d : dims) tt->mutable_shape()->add_dim()->set_dim_value(d);
}

onnx::NodeProto* AddNode(onnx::GraphProto* g, const std::string& op, std::vector<std::string> in,
                         std::vector<std::string> out, const std::string& name = "",
                         const std::string& domain = "") {
  auto* n = g->add_node();
  n->set_op_type(op);
  n->set_name(name);
  if (!domain.empty()) n->set_domain(domain);
  for (auto& i : in) n->add_input(i);
  for (auto& o : out) n->add_output(o);
  return n;
}

// y = Loop(trip 3) over x: the body adds 1 (fp32, AI Core), casts to float64 and back (AI CPU),
// and runs an op of the custom domain my.ops (unsupported without a plugin). Its nodes are
// unnamed in the file except the Add, so the importer's names show up in the paths.
ir::Model LoopModel() {
  ModelBuilder b;
  b.Opset("my.ops", 1);
  b.Input("x", {2}).Output("y", {2});
  Int64Initializer(b, "trip", {3});
  b.proto().mutable_graph()->mutable_initializer()->Mutable(0)->clear_dims();  // a scalar
  auto* c = b.proto().mutable_graph()->add_initializer();
  c->set_name("cond");
  c->set_data_type(onnx::TensorProto::BOOL);
  c->add_int32_data(1);
  b.Node("Loop", {"trip", "cond", "x"}, {"y"}, "loop");
  auto* a = testing::LastNode(b)->add_attribute();
  a->set_name("body");
  a->set_type(onnx::AttributeProto::GRAPH);
  onnx::GraphProto* g = a->mutable_g();
  g->set_name("body");
  TypedValue(g->add_input(), "i", onnx::TensorProto::INT64, {});
  TypedValue(g->add_input(), "c_in", onnx::TensorProto::BOOL, {});
  TypedValue(g->add_input(), "x_in", onnx::TensorProto::FLOAT, {2});
  auto* one = g->add_initializer();
  one->set_name("one");
  one->set_data_type(onnx::TensorProto::FLOAT);
  one->add_float_data(1.0f);
  AddNode(g, "Add", {"x_in", "one"}, {"added"}, "add");
  auto* to64 = AddNode(g, "Cast", {"added"}, {"wide"});
  auto* to = to64->add_attribute();
  to->set_name("to");
  to->set_type(onnx::AttributeProto::INT);
  to->set_i(onnx::TensorProto::DOUBLE);
  TypedValue(g->add_value_info(), "wide", onnx::TensorProto::DOUBLE, {2});
  auto* back = AddNode(g, "Cast", {"wide"}, {"narrow"});
  to = back->add_attribute();
  to->set_name("to");
  to->set_type(onnx::AttributeProto::INT);
  to->set_i(onnx::TensorProto::FLOAT);
  AddNode(g, "Fancy", {"narrow"}, {"x_out"}, "fancy", "my.ops");
  TypedValue(g->add_value_info(), "x_out", onnx::TensorProto::FLOAT, {2});
  AddNode(g, "Identity", {"c_in"}, {"c_out"}, "keep_going");
  TypedValue(g->add_output(), "c_out", onnx::TensorProto::BOOL, {});
  TypedValue(g->add_output(), "x_out", onnx::TensorProto::FLOAT, {2});
  return Import(b);
}

const NodeResult* Find(const CheckResult& r, const std::string& name) {
  for (const NodeResult& n : r.nodes) {
    if (n.name == name) return &n;
  }
  return nullptr;
}

TEST(CompatSubgraphTest, LoopBodyNodesGetVerdictsNamedByTheirPath) {
  const CheckResult r = Check(LoopModel());
  // The Loop first, then its body in order.
  ASSERT_EQ(r.nodes.size(), 6u);
  EXPECT_EQ(r.nodes[0].name, "loop");
  EXPECT_EQ(r.nodes[0].scope, "");
  EXPECT_EQ(r.nodes[1].name, "loop/body/add");
  EXPECT_EQ(r.nodes[1].scope, "loop/body");
  EXPECT_EQ(r.nodes[1].verdict, Verdict::kAiCore);
  // Unnamed body nodes get the importer's "<op_type>_<index>" names.
  EXPECT_EQ(r.nodes[2].name.rfind("loop/body/Cast_", 0), 0u) << r.nodes[2].name;
  EXPECT_EQ(r.nodes[2].verdict, Verdict::kAiCpu);  // a Cast to float64 lands on AI CPU
  const NodeResult fancy = NodeNamed(r, "loop/body/fancy");
  EXPECT_EQ(fancy.verdict, Verdict::kUnsupported);
  EXPECT_EQ(fancy.error, AtcError::kE19010);
  EXPECT_EQ(r.summary.in_subgraphs, 5);
  EXPECT_EQ(r.summary.unsupported, 1);
  EXPECT_GE(r.summary.aicpu, 1);
  // An unsupported op inside the body stops ATC like one outside.
  EXPECT_FALSE(r.deployable);
}

TEST(CompatSubgraphTest, IfBranchesAndNestedBodies) {
  ModelBuilder b(17);  // DFT exists from opset 17
  b.Input("cond", {}, onnx::TensorProto::BOOL).Input("x", {2}).Output("y", {2});
  b.Node("If", {"cond"}, {"y"}, "if");
  for (const std::string branch : {"then_branch", "else_branch"}) {
    auto* a = testing::LastNode(b)->add_attribute();
    a->set_name(branch);
    a->set_type(onnx::AttributeProto::GRAPH);
    onnx::GraphProto* g = a->mutable_g();
    g->set_name(branch);
    if (branch == "then_branch") {
      AddNode(g, "Relu", {"x"}, {"then_out"}, "relu");
    } else {
      // An If inside the else branch: its own branch is reached through two levels.
      auto* inner = AddNode(g, "If", {"cond"}, {"else_out"}, "inner");
      auto* ia = inner->add_attribute();
      ia->set_name("then_branch");
      ia->set_type(onnx::AttributeProto::GRAPH);
      ia->mutable_g()->set_name("inner_then");
      AddNode(ia->mutable_g(), "DFT", {"x"}, {"inner_out"}, "dft");
      TypedValue(ia->mutable_g()->add_output(), "inner_out", onnx::TensorProto::FLOAT, {2});
      auto* ib = inner->add_attribute();
      ib->set_name("else_branch");
      ib->set_type(onnx::AttributeProto::GRAPH);
      ib->mutable_g()->set_name("inner_else");
      AddNode(ib->mutable_g(), "Neg", {"x"}, {"inner_else_out"}, "neg");
      TypedValue(ib->mutable_g()->add_output(), "inner_else_out", onnx::TensorProto::FLOAT, {2});
    }
    TypedValue(g->add_output(), branch == "then_branch" ? "then_out" : "else_out", onnx::TensorProto::FLOAT,
               {2});
  }
  const CheckResult r = Check(Import(b));
  ASSERT_NE(Find(r, "if/then_branch/relu"), nullptr);
  EXPECT_EQ(Find(r, "if/then_branch/relu")->verdict, Verdict::kAiCore);
  ASSERT_NE(Find(r, "if/else_branch/inner"), nullptr);
  const NodeResult* dft = Find(r, "if/else_branch/inner/then_branch/dft");
  ASSERT_NE(dft, nullptr);
  EXPECT_EQ(dft->scope, "if/else_branch/inner/then_branch");
  EXPECT_EQ(dft->verdict, Verdict::kUnsupported);
  EXPECT_EQ(dft->error, AtcError::kEZ3003);
  ASSERT_NE(Find(r, "if/else_branch/inner/else_branch/neg"), nullptr);
  EXPECT_EQ(r.summary.in_subgraphs, 4);
  EXPECT_EQ(r.summary.aicore + r.summary.aicpu + r.summary.unsupported + r.summary.unknown,
            static_cast<int64_t>(r.nodes.size()));
}

target::Target WithCustomOps(std::vector<target::CustomOpPlugin> plugins) {
  target::Target t = testing::Target("ascend910b2");
  t.compiler->custom_ops = std::move(plugins);
  return t;
}

ir::Model FancyModel() {
  ModelBuilder b;
  b.Opset("my.ops", 1);
  b.Input("x", {2}).Output("y", {2});
  b.Node("Fancy", {"x"}, {"t"}, "fancy", "my.ops").Node("Other", {"t"}, {"y"}, "other", "my.ops");
  return Import(b);
}

CheckResult CheckOn(const ir::Model& m, const target::Target& t, const CheckOptions& o = {}) {
  auto r = CheckModel(m, t, o);
  EXPECT_TRUE(r.ok()) << r.status().message();
  return r.ok() ? *r : CheckResult{};
}

TEST(CompatPluginTest, ProfilePluginCoversItsOpTypesOnly) {
  const ir::Model m = FancyModel();
  const CheckResult r = CheckOn(m, WithCustomOps({{"my.ops", {"Fancy"}, "aicore"}}));
  const NodeResult fancy = NodeNamed(r, "fancy");
  EXPECT_EQ(fancy.verdict, Verdict::kAiCore);
  EXPECT_NE(fancy.reason.find("compiler.custom_ops[0]"), std::string::npos) << fancy.reason;
  // The plugin's parser does not know Other: still "No parser is registered" (E19010).
  const NodeResult other = NodeNamed(r, "other");
  EXPECT_EQ(other.verdict, Verdict::kUnsupported);
  EXPECT_EQ(other.error, AtcError::kE19010);
  EXPECT_NE(other.reason.find("registers no parser for Other (it has: Fancy)"), std::string::npos)
      << other.reason;
  EXPECT_FALSE(r.deployable);
}

TEST(CompatPluginTest, MissingOpTypeListsEveryPluginOfTheDomain) {
  const CheckResult r =
      CheckOn(FancyModel(), WithCustomOps({{"my.ops", {"A"}, "aicore"}, {"my.ops", {"B"}, "aicpu"}}));
  const NodeResult fancy = NodeNamed(r, "fancy");
  EXPECT_EQ(fancy.error, AtcError::kE19010);
  EXPECT_NE(fancy.reason.find("(it has: A, B)"), std::string::npos) << fancy.reason;
}

TEST(CompatPluginTest, WildcardAndAiCpuEngine) {
  const CheckResult r = CheckOn(FancyModel(), WithCustomOps({{"my.ops", {"*"}, "aicpu"}}));
  EXPECT_EQ(NodeNamed(r, "fancy").verdict, Verdict::kAiCpu);
  EXPECT_EQ(NodeNamed(r, "other").verdict, Verdict::kAiCpu);
  EXPECT_TRUE(r.deployable);
  EXPECT_FALSE(r.clean);
}

TEST(CompatPluginTest, PluginDomainOptionOverridesTheProfile) {
  CheckOptions cli;
  cli.plugin_domains = {"my.ops"};
  const CheckResult r = CheckOn(FancyModel(), WithCustomOps({{"my.ops", {"Fancy"}, "aicpu"}}), cli);
  const NodeResult fancy = NodeNamed(r, "fancy");
  EXPECT_EQ(fancy.verdict, Verdict::kAiCore);
  EXPECT_NE(fancy.reason.find("--plugin-domain"), std::string::npos) << fancy.reason;
  EXPECT_EQ(NodeNamed(r, "other").verdict, Verdict::kAiCore);
  EXPECT_TRUE(r.clean);
}

}  // namespace
}  // namespace npugap::compat
