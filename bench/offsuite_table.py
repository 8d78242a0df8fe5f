#!/usr/bin/env python3
"""Turns the lines of the offsuite stage (bench/run_gpu.sh: "[S] axes [A] D: custom ...") into
the markdown table of bench/RESULTS.md's "Shapes off the suite".

usage: bench/offsuite_table.py OFFSUITE.txt [--before FILE]
Prints the table (shape, axes, dtype, time, GB/s, fraction of the in-run read ceiling and of the
read kernel at the shape's size, whether the target is met against the ceiling, and the time and
fraction of read at size of FILE's run of the same shape, or "-"), then on stderr how many
shapes miss the target against each reference. FILE is another OFFSUITE.txt, or a RESULTS.md
(the first table of this form in it, that is the newest session's)."""
import re
import sys

from report import target_for  # the CUDA issue's targets (bench/report.py)

LINE = re.compile(r"\[([^\]]*)\] axes \[([^\]]*)\] (\w+): custom\s+\S+\s+\S+\s+([\d.]+) us\s+"
                  r"(\d+) GB/s\s+([\d.]+) of ceiling\s+([\d.]+) of read at size")
# a row of a table in RESULTS.md (a time may carry a mark, " *", that the table explains)
ROW = re.compile(r"\| (\[[^\]]*\]) \| (\[[^\]]*\]) \| (\w+) \| ([\d.]+) us(?: \*)? \| \d+ \| "
                 r"[\d.]+ \| ([\d.]+) \|")


def bracket(dims):
    return "[" + ", ".join(d.strip() for d in dims.split(",") if d.strip()) + "]"


def read_lines(path):
    """(shape, axes, dtype) -> (us, GB/s, of ceiling, of read at size), in file order."""
    out = {}
    for line in open(path):
        m = LINE.search(line)
        if m:
            out[(bracket(m[1]), bracket(m[2]), m[3])] = (float(m[4]), int(m[5]), float(m[6]),
                                                         float(m[7]))
    return out


def read_before(path):
    """(shape, axes, dtype) -> (us, of read at size) from offsuite lines or a RESULTS.md."""
    lines = read_lines(path)
    if lines:
        return {k: (v[0], v[3]) for k, v in lines.items()}
    out, seen = {}, False
    for line in open(path):
        m = ROW.match(line)
        if m:
            seen = True
            out.setdefault((m[1], m[2], m[3]), (float(m[4]), float(m[5])))
        elif seen and not line.startswith("|"):
            break
    return out


def main():
    args = sys.argv[1:]
    before = {}
    if "--before" in args:
        i = args.index("--before")
        if i + 1 >= len(args):
            sys.exit(__doc__)
        before = read_before(args[i + 1])
        del args[i:i + 2]
    if len(args) != 1:
        sys.exit(__doc__)
    rows = read_lines(args[0])
    if not rows:
        sys.exit(f"{args[0]}: no offsuite lines")
    print("| shape | axes | dtype | time | GB/s | of ceiling | of read at size | target met "
          "| before |")
    print("|---|---|---|---:|---:|---:|---:|:-:|---:|")
    below_ceiling = below_size = 0
    for key, (us, gbps, ceil, size) in rows.items():
        target = target_for(key[2])
        below_ceiling += ceil < target
        below_size += size < target
        b = before.get(key)
        was = f"{b[0]} us, {b[1]:.3f}" if b else "-"
        print(f"| {key[0]} | {key[1]} | {key[2]} | {us} us | {gbps} | {ceil:.3f} | {size:.3f} | "
              f"{'yes' if ceil >= target else 'no'} | {was} |")
    print(f"{len(rows)} shapes; below target against the ceiling {below_ceiling}, against read at "
          f"size {below_size}", file=sys.stderr)


if __name__ == "__main__":
    main()
