#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Checks wings/screen/qr.c, through tests/qr/qrtool, against an independent
encoder (Debian's python3-qrcode, which can force version, level and mask)
and a decoder (zbarimg from zbar-tools).

Prints "ok   NAME" / "FAIL NAME: WHY" per check; tests/qr/run.sh counts them.

  check.py --tool build/host/qrtool --tool-asan build/host/qrtool_asan \
           --font /usr/share/seabios/vgabios-stdvga.bin --tmp DIR
"""
import argparse
import functools
import os
import random
import subprocess
import sys

try:
    import qrcode
    import qrcode.exceptions
    import qrcode.util
    from qrcode.constants import ERROR_CORRECT_L, ERROR_CORRECT_M
except ImportError:
    qrcode = None

LEVEL = {"L": None, "M": None}
INSTALL = "apt-get install python3-qrcode zbar-tools"


def report(name, why=None):
    if why:
        print(f"FAIL {name}: {why}", flush=True)
    else:
        print(f"ok   {name}", flush=True)


def reference(data, level, version, mask, cache={}):
    """python3-qrcode's symbol, byte mode forced (no mode optimisation).
    One QRCode object per payload: it keeps its codewords (data_cache)
    across masks, which saves redoing its slow Reed-Solomon."""
    key = (data, level, version)
    if key not in cache:
        cache.clear()
        q = qrcode.QRCode(version=version, error_correction=LEVEL[level], border=0)
        q.add_data(qrcode.util.QRData(data, mode=qrcode.util.MODE_8BIT_BYTE,
                                      check_data=False))
        cache[key] = q
    q = cache[key]
    q.mask_pattern = mask
    q.make(fit=False)
    return q


def reference_version(data, level):
    q = qrcode.QRCode(error_correction=LEVEL[level])
    q.add_data(qrcode.util.QRData(data, mode=qrcode.util.MODE_8BIT_BYTE,
                                  check_data=False))
    try:
        return q.best_fit()
    except (qrcode.exceptions.DataOverflowError, ValueError):
        # Too long for version 40 (7.4.2 raises ValueError past 40).
        return None


def bits_of(q):
    return "".join("1" if m else "0" for row in q.modules for m in row)


def run_batch(tool, cases):
    """cases: (level, min_v, max_v, mask, data) -> one parsed line each."""
    inp = "".join(f"{lv} {a} {b} {m} {d.hex() or '-'}\n"
                  for lv, a, b, m, d in cases)
    out = subprocess.run([tool, "batch"], input=inp, capture_output=True,
                         text=True, timeout=120)
    if out.returncode != 0:
        raise RuntimeError(f"{tool} batch exit {out.returncode}: {out.stderr.strip()}")
    lines = out.stdout.splitlines()
    if len(lines) != len(cases):
        raise RuntimeError(f"{tool} batch: {len(lines)} lines for {len(cases)} cases")
    res = []
    for line in lines:
        f = line.split()
        if f[0] == "ok":
            res.append({"version": int(f[1]), "mask": int(f[2]),
                        "penalty": int(f[3]), "bits": f[4]})
        else:
            res.append({"error": f[1]})
    return res, out.stdout


@functools.lru_cache(maxsize=None)
def capacity(v, level):
    """Byte capacity from python3-qrcode's own tables: its data bits for the
    version and level, less the byte-mode header."""
    bits = qrcode.util.BIT_LIMIT_TABLE[LEVEL[level]][v]
    return (bits - 4 - qrcode.util.length_in_bits(qrcode.util.MODE_8BIT_BYTE, v)) // 8


def records_text(rng, limit):
    """apstart-style records, as many per-CPU lines as fit in limit bytes."""
    ncpu = rng.randrange(2, 480)
    head = [
        f"@boot kernel=apstart version=0.1 wbinvd={rng.randrange(2)} slow_tramp_ns=0 "
        f"cpus={ncpu} x2apic=1 tsc_khz={rng.randrange(1000000, 4000000)} "
        f"tsc_source=cpuid tramp=0x8000 firmware={rng.choice(['bios', 'uefi'])} "
        f"protocol=mb2 cycles={rng.randrange(1, 11)}",
        f"@env cpu=\"Intel(R) Xeon(R) 6985P-C\" park=linux bringup=serial",
    ]
    for op in ("offline", "online"):
        head.append(f"@summary op={op} cpus={ncpu - 1} cycles=10 "
                    f"total_ns={rng.randrange(10**6, 10**11)} "
                    f"mean_ns={rng.randrange(10**3, 10**8)} "
                    f"median_ns={rng.randrange(10**3, 10**8)} "
                    f"min_ns={rng.randrange(10**3, 10**6)} max_ns={rng.randrange(10**6, 10**8)}")
    end = f"@end status=pass online={ncpu} failed=0"
    text = "\n".join(head) + "\n"
    for cpu in range(1, ncpu):
        line = (f"@cpu cpu={cpu} apic={cpu * 2} off_ns={rng.randrange(10**3, 10**8)} "
                f"on_ns={rng.randrange(10**3, 10**8)}\n")
        if len(text) + len(line) + len(end) + 1 > limit:
            break
        text += line
    text += end + "\n"
    return text.encode()[:limit]


def zbar(path):
    out = subprocess.run(["zbarimg", "-q", "--raw", "-Sbinary", path],
                         capture_output=True, timeout=60)
    return out.returncode, out.stdout


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tool", required=True)
    ap.add_argument("--tool-asan", required=True)
    ap.add_argument("--font", required=True)
    ap.add_argument("--tmp", required=True)
    args = ap.parse_args()

    if qrcode is None:
        report("python3-qrcode importable", f"missing: {INSTALL}")
        return
    LEVEL["L"], LEVEL["M"] = ERROR_CORRECT_L, ERROR_CORRECT_M
    rng = random.Random(20240914)

    # Per version and level: one payload with all 8 masks and the automatic
    # mask, plus a full one and an empty one, all at that version.
    cases, meta = [], []
    for v in range(1, 41):
        for lv in "LM":
            cap = capacity(v, lv)
            payload = bytes(rng.randrange(256) for _ in range(rng.randrange(1, cap + 1)))
            for m in range(8):
                cases.append((lv, v, v, m, payload))
                meta.append(("mask", v, lv, m))
            cases.append((lv, v, v, -1, payload))
            meta.append(("auto", v, lv, -1))
            full = bytes(rng.randrange(256) for _ in range(cap))
            cases.append((lv, v, v, v % 8, full))
            meta.append(("full", v, lv, v % 8))
            cases.append((lv, v, v, (v + 3) % 8, b""))
            meta.append(("empty", v, lv, (v + 3) % 8))
            cases.append((lv, v, v, 0, full + b"!"))
            meta.append(("over", v, lv, cap))
    try:
        res, raw = run_batch(args.tool, cases)
    except Exception as e:  # the whole comparison depends on it
        report("qrtool batch runs", str(e))
        return

    for v in range(1, 41):
        for lv in "LM":
            name = f"v{v:02d}-{lv}: 8 masks, full, empty = python3-qrcode; penalties; auto mask"
            why = None
            penalties = [None] * 8
            forced = [None] * 8
            for (lvl, a, b, m, data), (kind, mv, mlv, mm), r in zip(cases, meta, res):
                if mv != v or mlv != lv or why:
                    continue
                if kind == "over":
                    if r.get("error") != "too_long":
                        why = f"{len(data)} bytes (capacity + 1) gave {r}"
                    continue
                if "error" in r:
                    why = f"{kind} payload, mask {m}: error {r['error']}"
                    continue
                if kind == "auto":
                    auto = r
                    continue
                q = reference(data, lv, v, m)
                if r["version"] != v or r["mask"] != m:
                    why = f"{kind} payload: version/mask {r['version']}/{r['mask']}, asked {v}/{m}"
                elif r["bits"] != bits_of(q):
                    diff = sum(x != y for x, y in zip(r["bits"], bits_of(q)))
                    why = f"{kind} payload, mask {m} ({len(data)} bytes): {diff} modules differ"
                elif r["penalty"] != qrcode.util.lost_point(q.modules):
                    why = (f"{kind} payload, mask {m}: penalty {r['penalty']}, python3-qrcode "
                           f"lost_point {qrcode.util.lost_point(q.modules)}")
                if kind == "mask":
                    penalties[m] = r["penalty"]
                    forced[m] = r["bits"]
            if not why:
                best = min(range(8), key=lambda m: (penalties[m], m))
                if auto["mask"] != best or auto["bits"] != forced[best]:
                    why = (f"auto mask {auto['mask']}, lowest penalty is mask {best} "
                           f"({penalties})")
            report(name, why)

    for lv in "LM":
        why = None
        for v in range(1, 41):
            want = capacity(v, lv)
            ok = subprocess.run([args.tool, "batch"], capture_output=True, text=True,
                                input=f"{lv} {v} {v} 0 {'61' * want}\n"
                                      f"{lv} {v} {v} 0 {'61' * (want + 1)}\n").stdout.split("\n")
            if not ok[0].startswith("ok ") or not ok[1].startswith("err too_long"):
                why = f"v{v}: python3-qrcode fits {want} bytes, qrtool says {ok[:2]}"
                break
        report(f"byte capacity of v1-40 at {lv} = python3-qrcode's", why)

    # Smallest version: every capacity boundary and random lengths.
    for lv in "LM":
        lens = sorted({n for v in range(1, 41) for c in [capacity(v, lv)] for n in (c, c + 1)} |
                      {rng.randrange(0, 3000) for _ in range(40)} | {0})
        datas = [bytes(rng.randrange(256) for _ in range(n)) for n in lens]
        got, _ = run_batch(args.tool, [(lv, 1, 40, -1, d) for d in datas])
        why = None
        for d, r in zip(datas, got):
            want = reference_version(d, lv)
            have = r.get("version")
            if want != have or (want is None and r.get("error") != "too_long"):
                why = f"{len(d)} bytes: version {have or r.get('error')}, python3-qrcode {want}"
                break
        report(f"smallest version for {len(lens)} lengths 0-2999 at {lv} = python3-qrcode's", why)

    try:
        _, raw_asan = run_batch(args.tool_asan, cases)
        report(f"ASan/UBSan build encodes the {len(cases)} symbols identically",
               None if raw_asan == raw else "output differs from the plain build")
    except Exception as e:
        report(f"ASan/UBSan build encodes the {len(cases)} symbols identically", str(e))

    # Decode round trips with zbarimg.
    if subprocess.run(["sh", "-c", "command -v zbarimg"], capture_output=True).returncode:
        report("zbarimg present", f"missing: {INSTALL}")
        return

    def round_trip(name, cmd, data):
        path = os.path.join(args.tmp, f"qr{round_trip.n}.pbm")
        round_trip.n += 1
        out = subprocess.run(cmd[:1] + [c if c != "OUT" else path for c in cmd[1:]]
                             + [data.hex() or "-"], capture_output=True, text=True, timeout=60)
        if out.returncode:
            report(name, f"qrtool: {out.stderr.strip()}")
            return
        v, m, cap = out.stdout.split()
        rc, got = zbar(path)
        full = f"{name} -> v{v} mask {m}, {len(data)}/{cap} bytes"
        if rc or got != data:
            report(full, f"zbarimg exit {rc}, decoded {len(got)} bytes"
                         f"{'' if rc else ' that differ'} ({path} kept)")
        else:
            report(full)
            os.unlink(path)
    round_trip.n = 0

    # 80x25 text: the largest version for the quiet zone, full of data.
    for quiet, version in ((2, 7), (4, 6)):
        for lv in "LM":
            cap = capacity(version, lv)
            tool = [args.tool_asan, "text", args.font, "OUT", lv, str(quiet)]
            round_trip(f"zbarimg: 80x25 VGA text, quiet {quiet}, {lv}, random bytes", tool,
                       bytes(rng.randrange(256) for _ in range(cap)))
            round_trip(f"zbarimg: 80x25 VGA text, quiet {quiet}, {lv}, records", tool,
                       records_text(rng, cap))
    # Framebuffers: largest symbol at small scales, smaller ones at larger.
    for w, h in ((800, 600), (1024, 768), (1280, 800)):
        for scale, lv, kind in ((2, "L", "full"), (3, "M", "records"), (4, "L", "random")):
            top = max(v for v in range(1, 41) if v * 4 + 17 + 8 <= h // scale)
            cap = capacity(top, lv)
            if kind == "full":
                data = bytes(rng.randrange(256) for _ in range(cap))
            elif kind == "records":
                data = records_text(rng, cap)
            else:
                data = bytes(rng.randrange(256) for _ in range(rng.randrange(1, cap)))
            round_trip(f"zbarimg: {w}x{h} framebuffer, scale {scale}, {lv}, {kind}",
                       [args.tool_asan, "fb", str(w), str(h), str(scale), "OUT", lv], data)


if __name__ == "__main__":
    main()
