// Time of a cube kernel on the busiest core, following the structure of CANN's own GEMM tiling
// cycle model (gemm/estimate/cache_tiling_cycle_model.cc, GemmCycleModelUB for cores whose cube
// results go L0C -> UB -> GM, "the value for 1980" = Ascend 910; docs/perf.md "Cube"):
//   - the work is split over the cores along batch, m, n and k (a convolution's m as whole images
//     times rows of one image; a k split adds partial sums in GM, so not when a fused vector op
//     consumes the cube's output: it needs whole sums);
//     of the splits that use at most the given cores, the fastest is taken, as a tiling search would
//     (under CANN's cache tiling only splits that use all of them: its block_dim is the product);
//   - one core's L0 tile (m0 x n0 x k0) fills half of L0A / L0B / L0C (double-buffered), or under
//     CANN's cache tiling is that tiler's own (cost_model_cube_l0.cc: L0C may be single-buffered);
//   - MAD cycles per tile step: m0 n0 k0 / MACs per cycle, or the MTE1 load of the step if slower;
//   - L1 residency modes: both operands resident, one resident and the other streamed in panels,
//     both in panels, or streamed in k chunks. A resident operand and a panel are loaded before the
//     MADs that use them (not hidden); streamed chunks are double-buffered (max with the MADs);
//     the mode with the fewest cycles, drains included, is taken;
//   - each output tile then drains: on a coupled core through UB (CANN adds this cycle to the
//     main loop, less what the next tile's first MAD steps cover when one operand is resident and
//     L0C double-buffered: its "L0C preload"; none for a convolution with a fused vector part,
//     CubeShape::l0c_preload), on a separated core by FixPipe, which overlaps the next tile's MADs.
// Otherwise the tile shape (m0) is searched too; that tiling is not known, so this emulates a search.
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <map>
#include <vector>

#include "cost_model_internal.h"

namespace npugap::analysis::perf::internal {
namespace {

// L0C holds every sum as 4 bytes (fp32 for fp16 operands, int32 for int8), as L0Tile sizes it.
constexpr double kL0cSumBytes = 4;

int64_t CeilDiv(int64_t a, int64_t b) { return b <= 0 ? a : (a + b - 1) / b; }
int64_t Down16(double v) { return std::max<int64_t>(16, static_cast<int64_t>(v) / 16 * 16); }

// Per-core rates and sizes, from the profile.
struct Core {
  double macs_per_cycle = 0;
  double gm = 32, l2 = 32, l0a = 512, l0b = 256, out = 32;  // bytes per cycle
  // A coupled core's L0C -> UB move (its fp32 sums), in series with the UB -> GM store; infinite
  // when the profile gives no rate (the drain is then the store alone).
  double l0c_ub = std::numeric_limits<double>::infinity();
  double l1 = 1 << 20, l0a_size = 64 << 10, l0b_size = 64 << 10, l0c_size = 128 << 10;
  double in_bytes = 2, out_bytes = 2, a_read = 1, b_read = 1;  // bytes read per matrix element
  double c_write = 1;  // elements written per element of C (a 1x1 backprop-input dilates C to dx)
  bool coupled = false;
  // Convolutions (CANN's convolution cycle calculators): A's and B's L1 -> L0 loads share one
  // MTE1 queue, so they add; each MAD and each load instruction pays a fixed head (cycles).
  bool mte1_serial = false;
  double mad_head = 0, a_head = 0, b_head = 0;
  // CANN's cache tiling (cost_model_cube_divisors.cc, cost_model_cube_l0.cc): the split and each
  // L0 tile divide the core's share, and the L0 tile is the tiler's.
  bool divisors = false;
  // The cache tiler's L1 state for the share (cost_model_cube_l1.cc), when it keeps one operand
  // whole with the other in k-full panels: that mode is the one timed, not the fastest.
  CacheL1State l1_state = CacheL1State::kOther;
  bool batch_matmul = false;  // CubeShape::batch_matmul
  bool l0c_preload = true;    // CubeShape::l0c_preload
};

// Cycles of one core computing batch x (m x k).(k x n), all multiples of 16.
struct CoreCycles {
  double mad = 0, load = 0, drain = 0, critical = 0;
  double tiles = 0, tile_elements = 0;  // output tiles (all batches) and one full tile's m0 x n0
  double share_elements = 0;            // elements of C on this core, all batches
};

// One L0 tile shape m0 x n0 (m0 given) and the best L1 mode for it.
// The L0 tile's n0 and k0 for m0 rows: half of L0C holds m0 x n0 fp32 sums, half of L0A / L0B
// the k0-deep operands (double buffers).
std::pair<int64_t, int64_t> L0Tile(const Core& c, int64_t n, int64_t k, int64_t m0) {
  const int64_t n0 = std::min(n, Down16(c.l0c_size / 2 / kL0cSumBytes / static_cast<double>(m0)));
  const int64_t k0 =
      std::min(k, Down16(std::min(c.l0a_size / 2 / (m0 * c.in_bytes), c.l0b_size / 2 / (n0 * c.in_bytes))));
  return {n0, k0};
}

// Cycles to drain one element of C: its fp32 sum from L0C to UB (a coupled core), then the stored
// value (c_write elements of it) to GM, the two in series.
double DrainPerElement(const Core& c) { return c.out_bytes * c.c_write / c.out + kL0cSumBytes / c.l0c_ub; }

// A batched matmul whose every batch's A and B each fit in half of L1. TBE's mmad_schedule.py
// (`get_tensor_reuse`) then sets batch_double and keeps both operands (reuse 2), and
// `open_double_buffer` double-buffers the two L1 copies across batches but L0C and the UB result
// only when neither operand is kept. So the next batch's loads run beside this batch's MADs, and
// each batch's MADs and drain follow each other (its L0C has one buffer): after the first load,
// a batch takes the longer of its loads and its MADs plus drain. That one L1 tile holds the
// whole batch (double_once = 0) is assumed: the L1 tiles come from the closed tiling query.
double BatchPipelined(int64_t batch, double loads, double mads, double drain) {
  return loads + static_cast<double>(batch - 1) * std::max(loads, mads + drain) + mads + drain;
}

CoreCycles OneTile(const Core& c, int64_t batch, int64_t m, int64_t n, int64_t k, int64_t m0, int64_t n0,
                   int64_t k0) {
  const double mad = static_cast<double>(m0 * n0 * k0) / c.macs_per_cycle + c.mad_head;
  const double mte1_a = m0 * k0 * c.in_bytes / c.l0a + c.a_head,
               mte1_b = k0 * n0 * c.in_bytes / c.l0b + c.b_head;
  const double mte1 = c.mte1_serial ? mte1_a + mte1_b : std::max(mte1_a, mte1_b);
  const int64_t mo = CeilDiv(m, m0), no = CeilDiv(n, n0), ko = CeilDiv(k, k0);
  const double tiles = static_cast<double>(mo * no);
  const double tile_k = static_cast<double>(ko) * std::max(mad, mte1);  // one output tile, all of k

  // Bytes of A and B (a convolution's activation is unfolded on chip: a_read / b_read), whole
  // and as one k-full panel of a tile row / column.
  const double a = m * k * c.in_bytes * c.a_read, b = k * n * c.in_bytes * c.b_read;
  const double ap = m0 * k * c.in_bytes * c.a_read, bp = k * n0 * c.in_bytes * c.b_read;
  const auto gm = [&](double bytes) { return bytes / c.gm; };
  const auto again = [&](double bytes, double times) { return gm(bytes) + bytes * (times - 1) / c.l2; };
  // Each output tile drains after its MADs (m0 x n0 as stored, at the output path's rate). With
  // one operand resident and L0C double-buffered, CANN lets the next tile's first
  // min(32 / (load2d repeats of A + of B + 1), k steps) MAD steps cover the drain.
  const double drain = static_cast<double>(m0 * n0) * DrainPerElement(c);
  const double step = std::max(mad, mte1);
  const auto covered = [&](double repeats) {
    if (!c.l0c_preload) return drain;
    return std::max(0.0, drain - std::min(32.0 / (repeats + 1), static_cast<double>(ko)) * step);
  };
  const double ra = k > k0 ? static_cast<double>(m0 / 16) : 1;  // A's load2d per L0A fill, k-full in L1
  const double rb = no > 1 ? static_cast<double>(k0 / 16) : 1;  // B's, when L1 holds several n0
  double best = std::numeric_limits<double>::infinity(), best_load = 0, best_drain = drain;
  const auto mode = [&](bool fits, double cycles, double load, double tile_drain) {
    if (fits && cycles + tiles * tile_drain < best + tiles * best_drain)
      best = cycles, best_load = load, best_drain = tile_drain;
  };
  // Resident operands and k-full panels are loaded before the MADs that use them; k chunks
  // (a 16-deep slice per buffer at least) are double-buffered against the MADs.
  const double chunk_a = 2 * m0 * 16 * c.in_bytes, chunk_b = 2 * 16 * n0 * c.in_bytes;
  // The cache tiler's panel state (A whole in L1, B in k-full panels, or the reverse) is timed as
  // CANN's cycle model times it: each panel loaded before its MADs (AL1FullLoadMode /
  // BL1FullLoadMode with a k-full panel), not as the fastest mode.
  const bool a_whole = c.l1_state == CacheL1State::kAResidentBPanels && a + 2 * bp <= c.l1;
  const bool b_whole = c.l1_state == CacheL1State::kBResidentAPanels && b + 2 * ap <= c.l1;
  const bool any = !a_whole && !b_whole;
  mode(any && a + b <= c.l1, gm(a) + gm(b) + tiles * tile_k, gm(a) + gm(b), drain);
  mode(!b_whole && a + 2 * bp <= c.l1, gm(a) + no * (gm(bp) + mo * tile_k), gm(a) + gm(b), covered(ra + 1));
  mode(any && a + chunk_b <= c.l1, gm(a) + tiles * std::max(again(b, mo) / tiles, tile_k),
       gm(a) + again(b, mo), covered(ra + 1));
  mode(!a_whole && b + 2 * ap <= c.l1, gm(b) + mo * (gm(ap) + no * tile_k), gm(a) + gm(b), covered(ra + rb));
  mode(any && b + chunk_a <= c.l1, gm(b) + tiles * std::max(again(a, no) / tiles, tile_k),
       gm(b) + again(a, no), covered(1 + rb));
  mode(any && 2 * (ap + bp) <= c.l1, gm(a) + again(b, mo) + tiles * tile_k, gm(a) + again(b, mo), drain);
  const double streamed = again(a, no) + again(b, mo);
  mode(any, tiles * std::max(streamed / tiles, tile_k), streamed, drain);

  CoreCycles r;
  r.mad = static_cast<double>(batch) * tiles * static_cast<double>(ko) * mad;
  r.load = static_cast<double>(batch) * best_load;
  r.drain = static_cast<double>(batch) * tiles * drain;
  r.tiles = static_cast<double>(batch) * tiles, r.tile_elements = static_cast<double>(m0 * n0);
  r.share_elements = static_cast<double>(batch) * static_cast<double>(m * n);
  const double main = static_cast<double>(batch) * best;
  r.critical = c.coupled ? main + static_cast<double>(batch) * tiles * best_drain : std::max(main, r.drain);
  if (c.batch_matmul && batch > 1 && c.coupled && 2 * a <= c.l1 && 2 * b <= c.l1) {
    r.critical = BatchPipelined(batch, gm(a) + gm(b), tiles * tile_k, tiles * drain);
    r.load = static_cast<double>(batch) * (gm(a) + gm(b));
  }
  return r;
}

// The fastest of a few tile shapes: m0 from one fractal row up to what half of L0C allows. Under
// CANN's cache tiling the tile is the tiler's own (cost_model_cube_l0.cc): it may take all of
// L0C when that loads less, which the half-L0C search never tries.
CoreCycles OneCore(const Core& c, int64_t batch, int64_t m, int64_t n, int64_t k) {
  if (c.divisors) {
    CacheL0Inputs in;
    in.m = m / 16, in.n = n / 16, in.k = k / 16, in.in_bytes = c.in_bytes;
    in.l0a = c.l0a_size, in.l0b = c.l0b_size, in.l0c = c.l0c_size, in.l1 = c.l1;
    const CacheL0Tile t = CacheTilingL0(in);
    Core tiled = c;
    if (batch == 1) tiled.l1_state = CacheTilingL1(in, t);  // GetL1Factors for a batch of one
    return OneTile(tiled, batch, m, n, k, 16 * t.m, 16 * t.n, 16 * t.k);
  }
  CoreCycles best;
  best.critical = std::numeric_limits<double>::infinity();
  const int64_t most = Down16(c.l0c_size / 2 / kL0cSumBytes / 16);
  int64_t last = 0;
  for (int64_t m0 : {m, most, int64_t{256}, int64_t{128}, int64_t{64}, int64_t{32}, int64_t{16}}) {
    m0 = std::min(m, std::min(m0, most));
    if (m0 == last) continue;  // the same tile as the candidate before
    last = m0;
    const auto [n0, k0] = L0Tile(c, n, k, m0);
    const CoreCycles r = OneTile(c, batch, m, n, k, m0, n0, k0);
    if (r.critical < best.critical) best = r;
  }
  return best;
}

// One core's share under TBE's static schedule (cost_model_cube_static.cc): the L1 tile is the L0
// tile m0 x n0 (m0 from the profile, n0 and k0 filling half of L0C / L0A / L0B), the operand
// that is not kept in L1 is loaded again for every tile of the other axis, and its loads are
// double-buffered against the MADs (`m_l1_double_buffer` = 2 unless a tile is the whole share).
// A kept operand's L1 copy is not double-buffered (`open_double_buffer`: only when its
// `tensor_*_reuse` is 0), so its loads, a k-full panel per tile row or the whole share once,
// wait for the MADs that read the buffer before and are waited for by the ones after: in series.
// The schedule cuts C by tvm `split(factor = tile)`, which leaves a last tile of the remaining
// extent (512 + 256 for n = 768 with n0 = 512): that tile's MADs and drain cover only its own
// rows and columns, so over the share every element of C is drained once.
CoreCycles StaticCore(const Core& c, int64_t m, int64_t n, int64_t k, int64_t m_l0) {
  const int64_t m0 = std::min(m, Down16(static_cast<double>(m_l0)));
  const int64_t n0 = L0Tile(c, n, k, m0).first;  // its depth k0 only groups the k rows
  const StaticReads reads = StaticOperandReads(m, n, k, m0, n0, c.l1, c.in_bytes);
  // The first read of each operand comes from GM; every further one too: each tile's load is
  // its own GM -> L1 copy (MTE2), at gm_to_l1.
  const double a = m * k * c.in_bytes, b = k * n * c.in_bytes;
  const double load = (a * reads.a_times + b * reads.b_times) / c.gm;
  // Each tile runs all of k: per k row the MADs of its rows x columns, or the MTE1 loads of its
  // A rows and B columns if slower (L0A / L0B double-buffered). Tiles: full and last, per axis.
  const int64_t mo = CeilDiv(m, m0), no = CeilDiv(n, n0);
  const std::array<std::pair<int64_t, int64_t>, 2> rows = {{{m0, mo - 1}, {m - (mo - 1) * m0, 1}}};
  const std::array<std::pair<int64_t, int64_t>, 2> cols = {{{n0, no - 1}, {n - (no - 1) * n0, 1}}};
  double mads = 0;
  for (const auto& [mi, m_count] : rows) {
    for (const auto& [ni, n_count] : cols) {
      const double per_k = std::max(static_cast<double>(mi * ni) / c.macs_per_cycle,
                                    std::max(mi * c.in_bytes / c.l0a, ni * c.in_bytes / c.l0b));
      mads += static_cast<double>(m_count * n_count) * static_cast<double>(k) * per_k;
    }
  }
  CoreCycles r;
  r.mad = static_cast<double>(m * n * k) / c.macs_per_cycle;
  r.load = load;
  r.drain = static_cast<double>(m * n) * DrainPerElement(c);
  r.tiles = static_cast<double>(mo * no), r.tile_elements = static_cast<double>(m0 * n0);
  r.share_elements = static_cast<double>(m * n);
  // The streamed operand's loads double-buffered against the MADs, the kept ones' in series.
  const double kept = ((reads.a_times == 1 ? a : 0) + (reads.b_times == 1 ? b : 0)) / c.gm;
  const double main = kept + std::max(load - kept, mads);
  r.critical = c.coupled ? main + r.drain : std::max(main, r.drain);
  return r;
}

}  // namespace

CubeTimes CubeTime(const CubeShape& s, int cores, const target::Target& target) {
  CubeTimes t;
  const double clock = target.compute.clock.value;
  const auto rate = target.compute.cube.find(s.in_dtype);
  Core c;
  c.macs_per_cycle = rate != target.compute.cube.end() ? rate->second.macs_per_cycle.value : 0;
  t.operand_bytes = static_cast<int64_t>(static_cast<double>(s.batch) * s.k *
                                         (s.m / s.a_expand + s.n / s.b_expand) * s.in_bytes) +
                    static_cast<int64_t>(static_cast<double>(s.batch * s.m * s.n * s.out_bytes) * s.c_expand);
  if (c.macs_per_cycle <= 0 || clock <= 0) return t;
  c.in_bytes = static_cast<double>(s.in_bytes);
  c.out_bytes = static_cast<double>(s.out_bytes);
  c.a_read = 1.0 / s.a_expand;
  c.b_read = 1.0 / s.b_expand;
  c.c_write = s.c_expand;
  c.coupled = target.compute.core_coupling.value == "coupled";
  c.batch_matmul = s.batch_matmul;
  c.l0c_preload = s.l0c_preload;
  if (!target.datapath) {  // no on-chip datapath in the profile (CPU, GPU): the MADs alone
    c.gm = c.l2 = c.l0a = c.l0b = c.out = std::numeric_limits<double>::infinity();
  } else {
    const auto& d = *target.datapath;
    c.gm = d.gm_to_l1.value, c.l2 = d.l2_to_l1.value, c.l0a = d.l1_to_l0a.value, c.l0b = d.l1_to_l0b.value;
    c.out = c.coupled ? d.ub_to_gm.value : d.l0c_to_gm.value;
    if (c.coupled && d.l0c_to_ub) c.l0c_ub = d.l0c_to_ub->value;
    // A convolution's unfolded operand is written by load3d, slower than load2d.
    if (s.load3d != CubeShape::Load3d::kNone) {
      const bool to_l0b = s.load3d == CubeShape::Load3d::kB;
      const double rate = Load3dRate(d.l1_to_l0a.value, to_l0b, s.load3d_stride, s.load3d_row_switches);
      double& port = to_l0b ? c.l0b : c.l0a;
      port = std::min(port, rate);
    }
  }
  if (s.conv) {
    c.mte1_serial = true;
    if (target.kernel) {
      const auto head = [&target](const char* name) {
        return InstructionHead(target.kernel->cube_instruction_heads, name);
      };
      c.mad_head = head("mad");
      c.a_head = head(s.load3d == CubeShape::Load3d::kA ? "load3d" : "load2d");
      c.b_head = head(s.load3d == CubeShape::Load3d::kB ? "load3d" : "load2d");
    }
  }
  if (target.buffers.l1) c.l1 = static_cast<double>(target.buffers.l1->value);
  if (target.buffers.l0a) c.l0a_size = static_cast<double>(target.buffers.l0a->value);
  if (target.buffers.l0b) c.l0b_size = static_cast<double>(target.buffers.l0b->value);
  if (target.buffers.l0c) c.l0c_size = static_cast<double>(target.buffers.l0c->value);

  // Repeated layers give repeated kernels: the split search runs once per shape and core.
  // A matmul whose block_dim CANN's cache tiling could have cut (a divisor of each axis's
  // fractal count) is split and tiled by divisors only; another block_dim (30 blocks over
  // 1024 x 192 fractals) came from a tiler that leaves tails, which the free search stands for.
  const int n_cores = std::max(cores, 1);
  const int64_t m16 = std::max<int64_t>(1, CeilDiv(s.m, 16)), n16 = std::max<int64_t>(1, CeilDiv(s.n, 16)),
                k16 = std::max<int64_t>(1, CeilDiv(s.k, 16));
  c.divisors = s.divisor_tiling && HasDivisorSplit(s.batch, m16, n16, k16, s.split_k, n_cores);
  const int64_t m_l0 =
      target.kernel && target.kernel->static_matmul_m_l0 ? target.kernel->static_matmul_m_l0->value : 0;
  const std::array<double, 33> key = {static_cast<double>(s.batch),
                                      static_cast<double>(s.m),
                                      static_cast<double>(s.n),
                                      static_cast<double>(s.k),
                                      c.in_bytes,
                                      c.out_bytes,
                                      c.a_read,
                                      c.b_read,
                                      c.c_write,
                                      static_cast<double>(s.static_m_cores * 1000 + s.static_n_cores),
                                      s.split_k ? 1.0 : 0.0,
                                      static_cast<double>(cores),
                                      clock,
                                      c.macs_per_cycle,
                                      c.gm,
                                      c.l2,
                                      c.l0a,
                                      c.l0b,
                                      c.out,
                                      c.l0c_ub,
                                      c.l1,
                                      c.l0a_size + 1e-3 * c.l0b_size,
                                      c.l0c_size,
                                      c.coupled ? 1.0 : 0.0,
                                      c.mte1_serial ? 1.0 : 0.0,
                                      c.mad_head,
                                      c.a_head,
                                      c.b_head,
                                      static_cast<double>(s.images) * (s.batch_cores_only ? -1.0 : 1.0),
                                      c.divisors ? 1.0 : 0.0,
                                      static_cast<double>(m_l0),
                                      c.batch_matmul ? 1.0 : 0.0,
                                      c.l0c_preload ? 1.0 : 0.0};
  thread_local std::map<std::array<double, 33>, CubeTimes> cache;
  if (const auto hit = cache.find(key); hit != cache.end()) return hit->second;
  if (cache.size() > 4096) cache.clear();

  // Split batch x m x n x k over at most `cores` cores; the busiest core's share is whole
  // fractals. A k split makes every part write its partial sums.
  // A convolution's m is split as whole images times fractal rows of one image (TBE's
  // `_multi_core`: c_ddr's batch axis split into batch_dim parts, its m axis into m_dim parts,
  // each tvm split(nparts) giving the busiest part ceil(extent / parts)).
  const int64_t images = s.images > 1 && m16 % s.images == 0 ? s.images : 1;
  const int64_t m16_image = m16 / images;
  CoreCycles best;
  best.critical = std::numeric_limits<double>::infinity();
  const bool static_schedule = s.static_m_cores > 0 && s.static_n_cores > 0 && m_l0 > 0;
  if (static_schedule) {
    best = StaticCore(c, 16 * CeilDiv(m16, s.static_m_cores), 16 * CeilDiv(n16, s.static_n_cores), 16 * k16,
                      m_l0);
  }
  // A kernel bound on the batch axis only: each core takes whole images, all of n and k (the
  // tvm split by nparts = cores leaves ceil(images / cores) on the busiest core).
  const bool batch_only = s.batch_cores_only && images >= n_cores;
  if (batch_only) best = OneCore(c, s.batch, 16 * CeilDiv(images, n_cores) * m16_image, 16 * n16, 16 * k16);
  std::vector<std::array<int64_t, 4>> tried;
  const auto cut = [&c](int64_t extent, int64_t parts) { return !c.divisors || extent % parts == 0; };
  // The split search, unless the kernel's split is already known (the static schedule, batch only).
  const int64_t searched_batch = batch_only || static_schedule ? 0 : std::min<int64_t>(s.batch, n_cores);
  for (int64_t bd = 1; bd <= searched_batch; ++bd) {
    if (!cut(s.batch, bd)) continue;
    for (int64_t id = 1; id <= std::min<int64_t>(images, n_cores / bd); ++id) {
      for (int64_t md = 1; md <= std::min<int64_t>(m16_image, n_cores / (bd * id)); ++md) {
        if (!cut(m16_image, md)) continue;
        const int64_t parts = bd * id * md;
        for (int64_t kd = 1; kd <= (s.split_k ? std::min<int64_t>(k16, n_cores / parts) : 1); ++kd) {
          if (!cut(k16, kd)) continue;
          const int64_t most_n = std::min<int64_t>(n16, n_cores / (parts * kd));
          const int64_t nd = c.divisors ? LargestDivisorAtMost(n16, most_n) : most_n;
          // The cache tiling launches batch_dim x m_dim x n_dim x k_dim blocks (`GetBlockDim`): a
          // kernel it tiled used all of its block_dim, so fewer parts are not a choice there.
          if (c.divisors && parts * kd * nd != n_cores) continue;
          const std::array<int64_t, 4> share = {CeilDiv(s.batch, bd),
                                                16 * CeilDiv(images, id) * CeilDiv(m16_image, md),
                                                16 * CeilDiv(n16, nd), 16 * CeilDiv(k16, kd)};
          if (std::find(tried.begin(), tried.end(), share) != tried.end())
            continue;  // another split, same share
          tried.push_back(share);
          CoreCycles r = OneCore(c, share[0], share[1], share[2], share[3]);
          if (r.critical < best.critical) best = r;
        }
      }
    }
  }
  t.compute = best.mad / clock;
  t.load = best.load / clock;
  t.store = best.drain / clock;
  t.critical = best.critical / clock;
  t.tiles = best.tiles, t.tile_elements = best.tile_elements, t.share_elements = best.share_elements;
  t.serial = c.coupled;
  cache.emplace(key, t);
  return t;
}

}  // namespace npugap::analysis::perf::internal
