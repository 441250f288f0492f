#include "npugap/analysis/compat/static_model.h"

#include <filesystem>
#include <string>

#include <fmt/format.h>

#include "npugap/onnx/export.h"
#include "npugap/onnx/import.h"

namespace npugap::compat {

Expected<ir::Model> MakeStaticModel(const ir::Model& model, StaticModelStats* stats) {
  for (int id : model.graph.inputs) {
    const ir::Value& v = model.graph.values[static_cast<size_t>(id)];
    if (!v.type.StaticShape()) {
      return Status::InvalidArgument(fmt::format(
          "input '{}' is {}: bind it with --shape {}=DIMS or --batch N", v.name, v.type.ToString(), v.name));
    }
  }
  // The import's own shape folding (onnx/fold_constants.h), the pass every analysis sees: the
  // model is written out and read back with it on. A model imported with folding already (as
  // `npugap check` imports it) folds nothing more here.
  NPUGAP_ASSIGN_OR_RETURN(std::string bytes, onnx_import::SerializeModel(model));
  onnx_import::ImportOptions fold;
  fold.fold_shape_constants = true;
  int folded = 0;
  fold.folded_nodes = &folded;
  auto out = onnx_import::LoadModelFromBytes(bytes, ".", model.path, fold);
  if (!out.ok()) return out.status().WithContext("re-reading the model to fold it");
  if (stats) {
    stats->nodes_folded = folded;
    // The folder also drops the helpers (Constant, ...) that only folded nodes read.
    stats->nodes_removed = static_cast<int>(model.graph.nodes.size() - out->graph.nodes.size()) - folded;
  }
  return out;
}

std::string AtcCommandLine(const ir::Model& model, const target::Target& target,
                           const std::string& model_path, const std::string& precision_mode_v2) {
  std::string shapes;
  for (int id : model.graph.inputs) {
    const ir::Value& v = model.graph.values[static_cast<size_t>(id)];
    if (!shapes.empty()) shapes += ';';
    shapes += v.name + ':';
    if (v.type.dims) {
      for (size_t i = 0; i < v.type.dims->size(); ++i) {
        const ir::Dim& d = (*v.type.dims)[i];
        if (i > 0) shapes += ',';
        shapes += d.is_static() ? std::to_string(d.value) : std::string("-1");
      }
    }
  }
  const std::string soc = target.compiler ? target.compiler->soc_version.value : std::string("?");
  // --output is the offline model's path without its .om suffix, which ATC appends. The model's
  // stem alone writes the .om into the folder atc runs in, as the ATC samples do
  // (`--model=resnet50.onnx ... --output=resnet50`), not next to the ONNX file, whose folder may
  // be a shared or read-only model store.
  const std::string stem = std::filesystem::path(model_path).stem().string();
  return fmt::format(
      "atc --model={} --framework=5 --output={} --input_shape=\"{}\" --soc_version={} --precision_mode_v2={}",
      model_path, stem, shapes, soc, precision_mode_v2);
}

}  // namespace npugap::compat
