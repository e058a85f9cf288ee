#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Soak: every AP of a -smp 8 guest cycled offline/online 1000 times (TCG);
# no CPU may be lost: each AP must deliver all 1000 samples per direction,
# the run must pass with 8 CPUs online, nothing failed, no late AP.
#   tests/soak/run.sh KERNEL [CYCLES] [SMP]
set -uo pipefail
cd "$(dirname "$0")/../.."
kernel=$1 cycles=${2:-1000} smp=${3:-8}
APLOG=${APLOG:-build/host/aplog}
log=build/test-logs/soak-smp$smp-cycles$cycles.log
mkdir -p "$(dirname "$log")"
t0=$SECONDS
tools/run/qemu-run.sh --kernel "$kernel" --smp "$smp" --accel tcg --timeout 3600 \
	-- cycles="$cycles" >"$log" 2>&1
st=$?
secs=$((SECONDS - t0))
aps=$((smp - 1))
complete=$(tr -d '\r' <"$log" | awk -v c="$cycles" '
	/^@sample / { for (i = 2; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] }
	              n[f["apic"], f["op"]]++; a[f["apic"]] = 1 }
	END { k = 0; for (x in a) if (n[x, "online"] == c && n[x, "offline"] == c) k++; print k }')
lost=$((aps - complete))
if [ $st -eq 0 ] && why=$("$APLOG" verify --cpus "$smp" --cycles "$cycles" --warnings 0 "$log") &&
	! grep -aq 'given up on' "$log"; then
	echo "ok   soak: $aps APs x $cycles cycles at -smp $smp, 0 lost CPUs, ${secs} s (log: $log)"
	echo "soak: 1 passed, 0 failed, 0 skipped"
	exit 0
fi
echo "FAIL soak: exit $st, $lost of $aps APs lost (did not finish $cycles cycles), ${secs} s: ${why:-} (log: $log)"
tr -d '\r' <"$log" | grep -a -E '^(@fail|@end|@warn|smp:)' | tail -n 10 | sed 's/^/       | /'
echo "soak: 0 passed, 1 failed, 0 skipped"
exit 1
