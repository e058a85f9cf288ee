# SPDX-License-Identifier: MIT
# Real captures (sourced by tests/aplog/run.sh, once per build, with its
# run/pass/bad helpers): a serial capture cut at any byte, endless input,
# standard input, one failed run. capture-2runs.log is two boots of
# `tools/run/qemu-run.sh --smp 3 -- cycles=3` as the serial port gave them (CRLF,
# console text, @phase records).

# capture_cases NCUTS: NCUTS random cut offsets (fixed seed, APLOG_CUT_SEED
# to change it).
capture_cases() {
	local ncuts=$1 cap=capture-2runs.log
	local size k m mp want wantp bad_cuts=0 first_boot_end

	# Where each line ends (the offset just past its LF), and its word.
	LC_ALL=C awk 'BEGIN { RS = "\n"; o = 0 } { o += length($0) + 1; print o, $1 }' "$cap" >"$tmp/ends"
	first_boot_end=$(awk '$2 == "@boot" { print $1; exit }' "$tmp/ends")
	"$bin" csv "$cap" | tail -n +2 | cut -d, -f2- >"$tmp/all.csv"
	"$bin" csv --phases "$cap" | tail -n +2 | cut -d, -f2- >"$tmp/allp.csv"
	size=$(stat -c %s "$cap")
	awk -v n="$ncuts" -v size="$size" -v seed="${APLOG_CUT_SEED:-23}" \
		'BEGIN { srand(seed); for (i = 0; i < n; i++) print 1 + int(rand() * (size - 1)) }' >"$tmp/cuts"
	while read -r k; do
		head -c "$k" "$cap" >"$tmp/cut.log"
		# complete @sample / @phase lines before the cut
		m=$(awk -v k="$k" '$1 <= k && $2 == "@sample"' "$tmp/ends" | wc -l)
		mp=$(awk -v k="$k" '$1 <= k && $2 == "@phase"' "$tmp/ends" | wc -l)
		run csv --allow-truncated "$tmp/cut.log"
		want=0
		[ "$k" -lt "$first_boot_end" ] && want=1
		if [ "$rc" -ne "$want" ]; then
			bad_cuts=$((bad_cuts + 1))
			bad "cut at byte $k: exit $want" "exit $rc"
			continue
		fi
		[ "$want" = 1 ] && continue
		head -n "$m" "$tmp/all.csv" >"$tmp/want.csv"
		if ! tail -n +2 "$tmp/out" | cut -d, -f2- | cmp -s - "$tmp/want.csv"; then
			bad_cuts=$((bad_cuts + 1))
			bad "cut at byte $k: exactly the $m complete samples" \
				"$(tail -n +2 "$tmp/out" | cut -d, -f2- | diff - "$tmp/want.csv" | head -5)"
			continue
		fi
		run csv --phases --allow-truncated "$tmp/cut.log"
		head -n "$mp" "$tmp/allp.csv" >"$tmp/wantp.csv"
		if [ "$rc" -ne 0 ] || ! tail -n +2 "$tmp/out" | cut -d, -f2- | cmp -s - "$tmp/wantp.csv"; then
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
