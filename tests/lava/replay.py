#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Replay recorded apstart consoles through the LAVA monitors, no QEMU.

  replay.py [--monitors FILE] [--runs N] [--seed S] [--print] LOG...

LAVA's monitor action (lava_dispatcher/actions/test/monitor.py) matches
with pexpect as the console arrives: it waits for each monitor's start,
then expects [EOF, TIMEOUT, end, pattern] until the end string, and makes
a test case of every pattern match (fixupdict, case id as LAVA forms it).
This runs that loop over pexpect itself (python3-pexpect, the matcher
LAVA uses, with LAVA's window: searchwindowsize 4000, reads of at most
2000 characters), fed from a recorded log cut at random points: whole,
one character at a time, and N random cuttings (seeded: a failure names
its seed). Every cutting must give exactly the cases that LOG.expected
lists, which a plain line-by-line reading of the log must give too.
--print writes that line-by-line reading (to make a LOG.expected).
A last check proves the replay can fail: two fragile variants of the
monitors (a pattern without its closing delimiter, an optional part)
must lose or change a case under some cutting of the first log.
Output: the test protocol (tests/protocol.sh); exit 1 on any failure."""
import argparse
import copy
import os
import random
import re
import sys

import pexpect
import pexpect.spawnbase
import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
MAXREAD = 2000       # lava_dispatcher/shell.py ShellCommand: maxread=window (2000)
WINDOW = 4000        # ... and searchwindowsize=4000


class Replay(pexpect.spawnbase.SpawnBase):
    """A pexpect spawn whose reads return the given pieces of a log."""

    def __init__(self, pieces):
        # The pieces are all here: a timeout can only be the host's
        # slowness (5 s ran out under a load of 8 on 2 cores), never the
        # log's; the log's end is EOF.
        super().__init__(timeout=120, maxread=MAXREAD, searchwindowsize=WINDOW,
                         encoding='utf-8', codec_errors='replace')
        self.pieces = list(reversed(pieces))

    def read_nonblocking(self, size=1, timeout=None):
        if not self.pieces:
            self.flag_eof = True
            raise pexpect.EOF('end of the recorded log')
        piece = self.pieces.pop()
        if len(piece) > size:
            self.pieces.append(piece[size:])
            piece = piece[:size]
        s = self._decoder.decode(piece, final=False)
        self._log(s, 'read')
        return s


class MonitorError(Exception):
    pass


def run_monitors(monitors, pieces):
    """LAVA's TestMonitorAction.run/check_patterns over the pieces: the
    list of cases (suite, case, result, measurement, units)."""
    conn = Replay(pieces)
    cases = []
    for m in monitors:
        try:
            conn.expect(m['start'])
        except pexpect.EOF:
            raise MonitorError('%s: start %r never seen' % (m['name'], m['start']))
        patterns = [pexpect.EOF, pexpect.TIMEOUT, m['end'], m['pattern']]
        fixup = m.get('fixupdict') or {}
        while True:
            i = conn.expect(patterns)
            if i == 0:
                raise MonitorError('%s: end of file before the end string %r'
                                   % (m['name'], m['end']))
            if i == 2:
                break
            match = conn.match.groupdict()
            suite = m['name'].replace(' ', '-').lower()
            if 'result' in match:
                result = fixup.get(match['result'], match['result'])
                if result not in ('pass', 'fail', 'skip', 'unknown'):
                    continue  # LAVA logs "bad test results" and drops the case
                if 'test_case_id' not in match:
                    continue
            elif all(k in match for k in ('test_case_id', 'measurement')) and \
                    match['measurement'] and match['test_case_id']:
                result = 'pass'
            else:
                continue
            case = re.sub(r'\W+', '_', match['test_case_id'].strip().lower())
            meas = match.get('measurement')
            cases.append((suite, case, result,
                          str(float(meas)) if meas is not None else None,
                          match.get('units')))
    return cases


def read_lines(text):
    """The cases a line-by-line reading gives (what the monitors mean)."""
    cases, phase = [], 'ap'
    for line in text.replace('\r', '').split('\n'):
        w = line.split(' ')
        kv = dict(x.split('=', 1) for x in w[1:] if '=' in x)
        if phase == 'ap' and w[0] in ('@cpusum', '@summary', '@end'):
            phase = 'summary'
        if phase == 'summary' and w[0] == '@end':
            phase = 'end'
        if phase == 'ap' and w[0] == '@cpu' and kv.get('state') in ('online', 'skipped'):
            cases.append(('apstart-ap', 'apic_' + kv['apic'],
                          'pass' if kv['state'] == 'online' else 'skip', None, None))
        elif phase == 'ap' and w[0] == '@fail' and 'apic' in kv and 'what' in kv:
            cases.append(('apstart-ap', 'apic_' + kv['apic'], 'fail', None, None))
        elif phase == 'summary' and w[0] == '@summary' and 'op' in kv:
            cases.append(('apstart-summary', 'op_' + kv['op'], 'pass',
                          str(float(kv['median_ns'])), 'ns'))
        elif phase == 'end' and w[0] == '@end':
            cases.append(('apstart', 'end', kv['status'], None, None))
            break
    return cases


def fmt(c):
    s = '%s %s %s' % c[:3]
    if c[3] is not None:
        s += ' %s %s' % (c[3], c[4])
    return s


def cuttings(data, runs, seed):
    yield 'whole', [data]
    yield 'one character at a time', [data[i:i + 1] for i in range(len(data))]
    for r in range(runs):
        rng = random.Random(seed + r)
        cuts, pos = [], 0
        while pos < len(data):
            n = rng.choice((1, 2, 3, 7, 16, 64, 300, 2000, rng.randint(1, MAXREAD)))
            cuts.append(data[pos:pos + n])
            pos += n
        yield 'random cutting, seed %d' % (seed + r), cuts


def first_difference(got, want):
    for i in range(max(len(got), len(want))):
        g = fmt(got[i]) if i < len(got) else '(none)'
        x = fmt(want[i]) if i < len(want) else '(none)'
        if g != x:
            return 'case %d: got "%s", expected "%s"' % (i + 1, g, x)
    return None


def replay_log(monitors, path, runs, seed):
    """None if every cutting gives the expected cases, else why not."""
    with open(path, 'rb') as f:
        data = f.read()
    for what, pieces in cuttings(data, runs, seed):
        try:
            got = run_monitors(monitors, pieces)
        except MonitorError as e:
            return '%s: %s' % (what, e)
        diff = first_difference(got, EXPECTED[path])
        if diff:
            return '%s: %s' % (what, diff)
    return None


EXPECTED = {}


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument('--monitors', default=os.path.join(ROOT, 'tools/lab/lava/monitors.yaml'))
    p.add_argument('--runs', type=int, default=40)
    p.add_argument('--seed', type=int, default=2027)
    p.add_argument('--print', action='store_true')
    p.add_argument('logs', nargs='+')
    a = p.parse_args()
    if a.print:
        for path in a.logs:
            with open(path, 'rb') as f:
                for c in read_lines(f.read().decode('utf-8', 'replace')):
                    print(fmt(c))
        return 0
    with open(a.monitors) as f:
        monitors = yaml.safe_load(f)
    passed = failed = 0

    def ok(name):
        nonlocal passed
        passed += 1
        print('ok   ' + name)

    def fail(name, why):
        nonlocal failed
        failed += 1
        print('FAIL %s: %s' % (name, why))

    for path in a.logs:
        name = os.path.basename(path)
        exp = path + '.expected'
        try:
            with open(exp) as f:
                want = [ln.split() for ln in f if ln.strip() and not ln.startswith('#')]
        except OSError as e:
            fail('replay %s' % name, 'no %s (%s)' % (exp, e.strerror))
            continue
        EXPECTED[path] = [tuple(w) + (None,) * (5 - len(w)) for w in want]
        with open(path, 'rb') as f:
            lines = read_lines(f.read().decode('utf-8', 'replace'))
        diff = first_difference(lines, EXPECTED[path])
        if diff:
            fail('%s: the log read line by line gives %s' % (name, os.path.basename(exp)), diff)
            continue
        why = replay_log(monitors, path, a.runs, a.seed)
        what = '%s: %d cases through LAVA\'s matcher, whole, char by char, %d random cuttings' % (
            name, len(EXPECTED[path]), a.runs)
        if why:
            fail(what, why)
        else:
            ok(what)

    # The check must be able to fail: fragile monitors, first log.
    first = a.logs[0]
    fragile = []
    m = copy.deepcopy(monitors)
    for mon in m:
        if mon['name'] == 'apstart-summary':
            mon['pattern'] = mon['pattern'].rstrip(' ')
    fragile.append(('the summary pattern without its closing space', m))
    m = copy.deepcopy(monitors)
    for mon in m:
        if mon['name'] == 'apstart-ap':
            res = '(?P<result>state=online|state=skipped|stage|timeout_ms|vector)[= ]'
            assert res in mon['pattern'], 'the AP pattern changed: update this check'
            mon['pattern'] = mon['pattern'].replace(res, '(?:%s)?' % res)
    fragile.append(('the AP pattern with an optional last part', m))
    for what, mons in fragile:
        if first in EXPECTED and replay_log(mons, first, a.runs, a.seed):
            ok('the replay catches %s' % what)
        else:
            fail('the replay catches %s' % what,
                 'every cutting of %s still gave the expected cases' % os.path.basename(first))
    print('lava replay: %d passed, %d failed, 0 skipped' % (passed, failed))
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
