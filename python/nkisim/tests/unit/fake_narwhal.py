"""A stand-in for the narwhal binary in nkisim's own unit tests.

It takes `run FILE --kernel K --inputs IN --outputs OUT [--arg N=E]...
[--grid A,B] [--path D]...` (and any other flag, recorded), appends its
argv and a description of the input arrays (name -> [dtype.str,
dtype.descr, shape]) and the traced file's text as one JSON line to $FAKE_NARWHAL_LOG, then executes
the Python source in $FAKE_NARWHAL_PLAN with `inputs` (name -> array as
read), `args` (name -> EXPR), `grid`, `kernel`, `file`, `np` and an empty
`outputs` dict, and writes `outputs` to OUT. A plan may instead set
`stderr` and `status` to fail the way narwhal fails. Test-only: it traces
nothing.
"""
import json
import os
import sys

import numpy as np


def main(argv):
    if not argv or argv[0] != "run":
        print("fake narwhal: want `run`", file=sys.stderr)
        return 101
    file = argv[1]
    flags = {"--arg": [], "--path": [], "other": []}
    i = 2
    while i < len(argv):
        a = argv[i]
        if a in ("--kernel", "--inputs", "--outputs", "--grid", "--arch"):
            flags[a] = argv[i + 1]
            i += 2
        elif a in ("--arg", "--path"):
            flags[a].append(argv[i + 1])
            i += 2
        else:
            flags["other"].append(a)
            i += 1
    inputs = {}
    if "--inputs" in flags:
        with np.load(flags["--inputs"], allow_pickle=False) as z:
            inputs = {k: z[k] for k in z.files}
    log = os.environ.get("FAKE_NARWHAL_LOG")
    if log:
        desc = {k: [v.dtype.str, str(v.dtype.descr), list(v.shape)] for k, v in inputs.items()}
        with open(file) as f:
            source = f.read()
        with open(log, "a") as f:
            f.write(json.dumps({"argv": argv, "inputs": desc, "source": source}) + "\n")
    args = dict(a.split("=", 1) for a in flags["--arg"])
    grid = [int(g) for g in flags["--grid"].split(",")] if "--grid" in flags else None
    ns = {"np": np, "inputs": inputs, "args": args, "grid": grid, "kernel": flags.get("--kernel"),
          "file": file, "outputs": {}}
    exec(os.environ.get("FAKE_NARWHAL_PLAN", ""), ns)
    if "status" in ns:
        sys.stderr.write(ns.get("stderr", ""))
        return ns["status"]
    if ns.get("stdout"):
        sys.stdout.write(ns["stdout"])
    if "--outputs" in flags and ns["outputs"]:
        np.savez(flags["--outputs"], **ns["outputs"])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
