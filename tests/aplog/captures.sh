# SPDX-License-Identifier: MIT
# Real captures (sourced by tests/aplog/run.sh, once per build, with its
# run/pass/bad helpers): a serial capture cut at any byte, endless input,
# standard input, one failed run. capture-2runs.log is two boots of
# `tools/run/qemu-run.sh --smp 3 -- cycles=3` as the serial port gave them (CRLF,
# console text, @phase records).

# csv_rows_are N ARRAY: the last run's CSV, header and first column left
# out, is exactly ARRAY's first N lines (as tail -n +2 | cut -d, -f2- |
# cmp against head -n N would say, with no process).
csv_rows_are() {
	local -n want_rows=$2
	local -a got
	local i
	mapfile -t got <"$tmp/out"
	[ "${#got[@]}" -eq $(($1 + 1)) ] || return 1
	for ((i = 0; i < $1; i++)); do
		[ "${got[i + 1]#*,}" = "${want_rows[i]}" ] || return 1
	done
}

# capture_cases NCUTS: NCUTS random cut offsets (fixed seed, APLOG_CUT_SEED
# to change it).
capture_cases() {
	local ncuts=$1 cap=capture-2runs.log
	local size k m mp want bad_cuts=0 first_boot_end

	# Where each line ends (the offset just past its LF), and its word.
	LC_ALL=C awk 'BEGIN { RS = "\n"; o = 0 } { o += length($0) + 1; print o, $1 }' "$cap" >"$tmp/ends"
	first_boot_end=$(awk '$2 == "@boot" { print $1; exit }' "$tmp/ends")
	"$bin" csv "$cap" | tail -n +2 | cut -d, -f2- >"$tmp/all.csv"
	"$bin" csv --phases "$cap" | tail -n +2 | cut -d, -f2- >"$tmp/allp.csv"
	size=$(stat -c %s "$cap")
	# each cut offset with its complete @sample and @phase lines before it
	awk -v n="$ncuts" -v size="$size" -v seed="${APLOG_CUT_SEED:-23}" \
		'BEGIN { srand(seed); for (i = 0; i < n; i++) print 1 + int(rand() * (size - 1)) }' |
		awk 'NR == FNR { e[NR] = $1; w[NR] = $2; n = NR; next }
		{ m = mp = 0; for (i = 1; i <= n && e[i] <= $1; i++) { m += w[i] == "@sample"; mp += w[i] == "@phase" }
		  print $1, m, mp }' "$tmp/ends" - >"$tmp/cuts"
	# the CSVs compared by the shell (a pipeline a comparison cost ~13
	# processes a cut); a difference is shown by diff
	local -a all allp
	mapfile -t all <"$tmp/all.csv"
	mapfile -t allp <"$tmp/allp.csv"
	while read -r k m mp; do
		head -c "$k" "$cap" >"$tmp/cut.log"
		run csv --allow-truncated "$tmp/cut.log"
		want=0
		[ "$k" -lt "$first_boot_end" ] && want=1
		if [ "$rc" -ne "$want" ]; then
			bad_cuts=$((bad_cuts + 1))
			bad "cut at byte $k: exit $want" "exit $rc"
			continue
		fi
		[ "$want" = 1 ] && continue
		if ! csv_rows_are "$m" all; then
			bad_cuts=$((bad_cuts + 1))
			bad "cut at byte $k: exactly the $m complete samples" \
				"$(tail -n +2 "$tmp/out" | cut -d, -f2- | diff - <(head -n "$m" "$tmp/all.csv") | head -5)"
			continue
		fi
		run csv --phases --allow-truncated "$tmp/cut.log"
		if [ "$rc" -ne 0 ] || ! csv_rows_are "$mp" allp; then
			bad_cuts=$((bad_cuts + 1))
			bad "cut at byte $k: exactly the $mp complete @phase records" "exit $rc"
			continue
		fi
		run stats --allow-truncated "$tmp/cut.log"
		if [ "$rc" -ne 0 ]; then
			bad_cuts=$((bad_cuts + 1))
			bad "cut at byte $k: stats --allow-truncated, exit 0" "exit $rc"
		fi
	done <"$tmp/cuts"
	last_cmd=("$ncuts cuts of $cap")
	if [ $bad_cuts -eq 0 ]; then
		pass "csv/stats --allow-truncated: every complete sample and @phase, no other, exit 0"
	fi

	# The usual cut: mid-number in the last line. Without --allow-truncated,
	# exit 1 and says why; with it, the cut line is named and dropped.
	k=$(awk '$2 == "@sample" { n++ } n == 5 { print $1 - 9; exit }' "$tmp/ends")
	head -c "$k" "$cap" >"$tmp/mid.log"
	run stats "$tmp/mid.log"
	expect_rc 1
	errhas "run truncated: this @boot has no @end"
	errhas "the last line has no newline (a cut capture): dropped, not read"
	run stats --allow-truncated "$tmp/mid.log"
	expect_rc 0
	errhas "the last line has no newline (a cut capture): dropped, not read"
	matches '^  1 +0 +3 +3 +4 +- '   # 4 samples: the 5th, cut, is not one
	# Cut just after a complete line: nothing to drop, no note.
	k=$(awk '$2 == "@sample" { n++ } n == 5 { print $1; exit }' "$tmp/ends")
	head -c "$k" "$cap" >"$tmp/whole.log"
	run stats --allow-truncated "$tmp/whole.log"
	expect_rc 0
	if grep -q "no newline" "$tmp/err"; then bad "a whole last line: no note" "noted"; else pass "a whole last line: no note"; fi

	# Endless input: bounded memory, a clear stop (1 GiB), never a hang.
	if [ "$bin" = "$APLOG" ]; then
		last_cmd=(stats /dev/zero "(ulimit -v 65536, timeout 120)")
		if (ulimit -v 65536; timeout 120 "$bin" stats /dev/zero) >"$tmp/out" 2>"$tmp/err"; then rc=0; else rc=$?; fi
		expect_rc 1
		errhas "/dev/zero:1: more than 1024 MiB of input: stopped reading"
	fi

	# '-' is standard input, once.
	last_cmd=(stats - "< $cap")
	if "$bin" stats - <"$cap" >"$tmp/out" 2>"$tmp/err"; then rc=0; else rc=$?; fi
	expect_rc 0
	has "<stdin>:"
	run stats - -
	expect_rc 2
	errhas "'-' (standard input) can be given once"

	# One failed run: shown as such (its row, its @fail), exit 1.
	run stats "$tmp/one-fail.log"
	expect_rc 1
	matches '^  1 +1 +4 +2 +3 .* FAIL '
	line "run 1 failed: @fail what=offline_timeout apic=2 timeout_ms=1000 ($tmp/one-fail.log:5)"
	has "No statistics: every run failed"
}
