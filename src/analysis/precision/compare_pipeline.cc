#include "compare_pipeline.h"

#include <fmt/format.h>

namespace npugap::analysis::precision {

MetricsPipeline::MetricsPipeline(const ir::Graph& graph) : graph_(graph), worker_([this] { Work(); }) {}

MetricsPipeline::~MetricsPipeline() {
  {
    std::lock_guard lock(mu_);
    stop_ = true;
  }
  changed_.notify_all();
  worker_.join();
}

void MetricsPipeline::Push(Pair pair) {
  std::unique_lock lock(mu_);
  changed_.wait(lock, [&] { return pending_elements_ <= kMaxPendingElements || !failure_.ok(); });
  pending_elements_ += pair.target.numel();
  queue_.push_back(std::move(pair));
  changed_.notify_all();
}

Status MetricsPipeline::Drain() {
  std::unique_lock lock(mu_);
  changed_.wait(lock, [&] { return (queue_.empty() && !busy_) || !failure_.ok(); });
  return failure_;
}

void MetricsPipeline::Work() {
  std::unique_lock lock(mu_);
  for (;;) {
    changed_.wait(lock, [&] { return stop_ || !queue_.empty(); });
    if (queue_.empty()) return;  // stop_ and nothing left
    Pair pair = std::move(queue_.front());
    queue_.pop_front();
    busy_ = true;
    lock.unlock();
    auto [it, first] = accumulated_.try_emplace(pair.value);
    if (first) it->second.shape = pair.reference.shape();
    Status st = it->second.errors.Add(pair.target, pair.reference);
    it->second.errors.AddRoundStats(pair.stats);
    if (!st.ok()) {
      st = st.WithContext(fmt::format("node '{}' output '{}'", pair.node,
                                      graph_.values[static_cast<size_t>(pair.value)].name));
    }
    const int64_t elements = pair.target.numel();
    pair = Pair{};  // release both tensors before taking the lock
    lock.lock();
    busy_ = false;
    pending_elements_ -= elements;
    if (!st.ok() && failure_.ok()) failure_ = std::move(st);
    changed_.notify_all();
  }
}

}  // namespace npugap::analysis::precision
