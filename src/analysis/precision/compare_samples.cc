// How many random input sets `--samples N` means: N is a count of samples (rows along the batch
// dimension), run in whole batches, so that a batch-8 model compares 8 samples in one reference
// and one emulated run instead of eight. `npugap precision` and `npugap analyze` both call this.
#include <fmt/format.h>

#include "npugap/analysis/precision/compare.h"
#include "npugap/exec/random_inputs.h"

namespace npugap::analysis::precision {

int64_t RowsPerInputSet(const std::vector<ir::Tensor>& inputs) {
  int64_t rows = 0;
  for (const ir::Tensor& t : inputs) {
    if (!t.defined() || t.rank() == 0) continue;
    if (rows == 0) {
      rows = t.dim(0);
    } else if (t.dim(0) != rows) {
      return 1;  // no leading dim in common: not a batch dimension
    }
  }
  return rows > 0 ? rows : 1;
}

Expected<std::vector<std::vector<ir::Tensor>>> RandomSampleSets(const ir::Graph& graph, uint64_t seed,
                                                                int samples) {
  if (samples < 1) return Status::InvalidArgument(fmt::format("--samples {}: must be >= 1", samples));
  std::vector<std::vector<ir::Tensor>> sets;
  NPUGAP_ASSIGN_OR_RETURN(auto first, exec::RandomInputs(graph, seed));
  const int64_t rows = RowsPerInputSet(first);
  const int64_t count = (samples + rows - 1) / rows;
  sets.push_back(std::move(first));
  for (int64_t s = 1; s < count; ++s) {
    NPUGAP_ASSIGN_OR_RETURN(auto inputs, exec::RandomInputs(graph, seed + static_cast<uint64_t>(s)));
    sets.push_back(std::move(inputs));
  }
  return sets;
}

}  // namespace npugap::analysis::precision
