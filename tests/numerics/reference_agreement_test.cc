// FP32 -> FP16 against NumPy's float16 cast and FP32 -> BF16 against PyTorch's bfloat16 cast,
// bit for bit, on the >= 10^7 values reference_values.py writes (ties, subnormals, overflow
// boundaries, NaN payloads, random patterns). Run by ctest's numerics_reference entry, which sets
// NPUGAP_NUMERICS_REFERENCE_DIR; run alone, the test is skipped.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

#include "npugap/numerics/format.h"
#include "npugap/numerics/half.h"
#include "npugap/onnx/io_files.h"

namespace npugap::numerics {
namespace {

ir::Tensor Load(const std::string& path, ir::DType dtype) {
  auto t = onnx_import::ReadNpy(path);
  EXPECT_TRUE(t.ok()) << path << ": " << (t.ok() ? std::string() : t.status().message());
  if (!t.ok()) return {};
  EXPECT_EQ(t->dtype(), dtype) << path;
  return *t;
}

TEST(ReferenceAgreementTest, Fp16MatchesNumpyAndBf16MatchesTorch) {
  const char* dir = std::getenv("NPUGAP_NUMERICS_REFERENCE_DIR");
  if (dir == nullptr) GTEST_SKIP() << "run through ctest -R numerics_reference (needs numpy and torch)";
  const ir::Tensor inputs = Load(std::string(dir) + "/inputs.npy", ir::DType::kUInt32);
  const ir::Tensor numpy_fp16 = Load(std::string(dir) + "/numpy_fp16.npy", ir::DType::kUInt16);
  const ir::Tensor torch_bf16 = Load(std::string(dir) + "/torch_bf16.npy", ir::DType::kUInt16);
  ASSERT_TRUE(inputs.defined() && numpy_fp16.defined() && torch_bf16.defined());
  const auto n = static_cast<size_t>(inputs.numel());
  ASSERT_GE(n, size_t{10'000'000});
  ASSERT_EQ(numpy_fp16.numel(), inputs.numel());
  ASSERT_EQ(torch_bf16.numel(), inputs.numel());
  const std::span<const float> x(reinterpret_cast<const float*>(inputs.data<uint32_t>()), n);

  std::vector<uint16_t> ours(n);
  EncodeArray16(Format::kFP16, x, ours);
  const uint16_t* want16 = numpy_fp16.data<uint16_t>();
  size_t fp16_mismatch = 0, nan_inputs = 0;
  for (size_t i = 0; i < n; ++i) {
    nan_inputs += std::isnan(x[i]);
    if (ours[i] != want16[i] && ++fp16_mismatch <= 5)
      ADD_FAILURE() << "fp16 of " << std::hex << std::bit_cast<uint32_t>(x[i]) << ": ours " << ours[i]
                    << ", numpy " << want16[i];
  }
  EXPECT_EQ(fp16_mismatch, 0u);

  // PyTorch's vectorised cast writes every NaN as 0xffff (ATen's cvtfp32_bf16), so NaN inputs are
  // compared for NaN-ness and every other input bit for bit.
  EncodeArray16(Format::kBF16, x, ours);
  const uint16_t* want_bf16 = torch_bf16.data<uint16_t>();
  size_t bf16_mismatch = 0;
  for (size_t i = 0; i < n; ++i) {
    const bool same =
        std::isnan(x[i]) ? (std::isnan(BFloat16ToFloat(ours[i])) && std::isnan(BFloat16ToFloat(want_bf16[i])))
                         : ours[i] == want_bf16[i];
    if (!same && ++bf16_mismatch <= 5)
      ADD_FAILURE() << "bf16 of " << std::hex << std::bit_cast<uint32_t>(x[i]) << ": ours " << ours[i]
                    << ", torch " << want_bf16[i];
  }
  EXPECT_EQ(bf16_mismatch, 0u);
  std::printf(
      "compared %zu values: fp16 bit for bit with numpy (%zu NaN inputs included); bf16 bit for bit "
      "with torch on %zu non-NaN values, NaN-ness on %zu NaNs\n",
      n, nan_inputs, n - nan_inputs, nan_inputs);
}

}  // namespace
}  // namespace npugap::numerics
