#include "npugap/onnx/input_files.h"

#include <algorithm>
#include <filesystem>
#include <map>

#include <fmt/format.h>

#include "npugap/onnx/io_files.h"
#include "npugap/onnx/tensor_proto.h"

namespace npugap::onnx_import {
namespace fs = std::filesystem;

namespace {

bool EndsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace

Expected<std::vector<ir::Tensor>> LoadInputFiles(const ir::Graph& graph, const std::vector<std::string>& paths) {
  std::vector<std::string> names;
  for (int id : graph.inputs) names.push_back(graph.values[static_cast<size_t>(id)].name);
  std::vector<ir::Tensor> ordered;
  std::map<std::string, ir::Tensor> by_name;
  for (const std::string& path : paths) {
    std::error_code ec;
    if (fs::is_directory(path, ec)) {
      NPUGAP_ASSIGN_OR_RETURN(auto tensors, ReadTensorProtoDir(path, "input"));
      if (tensors.empty()) return Status::InvalidArgument(fmt::format("{}: no input_0.pb in this folder", path));
      for (auto& t : tensors) ordered.push_back(std::move(t));
    } else if (EndsWith(path, ".npz")) {
      NPUGAP_ASSIGN_OR_RETURN(auto arrays, ReadNpz(path));
      bool all_named = true;
      for (const auto& [name, t] : arrays) {
        all_named = all_named && std::find(names.begin(), names.end(), name) != names.end();
      }
      for (auto& [name, t] : arrays) {
        if (all_named) by_name[name] = std::move(t);
        else ordered.push_back(std::move(t));
      }
    } else if (EndsWith(path, ".npy")) {
      NPUGAP_ASSIGN_OR_RETURN(ir::Tensor t, ReadNpy(path));
      ordered.push_back(std::move(t));
    } else if (EndsWith(path, ".pb")) {
      NPUGAP_ASSIGN_OR_RETURN(ir::Tensor t, ReadTensorProtoFile(path));
      ordered.push_back(std::move(t));
    } else {
      if (!fs::exists(path, ec)) return Status::NotFound(fmt::format("{}: no such file or folder", path));
      return Status::InvalidArgument(fmt::format("{}: inputs must be a folder of input_K.pb, .pb, .npy or .npz", path));
    }
  }
  std::vector<ir::Tensor> inputs;
  size_t next = 0;
  for (const std::string& name : names) {
    if (auto it = by_name.find(name); it != by_name.end()) {
      inputs.push_back(std::move(it->second));
    } else if (next < ordered.size()) {
      inputs.push_back(std::move(ordered[next++]));
    } else {
      std::string all;
      for (const auto& n : names) all += (all.empty() ? "" : ", ") + n;
      return Status::InvalidArgument(fmt::format("--inputs gives no tensor for input '{}' (model inputs: {})", name, all));
    }
  }
  if (next < ordered.size()) {
    return Status::InvalidArgument(fmt::format("--inputs gives {} tensors but the model takes {}", ordered.size() + by_name.size(),
                                               names.size()));
  }
  return inputs;
}

}  // namespace npugap::onnx_import
