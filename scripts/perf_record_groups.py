#!/usr/bin/env python3
"""Groups the per-record predictions of `npugap perf --kernels FILE --out OUT.csv` by identical
kernels (op type, block_dim, operands) and prints, per group, the measured and predicted times,
their ratio and, for FRACTAL_NZ matmuls, m x n x k with the transposes the shapes reveal.

Why: a per-type error mixes groups that are off in different directions; the groups show which
one is off (docs/fidelity.md, "perfmm2"). `--by-previous` also splits a group by the op type of
the record before it in the file (the records are in execution order), which tells apart kernels
with identical operands but different roles (a transposed square operand has the same NZ shape).
`--floor` prints, per op type, the error left if every group were predicted by its single best
value: what no per-record model can go below when the records cannot tell the members apart.

usage: perf_record_groups.py OUT.csv [--type SUBSTRING] [--by-previous] [--min-us US] [--floor]
Bad input: one line on stderr, exit 2.
"""
import argparse
import collections

import kernel_records

COLUMNS = kernel_records.KEY_COLUMNS + ("predicted_us",)


def nz_dims(operand):
    """The two fractal-count dims [d0, d1] of a FRACTAL_NZ operand 'FRACTAL_NZ:dtype:...xd0xd1x16x16'."""
    parts = operand.split(":")
    if len(parts) < 3 or parts[0] != "FRACTAL_NZ" or not parts[2]:
        return None
    try:
        dims = [int(d) for d in parts[2].split("x")]
    except ValueError:  # not a shape npugap writes: no matmul view
        return None
    return dims[-4:-2] if len(dims) >= 4 else None


def matmul_view(inputs, outputs):
    """'m x n x k' and transposes from NZ shapes: C is [n1, m1], A normally [k1, m1], B [n1, k1]."""
    ins, outs = inputs.split(";"), outputs.split(";")
    if len(ins) < 2 or not outs:
        return ""
    a, b, c = nz_dims(ins[0]), nz_dims(ins[1]), nz_dims(outs[0])
    if not (a and b and c):
        return ""
    n1, m1 = c
    for a_trans in (False, True):
        k1 = a[1] if a_trans else a[0]
        if (a[0] if a_trans else a[1]) != m1:
            continue
        for b_trans in (False, True):
            if (b[1] if b_trans else b[0]) == n1 and (b[0] if b_trans else b[1]) == k1:
                unsure = "?" if a[0] == a[1] or b[0] == b[1] else ""
                flags = ("T" if a_trans else "N") + ("T" if b_trans else "N") + unsure
                return f"{16 * m1}x{16 * n1}x{16 * k1} {flags}"
    return ""


def weighted_median(values, weights):
    """The p minimising sum(w * |p - v|): the best single prediction under mean |p - t| / t."""
    pairs = sorted(zip(values, weights))
    half, run = sum(weights) / 2, 0.0
    for v, w in pairs:
        run += w
        if run >= half:
            return v
    return pairs[-1][0]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("csv")
    ap.add_argument("--type", default="", help="only op types containing this text")
    ap.add_argument("--by-previous", action="store_true", help="split groups by the previous record's op type")
    ap.add_argument("--min-us", type=float, default=0.0, help="hide groups with less measured time")
    ap.add_argument("--floor", action="store_true", help="per op type, the error of the best value per group")
    args = ap.parse_args()
    rows = kernel_records.read("perf_record_groups", args.csv, COLUMNS, optional_numeric=("predicted_us",))
    # A kernel type the cost model does not know has no prediction: it cannot join a group's
    # ratio, so it is left out and counted.
    unpredicted = collections.Counter(
        r["op_type"] for r in rows if r["predicted_us"] is None and args.type in r["op_type"])

    groups = collections.defaultdict(list)
    for i, r in enumerate(rows):
        if args.type not in r["op_type"] or r["predicted_us"] is None:
            continue
        before = rows[i - 1]["op_type"] if args.by_previous and i > 0 else ""
        groups[(r["op_type"], r["block_dim"], r["inputs"], r["outputs"], before)].append(r)

    print("measured_us n mean_us min_us max_us predicted_us ratio op_type block_dim [after] view | inputs -> outputs")
    for key, g in sorted(groups.items(), key=lambda kv: -sum(r["time_us"] for r in kv[1])):
        t = [r["time_us"] for r in g]
        p = sum(r["predicted_us"] for r in g)
        if sum(t) < args.min_us:
            continue
        after = f" [after {key[4]}]" if args.by_previous else ""
        view = matmul_view(key[2], key[3]) if "MatMul" in key[0] else ""
        ratio = f"{p / sum(t):5.2f}" if sum(t) > 0 else "    -"  # records of 0 us measured
        print(f"{sum(t):10.1f} {len(g):4d} {sum(t) / len(g):9.1f} {min(t):9.1f} {max(t):9.1f} "
              f"{p / len(g):9.1f} {ratio} {key[0]} bd={key[1]}{after} {view} | {key[2]} -> {key[3]}")

    if args.floor:
        by_type = collections.defaultdict(list)
        zero = 0  # a record of 0 us has no relative error: left out of the floor
        for g in groups.values():
            timed = [r for r in g if r["time_us"] > 0]
            zero += len(g) - len(timed)
            if not timed:
                continue
            best = weighted_median([r["time_us"] for r in timed], [1 / r["time_us"] for r in timed])
            by_type[g[0]["op_type"]] += [(abs(best - r["time_us"]), r["time_us"]) for r in timed]
        print("floor: op_type n mean|error| (unweighted / time-weighted) with one best value per group")
        for op, errs in sorted(by_type.items()):
            unweighted = 100 * sum(e / t for e, t in errs) / len(errs)
            weighted = 100 * sum(e for e, _ in errs) / sum(t for _, t in errs)
            print(f"floor {op} {len(errs)} {unweighted:.1f}% / {weighted:.1f}%")
        if zero:
            print(f"floor: {zero} records measured at 0 us left out")
    if unpredicted:
        print("no prediction (unknown kernel type), left out: "
              + ", ".join(f"{op} ({n})" for op, n in sorted(unpredicted.items())))


if __name__ == "__main__":
    kernel_records.run(main)
