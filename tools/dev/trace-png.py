#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Draws a window of an `aplog trace` timeline (Chrome trace-event JSON) as a
PNG with gnuplot: one row per CPU, each AP's phases as coloured bars, the
BSP's INIT/SIPI instants as ticks on its row. The same data Perfetto shows.

usage: trace-png.py TRACE.json OUT.png [WINDOW [TITLE]]
  WINDOW: the name of the BSP's event to draw, e.g. "round 1 online (63 APs)"
          or a prefix of it ("round 1 online", the default; "bring-up" for the
          boot-time bring-up); the first process of the file is drawn."""
import json
import os
import shutil
import subprocess
import sys
import tempfile

PHASES = [  # name in the trace, legend, colour
    ("waiting for INIT/SIPI", "waiting for INIT/SIPI", "#c8c8c8"),
    ("real mode", "real mode (trampoline)", "#d62728"),
    ("protected mode", "protected mode", "#ff7f0e"),
    ("long mode", "long mode", "#e6c200"),
    ("C entry", "C entry", "#2ca02c"),
    ("GDT/IDT", "GDT/IDT", "#17becf"),
    ("local APIC", "local APIC", "#1f77b4"),
    ("online mark", "online mark", "#9467bd"),
    ("seen by the BSP", "until the BSP sees it", "#e377c2"),
]


def main(argv):
    if len(argv) < 3:
        print(__doc__)
        return 2
    src, out = argv[1], argv[2]
    window = argv[3] if len(argv) > 3 else "round 1 online"
    with open(src) as f:
        evs = json.load(f)["traceEvents"]
    pids = sorted({e["pid"] for e in evs if e.get("ph") == "X"})
    if not pids:
        print("trace-png: no duration events in " + src, file=sys.stderr)
        return 1
    pid = pids[0]
    pname = next((e["args"]["name"] for e in evs if e.get("ph") == "M" and
                  e.get("name") == "process_name" and e["pid"] == pid), "run")
    win = next((e for e in evs if e.get("ph") == "X" and e["pid"] == pid and e["tid"] == 0
                and e["name"].startswith(window)), None)
    if win is None:
        print(f"trace-png: no BSP event named {window!r}...", file=sys.stderr)
        return 1
    t0, t1 = win["ts"], win["ts"] + win["dur"]
    inside = [e for e in evs if e.get("pid") == pid and e.get("ph") in ("X", "i")
              and t0 - 1e-6 <= e["ts"] <= t1 + 1e-6]
    ncpu = max([e["tid"] for e in inside] + [1])
    tmp = tempfile.mkdtemp()
    data = os.path.join(tmp, "bars.dat")
    blocks = 0
    with open(data, "w") as f:
        for name, _, _ in PHASES:
            rows = [e for e in inside if e["ph"] == "X" and e["tid"] and e["name"] == name]
            for e in rows:
                x0, x1 = e["ts"] - t0, e["ts"] - t0 + e["dur"]
                f.write(f"{(x0 + x1) / 2:.3f} {e['tid']} {(x1 - x0) / 2:.3f} 0.42\n")
            if not rows:
                f.write("nan nan nan nan\n")
            f.write("\n\n")
            blocks += 1
        ticks = [e for e in inside if e["ph"] == "i" and e["tid"] == 0 and e["name"].startswith("SIPI ->")]
        for e in ticks:
            f.write(f"{e['ts'] - t0:.3f} 0\n")
        if not ticks:
            f.write("nan nan\n")
    title = argv[4] if len(argv) > 4 else f"{pname}: {win['name']}, {win['dur'] / 1000:.2f} ms"
    term = "pngcairo size 1400,900 font 'Sans,11'"
    probe = subprocess.run(["gnuplot", "-e", "set terminal pngcairo"], capture_output=True, text=True) \
        if shutil.which("gnuplot") else None
    if probe is None:
        print("trace-png: gnuplot not found (apt-get install gnuplot-nox)", file=sys.stderr)
        return 1
    if probe.returncode != 0 or "unknown" in probe.stderr.lower():
        term = "png size 1400,900"
    plots = [f"'{data}' index {i} using 1:2:3:4 with boxxyerror fs solid 1.0 noborder "
             f"lc rgb '{c}' title '{legend}'" for i, (_, legend, c) in enumerate(PHASES)]
    plots.append(f"'{data}' index {blocks} using 1:2 with points pt 2 ps 0.8 lc rgb 'black' "
                 "title 'BSP: SIPI sent (row 0)'")
    script = f"""set terminal {term}
set output '{out}'
set title "{title.replace('"', "'")}"
set xlabel 'time since the BSP began ({window}), us'
set ylabel 'CPU (0: the BSP)'
set yrange [{ncpu + 1}:-1]
set xrange [0:{t1 - t0:.3f}]
set key outside right top
set grid xtics
plot {', '.join(plots)}
"""
    r = subprocess.run(["gnuplot"], input=script, text=True, capture_output=True)
    shutil.rmtree(tmp)
    if r.returncode != 0:
        print("trace-png: gnuplot failed: " + r.stderr.strip(), file=sys.stderr)
        return 1
    print(f"trace-png: {out}: {len(inside)} events of {ncpu} CPU rows, {win['name']}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
