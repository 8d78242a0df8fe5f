#!/usr/bin/python3
"""Runs the large cases of the benchmark suite through `opnn bench --device cpu` and through NumPy
in the same run, and prints per case opnn's GB/s, its fraction of the in-run read ceiling,
NumPy's GB/s and the ratio (issue 5: opnn >= 3x NumPy, >= 0.85 of the read ceiling).

usage: /usr/bin/python3 bench/compare_numpy.py [OPNN] [--reps N] [--iters N] [--json FILE]
                                               [--markdown] [--case NAME]...
  OPNN      the built `opnn` program (default: the first of build/cpu/tools/opnn,
            build/*/tools/opnn)
  --reps    NumPy: the median of N timed calls after one warm-up call (default 5)
  --iters   passed to `opnn bench` (it takes the median of at least 10)
  --json    keep opnn's JSON there (default: a temporary file)
  --markdown  print the table as markdown (for bench/RESULTS.md)
  --case    only these suite cases (default: every large case)

Bytes are counted as `opnn bench` counts them: input + output (output in the input's dtype,
kept dims of size 1). NumPy's reductions run on one thread; opnn uses every OpenMP thread.

bf16: NumPy has no bfloat16. Those cases are emulated as a NumPy user would: the data held as
uint16, widened with `(x.astype(np.uint32) << 16).view(np.float32)`, reduced in float32, and
the result narrowed back to bf16 bits; the time covers all of it and the bytes are the bf16
bytes. The rows say "emulated".

Data: uniform [-1, 1), as `opnn bench` draws it (values do not change the timing). One case is
allocated at a time (the large inputs are 1 GiB each); opnn runs first, as one subprocess over
all the cases, then NumPy case by case.

OpenBLAS: where OPENBLAS_CORETYPE / OPENBLAS_L2_SIZE are set (see the machine's environment
notes), they are removed from this process's environment before NumPy is imported; np.sum,
np.mean and np.max do not call BLAS, so this only keeps NumPy in its ordinary configuration."""
import glob
import json
import os
import platform
import subprocess
import sys
import tempfile
import time

SMALL = {"small_full", "small_rows"}  # microsecond cases: not compared
FRACTION_TARGET, NUMPY_RATIO_TARGET = 0.85, 3.0


def find_opnn(repo):
    for p in [os.path.join(repo, "build/cpu/tools/opnn")] + sorted(
            glob.glob(os.path.join(repo, "build/*/tools/opnn"))):
        if os.access(p, os.X_OK):
            return p
    sys.exit("compare_numpy.py: no built opnn found under build/; pass its path")


def parse_args(argv):
    a = {"opnn": None, "reps": 5, "iters": None, "json": None, "markdown": False, "cases": []}
    i = 0
    while i < len(argv):
        x = argv[i]
        if x in ("-h", "--help"):
            print(__doc__)
            sys.exit(0)
        elif x == "--markdown":
            a["markdown"] = True
        elif x in ("--reps", "--iters", "--json", "--case"):
            if i + 1 >= len(argv):
                sys.exit(f"compare_numpy.py: {x} needs a value")
            v = argv[i + 1]
            i += 1
            if x == "--reps":
                a["reps"] = max(1, int(v))
            elif x == "--iters":
                a["iters"] = v
            elif x == "--json":
                a["json"] = v
            else:
                a["cases"].append(v)
        elif x.startswith("-"):
            sys.exit(f"compare_numpy.py: unknown option {x}\n{__doc__}")
        else:
            a["opnn"] = x
        i += 1
    return a


def run_opnn(opnn, cases, iters, json_path):
    cmd = [opnn, "bench", "--device", "cpu", "--json", json_path]
    for c in cases:
        cmd += ["--case", c]
    if iters:
        cmd += ["--iters", iters]
    print("$ " + " ".join(cmd), flush=True)
    rc = subprocess.call(cmd)
    if rc not in (0, 1):  # 1: some case failed; its row says so
        sys.exit(f"compare_numpy.py: opnn bench exited with {rc}")
    with open(json_path) as f:
        return json.load(f)


def numpy_case(np, r, reps):
    """Median seconds of one NumPy call for result row r, and the bytes it moves."""
    shape = tuple(r["shape"])
    axis = None if r["axes"] == "all" else tuple(int(v) for v in r["axes"].split(","))
    n = 1
    for d in shape:
        n *= d
    rng = np.random.default_rng(42)
    x = rng.random(n, dtype=np.float32)
    x *= 2
    x -= 1
    if r["dtype"] == "f16":
        x = x.astype(np.float16)
    elif r["dtype"] == "bf16":
        x = (x.view(np.uint32) >> 16).astype(np.uint16)  # bf16 bits (truncated)
    elif r["dtype"] != "f32":
        raise ValueError(f"dtype {r['dtype']}")
    x = x.reshape(shape)
    fn = {"ReduceSum": np.sum, "ReduceMean": np.mean, "ReduceMax": np.max}[r["op"]]

    if r["dtype"] == "bf16":
        def call():
            wide = (x.astype(np.uint32) << 16).view(np.float32)
            y = fn(wide, axis=axis, keepdims=True)
            return (np.asarray(y, dtype=np.float32).view(np.uint32) >> 16).astype(np.uint16)
    else:
        def call():
            return fn(x, axis=axis, keepdims=True)

    y = call()  # warm-up
    t = []
    for _ in range(reps):
        t0 = time.perf_counter()
        y = call()
        t.append(time.perf_counter() - t0)
    t.sort()
    med = t[len(t) // 2] if len(t) % 2 else 0.5 * (t[len(t) // 2 - 1] + t[len(t) // 2])
    nbytes = x.nbytes + y.size * x.itemsize
    del x, y
    return med, nbytes


def main():
    repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    a = parse_args(sys.argv[1:])
    opnn = a["opnn"] or find_opnn(repo)
    names = subprocess.run([opnn, "bench", "--list"], capture_output=True, text=True,
                           check=True).stdout.split()
    cases = a["cases"] or [c for c in names if c not in SMALL]

    unset = [k for k in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE") if k in os.environ]
    for k in unset:
        del os.environ[k]  # before NumPy (and OpenBLAS) load; opnn ignores them
    t_start = time.time()
    load0 = os.getloadavg()

    if a["json"]:
        d = run_opnn(opnn, cases, a["iters"], a["json"])
    else:
        with tempfile.TemporaryDirectory() as tmp:
            d = run_opnn(opnn, cases, a["iters"], os.path.join(tmp, "bench.json"))
    t_opnn = time.time() - t_start

    import numpy as np
    print(f"\nNumPy {np.__version__} (Python {platform.python_version()}, {sys.executable}); "
          f"median of {a['reps']} calls after 1 warm-up"
          + (f"; unset {', '.join(unset)}" if unset else ""), flush=True)
    print("bf16: NumPy has no bfloat16; emulated (uint16 << 16 viewed as float32, reduced, "
          "narrowed back), marked 'emulated'\n", flush=True)

    rows = []
    ceiling = d["read_ceiling_gbps"]
    for r in d["results"]:
        if r["case"] in SMALL:
            continue
        row = dict(r)
        if r["status"] == 0:
            sec, nbytes = numpy_case(np, r, a["reps"])
            row["np_gbps"] = nbytes / sec * 1e-9
            row["ratio"] = r["gbps"] / row["np_gbps"]
        rows.append(row)
        if r["status"] == 0:
            print(f"  numpy {r['case']:<11} {r['op']:<10} {r['dtype']:<4} "
                  f"{row['np_gbps']:7.1f} GB/s", flush=True)
    t_total = time.time() - t_start

    print(f"\nmachine: {d.get('gpu') or d['device']}; in-run read ceiling {ceiling:.1f} GB/s; "
          f"opnn median of {d['iters']} runs; NumPy median of {a['reps']}")
    load1 = os.getloadavg()
    print(f"time: opnn bench {t_opnn:.0f} s, whole comparison {t_total:.0f} s; load average "
          f"(1, 5, 15 min) {load0[0]:.2f} {load0[1]:.2f} {load0[2]:.2f} at the start, "
          f"{load1[0]:.2f} {load1[1]:.2f} {load1[2]:.2f} at the end (this run adds ~2)\n")
    if a["markdown"]:
        print("| case | op | dtype | opnn GB/s | of read ceiling | NumPy GB/s | opnn / NumPy |")
        print("|---|---|---|---:|---:|---:|---:|")
    else:
        print(f"{'case':<11} {'op':<10} {'dtype':<5} {'opnn GB/s':>9} {'of ceil':>8} "
              f"{'NumPy GB/s':>10} {'ratio':>6}")
    frac_ok = ratio_ok = True
    for r in rows:
        if r["status"] != 0:
            frac_ok = ratio_ok = False
            print(f"| {r['case']} | {r['op']} | {r['dtype']} | failed (status {r['status']}) "
                  f"| | | |" if a["markdown"] else
                  f"{r['case']:<11} {r['op']:<10} {r['dtype']:<5} FAILED (status {r['status']})")
            continue
        f_ok = r["fraction"] >= FRACTION_TARGET
        q_ok = r["ratio"] >= NUMPY_RATIO_TARGET
        frac_ok &= f_ok
        ratio_ok &= q_ok
        emu = " (emulated)" if r["dtype"] == "bf16" else ""
        if a["markdown"]:
            print(f"| {r['case']} | {r['op']} | {r['dtype']} | {r['gbps']:.1f} | "
                  f"{r['fraction']:.3f}{'' if f_ok else ' **<0.85**'} | "
                  f"{r['np_gbps']:.1f}{emu} | {r['ratio']:.1f}x{'' if q_ok else ' **<3x**'} |")
        else:
            print(f"{r['case']:<11} {r['op']:<10} {r['dtype']:<5} {r['gbps']:9.1f} "
                  f"{r['fraction']:8.3f} {r['np_gbps']:10.1f} {r['ratio']:5.1f}x"
                  f"{'' if f_ok else '  <0.85 of ceiling'}{'' if q_ok else '  <3x NumPy'}{emu}")
    print(f"\ntargets: every large case >= {FRACTION_TARGET} of the read ceiling: "
          f"{'met' if frac_ok else 'NOT met'}; >= {NUMPY_RATIO_TARGET:.0f}x NumPy: "
          f"{'met' if ratio_ok else 'NOT met'}")
    return 0 if frac_ok and ratio_ok else 1


if __name__ == "__main__":
    sys.exit(main())
