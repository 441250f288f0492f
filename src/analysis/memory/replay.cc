#include "npugap/analysis/memory/replay.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "npugap/analysis/memory/backward_rules.h"
#include "npugap/analysis/memory/lifetimes.h"

namespace npugap::analysis::memory {
namespace {

constexpr int64_t kHalfBytes = 2;  // fp16 under AMP
constexpr int64_t kFp32Bytes = 4;  // optimizer states

int64_t Numel(const ir::Shape& s) {
  int64_t n = 1;
  for (int64_t d : s) n *= d;
  return n;
}

// The graph's buffers without NPU layouts: the replay models torch_npu eager, whose internal
// formats are off by default (ascend-facts §2.2). The target only matters for layouts, so an
// empty profile is enough here.
Expected<Lifetimes> NdLifetimes(const ir::Graph& g, const ShapeMap& shapes) {
  static const target::Target kNoLayouts;
  return ComputeLifetimes(g, shapes, kNoLayouts, /*npu_layouts=*/false);
}

}  // namespace

Expected<std::vector<AllocEvent>> IterationEvents(const ir::Graph& g, const ShapeMap& shapes, bool training,
                                                  Amp amp) {
  NPUGAP_ASSIGN_OR_RETURN(Lifetimes lt, NdLifetimes(g, shapes));
  const int64_t nv = static_cast<int64_t>(g.values.size());
  auto bytes_of = [&](int v, int64_t element_bytes) {
    const ir::DType dt = g.values[static_cast<size_t>(v)].type.dtype;
    int64_t elem = element_bytes > 0 ? element_bytes : static_cast<int64_t>(ir::DTypeSize(dt));
    if (element_bytes == 0 && amp == Amp::kO2 && ir::IsFloatingPoint(dt)) elem = kHalfBytes;
    return shapes[static_cast<size_t>(v)] ? Numel(*shapes[static_cast<size_t>(v)]) * elem : 0;
  };
  // The buffer each value lives in (views share their input's).
  std::map<int, const Buffer*> owner;
  for (const Buffer& b : lt.buffers) owner[b.value] = &b;
  std::vector<int> root(static_cast<size_t>(nv), -1);
  for (const Buffer& b : lt.buffers) root[static_cast<size_t>(b.value)] = b.value;
  for (const ir::Node& n : g.nodes) {
    if (IsViewOp(n) && n.HasInput(0) && !n.outputs.empty() && n.outputs[0] != ir::kNoValue &&
        root[static_cast<size_t>(n.outputs[0])] < 0) {
      root[static_cast<size_t>(n.outputs[0])] = root[static_cast<size_t>(n.inputs[0])];
    }
  }
  // Training: the backward step (node index) after which each saved buffer can go.
  std::map<int, int> release_after;                   // buffer value -> smallest saving node
  std::map<int64_t, std::pair<int, int64_t>> extras;  // id -> (saving node, bytes)
  const int steps = lt.steps;
  if (training) {
    for (int i = 0; i < static_cast<int>(g.nodes.size()); ++i) {
      for (const SavedTensor& s : SavedForBackward(g, g.nodes[static_cast<size_t>(i)])) {
        if (s.element_bytes > 0) {
          extras[nv + s.value] = {i, bytes_of(s.value, s.element_bytes)};
          continue;
        }
        const int r = root[static_cast<size_t>(s.value)];
        if (r < 0) continue;
        auto [it, fresh] = release_after.emplace(r, i);
        if (!fresh) it->second = std::min(it->second, i);
      }
    }
  }
  std::vector<std::vector<const Buffer*>> alloc_at(static_cast<size_t>(steps)),
      free_at(static_cast<size_t>(steps));
  for (const Buffer& b : lt.buffers) {
    alloc_at[static_cast<size_t>(b.first)].push_back(&b);
    if (!release_after.count(b.value)) free_at[static_cast<size_t>(b.last)].push_back(&b);
  }
  std::vector<AllocEvent> ev;
  for (int i = 0; i < steps; ++i) {
    for (const Buffer* b : alloc_at[static_cast<size_t>(i)])
      ev.push_back({b->value, std::max<int64_t>(b->bytes, 1)});
    for (const auto& [id, e] : extras) {
      if (e.first == i) ev.push_back({id, std::max<int64_t>(e.second, 1)});
    }
    for (const Buffer* b : free_at[static_cast<size_t>(i)]) ev.push_back({b->value, 0});
  }
  if (!training) return ev;
  // Backward, last node first: the gradients of a node's float activation inputs are allocated
  // when first reached and freed after their producer's backward; saved tensors go after the
  // backward of the first node that saved them.
  std::map<int, int64_t> grads;  // value -> event id of the gradient buffer it lives in
  auto grad_of = [&](int v) {
    if (v == ir::kNoValue || root[static_cast<size_t>(v)] < 0 || grads.count(v)) return;
    const ir::Value& val = g.values[static_cast<size_t>(v)];
    if (val.is_initializer || val.is_graph_input || !ir::IsFloatingPoint(val.type.dtype)) return;
    grads[v] = 2 * nv + v;
    ev.push_back({2 * nv + v, std::max<int64_t>(bytes_of(v, 0), 1)});
  };
  for (int v : g.outputs) grad_of(v);
  for (int i = static_cast<int>(g.nodes.size()) - 1; i >= 0; --i) {
    const ir::Node& n = g.nodes[static_cast<size_t>(i)];
    if (IsViewOp(n) && n.HasInput(0) && !n.outputs.empty() && grads.count(n.outputs[0]) &&
        !grads.count(n.inputs[0])) {
      grads[n.inputs[0]] = grads[n.outputs[0]];  // a view's gradient is a view of the output's
      grads.erase(n.outputs[0]);
    } else {
      for (int v : n.inputs) grad_of(v);
    }
    for (int v : n.outputs) {
      if (auto it = grads.find(v); v != ir::kNoValue && it != grads.end()) {
        ev.push_back({it->second, 0});
        grads.erase(it);
      }
    }
    for (const auto& [id, e] : extras) {
      if (e.first == i) ev.push_back({id, 0});
    }
    for (const auto& [v, node] : release_after) {
      if (node == i) ev.push_back({v, 0});
    }
  }
  for (const auto& [v, id] : grads) ev.push_back({id, 0});
  return ev;
}

Expected<std::vector<ReplayResult>> ReplayAllocators(
    const ir::Graph& g, const std::function<Expected<ShapeMap>(int64_t)>& shapes_at,
    const ReplayOptions& options) {
  if (options.batches.empty()) return Status::InvalidArgument("allocator replay: no batches given");
  std::map<int64_t, std::vector<AllocEvent>> events;
  for (int64_t b : options.batches) {
    if (events.count(b)) continue;
    NPUGAP_ASSIGN_OR_RETURN(ShapeMap shapes, shapes_at(b));
    NPUGAP_ASSIGN_OR_RETURN(events[b],
                            IterationEvents(g, shapes, options.training, options.training_options.amp));
  }
  // Model states, allocated once before the first iteration.
  std::vector<int64_t> states;
  const bool o2 = options.training && options.training_options.amp == Amp::kO2;
  for (const auto& [v, t] : g.initializers) {
    const int64_t elem =
        o2 && ir::IsFloatingPoint(t.dtype()) ? kHalfBytes : static_cast<int64_t>(ir::DTypeSize(t.dtype()));
    states.push_back(std::max<int64_t>(t.numel() * elem, 1));
    if (!options.training || !ir::IsFloatingPoint(t.dtype())) continue;
    states.push_back(std::max<int64_t>(t.numel() * elem, 1));  // gradient
    const int copies = OptimizerStatesPerParam(options.training_options.optimizer) + (o2 ? 2 : 0);
    for (int k = 0; k < copies; ++k) states.push_back(std::max<int64_t>(t.numel() * kFp32Bytes, 1));
  }

  AllocatorConfig flipped = options.config;
  flipped.expandable_segments = !flipped.expandable_segments;
  if (flipped.expandable_segments) {  // torch_npu rejects expandable segments with these two
    flipped.max_split_size.reset();
    flipped.garbage_collection_threshold.reset();
  }
  AllocatorConfig cuda = options.config;
  cuda.pad = 0;
  const std::vector<std::pair<std::string, AllocatorConfig>> runs = {
      {options.config.expandable_segments ? "torch_npu expandable_segments" : "torch_npu", options.config},
      {flipped.expandable_segments ? "torch_npu expandable_segments" : "torch_npu", flipped},
      {"cuda", cuda}};
  std::vector<ReplayResult> out;
  for (const auto& [name, config] : runs) {
    CachingAllocator alloc(config, options.limit);
    ReplayResult r;
    r.name = name;
    r.config = config;
    for (int64_t s : states) alloc.Malloc(s);
    for (int64_t b : options.batches) {
      alloc.ResetPeaks();
      std::map<int64_t, int64_t> live;
      for (const AllocEvent& e : events[b]) {
        if (e.bytes > 0) {
          live[e.id] = alloc.Malloc(e.bytes);
        } else if (auto it = live.find(e.id); it != live.end()) {
          alloc.Free(it->second);
          live.erase(it);
        }
      }
      for (const auto& [id, h] : live) alloc.Free(h);
      r.iterations.push_back({b, alloc.stats().peak_allocated, alloc.stats().reserved});
      r.peak_allocated = std::max(r.peak_allocated, alloc.stats().peak_allocated);
      r.peak_reserved = std::max(r.peak_reserved, alloc.stats().peak_reserved);
    }
    r.reserved_growth = r.iterations.back().reserved - r.iterations.front().reserved;
    r.fragmentation = r.peak_reserved > 0
                          ? 1.0 - static_cast<double>(r.peak_allocated) / static_cast<double>(r.peak_reserved)
                          : 0;
    r.device_mallocs = alloc.stats().device_mallocs;
    r.ooms = alloc.stats().ooms;
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace npugap::analysis::memory
