#!/usr/bin/python3
"""Prints the union of ONNX op types used by the models of a gen_models.py manifest.

Usage: python3 scripts/list_model_ops.py MANIFEST [--by-model] [--markdown]

Default output: one op type a line, each followed by the models (name_opN) that use it.
--by-model adds the op list of each model; --markdown prints a table for the docs.
Needs only the standard library.
"""

import argparse
import json
import sys


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("manifest")
    ap.add_argument("--by-model", action="store_true")
    ap.add_argument("--markdown", action="store_true")
    args = ap.parse_args()
    with open(args.manifest) as fh:
        manifest = json.load(fh)

    users = {}
    for e in manifest["models"]:
        for op in e["op_types"]:
            users.setdefault(op, []).append(f"{e['name']}_op{e['opset']}")
    ops = sorted(users)

    if args.markdown:
        print("| op type | used by |")
        print("| --- | --- |")
        for op in ops:
            print(f"| {op} | {', '.join(users[op])} |")
    else:
        width = max((len(op) for op in ops), default=0)
        for op in ops:
            print(f"{op:<{width}}  {', '.join(users[op])}")
    print(f"\n{len(ops)} op types in {len(manifest['models'])} models: {', '.join(ops)}")
    if args.by_model:
        print()
        for e in manifest["models"]:
            print(f"{e['name']}_op{e['opset']}: {', '.join(e['op_types'])}")
    for s in manifest.get("skipped", []):
        print(f"(not exported: {s['name']} opset {s['opset']}: {s['reason']})", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
