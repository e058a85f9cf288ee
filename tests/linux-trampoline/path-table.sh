#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The instruction path from the SIPI to apstart's C entry, per trampoline:
# apstart's own (make WBINVD=0|1) and Linux's blobs as shipped and as
# their twins (trampoline=linux), read from the exact icount baselines the
# timing and linux-trampoline lanes check (tests/baselines/, 1 ns = 1
# instruction), AP 1 (APIC ID 1), cycle 1 (every cycle is the same).
# docs/linux-trampoline.md shows it; a changed path changes its baseline
# (make baseline, make baseline-linux) and so this table.
#
#   path-table.sh [BASELINE-DIR]
set -euo pipefail
cd "$(dirname "$0")/../.."
base=${1:-tests/baselines}

# value FILE PHASE: @phase:PHASE of APIC 1, cycle 1 ("na" if not taken).
value() {
	awk -v p="phase=@phase:$2" '$1 == "apic=1" && $2 == "op=online" && $3 == p {
		sub(/^values=/, "", $6); split($6, v, ","); print v[2]; exit }' "$1"
}
# name FILE: the row's name: "apstart, WBINVD=N", or the module's package.
name() {
	local f=$1 m
	case $f in
	*-wbinvd[01].exact) echo "apstart, WBINVD=${f: -7:1}" ;;
	*)
		m=$(sed -n '1,6s/^# config: .*; module: linux-image-\([^ ]*\) [^,]*\(, its twin\)\{0,1\}$/\1\2/p' "$f")
		case $m in
		*", its twin") echo "Linux ${m%, its twin}, twin" ;;
		*) echo "Linux $m, as shipped" ;;
		esac ;;
	esac
}
sum() { # FILE PHASE...: their sum, na phases left out
	local f=$1 t=0 v
	shift
	for p in "$@"; do
		v=$(value "$f" "$p")
		[ "$v" = na ] || t=$((t + v))
	done
	echo $t
}
row() { # FILE REFERENCE-TOTAL
	local f=$1 ref=$2 arr c tot
	arr=$(sum "$f" real protected long)
	c=$(value "$f" c_entry)
	tot=$((arr + c))
	printf '  %-38s %9d %9d %9d %+8d\n' "$(name "$f")" "$arr" "$c" "$tot" $((tot - ref))
}
echo "SIPI -> apstart's C entry, in instructions (QEMU -icount, -smp 4, AP 1, cycle 1):"
printf '  %-38s %9s %9s %9s %8s\n' trampoline arrival '+ entry' '= C' 'vs own'
for arch in x86_64 i386; do
	if [ $arch = x86_64 ]; then
		own=$base/icount-pc-smp4-wbinvd0.exact own1=$base/icount-pc-smp4-wbinvd1.exact
		linux=(linux-amd64-6.1 linux-amd64-6.1-twin linux-amd64-6.12 linux-amd64-6.12-twin)
	else
		own=$base/icount-pc-smp4-i386-wbinvd0.exact own1=$base/icount-pc-smp4-i386-wbinvd1.exact
		linux=(linux-i386-6.1 linux-i386-6.1-twin)
	fi
	echo "$arch:"
	ref=$(( $(sum "$own" real protected long) + $(value "$own" c_entry) ))
	row "$own" "$ref"
	row "$own1" "$ref"
	for l in "${linux[@]}"; do
		row "$base/icount-pc-smp4-$l.exact" "$ref"
	done
done
