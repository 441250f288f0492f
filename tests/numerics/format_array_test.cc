// The AVX2 and AVX-512 kernels against the scalar reference, bit for bit, on random and edge values
// for every format x rounding x overflow x subnormal option, with the same counts; chunking does
// not matter. The AVX-512 cases are skipped on a CPU without AVX-512 (the CI machine has it).
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <random>
#include <vector>

#include "npugap/numerics/format.h"

namespace npugap::numerics {
namespace {

// Values that stress each format: random bit patterns, every 8/16-bit format's values and the
// midpoints between neighbours (exact ties) and one float ulp either side, the overflow and
// underflow boundaries, zeros, infinities and NaNs with payloads.
std::vector<float> EdgeAndRandomValues() {
  std::vector<float> v;
  std::mt19937 rng(2024);
  for (int i = 0; i < 60000; ++i) v.push_back(std::bit_cast<float>(static_cast<uint32_t>(rng())));
  std::uniform_real_distribution<float> exponent(-30.0f, 20.0f);
  for (int i = 0; i < 60000; ++i) v.push_back((i & 1 ? -1.0f : 1.0f) * std::exp2(exponent(rng)));
  for (Format f : {Format::kFP16, Format::kBF16, Format::kFP8E4M3, Format::kFP8E5M2, Format::kHiF8}) {
    const uint32_t count = 1u << Info(f).bits;
    const uint32_t step = count > 256 ? 7 : 1;  // every 7th 16-bit pattern keeps the test quick
    for (uint32_t b = 0; b + 1 < count; b += step) {
      const float lo = Decode(f, b), hi = Decode(f, b + 1);
      v.push_back(lo);
      if (!std::isfinite(lo) || !std::isfinite(hi)) continue;
      const float mid = static_cast<float>((static_cast<double>(lo) + hi) / 2);
      v.insert(v.end(), {mid, std::nextafter(mid, INFINITY), std::nextafter(mid, -INFINITY)});
    }
    const float max = static_cast<float>(Info(f).max_finite);
    for (float k : {1.0f, 1.0625f, 1.125f, 1.25f, 1.5f, 2.0f}) v.insert(v.end(), {max * k, -max * k});
  }
  v.insert(v.end(), {0.0f, -0.0f, INFINITY, -INFINITY, std::nanf(""), -std::nanf(""),
                     std::bit_cast<float>(0x7f800001u), std::bit_cast<float>(0xff812345u),
                     std::bit_cast<float>(0x00000001u), std::bit_cast<float>(0x807fffffu),
                     std::numeric_limits<float>::max(), std::numeric_limits<float>::min()});
  return v;
}

const std::vector<float>& Values() {
  static const std::vector<float> values = EdgeAndRandomValues();
  return values;
}

// The same values in order of magnitude. In Values() nearly every 64-element group holds a NaN, an
// inf or an overflow, which sends it to the AVX2 path; sorted, the unusual lanes sit together and
// the AVX-512 fast path rounds the ties, midpoints and boundaries.
const std::vector<float>& SortedValues() {
  static const std::vector<float> values = [] {
    std::vector<float> v = Values();
    std::stable_sort(v.begin(), v.end(), [](float a, float b) {
      return (std::bit_cast<uint32_t>(a) & 0x7fffffffu) < (std::bit_cast<uint32_t>(b) & 0x7fffffffu);
    });
    return v;
  }();
  return values;
}

constexpr KernelPath kPaths[] = {KernelPath::kAvx2, KernelPath::kAvx512};
const char* PathName(KernelPath p) { return p == KernelPath::kAvx2 ? "avx2" : "avx512"; }

void ExpectSameStats(const RoundStats& a, const RoundStats& b, const std::string& what) {
  EXPECT_EQ(a.overflow, b.overflow) << what;
  EXPECT_EQ(a.inf_nan, b.inf_nan) << what;
  EXPECT_EQ(a.saturated, b.saturated) << what;
  EXPECT_EQ(a.flushed, b.flushed) << what;
}

TEST(FormatArrayTest, VectorEqualsScalarForEveryOption) {
  for (KernelPath path : kPaths) {
    if (!KernelPathAvailable(path)) continue;
    for (const std::vector<float>* values : {&Values(), &SortedValues()})
      for (Format f : kAllFormats)
        for (Rounding r :
             {Rounding::kNearestEven, Rounding::kTowardZero, Rounding::kHalfAway, Rounding::kStochastic})
          for (Overflow o : {Overflow::kIeee, Overflow::kSaturation})
            for (Subnormals s : {Subnormals::kKeep, Subnormals::kFlush}) {
              const RoundingOptions opt{r, o, s, 0x1234567890abcdefull};
              std::vector<float> vec = *values, ref = *values;
              const RoundStats vs = RoundArray(f, vec, opt, 17, path);
              const RoundStats rs = RoundArrayScalar(f, ref, opt, 17);
              const std::string what = std::string(PathName(path)) + (values == &Values() ? "" : " sorted ") +
                                       std::string(Info(f).name) + " rounding " + std::to_string(int(r)) +
                                       " overflow " + std::to_string(int(o)) + " subnormals " +
                                       std::to_string(int(s));
              size_t mismatches = 0;
              for (size_t i = 0; i < vec.size(); ++i)
                if (std::bit_cast<uint32_t>(vec[i]) != std::bit_cast<uint32_t>(ref[i]) && ++mismatches <= 3)
                  ADD_FAILURE() << what << ": input " << std::hex << std::bit_cast<uint32_t>((*values)[i])
                                << " vector " << std::bit_cast<uint32_t>(vec[i]) << " scalar "
                                << std::bit_cast<uint32_t>(ref[i]);
              EXPECT_EQ(mismatches, 0u) << what;
              ExpectSameStats(vs, rs, what);
            }
  }
}

// The tests above run the AVX-512 path only where the CPU has it and pass silently otherwise; this
// one makes that visible as a skip in the test output.
TEST(FormatArrayTest, Avx512PathRunsOnThisCpu) {
  if (!KernelPathAvailable(KernelPath::kAvx512))
    GTEST_SKIP() << "no AVX-512 F/BW/VL/DQ/BF16 here: only the AVX2 path was compared with the scalar one";
  EXPECT_TRUE(KernelPathAvailable(KernelPath::kAvx2));  // the baseline is always there
}

// Activations as the emulator sees them: N(0, 1), half of them exact zeros (after a ReLU), and a
// length that leaves a tail; nearly every group takes the fast path.
TEST(FormatArrayTest, AvxPathsEqualScalarOnActivations) {
  std::mt19937 rng(7);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<float> act(100003);
  for (size_t i = 0; i < act.size(); ++i) act[i] = (i % 2) ? std::max(normal(rng), 0.0f) : normal(rng);
  for (KernelPath path : kPaths) {
    if (!KernelPathAvailable(path)) continue;
    for (Format f : kAllFormats)
      for (Rounding r : {Rounding::kNearestEven, Rounding::kStochastic}) {
        const RoundingOptions opt{r, Overflow::kSaturation, Subnormals::kKeep, 99};
        std::vector<float> vec = act, ref = act;
        const RoundStats vs = RoundArray(f, vec, opt, 3, path);
        const RoundStats rs = RoundArrayScalar(f, ref, opt, 3);
        const std::string what = std::string(PathName(path)) + " " + std::string(Info(f).name);
        for (size_t i = 0; i < vec.size(); ++i)
          ASSERT_EQ(std::bit_cast<uint32_t>(vec[i]), std::bit_cast<uint32_t>(ref[i])) << what << " " << i;
        ExpectSameStats(vs, rs, what);
      }
  }
}

TEST(FormatArrayTest, CountsOfAKnownArray) {
  std::vector<float> v = {1.0f, 70000.0f, -70000.0f, INFINITY, std::nanf(""), 0x1p-26f, 0x1p-20f, 0.0f, 3.0f};
  RoundStats ieee = RoundArray(Format::kFP16, std::span<float>(v).subspan(0), {});
  EXPECT_EQ(ieee.overflow, 2);
  EXPECT_EQ(ieee.inf_nan, 4);
  EXPECT_EQ(ieee.saturated, 0);
  EXPECT_EQ(ieee.flushed, 1);
  std::vector<float> w = {1.0f, 70000.0f, -70000.0f, INFINITY, std::nanf(""), 0x1p-26f, 0x1p-20f, 0.0f, 3.0f};
  RoundStats sat =
      RoundArray(Format::kFP16, w, {Rounding::kNearestEven, Overflow::kSaturation, Subnormals::kFlush, 0});
  EXPECT_EQ(sat.overflow, 2);
  EXPECT_EQ(sat.inf_nan, 0);
  EXPECT_EQ(sat.saturated, 4);
  EXPECT_EQ(sat.flushed, 2);
  EXPECT_EQ(w[1], 65504.0f);
  EXPECT_EQ(w[2], -65504.0f);
  EXPECT_EQ(w[4], 0.0f);
  EXPECT_EQ(w[6], 0.0f);
}

TEST(FormatArrayTest, StochasticRoundingDoesNotDependOnChunks) {
  const RoundingOptions opt{Rounding::kStochastic, Overflow::kIeee, Subnormals::kKeep, 77};
  for (Format f : {Format::kBF16, Format::kHiF8, Format::kFP8E4M3}) {
    std::vector<float> whole = Values(), pieces = Values();
    RoundArray(f, whole, opt, 1000);
    // Chunks of odd sizes: vector bodies and scalar tails fall in different places.
    size_t at = 0;
    for (size_t len : {size_t{5}, size_t{13}, size_t{4096}, size_t{1}, size_t{77777}}) {
      len = std::min(len, pieces.size() - at);
      RoundArray(f, std::span<float>(pieces).subspan(at, len), opt, 1000 + at);
      at += len;
    }
    RoundArray(f, std::span<float>(pieces).subspan(at), opt, 1000 + at);
    for (size_t i = 0; i < whole.size(); ++i)
      ASSERT_EQ(std::bit_cast<uint32_t>(whole[i]), std::bit_cast<uint32_t>(pieces[i]))
          << Info(f).name << " " << i;
  }
  // Indices crossing 2^32 carry into the high half the same way in both paths.
  std::vector<float> a(64, 1.0f + 0x1p-9f), b = a;
  RoundArray(Format::kFP8E5M2, a, opt, (uint64_t{1} << 32) - 20);
  RoundArrayScalar(Format::kFP8E5M2, b, opt, (uint64_t{1} << 32) - 20);
  for (size_t i = 0; i < a.size(); ++i) EXPECT_EQ(a[i], b[i]) << i;
}

// Stochastic indices whose low 32 bits wrap inside a vector (the AVX-512 kernel carries into the
// high half per lane) or whose 64 bits wrap, on lengths around the 64-element group and with an
// input that starts one float off the vector alignment: every path equals the scalar reference.
TEST(FormatArrayTest, StochasticIndicesAcrossWordBoundariesAndShortArrays) {
  std::mt19937 rng(3);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<float> base(4097);
  for (float& v : base) v = normal(rng) * std::ldexp(1.0f, static_cast<int>(rng() % 40) - 30);
  for (KernelPath path : kPaths) {
    if (!KernelPathAvailable(path)) continue;
    for (Format f : kAllFormats)
      for (Subnormals sub : {Subnormals::kKeep, Subnormals::kFlush})
        for (uint64_t first : {uint64_t{0xfffffff5u}, uint64_t{0x1ffffffc5ull}, ~uint64_t{0} - 40})
          for (size_t len :
               {size_t{1}, size_t{15}, size_t{63}, size_t{64}, size_t{65}, size_t{129}, size_t{4096}}) {
            const RoundingOptions opt{Rounding::kStochastic, Overflow::kSaturation, sub,
                                      0xdeadbeefcafef00dull};
            std::vector<float> vec(base.begin() + 1, base.begin() + 1 + static_cast<std::ptrdiff_t>(len)),
                ref = vec;
            const RoundStats vs = RoundArray(f, vec, opt, first, path);
            const RoundStats rs = RoundArrayScalar(f, ref, opt, first);
            const std::string what = std::string(PathName(path)) + " " + std::string(Info(f).name) +
                                     " first " + std::to_string(first) + " length " + std::to_string(len);
            for (size_t i = 0; i < len; ++i)
              ASSERT_EQ(std::bit_cast<uint32_t>(vec[i]), std::bit_cast<uint32_t>(ref[i])) << what << " " << i;
            ExpectSameStats(vs, rs, what);
          }
  }
}

// Every 16-bit path and option against Encode / RoundScalar, on both orders of the values, and on
// an array of 4 MiB and more at an odd address (non-temporal stores, an unaligned head).
TEST(FormatArrayTest, PackingMatchesEncode) {
  const std::vector<float> large = [] {
    std::vector<float> v = SortedValues();
    while (v.size() * sizeof(uint16_t) < (size_t{4} << 20) + 1000)
      v.insert(v.end(), v.begin(), v.begin() + 100000);
    return v;
  }();
  for (KernelPath path : kPaths) {
    if (!KernelPathAvailable(path)) continue;
    for (Rounding r :
         {Rounding::kNearestEven, Rounding::kTowardZero, Rounding::kHalfAway, Rounding::kStochastic})
      for (Overflow o : {Overflow::kIeee, Overflow::kSaturation})
        for (Subnormals sub : {Subnormals::kKeep, Subnormals::kFlush}) {
          const RoundingOptions opt{r, o, sub, 5};
          for (const std::vector<float>* values : {&Values(), &SortedValues(), &large})
            for (Format f : {Format::kFP16, Format::kBF16}) {
              // The large array once per rounding: it only adds the streamed stores.
              if (values == &large && (o != Overflow::kIeee || sub != Subnormals::kKeep)) continue;
              // One element of slack in front puts the output at an odd 2-byte offset.
              const std::span<const float> in(*values);
              std::vector<uint16_t> storage(in.size() + 1);
              const std::span<uint16_t> packed = std::span<uint16_t>(storage).subspan(1);
              EncodeArray16(f, in, packed, opt, path);
              std::vector<float> back(in.size());
              DecodeArray16(f, packed, back, path);
              for (size_t i = 0; i < in.size(); ++i) {
                ASSERT_EQ(packed[i], Encode(f, in[i], opt, i))
                    << PathName(path) << " " << Info(f).name << " rounding " << int(r) << " " << i;
                ASSERT_EQ(std::bit_cast<uint32_t>(back[i]),
                          std::bit_cast<uint32_t>(RoundScalar(f, in[i], opt, i)));
              }
            }
        }
  }
  const RoundingOptions opt{Rounding::kStochastic, Overflow::kSaturation, Subnormals::kKeep, 5};
  const std::vector<float>& in = Values();
  for (Format f : {Format::kFP8E4M3, Format::kFP8E5M2, Format::kHiF8}) {
    std::vector<uint8_t> packed(in.size());
    EncodeArray8(f, in, packed, opt);
    std::vector<float> back(in.size());
    DecodeArray8(f, packed, back);
    for (size_t i = 0; i < in.size(); ++i) {
      ASSERT_EQ(packed[i], Encode(f, in[i], opt, i)) << Info(f).name << " " << i;
      ASSERT_EQ(back[i], Decode(f, packed[i]));
    }
  }
}

// Every 16-bit pattern, NaN payloads included, decodes as Decode does on every path.
TEST(FormatArrayTest, DecodeEvery16BitPattern) {
  std::vector<uint16_t> all(65536 + 5);
  for (size_t i = 0; i < all.size(); ++i) all[i] = static_cast<uint16_t>(i);
  for (KernelPath path : kPaths)
    for (Format f : {Format::kFP16, Format::kBF16}) {
      std::vector<float> out(all.size());
      DecodeArray16(f, all, out, path);
      for (size_t i = 0; i < all.size(); ++i)
        ASSERT_EQ(std::bit_cast<uint32_t>(out[i]), std::bit_cast<uint32_t>(Decode(f, all[i])))
            << PathName(path) << " " << Info(f).name << " " << std::hex << all[i];
    }
}

}  // namespace
}  // namespace npugap::numerics
