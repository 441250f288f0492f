// The built-in ascend910 profile, loaded once for the cost model tests of this folder, and the
// helpers those tests share: a kernel record from operand strings, a profile edited in JSON.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "npugap/analysis/perf/kernel.h"
#include "npugap/analysis/perf/calibrate/kernel_csv.h"
#include "npugap/target/embedded.h"
#include "npugap/target/target.h"

namespace npugap::analysis::perf {

inline const target::Target& Ascend910() {
  static const target::Target t = [] {
    auto r = target::LoadTarget("ascend910");
    EXPECT_TRUE(r.ok()) << r.status().message();
    return *r;
  }();
  return t;
}

// The profile with the per-core rates of the GE autofuse "att" map that it held until session 15
// (GM -> L1 32, L2 -> L1 110, GM -> UB 32, UB -> GM 32 B/cycle), now the 2020 Ascend910.ini's
// 40 / 80 / 40 / 40. The tests that use it check a mechanism whose hand arithmetic, or whose
// premise (32 cores' per-core reads below the HBM figure), was written at those rates; they are
// the test's inputs, not the profile's figures. It leaves out the L0C -> UB rate too.
inline const target::Target& Ascend910AtAttRates() {
  static const target::Target t = [] {
    target::Target a = Ascend910();
    a.datapath->gm_to_l1.value = 32;
    a.datapath->l2_to_l1.value = 110;
    a.datapath->gm_to_ub.value = 32;
    a.datapath->ub_to_gm.value = 32;
    a.datapath->l0c_to_ub.reset();  // nor the drain's L0C -> UB move, which that profile did not have
    return a;
  }();
  return t;
}

// The profile without vector and DMA instruction heads: a kernel's pipe times are then the bytes
// and elements of its busiest core alone.
inline const target::Target& Ascend910WithoutHeads() {
  static const target::Target t = [] {
    target::Target b = Ascend910();
    b.kernel->vector_instruction_heads.clear();
    b.kernel->dma_instruction_heads.clear();
    return b;
  }();
  return t;
}

// A kernel record from operand strings in the CSV form ("FORMAT:dtype:d0xd1...").
inline Kernel K(const std::string& type, int block_dim, std::vector<std::string> in,
                std::vector<std::string> out) {
  Kernel k;
  k.op_type = type;
  k.block_dim = block_dim;
  for (const auto* list : {&in, &out}) {
    for (const auto& s : *list) {
      auto op = ParseOperand(s);
      EXPECT_TRUE(op.ok()) << op.status().message();
      (list == &in ? k.inputs : k.outputs).push_back(*op);
    }
  }
  return k;
}

// The ascend910 profile's JSON, edited by `edit`, loaded from a temporary file.
template <typename Edit>
Expected<target::Target> LoadEditedAscend910(Edit edit) {
  const char* text = nullptr;
  for (std::size_t i = 0; i < target::internal::kNumEmbeddedProfiles; ++i) {
    if (std::string_view(target::internal::kEmbeddedProfiles[i].name) == "ascend910")
      text = target::internal::kEmbeddedProfiles[i].json;
  }
  EXPECT_NE(text, nullptr);
  nlohmann::json j = nlohmann::json::parse(text ? text : "{}");
  edit(j);
  const auto path = std::filesystem::temp_directory_path() / "npugap_perf_edited_ascend910.json";
  std::ofstream(path) << j.dump();
  auto loaded = target::LoadTarget(path.string());
  std::filesystem::remove(path);
  return loaded;
}

// A negative value of kernel.<section>.<key> fails to load with an error naming that field.
inline void ExpectNegativeKernelFieldIsAnError(const std::string& section, const std::string& key) {
  const auto bad = LoadEditedAscend910([&](nlohmann::json& j) { j["kernel"][section][key]["value"] = -1; });
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("kernel." + section + "." + key), std::string::npos)
      << bad.status().message();
}

}  // namespace npugap::analysis::perf
