#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# make test: every lane of tests/lanes, timed, and one closing line summing
# the lanes' own counts. Every lane follows the test protocol
# (tests/protocol.sh): one line per check ("ok   NAME", "FAIL NAME: WHY",
# "skip NAME: REASON") and a last line "LANE: N passed, M failed, K
# skipped". This script adds up the last lines, checks them against the
# check lines, names every skip with its reason, and counts as one failure
# a lane that exits non-zero without a failed check, prints no summary, or
# miscounts.
#
# The order: first what several lanes share is built once (make -jN
# test-prep, on every CPU), so that no two lanes build the same file at
# once; then the
# workers (the CPUs + 2, MAKE_TEST_JOBS=N) take the host, qemu and image
# lanes from one queue, the longest first when a last run's times are
# known; last, the lanes that judge wall-clock time (kind
# alone), one at a time with nothing beside them. A lane's output is
# printed when it ends; the summary keeps the file's order.
set -uo pipefail
cd "$(dirname "$0")/.."

summary_re='^(.+): ([0-9]+) passed, ([0-9]+) failed(, ([0-9]+) skipped)?$'
total_pass=0 total_fail=0 total_skip=0 total_cpu=0 t_all=$SECONDS
table=() skips=() problems=()
mkdir -p build

names=() kinds=() whats=()
while read -r lane _folder kind what; do
	case $lane in ''|'#'*) continue ;; esac
	names+=("$lane") kinds+=("$kind") whats+=("$what")
done <tests/lanes

# count NAME LOG STATUS SECONDS: adds a lane's counts, checked against its
# check lines, to the totals and the table.
count() {
	local name=$1 log=$2 st=$3 dt=$4 cpu=${5:-0} p=0 f=0 s=0 lanes=0 line why=
	while IFS= read -r line; do
		[[ $line =~ $summary_re ]] || continue
		p=$((p + BASH_REMATCH[2])) f=$((f + BASH_REMATCH[3])) s=$((s + ${BASH_REMATCH[5]:-0}))
		lanes=$((lanes + 1))
	done < <(tr -d '\r' <"$log")
	local n_ok n_fail n_skip
	n_ok=$(grep -ac '^ok   ' "$log")
	n_fail=$(grep -ac '^FAIL ' "$log")
	n_skip=$(grep -ac '^skip ' "$log")
	while IFS= read -r line; do
		skips+=("$name: ${line#skip }")
	done < <(grep -a '^skip ' "$log")
	if [ $lanes = 0 ]; then
		why="printed no 'N passed, M failed, K skipped' line (exit status $st)"
	elif [ "$n_ok $n_fail $n_skip" != "$p $f $s" ]; then
		why="its counts ($p passed, $f failed, $s skipped) do not match its check lines ($n_ok ok, $n_fail FAIL, $n_skip skip)"
	elif [ "$st" -ne 0 ] && [ $f -eq 0 ]; then
		why="exit status $st without a failed check"
	fi
	if [ -n "$why" ]; then
		f=$((f + 1))
		problems+=("$name: $why")
	fi
	total_pass=$((total_pass + p)) total_fail=$((total_fail + f)) total_skip=$((total_skip + s))
	table+=("$(printf '%-44s %4ds %4ds  %s passed, %s failed, %s skipped' "$name" "$dt" "$cpu" $p $f $s)")
}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# run_lane I: lane I into work/I.log, its status and seconds into work/I.st;
# its output printed whole once it ends.
# The CPU seconds it took (user + system, every process it started) go
# beside its wall time: on 2 cores the sum of CPU is what make test costs.
run_lane() {
	local i=$1 t0=$SECONDS st cpu
	cpu=$( (make --no-print-directory "${names[$i]}-tests" >"$work/$i.log" 2>&1
		echo $? >"$work/$i.rc"; times) | awk 'NR == 2 { u = $1; s = $2
			gsub(/s/, "", u); gsub(/s/, "", s); split(u, a, "m"); split(s, b, "m")
			printf "%d", a[1] * 60 + a[2] + b[1] * 60 + b[2] }')
	read -r st <"$work/$i.rc"
	echo "$st $((SECONDS - t0)) ${cpu:-0}" >"$work/$i.st"
	{
		flock 9
		echo "=== ${whats[$i]}: make ${names[$i]}-tests ($((SECONDS - t0)) s, cpu ${cpu:-?} s)"
		cat "$work/$i.log"
	} 9>"$work/print.lock"
}
# One queue for every lane that may run beside others (kinds host, qemu,
# image: each lane has its own work folder and only reads what test-prep
# built). The longest first, so that no long lane starts last: by the last
# make test's times here (build/lane-times), else by those of a fresh
# clone on a 2-CPU machine (tests/lane-times, committed); a lane in
# neither goes first.
shared=() images=() others=()
for i in "${!names[@]}"; do
	case ${kinds[$i]} in host|qemu) others+=("$i") ;; image) images+=("$i") ;; esac
done
for ((k = 0; k < ${#images[@]} || k < ${#others[@]}; k++)); do
	[ $k -lt ${#images[@]} ] && shared+=("${images[$k]}")
	[ $k -lt ${#others[@]} ] && shared+=("${others[$k]}")
done
times_file=build/lane-times
[ -s $times_file ] || times_file=tests/lane-times
if [ -s $times_file ]; then
	declare -A last
	while read -r lane secs; do [[ $secs =~ ^[0-9]+$ ]] && last[$lane]=$secs; done <$times_file
	mapfile -t shared < <(for i in "${shared[@]}"; do echo "${last[${names[$i]}]:-9999} $i"; done |
		sort -s -k1,1nr | cut -d' ' -f2)
fi
echo 0 >"$work/next"
# next_shared: the index of the next lane in the queue not yet taken, or
# nothing when none is left.
next_shared() {
	{
		flock 8
		local n
		read -r n <"$work/next"
		echo $((n + 1)) >"$work/next"
		[ "$n" -lt ${#shared[@]} ] && echo "${shared[$n]}"
	} 8>"$work/next.lock"
}
drain_shared() {
	local i
	while i=$(next_shared) && [ -n "$i" ]; do run_lane "$i"; done
}

# Workers: two more than the CPUs (most lanes wait on a guest's output or
# a timer half their time: on 2 CPUs, 3 workers left ~24 s of a 493 s make
# test idle, 4 took 428 s), at least 2; MAKE_TEST_JOBS=N sets it.
jobs=${MAKE_TEST_JOBS:-$(($(nproc 2>/dev/null || echo 1) + 2))}
[[ $jobs =~ ^[0-9]+$ ]] && [ "$jobs" -ge 2 ] || { echo "make test: MAKE_TEST_JOBS=$jobs is not a number >= 2, using 2"; jobs=2; }
echo "=== make test: $jobs workers ($(nproc 2>/dev/null || echo '?') CPUs; MAKE_TEST_JOBS=N to change)"
echo "=== make test-prep: what the lanes share, built once"
t0=$SECONDS
if make --no-print-directory -j"$jobs" -Otarget test-prep >"$work/prep.log" 2>&1; then
	echo "ok   test-prep ($((SECONDS - t0)) s)"
else
	tail -n 30 "$work/prep.log"
	problems+=("test-prep: the shared build failed (make test-prep)")
	total_fail=$((total_fail + 1))
fi
workers=()
for ((w = 1; w < jobs; w++)); do
	drain_shared &
	workers+=($!)
done
drain_shared
wait "${workers[@]}"
for i in "${!names[@]}"; do [ "${kinds[$i]}" = alone ] && run_lane "$i"; done
lane_times=() # each lane's wall time, for the next make test's order
for i in "${!names[@]}"; do
	if read -r st dt cpu <"$work/$i.st" 2>/dev/null; then
		lane_times+=("${names[$i]} $dt")
	else
		st=1 dt=0 cpu=0
		echo "no result" >>"$work/$i.log"
	fi
	total_cpu=$((total_cpu + cpu))
	count "${whats[$i]}" "$work/$i.log" "$st" "$dt" "$cpu"
done
printf '%s\n' "${lane_times[@]}" >build/lane-times.new && mv build/lane-times.new build/lane-times
echo
echo "=== make test summary (wall time, CPU time, counts per lane)"
printf '%s\n' "${table[@]}"
if [ ${#problems[@]} -gt 0 ]; then
	echo "counted as failures:"
	printf '  %s\n' "${problems[@]}"
fi
if [ ${#skips[@]} -gt 0 ]; then
	echo "skipped (not run here, and why):"
	printf '  %s\n' "${skips[@]}"
fi
echo "total time: $((SECONDS - t_all))s (CPU $total_cpu s in the lanes)"
echo "$total_pass passed, $total_fail failed, $total_skip skipped"
[ $total_fail -eq 0 ]
