#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Turn a LAVA job log into an apstart results file.

  results.py LAVA.log > results.txt
  results.py --qemu-said LAVA.log     QEMU's own last message on the
                                      device's console (e.g. "qemu-system-
                                      x86_64: Invalid SMP CPUs 1000...")

LAVA.log: what lava-run prints (one {"dt": ..., "lvl": ..., "msg": ...}
line per event), or the job log lava-server offers for download (the same
lines behind "- "). The results file, one record a line:

  @lava suite=apstart-ap case=apic_1 result=fail
  @lava suite=apstart-summary case=op_online result=pass measurement=640032 units=ns
  @lava suite=apstart case=end result=fail
  @lava suite=lava case=job result=pass
  @lavarun aps=3 ap_pass=2 ap_fail=1 ap_skip=0 verdict=fail job=pass

then the console's records as LAVA saw them (its "target" lines that are
apstart records: @boot ... @end), so that aplog reads the file like any
serial log (it ignores @lava). An AP with a pass and a later fail case
counts as failed. verdict= is apstart's @end (none: no @end case); job=
is LAVA's own verdict for the job (pass: it ran to the end).
Exit status: 0 verdict pass, 1 verdict fail, 2 no verdict or no log."""
import re
import sys

import yaml


def events(path):
    with open(path, encoding='utf-8', errors='replace') as f:
        for line in f:
            line = line.strip()
            if line.startswith('- {'):
                line = line[2:]
            if not line.startswith('{'):
                continue
            try:
                ev = yaml.safe_load(line)
            except yaml.YAMLError:
                continue  # a line cut short: LAVA was killed
            if isinstance(ev, dict) and 'lvl' in ev:
                yield ev


def value(v):
    """A measurement as LAVA logs it ("640032.0"): the integer if it is one."""
    s = str(v)
    return s[:-2] if re.match(r'^-?\d+\.0$', s) else s


def qemu_said(evs):
    """QEMU's last message of its own (not its "info:" follow-up) among
    what LAVA saw on the console: why a job that never booted failed."""
    said = ''
    for ev in evs:
        msg = ev.get('msg')
        if ev['lvl'] in ('target', 'feedback') and isinstance(msg, str) and \
                re.match(r'qemu(-system-[a-z0-9_]+)?: ', msg) and ': info: ' not in msg:
            said = msg.rstrip('\r')
    return said


def main(argv):
    if len(argv) == 3 and argv[1] == '--qemu-said':
        try:
            print(qemu_said(list(events(argv[2]))))
        except OSError as e:
            print('results: cannot read %s: %s' % (argv[2], e.strerror), file=sys.stderr)
            return 2
        return 0
    if len(argv) != 2:
        print('usage: results.py LAVA.log > results.txt | results.py --qemu-said LAVA.log',
              file=sys.stderr)
        return 2
    try:
        evs = list(events(argv[1]))
    except OSError as e:
        print('results: cannot read %s: %s' % (argv[1], e.strerror), file=sys.stderr)
        return 2
    out = ['# apstart LAVA results from %s (tools/lab/lava/results.py)' % argv[1]]
    aps, verdict, job = {}, 'none', 'none'
    for ev in evs:
        if ev['lvl'] != 'results' or not isinstance(ev.get('msg'), dict):
            continue
        r = ev['msg']
        suite, case, result = r.get('definition'), r.get('case'), r.get('result')
        if suite == 'lava' and case not in ('job',):
            continue  # LAVA's own actions (validate, file-download, ...)
        rec = '@lava suite=%s case=%s result=%s' % (suite, case, result)
        if 'measurement' in r:
            rec += ' measurement=%s units=%s' % (value(r['measurement']), r.get('units', ''))
        out.append(rec)
        if suite == 'apstart-ap':
            prev = aps.get(case)
            aps[case] = 'fail' if 'fail' in (prev, result) else result
        elif suite == 'apstart' and case == 'end':
            verdict = result
        elif suite == 'lava' and case == 'job':
            job = result
    counts = {k: sum(1 for v in aps.values() if v == k) for k in ('pass', 'fail', 'skip')}
    out.append('@lavarun aps=%d ap_pass=%d ap_fail=%d ap_skip=%d verdict=%s job=%s'
               % (len(aps), counts['pass'], counts['fail'], counts['skip'], verdict, job))
    out.append('# the console as LAVA saw it: the kernel\'s records')
    for ev in evs:
        # After the last monitor, LAVA logs the rest of the console as
        # "feedback" (the @end line, as a rule).
        if ev['lvl'] in ('target', 'feedback') and isinstance(ev.get('msg'), str):
            msg = ev['msg'].rstrip('\r')
            if re.match(r'^@[a-z]+ ', msg):
                out.append(msg)
    print('\n'.join(out))
    if not evs:
        print('results: %s has no LAVA log lines' % argv[1], file=sys.stderr)
        return 2
    return {'pass': 0, 'fail': 1}.get(verdict, 2)


if __name__ == '__main__':
    sys.exit(main(sys.argv))
