#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Run the libFuzzer targets (tests/fuzz/lane.mk builds them).
#   run.sh smoke SECONDS 0 TARGET...   each target SECONDS from the seeds
#   run.sh long SECONDS RUNS TARGET... each in turn, niced; RUNS > 0 stops
#                                      a target after RUNS executions
#   run.sh can-build                   exit 0 if clang links libFuzzer
# One line per target (ok/FAIL with executions and time), then the total.
set -uo pipefail
cd "$(dirname "$0")/../.."
out=${FUZZ_OUT:-build/fuzz}
mode=$1

if [ "$mode" = can-build ]; then
	command -v "${FUZZ_CC:-clang}" >/dev/null 2>&1 || exit 1
	tmp=$(mktemp -d)
	printf 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { (void)d; (void)n; return 0; }\n' >"$tmp/t.c"
	"${FUZZ_CC:-clang}" -fsanitize=fuzzer -o "$tmp/t" "$tmp/t.c" >/dev/null 2>&1
	st=$?
	rm -rf "$tmp"
	exit $st
fi

seconds=$2 runs=$3
shift 3
pass=0 fail=0
for t in "$@"; do
	bin=$out/fuzz_$t
	work=$out/corpus/$t
	seeds=tests/fuzz/corpus/$t
	log=$out/fuzz_$t.$mode.log
	mkdir -p "$work" "$out/crashes"
	# A command line longer than a few KiB only repeats tokens, and parsing
	# 64 KiB inputs under ASan slows the target tenfold.
	max_len=65536
	[ "$t" = cmdline ] && max_len=4096
	# The table's input names a file once for many runs (fuzz_table.c).
	[ "$t" = table ] && max_len=8192
	opts=(-max_total_time="$seconds" -print_final_stats=1 -max_len=$max_len
		-artifact_prefix="$out/crashes/$t-" -timeout=10 -rss_limit_mb=2048)
	[ "$runs" != 0 ] && opts+=(-runs="$runs")
	# aplog reports every bad record on stderr: not the fuzzer's output.
	[ "$t" = aplog ] && opts+=(-close_fd_mask=2)
	nice_cmd=()
	[ "$mode" = long ] && nice_cmd=(nice -n 19)
	t0=$SECONDS
	# New inputs go to the first directory (build/), never to the seeds.
	"${nice_cmd[@]}" "$bin" "${opts[@]}" "$work" "$seeds" >"$log" 2>&1
	st=$?
	execs=$(grep -a 'stat::number_of_executed_units' "$log" | awk '{print $2}' | tail -1)
	if [ $st -eq 0 ] && [ -n "$execs" ]; then
		pass=$((pass + 1))
		echo "ok   fuzz-$t: ${execs} executions in $((SECONDS - t0)) s, 0 crashes ($(ls "$work" | wc -l) corpus files)"
	else
		fail=$((fail + 1))
		echo "FAIL fuzz-$t: exit $st after $((SECONDS - t0)) s (log: $log; inputs: $out/crashes/$t-*)"
		grep -a -E 'ERROR|SUMMARY|runtime error' "$log" | head -5 | sed 's/^/       | /'
	fi
done
echo "fuzz: $pass passed, $fail failed, 0 skipped"
[ $fail -eq 0 ]
