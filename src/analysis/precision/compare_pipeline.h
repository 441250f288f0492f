// The metrics side of the layer-wise comparison: pairs (target tensor, reference tensor) are
// pushed while the target runs and accumulated on one worker thread, so msprobe's metrics of a
// tensor are computed while the emulator produces the next ones. The pairs are added in the order
// they were pushed (one worker, FIFO), so each tensor's metrics are the same bits as when added
// inline; a pair's tensors are released as soon as it is added.
#pragma once

#include <condition_variable>
#include <deque>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "npugap/analysis/precision/compare.h"

namespace npugap::analysis::precision {

class MetricsPipeline {
 public:
  struct Pair {
    int value = ir::kNoValue;
    std::string node;
    ir::Tensor target, reference;
    numerics::RoundStats stats;
  };
  struct Accumulated {
    ErrorAccumulator errors;
    ir::Shape shape;  // the first input set's
  };

  explicit MetricsPipeline(const ir::Graph& graph);
  ~MetricsPipeline();
  MetricsPipeline(const MetricsPipeline&) = delete;
  MetricsPipeline& operator=(const MetricsPipeline&) = delete;

  // Waits while the pairs not yet added hold more than kMaxPendingElements (bounds memory when
  // the metrics fall behind the run).
  void Push(Pair pair);
  // Waits until every pushed pair is added; the first error (a shape or dtype mismatch).
  Status Drain();
  const std::map<int, Accumulated>& accumulators() const { return accumulated_; }

 private:
  static constexpr int64_t kMaxPendingElements = int64_t{1} << 24;  // 16M pairs: 128 MB
  void Work();

  const ir::Graph& graph_;
  std::mutex mu_;
  std::condition_variable changed_;
  std::deque<Pair> queue_;
  int64_t pending_elements_ = 0;
  bool busy_ = false, stop_ = false;
  std::map<int, Accumulated> accumulated_;  // written by the worker only
  Status failure_;
  std::thread worker_;
};

// One reference run on one input set, keeping every floating-point node output (compare.cc).
Expected<std::unordered_map<int, ir::Tensor>> TraceOneSet(const ir::Model& model, const TracedRun& reference,
                                                          const std::vector<ir::Tensor>& inputs, size_t set);

// compare_classify.cc
Expected<std::vector<ClassScores>> ScoreClassOutputs(
    const ir::Graph& graph, const ReferenceTrace& reference,
    const std::vector<std::vector<ir::Tensor>>& target_outputs, const std::vector<int64_t>& labels);

}  // namespace npugap::analysis::precision
