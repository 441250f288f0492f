// How CANN's cache tiling for matmuls (ops/built-in/op_tiling/cache_tiling.cc, canndev; the same
// file in later CANN releases) cuts a matmul over the cores and into L0 tiles: every factor is a
// divisor of the fractal count it cuts. `GetBlockDim` ("single core batch_dim, m_dim, n_dim is a
// factor of input batch, m, n") takes batch_dim, m_dim and n_dim from `GetFactors` (the divisors
// up to core_num), `GetBlockDimK` adds a k_dim that divides k; `GetL0Factors` ("m_l0, n_l0, k_l0
// is a factor of single core m, n, k") takes each L0 tile from `GetTwoFactors` (the nearest
// divisors). So a fractal count with few divisors (21,136 = 1321 x 16, 1321 prime) is not cut at
// all, and its L0 tile is one fractal wide.
#include <algorithm>

#include "cost_model_internal.h"

namespace npugap::analysis::perf::internal {

int64_t LargestDivisorAtMost(int64_t n, int64_t limit) {
  for (int64_t d = std::min(n, limit); d > 1; --d) {
    if (n % d == 0) return d;
  }
  return 1;
}

bool HasDivisorSplit(int64_t batch, int64_t m16, int64_t n16, int64_t k16, bool split_k, int64_t blocks) {
  for (int64_t b = 1; b <= std::min(batch, blocks); ++b) {
    if (batch % b != 0 || blocks % b != 0) continue;
    for (int64_t m = 1; m <= std::min(m16, blocks / b); ++m) {
      if (m16 % m != 0 || (blocks / b) % m != 0) continue;
      for (int64_t k = 1; k <= (split_k ? std::min(k16, blocks / (b * m)) : 1); ++k) {
        if (k16 % k != 0 || (blocks / (b * m)) % k != 0) continue;
        const int64_t n = blocks / (b * m * k);
        if (n <= n16 && n16 % n == 0) return true;
      }
    }
  }
  return false;
}

}  // namespace npugap::analysis::perf::internal
