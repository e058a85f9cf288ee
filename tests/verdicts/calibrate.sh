#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# make verdict-calibration: do the verdicts hold? Long (tens of minutes),
# not in make test; the counts go into the notes. Under TCG, -smp 4:
#
#   aa     REPS x make ab with one variant twice (two builds of WBINVD=0),
#          K=10 runs a side: how often is the verdict "no difference"?
#          Then the same with a CPU hog beside QEMU.
#   ab     REPS x WBINVD=1 against WBINVD=0 with FLUSH=us=1000, K=5: how
#          often is the change found (interval excluding 0)? And once
#          without FLUSH: the verdict must be "not measurable here".
#   gate   GATE_REPS x the wall-clock gate of make timing-tests
#          (TIMING_WALL_ONLY=1), GATE_HOG of them with a CPU hog: false
#          alarms (WBINVD=0 "slower" than WBINVD=1, or told apart from its
#          own copy), the slowed builds still caught, and the resolution
#          each run printed.
#
#   gatesim  the gate's sizing rule replayed on measured A/A noise
#          (tests/verdicts/gate-sim.py on tests/verdicts/gate-aa/ and,
#          if there, the last gate's logs): how often it would miss.
#
#   calibrate.sh [aa] [ab] [gate] [gatesim]   (default: all four)
#   REPS=20 GATE_REPS=20 GATE_HOG=6 K_AA=10 K_AB=5 ARGS='cycles=10'
set -uo pipefail
cd "$(dirname "$0")/../.."

REPS=${REPS:-20} GATE_REPS=${GATE_REPS:-20} GATE_HOG=${GATE_HOG:-6}
K_AA=${K_AA:-10} K_AB=${K_AB:-5} ARGS=${ARGS:-cycles=10}
OUT=build/verdict-calibration
mkdir -p "$OUT"
make --no-print-directory flushmodel build/host/aplog >/dev/null || { echo "calibrate: build failed" >&2; exit 1; }
parts=("$@")
[ ${#parts[@]} -gt 0 ] || parts=(aa ab gate gatesim)

hog_pid=
hog_on() { (while :; do :; done) & hog_pid=$!; }
hog_off() { [ -n "$hog_pid" ] && kill "$hog_pid" 2>/dev/null; wait "$hog_pid" 2>/dev/null; hog_pid=; }
trap hog_off EXIT

verdict_of() { sed -n 's/^Verdict: //p' "$1/compare.txt"; }
# keep DIR REP: a repetition's table and its runs' totals, for a look later
keep() {
	cp "$1/compare.txt" "$1-rep$2.compare.txt"
	grep -H '^@summary ' "$1"/run-*.log >"$1-rep$2.summaries.txt" 2>/dev/null
}

aa() { # hog(0|1)
	local same=0 other=() i dir=$OUT/aa$1
	[ "$1" = 1 ] && hog_on
	for i in $(seq 1 "$REPS"); do
		tools/run/ab.sh --runs "$K_AA" --a WBINVD=0 --b WBINVD=0 --out "$dir" --seed "$i" \
			--smp 4 --accel tcg --timeout 120 -- "$ARGS" >/dev/null 2>"$dir.err"
		local v
		v=$(verdict_of "$dir")
		keep "$dir" "$i"
		case $v in "no difference in any row"*) same=$((same + 1)) ;; *) other+=("rep $i: ${v:-no verdict line}") ;; esac
		echo "aa hog=$1 rep $i/$REPS: $v" >&2
	done
	hog_off
	echo "A/A (two builds of WBINVD=0, K=$K_AA, TCG -smp 4, '$ARGS', hog=$1): \"no difference\" in $same of $REPS"
	[ ${#other[@]} -eq 0 ] || printf '  %s\n' "${other[@]}"
}

ab() {
	local found=0 other=() i dir=$OUT/ab v
	for i in $(seq 1 "$REPS"); do
		tools/run/ab.sh --runs "$K_AB" --out "$dir" --seed "$i" --smp 4 --accel tcg --timeout 120 \
			--flush us=1000 -- "$ARGS" >/dev/null 2>"$dir.err"
		v=$(verdict_of "$dir")
		keep "$dir" "$i"
		if grep -q '^Online: .*faster' "$dir/compare.txt"; then found=$((found + 1)); else other+=("rep $i: $v"); fi
		echo "ab rep $i/$REPS: $v" >&2
	done
	echo "A/B (WBINVD=1 against WBINVD=0, FLUSH=us=1000, K=$K_AB, TCG -smp 4, '$ARGS'): Online found faster (95% CI below 0) in $found of $REPS"
	[ ${#other[@]} -eq 0 ] || printf '  %s\n' "${other[@]}"
	grep -E '^(Offline|Online|Total):' "$dir/compare.txt" | sed 's/^/  last: /'
	tools/run/ab.sh --runs "$K_AB" --out "$OUT/ab-noflush" --seed 1 --smp 4 --accel tcg --timeout 120 \
		-- "$ARGS" >/dev/null 2>&1
	echo "A/B without FLUSH: $(verdict_of "$OUT/ab-noflush")"
}

gate() {
	local i alarms=0 missed=0 log hog
	for i in $(seq 1 "$GATE_REPS"); do
		hog=0
		[ "$i" -gt $((GATE_REPS - GATE_HOG)) ] && { hog=1; hog_on; }
		log=$OUT/gate-$i.log
		TIMING_WALL_ONLY=1 tests/timing/run.sh >"$log" 2>&1
		hog_off
		grep -qE '^FAIL wall clock tcg: WBINVD=0 not (slower|told apart)' "$log" && alarms=$((alarms + 1))
		grep -q '^FAIL wall clock tcg: slowed' "$log" && missed=$((missed + 1))
		echo "gate rep $i/$GATE_REPS hog=$hog: $(grep -cE '^ok ' "$log") ok, $(grep -cE '^FAIL' "$log") FAIL, $(sed -n 's/^  \([0-9]*\) rounds;.*/\1 rounds/p' "$log"), $(sed -n 's/^  resolution: the gate resolves changes >= \([0-9.]*%\) of the \([a-z]*\) path.*/\2 \1/p' "$log" | paste -sd ' ')" >&2
	done
	echo "wall-clock gate, $GATE_REPS runs ($GATE_HOG with a CPU hog): $alarms false alarms (WBINVD=0 flagged slower than WBINVD=1 or told apart from its copy), slowed builds missed in $missed"
}

# gatesim: the committed A/A noise, and the last gate run's if there is one.
gatesim() {
	local files=(tests/verdicts/gate-aa/*.txt) last=$OUT/gate-aa-last.txt op
	if ls build/timing/wall-tcg-gate-wbinvd0copy-r*.log >/dev/null 2>&1; then
		for op in online offline; do
			paste <(build/host/aplog medians --op $op build/timing/wall-tcg-gate-wbinvd0-r*.log) \
				<(build/host/aplog medians --op $op build/timing/wall-tcg-gate-wbinvd0copy-r*.log) |
				sed -n 's/.* median_ns=\([0-9]*\) .* median_ns=\([0-9]*\) .*/\1 \2/p' |
				awk '{ printf "%.4f\n", $2 / $1 }' >"$OUT/.gate-aa-$op"
		done
		paste -d' ' "$OUT/.gate-aa-online" "$OUT/.gate-aa-offline" >"$last"
		files+=("$last")
	fi
	tests/verdicts/gate-sim.py "${files[@]}"
}

for p in "${parts[@]}"; do
	case $p in
	aa) aa 0; aa 1 ;;
	ab) ab ;;
	gate) gate ;;
	gatesim) gatesim ;;
	*) echo "calibrate: unknown part '$p' (aa, ab, gate, gatesim)" >&2; exit 2 ;;
	esac
done | tee "$OUT/summary.txt"
