#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# make exact-tests: the timing lane's deterministic core, alone, for the
# inner loop (make check): each variant booted once under QEMU -icount
# (1 instruction = 1 ns) with the timing lane's arguments, every phase of
# every AP and cycle compared with its exact baseline (tests/baselines/,
# aplog exact). A difference is named phase by phase; if it is meant,
# make baseline (CONTRIBUTING.md). make timing-tests does this and more
# (two boots each, the slowed and padded builds, the wall clock).
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
source tests/protocol.sh
APLOG=${APLOG:-build/host/aplog}
SMP=4
DET_ARGS="cycles=10 bsp_wait=hlt sipi_count=auto" # as tests/timing/run.sh
out=build/timing/exact
mkdir -p "$out"
for v in wbinvd0 wbinvd1 i386-wbinvd0 i386-wbinvd1; do
	emu=()
	case $v in i386-*) emu=(--emulator i386 --cpu pentium3) ;; esac
	log=$out/$v.log base=tests/baselines/icount-pc-smp$SMP-$v.exact
	tools/run/qemu-run.sh --kernel "build/$v/apstart.elf" --smp $SMP --timeout 300 --icount \
		"${emu[@]}" -- $DET_ARGS >"$log" 2>&1
	if "$APLOG" exact "$base" -- "$log" >"$out/$v.txt" 2>&1; then
		ok "icount $v: every phase exactly as in its baseline ($(tail -n1 "$out/$v.txt"))"
	else
		fail "icount $v: every phase exactly as in its baseline" \
			"the AP path changed (if intended: make baseline, and say why in the commit)" \
			"$(head -n 20 "$out/$v.txt")"
	fi
done
summary exact
