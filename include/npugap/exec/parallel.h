// Parallel loops over [0, n). Backed by OpenMP, which oneDNN also uses, so one thread count
// governs both.
#pragma once

#include <cstdint>
#include <functional>

namespace npugap::exec {

// Sets the threads used by ParallelFor and by oneDNN primitives (process-wide).
void SetNumThreads(int n);
int GetNumThreads();
int DefaultNumThreads();  // hardware cores

// Calls fn(begin, end) on disjoint chunks covering [0, n). Runs inline when n < grain
// or with one thread. `fn` must be safe to call concurrently on disjoint ranges.
void ParallelFor(int64_t n, int64_t grain, const std::function<void(int64_t, int64_t)>& fn);

}  // namespace npugap::exec
