// Pieces of the compatibility check shared between its files (not part of the public API).
#pragma once

#include <string>
#include <vector>

#include "npugap/analysis/compat/compat.h"
#include "npugap/analysis/compat/value_flow.h"
#include "npugap/exec/op_support.h"

namespace npugap::compat::internal {

// What the per-node rules need to know about the target and options, computed once.
struct TargetView {
  std::string soc_version;
  int64_t opset_min = 0;
  int64_t opset_max = 0;
  exec::DTypeSet vector_types = 0;  // dtypes the vector unit computes (profile numerics.vector_formats)
  exec::DTypeSet cube_types = 0;    // cube input formats (numerics.cube_input_formats)
  bool keep_fp32 = false;           // precision mode keeps fp32 (origin): no lowering to fp16
  // Installed custom-op plugins, searched in order: --plugin-domain overrides first (every op of
  // the domain on AI Core), then the profile's compiler.custom_ops.
  struct Plugin {
    target::CustomOpPlugin plugin;
    std::string declared_by;  // "--plugin-domain" or "compiler.custom_ops[i]"
  };
  std::vector<Plugin> plugins;
};

TargetView MakeTargetView(const target::Target& target, const std::string& precision_mode_v2,
                          const std::vector<std::string>& plugin_domains);

// The verdict for one node of `graph` (the main graph of a model at `opset`, or one of its
// If / Loop / Scan bodies).
NodeResult ClassifyNode(const ir::Graph& graph, const ir::Node& node, int64_t opset, const TargetView& view);

// Dynamic-shape findings of the main graph.
std::vector<Finding> FindDynamicShapes(const ir::Graph& graph, const ValueFlow& flow, int64_t opset);

}  // namespace npugap::compat::internal
