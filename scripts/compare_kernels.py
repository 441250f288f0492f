#!/usr/bin/env python3
"""Sets npugap's lowering of a model beside a measured kernel inventory, per kernel type.

  compare_kernels.py LOWERED.csv RECORDS_PREDICTED.csv [--detail TYPE ...] [--dtypes] [--markdown]
                     [--dtype-labels as-written|typeid-shifted]

LOWERED.csv: `npugap perf MODEL ... --kernels-out LOWERED.csv` (time_us = predicted).
RECORDS_PREDICTED.csv: `npugap perf --kernels RECORDS.csv --out RECORDS_PREDICTED.csv`
(time_us = measured, predicted_us = the same cost model on the measured kernel).
Per type: count, predicted ms on each side, measured ms; with --detail, the distinct operand
signatures (format:dtype:shape) of that type on each side with their counts; with --dtypes, every
type's operand signatures without shapes (format:dtype) on each side, count beside count, so the
dtypes of the two inventories can be compared type by type. --dtype-labels typeid-shifted reads the
records' labels one MindSpore TypeId later (what `npugap perf --kernels --dtype-labels` does; the
--out file keeps the labels as written, so pass the same reading here); the lowered file's labels
are npugap's own and are never shifted. An empty
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


def print_dtypes(types, low, rec, markdown):
    """Per type, each format:dtype signature with its count on the lowered and the records side."""
    count = collections.defaultdict(lambda: [0, 0])
    for side, rows in ((0, low), (1, rec)):
        for r in rows:
            count[(r["op_type"], signature(r, False))][side] += 1
    print("\n| kernel type | format:dtype signature | lowered n | records n |" if markdown else
          f"\n{'kernel type':48} {'low n':>6} {'rec n':>6}  signature (format:dtype)")
    if markdown:
        print("|---|---|---:|---:|")
    for t in types:
        for (op, sig), (ln, rn) in sorted(((k, v) for k, v in count.items() if k[0] == t),
                                          key=lambda kv: -max(kv[1])):
            if markdown:
                print(f"| {op} | {sig} | {ln} | {rn} |")
            else:
                print(f"{op:48} {ln:6d} {rn:6d}  {sig}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("lowered")
    ap.add_argument("records")
    ap.add_argument("--detail", action="append", default=[])
    ap.add_argument("--markdown", action="store_true")
    ap.add_argument("--no-shapes", action="store_true", help="--detail: formats and dtypes only")
    ap.add_argument("--dtypes", action="store_true", help="per type, format:dtype signatures on each side")
    ap.add_argument("--dtype-labels", choices=kernel_records.DTYPE_LABEL_READINGS, default="as-written",
                    help="how to read the records' dtype labels")
    a = ap.parse_args()
    low = kernel_records.read("compare_kernels", a.lowered)
    rec = kernel_records.read("compare_kernels", a.records, kernel_records.KEY_COLUMNS + ("predicted_us",),
                              optional_numeric=("predicted_us",))
    rec = kernel_records.read_dtype_labels("compare_kernels", a.records, rec, a.dtype_labels)
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
    if a.dtypes:
        print_dtypes(types, low, rec, a.markdown)
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
