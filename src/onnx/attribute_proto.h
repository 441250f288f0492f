// onnx::AttributeProto -> ir::Attribute for the kinds that carry plain data (numbers, strings,
// tensors). Shared by the importer's graph conversion and the constant-folding pass, which both
// need a node's attributes as the executor's kernels read them.
#pragma once

#include <string>

#include "npugap/base/status.h"
#include "npugap/ir/graph.h"

namespace onnx {
class AttributeProto;
}

namespace npugap::onnx_import {

// True when `proto` is a plain kind and was converted into `attr`; false for GRAPH / GRAPHS
// (the caller converts subgraphs) and for kinds npugap does not read (sparse tensors, type
// protos). Errors come from tensor data (e.g. missing external data).
Expected<bool> ConvertPlainAttribute(const onnx::AttributeProto& proto, const std::string& model_dir,
                                     ir::Attribute& attr);

}  // namespace npugap::onnx_import
