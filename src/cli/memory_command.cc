// `npugap memory MODEL --target T --batch N [--train ...]`: inference plan, training breakdown,
// fit verdict and largest batch, and the caching-allocator replay (torch_npu vs CUDA constants).
#include <cerrno>
#include <cstdlib>
#include <iostream>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/common.h"
#include "npugap/analysis/memory/inference.h"
#include "npugap/analysis/memory/max_batch.h"
#include "npugap/analysis/memory/replay.h"
#include "npugap/analysis/memory/training.h"
#include "npugap/exec/executor.h"
#include "npugap/exec/random_inputs.h"

namespace npugap::cli {
namespace {

namespace mem = analysis::memory;

struct MemoryOptions {
  ModelOptions model;
  TargetOptions target;
  bool train = false;
  std::string optimizer = "adam";
  std::string amp = "none";
  int64_t dp_ranks = 1;
  std::string vary_batch;
  std::string alloc_conf;
  std::string planner = "greedy-by-size";
  bool json = false;
  bool run_shapes = false;
  bool batch_given = false;
};

Expected<std::vector<int64_t>> ParseBatchList(const std::string& text) {
  std::vector<int64_t> out;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ',')) {
    char* end = nullptr;
    errno = 0;
    const long long v = std::strtoll(item.c_str(), &end, 10);
    if (item.empty() || *end != '\0' || errno != 0 || v <= 0) {
      return Status::InvalidArgument(fmt::format(
          "--vary-batch '{}': '{}' is not a positive integer (expected e.g. 17,32,64)", text, item));
    }
    out.push_back(v);
  }
  if (out.empty() || text.back() == ',') {
    return Status::InvalidArgument(fmt::format("--vary-batch '{}': expected a list like 17,32,64", text));
  }
  return out;
}

// Shape inference leaves some values unknown in models whose shape subgraphs it cannot fold (ViT's
// and Swin's computed Reshapes). With --run-shapes those shapes come from running the model once
// in FP32 on random inputs at the bound batch, with every original node observed.
Expected<mem::ShapeMap> ShapesOf(const ir::Model& model, bool run) {
  auto shapes = mem::StaticShapes(model.graph);
  if (shapes.ok() || !run) return shapes;
  exec::ExecutorOptions options;
  options.fuse = false;
  NPUGAP_ASSIGN_OR_RETURN(auto executor, exec::Executor::Create(model, options));
  NPUGAP_ASSIGN_OR_RETURN(auto inputs, exec::RandomInputs(model.graph, 1));
  mem::ShapeMap out(model.graph.values.size());
  for (size_t i = 0; i < model.graph.inputs.size() && i < inputs.size(); ++i) {
    out[static_cast<size_t>(model.graph.inputs[i])] = inputs[i].shape();
  }
  for (const auto& [v, t] : model.graph.initializers) out[static_cast<size_t>(v)] = t.shape();
  auto run_status = executor.Run(inputs, [&](const ir::Node& node, const std::vector<ir::Tensor>& outs) {
    for (size_t k = 0; k < node.outputs.size() && k < outs.size(); ++k) {
      if (node.outputs[k] != ir::kNoValue) out[static_cast<size_t>(node.outputs[k])] = outs[k].shape();
    }
  });
  if (!run_status.ok()) return run_status.status().WithContext("--run-shapes");
  return out;
}

std::string GiB(int64_t b) { return fmt::format("{:.2f} GiB", static_cast<double>(b) / (1 << 30)); }

// The model's batch as imported: --batch, else the first input's leading dim.
int64_t ModelBatch(const ir::Graph& g, const mem::ShapeMap& shapes, int64_t given) {
  if (given > 0) return given;
  for (int v : g.inputs) {
    const auto& s = shapes[static_cast<size_t>(v)];
    if (s && !s->empty() && (*s)[0] > 0) return (*s)[0];
  }
  return 1;
}

int RunMemory(const MemoryOptions& o) {
  if (o.batch_given && o.model.batch <= 0) {
    return ReportError(Status::InvalidArgument(fmt::format("--batch {}: must be positive", o.model.batch)));
  }
  auto optimizer = mem::ParseOptimizer(o.optimizer);
  if (!optimizer.ok()) return ReportError(optimizer.status());
  auto amp = mem::ParseAmp(o.amp);
  if (!amp.ok()) return ReportError(amp.status());
  if (o.dp_ranks < 1)
    return ReportError(Status::InvalidArgument(fmt::format("--dp-ranks {}: must be >= 1", o.dp_ranks)));
  std::vector<int64_t> vary;
  if (!o.vary_batch.empty()) {
    auto list = ParseBatchList(o.vary_batch);
    if (!list.ok()) return ReportError(list.status());
    vary = *list;
  }
  std::string conf_text = o.alloc_conf, conf_origin = "--alloc-conf";
  if (conf_text.empty() && std::getenv("PYTORCH_NPU_ALLOC_CONF")) {
    conf_text = std::getenv("PYTORCH_NPU_ALLOC_CONF");
    conf_origin = "PYTORCH_NPU_ALLOC_CONF";
  }
  auto conf = mem::ParseAllocConf(conf_text);
  if (!conf.ok()) return ReportError(conf.status().WithContext(conf_origin));
  auto target = LoadTargetWithOptions(o.target);
  if (!target.ok()) return ReportError(target.status());
  for (const auto& w : target->warnings) std::cerr << "npugap: warning: " << w << "\n";
  conf->pad = target->memory.alloc_pad.value;

  auto model = LoadModelWithOptions(o.model);
  if (!model.ok()) return ReportError(model.status());
  const ir::Graph& g = model->graph;
  auto shapes = ShapesOf(*model, o.run_shapes);
  if (!shapes.ok()) return ReportError(shapes.status().WithContext(model->path));
  const int64_t batch = ModelBatch(g, *shapes, o.model.batch);

  // Shapes at other batches: a second import at twice the batch tells which dims scale.
  auto twice = AtBatch(o.model, batch * 2);
  if (!twice.ok()) return ReportError(twice.status());
  auto model2 = LoadModelWithOptions(*twice);
  if (!model2.ok()) return ReportError(model2.status());
  auto shapes2 = ShapesOf(*model2, o.run_shapes);
  if (!shapes2.ok()) return ReportError(shapes2.status().WithContext(model->path));
  auto scaling = mem::BatchScaling::Derive(*shapes, batch, *shapes2, batch * 2);
  const bool rebindable = scaling.ok() && scaling->depends_on_batch();
  std::string max_batch_note;
  if (!scaling.ok())
    max_batch_note = scaling.status().message();
  else if (!rebindable)
    max_batch_note = "the model's batch is fixed in the file; re-export it with a symbolic batch";
  if (!vary.empty() && !rebindable) {
    return ReportError(Status::InvalidArgument("--vary-batch: cannot rebind the batch: " + max_batch_note));
  }
  auto shapes_at = [&](int64_t b) -> Expected<mem::ShapeMap> {
    if (b == batch) return *shapes;
    return scaling->At(b);
  };

  mem::InferenceOptions inf_options;
  inf_options.planner = o.planner;
  auto inference = mem::PlanInference(g, *shapes, *target, inf_options);
  if (!inference.ok()) return ReportError(inference.status().WithContext(model->path));
  mem::TrainingOptions train_options{*optimizer, *amp, o.dp_ranks};
  std::optional<mem::TrainingReport> training;
  if (o.train) {
    auto t = mem::PlanTraining(g, *shapes, *target, train_options);
    if (!t.ok()) return ReportError(t.status().WithContext(model->path));
    training = *t;
  }
  const mem::Budget budget{target->memory.device.value, target->memory.reserve.value};
  const int64_t limit = mem::BatchSearchLimit(g, *shapes, batch, budget);
  std::optional<int64_t> max_batch, train_max_batch;
  if (rebindable) {
    auto m =
        mem::LargestFittingBatch(mem::FitsAtBatch(g, shapes_at, *target, {inf_options, {}}, budget), limit);
    if (!m.ok()) return ReportError(m.status().WithContext(model->path));
    max_batch = *m;
    if (o.train) {
      auto t = mem::LargestFittingBatch(
          mem::FitsAtBatch(g, shapes_at, *target, {inf_options, train_options}, budget), limit);
      if (!t.ok()) return ReportError(t.status().WithContext(model->path));
      train_max_batch = *t;
    }
  }

  mem::ReplayOptions replay;
  replay.config = *conf;
  replay.training = o.train;
  replay.training_options = train_options;
  replay.limit = budget.available() - (training ? training->hccl_bytes : 0);
  if (vary.empty()) {
    replay.batches = {batch, batch, batch};
  } else {
    replay.batches = vary;  // twice through the list: does reserved keep growing?
    replay.batches.insert(replay.batches.end(), vary.begin(), vary.end());
  }
  auto runs = mem::ReplayAllocators(g, shapes_at, replay);
  if (!runs.ok()) return ReportError(runs.status().WithContext(model->path));

  const bool fits = inference->total_bytes <= budget.available();
  const bool train_fits = !training || training->total_bytes <= budget.available();
  nlohmann::json j;
  j["model"] = model->path;
  j["target"] = target->name;
  j["batch"] = batch;
  j["planner"] = inference->planner;
  j["weights_bytes"] = inference->weights_bytes;
  j["weights_nd_bytes"] = inference->weights_nd_bytes;
  j["activation_peak_bytes"] = inference->activation_peak_bytes;
  j["naive_bytes"] = inference->naive_bytes;
  j["lower_bound_bytes"] = inference->lower_bound_bytes;
  j["plan_over_lower_bound"] = inference->lower_bound_bytes > 0
                                   ? static_cast<double>(inference->activation_peak_bytes) /
                                         static_cast<double>(inference->lower_bound_bytes)
                                   : 1.0;
  j["workspace_bytes"] = inference->workspace_bytes;
  j["layout_padding_bytes"] = inference->layout_padding_bytes;
  j["largest_activation"] = {{"name", inference->largest_buffer}, {"bytes", inference->largest_buffer_bytes}};
  j["total_bytes"] = inference->total_bytes;
  j["device_bytes"] = budget.device_bytes;
  j["reserve_bytes"] = budget.reserve_bytes;
  j["available_bytes"] = budget.available();
  j["fits"] = fits;
  j["max_batch"] = max_batch ? nlohmann::json(*max_batch) : nlohmann::json(nullptr);
  if (!max_batch_note.empty()) j["max_batch_note"] = max_batch_note;
  if (training) {
    const auto& t = *training;
    j["train"] = {
        {"optimizer", o.optimizer},
        {"amp", o.amp},
        {"dp_ranks", o.dp_ranks},
        {"parameters", t.parameters},
        {"weights_bytes", t.weights_bytes},
        {"gradients_bytes", t.gradients_bytes},
        {"master_weights_bytes", t.master_weights_bytes},
        {"optimizer_bytes", t.optimizer_bytes},
        {"activations_bytes", t.activations_bytes},
        {"transient_bytes", t.transient_bytes},
        {"hccl_bytes", t.hccl_bytes},
        {"total_bytes", t.total_bytes},
        {"fits", train_fits},
        {"largest_saved", {{"name", t.largest_saved}, {"bytes", t.largest_saved_bytes}}},
        {"max_batch", train_max_batch ? nlohmann::json(*train_max_batch) : nlohmann::json(nullptr)}};
  }
  nlohmann::json jr = nlohmann::json::array();
  for (const auto& r : *runs) {
    nlohmann::json its = nlohmann::json::array();
    for (const auto& it : r.iterations) {
      its.push_back({{"batch", it.batch},
                     {"peak_allocated_bytes", it.peak_allocated},
                     {"reserved_bytes", it.reserved}});
    }
    jr.push_back({{"allocator", r.name},
                  {"pad_bytes", r.config.pad},
                  {"expandable_segments", r.config.expandable_segments},
                  {"peak_allocated_bytes", r.peak_allocated},
                  {"peak_reserved_bytes", r.peak_reserved},
                  {"fragmentation", r.fragmentation},
                  {"reserved_growth_bytes", r.reserved_growth},
                  {"device_mallocs", r.device_mallocs},
                  {"ooms", r.ooms},
                  {"iterations", its}});
  }
  j["allocator"] = {
      {"mode", o.train ? "training" : "inference"}, {"ignored_keys", conf->ignored}, {"runs", jr}};
  const int rc = fits && train_fits ? kExitOk : kExitCheckFailed;
  if (o.json) {
    std::cout << j.dump(2) << "\n";
    return rc;
  }
  std::cout << fmt::format("model      {}  batch {}  target {}\n", model->path, batch, target->name);
  std::cout << fmt::format("inference  weights {}  activations {} (lower bound {}, naive {})  workspace {}\n",
                           GiB(inference->weights_bytes), GiB(inference->activation_peak_bytes),
                           GiB(inference->lower_bound_bytes), GiB(inference->naive_bytes),
                           GiB(inference->workspace_bytes));
  std::cout << fmt::format("           total {} of {} available ({} device - {} reserve): {}  max batch {}\n",
                           GiB(inference->total_bytes), GiB(budget.available()), GiB(budget.device_bytes),
                           GiB(budget.reserve_bytes), fits ? "fits" : "DOES NOT FIT",
                           max_batch ? std::to_string(*max_batch) : "-");
  if (training) {
    const auto& t = *training;
    std::cout << fmt::format(
        "training   weights {}  gradients {}  master {}  optimizer {}  activations {}  transient {}  hccl "
        "{}\n",
        GiB(t.weights_bytes), GiB(t.gradients_bytes), GiB(t.master_weights_bytes), GiB(t.optimizer_bytes),
        GiB(t.activations_bytes), GiB(t.transient_bytes), GiB(t.hccl_bytes));
    std::cout << fmt::format("           total {}: {}  max batch {}\n", GiB(t.total_bytes),
                             train_fits ? "fits" : "DOES NOT FIT",
                             train_max_batch ? std::to_string(*train_max_batch) : "-");
  }
  for (const auto& r : *runs) {
    std::cout << fmt::format(
        "allocator  {:<30} pad {:>2} B  peak allocated {}  peak reserved {}  fragmentation "
        "{:.1f}%  reserved growth {}\n",
        r.name, r.config.pad, GiB(r.peak_allocated), GiB(r.peak_reserved), 100 * r.fragmentation,
        GiB(r.reserved_growth));
  }
  if (!max_batch_note.empty()) std::cout << "note       max batch: " << max_batch_note << "\n";
  return rc;
}

}  // namespace

Command AddMemoryCommand(CLI::App& app) {
  auto options = std::make_shared<MemoryOptions>();
  CLI::App* cmd =
      app.add_subcommand("memory", "device memory: inference plan, training, max batch, allocator replay");
  AddModelOptions(*cmd, options->model);
  options->model.fold_shapes = true;  // the deployed graph: ATC folds shape sub-graphs
  AddTargetOption(*cmd, options->target);
  cmd->add_flag("--train", options->train, "also the training breakdown");
  cmd->add_option("--optimizer", options->optimizer, "sgd | momentum | adam | adamw (default adam)");
  cmd->add_option("--amp", options->amp, "none | O1 | O2 (default none)");
  cmd->add_option("--dp-ranks", options->dp_ranks, "data-parallel ranks; > 1 adds the HCCL buffers");
  cmd->add_option("--vary-batch", options->vary_batch, "allocator replay over these batches, e.g. 17,32,64");
  cmd->add_option("--alloc-conf", options->alloc_conf,
                  "PYTORCH_NPU_ALLOC_CONF for the replay (default: the environment variable)");
  cmd->add_option("--planner", options->planner, "greedy-by-size | naive (default greedy-by-size)");
  cmd->add_flag("--run-shapes", options->run_shapes,
                "take shapes that shape inference leaves unknown from one FP32 run on random inputs");
  cmd->add_flag("--json", options->json, "JSON output");
  return {cmd, [options, cmd] {
            options->batch_given = cmd->get_option("--batch")->count() > 0;
            return RunMemory(*options);
          }};
}

}  // namespace npugap::cli
