// Target profiles: every built-in loads and validates, derived numbers agree with the fields they
// are derived from, and every validation error names the file and the field.
#include "npugap/target/target.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>

namespace npugap::target {
namespace {

using nlohmann::json;

const std::vector<std::string> kExpectedNames = {"ascend310p3", "ascend910",   "ascend910b1",
                                                 "ascend910b2", "ascend910b3", "ascend910b4",
                                                 "ascend910c",  "cpu-dev",     "h200"};

Target MustLoad(const std::string& name) {
  auto t = LoadTarget(name);
  EXPECT_TRUE(t.ok()) << t.status().message();
  return t.ok() ? *t : Target{};
}

json Profile(const std::string& name) { return json::parse(MustLoad(name).json_text); }

// Parses a (mutated) profile that must fail; returns the one-line message.
std::string ErrorOf(const json& profile) {
  auto t = ParseTarget(profile.dump(), "my.json");
  EXPECT_FALSE(t.ok());
  if (t.ok()) return "";
  const std::string& m = t.status().message();
  EXPECT_EQ(m.find('\n'), std::string::npos) << m;
  EXPECT_EQ(m.rfind("my.json: ", 0), 0u) << m;
  return m;
}

bool Near(double a, double b, double rel) { return std::abs(a - b) <= rel * std::abs(b); }

TEST(TargetBuiltins, ListsEveryProfile) { EXPECT_EQ(ListTargets(), kExpectedNames); }

TEST(TargetBuiltins, EveryProfileLoadsCleanly) {
  for (const std::string& name : ListTargets()) {
    SCOPED_TRACE(name);
    const Target t = MustLoad(name);
    EXPECT_EQ(t.name, name);  // the name inside the file matches the file name
    EXPECT_EQ(t.origin, "built-in");
    EXPECT_TRUE(t.warnings.empty()) << t.warnings.front();
    EXPECT_GT(t.facts.size(), 25u);  // cpu-dev, the smallest, has 31
    EXPECT_FALSE(t.compute.cube.empty());
  }
}

TEST(TargetBuiltins, AssumedFactsSayWhy) {
  for (const std::string& name : ListTargets()) {
    for (const FactRow& f : MustLoad(name).facts) {
      if (f.origin.confidence != Confidence::kAssumed) continue;
      EXPECT_NE(f.origin.source.find("assum"), std::string::npos)
          << name << " " << f.field << ": " << f.origin.source;
    }
  }
}

// peak = cores x MACs/cycle x 2 x clock, recomputed from each profile's own fields. Where the peak
// is the published number (910A 256 TFLOPS, H200 989.4), this checks the fields derived from it.
TEST(TargetBuiltins, PeakEqualsCoresTimesMacsTimesTwoTimesClock) {
  for (const std::string& name : ListTargets()) {
    const Target t = MustLoad(name);
    for (const auto& [dtype, rate] : t.compute.cube) {
      const double formula = static_cast<double>(t.compute.cube_cores.value) * rate.macs_per_cycle.value * 2 *
                             t.compute.clock.value;
      EXPECT_TRUE(Near(formula, rate.peak.value, 0.005))
          << name << " " << dtype << ": " << formula << " vs " << rate.peak.value;
    }
  }
  EXPECT_DOUBLE_EQ(*MustLoad("ascend910").PeakFlops("fp16"), 256e12);
  EXPECT_NEAR(*MustLoad("ascend910b2").PeakFlops("fp16"), 24 * 4096 * 2 * 1.8e9, 0.01e12);
  EXPECT_FALSE(MustLoad("ascend910").PeakFlops("bf16").has_value());  // bf16 only from 910B1
}

// On the Ascend cube one fractal is one cycle's work, so MACs/cycle = m x k x n of the fractal.
TEST(TargetBuiltins, MacsPerCycleIsOneFractal) {
  for (const std::string& name : ListTargets()) {
    const Target t = MustLoad(name);
    if (!t.is_ascend()) continue;
    for (const char* dtype : {"fp16", "bf16", "int8", "int4"}) {
      const auto rate = t.compute.cube.find(dtype);
      if (rate == t.compute.cube.end()) continue;
      const auto& f = t.layout.fractal.at(dtype).value;
      EXPECT_EQ(rate->second.macs_per_cycle.value, static_cast<double>(f[0] * f[1] * f[2]))
          << name << " " << dtype;
    }
  }
}

TEST(TargetBuiltins, PackageIsTwoDies) {
  const Target c = MustLoad("ascend910c");
  ASSERT_TRUE(c.package.has_value());
  const double dies = static_cast<double>(c.package->dies.value);
  EXPECT_EQ(c.package->dies.value, 2);
  EXPECT_TRUE(Near(dies * *c.PeakFlops("fp16"), c.package->peak_fp16.value, 0.005));
  EXPECT_EQ(c.package->dies.value * c.memory.device.value, c.package->device.value);
  EXPECT_TRUE(Near(dies * c.memory.bandwidth.value, c.package->bandwidth.value, 1e-9));
  for (const std::string& name : ListTargets()) {
    if (name == "ascend910c") continue;
    EXPECT_FALSE(MustLoad(name).package.has_value()) << name;
  }
}

TEST(TargetBuiltins, UnitsConvertToBaseUnits) {
  const Target t = MustLoad("ascend910b2");
  EXPECT_DOUBLE_EQ(t.compute.clock.value, 1.8e9);
  EXPECT_EQ(t.memory.device.value, 68719476736);  // memory_size in Ascend910B2.ini
  EXPECT_EQ(t.buffers.l2->value, 201326592);      // l2_size
  EXPECT_EQ(t.buffers.ub->value, 196608);         // ub_size
  EXPECT_EQ(t.buffer_alignment.l0a->value, 512);
  EXPECT_EQ(t.memory.alloc_alignment.value, 512);
  EXPECT_EQ(t.memory.alloc_pad.value, 32);
  EXPECT_DOUBLE_EQ(t.host.eager_dispatch_per_op.value, 71e-6);
  EXPECT_DOUBLE_EQ(t.interconnect.intra_node->bandwidth_per_peer.value, 28e9);
  EXPECT_DOUBLE_EQ(t.interconnect.scale_out->port_bandwidth.value, 25e9);  // 200 Gbit/s
  EXPECT_EQ(t.framework.comm_buffer->value, 200 << 20);
  EXPECT_EQ(t.compute.cube.at("fp16").peak.origin.confidence, Confidence::kDerived);
}

TEST(TargetBuiltins, NumericsFollowTheResearchNotes) {
  for (const std::string& name : ListTargets()) {
    const Target t = MustLoad(name);
    if (!t.is_ascend()) {
      EXPECT_FALSE(t.compiler.has_value()) << name;
      continue;
    }
    const bool a2_or_later = name.rfind("ascend910b", 0) == 0 || name == "ascend910c";
    EXPECT_EQ(t.numerics.overflow_mode.value, a2_or_later ? "inf_nan" : "saturation") << name;
    EXPECT_EQ(t.numerics.hf32.value, a2_or_later) << name;
    EXPECT_EQ(t.framework.default_precision_mode.value,
              a2_or_later ? "must_keep_origin_dtype" : "allow_fp32_to_fp16")
        << name;
    EXPECT_EQ(t.framework.jit_compile_default->value, !a2_or_later) << name;
    EXPECT_EQ(t.compiler->onnx_opset_min.value, 9) << name;
    EXPECT_EQ(t.compiler->onnx_opset_max.value, 18) << name;
    EXPECT_EQ(t.layout.c0.at("fp16").value, 16) << name;
    EXPECT_EQ(t.layout.c0.at("int8").value, 32) << name;
  }
}

TEST(TargetBuiltins, DefaultTargetIsA910B2) {
  EXPECT_EQ(kDefaultTarget, "ascend910b2");
  EXPECT_TRUE(LoadTarget(std::string(kDefaultTarget)).ok());
}

// ---- validation errors: one line, file and field named --------------------------------------

TEST(TargetErrors, MissingField) {
  json p = Profile("ascend910b2");
  p["memory"].erase("device");
  const std::string m = ErrorOf(p);
  EXPECT_NE(m.find("field 'memory.device': missing"), std::string::npos) << m;
}

TEST(TargetErrors, MissingSectionAndValue) {
  json p = Profile("ascend910b2");
  p.erase("host");
  EXPECT_NE(ErrorOf(p).find("field 'host': missing"), std::string::npos);
  p = Profile("ascend910b2");
  p["compute"]["clock"].erase("value");
  EXPECT_NE(ErrorOf(p).find("field 'compute.clock.value': missing"), std::string::npos);
}

TEST(TargetErrors, WrongType) {
  json p = Profile("ascend910b2");
  p["compute"]["cube_cores"]["value"] = "24";
  const std::string m = ErrorOf(p);
  EXPECT_NE(m.find("field 'compute.cube_cores.value': expected a number, got a string"), std::string::npos)
      << m;
  p = Profile("ascend910b2");
  p["numerics"]["hf32"]["value"] = 1;
  EXPECT_NE(ErrorOf(p).find("'numerics.hf32.value': expected true or false"), std::string::npos);
  p = Profile("ascend910b2");
  p["memory"] = 64;
  EXPECT_NE(ErrorOf(p).find("'memory': expected an object, got a number"), std::string::npos);
}

TEST(TargetErrors, ZeroAndNegativeSizes) {
  json p = Profile("ascend910b2");
  p["buffers"]["ub"]["value"] = 0;
  EXPECT_NE(ErrorOf(p).find("field 'buffers.ub.value': must be > 0, got 0"), std::string::npos);
  p = Profile("ascend910b2");
  p["memory"]["device"]["value"] = -64;
  EXPECT_NE(ErrorOf(p).find("field 'memory.device.value': must be > 0, got -64"), std::string::npos);
  p = Profile("ascend910b2");
  p["compute"]["cube"]["fp16"]["peak"]["value"] = 0;
  EXPECT_NE(ErrorOf(p).find("'compute.cube.fp16.peak.value': must be > 0"), std::string::npos);
  p = Profile("ascend910b2");
  p["host"]["eager_dispatch_per_op"]["value"] = -1;
  EXPECT_NE(ErrorOf(p).find("'host.eager_dispatch_per_op.value': must be >= 0"), std::string::npos);
  p = Profile("ascend910b2");
  p["memory"]["device"] = {{"value", 0.5}, {"unit", "B"}, {"source", "x"}, {"confidence", "assumed"}};
  EXPECT_NE(ErrorOf(p).find("'memory.device.value': must be a whole number"), std::string::npos);
}

TEST(TargetErrors, Units) {
  json p = Profile("ascend910b2");
  p["memory"]["device"]["unit"] = "furlong";
  EXPECT_NE(ErrorOf(p).find("'memory.device.unit': 'furlong' is not one of B, KiB"), std::string::npos);
  p = Profile("ascend910b2");
  p["compute"]["clock"].erase("unit");
  EXPECT_NE(ErrorOf(p).find("'compute.clock.unit': missing"), std::string::npos);
  p = Profile("ascend910b2");
  p["compute"]["cube_cores"]["unit"] = "cores";
  EXPECT_NE(ErrorOf(p).find("'compute.cube_cores.unit': this field is a plain number"), std::string::npos);
  // A different but valid unit converts: 1.8 GHz is the same clock.
  p = Profile("ascend910b2");
  p["compute"]["clock"]["value"] = 1.8;
  p["compute"]["clock"]["unit"] = "GHz";
  auto t = ParseTarget(p.dump(), "my.json");
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_DOUBLE_EQ(t->compute.clock.value, 1.8e9);
}

TEST(TargetErrors, SourceAndConfidence) {
  json p = Profile("ascend910b2");
  p["memory"]["bandwidth"]["confidence"] = "sure";
  EXPECT_NE(ErrorOf(p).find("'memory.bandwidth.confidence': 'sure' is not one of official"),
            std::string::npos);
  p = Profile("ascend910b2");
  p["memory"]["bandwidth"]["source"] = "";
  EXPECT_NE(ErrorOf(p).find("'memory.bandwidth.source': empty"), std::string::npos);
  p = Profile("ascend910b2");
  p["memory"]["bandwidth"].erase("source");
  EXPECT_NE(ErrorOf(p).find("'memory.bandwidth.source': missing"), std::string::npos);
}

TEST(TargetErrors, EnumsListTheValidValues) {
  json p = Profile("ascend910b2");
  p["numerics"]["overflow_mode"]["value"] = "wrap";
  EXPECT_NE(ErrorOf(p).find("'wrap' is not one of saturation, inf_nan"), std::string::npos);
  p = Profile("ascend910b2");
  p["kind"] = "fpga";
  EXPECT_NE(ErrorOf(p).find("field 'kind': 'fpga' is not one of ascend, gpu, cpu"), std::string::npos);
  p = Profile("ascend910b2");
  p["schema_version"] = 2;
  EXPECT_NE(ErrorOf(p).find("field 'schema_version': expected 1, got 2"), std::string::npos);
}

TEST(TargetErrors, CrossFieldChecks) {
  json p = Profile("ascend910b2");
  p["compiler"] = nullptr;
  EXPECT_NE(ErrorOf(p).find("field 'compiler': null, but required for kind 'ascend'"), std::string::npos);
  p = Profile("ascend910b2");
  p["compute"]["cube"].erase("int4");
  EXPECT_NE(ErrorOf(p).find("'numerics.cube_input_formats': 'int4' has no compute.cube.int4"),
            std::string::npos);
  p = Profile("ascend910b2");
  p["layout"]["fractal"].erase("bf16");
  EXPECT_NE(ErrorOf(p).find("'layout.fractal.bf16': missing"), std::string::npos);
  p = Profile("ascend910b2");
  p["compiler"]["onnx_opset_min"]["value"] = 19;
  EXPECT_NE(ErrorOf(p).find("'compiler.onnx_opset_min': greater than"), std::string::npos);
  p = Profile("ascend910b2");
  p["memory"]["reserve"]["value"] = 64;
  EXPECT_NE(ErrorOf(p).find("'memory.reserve': must be smaller"), std::string::npos);
  // The same null compiler is fine on a development reference.
  p = Profile("h200");
  EXPECT_TRUE(p["compiler"].is_null());
  EXPECT_TRUE(ParseTarget(p.dump(), "my.json").ok());
}

TEST(TargetErrors, UnknownKeysAndOddPeaksAreWarnings) {
  json p = Profile("ascend910b2");
  p["colour"] = "red";
  p["compute"]["clock"]["note"] = "boost";
  p["compute"]["cube"]["fp16"]["peak"]["value"] = 500;
  auto t = ParseTarget(p.dump(), "my.json");
  ASSERT_TRUE(t.ok()) << t.status().message();
  ASSERT_EQ(t->warnings.size(), 3u);
  EXPECT_NE(t->warnings[0].find("my.json: field 'colour': unknown key"), std::string::npos) << t->warnings[0];
  EXPECT_NE(t->warnings[1].find("field 'compute.clock.note': unknown key"), std::string::npos)
      << t->warnings[1];
  EXPECT_NE(t->warnings[2].find("field 'compute.cube.fp16.peak': 500 TFLOPS differs"), std::string::npos)
      << t->warnings[2];
}

TEST(TargetErrors, InvalidJson) {
  auto t = ParseTarget("{\n  \"name\": \"x\",\n  \"kind\": \n}", "my.json");
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.status().message().find("my.json: invalid JSON: parse error at line 4"), std::string::npos)
      << t.status().message();
  t = ParseTarget("[1, 2]", "my.json");
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.status().message().find("expected a JSON object"), std::string::npos);
}

// ---- resolving names and files -----------------------------------------------------------------

class TargetFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("npugap_target_test_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string Write(const std::string& file, const std::string& text) {
    const std::string path = (dir_ / file).string();
    std::ofstream(path) << text;
    return path;
  }
  std::filesystem::path dir_;
};

TEST_F(TargetFiles, UnknownNameListsTheValidOnes) {
  auto t = LoadTarget("ascend999");
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().code(), StatusCode::kNotFound);
  for (const std::string& name : kExpectedNames)
    EXPECT_NE(t.status().message().find(name), std::string::npos);
}

TEST_F(TargetFiles, MissingFileAndDirectory) {
  const std::string missing = (dir_ / "nope.json").string();
  auto t = LoadTarget(missing);
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().message(), missing + ": target profile file not found");
  t = LoadTarget(dir_.string());
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.status().message().find("not a regular file"), std::string::npos);
}

TEST_F(TargetFiles, UserProfileLoadsFromAPath) {
  json p = Profile("ascend910b2");
  p["name"] = "my-npu";
  p["memory"]["device"]["value"] = 48;
  const std::string path = Write("my-npu.json", p.dump(2));
  auto t = LoadTarget(path);
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_EQ(t->name, "my-npu");
  EXPECT_EQ(t->origin, path);
  EXPECT_EQ(t->memory.device.value, int64_t{48} << 30);
}

TEST_F(TargetFiles, ErrorsInAFileNameTheFile) {
  const std::string bad_json = Write("broken.json", "{ \"name\": ");
  auto t = LoadTarget(bad_json);
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().message().rfind(bad_json + ": invalid JSON", 0), 0u) << t.status().message();
  json p = Profile("ascend910b2");
  p["buffers"]["l0c"]["value"] = -1;
  const std::string bad_field = Write("negative.json", p.dump());
  t = LoadTarget(bad_field);
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().message(), bad_field + ": field 'buffers.l0c.value': must be > 0, got -1");
}

}  // namespace
}  // namespace npugap::target
