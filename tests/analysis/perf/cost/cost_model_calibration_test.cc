// The pieces of the per-kernel cost model added while calibrating it on the Ascend 910 records
// (docs/fidelity.md, "Changes"): the storage of float32 labels in FRACTAL_NZ, the vector
// instruction classes of the profile, and the block starts of multi-wave kernels. Expected values
// are computed from the profile's own numbers, not copied from the calibration files.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "ascend910_profile.h"
#include "npugap/analysis/perf/kernel.h"
#include "npugap/analysis/perf/calibrate/kernel_csv.h"

namespace npugap::analysis::perf {
namespace {

double Rate(const target::Target& t, const std::string& cls, const std::string& dtype) {
  return t.kernel->vector_instructions.at(cls).at(dtype).value;
}

// A vector kernel stores each operand as labelled (LabelledBytes): a float32 FRACTAL_NZ tensor with
// 16 x 16 fractals (what the cube writes from L0C, and the calibration records' float32 NZ
// tensors read under their true TypeIds) moves 4 bytes per element, as NC1HWC0 does.
TEST(PerfCalibration, Fp32NzLabelInVectorKernelsMovesFourBytes) {
  const auto& t = Ascend910();
  const auto add = [](const std::string& format, const std::string& dt, const std::string& dims) {
    const std::string x = format + ":" + dt + ":" + dims;
    return K("Add", 30, {x, x}, {x});
  };
  const std::string nz = "48x1024x16x16";
  EXPECT_NEAR(PredictKernel(add("FRACTAL_NZ", "float32", nz), t).memory_us,
              2 * PredictKernel(add("FRACTAL_NZ", "float16", nz), t).memory_us, 1e-6);
  const std::string c0 = "32x16x56x56x16";
  EXPECT_NEAR(PredictKernel(add("NC1HWC0", "float32", c0), t).memory_us,
              2 * PredictKernel(add("NC1HWC0", "float16", c0), t).memory_us, 1e-6);
}

TEST(PerfCalibration, VectorInstructionClassesCostTheProfilesCyclesPerElement) {
  // The per-element rates alone: instruction heads are tested in cost_model_tiles_test.cc.
  target::Target t = Ascend910();
  t.kernel->vector_instruction_heads.clear();
  const std::string x = "ND:float16:64x1024x1024";  // large: vector bound, many elements per core
  const auto vec = [&](const std::string& type) { return PredictKernel(K(type, 32, {x}, {x}), t).vector_us; };
  const double elements = 64.0 * 1024 * 1024;
  const double per_core_s = elements / 32 / t.compute.clock.value;
  EXPECT_NEAR(vec("Relu"), 1e6 * per_core_s * Rate(t, "simple", "float16"), 1e-6);
  EXPECT_NEAR(vec("Exp"), 1e6 * per_core_s * Rate(t, "transcendental", "float16"), 1e-6);
  EXPECT_NEAR(vec("RealDiv"), 1e6 * per_core_s * Rate(t, "divide", "float16"), 1e-6);
  // Softmax: sub; exp; div; a max and a sum across the row; both broadcast back (2 simple).
  const double softmax = 3 * Rate(t, "simple", "float16") + Rate(t, "transcendental", "float16") +
                         Rate(t, "divide", "float16") + 2 * Rate(t, "reduce", "float16");
  EXPECT_NEAR(vec("Softmax"), 1e6 * per_core_s * softmax, 1e-6);
  // float32 takes the float32 rates.
  const std::string f = "ND:float32:64x1024x1024";
  EXPECT_NEAR(PredictKernel(K("Relu", 32, {f}, {f}), t).vector_us,
              1e6 * per_core_s * Rate(t, "simple", "float32"), 1e-6);
  // Without the table every instruction runs at the lane rate (2048 bits / 16 = 128 fp16 lanes).
  target::Target bare = t;
  bare.kernel->vector_instructions.clear();
  const double lanes = static_cast<double>(t.compute.vector_width.value) / 16;
  EXPECT_NEAR(PredictKernel(K("Softmax", 32, {x}, {x}), bare).vector_us, 1e6 * per_core_s * 7 / lanes, 1e-6);
}

// CANN's lamb_apply_optimizer_assign broadcasts its scalars before using them, so the bias
// corrections 1 - beta^steps (ln, mul, exp, mul, add) run on every element: 25 simple, 5
// transcendental and 3 divide instructions per element (cost_model_vector.cc spells them out).
TEST(PerfCalibration, LambMomentUpdateComputesItsBiasCorrectionsPerElement) {
  target::Target t = Ascend910();
  t.kernel->vector_instruction_heads.clear();
  const std::string x = "ND:float16:3072x768", s = "ND:float16:1";
  const Kernel lamb = K("LambApplyOptimizerAssign", 32, {x, x, x, x, s, s, s, s, s, s, s, s}, {x, x, x});
  const double per_core = 3072.0 * 768 / 32;
  const double cycles = 25 * Rate(t, "simple", "float16") + 5 * Rate(t, "transcendental", "float16") +
                        3 * Rate(t, "divide", "float16");
  EXPECT_NEAR(PredictKernel(lamb, t).vector_us, 1e6 * per_core * cycles / t.compute.clock.value, 1e-9);
  // That is more than its 7 full-size fp16 operands take over HBM: the kernel is vector bound.
  EXPECT_EQ(PredictKernel(lamb, Ascend910()).bound, Bound::kVector);
}

// CANN's fused_mul_apply_momentum computes in float32: the 3 float16 tensors in and 2 out are
// cast, the 3 scalars copied to the full shape, then x1 x2, accum m, +, lr accum, var - that.
TEST(PerfCalibration, FusedMomentumComputesInFloat32WithItsCasts) {
  target::Target t = Ascend910();
  t.kernel->vector_instruction_heads.clear();
  const std::string w = "FracZ:float16:288x32x16x16", s = "ND:float16:1";
  const Kernel k = K("FusedMulApplyMomentum", 32, {w, w, s, w, s, s}, {w, w});
  const double per_core = 288.0 * 32 * 256 / 32;
  const double cycles = (8 + 5) * Rate(t, "simple", "float32");
  EXPECT_NEAR(PredictKernel(k, t).vector_us, 1e6 * per_core * cycles / t.compute.clock.value, 1e-9);
}

TEST(PerfCalibration, OnlyTheFirstWavesBlockStartsDelayTheEnd) {
  const auto& t = Ascend910();
  const auto tiny = [&](int block_dim) {
    return PredictKernel(K("Add", block_dim, {"ND:float16:", "ND:float16:"}, {"ND:float16:"}), t).overhead_us;
  };
  const int cores = static_cast<int>(t.compute.cube_cores.value);
  // 192 blocks on 32 cores: the later waves are dispatched while the first runs.
  EXPECT_DOUBLE_EQ(tiny(6 * cores), tiny(cores));
  EXPECT_NEAR(tiny(cores) - tiny(1), (cores - 1) * 1e6 * t.kernel->block_start.value, 1e-9);
}

TEST(PerfCalibration, ProfileVectorInstructionsAreCheckedWhenRead) {
  const auto& t = Ascend910();
  for (const char* cls : {"simple", "transcendental", "divide", "reduce"}) {
    for (const char* dt : {"float16", "float32"}) EXPECT_GT(Rate(t, cls, dt), 0) << cls << " " << dt;
  }
  // A negative rate is a one-line error that names the field.
  const auto bad = LoadEditedAscend910(
      [](nlohmann::json& j) { j["kernel"]["vector_instructions"]["reduce"]["float32"]["value"] = -0.1; });
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("kernel.vector_instructions.reduce.float32"), std::string::npos)
      << bad.status().message();
}

}  // namespace
}  // namespace npugap::analysis::perf
