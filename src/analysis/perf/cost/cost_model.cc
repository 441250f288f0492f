// PredictKernel: splits a kernel type into its parts (a FusionOp_ name, or a fused CANN kernel by
// rule), costs each pipe (cube, vector, memory) and overlaps them: the pipes of an AI Core run
// concurrently on double-buffered tiles, so a kernel takes its slowest pipe plus the fixed launch
// cost (docs/perf.md).
#include <fmt/format.h>

#include <algorithm>
#include <array>

#include "cost_model_internal.h"

namespace npugap::analysis::perf {

std::string_view BoundName(Bound b) {
  switch (b) {
    case Bound::kCube:
      return "cube";
    case Bound::kVector:
      return "vector";
    case Bound::kMemory:
      return "memory";
    case Bound::kLatency:
      return "latency";
    case Bound::kAiCpu:
      return "aicpu";
  }
  return "latency";
}

namespace {

using namespace internal;  // NOLINT(google-build-using-namespace): the model's own pieces

// CANN kernels that fuse named parts without a FusionOp_ name.
struct Composite {
  std::string_view op_type;
  std::array<std::string_view, 2> parts;
};
constexpr Composite kComposites[] = {
    // The BN gradient of FusedDbnDw's TIK kernel (its own vector rule), then the weight gradient.
    {"FusedDbnDw", {"FusedDbnDwBnGrad", "Conv2DBackpropFilter"}},
};

std::vector<std::string_view> PartsOf(std::string_view op_type) {
  for (const Composite& c : kComposites) {
    if (c.op_type == op_type) return {c.parts.begin(), c.parts.end()};
  }
  return KernelParts(op_type);
}

// Cores a kernel's work is spread over: the given block_dim, folded onto the physical cores (a
// block_dim of 40 on 32 cores runs 2 waves, as slow as 20 cores), or a choice of the model: one
// core per 32 KiB of data (an eighth of a UB), up to all cores.
double EffectiveCores(int block_dim, int64_t bytes, int cores, int* used) {
  int bd = block_dim;
  if (bd <= 0) bd = static_cast<int>(std::clamp<int64_t>((bytes + 32767) / 32768, 1, cores));
  *used = bd;
  const int waves = (bd + cores - 1) / cores;
  return static_cast<double>(bd) / waves;
}

// The operands a convolution's fused vector parts hold in UB, cast and compute on: not the
// cube's own inputs, which go GM -> L1 (the forward's x or the backprop input's dy, first, and the
// FracZ weight). FusedDbnDw's BN gradient reads its maps itself and keeps every operand.
Kernel EpilogueOperands(const Kernel& kernel, std::string_view cube_op) {
  if (cube_op == "Conv2DBackpropFilter" || kernel.inputs.empty()) return kernel;
  Kernel k = kernel;
  k.inputs.erase(k.inputs.begin());
  std::erase_if(k.inputs, [](const Operand& op) { return op.format == "FracZ" || op.format == "FRACTAL_Z"; });
  return k;
}

const Operand* Largest(const Kernel& k) {
  const Operand* best = nullptr;
  for (const auto* list : {&k.inputs, &k.outputs}) {
    for (const Operand& op : *list) {
      if (!best || Elements(op) > Elements(*best)) best = &op;
    }
  }
  return best;
}

// A cube kernel's moves besides the cube's own, in seconds on the busiest core.
struct FusedMoves {
  double extra_moves = 0;     // MTE2 + MTE3 for the operands the cube does not read or write
  double second_drain = 0;    // MTE3 for full-size outputs besides C (the drain stage)
  double epilogue_loads = 0;  // MTE2 for the full-size inputs the fused epilogue reads (EpilogueGmInputs)
};

// Microseconds of a kernel with a cube part on its busiest core: `vector_us` and `memory_us` in
// microseconds, `hbm` in seconds.
double FusedCubeUs(const CubeTimes& cube, std::string_view cube_op, const FusedMoves& fused, double vector_us,
                   double hbm, double memory_us) {
  // The cube path as tiled (cost_model_cube_time.cc). On a coupled core a convolution's fused
  // vector work and the other operands' moves run in the same UB stage as the drain, after each
  // tile's MADs. A matmul's epilogue runs beside the next tile's MADs (EpilogueOverlapsCube), all
  // but the writes of its other full-size outputs, which drain in series with C's
  // (`second_drain`), and the loads of its full-size inputs, which queue on MTE2 in order with
  // the operand loads (`epilogue_loads`). Its UB buffers are single-buffered when an operand is
  // kept in L1 (`open_double_buffer`), so each tile's vector work waits for its own loads: the
  // epilogue side is its vector time plus its moves. That is taken for every matmul epilogue: the
  // condition is not checked here (the records' fused matmuls all keep one, docs/fidelity.md,
  // session 16 epi11; one that kept none would double-buffer them).
  const double epilogue = vector_us + 1e6 * fused.extra_moves;
  // MTE2 then carries the operand loads and the epilogue's, and each tile's drain follows.
  const double mte2_path = fused.epilogue_loads > 0 ? cube.load + fused.epilogue_loads + cube.store : 0;
  const double path =
      !cube.serial ? std::max(1e6 * cube.critical, vector_us)
      : EpilogueOverlapsCube(cube_op)
          ? std::max(1e6 * (std::max(cube.critical, mte2_path) + fused.second_drain), epilogue)
          : 1e6 * cube.critical + epilogue;
  return std::max({path, 1e6 * hbm, memory_us * (cube.serial ? 0 : 1)});
}

// How a vector kernel's tile loop overlaps its stages on the busiest core, each flag one rule's.
struct TileLoop {
  bool in_place = false;        // one buffer: load, vector work and store in series (RunsTilesInPlace)
  bool serial = false;          // DMA and vector work in series (PlanRowPasses, ElewiseMultiTiles)
  bool single_outputs = false;  // only the input tiles are double-buffered (RunsSingleBufferedOutputs)
  bool moves_only = false;      // a data-movement kernel (MoveLoopTime)
  double tiles = 0;             // UB tiles on the busiest core (PlanTiles)
};

// Microseconds of a vector kernel's tile loop on its busiest core: `load`, `store` (core totals)
// and `hbm` (the shared limit) in seconds, `vector_us` and `memory_us` (the largest of those
// three) in microseconds. Otherwise the pipes overlap on double-buffered tiles, plus the fill.
double VectorLoopUs(const TileLoop& loop, double load, double vector_us, double store, double hbm,
                    double memory_us) {
  if (loop.in_place) return std::max(1e6 * (load + store) + vector_us, 1e6 * hbm);
  if (loop.serial) return memory_us + vector_us;
  if (loop.single_outputs)
    return 1e6 * SingleBufferedOutputTime(load, 1e-6 * vector_us, store, hbm, loop.tiles);
  if (loop.moves_only) return 1e6 * MoveLoopTime(load, store, hbm, loop.tiles);
  return std::max(vector_us, memory_us) + 1e6 * PipelineFillTime(load, 1e-6 * vector_us, store, loop.tiles);
}

}  // namespace

KernelCost PredictKernel(const Kernel& recorded, const target::Target& target) {
  // A kernel registered with one dtype_format moves those dtypes, whatever the record's labels; a
  // convolution the dtypes its registrations allow.
  std::optional<Kernel> registered = WithRegisteredDtypes(recorded);
  if (!registered) registered = WithConvolutionDtypes(recorded, target);
  if (auto reread = WithMidOutputReadBack(registered ? *registered : recorded))
    registered = std::move(reread);
  if (auto merged = WithMergedReduceAxes(registered ? *registered : recorded)) registered = std::move(merged);
  const Kernel& kernel = registered ? *registered : recorded;
  const auto parts = PartsOf(kernel.op_type);
  std::optional<std::string_view> cube_part;
  VectorOps vector_ops;
  bool moves_only = true, gather = false, latency_only = true;
  for (std::string_view p : parts) {
    if (IsCubeOp(p)) {
      if (!HasCubeOperands(p, kernel)) {
        KernelCost unknown;
        unknown.known = false;
        unknown.note = fmt::format("'{}' without the filter operand its matrix view needs", p);
        return unknown;
      }
      cube_part = p;
      moves_only = latency_only = false;
      continue;
    }
    const auto rule = FindVectorRule(p);
    if (!rule) {
      KernelCost unknown;  // no note: the unknown type is itself the reason, and is listed as such
      unknown.known = false;
      return unknown;
    }
    vector_ops += VectorOpsFor(p, *rule, kernel);
    if (rule->cls != VectorClass::kLatency) latency_only = false;
    if (rule->cls == VectorClass::kElementwise) moves_only = false;
    if (rule->cls == VectorClass::kGatherLike) gather = true;
  }
  if (kernel.aicpu) return AiCpuCost(kernel, vector_ops.Total(), target);

  KernelCost c;
  const bool cube_side = cube_part.has_value();
  const int ub_block = target.buffer_alignment.ub ? static_cast<int>(target.buffer_alignment.ub->value) : 32;
  // A ReLUV2 mask is bits, stored as uint8 (IsReluBitMask), in the kernels that write or read it.
  const Operand* widest = Largest(kernel);
  const bool relu_mask = widest && std::any_of(parts.begin(), parts.end(), [](std::string_view p) {
                           return p == "ReLUV2" || p == "ReluV2" || p == "ReluGradV2";
                         });
  // The mask has the shape of the map the ReLU runs on, which in a fused convolution gradient is
  // the output (dx), not the largest operand (dy when the convolution widens the channels).
  const auto is_mask = [&](const Operand& op) {
    for (const auto* list : {&kernel.inputs, &kernel.outputs})
      for (const Operand& x : *list)
        if (&x != &op && IsReluBitMask(op, x)) return true;
    return false;
  };
  const auto bytes = [&](const Operand& op, bool cube_read) {
    if (relu_mask && is_mask(op)) return (Elements(op) + ub_block - 1) / ub_block * ub_block;
    // A vector kernel stores its operands as labelled (LabelledBytes); only a kernel with a cube
    // part keeps the fp16 reading of float32 fractal labels (StoredBytes).
    return cube_side ? StoredBytes(op, ub_block, cube_read) : LabelledBytes(op, ub_block);
  };
  int64_t in_bytes = 0, out_bytes = 0;
  for (const Operand& op : kernel.inputs) in_bytes += bytes(op, cube_side);
  // Outputs are written as labelled (a convolution's as registered, above).
  for (const Operand& op : kernel.outputs) out_bytes += bytes(op, false);
  if (gather && !kernel.inputs.empty()) {
    // Reads what it writes, plus the small operands (indices, begin/end), not the whole table.
    in_bytes = out_bytes + in_bytes - bytes(kernel.inputs[0], cube_side);
  }
  const int physical = static_cast<int>(std::max<int64_t>(1, target.compute.cube_cores.value));
  int used = 0;
  const double cores = EffectiveCores(kernel.block_dim, in_bytes + out_bytes, physical, &used);
  c.block_dim = used;
  // The blocks are dispatched one after another: each block of the first wave after the first
  // delays the end. Later waves are dispatched while the first one runs, so they add no start.
  const int first_wave = std::min(used, physical);
  c.overhead_us =
      target.kernel
          ? 1e6 * (target.kernel->launch_overhead.value + (first_wave - 1) * target.kernel->block_start.value)
          : 0;
  if (latency_only) {
    c.time_us = c.overhead_us;
    c.bound = Bound::kLatency;
    return c;
  }

  MoveTimes move = MoveTime(in_bytes, out_bytes, 1, target);  // one core; divided below
  double load = move.load / cores, store = move.store / cores, hbm = move.hbm;
  std::optional<CubeTimes> cube;
  FusedMoves fused;  // a cube kernel's moves besides the cube's own
  TileLoop loop;     // how a vector kernel's tile loop overlaps its stages
  loop.moves_only = moves_only;
  if (cube_part) {
    auto shape = DeriveCubeShape(*cube_part, kernel, target);
    if (!shape.ok()) {
      // Not costed: an unknown record, with the reason, rather than a 0 us prediction that would
      // enter the error figures at -100%.
      c.known = false;
      c.note = shape.status().message();
      c.time_us = 0;
      return c;
    }
    // The cube is tiled over whole cores; a folded block_dim still uses at most `physical`.
    const int cube_cores = static_cast<int>(std::min<double>(std::max(1.0, cores), physical));
    // k is split over cores only for a convolution, and only when no fused vector part after it
    // needs whole sums (a product scales each partial sum alike). A matmul never splits k: TBE's
    // static matmul schedule has no k split (mmad_schedule.py), the cache tiling splits k only
    // under the `split_k_flag` compile attribute of dynamic-shape builds, which defaults to false
    // (cache_tiling.cc), and a k split adds its partial sums atomically into an output that an
    // AtomicAddrClean zeroes first, which the calibration files show before every k-split
    // convolution (Conv2DBackpropFilter, FusedDbnDw) and before no matmul (session 15, mmfw6 /
    // mmw7 / lead, docs/fidelity.md).
    const auto after = std::find(parts.begin(), parts.end(), *cube_part) + 1;
    // A fused vector part that consumes C (a Mul does not count: it scales each partial sum alike).
    const bool fused_vector_after =
        !std::all_of(after, parts.end(), [](std::string_view p) { return p == "Mul"; });
    shape->split_k = shape->conv && !fused_vector_after;
    // A convolution whose C feeds a fused vector part (BNTrainingReduce's sums, ReluGradV2, AddN)
    // drains each tile into that part's UB stage, which runs after the tile's MADs (below), so
    // the next tile's MADs are not credited against the drain either: the TBE convolution
    // schedules read (2019 conv2d_backprop_filter_schedule.py, a later conv_schedule.py)
    // double-buffer L0C under the tiling but never `preload` it. Kept for the other
    // convolutions (the weight gradient), which this was chosen from the records to leave
    // alone (docs/fidelity.md, session 16, rn13).
    shape->l0c_preload = !(shape->conv && fused_vector_after);
    const CubeTimes ct = CubeTime(*shape, cube_cores, target);
    cube = ct;
    c.cube_us = 1e6 * ct.compute;
    // Operands the cube does not read or write (a fused mask, a second output, BN sums) go
    // through the vector path: MTE2 shares the load side, MTE3 is beside FixPipe on the store side.
    const int64_t total = in_bytes + out_bytes - shape->unread_elements * shape->in_bytes;
    const int64_t extra = std::max<int64_t>(0, total - ct.operand_bytes);
    const MoveTimes xt = MoveTime(extra / 2, extra - extra / 2, cube_cores, target);
    load = ct.load + xt.load;
    store = std::max(ct.store, xt.store);
    fused.extra_moves = xt.load + xt.store;
    hbm = static_cast<double>(std::max(total, ct.operand_bytes)) / target.memory.bandwidth.value;
    // A full-size output besides C (_MatMul_GeLU writes the product and its GeLU) leaves each
    // tile through MTE3 with C, in the drain stage that CANN's UB cycle model adds to every tile.
    int64_t tile_outputs = 0;
    for (size_t i = 1; i < kernel.outputs.size(); ++i) {
      if (Elements(kernel.outputs[i]) >= Elements(kernel.outputs[0]))
        tile_outputs += bytes(kernel.outputs[i], false);
    }
    fused.second_drain = MoveTime(0, tile_outputs, cube_cores, target).store;
    int64_t epilogue_inputs = 0;
    for (const Operand* op : EpilogueGmInputs(kernel)) epilogue_inputs += bytes(*op, cube_side);
    fused.epilogue_loads = MoveTime(epilogue_inputs, 0, cube_cores, target).load;
  }
  // The vector parts of a convolution kernel compute on one map, C: a part fused after the cube
  // consumes its output (BNTrainingReduce's sums over y, ReluGradV2 / AddN over dx), and
  // FusedDbnDw's BN gradient computes dbn_y, the shape of its grads (outputs[0] in both). The
  // largest operand is x when the convolution narrows the channels (a 1x1 256 -> 64: 4x C).
  const bool on_c = cube_part && IsConvolutionOp(*cube_part) && !kernel.outputs.empty();
  if (const Operand* big = on_c ? kernel.outputs.data() : widest) {
    // The cube reads its inputs as fp16; its output leaves L0C as labelled.
    const bool output = big >= kernel.outputs.data() && big < kernel.outputs.data() + kernel.outputs.size();
    const std::string dtype =
        cube_side && StoredBytes(*big, 1, !output) < Elements(*big) * ItemSize(big->dtype) ? "float16"
                                                                                           : big->dtype;
    // A vector kernel's busiest block, from how its schedule splits the work (cost_model_split.cc);
    // the cube's split is its own (CubeTime), and a matmul's epilogue on a coupled core computes
    // on the busiest core's share of C (the static 1 x 30 split gives a core 7 of 192 n fractals,
    // not 6.4), per L0C tile (mmad_schedule.py).
    const bool on_tiles =
        cube && cube->serial && EpilogueOverlapsCube(*cube_part) && cube->share_elements > 0;
    const double split = on_tiles
                             ? std::min(cores, static_cast<double>(Elements(*big)) / cube->share_elements)
                         : cube ? cores
                                : SplitCores(kernel, *big, vector_ops, dtype, cores, ub_block);
    if (!cube) load *= cores / split, store *= cores / split;
    // FusedDbnDw's TIK kernel runs its BN gradient in its own fixed chunks, each instruction with
    // its head, in series with the MADs of each chunk (cost_model_dbn_dw.cc); other kernels take
    // the generic vector time.
    if (const auto pass = FusedDbnDwPass(kernel, target)) {
      c.vector_us = 1e6 * pass->vector;
      fused.extra_moves += pass->dma_heads;
    } else if (!moves_only && vector_ops.Total() > 0) {
      TilePlan l0c;
      if (on_tiles) l0c.tile = cube->tile_elements, l0c.tiles = cube->tiles;
      c.vector_us = 1e6 * VectorKernelTime(on_c ? EpilogueOperands(kernel, *cube_part) : kernel, *big,
                                           vector_ops, dtype, split, target, on_tiles ? &l0c : nullptr);
    }
    // A strided 1x1 backprop input dilates C in UB one dy row at a time (cost_model_dilation.cc).
    if (on_c) c.vector_us += 1e6 * DilationHeadTime(kernel, *cube_part, split, target);
    if (!cube && !gather) {
      // Each UB tile's DMA instructions pay a fixed head on top of the bytes they move, in data
      // movement kernels as in computing ones.
      const TilePlan plan = PlanTiles(kernel, *big, vector_ops, dtype, split, target);
      loop.tiles = plan.tiles;
      loop.single_outputs = !moves_only && RunsSingleBufferedOutputs(kernel, vector_ops, plan.per_channel);
      const MoveTimes heads = DmaHeadTime(kernel, *big, plan, target);
      load += heads.load, store += heads.store;
      if (!moves_only) load += BroadcastRereadTime(kernel, *big, vector_ops, dtype, split, target);
      // A row longer than the UB holds: no double buffering, and maybe a pass per row reduction.
      const RowPasses passes = PlanRowPasses(kernel, *big, vector_ops, dtype, target);
      const MoveTimes more = MoveTime(static_cast<int64_t>(passes.extra_in_bytes),
                                      static_cast<int64_t>(passes.extra_out_bytes), 1, target);
      load += more.load / split, store += more.store / split, hbm += more.hbm;
      loop.serial = passes.serial || plan.inputs_wait_for_work;
      loop.in_place = RunsTilesInPlace(kernel);
    }
  }
  c.memory_us = 1e6 * std::max({load, store, hbm});
  const double busiest = cube ? FusedCubeUs(*cube, *cube_part, fused, c.vector_us, hbm, c.memory_us)
                              : VectorLoopUs(loop, load, c.vector_us, store, hbm, c.memory_us);
  c.time_us = c.overhead_us + busiest;
  const double largest = std::max({c.cube_us, c.vector_us, c.memory_us});
  if (busiest <= c.overhead_us)
    c.bound = Bound::kLatency;
  else if (largest == c.cube_us)
    c.bound = Bound::kCube;
  else if (largest == c.vector_us)
    c.bound = Bound::kVector;
  else
    c.bound = Bound::kMemory;
  return c;
}

}  // namespace npugap::analysis::perf
