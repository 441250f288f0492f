// Static offset assignment for tensors with known sizes and lifetimes (the executor's node order
// is the time axis). Two planners behind one interface: greedy-by-size (TFLite GPU delegate's
// GREEDY_BY_SIZE, perf-memory-comm-anchors §2.5 [S26]) and naive no-reuse, plus the lower bound
// no planner can beat: the most bytes live at one step.
#pragma once

#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

namespace npugap::analysis::memory {

// One buffer: `bytes` (already padded and aligned) live from step `first` to step `last`, inclusive.
struct TensorUse {
  int id = -1;  // caller's handle (a value index, or a workspace's node index)
  int64_t bytes = 0;
  int first = 0;
  int last = 0;
};

struct Placement {
  std::vector<int64_t> offsets;  // parallel to the input uses
  int64_t peak_bytes = 0;        // max over uses of offset + bytes
};

class Planner {
 public:
  virtual ~Planner() = default;
  virtual std::string_view name() const = 0;
  virtual Placement Assign(const std::vector<TensorUse>& uses) const = 0;
};

// Largest first; each goes into the smallest gap between already placed buffers whose lifetimes
// overlap it, else above the highest of them. Also tries three other orders (size x lifetime,
// longest-lived first, greedy-by-breadth) and keeps the smallest arena; then, while that is above
// the lower bound, up to `refine_rounds` rounds move the buffers that reach the arena's top to the
// front of the order and place again (planner.cc says why).
class GreedyBySizePlanner final : public Planner {
 public:
  static constexpr int kDefaultRefineRounds = 16;
  explicit GreedyBySizePlanner(int refine_rounds = kDefaultRefineRounds) : refine_rounds_(refine_rounds) {}
  std::string_view name() const override { return "greedy-by-size"; }
  Placement Assign(const std::vector<TensorUse>& uses) const override;

 private:
  int refine_rounds_;
};

// Every buffer its own range: what a runtime without reuse needs.
class NaivePlanner final : public Planner {
 public:
  std::string_view name() const override { return "naive"; }
  Placement Assign(const std::vector<TensorUse>& uses) const override;
};

std::unique_ptr<Planner> MakePlanner(std::string_view name);  // "greedy-by-size" | "naive"; else null

// max over steps of the bytes live at that step.
int64_t LowerBound(const std::vector<TensorUse>& uses);

// True when no two uses with overlapping lifetimes overlap in memory (tests, debug checks).
bool PlacementValid(const std::vector<TensorUse>& uses, const Placement& placement);

}  // namespace npugap::analysis::memory
