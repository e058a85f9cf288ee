#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Checks a Chrome trace-event JSON written by `aplog trace` against the
logs it came from, with an independent parser (Python's json module and
its own reading of the records, sharing no code with aplog):

  - the file is JSON with a traceEvents list; every event has ph, pid, tid;
    X events have ts and dur >= 0, i events ts;
  - on every track (pid, tid) the duration events nest: each one either
    lies inside the one it starts in or starts after it ends;
  - the durations add up to the records: every @sample (apstart) has its
    event with the sample's duration (offline: settled_ns where present),
    and the phase children of an online start add up to the start within
    12 ns (each of the 11 phases is converted from ticks on its own); every
    first bring-up (@cpu boot_ns) has its event; every Linux @cpuhp record
    its event on the track of the CPU that ran it, inside its write's event,
    and every @cpuhp_write its event on the writes track.

usage: trace_check.py TRACE.json LOG...   prints one summary line; exit 1
with the first problems listed when a check fails."""
import json
import re
import sys

EPS = 0.0005  # us: aplog writes ns as us with 3 decimals
WRITES_TRACK = 1000000


def fields(line):
    return dict(t.split("=", 1) for t in line.split()[1:] if "=" in t)


def read_runs(paths):
    """The runs of the logs, in order: one per @boot."""
    runs = []
    for p in paths:
        with open(p, errors="replace") as f:
            for raw in f:
                line = raw.rstrip("\r\n")
                if not line.startswith("@"):
                    continue
                word = line.split(" ", 1)[0]
                if word == "@boot":
                    runs.append({"samples": [], "boots": [], "phases": {}, "cpuhp": [],
                                 "writes": []})
                    continue
                if not runs:
                    continue
                r, f_ = runs[-1], fields(line)
                if word == "@sample":
                    r["samples"].append(f_)
                elif word == "@cpu" and f_.get("state") == "online" and "boot_ns" in f_:
                    r["boots"].append(f_)
                elif word == "@phase":
                    r["phases"].setdefault((f_["cpu"], f_["cycle"]), {})[f_["phase"]] = f_["ns"]
                elif word == "@cpuhp":
                    r["cpuhp"].append(f_)
                elif word == "@cpuhp_write":
                    r["writes"].append(f_)
    return runs


def main(argv):
    if len(argv) < 3:
        print(__doc__)
        return 2
    with open(argv[1]) as f:
        doc = json.load(f)
    problems = []
    evs = doc.get("traceEvents")
    if not isinstance(evs, list):
        print("FAIL: no traceEvents list")
        return 1
    tracks = {}
    for i, e in enumerate(evs):
        for k in ("ph", "pid", "tid"):
            if k not in e:
                problems.append(f"event {i}: no {k}")
        ph = e.get("ph")
        if ph == "X":
            if not isinstance(e.get("ts"), (int, float)) or not isinstance(e.get("dur"), (int, float)) \
                    or e["dur"] < 0:
                problems.append(f"event {i}: X without ts/dur >= 0")
                continue
            tracks.setdefault((e["pid"], e["tid"]), []).append(e)
        elif ph == "i":
            if not isinstance(e.get("ts"), (int, float)):
                problems.append(f"event {i}: instant without ts")
        elif ph != "M":
            problems.append(f"event {i}: unexpected ph {ph!r}")

    # Nesting per track.
    for key, xs in tracks.items():
        xs.sort(key=lambda e: (e["ts"], -e["dur"]))
        stack = []
        for e in xs:
            end = e["ts"] + e["dur"]
            while stack and stack[-1] <= e["ts"] + EPS:
                stack.pop()
            if stack and end > stack[-1] + EPS:
                problems.append(f"track {key}: {e['name']!r} at {e['ts']} us (ends {end}) "
                                f"overlaps an event ending at {stack[-1]}")
            stack.append(end)

    # Durations against the records.
    runs = read_runs(argv[2:])
    matched = 0
    for pid, r in enumerate(runs, 1):
        by = {}
        for (p, t), xs in tracks.items():
            if p == pid:
                for e in xs:
                    by.setdefault((t, e["name"]), []).append(e)
        used = set()

        def take(tid, name, dur_ns, what):
            nonlocal matched
            for e in by.get((tid, name), []):
                if id(e) not in used and abs(e["dur"] - dur_ns / 1000) <= EPS:
                    used.add(id(e))
                    matched += 1
                    return e
            problems.append(f"run {pid}: {what}: no event {name!r} on track {tid} lasting {dur_ns} ns")
            return None

        if r["writes"]:
            wev = {}
            for w in r["writes"]:
                e = take(WRITES_TRACK, f"cpu{w['cpu']} {w['op']} #{w['cycle']}", int(w["ns"]),
                         "@cpuhp_write")
                if e:
                    wev[(w["cpu"], w["op"], w["cycle"])] = e
            for c in r["cpuhp"]:
                e = take(int(c["on"]), f"{c['state']} {c['name']}", int(c["ns"]), "@cpuhp")
                w = wev.get((c["cpu"], c["op"], c["cycle"]))
                if e and w and (e["ts"] < w["ts"] - EPS or e["ts"] + e["dur"] > w["ts"] + w["dur"] + EPS):
                    problems.append(f"run {pid}: @cpuhp {c['state']} of cpu{c['cpu']} {c['op']} "
                                    f"#{c['cycle']} lies outside its write")
            continue
        def children(e, cpu, cycle):
            # The phases of a start (its children on the AP's track) add
            # up to it, and to the @phase records.
            ph = r["phases"].get((cpu, cycle))
            if not e or not ph or not all(re.fullmatch(r"\d+", v) for v in ph.values()):
                return
            kids = [k for k in tracks[(pid, int(cpu))]
                    if k is not e and k["ts"] >= e["ts"] - EPS
                    and k["ts"] + k["dur"] <= e["ts"] + e["dur"] + EPS]
            total = sum(k["dur"] for k in kids)
            if abs(total - e["dur"]) > 0.012 + EPS:
                problems.append(f"run {pid}: cpu{cpu} start #{cycle}: its {len(kids)} phases "
                                f"add up to {total:.3f} us, not {e['dur']:.3f}")
            want = sum(int(ph[p]) for p in ph if p != "sipi2")
            if abs(total * 1000 - want) > 12:
                problems.append(f"run {pid}: cpu{cpu} start #{cycle}: phases {total:.3f} us "
                                f"in the trace, {want} ns in @phase")

        for b in r["boots"]:
            e = take(int(b["cpu"]), "bring-up", int(b["boot_ns"]), "@cpu boot_ns")
            children(e, b["cpu"], "0")
        for s in r["samples"]:
            if s["op"] == "online":
                e = take(int(s["cpu"]), f"online #{s['cycle']}", int(s["ns"]), "@sample online")
                children(e, s["cpu"], s["cycle"])
            else:
                fig = s.get("settled_ns", s["ns"])
                fig = fig if re.fullmatch(r"\d+", fig) else s["ns"]
                take(int(s["cpu"]), f"offline #{s['cycle']}", int(fig), "@sample offline")

    ntracks = len(tracks)
    if problems:
        print(f"FAIL: {len(problems)} problem(s) in {len(evs)} events, {ntracks} tracks:")
        for p in problems[:15]:
            print("  " + p)
        return 1
    print(f"ok: {len(evs)} events, {ntracks} tracks nest; {matched} records matched "
          f"to their events in {len(runs)} run(s)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
