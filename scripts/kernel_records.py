"""Reads the kernel CSVs that npugap writes (`perf --kernels FILE --out`, `perf MODEL --kernels-out`)
for the scripts beside it (compare_kernels.py, perf_record_groups.py), with their shared rules:
time_us is a number, predicted_us is a number or empty (npugap leaves it empty for a kernel type
its cost model does not know, and reports those records as unknown), and bad input ends the
script with one line naming the file, line and column (the caller prints it and exits 2).
"""
import csv

KEY_COLUMNS = ("op_type", "block_dim", "inputs", "outputs", "time_us")

# `--dtype-labels typeid-shifted`: the calibration files' labels are one MindSpore TypeId early
# (src/analysis/perf/cost/dtype_labels.cc has the evidence and the same table); each label is read as
# the type after it. Labels with no sized successor have no reading.
DTYPE_LABEL_READINGS = ("as-written", "typeid-shifted")
TYPEID_SHIFT = {"number_type_begin": "bool", "int8": "int16", "int16": "int32", "int32": "int64",
                "uint32": "uint8", "uint8": "uint16", "uint16": "uint32", "float32": "float16",
                "float16": "float32"}


def read_dtype_labels(prog, path, rows, reading):
    """Rewrites the inputs / outputs operands of `rows` ("format:dtype:shape;...") to `reading`."""
    if reading == "as-written":
        return rows
    for line, r in enumerate(rows, start=2):
        for col in ("inputs", "outputs"):
            ops = []
            for o in (r[col] or "").split(";"):
                if not o:
                    continue
                parts = o.split(":")
                if len(parts) < 2 or parts[1] not in TYPEID_SHIFT:
                    label = parts[1] if len(parts) > 1 else ""
                    raise SystemExit(f"{prog}: {path}:{line}: column '{col}': operand '{o}': dtype label "
                                     f"'{label}' has no typeid-shifted reading")
                parts[1] = TYPEID_SHIFT[parts[1]]
                ops.append(":".join(parts))
            r[col] = ";".join(ops)
    return rows


def read(prog, path, columns=KEY_COLUMNS, numeric=("time_us",), optional_numeric=()):
    """The rows of `path` as dicts; `numeric` columns as floats, `optional_numeric` as floats or None."""
    try:
        with open(path, newline="") as f:
            rows = list(csv.DictReader(f))
    except OSError as e:
        raise SystemExit(f"{prog}: {path}: {e.strerror}")
    if not rows:
        raise SystemExit(f"{prog}: {path}: no records")
    missing = [c for c in columns if c not in rows[0]]
    if missing:
        raise SystemExit(f"{prog}: {path}: missing column '{missing[0]}' (write it with npugap perf --out)")
    for line, r in enumerate(rows, start=2):
        for c in numeric + optional_numeric:
            text = r[c] if r[c] is not None else ""
            if c in optional_numeric and text == "":
                r[c] = None
                continue
            try:
                r[c] = float(text)
            except ValueError:
                raise SystemExit(f"{prog}: {path}:{line}: {c} '{text}' is not a number")
    return rows


def run(main):
    """Runs main(); a SystemExit with a message becomes that one line on stderr and exit code 2."""
    import signal
    import sys

    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # `| head` ends the output quietly
    try:
        main()
    except SystemExit as e:
        if isinstance(e.code, str):
            print(e.code, file=sys.stderr)
            sys.exit(2)
        raise
