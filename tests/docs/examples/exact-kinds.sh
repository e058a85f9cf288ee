#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# One line of each kind aplog exact prints (tools/aplog/README.md), from
# the deterministic run's fixtures: old.log, the plain WBINVD=0 run; pad.log,
# the same with one NOP at the protected-mode entry; one.log, old.log with
# one sample moved by 6 ns; old.exact without one AP's real phase, and
# gone.log without another's. Then the last line of the padded comparison.
set -euo pipefail
fx=$(cd "$(dirname "$0")/../fixtures" && pwd)
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
cd "$t"
cp "$fx/icount-wbinvd0.log" old.log
cp "$fx/icount-wbinvd0-padprot1.log" pad.log
awk '/^@sample cpu=1 apic=1 cycle=4 op=online / { for (i = 1; i <= NF; i++) if ($i ~ /^ns=/) $i = "ns=" substr($i, 4) + 6 } 1' old.log >one.log
grep -v '^@phase cpu=2 apic=2 cycle=[0-9]* phase=real ' old.log >gone.log
aplog exact-baseline old.log | grep -v '^apic=3 op=online phase=@phase:real ' >old.exact
aplog exact old.log -- pad.log >pad.txt || true
grep -m1 '^DIFF apic=1 op=online phase=to_long_ns:' pad.txt
aplog exact old.log -- one.log 2>/dev/null | grep -m1 '^DIFF' || true
aplog exact old.log -- gone.log | grep -m1 '^GONE' || true
aplog exact old.exact -- old.log | grep -m1 '^NEW' || true
tail -n 1 pad.txt
