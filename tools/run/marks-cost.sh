#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# make marks-cost: what apstart's own per-phase marks add to the paths it
# measures, in instructions. Each arch's WBINVD=0 kernel is booted with
# its marks (the normal build) and without them (make MARKS=0: the
# per-phase timestamps left out, each window's start and end kept:
# smp/phases.h), under instruction counting as the timing lane does
# (QEMU -icount shift=0,sleep=off: 1 instruction = 1 ns; -smp 4, cycles=10
# bsp_wait=hlt sipi_count=auto), the builds interleaved, RUNS boots each.
# Per figure, the median over every AP and cycle; the marks' share is
# (with - without) / with. The runs of one build must be identical
# (aplog check --identical): the counts are exact, not sampled.
#
#   tools/run/marks-cost.sh [RUNS]     (default 2; make marks-cost builds first)
set -uo pipefail
cd "$(dirname "$0")/../.."

APLOG=build/host/aplog
OUT=build/marks-cost
ARGS=(cycles=10 bsp_wait=hlt sipi_count=auto)
GOAL_PCT=10
runs=${1:-2}
case $runs in ''|*[!0-9]*|0) echo "marks-cost: RUNS=$runs is not a number of boots" >&2; exit 2 ;; esac
[ -x "$APLOG" ] || { echo "marks-cost: no $APLOG (make marks-cost builds it)" >&2; exit 2; }
mkdir -p "$OUT"
bad=0

# median LOG OP KEY: of KEY over every @sample of OP (nmi=0), "" if none.
median() {
	tr -d '\r' <"$1" | awk -v op="$2" -v k="$3" '$1 == "@sample" && index($0, " op=" op " ") &&
		index($0, " nmi=0") { for (i = 2; i <= NF; i++) if (index($i, k "=") == 1) print substr($i, length(k) + 2) }' |
		grep -x '[0-9]*' | sort -n | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2];
			else if (NR) print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

for arch in x86_64 i386; do
	if [ $arch = i386 ]; then
		dir=build/i386-wbinvd0 emu=(--emulator i386 --cpu pentium3) qemu="qemu-system-i386 -cpu pentium3"
	else
		dir=build/wbinvd0 emu=() qemu="qemu-system-x86_64 -cpu max"
	fi
	declare -A logs=()
	for r in $(seq "$runs"); do
		for m in 1 0; do
			kernel=$dir/apstart.elf
			[ $m = 0 ] && kernel=$dir-nomarks/apstart.elf
			[ -f "$kernel" ] || { echo "marks-cost: no $kernel (make marks-cost builds it)" >&2; exit 2; }
			log=$OUT/$arch-marks$m-run$r.log
			tools/run/qemu-run.sh --kernel "$kernel" "${emu[@]}" --smp 4 --icount --timeout 300 \
				-- "${ARGS[@]}" >"$log" 2>&1
			st=$?
			if [ $st != 0 ] || ! grep -aq "^@boot .* marks=$m[[:space:]]*\$" "$log"; then
				echo "marks-cost: $arch MARKS=$m run $r: exit $st or no '@boot ... marks=$m' (log: $log)" >&2
				bad=1
				continue
			fi
			logs[$m]+=" $log"
		done
	done
	for m in 1 0; do
		read -ra l <<<"${logs[$m]:-}"
		for ((i = 1; i < ${#l[@]}; i++)); do
			if ! why=$("$APLOG" check --identical "${l[0]}" -- "${l[$i]}" 2>&1); then
				echo "marks-cost: $arch MARKS=$m: runs differ: $(tail -n 1 <<<"$why")" >&2
				bad=1
			fi
		done
	done
	read -ra with <<<"${logs[1]:-}"
	read -ra without <<<"${logs[0]:-}"
	if [ ${#with[@]} = 0 ] || [ ${#without[@]} = 0 ]; then
		bad=1
		continue
	fi
	echo "marks-cost: $arch, WBINVD=0, $qemu -icount shift=0,sleep=off -smp 4, ${ARGS[*]};"
	echo "marks-cost: ${#with[@]} + ${#without[@]} boots, identical per build; medians over 3 APs x 10 cycles (1 ns = 1 instruction)"
	printf '  %-34s %10s %10s %7s %7s\n' path "with marks" without marks share
	for row in "online ns:BSP's window, first INIT -> sees the AP online:online:ns" \
		"online ap_ns:first INIT -> the AP's online mark:online:ap_ns" \
		"offline ns:request -> the BSP sees it dead:offline:ns" \
		"offline settled_ns:request -> the AP has flushed:offline:settled_ns"; do
		IFS=: read -r name what op key <<<"$row"
		a=$(median "${with[0]}" "$op" "$key") b=$(median "${without[0]}" "$op" "$key")
		if [ -z "$a" ] || [ -z "$b" ]; then
			echo "marks-cost: $arch: no $op $key figures (logs: ${with[0]} ${without[0]})" >&2
			bad=1
			continue
		fi
		share=$(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.1f%%", a ? 100 * (a - b) / a : 0 }')
		printf '  %-34s %10s %10s %7s %7s   (%s)\n' "$name" "$a" "$b" "$((${a%.*} - ${b%.*}))" "$share" "$what"
		over=$(awk -v a="$a" -v b="$b" -v g=$GOAL_PCT 'BEGIN { print (a && 100 * (a - b) / a > g) }')
		[ "$over" = 1 ] && echo "  ^ above the goal of <= $GOAL_PCT%"
	done
	unset logs
done
exit $bad
