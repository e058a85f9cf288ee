#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Test lane for the flush probe (probe=flush, issue 25), under QEMU TCG
# with the flushmodel plugin as the machine whose flush is measured:
#
#  1. the model's additions (dirty=track, disturb=, preset files): host
#     unit test, plain and ASan/UBSan;
#  2. closed loop: with a known model loaded (dirty=track: each flush
#     costs LLC/walk + min(dirty, LLC)/write-back), every point of the
#     probe's WBINVD curve, and the at-once rounds, is within 10% of what
#     the model says (aplog flush --against, the plugin's own cost code);
#     the same log against a wrong model must fail (the check can fail);
#  3. aplog fit writes a preset whose parameters are within 10% of the
#     known ones, and a run with FLUSH=file:PRESET reproduces the first
#     run's curve within 10% at every point;
#  4. N at once follows the model's serialise switch: serialize=off runs
#     match the concurrent prediction and not the serialised one;
#  5. a guest-raised SMI (APM port 0xB2, SeaBIOS with SMM) marks its
#     window: smi=1 in @flush and in @sample, counted in @end, left out
#     by aplog; no window is marked in runs without it (skipped where the
#     CPU has no MSR_SMI_COUNT);
#  7. victims: with disturb=on a victim stalls for the flush's modelled
#     cost in each WBINVD window (probe) and in each online window with
#     the trampoline's WBINVD (cycles), and not without it; CSV, plot;
#  6. the probe without a model (WBINVD EMULATED: it costs nothing under
#     TCG) on the x86_64 and the i386 kernel: every record, @end pass;
#     aplog's CSV and plot data.
#
# Figures: a point's best window (the host only adds time). Wall-clock
# TCG, multi-threaded; the BSP halts while an AP sweeps.
#   --long   the long forms: -smp 4 in 2 modelled sockets, the CPU's own
#            LLC (16 MiB) and twice it, 3 interleaved rounds per check.
set -uo pipefail
cd "$(dirname "$0")/../.."
declare -A share cst win

LONG=0
[ "${1:-}" = --long ] && LONG=1
APLOG=build/host/aplog_asan
OUT=build/flushprobe-test
rm -rf "$OUT"
mkdir -p "$OUT"
pass=0 fail=0 skipped=0
ok() { pass=$((pass + 1)); echo "ok   $*"; }
bad() { fail=$((fail + 1)); echo "FAIL $*"; }
skip() { skipped=$((skipped + 1)); echo "skip $*"; }
finish() {
	echo "flushprobe: lane took $((SECONDS - t_start))s"
	echo "flushprobe: $pass passed, $fail failed, $skipped skipped"
	[ $fail -eq 0 ]
	exit
}
t_start=$SECONDS

if [ $LONG = 1 ]; then
	SMP=4,sockets=2 LLC=16 MAXK=32768 REPS=9 ROUNDS=3 SOCK=,sockets=2
else
	SMP=2 LLC=4 MAXK=8192 REPS=11 ROUNDS=1 SOCK=
fi
MODEL="llc_mb=$LLC,walk_gbs=2,wb_gbs=1,dirty=track$SOCK"
PROBE="probe=flush flush_max_kib=$MAXK flush_reps=$REPS"

run() { # log kernel flush-spec kernel-args...
	local log=$1 k=$2 spec=$3
	shift 3
	local fl=()
	[ -n "$spec" ] && fl=(--flush "$spec")
	tools/run/qemu-run.sh --kernel "$k" --smp "$SMP" --timeout 240 "${fl[@]}" -- "$*" >"$log" 2>&1
}
K64=build/wbinvd0/apstart.elf

# ------------------------------------------------------------ 1. unit
for t in flushmodel_probe_test flushmodel_probe_test_asan; do
	if build/host/$t >"$OUT/$t.txt" 2>&1 && tail -n 1 "$OUT/$t.txt" | grep -Eq '^[0-9]+ passed, 0 failed$'; then
		ok "model additions ($t): all $(tail -n 1 "$OUT/$t.txt" | cut -d' ' -f1) checks pass"
	else
		bad "model additions ($t): $(grep -E '^FAIL' "$OUT/$t.txt" | head -5 | tr '\n' ' ') (see $OUT/$t.txt)"
	fi
done

# ------------------------------------------------------- 2. closed loop
largest() { grep -E '^[0-9]+ points compared' "$1" | sed 's/^\([0-9]*\) points compared: largest error \([^ ]*\).*/\1 points, largest error \2/'; }
# Each round measured once more if outside: a vCPU thread the host wakes
# late from the plugin's lock or sleep lengthens a window, never shortens
# one; the bound stays 10%.
for r in $(seq 1 $ROUNDS); do
	for attempt in 1 2; do
		if ! run "$OUT/known-r$r.log" $K64 "$MODEL" $PROBE; then
			bad "probe run under $MODEL (round $r) did not pass: see $OUT/known-r$r.log"
			finish
		fi
		$APLOG flush "$OUT/known-r$r.log" --against "$MODEL" --ops wbinvd >"$OUT/known-r$r.txt" 2>&1
		st=$?
		[ $st = 0 ] && break
		[ $attempt = 1 ] && echo "     closed loop round $r outside 10% on this attempt ($(grep -c OUTSIDE "$OUT/known-r$r.txt") points; load $(cut -d' ' -f1 /proc/loadavg)): measuring again"
	done
	if [ $st = 0 ]; then
		ok "closed loop round $r: probe curve vs the model $MODEL: $(largest "$OUT/known-r$r.txt"), every point within 10%"
	else
		bad "closed loop round $r: probe curve vs the model: $(grep -E 'OUTSIDE|compared' "$OUT/known-r$r.txt" | head -4 | tr '\n' ';') (see $OUT/known-r$r.txt)"
	fi
done
KNOWN=$OUT/known-r1.log
if $APLOG flush "$KNOWN" --against "${MODEL/wb_gbs=1/wb_gbs=2}" --ops wbinvd >"$OUT/wrong.txt" 2>&1; then
	bad "the same curve against a wrong model (wb_gbs=2) passed: the check cannot fail"
else
	ok "negative control: against a wrong model (wb_gbs=2) the check fails ($(grep -c OUTSIDE "$OUT/wrong.txt") points outside)"
fi

# ------------------------------------------------------- 3. fit, replay
if $APLOG fit "$KNOWN" --out "$OUT/fitted.preset" >"$OUT/fit.txt" 2>&1; then
	read -r llc walk wb < <(awk -F= '/^llc_mb=/{l=$2} /^walk_gbs=/{w=$2} /^wb_gbs=/{b=$2} END {print l, w, b}' "$OUT/fitted.preset")
	if awk -v l="$llc" -v w="$walk" -v b="$wb" -v L="$LLC" 'function off(x, y) { d = (x - y) / y; return d < 0 ? -d : d }
		BEGIN { exit !(off(l, L) <= 0.1 && off(w, 2) <= 0.1 && off(b, 1) <= 0.1) }'; then
		ok "aplog fit: llc_mb=$llc walk_gbs=$walk wb_gbs=$wb (known $LLC, 2, 1: each within 10%), $(grep 'largest error of the fit' "$OUT/fit.txt" | sed 's/^ *//')"
	else
		bad "aplog fit: llc_mb=$llc walk_gbs=$walk wb_gbs=$wb, not within 10% of $LLC, 2, 1 (see $OUT/fit.txt)"
	fi
else
	bad "aplog fit failed: $(head -c 300 "$OUT/fit.txt")"
fi
replay_ok=1
for attempt in 1 2; do
	[ -f "$OUT/fitted.preset" ] && run "$OUT/replay.log" $K64 "file:$OUT/fitted.preset" $PROBE || { replay_ok=0; break; }
	$APLOG flush "$OUT/replay.log" --against "log:$KNOWN" --ops wbinvd >"$OUT/replay.txt" 2>&1 && break
	[ $attempt = 1 ] && echo "     replay outside 10% on this attempt (load $(cut -d' ' -f1 /proc/loadavg)): measuring again"
done
if [ $replay_ok = 1 ]; then
	if $APLOG flush "$OUT/replay.log" --against "log:$KNOWN" --ops wbinvd >"$OUT/replay.txt" 2>&1; then
		ok "FLUSH=file:fitted.preset reproduces the first run's curve: $(largest "$OUT/replay.txt"), every point within 10%"
	else
		bad "FLUSH=file:fitted.preset vs the first run: $(grep -E 'OUTSIDE|compared' "$OUT/replay.txt" | head -4 | tr '\n' ';')"
	fi
	if grep -q "^@host flush_model=file:$OUT/fitted.preset" "$OUT/replay.log"; then
		ok "the replayed run is marked modelled: @host flush_model=file:..."
	else
		bad "the replayed run has no @host flush_model=file: record"
	fi
else
	bad "the replay run with FLUSH=file:$OUT/fitted.preset did not pass (see $OUT/replay.log)"
fi

# ------------------------------------------------------- 4. serialise
OFF="$MODEL,serialize=off"
# Concurrent flushes: a round's first-start-to-last-end is the flush plus
# the CPUs' start skew, which a loaded host stretches; more rounds, and
# once more if outside.
for attempt in 1 2; do
	run "$OUT/off.log" $K64 "$OFF" probe=flush flush_max_kib=$MAXK flush_reps=15 flush_cpus=1 ||
		{ bad "probe run under $OFF did not pass (see $OUT/off.log)"; break; }
	$APLOG flush "$OUT/off.log" --against "$OFF" --ops wbinvd >"$OUT/off.txt" 2>&1
	st_off=$?
	$APLOG flush "$OUT/off.log" --against "$MODEL" --ops wbinvd >"$OUT/off-vs-on.txt" 2>&1
	st_on=$?
	n_at=$(awk '$1 == "wbinvd" && $2 > 1' "$OUT/off.txt" | wc -l)
	[ $st_off = 0 ] && [ $st_on != 0 ] && [ "$n_at" -gt 0 ] && break
	[ $attempt = 1 ] && echo "     serialize=off outside a band on this attempt (load $(cut -d' ' -f1 /proc/loadavg)): measuring again"
done
if [ -f "$OUT/off.txt" ]; then
	if [ $st_off = 0 ] && [ $st_on != 0 ] && [ "$n_at" -gt 0 ]; then
		ok "serialize=off: $n_at at-once points match the concurrent model ($(largest "$OUT/off.txt")) and not the serialised one ($(grep -c OUTSIDE "$OUT/off-vs-on.txt") outside)"
	else
		bad "serialize=off: against off exit $st_off, against on exit $st_on, $n_at at-once points; load $(cut -d' ' -f1 /proc/loadavg) (see $OUT/off.txt, $OUT/off-vs-on.txt)"
	fi
	n_on=$(awk '$1 == "wbinvd" && $2 > 1 && $NF !~ /OUTSIDE/' "$OUT/known-r1.txt" | wc -l)
	if [ "$n_on" -gt 0 ]; then
		ok "serialize=on (the default): $n_on at-once points match the serialised model (the closed loop above)"
	else
		bad "serialize=on: no at-once points within 10% in $OUT/known-r1.txt"
	fi
else
	bad "probe run under $OFF did not pass (see $OUT/off.log)"
fi

# ------------------------------------------------------------ 5. SMI
run "$OUT/smi.log" $K64 "" probe=flush flush_max_kib=256 flush_reps=2 selftest=smi
if ! grep -aq '^@probe .*smi_counter=1' "$OUT/smi.log"; then
	skip "SMI marks: this CPU model has no MSR_SMI_COUNT under QEMU (RDMSR 0x34 faulted): nothing to count"
else
	hit=$(grep -ac '^@flush .* smi=[1-9]' "$OUT/smi.log")
	end=$(tr -d '\r' <"$OUT/smi.log" | sed -n 's/^@end .*smi_windows=\([0-9]*\).*/\1/p')
	left=$($APLOG flush --csv "$OUT/smi.log" | awk -F, '$5 > 0 { n += $5 } END { print n + 0 }')
	if [ "$hit" -ge 1 ] && [ "${end:-0}" -ge 1 ] && [ "$left" -ge 1 ]; then
		ok "selftest=smi (APM port 0xB2, SeaBIOS SMM, machine pc): $hit probe window marked smi=1, @end smi_windows=$end, aplog left $left out"
	else
		bad "selftest=smi: $hit windows marked, @end smi_windows=${end:-none}, aplog left $left out (see $OUT/smi.log)"
	fi
	run "$OUT/smi-cycles.log" $K64 "" cycles=3 selftest=smi
	if grep -aq '^@sample .*op=online.* smi=[1-9]' "$OUT/smi-cycles.log" &&
	   $APLOG stats "$OUT/smi-cycles.log" 2>&1 | grep '1 samples an SMI hit.*left out' >/dev/null; then
		ok "selftest=smi in the cycles: the first online sample reads smi=1 and aplog stats leaves it out"
	else
		bad "selftest=smi in the cycles: no @sample smi=1 or aplog did not leave it out (see $OUT/smi-cycles.log)"
	fi
	# Without the selftest no window is marked: the marks come from the SMI.
	# (Not with -machine pc,smm=off: there QEMU still takes the SMI, finds
	# no handler in SMRAM and the guest never comes back; measured here.)
	if grep -aq '^@end ' "$OUT/smi-cycles.log" && ! grep -aq '^@sample .* smi=[1-9]' "$KNOWN" &&
	   ! grep -aq '^@flush .* smi=[1-9]' "$KNOWN"; then
		ok "negative control: without selftest=smi no window is marked (the closed-loop run)"
	else
		bad "windows marked smi= in a run that raised no SMI ($KNOWN)"
	fi
fi

# ------------------------------------------------------------ 7. victims
# The model stalls the socket's other vCPUs during a flush (disturb=on):
# a victim's longest stall in each of the BSP's WBINVD windows is then
# the flush's modelled cost; without disturb= it is none of it. Judged on
# the median over the windows (a busy host deschedules a vCPU thread for
# milliseconds now and then, with or without the model).
# A flush of ~17 ms (16 MiB walked at 1 GB/s): long against the host's
# scheduling quanta. With disturb=on the victim must stall for the whole
# modelled flush, whatever the host does (a busy host only adds). Without
# it, the victim's vCPU thread runs during the BSP's hold; what stalls it
# then is the host (a thread gets ~2/load of a core): the victim's own
# quiet window (@victim_quiet stall_ns=) says how much, and where that
# alone is half the flush, "no stall" cannot be told here: skipped with
# the figures. Outside a band: measured once more.
VMODEL="llc_mb=16,walk_gbs=1,wb_gbs=1,dirty=track"
VARGS="probe=flush flush_max_kib=256 flush_reps=3 flush_at_once=none victims=1"
VCOST=16777216 # ns: the clean flush of VMODEL, 16 MiB at 1 GB/s
quiet_stall() { tr -d '\r' <"$1" | sed -n 's/^@victim_quiet .* stall_ns=\([0-9]*\) .*/\1/p' | head -1; }
for attempt in 1 2; do
	for d in on off; do
		# -smp 2 in both forms: the BSP and its victim, one socket
		tools/run/qemu-run.sh --kernel $K64 --smp 2 --timeout 240 --flush "$VMODEL,disturb=$d" \
			-- "$VARGS" >"$OUT/victims-$d.log" 2>&1 ||
			bad "probe with victims=1 under disturb=$d did not pass (see $OUT/victims-$d.log)"
		$APLOG victims "$OUT/victims-$d.log" --against "$VMODEL" >"$OUT/victims-$d.txt" 2>&1
		share[$d]=$(awk '$1 == "flush" && $2 == "wbinvd" && $3 == "x1" { v = $NF; sub(/%/, "", v); print v }' "$OUT/victims-$d.txt")
		win[$d]=$(awk '$1 == "flush" && $2 == "wbinvd" && $3 == "x1" { v = $(NF-1); sub(/%/, "", v); print v }' "$OUT/victims-$d.txt")
	done
	qs=$(quiet_stall "$OUT/victims-off.log")
	awk -v on="${share[on]:-0}" -v off="${win[off]:-100}" 'BEGIN { exit !(on >= 90 && off <= 50) }' && break
	[ "${qs:-0}" -ge $((VCOST / 2)) ] && break
	[ $attempt = 1 ] && echo "     victims (probe) outside a band on this attempt (${share[on]:-?}% / ${win[off]:-?}%; load $(cut -d' ' -f1 /proc/loadavg)): measuring again"
done
if awk -v on="${share[on]:-0}" 'BEGIN { exit !(on >= 90) }'; then
	ok "victims, disturb=on: in the BSP's WBINVD windows the victim stalls ${share[on]}% of the flush's modelled cost (median)"
else
	bad "victims, disturb=on: stall / modelled cost median ${share[on]:-none}% (want >= 90); see $OUT/victims-on.txt"
fi
if awk -v off="${win[off]:-100}" 'BEGIN { exit !(off <= 50) }'; then
	ok "victims, no disturb=: the victim stalls ${win[off]}% of the window (median; its quiet window's longest stall $((${qs:-0} / 1000)) us)"
elif [ "${qs:-0}" -ge $((VCOST / 2)) ]; then
	skip "victims, no disturb=: the host starved the victim's vCPU thread for $((qs / 1000)) us of its quiet window alone (load $(cut -d' ' -f1 /proc/loadavg)): no stall cannot be told from the host's here (${win[off]:-?}% of each window)"
else
	bad "victims, no disturb=: stall / window median ${win[off]:-none}% (want <= 50), quiet window stall $((${qs:-0} / 1000)) us; load $(cut -d' ' -f1 /proc/loadavg); see $OUT/victims-off.txt"
fi
# The cycles: the trampoline's WBINVD (WBINVD=1, charged 20 ms) inside
# each online window stalls the victim with disturb=on only. bsp_wait=hlt:
# a BSP spinning for the AP took a host CPU from the victim (measured at
# load ~11: 10 ms median stall spinning, 0.3 ms halted, without disturb=).
for attempt in 1 2; do
	for d in on off; do
		tools/run/qemu-run.sh --kernel build/wbinvd1/apstart.elf --smp 3 --timeout 240 --flush "us=20000,disturb=$d" \
			-- cycles=3 park=hlt bsp_wait=hlt victims=1 >"$OUT/victims-cycles-$d.log" 2>&1 ||
			bad "cycles with victims=1 under disturb=$d did not pass (see $OUT/victims-cycles-$d.log)"
		$APLOG victims "$OUT/victims-cycles-$d.log" >"$OUT/victims-cycles-$d.txt" 2>&1
		cst[$d]=$(awk '$1 == "online" { print $5 }' "$OUT/victims-cycles-$d.txt")
	done
	cqs=$(quiet_stall "$OUT/victims-cycles-off.log")
	awk -v on="${cst[on]:-0}" -v off="${cst[off]:-100}" 'BEGIN { exit !(on >= 18 && off <= 10) }' && break
	[ "${cqs:-0}" -ge 10000000 ] && break
	[ $attempt = 1 ] && echo "     victims (cycles) outside a band on this attempt (${cst[on]:-?} / ${cst[off]:-?} ms; load $(cut -d' ' -f1 /proc/loadavg)): measuring again"
done
if awk -v on="${cst[on]:-0}" 'BEGIN { exit !(on >= 18) }'; then
	ok "victims in the cycles, disturb=on (WBINVD=1, us=20000): online windows stall the victim ${cst[on]} ms (median)"
else
	bad "victims in the cycles, disturb=on: online stall median ${cst[on]:-none} ms (want >= 18); see $OUT/victims-cycles-on.txt"
fi
if awk -v off="${cst[off]:-100}" 'BEGIN { exit !(off <= 10) }'; then
	ok "victims in the cycles, no disturb=: online windows stall the victim ${cst[off]} ms (median; quiet window $((${cqs:-0} / 1000)) us)"
elif [ "${cqs:-0}" -ge 10000000 ]; then
	skip "victims in the cycles, no disturb=: the host starved the victim for $((cqs / 1000)) us of its quiet window alone (load $(cut -d' ' -f1 /proc/loadavg)): cannot tell (${cst[off]:-?} ms)"
else
	bad "victims in the cycles, no disturb=: online stall median ${cst[off]:-none} ms (want <= 10), quiet window stall $((${cqs:-0} / 1000)) us; load $(cut -d' ' -f1 /proc/loadavg)"
fi
if $APLOG victims --csv "$OUT/victims-on.log" | sed -n 1p | grep '^window,victim,window_ns,' >/dev/null &&
   $APLOG victims "$OUT/victims-on.log" --plot "$OUT/victims.png" >"$OUT/victims-plot.txt" 2>&1 && [ -s "$OUT/victims.dat" ]; then
	ok "aplog victims --csv and --plot ($(grep -E '^(plot|data):' "$OUT/victims-plot.txt" | tr '\n' ' '))"
else
	bad "aplog victims --csv/--plot: $(head -c 300 "$OUT/victims-plot.txt")"
fi

# ------------------------------------------------- 6. plain, i386, CSV
for k in $K64 build/i386-wbinvd0/apstart.elf; do
	arch=x86_64 extra=()
	[[ $k == *i386* ]] && { arch=i386; extra=(--emulator i386 --cpu pentium3); }
	log=$OUT/plain-$arch.log
	tools/run/qemu-run.sh --kernel $k --smp 2 --timeout 120 "${extra[@]}" -- probe=flush flush_max_kib=1024 flush_reps=2 >"$log" 2>&1
	pts=$(tr -d '\r' <"$log" | sed -n 's/^@probe .* points=\([0-9]*\) .*/\1/p')
	ops=$(tr -d '\r' <"$log" | awk '/^@probe / { n = 1; for (i = 2; i <= NF; i++) if ($i ~ /^(wbnoinvd|clflushopt|clwb)=1$/) n++; print n }')
	sweep=$(grep -ac '^@flush .* at_once=1 .*' "$log")
	# the sweep: points x ops x reps x 2 CPUs, plus the at-once rounds' 1-CPU windows
	want=$(( ${pts:-0} * ${ops:-0} * 2 * 2 ))
	if grep -aq '^@end status=pass' "$log" && [ "$sweep" -ge "$want" ] && [ "$want" -gt 0 ]; then
		ok "probe without a model ($arch, WBINVD EMULATED): $pts points x $ops ops x 2 repeats x 2 CPUs = $want sweep windows (+ at-once), @end pass"
	else
		bad "probe without a model ($arch): $sweep windows, want >= $want, or no pass (see $log)"
	fi
done
if $APLOG flush --csv "$KNOWN" >"$OUT/curve.csv" 2>&1 && head -1 "$OUT/curve.csv" | grep -q '^op,at_once,dirty_kib,n,' &&
   [ "$(wc -l <"$OUT/curve.csv")" -gt 5 ] &&
   $APLOG flush "$KNOWN" --plot "$OUT/curve.png" >"$OUT/plot.txt" 2>&1 && [ -s "$OUT/curve.dat" ]; then
	ok "aplog flush --csv ($(($(wc -l <"$OUT/curve.csv") - 1)) rows) and --plot ($(grep -E '^(plot|data):' "$OUT/plot.txt" | tr '\n' ' '))"
else
	bad "aplog flush --csv/--plot: $(head -c 300 "$OUT/plot.txt")"
fi
finish
