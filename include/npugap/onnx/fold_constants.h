// Compile-time folding of shape sub-graphs at import (ImportOptions::fold_shape_constants).
//
// Once every input shape is bound, the sub-graph that computes shapes (Shape, Gather, Range,
// Unsqueeze, Concat, Slice, Cast, Equal, Where, arithmetic on int64 scalars, ...) is constant:
// ATC folds it, and so does npugap, so that every downstream value gets a static shape. A node is
// folded when it is a standard op without subgraphs, not random, every input is known
// (initializer, Constant, folded value, or Shape / Size of a value whose dims are all static),
// and every input and output is small (kMaxFoldElements). It is evaluated with the executor's own
// kernels, its outputs become initializers, shape inference runs again, and the pass repeats
// until it folds nothing.
#pragma once

#include <cstdint>

#include "npugap/ir/graph.h"

namespace npugap::onnx_import {

// At most this many elements in each input and output of a folded node: 64 Ki, i.e. 512 KiB of
// int64. A shape vector has one element per dim and an index vector (Range over the sequence)
// one per position, so shape sub-graphs of sequences up to 64 Ki tokens fold, while weight
// matrices and activations (a 768-wide embedding table of 512 positions is 393 Ki elements) are
// never read: folding is for shapes, it must not evaluate the real network.
inline constexpr int64_t kMaxFoldElements = int64_t{1} << 16;

// Folded outputs become initializers only when they are shape-like: rank 0 or 1 (every shape,
// starts / ends / axes, repeats, pads or index input of an ONNX op is). A small rank-2 result
// (a [batch, seq] mask) stays a node: folding it would turn an activation whose size depends on
// the batch into a weight, and the memory analysis's batch scaling compares two imports that must
// fold the same nodes.
inline constexpr int64_t kMaxFoldRank = 1;

// Shape / Size of a value whose dims are `dims` (the value's data is not needed). Opset-15
// start / end of Shape: negative counts from the back, both clamped to [0, rank].
ir::Tensor ShapeOpResult(const ir::Node& node, const ir::Shape& dims);

}  // namespace npugap::onnx_import
