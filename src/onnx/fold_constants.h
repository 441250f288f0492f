// The folding pass of include/npugap/onnx/fold_constants.h on the ModelProto, inside the importer:
// the proto is where libonnx's shape inference runs, so folding there lets each pass be followed
// by inference without serializing the weights again.
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <vector>

namespace onnx {
class GraphProto;
}

namespace npugap::onnx_import {

class ShapeFolder {
 public:
  // `warnings` collects one line per node that could have folded but whose kernel failed.
  ShapeFolder(std::string model_dir, int64_t opset, std::vector<std::string>* warnings)
      : model_dir_(std::move(model_dir)), opset_(opset), warnings_(warnings) {}

  // One pass in node order over the main graph (bodies of If / Loop / Scan are left alone).
  // Returns the number of nodes replaced by initializers; helpers left without readers are
  // removed too (counted in nodes_removed()).
  int Pass(onnx::GraphProto& graph);

  int nodes_folded() const { return nodes_folded_; }
  int nodes_removed() const { return nodes_removed_; }

 private:
  std::string model_dir_;
  int64_t opset_;
  std::vector<std::string>* warnings_;
  std::set<std::string> warned_;  // a node that fails is reported once, not once per pass
  std::set<std::string> made_;    // initializers this folder created (the others are the file's)
  int nodes_folded_ = 0;
  int nodes_removed_ = 0;
};

}  // namespace npugap::onnx_import
