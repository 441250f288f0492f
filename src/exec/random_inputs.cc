#include "npugap/exec/random_inputs.h"

#include <random>

#include <fmt/format.h>

#include "npugap/exec/dispatch.h"
#include "npugap/numerics/half.h"

namespace npugap::exec {
namespace {

// Exclusive upper bound for an integer input: the row count of the Gather table it indexes.
int64_t IndexBound(const ir::Graph& g, int value) {
  for (int consumer : g.values[static_cast<size_t>(value)].consumers) {
    const ir::Node& n = g.nodes[static_cast<size_t>(consumer)];
    if (n.op_type == "Gather" && n.inputs.size() > 1 && n.inputs[1] == value) {
      if (auto s = g.values[static_cast<size_t>(n.inputs[0])].type.StaticShape(); s && !s->empty()) {
        int64_t axis = n.GetInt("axis", 0);
        if (axis < 0) axis += static_cast<int64_t>(s->size());
        return (*s)[static_cast<size_t>(axis)];
      }
    }
  }
  return 10;
}

}  // namespace

Expected<std::vector<ir::Tensor>> RandomInputs(const ir::Graph& g, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<ir::Tensor> inputs;
  for (int id : g.inputs) {
    const ir::Value& v = g.values[static_cast<size_t>(id)];
    if (!v.type.is_tensor) return Status::Unsupported(fmt::format("input '{}': not a tensor", v.name));
    if (!v.type.dims) return Status::InvalidArgument(fmt::format("input '{}': rank unknown; give --shape {}=DIMS", v.name, v.name));
    ir::Shape shape;
    for (const ir::Dim& d : *v.type.dims) {
      if (!d.is_static()) {
        return Status::InvalidArgument(fmt::format("input '{}': dim '{}' is symbolic; bind it with --shape {}=DIMS or --batch N",
                                                   v.name, d.symbol.empty() ? "?" : d.symbol, v.name));
      }
      shape.push_back(d.value);
    }
    NPUGAP_ASSIGN_OR_RETURN(ir::Tensor t, ir::Tensor::Create(v.type.dtype, shape));
    std::normal_distribution<float> normal(0.0f, 1.0f);
    const ir::DType dt = v.type.dtype;
    if (dt == ir::DType::kFloat32) {
      for (float& x : t.span<float>()) x = normal(rng);
    } else if (dt == ir::DType::kFloat64) {
      for (double& x : t.span<double>()) x = normal(rng);
    } else if (dt == ir::DType::kFloat16) {
      for (uint16_t& x : t.span<uint16_t>()) x = numerics::FloatToHalf(normal(rng));
    } else if (dt == ir::DType::kBFloat16) {
      for (uint16_t& x : t.span<uint16_t>()) x = numerics::FloatToBFloat16(normal(rng));
    } else if (dt == ir::DType::kBool) {
      std::bernoulli_distribution coin(0.5);
      for (bool& x : t.span<bool>()) x = coin(rng);
    } else {
      std::uniform_int_distribution<int64_t> ints(0, std::max<int64_t>(IndexBound(g, id), 1) - 1);
      const bool done = DispatchInteger(dt, [&]<typename T>() {
        for (T& x : t.span<T>()) x = static_cast<T>(ints(rng));
      });
      if (!done) return Status::Unsupported(fmt::format("input '{}': random {} values", v.name, ir::DTypeName(dt)));
    }
    inputs.push_back(std::move(t));
  }
  return inputs;
}

}  // namespace npugap::exec
