#!/usr/bin/python3
"""Benchmarks npugap against ONNX Runtime (onnxruntime-node) and eager PyTorch.

Usage (from anywhere; paths default to the repository's):
  /usr/bin/python3 bench/run_benchmarks.py [--npugap build/npugap] [--models-dir models]
      [--models resnet50,mobilenet_v2,vit_b_16] [--opset 17] [--batches 1,8] [--threads 1,2]
      [--rounds 5] [--repeat 4] [--tools npugap,ort,torch] [--out bench/results/latest.md]

Before: /usr/bin/python3 scripts/gen_models.py models --only resnet50,mobilenet_v2,vit_b_16
        (cd bench && npm install --ignore-scripts)
The batch-B inputs (MODEL_opN.input_bB.npy) are written here when missing (same seeds as
gen_models.py); batch 1 uses MODEL_opN.input.npy.

For each (model, batch, threads) the tools run interleaved, round-robin: ROUNDS rounds, each
round one process of each tool (the starting tool rotates), and each process reports the median
of its timed runs, excluding model loading and one warm-up run:
  npugap: build/npugap run MODEL --inputs IN.npy --repeat K --threads T --json  -> elapsed_ms
          (the median of runs 2..K)
  ORT:    node bench/ort_bench.js MODEL IN.npy T K-1                            -> median_ms
  torch:  bench/torch_bench.py NAME B T K-1                                     -> median_ms
The table shows the median over rounds. Peak RSS (max resident set, /usr/bin/time -f %M) is
measured for the npugap and ORT processes (the ORT one includes Node.js itself, about 50 MB);
the median over rounds is shown. Writes the markdown table to stdout and to --out, and the raw
numbers next to it as .json, after every configuration (so an interrupted run leaves the rows it
finished; --resume reruns only the missing ones). Exits 1 if any npugap run failed.
"""

import argparse
import datetime
import json
import os
import platform
import re
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "scripts"))

TIME_BIN = "/usr/bin/time"
PYTHON = "/usr/bin/python3"


def sh(cmd):
    try:
        return subprocess.run(cmd, shell=True, capture_output=True, text=True, timeout=60).stdout.strip()
    except Exception:  # noqa: BLE001
        return ""


def last_json(text):
    """The last line of text that parses as a JSON object."""
    for line in reversed(text.strip().splitlines()):
        line = line.strip()
        if line.startswith("{"):
            try:
                return json.loads(line)
            except json.JSONDecodeError:
                pass
    # A pretty-printed object spanning lines.
    start = text.find("{")
    if start >= 0:
        try:
            return json.loads(text[start:])
        except json.JSONDecodeError:
            pass
    return None


def timed(cmd, timeout, env=None):
    """Runs cmd under /usr/bin/time; returns (parsed JSON or None, peak RSS MB, error text)."""
    with tempfile.NamedTemporaryFile("r", suffix=".time") as tf:
        full = [TIME_BIN, "-f", "%M", "-o", tf.name] + cmd
        try:
            p = subprocess.run(full, capture_output=True, text=True, timeout=timeout,
                               env=env)
        except subprocess.TimeoutExpired:
            return None, None, f"timed out after {timeout}s"
        rss_kb = None
        m = re.findall(r"^\s*(\d+)\s*$", tf.read(), re.M)
        if m:
            rss_kb = int(m[-1])
        rss_mb = rss_kb / 1024.0 if rss_kb is not None else None
        if p.returncode != 0:
            err = (p.stderr.strip() or p.stdout.strip()).splitlines()
            return None, rss_mb, f"exit {p.returncode}: {err[-1][:300] if err else ''}"
        obj = last_json(p.stdout)
        if obj is None:
            return None, rss_mb, f"no JSON in output: {p.stdout[-300:]!r}"
        return obj, rss_mb, None


def ensure_input(models_dir, name, opset, batch):
    base = f"{name}_op{opset}"
    if batch == 1:
        path = os.path.join(models_dir, base + ".input.npy")
        if not os.path.exists(path):
            sys.exit(f"missing {path}: run scripts/gen_models.py {models_dir} --only {name}")
        return path
    path = os.path.join(models_dir, f"{base}.input_b{batch}.npy")
    if not os.path.exists(path):
        import numpy as np  # noqa: PLC0415
        import gen_models  # noqa: PLC0415
        _, spec = gen_models.build_model(name)
        tmp = path + ".tmp.npy"
        np.save(tmp, gen_models.make_input(name, spec, batch))
        os.replace(tmp, path)
    return path


def fmt(x, digits=1):
    return "—" if x is None else f"{x:.{digits}f}"


def write_report(args, tools, results):
    """Writes the table (and the raw numbers as .json) for the rows so far; returns the text."""
    cpu = sh("lscpu | sed -n 's/^Model name:[[:space:]]*//p'") or platform.processor()
    ncpu = os.cpu_count()
    versions = {
        "npugap": sh(f"{args.npugap} --version 2>&1 | head -n1") if "npugap" in tools else None,
        "onnxruntime-node": json.load(open(os.path.join(HERE, "node_modules", "onnxruntime-node",
                                                        "package.json")))["version"]
        if os.path.exists(os.path.join(HERE, "node_modules", "onnxruntime-node")) else None,
        "node": sh("node --version"),
        "torch": sh(f"{PYTHON} -c 'import torch; print(torch.__version__)'"),
        "oneDNN (libdnnl)": sh("dpkg-query -W -f='${Version}' libdnnl-dev 2>/dev/null"),
        "git": sh(f"git -C {ROOT} rev-parse --short HEAD"),
    }
    load = sh("cat /proc/loadavg")
    lines = []
    lines.append("# npugap vs ONNX Runtime vs PyTorch (FP32, CPU)")
    lines.append("")
    lines.append(f"- date: {datetime.datetime.now().astimezone().isoformat(timespec='seconds')}")
    lines.append(f"- CPU: {cpu} ({ncpu} CPUs); load average when written: {load}")
    lines.append("- versions: " + ", ".join(f"{k} {v}" for k, v in versions.items() if v))
    rounds = sorted({row.get("rounds", args.rounds) for row in results}) or [args.rounds]
    lines.append(f"- models: opset {args.opset} files from scripts/gen_models.py; "
                 f"{'/'.join(map(str, rounds))} interleaved rounds (per row in the .json), each tool "
                 "process: load, 1 warm-up run, then timed runs (its median; npugap: median of "
                 "runs 2..K); table: median over rounds")
    lines.append("- ORT: intraOpNumThreads=T, interOpNumThreads=1, graphOptimizationLevel all; "
                 "ORT peak RSS includes Node.js")
    lines.append("")
    lines.append("| model | batch | threads | npugap ms | ORT ms | torch ms | npugap/ORT | "
                 "npugap peak RSS MB | ORT peak RSS MB |")
    lines.append("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for row in results:
        def cell(tool, key="ms", digits=1):
            if tool not in tools:
                return "n/a"
            v = row.get(f"{tool}_{key}")
            if v is None and row.get(f"{tool}_errors"):
                return "failed"
            return fmt(v, digits)
        ratio = row.get("ratio")
        ratio_s = "—" if ratio is None else f"{ratio:.2f}" + (" ✗" if ratio > 1.25 else "")
        lines.append(f"| {row['model']} | {row['batch']} | {row['threads']} | {cell('npugap')} | "
                     f"{cell('ort')} | {cell('torch')} | {ratio_s} | {cell('npugap', 'rss_mb', 0)} | "
                     f"{cell('ort', 'rss_mb', 0)} |")
    lines.append("")
    lines.append("Target: npugap/ORT ≤ 1.25 (✗ marks a row above it).")
    errs = [(row, t, e) for row in results for t in tools for e in row.get(f"{t}_errors", [])[:1]]
    if errs:
        lines.append("")
        lines.append("Failures (first error of each tool and row):")
        for row, t, e in errs:
            lines.append(f"- {row['model']} b{row['batch']} t{row['threads']} {t}: {e}")
    text = "\n".join(lines) + "\n"
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w") as fh:
        fh.write(text)
    with open(os.path.splitext(args.out)[0] + ".json", "w") as fh:
        json.dump({"versions": versions, "cpu": cpu, "args": vars(args), "results": results}, fh,
                  indent=1)
    return text


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--npugap", default=os.path.join(ROOT, "build", "npugap"))
    ap.add_argument("--models-dir", default=os.path.join(ROOT, "models"))
    ap.add_argument("--models", default="resnet50,mobilenet_v2,vit_b_16")
    ap.add_argument("--opset", type=int, default=17)
    ap.add_argument("--batches", default="1,8")
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--repeat", type=int, default=4,
                    help="npugap --repeat K (K-1 timed runs after a warm-up); ORT and torch get K-1 timed runs")
    ap.add_argument("--tools", default="npugap,ort,torch")
    ap.add_argument("--timeout", type=int, default=1200, help="seconds per tool process")
    ap.add_argument("--out", default=os.path.join(HERE, "results", "latest.md"))
    ap.add_argument("--report-only", action="store_true",
                    help="rewrite the table from OUT's .json without running anything")
    ap.add_argument("--resume", action="store_true",
                    help="keep the rows of OUT's .json and run only the missing configurations")
    args = ap.parse_args()
    if args.repeat < 2:
        ap.error("--repeat must be >= 2")

    tools = [t for t in args.tools.split(",") if t]
    if args.report_only:
        with open(os.path.splitext(args.out)[0] + ".json") as fh:
            print(write_report(args, tools, json.load(fh)["results"]))
        return 0
    models = [m for m in args.models.split(",") if m]
    batches = [int(b) for b in args.batches.split(",") if b]
    threads_list = [int(t) for t in args.threads.split(",") if t]
    if "npugap" in tools and not os.access(args.npugap, os.X_OK):
        sys.exit(f"npugap binary not found: {args.npugap} (or drop it with --tools ort,torch)")
    if not os.access(TIME_BIN, os.X_OK):
        sys.exit(f"{TIME_BIN} is needed for peak RSS (apt-get install time)")

    results = []
    done = {}
    json_path = os.path.splitext(args.out)[0] + ".json"
    if args.resume and os.path.exists(json_path):
        with open(json_path) as fh:
            for row in json.load(fh)["results"]:
                done[(row["model"], row["batch"], row["threads"])] = row
                results.append(row)
    any_npugap_failed = False
    for name in models:
        model_path = os.path.join(args.models_dir, f"{name}_op{args.opset}.onnx")
        if not os.path.exists(model_path):
            sys.exit(f"missing {model_path}: run scripts/gen_models.py {args.models_dir} --only {name}")
        for batch in batches:
            inp = ensure_input(args.models_dir, name, args.opset, batch)
            for threads in threads_list:
                if (name, batch, threads) in done:
                    continue
                env = dict(os.environ, OMP_NUM_THREADS=str(threads),
                           OPENBLAS_NUM_THREADS=str(threads))
                cmds = {
                    "npugap": [args.npugap, "run", model_path, "--inputs", inp, "--repeat",
                               str(args.repeat), "--threads", str(threads), "--json"],
                    "ort": ["node", os.path.join(HERE, "ort_bench.js"), model_path, inp,
                            str(threads), str(args.repeat - 1)],
                    "torch": [PYTHON, os.path.join(HERE, "torch_bench.py"), name, str(batch),
                              str(threads), str(args.repeat - 1)],
                }
                key_ms = {"npugap": "elapsed_ms", "ort": "median_ms", "torch": "median_ms"}
                times = {t: [] for t in tools}
                rss = {t: [] for t in tools}
                errors = {t: [] for t in tools}
                for r in range(args.rounds):
                    order = tools[r % len(tools):] + tools[:r % len(tools)]
                    for tool in order:
                        if errors[tool] and not times[tool]:
                            continue  # it failed in an earlier round and never worked: skip
                        obj, peak, err = timed(cmds[tool], args.timeout, env)
                        if err is None and not isinstance(obj.get(key_ms[tool]), (int, float)):
                            err = f"no {key_ms[tool]} in {json.dumps(obj)[:200]}"
                        if err is not None:
                            errors[tool].append(err)
                            print(f"  {name} b{batch} t{threads} round {r + 1} {tool}: FAILED {err}",
                                  file=sys.stderr, flush=True)
                            continue
                        times[tool].append(float(obj[key_ms[tool]]))
                        if peak is not None and tool in ("npugap", "ort"):
                            rss[tool].append(peak)
                        print(f"  {name} b{batch} t{threads} round {r + 1} {tool}: "
                              f"{obj[key_ms[tool]]:.2f} ms, peak RSS {fmt(peak, 0)} MB",
                              file=sys.stderr, flush=True)
                row = {"model": name, "batch": batch, "threads": threads}
                for tool in tools:
                    row[f"{tool}_ms"] = statistics.median(times[tool]) if times[tool] else None
                    row[f"{tool}_runs_ms"] = times[tool]
                    row[f"{tool}_rss_mb"] = statistics.median(rss[tool]) if rss[tool] else None
                    row[f"{tool}_errors"] = errors[tool]
                if "npugap" in tools and not times["npugap"]:
                    any_npugap_failed = True
                row["rounds"] = args.rounds
                row["loadavg_after"] = sh("cat /proc/loadavg")
                if row.get("npugap_ms") and row.get("ort_ms"):
                    row["ratio"] = row["npugap_ms"] / row["ort_ms"]
                results.append(row)
                write_report(args, tools, results)  # a partial table survives an interrupted run

    text = write_report(args, tools, results)
    print(text)
    return 1 if any_npugap_failed else 0


if __name__ == "__main__":
    sys.exit(main())
