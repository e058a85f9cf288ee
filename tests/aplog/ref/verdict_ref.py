#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""An independent check of aplog compare's run-level intervals: its own
reading of the logs (per-run totals of @sample ns between @boot and @end),
Welch's interval from scipy, and the rows aplog printed.

  verdict_ref.py APLOG A.log B.log   -> protocol lines (ok/FAIL/skip)

Exit 0 when every row's change and interval match within 0.1 points
(aplog prints one decimal), 1 otherwise, 3 when scipy is missing."""
import re
import subprocess
import sys

try:
    import numpy as np
    from scipy import stats
except ImportError:
    print("skip verdict reference: python3-scipy is not installed")
    sys.exit(3)


def runs(path):
    """Per-run (offline, online) totals of the runs that passed."""
    out, cur = [], None
    for line in open(path):
        w = line.split()
        if not w:
            continue
        if w[0] == "@boot":
            cur = [0, 0]
        elif w[0] == "@sample" and cur is not None:
            kv = dict(x.split("=", 1) for x in w[1:])
            cur[0 if kv["op"] == "offline" else 1] += int(kv["ns"])
        elif w[0] == "@end" and cur is not None:
            if "status=pass" in w:
                out.append(cur)
            cur = None
    return out


def welch(a, b):
    a, b = np.array(a, float), np.array(b, float)
    va, vb = a.var(ddof=1) / len(a), b.var(ddof=1) / len(b)
    d, se = b.mean() - a.mean(), np.sqrt(va + vb)
    if se == 0:
        return 100 * d / a.mean(), 100 * d / a.mean(), 100 * d / a.mean()
    df = (va + vb) ** 2 / (va ** 2 / (len(a) - 1) + vb ** 2 / (len(b) - 1))
    t = stats.t.ppf(0.975, df)
    # the same interval from scipy's own test: its p < 0.05 iff 0 is outside
    p = stats.ttest_ind(b, a, equal_var=False).pvalue
    lo, hi = max((d - t * se) / a.mean(), -1.0), (d + t * se) / a.mean()  # aplog cuts at -100%
    assert (p < 0.05) == (lo > 0 or hi < 0), "interval and Welch test disagree"
    return 100 * d / a.mean(), 100 * lo, 100 * hi


aplog, fa, fb = sys.argv[1:4]
ra, rb = runs(fa), runs(fb)
out = subprocess.run([aplog, "compare", fa, "--", fb], capture_output=True,
                     text=True).stdout
fails = 0
for k, name in enumerate(["Offline", "Online", "Total"]):
    a = [r[0] + r[1] if k == 2 else r[k] for r in ra]
    b = [r[0] + r[1] if k == 2 else r[k] for r in rb]
    ch, lo, hi = welch(a, b)
    m = re.search(r"^%s: .*\(([-+][0-9.]+)%%, 95%% CI ([-+][0-9.]+)\.\.([-+][0-9.]+)%%\)" % name,
                  out, re.M)
    what = "verdict reference %s -- %s: %s change %+.2f%%, CI %+.2f..%+.2f%% (scipy)" % (
        fa.split("/")[-1], fb.split("/")[-1], name, ch, lo, hi)
    if not m:
        print("FAIL %s: aplog printed no interval for the row" % what)
        fails += 1
        continue
    got = [float(x) for x in m.groups()]
    if all(abs(g - w) <= 0.1 for g, w in zip(got, (ch, lo, hi))):
        print("ok   %s; aplog %+.1f%%, %+.1f..%+.1f%%" % (what, *got))
    else:
        print("FAIL %s: aplog says %+.1f%%, %+.1f..%+.1f%%" % (what, *got))
        fails += 1
sys.exit(1 if fails else 0)
