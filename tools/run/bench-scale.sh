#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# make bench-scale: how bring-up scales with the CPU count (issue 9). For
# each N (default 8, 64, 255) two TCG boots of the WBINVD=0 kernel (QEMU's
# default multi-threaded TCG, as make run; BENCH_TCG=single for one thread):
#   serial:   bringup=serial cycles_mode=serial  - the per-AP online median
#             (aplog medians) and the serial bring-up of all APs;
#   parallel: bringup=serial cycles_mode=parallel - in the same boot, the
#             serial bring-up of all APs (@bringup) and then every AP taken
#             offline and brought online at once (@round op=online), so the
#             two bring-ups are compared on the same run;
#   broadcast: bringup=broadcast cycles=1 - the first bring-up by four
#             all-excluding-self IPIs: what is left when the BSP's per-AP
#             IPIs are gone (the emulator's own work per AP, on the host's
#             cores).
# Targets (a benchmark, not a test: it reports, it does not fail on them):
#   parallel bring-up of all APs >= 10x faster than serial at N=255;
#   per-AP online median (serial) at N=255 within 1.5x of N=8.
# Then aplog plot of the largest N: serial vs parallel, stacked phases.
#   tools/run/bench-scale.sh [N...]   (BENCH_CYCLES, BENCH_TIMEOUT, BENCH_TCG=multi|single
#   from the env: QEMU's default multi-threaded TCG, or one thread for all vCPUs;
#   BENCH_REUSE=1 reports on the logs of the last run without booting)
set -uo pipefail
cd "$(dirname "$0")/../.."

APLOG=build/host/aplog
KERNEL=build/wbinvd0/apstart.elf
OUT=build/bench-scale
CYCLES=${BENCH_CYCLES:-3}
TIMEOUT=${BENCH_TIMEOUT:-1800}
TCG=${BENCH_TCG:-multi}
case $TCG in
multi) tcg_opts=() ;;
single) tcg_opts=(--tcg-single) ;;
*) echo "bench-scale: BENCH_TCG=$TCG: multi or single" >&2; exit 2 ;;
esac
ns=("$@")
[ ${#ns[@]} -gt 0 ] || ns=(8 64 255)
for n in "${ns[@]}"; do
	case $n in ''|*[!0-9]*) echo "bench-scale: N=$n is not a number" >&2; exit 2 ;; esac
	[ "$n" -ge 2 ] && [ "$n" -le 255 ] || { echo "bench-scale: N=$n outside 2..255 (-machine pc under TCG)" >&2; exit 2; }
done
[ -x "$APLOG" ] && [ -f "$KERNEL" ] || { echo "bench-scale: build first (make bench-scale does)" >&2; exit 2; }
mkdir -p "$OUT"

field() { # log record key [record-filter] -> first value of key in matching records
	tr -d '\r' <"$1" | awk -v r="$2" -v k="$3" -v f="${4:-}" '$1 == r && index($0, f) {
		for (i = 2; i <= NF; i++) if (index($i, k "=") == 1) { print substr($i, length(k) + 2); exit } }'
}
round_median() { # log -> median ns of the @round op=online records
	tr -d '\r' <"$1" | awk '$1 == "@round" && / op=online / { for (i = 2; i <= NF; i++)
		if ($i ~ /^ns=/) print substr($i, 4) }' | sort -n |
		awk '{ v[NR] = $1 } END { if (!NR) print 0; else if (NR % 2) print v[(NR + 1) / 2];
			else printf "%d\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
boot() { # name smp args...
	local name=$1 smp=$2 t0=$SECONDS; shift 2
	local cmd=(tools/run/qemu-run.sh --kernel "$KERNEL" --accel tcg "${tcg_opts[@]}" --smp "$smp"
		--timeout "$TIMEOUT" -- "$@")
	echo "  ${cmd[*]} > $OUT/$name.log"
	"${cmd[@]}" >"$OUT/$name.log" 2>&1
	local st=$?
	echo "    exit $st, $((SECONDS - t0)) s"
	return $st
}

echo "bench-scale: N = ${ns[*]}, cycles=$CYCLES, TCG ($TCG-threaded), -machine pc, WBINVD=0, host: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
declare -A ser_med ser_total par_total par_round bc_total
for n in "${ns[@]}"; do
	echo "N=$n:"
	if [ -n "${BENCH_REUSE:-}" ]; then echo "  (BENCH_REUSE: the logs of the last run)"; else
	boot "serial-smp$n" "$n" bringup=serial cycles_mode=serial cycles=$CYCLES ||
		echo "    (no verdict or a failure: figures below may be missing)"
	boot "parallel-smp$n" "$n" bringup=serial cycles_mode=parallel cycles=$CYCLES ||
		echo "    (no verdict or a failure: figures below may be missing)"
	boot "broadcast-smp$n" "$n" bringup=broadcast cycles=1 ||
		echo "    (no verdict or a failure: figures below may be missing)"
	fi
	ser_med[$n]=$($APLOG medians --op online "$OUT/serial-smp$n.log" 2>/dev/null | sed -n 's/^lowest: //p')
	ser_total[$n]=$(field "$OUT/serial-smp$n.log" @bringup total_ns)
	par_total[$n]=$(field "$OUT/parallel-smp$n.log" @bringup total_ns)
	par_round[$n]=$(round_median "$OUT/parallel-smp$n.log")
	bc_total[$n]=$(field "$OUT/broadcast-smp$n.log" @bringup total_ns)
done

echo
echo "  N  serial bring-up (ms)  parallel round (ms)  speed-up  broadcast bring-up (ms)  per-AP online median, serial (us)"
for n in "${ns[@]}"; do
	awk -v n="$n" -v s="${par_total[$n]:-0}" -v p="${par_round[$n]:-0}" -v m="${ser_med[$n]:-0}" -v s2="${ser_total[$n]:-0}" \
		-v b="${bc_total[$n]:-0}" 'BEGIN {
		printf "%3d  %20.3f  %19.3f  %7.1fx  %23.3f  %.1f   (serial-cycles boot: bring-up %.3f ms)\n",
			n, s / 1e6, p / 1e6, (p > 0 ? s / p : 0), b / 1e6, m / 1e3, s2 / 1e6 }'
done
first=${ns[0]} last=${ns[${#ns[@]}-1]}
echo
awk -v s="${par_total[$last]:-0}" -v p="${par_round[$last]:-0}" -v n="$last" 'BEGIN {
	r = (p > 0 ? s / p : 0)
	printf "target: parallel bring-up >= 10x faster than serial at N=%d (same boot): %.1fx: %s\n",
		n, r, (r >= 10 ? "met" : "MISSED") }'
awk -v a="${ser_med[$first]:-0}" -v b="${ser_med[$last]:-0}" -v f="$first" -v l="$last" 'BEGIN {
	r = (a > 0 ? b / a : 0)
	printf "target: per-AP online median at N=%d within 1.5x of N=%d (serial): %.1f us vs %.1f us = %.2fx: %s\n",
		l, f, b / 1e3, a / 1e3, r, ((r > 0 && r <= 1.5) ? "met" : "MISSED") }'
echo
$APLOG plot --out "$OUT/smp$last.png" --label-a "serial cycles, -smp $last" \
	--label-b "parallel cycles, -smp $last" "$OUT/serial-smp$last.log" -- "$OUT/parallel-smp$last.log"
echo "per-phase table of the parallel rounds at N=$last (aplog stats):"
$APLOG stats "$OUT/parallel-smp$last.log" | sed -n '/^Phases/,/^Slowest/p;/^Parallel rounds/,/^offline/p' | sed 's/^/  /'
