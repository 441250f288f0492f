#!/usr/bin/python3
"""Times a gen_models.py model in eager PyTorch (FP32, CPU).

Usage: /usr/bin/python3 bench/torch_bench.py MODEL_NAME BATCH THREADS REPEAT

MODEL_NAME is one of scripts/gen_models.py's models (same random weights and the same seeded
input as its .input.npy / .input_bB.npy files). torch.set_num_threads(THREADS),
torch.set_num_interop_threads(1), torch.no_grad(), eval mode. Model construction and the first
(warm-up) run are not timed; the next REPEAT runs are. Prints one JSON object:
  {"median_ms", "runs": [ms...], "warmup_ms", "threads", "batch", "torch_version"}
"""

import json
import os
import statistics
import sys
import time

# OpenBLAS (Debian's torch calls it for matmuls) starts its own threads; hold it to THREADS too.
if len(sys.argv) == 5 and sys.argv[3].isdigit():
    os.environ.setdefault("OPENBLAS_NUM_THREADS", sys.argv[3])
    os.environ.setdefault("OMP_NUM_THREADS", sys.argv[3])

import torch  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "scripts"))
import gen_models  # noqa: E402


def main():
    if len(sys.argv) != 5:
        print(__doc__, file=sys.stderr)
        return 2
    name, batch, threads, repeat = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
    if name not in gen_models.ALL_MODELS:
        print(f"unknown model {name}; known: {', '.join(gen_models.ALL_MODELS)}", file=sys.stderr)
        return 2
    torch.set_num_threads(threads)
    try:
        torch.set_num_interop_threads(1)
    except RuntimeError:
        pass  # already set
    model, spec = gen_models.build_model(name)
    x = torch.from_numpy(gen_models.make_input(name, spec, batch))

    with torch.no_grad():
        t0 = time.perf_counter()
        model(x)
        warmup_ms = (time.perf_counter() - t0) * 1e3
        runs = []
        for _ in range(repeat):
            t0 = time.perf_counter()
            model(x)
            runs.append((time.perf_counter() - t0) * 1e3)
    print(json.dumps({"median_ms": round(statistics.median(runs), 3),
                      "runs": [round(r, 3) for r in runs], "warmup_ms": round(warmup_ms, 3),
                      "threads": threads, "batch": batch, "torch_version": torch.__version__}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
