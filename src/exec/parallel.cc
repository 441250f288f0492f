#include "npugap/exec/parallel.h"

#include <omp.h>

#include <algorithm>
#include <thread>

namespace npugap::exec {

void SetNumThreads(int n) { omp_set_num_threads(std::max(1, n)); }

int GetNumThreads() { return omp_get_max_threads(); }

int DefaultNumThreads() { return std::max(1u, std::thread::hardware_concurrency()); }

void ParallelFor(int64_t n, int64_t grain, const std::function<void(int64_t, int64_t)>& fn) {
  if (n <= 0) return;
  const int threads = omp_in_parallel() ? 1 : omp_get_max_threads();
  grain = std::max<int64_t>(grain, 1);
  const int64_t max_chunks = (n + grain - 1) / grain;
  const int64_t chunks = std::min<int64_t>(threads, max_chunks);
  if (chunks <= 1) {
    fn(0, n);
    return;
  }
#pragma omp parallel for num_threads(static_cast<int>(chunks)) schedule(static)
  for (int64_t c = 0; c < chunks; ++c) {
    const int64_t begin = n * c / chunks;
    const int64_t end = n * (c + 1) / chunks;
    if (begin < end) fn(begin, end);
  }
}

}  // namespace npugap::exec
