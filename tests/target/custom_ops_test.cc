// compiler.custom_ops: custom-op plugins declared in a target profile, and every validation error
// naming its field.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "npugap/target/target.h"

namespace npugap::target {
namespace {

using nlohmann::json;

json Profile910B2() {
  auto t = LoadTarget("ascend910b2");
  EXPECT_TRUE(t.ok()) << t.status().message();
  return t.ok() ? json::parse(t->json_text) : json::object();
}

json WithPlugins(json plugins) {
  json p = Profile910B2();
  p["compiler"]["custom_ops"] = std::move(plugins);
  return p;
}

std::string ErrorOf(const json& profile) {
  auto t = ParseTarget(profile.dump(), "my.json");
  EXPECT_FALSE(t.ok());
  if (t.ok()) return "";
  EXPECT_EQ(t.status().message().find('\n'), std::string::npos) << t.status().message();
  return t.status().message();
}

TEST(TargetCustomOps, BuiltinsDeclareNone) {
  for (const std::string& name : ListTargets()) {
    auto t = LoadTarget(name);
    ASSERT_TRUE(t.ok()) << t.status().message();
    if (t->compiler) EXPECT_TRUE(t->compiler->custom_ops.empty()) << name;
  }
}

TEST(TargetCustomOps, AbsentOrNullMemberMeansNone) {
  json p = Profile910B2();
  p["compiler"].erase("custom_ops");
  auto t = ParseTarget(p.dump(), "my.json");
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_TRUE(t->compiler->custom_ops.empty());
  EXPECT_TRUE(t->warnings.empty());
  p["compiler"]["custom_ops"] = nullptr;
  ASSERT_TRUE(ParseTarget(p.dump(), "my.json").ok());
}

TEST(TargetCustomOps, ReadsDomainOpTypesAndEngine) {
  const json p = WithPlugins(json::array({
      {{"domain", "my.ops"}, {"op_types", {"Fancy", "Plain"}}, {"engine", "aicore"}, {"note", "v1.2"}},
      {{"domain", "com.vendor"}, {"op_types", {"DeformableConv2D"}}, {"engine", "aicpu"}},
  }));
  auto t = ParseTarget(p.dump(), "my.json");
  ASSERT_TRUE(t.ok()) << t.status().message();
  const auto& ops = t->compiler->custom_ops;
  ASSERT_EQ(ops.size(), 2u);
  EXPECT_EQ(ops[0].domain, "my.ops");
  EXPECT_EQ(ops[0].op_types, (std::vector<std::string>{"Fancy", "Plain"}));
  EXPECT_EQ(ops[0].engine, "aicore");
  EXPECT_EQ(ops[1].domain, "com.vendor");
  EXPECT_EQ(ops[1].engine, "aicpu");
  EXPECT_TRUE(t->warnings.empty());
}

TEST(TargetCustomOps, ErrorsNameTheField) {
  const json good = {{"domain", "my.ops"}, {"op_types", {"Fancy"}}, {"engine", "aicore"}};
  EXPECT_NE(ErrorOf(WithPlugins("my.ops")).find("field 'compiler.custom_ops': expected an array"),
            std::string::npos);
  EXPECT_NE(
      ErrorOf(WithPlugins(json::array({"my.ops"}))).find("'compiler.custom_ops[0]': expected an object"),
      std::string::npos);
  json e = good;
  e.erase("domain");
  EXPECT_NE(ErrorOf(WithPlugins({good, e})).find("'compiler.custom_ops[1].domain': missing"),
            std::string::npos);
  e = good;
  e["domain"] = "";
  EXPECT_NE(ErrorOf(WithPlugins({e})).find("'compiler.custom_ops[0].domain': empty"), std::string::npos);
  e = good;
  e["op_types"] = json::array();
  EXPECT_NE(ErrorOf(WithPlugins({e})).find("'compiler.custom_ops[0].op_types': expected a non-empty array"),
            std::string::npos);
  e = good;
  e["op_types"] = {"Fancy", 3};
  EXPECT_NE(ErrorOf(WithPlugins({e})).find("'compiler.custom_ops[0].op_types[1]': expected a string"),
            std::string::npos);
  e = good;
  e["engine"] = "gpu";
  EXPECT_NE(
      ErrorOf(WithPlugins({e})).find("'compiler.custom_ops[0].engine': 'gpu' is not one of aicore, aicpu"),
      std::string::npos);
  // The same op type twice, even across entries, is ambiguous.
  EXPECT_NE(ErrorOf(WithPlugins({good, good}))
                .find("'compiler.custom_ops[1].op_types[0]': 'Fancy' of domain "
                      "'my.ops' is declared twice"),
            std::string::npos);
  // The importer's ONNX checker rejects unknown ai.onnx op types, so a plugin there could never apply;
  // ai.onnx.ml (no ATC parser either) may have one.
  e = good;
  e["domain"] = "ai.onnx";
  EXPECT_NE(ErrorOf(WithPlugins({e}))
                .find("'compiler.custom_ops[0].domain': 'ai.onnx' is the standard ONNX domain"),
            std::string::npos);
}

TEST(TargetCustomOps, UnknownKeyIsAWarning) {
  const json p =
      WithPlugins({{{"domain", "my.ops"}, {"op_types", {"*"}}, {"engine", "aicore"}, {"version", 2}}});
  auto t = ParseTarget(p.dump(), "my.json");
  ASSERT_TRUE(t.ok()) << t.status().message();
  ASSERT_EQ(t->warnings.size(), 1u);
  EXPECT_NE(t->warnings[0].find("compiler.custom_ops[0].version': unknown key"), std::string::npos)
      << t->warnings[0];
}

}  // namespace
}  // namespace npugap::target
