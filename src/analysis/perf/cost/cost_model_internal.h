// Pieces of the per-kernel cost model shared by its kernel classes (cost_model_*.cc). Each class
// turns a kernel into the work of its pipes; PredictKernel (cost_model.cc) overlaps them.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "npugap/analysis/perf/kernel.h"
#include "npugap/target/target.h"

namespace npugap::analysis::perf::internal {

// Bytes of one element of a CSV / CANN dtype name. Unknown names (the source's placeholder
// "number_type_begin" on scalars) count as 4 bytes.
int64_t ItemSize(std::string_view dtype);
int64_t Elements(const Operand& op);
// The profile's fixed head (cycles) of the named instruction class in one of its head tables
// (`kernel.vector_instruction_heads`, `dma_instruction_heads`, `cube_instruction_heads`); 0 when
// the table does not name it.
double InstructionHead(const std::map<std::string, target::Number>& heads, const char* name);
// Bytes as stored by a kernel with a cube part, rounded up to the 32 B UB block. A float32 label
// in a fractal format whose last dim is 16 is stored as fp16 (the block is 32 B / itemsize,
// docs/perf.md) on the cube side (`cube_side`: the operands the cube reads) and, for FRACTAL_NZ,
// also for the kernel's other operands. Kernels without a cube part use LabelledBytes.
int64_t StoredBytes(const Operand& op, int64_t ub_block, bool cube_side);
// Bytes as labelled, rounded up to the 32 B UB block: how a kernel without a cube part stores
// every operand. A float32 FRACTAL_NZ tensor written by the cube (L0C holds float32 16 x 16
// fractals) or by TransData keeps 4 bytes per element; the calibration records' float32 NZ
// tensors read under their true TypeIds (docs/perf.md "Dtype labels") are such outputs.
int64_t LabelledBytes(const Operand& op, int64_t ub_block);
// An NC1HWC0 feature map (N x H x W > 1), not a per-channel [1, C1, 1, 1, C0] tensor (BN
// statistics, scales, sums).
bool IsFeatureMap(const Operand& op);
// A per-channel [1, C1, 1, 1, C0] tensor.
bool IsChannelTensor(const Operand& op);
// Whether `op` is the bit mask of ReLUV2 (written) or ReluGradV2 (read) for the feature map `x`:
// CANN's relu_v2 computes it with vcmp's bit mode, one bit per element of x stored as uint8
// [N, C1, H, W, C0 / 8], so it is 1 byte per element whatever dtype the record lists.
bool IsReluBitMask(const Operand& op, const Operand& x);

// How a non-cube op is costed.
enum class VectorClass : uint8_t {
  kElementwise,  // every element read, computed, written
  kMove,         // data movement only (no arithmetic): TransData, Transpose, Concat, ...
  kGatherLike,   // reads only what it writes (Gather, StridedSlice): input bytes = output bytes
  kLatency,      // fixed cost only (status registers, atomic workspace clean)
};
// Vector instructions per element of the largest operand, by instruction class: the vector unit
// runs simple ones (add, mul, max, compare, cast, reciprocal, rsqrt) at close to its lane rate,
// exp / ln / sqrt, divisions and cross-lane reductions several times slower (docs/perf.md).
// `broadcast` counts the per-row values a row-wise kernel spreads back over its row (the mean
// subtracted, the sum divided by): each is a full-shape `vector_broadcast` into UB, a simple op
// per element (VectorTime), and like the row reductions one instruction per row slice
// (VectorKernelTime).
// `fp32`: the op computes in float32 whatever its operands are stored in (a cast per full-size
// operand stored in 2 bytes).
// `tree_sums`: how many of the `simple` ops are lane-wise sums over N, H, W that CANN's batch-norm
// reduce schedules emit as a halving tree (`vector_dichotomy_add_for_bn_reduce`): the same cost per
// element as an add, but one instruction per halving step of each UB tile (VectorKernelTime).
struct VectorOps {
  double simple = 0, transcendental = 0, divide = 0, reduce = 0, broadcast = 0;
  bool fp32 = false;
  double tree_sums = 0;
  // Only the row reductions run in float32: each reduced operand is cast up first (one vconv per
  // reduce), the other ops stay in the stored dtype (SoftmaxGradExt, cost_model_fp32_reduce.cc).
  bool fp32_reduce = false;
  // Instructions on the kernel's one-value-per-row tensors (layer norm's rstd from the variance,
  // the scaled row sums): one instruction each per UB tile, whatever the tile's rows
  // (cost_model_row_values.cc).
  double per_row_simple = 0, per_row_transcendental = 0;
  double Total() const { return simple + transcendental + divide + reduce; }
  VectorOps& operator+=(const VectorOps& o) {
    simple += o.simple, transcendental += o.transcendental, divide += o.divide, reduce += o.reduce;
    broadcast += o.broadcast, tree_sums += o.tree_sums;
    fp32 = fp32 || o.fp32;
    fp32_reduce = fp32_reduce || o.fp32_reduce;
    per_row_simple += o.per_row_simple, per_row_transcendental += o.per_row_transcendental;
    return *this;
  }
};
struct VectorRule {
  VectorClass cls = VectorClass::kElementwise;
  VectorOps ops;
};
// The rule for one non-cube op type (a FusionOp part or a whole kernel), or nullopt if unknown.
std::optional<VectorRule> FindVectorRule(std::string_view op_type);
// The rule of `op_type` for this kernel's shapes: an axis reduction (ReduceSum, ...) whose reduced
// axes include the innermost one sums across lanes, so its adds become cross-lane reduces.
VectorOps VectorOpsFor(std::string_view op_type, const VectorRule& rule, const Kernel& kernel);

// The kernel with the dtypes its op info registers, for a type registered with a single
// dtype_format (cost_model_op_dtypes.cc); nullopt for other types, or when the operand lists are
// not the registered ones.
std::optional<Kernel> WithRegisteredDtypes(const Kernel& kernel);
// The kernel with each output that its schedule writes to GM and reads back (a mid output of
// TBE's atomic reduce schedule: SquareSumV2's square) listed as an input too; nullopt for other
// kernels (cost_model_mid_outputs.cc).
std::optional<Kernel> WithMidOutputReadBack(const Kernel& kernel);
// An ND axis reduction with its adjacent reduced axes and adjacent kept axes merged, as TBE's
// reduce_*_d builds it (cost_model_reduce_axes.cc); nullopt for other kernels or when nothing merges.
std::optional<Kernel> WithMergedReduceAxes(const Kernel& kernel);
// ReduceSum, ReduceMean, ReduceMax and their D forms (cost_model_vector.cc).
bool IsAxisReduction(std::string_view op_type);
// A convolution kernel (Conv2D, its gradients, Conv2DTranspose and their FusionOp_ forms) with
// the dtypes its registrations allow (cost_model_conv_dtype.cc): float16 maps and weights in,
// a float16 map or a float32 weight gradient out, BNTrainingReduce's sums float32, on a target
// whose cube takes no float32 (the 910); nullopt for other types and targets.
std::optional<Kernel> WithConvolutionDtypes(const Kernel& kernel, const target::Target& target);
// Conv2D, Conv2DBackpropInput, Conv2DTranspose, Conv2DBackpropFilter (FusedDbnDw's cube part).
bool IsConvolutionOp(std::string_view op_type);

// Cube op types (MatMul, BatchMatMul, Conv2D and its gradients, FusedDbnDw).
bool IsCubeOp(std::string_view op_type);

// Matrix view of a cube kernel, padded to the fractal: batch x (m x k) . (k x n).
struct CubeShape {
  int64_t batch = 1, m = 0, n = 0, k = 0;
  std::string in_dtype = "fp16";      // the cube input type the rate is taken for
  int64_t in_bytes = 2;               // bytes per element of A and B as stored (StoredBytes)
  int64_t out_bytes = 2;              // bytes per element of C as stored
  double a_expand = 1, b_expand = 1;  // im2col: matrix elements per element read (convolutions)
  double c_expand = 1;                // elements written per element of C (dilated to a larger dx)
  bool split_k = true;                // k may be split over cores (partial sums added in GM)
  // The next tile's first MAD steps may cover this tile's drain (CANN's GEMM cycle model,
  // `is_l0c_preload`). Off for a convolution with a fused vector part after it (CubeTime).
  bool l0c_preload = true;
  // A convolution's unfolded operand is built by load3d (img2col, L1 -> L0A or L0B), which
  // writes fewer bytes per cycle than load2d; a 1x1 stride-1 one is plain load2d (kNone).
  enum class Load3d { kNone, kA, kB } load3d = Load3d::kNone;
  int load3d_stride = 1;        // the window's stride along W
  int load3d_row_switches = 0;  // output-row changes inside one 16-pixel fractal
  // Timed as CANN's convolution cycle calculators do: one MTE1 queue loads A then B (their
  // times add), and each MAD / load2d / load3d instruction pays kernel.cube_instruction_heads.
  bool conv = false;
  // A convolution whose m runs over N images' pixels (each image padded to whole fractals):
  // TBE splits it over the cores as whole images (batch_dim) times fractal rows of one image
  // (m_dim), never a core's share across an image boundary. 0: m is split freely.
  int64_t images = 0;
  // A backprop input of a strided forward (dy dilated to dx, either TBE pattern) with at least as
  // many images as cores: its cores are bound on the batch axis only (batch_dim = cores, n_dim =
  // m_dim = 1), so the busiest core takes ceil(images / cores) whole images, all of n and k.
  // Not in the sources read (the tiling query that picks block_dim is closed); chosen from the
  // records' times (docs/fidelity.md, "Changes (session 14, convsplit)").
  bool batch_cores_only = false;
  // A matmul tiled by CANN's cache tiling (cost_model_cube_divisors.cc): the block split and the
  // L0 tile divide the fractal counts, when the launched block_dim is such a split.
  bool divisor_tiling = false;
  // A matmul tiled by TBE's static schedule (cost_model_cube_static.cc): its launched block_dim is
  // that schedule's m x n core split, given here (0 x 0: another tiler).
  int64_t static_m_cores = 0, static_n_cores = 0;
  // A batched matmul (TBE's mmad_schedule.py): when one batch's A and B each fit in half of L1,
  // the L1 copies are double-buffered across batches and L0C / the UB result are not
  // (cost_model_cube_time.cc, `BatchPipelined`). Depthwise convolutions, whose batch is channel
  // groups under another schedule, leave it off.
  bool batch_matmul = false;
  // Elements of the record's operands the kernel never reads (a 1x1 window at stride_h > 1 brings
  // only every stride_h-th row of x into L1): not moved by the cube, nor by the vector path.
  int64_t unread_elements = 0;
};
// Depthwise convolutions and AvgPoolGrad, which CANN runs on the cube one C0 group at a time
// (cost_model_depthwise.cc): their matrix view, batch = C1 groups of 16 channels.
bool IsDepthwiseCubeOp(std::string_view op_type);
Expected<CubeShape> DepthwiseShape(std::string_view op, const Kernel& kernel);
// Whether a cube op's record carries what its matrix view needs: a depthwise kernel (or
// AvgPoolGrad) without its C1HWNCoC0 filter is not costed on the cube but left unknown, so that
// the miss shows (a record written by npugap's own lowering, for one, has no kernel matrix).
bool HasCubeOperands(std::string_view op, const Kernel& kernel);

// Simple vector instructions per element of the largest operand of a max pooling with an argmax
// mask (MaxPoolWithArgmax and its gradient), from the window taps in the mask's shape
// (cost_model_pooling.cc); nullopt for other types or when no mask is among the operands.
std::optional<double> ArgmaxPoolOpsPerElement(std::string_view op_type, const Kernel& kernel);
// DropoutDoMask's instructions per element by the dtype of its data: its hand-written kernel's
// float16 and float32 paths (cost_model_dropout.cc); nullopt for other types.
std::optional<VectorOps> DropoutDoMaskOps(std::string_view op_type, const Kernel& kernel);
// DropoutDoMask's UB tile in elements of its data, as its static kernel sizes it
// (`_get_ub_max_elements`, cost_model_dropout.cc); nullopt for other kernels.
std::optional<double> DropoutDoMaskTileElements(const Kernel& kernel, std::string_view dtype,
                                                const target::Target& target);
// Whether a vector kernel runs each UB tile through one buffer in place: the tile's load, vector
// work and store follow one another and the next tile's load waits for the store (DropoutDoMask,
// cost_model_dropout.cc).
bool RunsTilesInPlace(const Kernel& kernel);
// The elements of one UB tile of SquareSumV1 as the atomic reduce schedule sizes it
// (cost_model_atomic_reduce.cc); nullopt for other kernels.
std::optional<double> AtomicReduceTileElements(const Kernel& kernel, const target::Target& target);

// Bytes per cycle load3d writes into L0A (to_l0b false) or L0B, from the L1 -> L0A port rate
// (cost_model_load3d.cc, CANN's GetLoad3dThroughput table).
double Load3dRate(double l1_to_l0a, bool to_l0b, int stride_w, int row_switches);
// Row changes inside a 16-pixel fractal of an unfolded matrix whose rows run over `width`-pixel
// output rows (CANN's rule: 16 / W, or 15 / W when W divides 16).
int Load3dRowSwitches(int64_t width);
// Derives the matrix view from the operands; an error names the operand that did not fit.
Expected<CubeShape> DeriveCubeShape(std::string_view cube_op, const Kernel& kernel,
                                    const target::Target& target);

// Whether a fused cube kernel's vector epilogue runs beside the next tile's MADs rather than
// after them (cost_model_cube.cc): a matmul's does; and the full-size tensors that epilogue loads
// from GM itself (GeLUGrad's x and y, AddN's addends), which queue on MTE2 with the operand loads.
bool EpilogueOverlapsCube(std::string_view cube_op);
std::vector<const Operand*> EpilogueGmInputs(const Kernel& kernel);

// Seconds of the busiest core's cube path, tiled as CANN's GEMM cycle model does
// (cost_model_cube_time.cc): the work split over the cores, L0 tiles, an L1 residency mode.
struct CubeTimes {
  double compute = 0;         // MAD cycles of the busiest core / clock
  double load = 0;            // MTE2 time of the cube's operands (GM / L2 -> L1), as the L1 mode reads them
  double store = 0;           // drain of the output tiles: L0C -> UB -> GM (coupled) or FixPipe
  double critical = 0;        // main loop (loads not hidden by double buffering + MAD) and the drain
  double tiles = 0;           // output (L0C) tiles of the busiest core, all batches
  double tile_elements = 0;   // elements of one full output tile, m0 x n0
  double share_elements = 0;  // elements of C on the busiest core, all batches
  bool serial = false;        // coupled core: the drain and fused vector work follow each tile's MADs
  int64_t operand_bytes = 0;  // unique bytes of A, B and C, for the HBM bound
};
CubeTimes CubeTime(const CubeShape& shape, int cores, const target::Target& target);
// CANN's cache tiling cuts every axis by a divisor of its fractal count
// (cost_model_cube_divisors.cc): the largest divisor of n up to limit, and whether batch x m x n
// (x k, when k may be split) fractals can be cut into exactly `blocks` such parts.
int64_t LargestDivisorAtMost(int64_t n, int64_t limit);
bool HasDivisorSplit(int64_t batch, int64_t m16, int64_t n16, int64_t k16, bool split_k, int64_t blocks);
// The L0 tile CANN's cache tiling takes for one core's m x k x n share (cost_model_cube_l0.cc),
// all in fractals, and whether L0C stays double-buffered.
struct CacheL0Inputs {
  int64_t m = 0, n = 0, k = 0;                                           // the core's share, in fractals
  double in_bytes = 2;                                                   // bytes per element of A and B
  double l0a = 64 << 10, l0b = 64 << 10, l0c = 256 << 10, l1 = 1 << 20;  // buffer bytes
};
struct CacheL0Tile {
  int64_t m = 1, n = 1, k = 1;
  bool l0c_double = true;
  bool operator==(const CacheL0Tile&) const = default;
};
CacheL0Tile CacheTilingL0(const CacheL0Inputs& inputs);
// The cache tiling's L1 state for that share and tile (cost_model_cube_l1.cc): one operand's
// whole share resident with the other in k-full panels (each operand read once), or another.
enum class CacheL1State { kOther, kAResidentBPanels, kBResidentAPanels };
CacheL1State CacheTilingL1(const CacheL0Inputs& inputs, const CacheL0Tile& tile);

// TBE's static matmul schedule (cost_model_cube_static.cc): its m x n core split for an m x k x n
// matmul (elements, m and n whole fractals) on `core_num` cores, and how many times one core
// reads its share of A and of B with the L1 (= L0) tile m0 x n0.
struct StaticSplit {
  int64_t m = 1, n = 1;
};
StaticSplit StaticCoreSplit(int64_t m, int64_t n, int64_t k, int64_t core_num);
struct StaticReads {
  double a_times = 1, b_times = 1;
};
StaticReads StaticOperandReads(int64_t m, int64_t n, int64_t k, int64_t m0, int64_t n0, double l1_bytes,
                               double item_bytes);

// Seconds of the vector / MTE pipes for moving `in_bytes` / `out_bytes` over `cores` cores.
struct MoveTimes {
  double load = 0, store = 0, hbm = 0;
};
MoveTimes MoveTime(int64_t in_bytes, int64_t out_bytes, int cores, const target::Target& target);

// Seconds of vector arithmetic on one core for `elements` x `ops` of `dtype`: each instruction
// class at the profile's cycles per element (kernel.vector_instructions), a class it does not list
// at the lane rate (compute.vector_width / element bits).
double VectorTime(int64_t elements, const VectorOps& ops, std::string_view dtype,
                  const target::Target& target);

// A kernel whose rule has `fp32_reduce`, stored in 2 bytes: its reductions and their casts (`wide`,
// priced at the float32 rates) apart from the rest (`stored`, at the stored dtype's rates)
// (cost_model_fp32_reduce.cc); nullopt when the rule computes in one dtype.
struct Fp32ReduceSplit {
  VectorOps stored, wide;
};
std::optional<Fp32ReduceSplit> SplitFp32Reduce(const VectorOps& ops, std::string_view dtype);

// The per-row instructions of one UB tile (VectorOps::per_row_*); when the op computes in float32
// from a 2-byte dtype (`cast_up`), each smaller-than-full 2-byte input adds its cast
// (cost_model_row_values.cc).
struct RowValueOps {
  double simple = 0, transcendental = 0;
};
RowValueOps RowValueInstructions(const Kernel& kernel, const VectorOps& ops, bool cast_up, int64_t elements);

// How a vector kernel streams its largest operand through the UB on its busiest core
// (cost_model_tiles.cc): `tiles` of `tile` elements; `slices` row slices per tile of a row-wise
// kernel (0 otherwise); `per_channel`: the tiles stay inside one NC1HWC0 (n, c1) plane.
struct TilePlan {
  double tile = 0, tiles = 0, slices = 0;
  bool per_channel = false;
  // The UB cannot hold a second set of input tiles beside the tile's live results, so the next
  // tile's load waits for this tile's vector work (ElewiseMultiTiles, cost_model_elewise_tile.cc).
  bool inputs_wait_for_work = false;
};
TilePlan PlanTiles(const Kernel& kernel, const Operand& big, const VectorOps& ops, std::string_view dtype,
                   double cores, const target::Target& target);
// LambApplyOptimizerAssign's tiles on its busiest core (`per_core` elements of `big`) as TBE's
// elementwise multi-output schedule sizes and cuts them: whole slices of the cut axis within the
// liveness-walk count for elements of `item` bytes (cost_model_elewise_tile.cc); nullopt for
// other kernels.
std::optional<TilePlan> ElewiseMultiTiles(const Kernel& kernel, const Operand& big, double item,
                                          double per_core, const target::Target& target);
// Whether two tiles of each of the kernel's inputs (double-buffered) and one tile of each of
// `live_results` results, `tile` elements of `item` bytes, fit in `ub_bytes` of UB
// (cost_model_elewise_tile.cc).
bool DoubleBufferedInputsFit(const Kernel& kernel, const Operand& big, double live_results, double tile,
                             double item, double ub_bytes);
// The tile of a row-wise kernel whose row (RowLength) is longer than `cap` elements: a piece of
// the row, or on FRACTAL_NZ whole block columns of several rows (cost_model_long_rows.cc).
TilePlan LongRowTiles(const Operand& big, double cap, double per_core, double rows_per_matrix,
                      double rows_per_core);

// Cores' worth of parallelism a vector kernel gets from its block split (cost_model_split.cc):
// Elements(big) / the elements of the busiest core, at most `cores` (EffectiveCores' even split).
double SplitCores(const Kernel& kernel, const Operand& big, const VectorOps& ops, std::string_view dtype,
                  double cores, int64_t ub_block);

// Operands as large as the largest (`elements`): each takes its own UB buffer (at least 1).
int FullSizeOperands(const Kernel& kernel, int64_t elements);

// Elements of one row of `op` (its shape not empty): the last dim, or on FRACTAL_NZ the n1 blocks
// of n0 columns of one matrix.
double RowLength(const Operand& op);

// How a row-wise kernel (a row reduction broadcast back over the row) whose row does not fit in
// the UB runs (cost_model_row_passes.cc): `serial` when no double buffering is possible (each
// tile's DMA and vector work follow one another), and the bytes it moves beyond its operands when
// it streams the row once per reduction through a GM workspace.
struct RowPasses {
  double extra_in_bytes = 0, extra_out_bytes = 0;
  bool serial = false;
};
RowPasses PlanRowPasses(const Kernel& kernel, const Operand& big, const VectorOps& ops,
                        std::string_view dtype, const target::Target& target);

// Seconds of the DMA instruction heads (kernel.dma_instruction_heads) on the busiest core of a
// vector kernel tiled as `plan`: load = MTE2, store = MTE3 (cost_model_memory.cc).
MoveTimes DmaHeadTime(const Kernel& kernel, const Operand& big, const TilePlan& plan,
                      const target::Target& target);

// Seconds of MTE2 on the busiest core (`cores`' worth of split) for re-reading, once per UB tile,
// the inputs an elementwise kernel broadcasts along its outer axes (cost_model_broadcast.cc); 0
// when it has none.
double BroadcastRereadTime(const Kernel& kernel, const Operand& big, const VectorOps& ops,
                           std::string_view dtype, double cores, const target::Target& target);

// Seconds a double-buffered tile loop takes beyond its slowest pipe (cost_model_memory.cc): the
// MTE2 load, vector work and MTE3 store of each of `tiles` tiles run in order on their own queues,
// so the loop takes (tiles - 1) x the slowest stage plus all three stages of one tile; `load`,
// `vector` and `store` are the core's totals over its tiles. 0 without tiles.
double PipelineFillTime(double load, double vector, double store, double tiles);
// Seconds of a data-movement kernel's tile loop on the busiest core (cost_model_memory.cc): its
// per-core path (the slower of `load` and `store`, core totals over `tiles`, plus the fill of
// PipelineFillTime) or the shared HBM limit `hbm`, whichever is longer; the HBM bound has no fill
// of its own, since every stage of the loop is DMA that keeps the HBM busy.
double MoveLoopTime(double load, double store, double hbm, double tiles);

// Whether a vector kernel runs TBE's static elementwise schedule, which double-buffers only its
// input tiles, so that each tile's vector work waits for the previous tile's store
// (cost_model_output_buffers.cc).
bool RunsSingleBufferedOutputs(const Kernel& kernel, const VectorOps& ops, bool per_channel);
// Seconds of such a tile loop on the busiest core: the load overlaps the vector work and the store,
// which follow one another; `load`, `vector`, `store` are the core's totals, `hbm` the shared limit.
double SingleBufferedOutputTime(double load, double vector, double store, double hbm, double tiles);

// Seconds of vector work of `kernel` on its busiest core: VectorTime of the largest operand `big`
// over `cores`, plus the fixed head of every instruction (kernel.vector_instruction_heads), one
// per op and UB tile, and for row-wise kernels one per row slice of each reduction and broadcast
// (docs/perf.md, "Tiles"). A matmul's fused epilogue passes its cube's output tiles
// (`l0c_tiles`): its instructions are issued per L0C tile, so its UB tile is at most one of them.
double VectorKernelTime(const Kernel& kernel, const Operand& big, const VectorOps& ops,
                        std::string_view dtype, double cores, const target::Target& target,
                        const TilePlan* l0c_tiles = nullptr);

// FusedDbnDw's BN-gradient pass as its TIK kernel runs it on the busiest core
// (cost_model_dbn_dw.cc): the hand-tiled chunks of one C1 plane x the shape's pixel chunk, the
// vector seconds (the pass's arithmetic plus the heads of its 8 instructions per chunk) and the
// DMA heads of its 3 moves per chunk. nullopt for another type or a shape the kernel does not
// support.
struct DbnDwPass {
  double chunks = 0, vector = 0, dma_heads = 0;
};
std::optional<DbnDwPass> FusedDbnDwPass(const Kernel& kernel, const target::Target& target);
// Seconds of vector instruction heads a strided 1x1 backprop input pays beyond the generic
// epilogue: its dilation in UB runs one instruction per dy row per channel block per image
// (cost_model_dilation.cc); 0 for every other kernel.
double DilationHeadTime(const Kernel& kernel, std::string_view cube_op, double cores,
                        const target::Target& target);

// A kernel placed on the AI CPU: its arithmetic at AI CPU speed plus the task (launch + sync) cost.
KernelCost AiCpuCost(const Kernel& kernel, double ops_per_element, const target::Target& target);

// The part names of a kernel type: "FusionOp_A_B" -> {A, B}; anything else -> {itself}.
std::vector<std::string_view> KernelParts(std::string_view op_type);

}  // namespace npugap::analysis::perf::internal
