"""Writes the inputs of the FP16 / BF16 agreement test and what NumPy and PyTorch make of them.

Usage: reference_values.py OUTDIR
  OUTDIR/inputs.npy       uint32 float32 bit patterns (at least 10^7)
  OUTDIR/numpy_fp16.npy   uint16: numpy's float32 -> float16 cast of each input
  OUTDIR/torch_bf16.npy   uint16: torch's float32 -> bfloat16 cast of each input
Exit code 77 (ctest: skipped) where numpy or torch is missing. Nothing here is committed data:
the test regenerates it each run (reference_agreement_test.sh).
"""
import os
import sys

try:
    import numpy as np
    import torch
except ImportError as e:  # pragma: no cover - depends on the machine
    print(f"skipped: {e}")
    sys.exit(77)

TOTAL = 10_500_000
rng = np.random.default_rng(20261201)


def neighbours_and_midpoints(values):
    """Each finite value, the exact midpoints to the next one (ties) and one float32 ulp either side."""
    v = np.sort(values[np.isfinite(values)].astype(np.float64))
    v = np.unique(v)
    mid = ((v[:-1] + v[1:]) / 2).astype(np.float32)  # exact: needs few more bits than the format
    bits = mid.view(np.uint32)
    return [values.astype(np.float32).view(np.uint32), bits, bits + 1, bits - 1]


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    parts = []
    # Every fp16 value, the ties between neighbours and the values next to them.
    fp16 = np.arange(1 << 16, dtype=np.uint16).view(np.float16).astype(np.float32)
    parts += neighbours_and_midpoints(fp16)
    # Every bf16 value, and the ties in the low half of each pattern.
    bf16 = np.arange(1 << 16, dtype=np.uint32) << 16
    parts += [bf16, bf16 | 0x8000, bf16 | 0x8001, bf16 | 0x7FFF]
    # fp16 subnormals and the underflow edge: log-uniform from 2^-30 to 2^-13, both signs.
    sub = np.exp2(rng.uniform(-30, -13, 1_000_000)).astype(np.float32)
    sub[::2] *= -1
    parts.append(sub.view(np.uint32))
    # Overflow boundaries: every float32 pattern around fp16's 65504 / 65520 / 65536 and bf16's
    # largest value / its tie with infinity, both signs.
    for centre in (0x477FE000, 0x477FF000, 0x47800000, 0x7F7F8000):
        band = np.arange(centre - 40000, min(centre + 40000, 0x7F800001), dtype=np.uint32)
        parts += [band, band | np.uint32(0x80000000)]
    # NaN payloads: quiet and signalling, both signs, and payloads that do not fit 16 bits.
    payload = rng.integers(1, 1 << 23, 300_000, dtype=np.uint32)
    sign = rng.integers(0, 2, 300_000, dtype=np.uint32) << 31
    parts.append(sign | np.uint32(0x7F800000) | payload)
    parts.append(np.array([0x7F800001, 0x7F802000, 0x7FC00000, 0x7FFFFFFF, 0xFF800001, 0x7F801FFF,
                           0x7F800000, 0xFF800000], dtype=np.uint32))
    # Values in fp16's normal range, log-uniform, both signs.
    normal = np.exp2(rng.uniform(-14, 16, 3_000_000)).astype(np.float32)
    normal[1::2] *= -1
    parts.append(normal.view(np.uint32))
    used = sum(p.size for p in parts)
    # The rest: uniformly random bit patterns.
    parts.append(rng.integers(0, 1 << 32, max(TOTAL - used, 0), dtype=np.uint32))
    inputs = np.concatenate(parts).astype(np.uint32)

    floats = inputs.view(np.float32)
    with np.errstate(over="ignore", invalid="ignore"):
        numpy_fp16 = floats.astype(np.float16).view(np.uint16)
    torch_bf16 = torch.from_numpy(floats.copy()).to(torch.bfloat16).view(torch.int16).numpy().view(np.uint16)
    np.save(os.path.join(out, "inputs.npy"), inputs)
    np.save(os.path.join(out, "numpy_fp16.npy"), numpy_fp16)
    np.save(os.path.join(out, "torch_bf16.npy"), torch_bf16)
    print(f"{inputs.size} values; numpy {np.__version__}, torch {torch.__version__}")


if __name__ == "__main__":
    main()
