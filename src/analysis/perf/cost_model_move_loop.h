// The tile loop of a data-movement kernel against the shared HBM bound (cost_model_memory.cc).
// Its own header, outside cost_model_internal.h, which nearly every perf source and test includes.
#pragma once

namespace npugap::analysis::perf::internal {

// Seconds of a data-movement kernel's tile loop on the busiest core: its per-core path (the slower
// of `load` and `store`, core totals over `tiles`, plus the fill of PipelineFillTime) or the shared
// HBM limit `hbm`, whichever is longer; the HBM bound has no fill of its own, since every stage of
// the loop is DMA that keeps the HBM busy.
double MoveLoopTime(double load, double store, double hbm, double tiles);

}  // namespace npugap::analysis::perf::internal
