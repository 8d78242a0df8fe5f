#!/usr/bin/env python3
"""Turns `opnn bench --json` files into the markdown tables of bench/RESULTS.md.

usage: bench/report.py BENCH.json [--targets]
Prints one table: case, op, dtype, shape, axes, time, GB/s, fraction of the in-run read
ceiling, the fraction of the read kernel over the case's own input bytes (where the run measured
it), and (with --targets) the issue's target and whether it is met. Small cases show
microseconds per call (event-timed and host loop)."""
import json
import sys

# Targets of the CUDA issue: >= 0.92 of the ceiling for f32, >= 0.90 for 16-bit; <= 3 us a call.
F32_TARGET, HALF_TARGET, SMALL_US = 0.92, 0.90, 3.0


def size_fraction(r):
    """GB/s (input + output, as for the ceiling) over the read kernel's GB/s at the case's input
    size (0: not measured); the same bytes as "of ceiling", only the reference differs, so a case
    with a large output (rows of 2-3) can read above 1."""
    sz = r.get("size_read_gbps", 0)
    return r["gbps"] / sz if sz > 0 else 0


def target_for(dtype):
    """The issue's fraction of the ceiling for a dtype's name."""
    return HALF_TARGET if dtype in ("f16", "bf16") else F32_TARGET


def target(r):
    return target_for(r["dtype"])


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    show_targets = "--targets" in sys.argv
    if len(args) != 1:
        sys.exit(__doc__)
    d = json.load(open(args[0]))
    print(f"Device: {d.get('gpu') or d['device']}; read ceiling {d['read_ceiling_gbps']:.0f} GB/s"
          + (f", device-to-device copy {d['copy_gbps']:.0f} GB/s" if d.get("copy_gbps") else "")
          + (f"; launch floor {d['graph_launch_us']:.2f} us a call (a graph of one empty kernel,"
             " host loop)" if d.get("graph_launch_us") else "")
          + f"; median of {d['iters']} runs.\n")
    at_size = any(r.get("size_read_gbps", 0) > 0 for r in d["results"])
    head = "| case | op | dtype | shape | axes | time | GB/s | of ceiling |"
    rule = "|---|---|---|---|---|---:|---:|---:|"
    if at_size:
        head += " of read at size |"
        rule += "---:|"
    if show_targets:
        head += " target | met |"
        rule += "---:|:-:|"
    print(head)
    print(rule)
    for r in d["results"]:
        shape = "[" + ", ".join(str(x) for x in r["shape"]) + "]"
        axes = r["axes"] if r["axes"] == "all" else "[" + r["axes"] + "]"
        if r["status"] != 0:
            print(f"| {r['case']} | {r['op']} | {r['dtype']} | {shape} | {axes} | failed "
                  f"(status {r['status']}) | | |" + (" |" if at_size else "")
                  + (" | |" if show_targets else ""))
            continue
        if r.get("host_loop_us", 0) > 0:
            line = (f"| {r['case']} | {r['op']} | {r['dtype']} | {shape} | {axes} | "
                    f"{r['time_us']:.2f} us/call (events), {r['host_loop_us']:.2f} us/call "
                    f"(host loop) | | |" + (" |" if at_size else ""))
            if show_targets:
                ok = r["host_loop_us"] <= SMALL_US
                line += f" <= {SMALL_US:.0f} us | {'yes' if ok else '**no**'} |"
        else:
            line = (f"| {r['case']} | {r['op']} | {r['dtype']} | {shape} | {axes} | "
                    f"{r['time_us']:.1f} us | {r['gbps']:.0f} | {r['fraction']:.3f} |")
            if at_size:
                f = size_fraction(r)
                line += f" {f:.3f} |" if f > 0 else " |"
            if r.get("host_bound"):
                line = line.replace(" us |", " us (host-bound) |", 1)
            if show_targets:
                t = target(r)
                ok = r["fraction"] >= t
                line += f" {t:.2f} | {'yes' if ok else '**no**'} |"
        print(line)


if __name__ == "__main__":
    main()
