// ONNX → npugap IR. Parses with protobuf, validates with libonnx's checker, binds symbolic
// input dims from the command line, runs libonnx shape inference (with data propagation, so
// Shape → Gather → Concat → Reshape chains resolve once inputs are bound), optionally folds the
// shape sub-graphs that inference alone does not resolve (Range and friends; fold_constants.h),
// then converts.
//
// Opset handling: npugap keeps the model's opset and registers kernels per opset range (see
// exec/op_table.h) instead of running the version converter, so the IR matches the file the
// user will hand to ATC.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "npugap/base/status.h"
#include "npugap/ir/graph.h"

namespace npugap::onnx_import {

struct ImportOptions {
  // --shape NAME=1x3x224x224: fixes every dim of a graph input.
  std::vector<std::pair<std::string, ir::Shape>> input_shapes;
  // --batch N: binds the leading dim of every input whose leading dim is not fixed.
  std::optional<int64_t> batch;
  bool run_checker = true;
  // Fold the shape sub-graphs once shapes are bound (onnx/fold_constants.h): what ATC does with
  // --input_shape, so memory, perf and compat see static shapes. Off by default so that `run`,
  // `info` and the precision comparison see the file's own nodes.
  bool fold_shape_constants = false;
  // When set, receives the number of nodes folded into initializers (0 without folding).
  int* folded_nodes = nullptr;
};

// Parses "1x3x224x224" (also "1,3,224,224"); error names the text.
Expected<ir::Shape> ParseShape(const std::string& text);
// Parses "NAME=1x3x224x224"; the name may itself contain '='-free characters only.
Expected<std::pair<std::string, ir::Shape>> ParseShapeBinding(const std::string& text);

// Loads a model file. External data is read only from files inside the model's folder.
Expected<ir::Model> LoadModel(const std::string& path, const ImportOptions& options = {});

// Same, from serialized bytes (tests). `model_dir` resolves external data.
Expected<ir::Model> LoadModelFromBytes(const std::string& bytes, const std::string& model_dir,
                                       const std::string& display_name, const ImportOptions& options = {});

}  // namespace npugap::onnx_import
