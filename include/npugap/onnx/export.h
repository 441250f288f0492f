// npugap IR → ONNX bytes (the inverse of import): used to write generated models (SimpleNet)
// and, later, static-shape models for ATC.
#pragma once

#include <string>

#include "npugap/base/status.h"
#include "npugap/ir/graph.h"

namespace npugap::onnx_import {

// Serialized ModelProto. Fails when the model would exceed protobuf's 2 GiB message limit.
Expected<std::string> SerializeModel(const ir::Model& model);

// The seed's SimpleNet: Conv2d(3→64, k=3) → BatchNorm2d(64) → ReLU → Flatten → Linear(64·222·222 → 10),
// input float32 [batch, 3, 224, 224], weights drawn like PyTorch's default init from a seeded generator.
// `batch` 0 writes a symbolic batch dim "batch" (what torch.onnx.export with dynamic_axes gives),
// to be bound later with --batch.
ir::Model BuildSimpleNet(int64_t batch, uint64_t seed);

}  // namespace npugap::onnx_import
