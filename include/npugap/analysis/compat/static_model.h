// `npugap check --write-static`: the model as ATC should get it — every input bound, every
// shape-computing chain (Shape -> Gather -> Concat -> Reshape, ...) folded into initializers with
// the executor's own kernels — and the ATC command line that compiles it.
#pragma once

#include <string>

#include "npugap/base/status.h"
#include "npugap/ir/graph.h"
#include "npugap/target/target.h"

namespace npugap::compat {

struct StaticModelStats {
  int nodes_folded = 0;   // nodes computed into initializers
  int nodes_removed = 0;  // constant helpers left without consumers
};

// Folds with the import's own pass (onnx/fold_constants.h: re-imported with
// fold_shape_constants on, which folds and re-infers shapes until a pass folds nothing). Fails when
// a graph input still has an unbound dim (bind it with --shape / --batch first).
Expected<ir::Model> MakeStaticModel(const ir::Model& model, StaticModelStats* stats = nullptr);

// `atc --model=PATH --framework=5 --output=STEM --input_shape=... --soc_version=...
// --precision_mode_v2=...` for a model whose inputs are static; values from the target profile.
// STEM is PATH's file name without its extension: the .om lands in the current directory.
std::string AtcCommandLine(const ir::Model& model, const target::Target& target,
                           const std::string& model_path, const std::string& precision_mode_v2);

}  // namespace npugap::compat
