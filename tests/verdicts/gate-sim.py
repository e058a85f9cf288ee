#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""How often would the wall-clock gate miss the slowdown it sizes?

tests/timing/wall.sh sizes its proof from the host's own A/A (WBINVD=0
against a copy of itself) and must then flag the slowed build. This
replays that rule many times on measured noise: each FILE holds one gate
run's A/A ratios, one round a line, "ONLINE OFFLINE" (the copy's per-run
median over the first's; '#' lines are comments; tests/verdicts/gate-aa/
has this project's). Per row, a simulated gate draws its calibration
pairs and its gate pairs from those ratios (with replacement), sizes the
change as wall.sh does, takes a slowed run's ratio as the change times an
A/A ratio, and runs the rounds as wall.sh does: --rounds, then six more
while not flagged, up to --max-rounds. It prints how often the sized
change was missed, how large it was, and how many rounds it took.

    gate-sim.py [--trials N] [--seed S] [--cal 9] [--rounds 6]
                [--max-rounds 36] [--spreads 3] [--margin 5] FILE...

The spin's cap (1 ms) is not modelled: it only binds far above the
path's own length. Standard library only."""
import argparse
import math
import random
import sys
from math import comb

_k_cache = {}


def sign_k(n):
    """aplog's sign test (tools/aplog/cmd_compare.c): the k-th smallest
    and largest of n ratios bound the median's 95% interval, k the
    largest with P(Binomial(n, 1/2) < k) <= 2.5%."""
    if n not in _k_cache:
        k = 0
        while k < n and sum(comb(n, i) for i in range(k + 1)) / 2 ** n <= 0.025:
            k += 1
        _k_cache[n] = k
    return _k_cache[n]


def interval(ratios):
    r = sorted(ratios)
    k = sign_k(len(r))
    if k == 0:
        return None
    return r[k - 1], r[len(r) - k]


def sized_change(cal, margin, spreads):
    """wall.sh's size_spin: 1 + d = (1 + margin) * w^spreads, at least
    1 + 2 * margin, w = max(hi, 1/lo) of the A/A's interval."""
    lo, hi = interval(cal)
    w = max(hi, 1 / lo)
    return max((1 + margin) * w ** spreads, 1 + 2 * margin)


def one_gate(aa, a):
    m = a.margin / 100
    f = sized_change([random.choice(aa) for _ in range(a.cal)], m, a.spreads)
    slow = [f * random.choice(aa) for _ in range(a.rounds)]
    while interval(slow)[0] <= 1 + m and len(slow) < a.max_rounds:
        slow += [f * random.choice(aa) for _ in range(min(6, a.max_rounds - len(slow)))]
    return interval(slow)[0] <= 1 + m, f - 1, len(slow)


def read_ratios(path):
    rows = ([], [])
    with open(path) as fh:
        for line in fh:
            line = line.split('#', 1)[0].split()
            if not line:
                continue
            if len(line) != 2:
                sys.exit(f"gate-sim: {path}: want two ratios a line, got {' '.join(line)!r}")
            for i in (0, 1):
                rows[i].append(float(line[i]))
    if not rows[0]:
        sys.exit(f"gate-sim: {path}: no ratios")
    return rows


def main():
    p = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    p.add_argument('--trials', type=int, default=10000)
    p.add_argument('--seed', type=int, default=1)
    p.add_argument('--cal', type=int, default=9)
    p.add_argument('--rounds', type=int, default=6)
    p.add_argument('--max-rounds', type=int, default=36)
    p.add_argument('--spreads', type=float, default=3)
    p.add_argument('--margin', type=float, default=5)
    p.add_argument('files', nargs='+')
    a = p.parse_args()
    if a.cal < 6 or a.rounds < 6 or a.max_rounds < a.rounds:
        sys.exit("gate-sim: --cal and --rounds need 6 or more (a sign-test interval), --max-rounds >= --rounds")
    random.seed(a.seed)
    print(f"{a.trials} simulated gates per row: {a.cal} calibration rounds, {a.rounds} rounds, "
          f"up to {a.max_rounds}, sized {a.spreads:g} spreads above +{a.margin:g}%")
    misses = []
    for path in a.files:
        for row, aa in zip(('online', 'offline'), read_ratios(path)):
            runs = [one_gate(aa, a) for _ in range(a.trials)]
            miss = sum(r[0] for r in runs) / a.trials
            sizes = sorted(r[1] for r in runs)
            misses.append(miss)
            print(f"{path} {row}: {len(aa)} A/A pairs; sized change median +{100 * sizes[len(sizes) // 2]:.0f}%"
                  f" (95th percentile +{100 * sizes[int(len(sizes) * 0.95)]:.0f}%),"
                  f" {sum(r[2] for r in runs) / a.trials:.1f} rounds on average;"
                  f" missed in {1e4 * miss:.1f} of 10 000")
    print(f"missed: {1e4 * sum(misses) / len(misses):.1f} of 10 000 on average over {len(misses)} rows,"
          f" {1e4 * max(misses):.1f} at most")


if __name__ == '__main__':
    main()
