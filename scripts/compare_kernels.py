#!/usr/bin/env python3
"""Sets npugap's lowering of a model beside a measured kernel inventory, per kernel type.

  compare_kernels.py LOWERED.csv RECORDS_PREDICTED.csv [--detail TYPE ...] [--markdown]

LOWERED.csv: `npugap perf MODEL ... --kernels-out LOWERED.csv` (time_us = predicted).
RECORDS_PREDICTED.csv: `npugap perf --kernels RECORDS.csv --out RECORDS_PREDICTED.csv`
(time_us = measured, predicted_us = the same cost model on the measured kernel).
Per type: count, predicted ms on each side, measured ms; with --detail, the distinct operand
signatures (format:dtype:shape) of that type on each side with their counts. An empty
predicted_us (a kernel type the cost model does not know) counts as 0, as npugap sums it.
Bad input: one line on stderr, exit 2 (scripts/kernel_records.py).
"""
import argparse
import collections

import kernel_records


def signature(row, with_shapes=True):
    def side(s):
        if not with_shapes:
            return ";".join(":".join(o.split(":")[:2]) for o in s.split(";") if o)
        return s
    return side(row["inputs"]) + " -> " + side(row["outputs"])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("lowered")
    ap.add_argument("records")
    ap.add_argument("--detail", action="append", default=[])
    ap.add_argument("--markdown", action="store_true")
    ap.add_argument("--no-shapes", action="store_true", help="--detail: formats and dtypes only")
    a = ap.parse_args()
    low = kernel_records.read("compare_kernels", a.lowered)
    rec = kernel_records.read("compare_kernels", a.records, kernel_records.KEY_COLUMNS + ("predicted_us",),
                              optional_numeric=("predicted_us",))
    lt, rt = collections.defaultdict(lambda: [0, 0.0]), collections.defaultdict(lambda: [0, 0.0, 0.0])
    for r in low:
        lt[r["op_type"]][0] += 1
        lt[r["op_type"]][1] += r["time_us"]
    for r in rec:
        e = rt[r["op_type"]]
        e[0] += 1
        e[1] += r["predicted_us"] or 0.0  # unknown kernel types count as 0, as npugap sums them
        e[2] += r["time_us"]
    types = sorted(set(lt) | set(rt), key=lambda t: -max(rt[t][2] if t in rt else 0, lt[t][1] if t in lt else 0))
    if a.markdown:
        print("| kernel type | lowered n | records n | lowered pred. ms | records pred. ms | measured ms |")
        print("|---|---:|---:|---:|---:|---:|")
    else:
        print(f"{'kernel type':48} {'low n':>6} {'rec n':>6} {'low ms':>8} {'rec ms':>8} {'meas ms':>8}")
    tot = [0, 0, 0.0, 0.0, 0.0]
    for t in types:
        ln, lms = lt[t] if t in lt else (0, 0.0)
        rn, rms, mms = rt[t] if t in rt else (0, 0.0, 0.0)
        tot = [tot[0] + ln, tot[1] + rn, tot[2] + lms, tot[3] + rms, tot[4] + mms]
        if a.markdown:
            print(f"| {t} | {ln} | {rn} | {lms / 1e3:.2f} | {rms / 1e3:.2f} | {mms / 1e3:.2f} |")
        else:
            print(f"{t:48} {ln:6d} {rn:6d} {lms / 1e3:8.2f} {rms / 1e3:8.2f} {mms / 1e3:8.2f}")
    if a.markdown:
        print(f"| **all** | {tot[0]} | {tot[1]} | {tot[2] / 1e3:.2f} | {tot[3] / 1e3:.2f} | {tot[4] / 1e3:.2f} |")
    else:
        print(f"{'all':48} {tot[0]:6d} {tot[1]:6d} {tot[2] / 1e3:8.2f} {tot[3] / 1e3:8.2f} {tot[4] / 1e3:8.2f}")
    for t in a.detail:
        for name, rows in (("lowered", [r for r in low if r["op_type"] == t]),
                           ("records", [r for r in rec if r["op_type"] == t])):
            sigs = collections.Counter(signature(r, not a.no_shapes) for r in rows)
            times = collections.defaultdict(float)
            for r in rows:
                times[signature(r, not a.no_shapes)] += (r["predicted_us"] or 0.0) if name == "records" else r["time_us"]
            print(f"\n{t} — {name}: {len(rows)}")
            for s, n in sigs.most_common():
                print(f"  {n:4d} x  {times[s] / n:9.1f} us  {s}")


if __name__ == "__main__":
    kernel_records.run(main)
