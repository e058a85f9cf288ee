#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Tests for aplog (tools/aplog/). Every case runs against the normal build and the
# ASan/UBSan build; a sanitizer report or a death by signal is a failure.
#   APLOG=build/host/aplog APLOG_ASAN=build/host/aplog_asan bash tests/aplog/run.sh
# (make aplog-tests sets both.)
set -eu

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
abspath() { case $1 in /*) echo "$1" ;; *) echo "$root/$1" ;; esac; }
APLOG=$(abspath "${APLOG:-build/host/aplog}")
APLOG_ASAN=$(abspath "${APLOG_ASAN:-build/host/aplog_asan}")
for b in "$APLOG" "$APLOG_ASAN"; do
	if [ ! -x "$b" ]; then
		echo "aplog tests: $b not built (run: make -f tools/aplog/aplog.mk aplog-tests)" >&2
		exit 1
	fi
done

# Distinct exit codes for sanitizer deaths: aplog itself only uses 0, 1, 2.
export ASAN_OPTIONS=detect_leaks=1:exitcode=86:abort_on_error=0
export UBSAN_OPTIONS=print_stacktrace=1:exitcode=87

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$here" # fixture names in messages stay short and relative

# shellcheck source=tests/protocol.sh
. "$root/tests/protocol.sh"
# A check's name: the build, the command (temporary paths as $tmp), and
# what is asserted about it.
named() { local c="${last_cmd[*]}"; echo "[$label] ${c//$tmp/\$tmp}: $1"; }
pass() { ok "$(named "$1")"; }
bad() { # WHAT WHY: with the command's output below
	fail "$(named "$1")" "$2" "$(sed 's/^/stdout: /' "$tmp/out" | head -20)" \
		"$(sed 's/^/stderr: /' "$tmp/err" | head -20)"
}

# run ARGS...: runs the binary under test, keeps stdout/stderr/status, and
# fails the case at once on a sanitizer report or a signal.
# Every line aplog writes to stderr starts with "aplog: " (a usage error's
# second line, "see aplog COMMAND --help", belongs to its first): each
# run's are checked, the first few that do not are kept for one check per
# build (unprefixed_report).
prefixed='^(aplog: |see aplog ([a-z-]+ )?--help$)'
run() {
	last_cmd=("$@")
	local path=$PATH
	[ -n "${nopath:-}" ] && path=/nonexistent
	if PATH=$path "$bin" "$@" >"$tmp/out" 2>"$tmp/err"; then rc=0; else rc=$?; fi
	# stderr read by the shell, not by two greps a run (~2800 processes
	# over the lane); grep where it holds a NUL (read stops there)
	local err= line other= nul=0
	IFS= read -r -d '' err <"$tmp/err" && nul=1
	if [ "$rc" -ge 86 ] || { [ $nul = 0 ] && [[ $err == *AddressSanitizer* || $err == *LeakSanitizer* ||
		$err == *"runtime error:"* ]]; } ||
		{ [ $nul = 1 ] && grep -qE 'AddressSanitizer|LeakSanitizer|runtime error:' "$tmp/err"; }; then
		bad "no crash, no sanitizer report" "status $rc"
	fi
	runs=$((runs + 1))
	if [ $nul = 1 ]; then
		if grep -qvE "$prefixed" "$tmp/err"; then
			other=$(grep -m1 -vE "$prefixed" "$tmp/err" | cut -c1-160)
			other=${other:- }
		fi
	elif [ -n "$err" ]; then
		while IFS= read -r line; do
			[[ $line =~ $prefixed ]] || { other=${line:- }; break; }
		done <<<"${err%$'\n'}"
	fi
	if [ -n "$other" ]; then
		unprefixed=$((unprefixed + 1))
		[ "$unprefixed" -le 5 ] && unprefixed_seen+=("$(named "") ${other:0:160}")
	fi
	return 0
}
unprefixed_report() {
	if [ "$unprefixed" = 0 ]; then
		ok "[$label] every stderr line of $runs runs starts with 'aplog: '"
	else
		fail "[$label] every stderr line starts with 'aplog: '" "$unprefixed of $runs runs wrote other lines, e.g." \
			"$(printf '%s\n' "${unprefixed_seen[@]}")"
	fi
}
expect_rc() { if [ "$rc" -eq "$1" ]; then pass "exit $1"; else bad "exit $1" "exit status $rc"; fi; }
# in_file -x|-s TEXT FILE: FILE has TEXT as a whole line (-x) or inside a
# line (-s), as grep -Fxq / -Fq say; read by the shell (a grep a check
# was ~600 processes a build), by grep where a NUL stops read.
in_file() {
	local t LC_ALL=C
	if IFS= read -r -d '' t <"$3"; then
		if [ "$1" = -x ]; then grep -Fxq -- "$2" "$3"; else grep -Fq -- "$2" "$3"; fi
		return
	fi
	[ -n "$t" ] || return 1 # no line at all
	t=${t%$'\n'}
	if [ "$1" = -x ]; then [[ $'\n'$t$'\n' == *$'\n'"$2"$'\n'* ]]; else [[ $t == *"$2"* ]]; fi
}
# exact whole line on stdout / stderr
line() { if in_file -x "$1" "$tmp/out"; then pass "stdout line '$1'"; else bad "stdout line '$1'" "no such line"; fi; }
errline() { if in_file -x "$1" "$tmp/err"; then pass "stderr line '$1'"; else bad "stderr line '$1'" "no such line"; fi; }
has() { if in_file -s "$1" "$tmp/out"; then pass "stdout has '$1'"; else bad "stdout has '$1'" "it does not"; fi; }
errhas() { if in_file -s "$1" "$tmp/err"; then pass "stderr has '$1'"; else bad "stderr has '$1'" "it does not"; fi; }
lacks() { if grep -Eq -- "$1" "$tmp/out"; then bad "stdout lacks /$1/" "it matches"; else pass "stdout lacks /$1/"; fi; }
matches() { if grep -Eq -- "$1" "$tmp/out"; then pass "stdout matches /$1/"; else bad "stdout matches /$1/" "no line does"; fi; }
# some stdout row whose first field is $1 must read $2 (blanks squeezed)
row() {
	local got
	got=$(awk -v k="$1" '$1 == k' "$tmp/out" | tr -s ' ' | sed 's/^ //')
	if printf '%s\n' "$got" | grep -Fxq -- "$2"; then pass "row '$2'"; else bad "row '$2'" "rows '$1' are '$got'"; fi
}

# ---- inputs made here ------------------------------------------------------
# One AP, 20 cycles, online ns = 20000 down to 1000: hand-computed stats are
# mean 10.500 us, median 10.500, min 1.000, max 20.000, p95 (19th of 20) 19.000.
{
	echo "@boot kernel=apstart version=0.1 wbinvd=0 cpus=2 x2apic=0 tsc_khz=1000000 tsc_source=cpuid tramp=0x8000 firmware=bios cycles=20"
	for k in $(seq 20 -1 1); do
		echo "@sample cpu=1 apic=5 cycle=$((21 - k)) op=offline ns=700 ticks=700"
		echo "@sample cpu=1 apic=5 cycle=$((21 - k)) op=online ns=$((k * 1000)) ticks=$((k * 1000))"
	done
	echo "@end status=pass online=2 failed=0"
} >"$tmp/p95.log"

# settled-a.log with one AP's figures na although @cpu says tsc_sync=1;
# with a settled_ns that is neither a number nor na; with that AP not
# synchronised (tsc_sync=0, figures na: a valid log); the same with a
# number (as a wrapped difference would give) where na belongs, in ap_ns
# and in to_real_ns; with an ap_ns above ns.
sed 's/^\(@sample cpu=1 .*\)settled_ns=[0-9]*/\1settled_ns=na/; s/^\(@sample cpu=1 .*\)ap_ns=[0-9]*/\1ap_ns=na/
	s/^\(@sample cpu=1 .*\)to_real_ns=[0-9]*/\1to_real_ns=na/' \
	settled-a.log >"$tmp/settled-na.log"
sed '/^@sample cpu=2 apic=2 cycle=1 op=offline/s/settled_ns=[0-9]*/settled_ns=soon/' settled-a.log >"$tmp/settled-bad.log"
sed 's/^\(@cpu cpu=1 .*\)tsc_skew_ns=0 tsc_sync=1/\1tsc_skew_ns=-40000000 tsc_sync=0/' "$tmp/settled-na.log" >"$tmp/settled-skew.log"
sed '/^@sample cpu=1 apic=1 cycle=1 op=online/s/ap_ns=na/ap_ns=999999999999999/' "$tmp/settled-skew.log" >"$tmp/settled-wrapped.log"
sed '/^@sample cpu=1 apic=1 cycle=1 op=online/s/ap_ns=400000000/ap_ns=600000000/' settled-a.log >"$tmp/settled-above.log"
sed '/^@sample cpu=1 apic=1 cycle=1 op=online/s/to_real_ns=na/to_real_ns=300000000/' "$tmp/settled-skew.log" >"$tmp/settled-real.log"
# The same runs through Linux's trampoline (trampoline=linux): it takes no
# real-mode mark, so to_real_ns is na whatever the TSCs; one that says a
# number is wrong. Two blobs, or a blob and apstart's own, are two sides.
sed -e '/^@boot /a @trampoline kind=linux wbinvd=0 linux_version=6.1.0-57-amd64 blob_sha256=aaaa' \
	-e 's/to_real_ns=[0-9]*/to_real_ns=na/' settled-a.log >"$tmp/linux-a.log"
sed '/^@sample cpu=1 apic=1 cycle=1 op=online/s/to_real_ns=na/to_real_ns=300000000/' \
	"$tmp/linux-a.log" >"$tmp/linux-real.log"
sed 's/blob_sha256=aaaa/blob_sha256=bbbb/' "$tmp/linux-a.log" >"$tmp/linux-b.log"

# phases.log (hand-made, hand-computed: real 5000 and 7000 ns -> median
# 6.000 us; seen one number, one na; cycle 0 left out of the table;
# online rounds 7000 and 9000 -> median 8.000): B with real +200 ns each,
# and with a phase name the kernel does not have.
sed 's/phase=real ns=\([57]\)000/phase=real ns=\1200/' phases.log >"$tmp/phases-slow.log"
sed 's/phase=tables/phase=warp/' phases.log >"$tmp/phases-bad.log"

# smp4 without apic=3 (a CPU that did not come up), and a baseline without it.
grep -v 'apic=3 ' smp4.log >"$tmp/smp3.log"
grep -v 'apic=3 ' smp4.baseline >"$tmp/smp3.baseline"
# verify, check --identical: one changed figure each, one missing sample,
# a field aplog does not read, one failed run alone.
sed 's/ns=1200000 ticks=3600000/ns=0 ticks=3600000/' smp4.log >"$tmp/zero.log"
sed '/cpu=2 apic=2 cycle=2 op=online/d' smp4.log >"$tmp/short.log"
sed 's/cpu=2 apic=2 cycle=2 op=online ns=3000000 ticks=9000000/& to_real_ns=5/' smp4.log >"$tmp/extra-field.log"
head -7 fail-run.log >"$tmp/one-fail.log"
# Two samples 1000 and 1001 ns: the kernel's median rounds down to 1000.
{
	head -1 smp4.log
	echo "@sample cpu=1 apic=1 cycle=1 op=online ns=1000 ticks=1"
	echo "@sample cpu=1 apic=1 cycle=2 op=online ns=1001 ticks=1"
	echo "@end status=pass online=4 failed=0"
} >"$tmp/odd.log"

# Junk: the tool's own binary (every byte value, NULs), gzip output, one
# line of 100 KiB, an @sample whose value is 70 KiB long, an @boot followed
# by 70 KiB of blanks, NUL bytes inside a record.
cp "$APLOG" "$tmp/binary.log"
gzip -n -c wbinvd1.log >"$tmp/gzip.log"
head -c 102400 /dev/zero | tr '\0' 'x' >"$tmp/longline.txt"
{ cat "$tmp/longline.txt"; echo; cat smp4.log; cat "$tmp/longline.txt"; } >"$tmp/long-ok.log"
{ head -1 smp4.log; printf '@sample cpu=1 apic=1 cycle=1 op=online ns='; head -c 71680 /dev/zero | tr '\0' '7'; echo ' ticks=1'; } >"$tmp/long-num.log"
{ head -1 smp4.log; printf '@sample cpu=1 apic=1 cycle=1 op=online ns='; cat "$tmp/longline.txt"; echo ' ticks=1'; } >"$tmp/long-val.log"
{ printf '@boot'; head -c 71680 /dev/zero | tr '\0' ' '; echo; } >"$tmp/long-blank.log"
{ head -1 smp4.log; printf '@sample cpu=1 apic=1 cycle=1 op=on\0line ns=5 ticks=5\n@end status=pass online=2 failed=0\n'; } >"$tmp/nul.log"
{ head -1 smp4.log; printf '@sample '; for i in $(seq 1 200); do printf 'k%d=1 ' "$i"; done; echo; } >"$tmp/many-fields.log"
head -13 wbinvd1.log >"$tmp/wbinvd1-cut.log" # cut off after cpu=2's first offline
sed 's/^@boot/@sample/' smp4.log >"$tmp/all-samples.log"
printf '@\n@@\n@ boot\n@bootx y=1\n@end\n' >"$tmp/at-junk.log"
mkdir "$tmp/a-directory"

# Two large sets for speed: 479 APs x 10 cycles each (9580 samples a side).
big() { # wbinvd online_scale
	awk -v wb="$1" -v sc="$2" 'BEGIN {
		printf "@boot kernel=apstart version=0.1 wbinvd=%d cpus=480 x2apic=1 tsc_khz=2000000 tsc_source=cpuid tramp=0x8000 firmware=uefi cycles=10\n", wb
		x = 12345
		for (c = 1; c < 480; c++) for (k = 1; k <= 10; k++) {
			x = (x * 1103515245 + 12345) % 2147483648
			printf "@sample cpu=%d apic=%d cycle=%d op=offline ns=%d ticks=1\n", c, 2 * c, k, 84000000 + x % 1000000
			x = (x * 1103515245 + 12345) % 2147483648
			printf "@sample cpu=%d apic=%d cycle=%d op=online ns=%d ticks=1\n", c, 2 * c, k, sc * (22000000 + x % 1000000)
		}
		print "@end status=pass online=480 failed=0"
	}'
}
big 1 6 >"$tmp/big1.log"
big 0 1 >"$tmp/big0.log"

# Deterministic mutations of the fixtures (bash's RANDOM with a fixed seed).
RANDOM=4242
chars=('=' ' ' '\n' '9' '@' '\0' '\r' 'x' '-' '\xff' '\t' '0')
nfuzz=40
for i in $(seq 1 $nfuzz); do
	src=wbinvd1.log
	[ $((i % 3)) -eq 0 ] && src=smp4.log
	f="$tmp/fuzz$i.log"
	cp "$src" "$f"
	size=$(stat -c %s "$f")
	for _ in 1 2 3 4; do
		pos=$(((RANDOM * 32768 + RANDOM) % size))
		# the byte drawn here: RANDOM inside the pipeline's subshell was
		# that subshell's (bash reseeds it), a new byte every lane run
		c=${chars[RANDOM % ${#chars[@]}]}
		printf '%b' "$c" | dd of="$f" bs=1 seek="$pos" conv=notrunc status=none
	done
	if [ $((i % 4)) -eq 0 ]; then
		truncate -s $(((RANDOM * 32768 + RANDOM) % size)) "$f"
	fi
done
# Line-level: random sequences of real fixture lines exercise the run state
# machine (@boot/@end order, duplicates, runs cut short, mixed runs).
mapfile -t pool < <(cat wbinvd1.log smp4.log smp1.log fail-run.log qr-scan.log bad/*.log)
nlines=${#pool[@]}
for i in $(seq $((nfuzz + 1)) $((nfuzz + 20))); do
	n=$((RANDOM % 40 + 1)) # drawn here, not in $(...)'s subshell
	for _ in $(seq 1 $n); do
		printf '%s\n' "${pool[RANDOM % nlines]}"
	done >"$tmp/fuzz$i.log"
done
# Every third one starts with a good run so that some of them parse.
for i in $(seq $((nfuzz + 1)) 3 $((nfuzz + 20))); do
	cat smp4.log "$tmp/fuzz$i.log" >"$tmp/fz" && mv "$tmp/fz" "$tmp/fuzz$i.log"
done
nfuzz=$((nfuzz + 20))

# shellcheck source=tests/aplog/captures.sh
. "$here/captures.sh"

# ---- the cases, once per build ---------------------------------------------
for bin in "$APLOG" "$APLOG_ASAN"; do
	label=$(basename "$bin")
	runs=0 unprefixed=0 unprefixed_seen=()

	# compare: the reference's rows from totals computed by hand (A runs
	# 65.80+65.86 / 40.38+40.42, B runs 11.10+11.18 / 40.44+40.48); two
	# runs per side are too few for a verdict
	run compare wbinvd1.log -- wbinvd0-run1.log wbinvd0-run2.log
	expect_rc 0
	line "Offline:  40.40 s -> 40.46 s (+0.1%) no verdict: 2 runs per side cannot tell the change from run-to-run noise"
	line "Online:   65.83 s -> 11.14 s (-83.1%) no verdict: 2 runs per side cannot tell the change from run-to-run noise"
	line "Total:    106.23 s -> 51.60 s (-51.4%) no verdict: 2 runs per side cannot tell the change from run-to-run noise"
	line "Verdict: none: 2 complete runs per side cannot tell the change from run-to-run noise (at least 3 per side needed)"
	lacks 'faster|slower'
	# per-CPU: apic 2 medians 10.975 s and 1.86 s, in units that fit
	row 2 "2 10.98 s 1.86 s 0.169"
	row 4 "4 10.98 s 1.86 s 0.169"
	cp "$tmp/out" "$tmp/compare1"
	run compare wbinvd1.log -- wbinvd0-run1.log wbinvd0-run2.log
	if cmp -s "$tmp/out" "$tmp/compare1"; then pass "same output as the first time"; else bad "same output as the first time" "not reproducible"; fi
	run compare --label-a 'with wbinvd' --label-b without wbinvd1.log -- wbinvd0-run1.log wbinvd0-run2.log
	has "A: with wbinvd: 2 runs"
	has "B: without: 2 runs"

	# runs are the unit (tests/aplog/ref/, made by mkref.py): the
	# reference's three rows from 10 runs a side, with Welch's interval
	# (checked against scipy below) and the words that follow from it
	run compare ref/reference-wbinvd1.log -- ref/reference-wbinvd0.log
	expect_rc 0
	line "Offline:  40.42 s -> 40.33 s (-0.2%, 95% CI -1.6..+1.2%) no difference, mean of 10 runs"
	line "Online:   65.77 s -> 11.19 s (-83.0%, 95% CI -83.7..-82.3%) faster, mean of 10 runs"
	line "Total:    106.19 s -> 51.52 s (-51.5%, 95% CI -52.1..-50.9%) faster, mean of 10 runs"
	line "Verdict: Online faster (-83.0%), Total faster (-51.5%); Offline no difference"
	line "  online median: 10.96 s -> 1.86 s (-83.0%, 95% CI -83.7..-82.3%) faster, mean of 10 runs"
	lacks EMULATED
	# the same build twice: no difference; unequal run counts
	run compare ref/aa-a.log -- ref/aa-b.log
	line "Verdict: no difference in any row (each 95% CI holds 0)"
	run compare ref/small-a.log -- ref/small-b.log
	line "Online:   12.37 ms -> 10.94 ms (-11.6%, 95% CI -27.4..+4.3%) no difference, mean of 3 and 4 runs"
	# emulated, no flush model: a WBINVD A/B is not measurable, whatever
	# the interval says (Online's here excludes 0: the host's noise)
	run compare ref/tcg-wbinvd1.log -- ref/tcg-wbinvd0.log
	line "EMULATED: WBINVD costs nothing here (QEMU TCG); a difference between the variants is the host's"
	line "Online:   2.22 ms -> 1.71 ms (-23.1%, 95% CI -44.7..-1.4%) not measurable here, mean of 4 runs"
	matches '^Verdict: not measurable here: the two builds differ in WBINVD only'
	lacks 'faster|slower|no difference'
	# ... but the same emulated build against itself is judged, with the note
	run compare ref/tcg-wbinvd0.log -- ref/tcg-wbinvd0-again.log
	line "EMULATED: WBINVD costs nothing here (QEMU TCG); no figure below includes a flush's cost"
	matches '^Online: .* no difference, mean of 4 runs$'
	# build facts: labels are checked against @boot, a side is one build,
	# a file is on one side once
	run compare --label-a WBINVD=0 --label-b WBINVD=1 ref/reference-wbinvd1.log -- ref/reference-wbinvd0.log
	expect_rc 1
	errline "aplog: --label-a says WBINVD=0, but set A's runs say wbinvd=1 in @boot (ref/reference-wbinvd1.log:1): files swapped? (--force compares them anyway)"
	run compare --force --label-a WBINVD=0 --label-b WBINVD=1 ref/reference-wbinvd1.log -- ref/reference-wbinvd0.log
	expect_rc 0
	run compare --label-a 'WBINVD=1, arch=x86_64' --label-b wbinvd=0 ref/reference-wbinvd1.log -- ref/reference-wbinvd0.log
	expect_rc 0
	run compare ref/aa-a.log -- ref/aa-a.log
	expect_rc 1
	errline "aplog: ref/aa-a.log is in both sets: a log compared with itself tells nothing"
	run compare ref/aa-a.log ref/aa-a.log -- ref/aa-b.log
	expect_rc 1
	errline "aplog: ref/aa-a.log is given twice in set A: each run counts once"
	run compare ref/reference-wbinvd1.log ref/reference-wbinvd0.log -- ref/aa-b.log
	expect_rc 1
	errline "aplog: set A mixes builds: wbinvd=1 (ref/reference-wbinvd1.log:1) and wbinvd=0 (ref/reference-wbinvd0.log:1); a side is one build (--force compares them anyway)"
	# scipy's Welch interval on the same runs, read by its own parser
	if [ "$bin" = "$APLOG" ]; then
		for pair in "reference-wbinvd1 reference-wbinvd0" "aa-a aa-b" "small-a small-b" \
			"tcg-wbinvd1 tcg-wbinvd0"; do
			set -- $pair
			/usr/bin/python3 ref/verdict_ref.py "$bin" "ref/$1.log" "ref/$2.log" >"$tmp/ref.txt" 2>&1 || true
			if grep -q '^skip ' "$tmp/ref.txt"; then
				skip "verdict reference $1 -- $2" "python3-scipy is not installed"
			else
				while IFS= read -r l; do
					case $l in
					"ok   "*) ok "${l#ok   }" ;;
					"FAIL "*) fail "${l#FAIL }" "" ;;
					*) fail "verdict reference $1 -- $2" "$l" ;;
					esac
				done <"$tmp/ref.txt"
			fi
		done
	fi

	# a failed run is left out with a warning; a side without samples
	run compare fail-run.log -- smp4.log
	expect_rc 0
	line "Online:   11.10 ms -> 11.10 ms (+0.0%) no verdict: 1 run per side cannot tell the change from run-to-run noise"
	errhas "fail-run.log:1: warning: run 1 ended with status=fail (online=2 failed=1): excluded from the comparison"
	run compare smp1.log -- smp4.log
	expect_rc 0
	line "Online:   0 ns -> 11.10 ms no verdict: 1 run per side cannot tell the change from run-to-run noise"
	line "  online median: n/a -> 1.90 ms no verdict: 0 and 1 runs cannot tell the change from run-to-run noise"

	# stats
	run stats smp4.log
	expect_rc 0
	row 2 "2 2 | 2 2000.00 2000.00 1000.00 3000.00 3000.00 | 2 500.000 500.000 500.000 500.000 500.000"
	row 3 "3 3 | 2 2050.00 2050.00 2000.00 2100.00 2100.00 | 2 500.000 500.000 450.000 550.000 550.000"
	line "Online: 11.10 ms"
	line "Offline: 3.00 ms"
	run stats wbinvd1.log
	expect_rc 0
	line "Mean of 2 runs:"
	line "Online: 65.83 s"
	line "Offline: 40.40 s"
	line "Total: 106.23 s"
	matches '^ +1 +1 +4 +2 +12 +65800\.000 +40380\.000 +106180\.000 +pass +wbinvd1\.log:4$'
	matches '^ +2 +1 +4 +2 +12 +65860\.000 +40420\.000 +106280\.000 +pass +wbinvd1\.log:30$'
	run stats "$tmp/p95.log"
	expect_rc 0
	row 1 "1 5 | 20 10.500 10.500 1.000 20.000 19.000 | 20 0.700 0.700 0.700 0.700 0.700"
	run stats smp1.log
	expect_rc 0
	line "No AP samples: only the BSP was present (cpus=1)"
	line "Online: 0 ns"
	line "Total: 0 ns"
	run stats fail-run.log
	expect_rc 0
	matches 'FAIL +fail-run\.log:1$'
	line "Online: 11.10 ms"
	line "Offline: 3.00 ms"
	run stats summary-mismatch.log
	expect_rc 0
	errline "aplog: summary-mismatch.log:4: warning: @summary op=online total_ns=123 but the run's 1 online samples sum to 900000 (lost serial lines?)"

	# check --baseline
	run check --baseline smp4.baseline smp4.log
	expect_rc 0
	matches '^OK: 6 AP/op medians within 5% of baseline smp4.baseline'
	run check --baseline smp4.baseline smp4-slow.log
	expect_rc 1
	line "REGRESSION apic=3 op=online median_ns=2665000 baseline=2050000 bound=2152500 (+30.0%)"
	lacks 'apic=[12] '
	run check --baseline smp4.baseline --tolerance 35 smp4-slow.log
	expect_rc 0
	run check --baseline smp4.baseline "$tmp/smp3.log"
	expect_rc 1
	line "MISSING apic=3 op=online: in the baseline (median_ns=2050000) but no samples in the logs"
	run check --baseline "$tmp/smp3.baseline" smp4.log
	expect_rc 1
	line "EXTRA apic=3 op=online: median_ns=2050000 in the logs but not in the baseline"

	# baseline: same entries as the hand-written file, and it round-trips
	run baseline --tolerance 5 --mode icount --config '-smp 4' smp4.log
	expect_rc 0
	cp "$tmp/out" "$tmp/gen.baseline"
	line "mode=icount"
	line "tolerance_pct=5"
	line "config=-smp 4"
	if diff <(grep '^apic=' "$tmp/gen.baseline" | sed 's/ n=2$//') <(grep '^apic=' smp4.baseline) >/dev/null; then pass "entries as in smp4.baseline"; else bad "entries as in smp4.baseline" "they differ"; fi
	run check --baseline "$tmp/gen.baseline" smp4.log
	expect_rc 0
	run baseline smp4-slow.log
	cp "$tmp/out" "$tmp/slow.baseline"
	line "tolerance_pct=5"
	line "mode=unspecified"
	# 23% faster than a baseline fails unless --allow-faster
	run check --baseline "$tmp/slow.baseline" smp4.log
	expect_rc 1
	line "FASTER apic=3 op=online median_ns=2050000 baseline=2665000 bound=2531750 (-23.1%)"
	run check --baseline "$tmp/slow.baseline" --allow-faster smp4.log
	expect_rc 0
	run diff-baseline smp4.baseline "$tmp/slow.baseline"
	expect_rc 0
	line "apic=3 op=online median_ns 2050000 -> 2665000 (+30.0%)"
	line "diff-baseline: 1 changed, 0 added, 0 removed, 5 unchanged"
	run diff-baseline "$tmp/smp3.baseline" smp4.baseline
	line "apic=3 op=online added (median_ns=2050000)"
	run diff-baseline smp4.baseline "$tmp/no-such.baseline"
	expect_rc 1
	printf 'tolerance_pct=5\napic=1 op=online median_ns=5\napic=1 op=online median_ns=6\nbogus line\n' >"$tmp/bad.baseline"
	run check --baseline "$tmp/bad.baseline" smp4.log
	expect_rc 1
	errhas "bad.baseline:4: expected key=value or apic=A op=... median_ns=T, got 'bogus line'"
	errhas "bad.baseline:3: duplicate entry apic=1 op=online"

	# exact: per phase, per cycle, every *_ns key and @phase record
	run exact-baseline --config "test" settled-a.log
	expect_rc 0
	cp "$tmp/out" "$tmp/a.exact"
	has "# aplog exact-baseline"
	matches '^apic=1 op=offline phase=settled_ns n=[0-9]+ values=[0-9,]+$'
	run exact "$tmp/a.exact" -- settled-a.log
	expect_rc 0
	matches '^exact: all [0-9]+ phases identical'
	# one figure moved by +7 in one cycle, and @phase records on one side
	awk '!done && /^@sample .*apic=1 .*op=online/ { sub(/ ns=[0-9]+/, "&X"); done = 1 } { print }' settled-a.log |
		awk '{ if (match($0, / ns=[0-9]+X/)) { v = substr($0, RSTART + 4, RLENGTH - 5) + 7
			$0 = substr($0, 1, RSTART - 1) " ns=" v substr($0, RSTART + RLENGTH) } print }
		/^@sample .*apic=2 .*cycle=1 op=online/ { print "@phase cpu=2 apic=2 cycle=1 phase=real ns=40" }' >"$tmp/moved.log"
	run exact "$tmp/a.exact" -- "$tmp/moved.log"
	expect_rc 1
	matches '^DIFF apic=1 op=online phase=ns: .*cycle 1 [0-9]+ -> [0-9]+ \(\+7\);'
	line "NEW  apic=2 op=online phase=@phase:real: in $tmp/moved.log, not in $tmp/a.exact"
	matches '^exact: 2 of [0-9]+ phases differ'
	run exact-diff "$tmp/a.exact" -- "$tmp/moved.log"
	expect_rc 0
	matches '^exact-diff: 2 of [0-9]+ phases changed$'
	printf '# aplog exact-baseline\napic=1 op=online phase=ns n=3 values=5,6\napic=x op=online phase=ns n=1 values=1\n' >"$tmp/bad.exact"
	run exact "$tmp/bad.exact" -- settled-a.log
	expect_rc 1
	errhas "bad.exact:2: n=3 but 2 values"
	errhas "bad.exact:3:"
	run exact settled-a.log
	expect_rc 2
	# bring-up @phase records are cycle 0: the baseline keeps each value's
	# cycle (cycles=), and a value is compared with the same cycle
	awk '{ print } /^@sample .*apic=2 .*cycle=1 op=online/ {
		print "@phase cpu=2 apic=2 cycle=0 phase=real ns=52"
		print "@phase cpu=2 apic=2 cycle=1 phase=real ns=40"
		print "@phase cpu=2 apic=2 cycle=0 phase=lapic ns=9"
		print "@phase cpu=2 apic=2 cycle=2 phase=lapic ns=8" }' settled-a.log >"$tmp/c0.log"
	run exact-baseline "$tmp/c0.log"
	expect_rc 0
	cp "$tmp/out" "$tmp/c0.exact"
	line "apic=2 op=online phase=@phase:real n=2 cycles=0-1 values=52,40"
	line "apic=2 op=online phase=@phase:lapic n=2 cycles=0,2 values=9,8"
	matches '^apic=1 op=online phase=ns n=[0-9]+ values='
	run exact "$tmp/c0.exact" -- "$tmp/c0.log"
	expect_rc 0
	matches '^exact: all [0-9]+ phases identical'
	# the same values on cycles 1-2 are not the same run
	sed 's/ cycles=0-1 / /' "$tmp/c0.exact" >"$tmp/c1.exact"
	run exact "$tmp/c1.exact" -- "$tmp/c0.log"
	expect_rc 1
	matches '^DIFF apic=2 op=online phase=@phase:real: .*1 cycle\(s\) only in A \(first: 2\); 1 cycle\(s\) only in B \(first: 0\)'
	printf '# aplog exact-baseline\napic=1 op=online phase=ns n=2 cycles=3-5 values=5,6\napic=1 op=online phase=ap_ns n=2 cycles=4,4 values=1,2\napic=1 op=online phase=to_real_ns n=2 cycles=1,x values=1,2\n' >"$tmp/badc.exact"
	run exact "$tmp/badc.exact" -- settled-a.log
	expect_rc 1
	errhas "badc.exact:2: cycles=3-5 is not a range F-L of n=2 cycles"
	errhas "badc.exact:3: cycles=4,4 is not n=2 rising cycle numbers"
	errhas "badc.exact:4: cycles=1,x is not n=2 rising cycle numbers"

	# verify: what the QEMU tests assert about one boot
	run verify --wbinvd 1 --cpus 4 --cycles 2 --boot firmware=uefi --boot protocol=mb2 smp4.log
	expect_rc 0
	line "OK: smp4.log: status=pass, 4 CPUs online, 3 APs, 12 samples, none zero"
	run verify --wbinvd 0 --cpus 8 --cycles 3 --boot protocol=mb1 --boot run_id=r1 smp4.log
	expect_rc 1
	line "verify: smp4.log:1: @boot wbinvd=1, want 0"
	line "verify: smp4.log:1: @boot cpus=4, want 8"
	line "verify: smp4.log:1: @boot cycles=2, want 3"
	line "verify: smp4.log:1: @boot protocol=mb2, want protocol=mb1"
	line "verify: smp4.log:1: @boot has no run_id, want run_id=r1"
	line "verify: smp4.log:16: @end online=4, want 8"
	line "verify: smp4.log:1: apic 2: 2 online / 2 offline samples, want 3 each"
	line "verify: smp4.log:1: 3 APs with samples, want 7"
	line "FAIL: 10 problems in smp4.log"
	run verify --cpus 4 --cycles 2 "$tmp/smp3.log"
	expect_rc 1
	has ": 2 APs with samples, want 3"
	run verify --cpus 4 --cycles 2 "$tmp/short.log"
	expect_rc 1
	has ": apic 2: 1 online / 2 offline samples, want 2 each"
	run verify --cpus 4 "$tmp/zero.log"
	expect_rc 1
	has "zero.log:3: @sample with ns=0"
	run verify "$tmp/one-fail.log"
	expect_rc 1
	has "one-fail.log:7: @end status=fail, want pass"
	has "one-fail.log:7: @end failed=1, want 0"
	has "one-fail.log:5: @fail record (1 in all), want none"
	run verify --status fail --online 2 --failed 1 "$tmp/one-fail.log"
	expect_rc 0
	# @end warnings=N (kernel/warn.h): a passing run must have none
	# unless --warnings says how many; logs without the key are not held
	# to it, an explicit --warnings is.
	sed 's/^@end status=pass online=4 failed=0$/& warnings=2/' smp4.log >"$tmp/warn.log"
	run verify --cpus 4 "$tmp/warn.log"
	expect_rc 1
	has "warn.log:16: @end warnings=2, want 0"
	run verify --cpus 4 --warnings 2 "$tmp/warn.log"
	expect_rc 0
	run verify --cpus 4 --warnings 0 smp4.log
	expect_rc 1
	has "smp4.log:16: @end has no warnings=, want 0"
	# Samples marked nmi=1 (an NMI inside the window, smp/events.c):
	# verify takes the run (its event warnings do not count against it);
	# the statistics leave the sample out and say so, unless --with-nmi.
	sed -e 's/^\(@sample cpu=2 apic=2 cycle=2 op=online .*\)$/\1 nmi=1/' \
	    -e '/ nmi=1$/!s/^@sample .*[0-9]$/& nmi=0/' \
	    -e 's/^@end status=pass online=4 failed=0$/@warn what=nmi apic=0 count=1 reason=unknown port61=0x20\n& warnings=1 nmis=1/' \
	    smp4.log >"$tmp/nmi.log"
	run verify --cpus 4 --cycles 2 "$tmp/nmi.log"
	expect_rc 0
	run stats "$tmp/nmi.log"
	expect_rc 0
	line "1 samples marked nmi=1 (an NMI inside their window) are left out of every figure below (--with-nmi keeps them)"
	matches "^ +all \| +5 .*\| +6 "
	lacks "3000\.00"
	run stats --with-nmi "$tmp/nmi.log"
	expect_rc 0
	line "1 samples marked nmi=1 (an NMI inside their window) are counted (--with-nmi)"
	matches "^ +all \| +6 .*3000\.00"
	run verify --with-nmi "$tmp/nmi.log"
	expect_rc 2
	sed 's/ nmi=1$/ nmi=2/' "$tmp/nmi.log" >"$tmp/nmi2.log"
	run stats "$tmp/nmi2.log"
	expect_rc 1
	errhas "nmi=2"
	run verify --cpus 4 smp4.log
	expect_rc 0
	run verify fail-run.log
	expect_rc 1
	has "fail-run.log:8: 2 runs (@boot records) in this log, want one"
	run verify truncated.log
	expect_rc 1
	line "FAIL: truncated.log could not be read as an apstart log (see above)"
	run verify --allow-truncated truncated.log
	expect_rc 1
	has "truncated.log:1: the run has no @end"
	# A log of records only, as the screen's QR code or the saved summary
	# hold it (qr-scan.log: smp4.log's records, its @cpusum per AP).
	run verify --wbinvd 1 --cpus 4 --cycles 2 qr-scan.log
	expect_rc 0
	line "OK: qr-scan.log: status=pass, 4 CPUs online, 3 APs, records only (no samples): both @summary, 3 @cpusum"
	lacks "lost serial lines"
	run verify --cpus 8 --cycles 3 qr-scan.log
	expect_rc 1
	line "verify: qr-scan.log:7: @summary cycles=2, want 3"
	line "verify: qr-scan.log:3: apic 1: @cpusum cycles=2, want 3"
	line "verify: qr-scan.log:1: 3 APs with cycles (@summary cpus=), want 7"
	sed 's/^\(@cpusum cpu=3 apic=3 cycles=\)2/\11/' qr-scan.log >"$tmp/qr-cycles.log"
	run verify --cpus 4 "$tmp/qr-cycles.log"
	expect_rc 1
	line "verify: $tmp/qr-cycles.log:5: apic 3: @cpusum cycles=1, want 2"
	# ... reads back like the serial log it came from: same totals, same
	# per-AP medians
	run compare smp4.log -- qr-scan.log
	expect_rc 0
	line "Online:   11.10 ms -> 11.10 ms (+0.0%) no verdict: 1 run per side cannot tell the change from run-to-run noise"
	line "Offline:  3.00 ms -> 3.00 ms (+0.0%) no verdict: 1 run per side cannot tell the change from run-to-run noise"
	matches "^B: .*0 online \+ 0 offline samples"
	row 1 "1 1.50 ms 1.50 ms 1.000"
	row 2 "2 2.00 ms 2.00 ms 1.000"
	row 3 "3 2.05 ms 2.05 ms 1.000"
	# Offline: settled_total_ns where @summary has it, as the kernel's
	# Offline total
	sed 's/^\(@summary op=offline .*\)$/\1 settled_total_ns=2000000 settled_median_ns=300000/' \
		qr-scan.log >"$tmp/qr-settled.log"
	run stats "$tmp/qr-settled.log"
	expect_rc 0
	matches "^ +1 +1 +4 +2 +0 +11\.100 +2\.000 +13\.100 +pass "
	run stats qr-scan.log
	expect_rc 0
	has "each of those APs' values is a run's @cpusum median"
	line "Online: 11.10 ms"
	line "Offline: 3.00 ms"
	sed '4s/.*/@cpusum cpu=1 apic=1 cycles=2 online_median_ns=1 online_max_ns=1 offline_median_ns=1 offline_max_ns=1/' \
		qr-scan.log >"$tmp/qr-dup.log"
	run stats "$tmp/qr-dup.log"
	expect_rc 1
	errhas "second @cpusum apic=1 in this run (first at line 3)"
	sed 's/online_max_ns=1800000/online_max_ns=1400000/' qr-scan.log >"$tmp/qr-max.log"
	run stats "$tmp/qr-max.log"
	expect_rc 1
	errhas "qr-max.log:3: @cpusum: a median above its max"
	run verify;                          expect_rc 2
	run verify smp4.log smp4.log;        expect_rc 2
	run verify --boot junk smp4.log;     expect_rc 2
	run verify --boot nokey=1 smp4.log;  expect_rc 2
	errline "aplog: --boot nokey=1: @boot has no key 'nokey' in the record schema (aplog schema boot)"
	run verify --status maybe smp4.log;  expect_rc 2
	run verify --tolerance 5 smp4.log;   expect_rc 2

	# medians: each run's median, the kernel's way, and the lowest
	run medians smp4.log smp4-slow.log
	expect_rc 0
	line "smp4.log:1: online median_ns=1900000 n=6"
	line "lowest: 1900000"
	run medians --op offline smp4.log
	line "smp4.log:1: offline median_ns=500000 n=6"
	run medians "$tmp/odd.log"
	line "lowest: 1000"
	run stats "$tmp/odd.log"
	row 1 "1 1 | 2 1.000 1.000 1.000 1.001 1.001 | 0 - - - - -"
	run medians smp1.log
	expect_rc 1
	errline "aplog: no online samples in any run"

	# check --identical: two runs, record for record
	cp smp4.log "$tmp/smp4-copy.log"
	run check --identical smp4.log -- "$tmp/smp4-copy.log"
	expect_rc 0
	line "OK: 12 samples identical, record for record"
	run check --identical smp4.log -- smp4-slow.log
	expect_rc 1
	line "DIFFERENT cpu=3 op=online cycle=1: ns=2000000 ticks=6000000 (A line 11) vs ns=2600000 ticks=7800000 (B line 11)"
	matches '^FAIL: 2 of 12 samples differ between smp4\.log and smp4-slow\.log$'
	run check --identical smp4.log -- "$tmp/extra-field.log"
	expect_rc 1
	has "(B line 9), other fields differ"
	run check --identical smp4.log -- "$tmp/smp3.log"
	expect_rc 1
	has "DIFFERENT cpu=3 op=offline cycle=1: only in A (line 10)"
	run check --identical wbinvd1.log -- smp4.log
	expect_rc 1
	errhas "set A holds 2 runs"
	run check --identical smp4.log;                       expect_rc 2
	run check --identical --op offline smp4.log -- smp4.log; expect_rc 2
	run check --identical --baseline smp4.baseline smp4.log; expect_rc 2

	# check --slower-than, runs as the unit: B ~5.9x slower -> regression;
	# the reverse passes; two runs a side -> no verdict (exit 2)
	run check --slower-than ref/reference-wbinvd0.log -- ref/reference-wbinvd1.log
	expect_rc 1
	matches '^REGRESSION op=online per-run median B/A=5\.8[0-9]+ 95% CI \[5\.[0-9]+, 6?[0-9.]+\] lower bound > max-ratio 1\.000'
	run check --slower-than ref/reference-wbinvd1.log -- ref/reference-wbinvd0.log --max-ratio 1.0
	expect_rc 0
	matches '^OK op=online per-run median B/A=0\.170 '
	run check --slower-than ref/reference-wbinvd0.log -- ref/reference-wbinvd1.log --max-ratio 7
	expect_rc 0
	# offline is the same in both: no difference, so not slower
	run check --slower-than --op offline ref/reference-wbinvd1.log -- ref/reference-wbinvd0.log
	expect_rc 0
	run check --slower-than wbinvd0-run1.log wbinvd0-run2.log -- wbinvd1.log
	expect_rc 2
	line "NO VERDICT op=online: A has 2 runs with samples, B has 2; a run is one observation and a verdict needs 3 per side"
	run check --slower-than --min-runs 11 ref/reference-wbinvd0.log -- ref/reference-wbinvd1.log
	expect_rc 2
	# --paired: run i of A with run i of B, the sign test's interval of
	# the median ratio (10 pairs: the 2nd smallest and 2nd largest ratio)
	run check --slower-than --paired ref/reference-wbinvd0.log -- ref/reference-wbinvd1.log
	expect_rc 1
	matches '^REGRESSION op=online paired: median of 10 per-pair ratios B/A=5\.[0-9]+ 95% CI \[5\.[0-9]+, 6?[0-9.]+\] \(sign test\) lower bound > max-ratio 1\.000'
	run check --slower-than --paired --op offline ref/reference-wbinvd1.log -- ref/reference-wbinvd0.log
	expect_rc 0
	matches '^OK op=offline paired: median of 10 per-pair ratios B/A=[01]\.[0-9]+ '
	run check --slower-than --paired --op offline ref/aa-a.log -- ref/aa-b.log
	expect_rc 2
	line "NO VERDICT op=offline: 5 pairs of runs; the sign test needs 6 for a 95% interval"
	run check --slower-than --paired ref/small-a.log -- ref/small-b.log
	expect_rc 2
	errhas "--paired needs as many runs on each side: A has 3 with online samples, B has 4"

	# phases and rounds (issue 9)
	run stats phases.log; expect_rc 0
	row real "real 2 0 6.000 6.000 5.000 7.000 71.5%"
	row seen "seen 1 1 0.400 0.400 0.400 0.400 4.8%"
	row init_assert "init_assert 2 0 1.000 1.000 1.000 1.000 11.9%"
	line "Slowest phase (median): real"
	row online "online 2 1 8.000 7.000 9.000"
	row offline "offline 2 1 4.000 3.000 5.000"
	# a start whose window held an NMI: its @phase records say nmi=1 and
	# stay out, as its sample does, unless --with-nmi
	awk '/^@(phase|sample) .*cycle=2 / { $0 = $0 " nmi=1" } { print }' phases.log >"$tmp/phases-nmi.log"
	run stats "$tmp/phases-nmi.log"; expect_rc 0
	row real "real 1 0 5.000 5.000 5.000 5.000 71.5%"
	run stats --with-nmi "$tmp/phases-nmi.log"; expect_rc 0
	row real "real 2 0 6.000 6.000 5.000 7.000 71.5%"
	run csv --phases "$tmp/phases-nmi.log"; expect_rc 0
	line "$tmp/phases-nmi.log,1,0,1,1,2,real,7000,1"
	run compare phases.log -- "$tmp/phases-slow.log"; expect_rc 0
	matches '^  real +6\.000 -> +6\.200  \(\+0\.200 us\)$'
	matches '^  protected +0\.100 -> +0\.100  \(\+0\.000 us\)$'
	run csv --phases phases.log; expect_rc 0
	line "file,run,wbinvd,cpu,apic,cycle,phase,ns,nmi"
	line "phases.log,1,0,1,1,2,real,7000,0"
	line "phases.log,1,0,1,1,1,seen,na,0"
	if [ "$(wc -l <"$tmp/out")" -eq 27 ]; then pass "27 rows (header + 26 @phase)"; else bad "27 rows" "$(wc -l <"$tmp/out")"; fi
	run stats "$tmp/phases-bad.log"; expect_rc 1
	errhas "@phase: phase=warp must be init_assert|"
	run plot --out "$tmp/phases.png" phases.log; expect_rc 0
	if grep -q '^# set A phases: x apic init_assert_us' "$tmp/phases.dat" &&
		grep -Fxq '1 1 1.000 0.200 0.300 6.000 0.100 0.200 0.050 0.060 0.070 0.010 0.400' "$tmp/phases.dat"; then
		pass "plot data: the stacked phases block, medians per phase"
	else
		bad "plot data: the stacked phases block" "$(cat "$tmp/phases.dat")"
	fi

	# csv
	run csv wbinvd1.log
	expect_rc 0
	if [ "$(head -1 "$tmp/out")" = "file,run,wbinvd,cpu,apic,cycle,op,ns,ticks,ap_ns,settled_ns,flush_model" ]; then pass "csv header"; else bad "csv header" "wrong header"; fi
	if [ "$(wc -l <"$tmp/out")" -eq 25 ]; then pass "1 + 24 rows"; else bad "1 + 24 rows" "$(wc -l <"$tmp/out") lines"; fi
	line "wbinvd1.log,2,1,3,6,2,online,10950000000,21900000000,,,"
	cp smp4.log "$tmp/we,i\"rd.log"
	run csv "$tmp/we,i\"rd.log"
	has "\"$tmp/we,i\"\"rd.log\",1,1,1,1,1,offline,400000,1200000"

	# settled_ns / ap_ns (Linux's park path): the offline figure is
	# settled_ns where every offline sample has one, else ns.
	run compare settled-a.log -- settled-b.log
	expect_rc 0
	line "A: WBINVD=0 (A): 1 run, 2 APs, 4 online + 4 offline samples (offline: settled_ns)"
	line "Offline:  400.00 ms -> 800.00 ms (+100.0%) no verdict: 1 run per side cannot tell the change from run-to-run noise"
	line "Online:   2.00 s -> 2.00 s (+0.0%) no verdict: 1 run per side cannot tell the change from run-to-run noise"
	line "Total:    2.40 s -> 2.80 s (+16.7%) no verdict: 1 run per side cannot tell the change from run-to-run noise"
	line "  offline median: 100.00 ms -> 200.00 ms (+100.0%) no verdict: 1 run per side cannot tell the change from run-to-run noise"
	run stats settled-a.log
	expect_rc 0
	has "Offline figures: settled_ns"
	line "Offline: 400.00 ms"
	run medians --op offline settled-a.log
	expect_rc 0
	line "lowest: 100000000"
	run csv settled-a.log "$tmp/settled-na.log"
	expect_rc 0
	line "settled-a.log,1,0,1,1,1,offline,1000000,1000000,,100000000,"
	line "settled-a.log,1,0,1,1,1,online,500000000,500000000,400000000,,"
	line "$tmp/settled-na.log,1,0,1,1,1,offline,1000000,1000000,,na,"
	line "$tmp/settled-na.log,1,0,1,1,1,online,500000000,500000000,na,,"
	# one AP not synchronised: that run falls back to ns for offline
	run stats "$tmp/settled-na.log"
	expect_rc 0
	has "Offline figures: ns"
	line "Offline: 4.00 ms"
	run compare settled-a.log -- "$tmp/settled-na.log"
	expect_rc 0
	errhas "offline figures differ: A uses settled_ns, B uses ns"
	run stats "$tmp/settled-bad.log"
	expect_rc 1
	errhas "settled_ns=soon is not a decimal number"
	# verify: numbers where @cpu says tsc_sync=1, na where it says 0,
	# ap_ns <= ns
	run verify --cpus 3 --cycles 2 settled-a.log
	expect_rc 0
	run verify --cpus 3 --cycles 2 "$tmp/settled-na.log"
	expect_rc 1
	has "settled-na.log:6: settled_ns is na for an AP with tsc_sync=1"
	run verify --cpus 3 --cycles 2 "$tmp/settled-skew.log"
	expect_rc 0
	run verify --cpus 3 --cycles 2 "$tmp/settled-wrapped.log"
	expect_rc 1
	has "settled-wrapped.log:7: ap_ns is not na for an AP with tsc_sync=0"
	run verify --cpus 3 --cycles 2 "$tmp/settled-real.log"
	expect_rc 1
	has "settled-real.log:7: to_real_ns is not na for an AP with tsc_sync=0"
	run verify --cpus 3 --cycles 2 "$tmp/settled-above.log"
	expect_rc 1
	has "settled-above.log:7: ap_ns is above ns"
	run verify --cpus 3 --cycles 2 "$tmp/linux-a.log"
	expect_rc 0
	run verify --cpus 3 --cycles 2 "$tmp/linux-real.log"
	expect_rc 1
	has "linux-real.log:8: to_real_ns is not na, but this trampoline takes no real-mode mark"
	# a side is one trampoline, --force or not
	run compare settled-a.log "$tmp/linux-a.log" -- settled-b.log
	expect_rc 1
	errline "aplog: set A mixes trampolines: kind=apstart (settled-a.log:3) and kind=linux blob_sha256=aaaa ($tmp/linux-a.log:3); a side is one trampoline (@trampoline)"
	run compare --force settled-b.log -- "$tmp/linux-a.log" "$tmp/linux-b.log"
	expect_rc 1
	errline "aplog: set B mixes trampolines: kind=linux blob_sha256=aaaa ($tmp/linux-a.log:3) and kind=linux blob_sha256=bbbb ($tmp/linux-b.log:3); a side is one trampoline (@trampoline)"
	run compare settled-b.log -- "$tmp/linux-a.log"
	expect_rc 0
	# baselines record which offline figure they hold; a check against
	# logs with the other one is refused
	run baseline settled-a.log
	expect_rc 0
	line "offline_figure=settled_ns"
	line "apic=1 op=offline median_ns=100000000 n=2"
	cp "$tmp/out" "$tmp/settled.baseline"
	run check --baseline "$tmp/settled.baseline" settled-a.log
	expect_rc 0
	run check --baseline "$tmp/settled.baseline" "$tmp/settled-na.log"
	expect_rc 1
	errhas "has offline_figure=settled_ns but the logs' offline figure is ns"
	run check --baseline smp4.baseline settled-a.log
	expect_rc 1
	errhas "has offline_figure=ns but the logs' offline figure is settled_ns"

	# plot: without gnuplot on PATH it says so, writes the data, exits 0
	rm -f "$tmp/p.dat"
	run plot --out "$tmp/p.png" wbinvd1.log -- wbinvd0-run1.log
	expect_rc 0
	nopath=1 run plot --out "$tmp/np.png" wbinvd1.log
	expect_rc 0
	has "gnuplot is not on PATH"
	if [ "$(grep -c '^[0-9]' "$tmp/np.dat")" -eq 3 ] && [ ! -e "$tmp/np.png" ]; then pass "3 data rows, no png"; else bad "3 data rows, no png" "wrong data file or a png"; fi
	if command -v gnuplot >/dev/null; then
		# a hostile output name (quotes, spaces, $(...), gnuplot's `...`)
		# must stay a file name: nothing may create ./pwned*
		out="$tmp/it's a \$(touch pwned1) \`touch pwned2\` @x.png"
		run plot --out "$out" --label-a "a'b" wbinvd1.log -- wbinvd0-run1.log wbinvd0-run2.log
		expect_rc 0
		if [ "$(head -c 4 "$out" | od -An -c | tr -d ' ')" = '211PNG' ] && ! ls pwned* >/dev/null 2>&1; then pass "a PNG, no injection"; else bad "a PNG, no injection" "no PNG at '$out', or a pwned* file"; fi
	else
		skip "[$label] plot --out PNG" "gnuplot is not installed (package gnuplot-nox)"
	fi

	# plot: each CPU's distribution, hand-computed for p95.log (online
	# 1..20 us: min 1, first quartile 5 (nearest rank 5 of 20), median
	# 10.5, third quartile 16, max 20; offline 0.7 throughout)
	run plot --out "$tmp/dist.png" "$tmp/p95.log"
	expect_rc 0
	if grep -Fxq '1 5 1.000 5.000 10.500 16.000 20.000 0.700 0.700 0.700 0.700 0.700' "$tmp/dist.dat"; then
		pass "plot data: min, quartiles, median, max per CPU"
	else
		bad "plot data: min, quartiles, median, max per CPU" "$(cat "$tmp/dist.dat")"
	fi
	# CPUs as categories (APIC IDs 2 4 6 at x 1 2 3, never a gap, never a
	# tick twice); boxes, not lines; the Okabe-Ito pair; the legend outside
	run plot --out "$tmp/cat.png" wbinvd1.log -- wbinvd0-run1.log
	expect_rc 0
	if grep -Fxq "set xtics ('2' 1, '4' 2, '6' 3)" "$tmp/cat.gp" &&
		grep -q "with candlesticks" "$tmp/cat.gp" && ! grep -q "linespoints" "$tmp/cat.gp" &&
		grep -q "#0072b2" "$tmp/cat.gp" && grep -q "#e69f00" "$tmp/cat.gp" &&
		grep -q "^set key outside right top" "$tmp/cat.gp"; then
		pass "plot script: CPUs as categories, boxes per CPU, colour-blind-safe pair, legend outside"
	else
		bad "plot script: CPUs as categories, boxes, palette, legend" "$(head -20 "$tmp/cat.gp")"
	fi
	# the phase panels of A and B on one y scale; eleven distinct colours
	run plot --out "$tmp/ph2.png" phases.log -- "$tmp/phases-slow.log"
	expect_rc 0
	ranges=$(grep -c '^set yrange \[0:[0-9.]*\]$' "$tmp/ph2.gp")
	distinct=$(grep '^set yrange \[0:[0-9.]*\]$' "$tmp/ph2.gp" | sort -u | wc -l)
	colours=$(grep -o "rgb '#[0-9a-f]*' title '[a-z_0-9]*'" "$tmp/ph2.gp" | sort -u | awk '{print $2}' | sort -u | wc -l)
	if [ "$ranges" = 2 ] && [ "$distinct" = 1 ] && [ "$colours" = 11 ]; then
		pass "plot script: A's and B's phase panels share one y scale; 11 phase colours, all different"
	else
		bad "plot script: phase panels on one y scale, 11 colours" "$ranges ranges ($distinct distinct), $colours colours"
	fi

	# nothing to plot is not an error; neither is a set with offline only
	run plot --out "$tmp/s1.png" smp1.log
	expect_rc 0
	has "no AP samples: nothing to plot"
	grep -v 'op=online' smp4.log >"$tmp/offline-only.log"
	run plot --out "$tmp/off.png" "$tmp/offline-only.log" -- smp4.log
	expect_rc 0
	# a -smp 1 baseline has no entries and passes for a -smp 1 log
	run baseline smp1.log
	cp "$tmp/out" "$tmp/smp1.baseline"
	run check --baseline "$tmp/smp1.baseline" smp1.log
	expect_rc 0
	has "OK: 0 AP/op medians"

	# malformed input: FILE:LINE: message, exit 1
	run stats bad/bad-ns.log;           expect_rc 1; errline "aplog: bad/bad-ns.log:4: @sample: ns=12x4 is not a decimal number"
	run stats bad/missing-key.log;      expect_rc 1; errline "aplog: bad/missing-key.log:3: @sample: missing key(s): ticks"
	run stats bad/dup-key.log;          expect_rc 1; errline "aplog: bad/dup-key.log:3: @sample: duplicate key 'ns'"
	run stats bad/bad-op.log;           expect_rc 1; errline "aplog: bad/bad-op.log:3: @sample: op=sideways must be online|offline"
	run stats bad/sample-before-boot.log; expect_rc 1; errline "aplog: bad/sample-before-boot.log:2: @sample before @boot"
	# The end of a run kept by a full pstore zone: said once, not per record.
	run verify bad/pstore-wrapped.log; expect_rc 1
	errline "aplog: bad/pstore-wrapped.log:2: @phase before @boot"
	errhas "the text begins in the middle of a run"
	[ "$(grep -c 'before @boot' "$tmp/err")" = 1 ] && pass "one 'before @boot' line for a headless text" ||
		bad "one 'before @boot' line for a headless text" "$(grep -c 'before @boot' "$tmp/err") lines"
	run stats bad/sample-after-end.log; expect_rc 1; errline "aplog: bad/sample-after-end.log:5: @sample after @end (line 4) and before the next @boot"
	run stats bad/double-boot.log;      expect_rc 1; errline "aplog: bad/double-boot.log:1: run truncated: this @boot has no @end before the next @boot at line 3 (--allow-truncated uses it anyway)"
	run stats bad/overflow.log;         expect_rc 1; errline "aplog: bad/overflow.log:3: @sample: ns=99999999999999999999999 out of range (0..1000000000000000)"
	run stats bad/negative.log;         expect_rc 1; errline "aplog: bad/negative.log:3: @sample: ns=-900000 is not a decimal number"
	run stats bad/dup-sample.log;       expect_rc 1; errline "aplog: bad/dup-sample.log:4: duplicate @sample cpu=1 op=online cycle=1 (also at line 3)"
	run stats bad/bad-wbinvd.log;       expect_rc 1; errline "aplog: bad/bad-wbinvd.log:1: @boot: wbinvd=2 out of range (0..1)"
	run stats bad/boot-missing-key.log; expect_rc 1; errline "aplog: bad/boot-missing-key.log:1: @boot: missing key(s): tramp"
	run stats bad/apic-clash.log;       expect_rc 1; errline "aplog: bad/apic-clash.log:4: apic=1 belongs to cpu=2 here but to cpu=1 at line 3"
	run stats bad/bare-token.log;       expect_rc 1; errline "aplog: bad/bare-token.log:5: @sample: malformed field 'junk' (expected key=value)"
	run stats bad/empty.log;            expect_rc 1; errline "aplog: bad/empty.log: no apstart run in this file (no @boot record)"
	run stats bad/no-records.log;       expect_rc 1; errline "aplog: bad/no-records.log: no apstart run in this file (no @boot record)"
	# the double @boot file still fails in compare, and passes with --allow-truncated
	run compare bad/double-boot.log -- smp4.log; expect_rc 1
	run stats --allow-truncated bad/double-boot.log; expect_rc 0

	# truncated runs
	run stats truncated.log
	expect_rc 1
	errline "aplog: truncated.log:1: run truncated: this @boot has no @end before the end of the file at line 8 (--allow-truncated uses it anyway)"
	run stats --allow-truncated truncated.log
	expect_rc 0
	errhas "truncated.log:1: warning: run 1 truncated"
	line "Totals: n/a (no complete run)"
	row 2 "2 2 | 1 1000.00 1000.00 1000.00 1000.00 1000.00 | 2 500.000 500.000 500.000 500.000 500.000"
	# a truncated run adds samples but its partial total stays out of the mean
	run stats --allow-truncated wbinvd1.log "$tmp/wbinvd1-cut.log"
	expect_rc 0
	line "Mean of 2 runs:"
	line "Online: 65.83 s"
	row 1 "1 2 | 6 10973333.3 10975000.0 10960000.0 10990000.0 10990000.0 | 6 6731666.7 6735000.0 6720000.0 6740000.0 6740000.0"

	# junk never crashes: status 1 and a message
	for j in binary gzip long-num long-val long-blank nul many-fields all-samples at-junk; do
		run stats "$tmp/$j.log"
		expect_rc 1
		if [ -s "$tmp/err" ]; then pass "a message"; else bad "a message" "none"; fi
		if [ "$(awk '{ if (length > m) m = length } END { print m + 0 }' "$tmp/err")" -lt 400 ]; then pass "message lines < 400 characters"; else bad "message lines < 400 characters" "longer"; fi
	done
	run stats "$tmp/long-ok.log"         # 100 KiB console lines are just text
	expect_rc 0
	line "Online: 11.10 ms"
	line "Offline: 3.00 ms"
	# a record line is never longer than 64 KiB: not read, whatever it holds
	run stats "$tmp/long-num.log";   errhas "long-num.log:2: a record longer than 65536 bytes (corrupt?): not read"
	run stats "$tmp/long-val.log";   errhas "long-val.log:2: a record longer than 65536 bytes"
	run stats "$tmp/many-fields.log"; errhas "more than 128 fields"
	run stats "$tmp/nul.log";        errhas 'op=on\x00line must be online|offline'
	run stats "$tmp/missing.log";    expect_rc 1; errhas "No such file"
	run stats - <smp4.log;           expect_rc 0; line "Online: 11.10 ms"

	# a directory given as a log: refused, named, whatever the command
	for c in stats verify medians baseline csv trace cpuhp flush fit victims exact-baseline \
		"check --baseline smp4.baseline" "compare smp4.log --" "exact smp4.log --"; do
		# shellcheck disable=SC2086
		run $c "$tmp/a-directory"
		expect_rc 1
		errline "aplog: $tmp/a-directory: a directory, not a log (name the logs in it, e.g. $tmp/a-directory/*.log)"
	done

	# usage errors: status 2, one line that says what is wrong, then where
	# the usage is (not the whole usage)
	usage_err() { # WHAT-IS-SAID CMD ARGS...: exit 2, "aplog: WHAT...", "see aplog CMD --help"
		local said=$1 cmd=$2
		shift 2
		run ${cmd:+"$cmd"} "$@"
		expect_rc 2
		local want="see aplog${cmd:+ $cmd} --help"
		if [ "$(wc -l <"$tmp/err")" = 2 ] && grep -Fxq -- "aplog: $said" <(head -1 "$tmp/err") &&
			[ "$(sed -n 2p "$tmp/err")" = "$want" ]; then
			pass "usage error: 'aplog: $said' and '$want', nothing more"
		else
			bad "usage error: 'aplog: $said' and '$want', nothing more" "stderr has $(wc -l <"$tmp/err") lines"
		fi
		if [ -s "$tmp/out" ]; then bad "nothing on stdout" "it has $(wc -l <"$tmp/out") lines"; else pass "nothing on stdout"; fi
	}
	usage_err "'compare' needs A.log... -- B.log..." compare wbinvd1.log smp4.log
	usage_err "unknown option --frobnicate" stats --frobnicate smp4.log
	usage_err "check needs exactly one of --baseline FILE, --slower-than and --identical" check smp4.log
	usage_err "check --baseline takes LOG... and --tolerance, --allow-faster, --allow-truncated" check --baseline smp4.baseline --max-ratio 2 smp4.log
	usage_err "--min-runs 2: expected an integer in 3..1000" compare --min-runs 2 a -- b
	usage_err "unknown option --resamples" compare --resamples 5 a -- b
	usage_err "--config: no newlines please" baseline --config "$(printf 'a\nb')" smp4.log
	usage_err "option --allow-truncated does not apply to 'flush'" flush --allow-truncated smp4.log
	usage_err "option --allow-truncated does not apply to 'victims'" victims --allow-truncated smp4.log
	usage_err "option --tolerance does not apply to 'fit'" fit --tolerance 5 smp4.log
	usage_err "--ops sweep: expected a list of wbinvd, wbnoinvd, clflushopt, clwb" flush --ops sweep smp4.log
	usage_err "victims needs at least one LOG" victims --csv
	usage_err "option --out needs a value" plot smp4.log --out
	usage_err "unknown command 'nonsense'" "" nonsense
	usage_err "no command given" ""
	run help;                               expect_rc 0; has "aplog COMMAND"

	# aplog COMMAND --help: the command's usage on stdout, exit 0; every
	# option it takes is named in its synopsis, the one aplog --help lists.
	run --help
	cp "$tmp/out" "$tmp/overview"
	cmds=$(awk '/^usage:/ { next } /^  [a-z]/ { print $1 } /^[A-Z]/ { exit }' "$tmp/overview" | uniq)
	ncmds=$(wc -w <<<"$cmds")
	if [ "$ncmds" -ge 18 ]; then pass "aplog --help lists $ncmds commands"; else bad "aplog --help lists every command" "only $ncmds: $cmds"; fi
	for c in $cmds; do
		run "$c" --help
		expect_rc 0
		if head -1 "$tmp/out" | grep -q "^usage: aplog $c "; then pass "its usage first"; else bad "its usage first" "$(head -1 "$tmp/out")"; fi
		# the synopsis: the command's lines in aplog --help
		syn=$(awk -v c="$c" '/^  [a-z]/ { on = ($1 == c) } /^[A-Z]/ { on = 0 } on' "$tmp/overview")
		missing=
		for o in $(sed -n '/^options:/,$p' "$tmp/out" | grep -oE '^  --[a-z-]+' | grep -vx '  --help'); do
			grep -q -- "$o\b" <<<"$syn" || missing+=" $o"
		done
		if [ -z "$missing" ]; then pass "every option of its --help is in its synopsis in aplog --help"
		else bad "every option of its --help is in its synopsis in aplog --help" "missing:$missing"; fi
		run "$c" -h; expect_rc 0
	done

	# trace: Chrome trace-event JSON of an apstart serial run, a parallel
	# run and a traced Linux run (linux-hotplug --trace in the VM), read
	# back by an independent parser (trace_check.py, Python's json).
	if command -v python3 >/dev/null; then
		for fx in trace-serial.log trace-parallel.log linux-trace.log "trace-parallel.log linux-trace.log"; do
			# shellcheck disable=SC2086
			run trace --out "$tmp/t.json" $fx; expect_rc 0
			# shellcheck disable=SC2086
			if python3 "$here/trace_check.py" "$tmp/t.json" $fx >"$tmp/chk" 2>&1 && grep -q '^ok: ' "$tmp/chk"; then
				pass "the JSON nests per track and matches the records: $(cat "$tmp/chk")"
			else
				bad "trace_check.py accepts it" "$(head -8 "$tmp/chk")"
			fi
		done
		run trace linux-trace.log; expect_rc 0
		has '"name":"91 cpu:bringup","cat":"linux","args":{"state":91,"fn":"bringup_cpu","cpu":1,"op":"online"'
		has '{"ph":"M","name":"thread_name","pid":1,"tid":1000000,"args":{"name":"sysfs writes (linux-hotplug)"}}'
		# NMI marks: a sample marked nmi=1 at its window's start, an @warn
		# what=nmi where it was logged.
		tr -d '\r' <trace-serial.log |
			sed -e '0,/^@sample cpu=2 apic=2 cycle=1 op=online \(.*\) nmi=0$/s//@sample cpu=2 apic=2 cycle=1 op=online \1 nmi=1/' \
			-e 's/^@sample cpu=3 apic=3 cycle=2 op=offline.*/&\n@warn what=nmi apic=3 count=1 reason=test port61=0x00/' \
			>"$tmp/nmi.log"
		run trace --with-nmi --out "$tmp/nmi.json" "$tmp/nmi.log"; expect_rc 2
		run trace --out "$tmp/nmi.json" "$tmp/nmi.log"; expect_rc 0
		if grep -q '"tid":2,"ts":[0-9.]*,"s":"t","name":"NMI in this window"' "$tmp/nmi.json" &&
			grep -q '"tid":0,"ts":[0-9.]*,"s":"t","name":"NMI (@warn, apic 3)"' "$tmp/nmi.json" &&
			python3 "$here/trace_check.py" "$tmp/nmi.json" "$tmp/nmi.log" >/dev/null; then
			pass "NMI marks: on cpu2's track for its nmi=1 sample, on the BSP's for @warn what=nmi"
		else
			bad "NMI marks in the trace" "$(grep -o '"name":"NMI[^"]*"' "$tmp/nmi.json" | head -3)"
		fi
		run trace trace-parallel.log; expect_rc 0
		has '"name":"round 1 online (3 APs)"'
		has '"name":"SIPI -> cpu3"'
	else
		skip "[$label] trace JSON check" "python3 not on PATH"
	fi
	printf '@boot kernel=apstart version=0.1 wbinvd=0 cpus=1 x2apic=0 tsc_khz=1000000 tsc_source=hpet tramp=0x9e000 firmware=bios cycles=0\n@end status=pass online=1 failed=0\n' >"$tmp/norec.log"
	run trace "$tmp/norec.log"; expect_rc 1; errhas "the logs hold no start, offline or cpuhp record"

	# cpuhp: Linux's time state by state (fixture: -smp 4, 1 cycle, TCG).
	run cpuhp linux-trace.log; expect_rc 0
	line "online: 180.508 ms per write (mean of 1 run, 3 writes each)"
	has "   91  cpu:bringup                   control   1.00   119.568   66.2%  <- the AP kick: INIT/SIPI, trampoline"
	has "        - its own part (not in AP-side states)    112.263   62.2%"
	has "The state that holds the trampoline is cpu:bringup (CPUHP_BRINGUP_CPU): 119.568 ms, of which 112.263 ms its own part"
	has "  153  cpu:teardown                  control   1.00    62.151   50.8%"
	run cpuhp --label-a one --label-b two linux-trace.log -- linux-trace.log; expect_rc 0
	line "online: 180.508 ms -> 180.508 ms per write (+0.000 ms; mean of 1 and 1 runs)"
	run cpuhp linux-trace.log linux-trace.log linux-trace.log -- linux-trace.log linux-trace.log linux-trace.log; expect_rc 0
	line "  online write: 180.51 ms -> 180.51 ms (+0.0%, 95% CI +0.0..+0.0%) no difference, mean of 3 runs"
	line "  cpu:bringup own: 112.26 ms -> 112.26 ms (+0.0%, 95% CI +0.0..+0.0%) no difference, mean of 3 runs"
	line "  offline write: 122.30 ms -> 122.30 ms (+0.0%, 95% CI +0.0..+0.0%) no difference, mean of 3 runs"
	# Malformed @cpuhp records: FILE:LINE: and why, exit 1.
	hp='@boot kernel=linux version=6.1 wbinvd=1 cpus=2 x2apic=0 tsc_khz=1000000 tsc_source=clock_monotonic tramp=0x0 firmware=bios cycles=1'
	cb='@cpuhp cpu=1 apic=1 cycle=1 op=online state=91 name=cpu:bringup fn=bringup_cpu multi=0 on=0 start_ns=10 ns=100 ret=0'
	wr='@cpuhp_write cpu=1 apic=1 cycle=1 op=online at_ns=0 ns=200 callbacks=1 lost=0 foreign=0 malformed=0'
	end='@end status=pass online=2 failed=0'
	printf '%s\n' "$hp" "${cb/ state=91/}" "$wr" "$end" >"$tmp/hp1.log"
	run cpuhp "$tmp/hp1.log"; expect_rc 1; errhas "hp1.log:2: @cpuhp: missing key(s): state"
	printf '%s\n' "$hp" "$cb" "${wr/cpu=1/cpu=2}" "$end" >"$tmp/hp2.log"
	run cpuhp "$tmp/hp2.log"; expect_rc 1; errhas "hp2.log:3: @cpuhp_write: cpu=2 cycle=1 op=online, but its @cpuhp records (from line 2) say cpu=1 cycle=1 op=online"
	printf '%s\n' "$hp" "$cb" "${wr/ ns=200/ ns=50}" "$end" >"$tmp/hp3.log"
	run cpuhp "$tmp/hp3.log"; expect_rc 1; errhas "hp3.log:3: @cpuhp_write: ns=50, but a callback of it (state 91) ends at 110 ns"
	printf '%s\n' "$hp" "$cb" "$end" >"$tmp/hp4.log"
	run cpuhp "$tmp/hp4.log"; expect_rc 1; errhas "hp4.log:2: @cpuhp records without their @cpuhp_write (the log ends)"
	printf '%s\n' "${cb/name=cpu:bringup/name=$(printf 'x%.0s' $(seq 60))}" >"$tmp/hp5.log"
	run trace "$tmp/hp5.log"; expect_rc 1
	printf '%s\n' "$hp" "${cb/name=cpu:bringup/name=$(printf 'x%.0s' $(seq 60))}" "$wr" "$end" >"$tmp/hp6.log"
	run cpuhp "$tmp/hp6.log"; expect_rc 1; errhas "hp6.log:2: @cpuhp: name="
	printf '%s\n' "$hp" "$cb" "$wr" "$end" >"$tmp/hp7.log"
	run cpuhp "$tmp/hp7.log"; expect_rc 0; has "   91  cpu:bringup                   control   1.00     0.000   50.0%  <- the AP kick"
	run cpuhp smp4.log; expect_rc 1; errhas "no @cpuhp_write records in 1 usable run(s): run linux-hotplug with --trace"
	run cpuhp linux-trace.log --; expect_rc 2
	# a file with errors before a good one: its runs have their (empty)
	# entries too (they were left unset: UBSan, in cpuhp_free)
	run cpuhp bad/bad-ns.log linux-trace.log; expect_rc 1

	# mutated fixtures: any status but 0/1 (or a sanitizer report) fails.
	# The plain build runs each log alone through the 7 commands (the exit
	# status of each). The ASan build runs each alone through stats
	# --allow-truncated, then all of them at once through the 7: in 67 runs,
	# not 420, the same lines and branches of aplog as the 420 (gcov of a
	# --coverage build over these logs: 1039 lines, 680 branches taken,
	# either way; without the runs alone, fewer lines). All at once found a
	# bug one at a time could not: cpuhp with a bad log before a good one.
	fuzz_bad=0 fuzz_sets=() fuzz_how="$nfuzz mutated logs x 7 commands"
	if [ "$bin" = "$APLOG" ]; then
		for i in $(seq 1 $nfuzz); do fuzz_sets+=("$tmp/fuzz$i.log"); done
	else
		for i in $(seq 1 $nfuzz); do
			run stats --allow-truncated "$tmp/fuzz$i.log"
			if [ "$rc" -gt 1 ]; then fuzz_bad=1; bad "exit 0 or 1 on mutated input" "status $rc"; fi
		done
		fuzz_sets=("$(for i in $(seq 1 $nfuzz); do printf '%s ' "$tmp/fuzz$i.log"; done)")
		fuzz_how="$nfuzz mutated logs, each through stats --allow-truncated, all at once through 7 commands"
	fi
	for f in "${fuzz_sets[@]}"; do
		for args in "stats $f" "stats --allow-truncated $f" "csv $f" \
			"compare $f -- wbinvd0-run1.log" "check --baseline smp4.baseline $f" \
			"trace --out $tmp/fz.json $f" "cpuhp $f"; do
			# shellcheck disable=SC2086
			run $args
			if [ "$rc" -gt 1 ]; then fuzz_bad=1; bad "exit 0 or 1 on mutated input" "status $rc"; fi
		done
	done
	if [ $fuzz_bad -eq 0 ]; then ok "[$label] $fuzz_how: exit 0 or 1, no crash"; fi

	# The record schema (lib/records.def). A key it lacks, planted in a
	# log: read anyway, with one warning per key and file (an older or
	# newer writer's), while schema --check fails on it and names it.
	sed 's/^\(@sample cpu=2 .*\)$/\1 bogus=1/; s/^\(@summary op=online .*\)$/\1 bogus_ns=2/' \
		smp4.log >"$tmp/planted-key.log"
	run stats "$tmp/planted-key.log"
	expect_rc 0
	errline "aplog: $tmp/planted-key.log:6: warning: @sample: key 'bogus' is not in the record schema (a newer or older writer's? aplog schema sample): ignored"
	errline "aplog: $tmp/planted-key.log:15: warning: @summary: key 'bogus_ns' is not in the record schema (a newer or older writer's? aplog schema summary): ignored"
	if [ "$(grep -c "key 'bogus'" "$tmp/err")" = 1 ]; then pass "said once for its 4 records"; else bad "said once" "$(grep -c "key 'bogus'" "$tmp/err") times"; fi
	run stats smp4.log
	if [ -s "$tmp/err" ]; then bad "no warning without one" "stderr not empty"; else pass "no warning without one"; fi
	run schema --check smp4.log "$tmp/planted-key.log"
	expect_rc 1
	line "OK: smp4.log: 16 records, every key in the schema"
	line "FAIL: $tmp/planted-key.log: 5 problems in 16 records"
	errline "aplog: $tmp/planted-key.log:6: @sample: key 'bogus' is not in the schema"
	errline "aplog: $tmp/planted-key.log:15: @summary: key 'bogus_ns' is not in the schema"
	# values by unit, variants, required keys, records the schema lacks
	{
		head -1 smp4.log
		echo "@sample cpu=1 apic=1 cycle=1 op=online ns=5 ticks=5 settled_ns=4"
		echo "@sample cpu=1 apic=1 cycle=1 op=offline ns=na ticks=5 settled_ns=na nmi=2"
		echo "@cpu cpu=1 apic=1 state=online tsc_skew_ns=-5 tsc_sync=1 boot_ns=-5"
		echo "@fail what=exception apic=1 vector=6 error=0x0 rip=10970c cr2=0x0"
		echo "@warn what=sipi_retry apic=1 retry=1 stage=6 count=1"
		echo "@bootx a=1"
		echo "@end status=maybe online=4"
	} >"$tmp/schema-bad.log"
	run schema --check "$tmp/schema-bad.log"
	expect_rc 1
	errline "aplog: $tmp/schema-bad.log:2: @sample: key 'settled_ns' is not a key of op=online records"
	errline "aplog: $tmp/schema-bad.log:3: @sample: ns=na may not be na"
	errline "aplog: $tmp/schema-bad.log:3: @sample: nmi=2 is not bool (0 or 1)"
	errline "aplog: $tmp/schema-bad.log:4: @cpu: boot_ns=-5 is not ns (nanoseconds)"
	errline "aplog: $tmp/schema-bad.log:5: @fail: rip=10970c is not hex (a hexadecimal number after 0x)"
	errline "aplog: $tmp/schema-bad.log:6: @warn: key 'count' is not a key of what=sipi_retry records"
	errline "aplog: $tmp/schema-bad.log:7: record @bootx is not in the schema"
	errline "aplog: $tmp/schema-bad.log:8: @end: status=maybe is none of pass|fail"
	errline "aplog: $tmp/schema-bad.log:8: @end: missing key(s): failed"
	line "FAIL: $tmp/schema-bad.log: 9 problems in 8 records"
	# every log the tests keep reads clean, but the bad ones
	run schema --check capture-2runs.log linux-trace.log trace-parallel.log phases.log \
		qr-scan.log ref/reference-wbinvd1.log ../docs/fixtures/flush-probe.log \
		../docs/fixtures/flush-victims.log ../lava/logs/bios-pass.log
	expect_rc 0
	line "OK: linux-trace.log: 248 records, every key in the schema"
	# the listing: one line per record and variant, by writer
	run schema --by kernel sample
	expect_rc 0
	line "@sample cpu=ID apic=ID cycle=ID op=offline ns=NS ticks=TICKS settled_ns=NS|na nmi=0|1 smi=N [khz=KHZ]"
	run schema --by linux-hotplug sample cpu fail
	line "@sample cpu=ID apic=ID cycle=ID op=offline|online ns=NS ticks=TICKS"
	line "@cpu cpu=ID apic=ID state=online|offline hotplug=0|1 selected=0|1"
	line "@fail what=interrupted signal=TEXT"
	lacks "what=panic"
	run schema @warn
	line "@warn what=acpi_table_skipped|acpi_bad_checksum|madt_bad_entry|madt_duplicate|acpi_other count=N"
	line "@warn what=pstore_wrapped printed=N kept=N"
	run schema --units
	line "NS     nanoseconds"
	run schema nosuch;                     expect_rc 2
	errline "aplog: no record @nosuch in the schema"
	run schema --by everyone;              expect_rc 2
	run schema --check;                    expect_rc 2
	run schema --check --by kernel smp4.log; expect_rc 2

	# A session folder as apstart.efi leaves it (wings/efi/session.c): its
	# A and B run files are the two sets, in run order; an interrupted run
	# is counted, plan.txt and table.txt are not logs.
	sd=$tmp/session-0001
	rm -rf "$sd" && mkdir -p "$sd" "$tmp/not-a-session"
	cp settled-a.log "$sd/run-001-A-wbinvd1.log"
	cp settled-b.log "$sd/run-002-B-wbinvd0.log"
	cp settled-a.log "$sd/run-004-A-wbinvd1.log"
	echo "run 3 (B) was started and no results came back" >"$sd/run-003-B-wbinvd0.interrupted"
	echo "session=0001" >"$sd/plan.txt"
	echo "Online: -" >"$sd/table.txt"
	run compare "$sd/run-001-A-wbinvd1.log" "$sd/run-004-A-wbinvd1.log" -- "$sd/run-002-B-wbinvd0.log"
	cp "$tmp/out" "$tmp/want"
	run compare "$sd"
	expect_rc 0
	errline "aplog: session folder $sd: 2 run file(s) of A, 1 of B; 1 interrupted run(s) without results"
	if cmp -s "$tmp/out" "$tmp/want"; then pass "the same output as the files named"; else bad "the same output as the files named" "it differs"; fi
	run compare "$tmp/not-a-session"
	expect_rc 2
	errhas "not a session folder"

	# ~10k samples a side: the comparison stays fast (limit generous for ASan)
	limit=10
	[ "$bin" = "$APLOG_ASAN" ] && limit=60
	start=$(date +%s)
	run compare "$tmp/big1.log" -- "$tmp/big0.log"
	expect_rc 0
	elapsed=$(($(date +%s) - start))
	if [ "$elapsed" -le "$limit" ]; then pass "within ${limit}s"; else bad "within ${limit}s" "took ${elapsed}s"; fi
	has "479 APs, 4790 online + 4790 offline samples"
	matches '^Online: .* no verdict: 1 run per side'

	if [ "$bin" = "$APLOG" ]; then capture_cases 200; else capture_cases 20; fi
	unprefixed_report
done

# aplog's readers name keys by the schema (RK_ constants): a reader that
# asks a record for a key lib/records.def lacks does not build. A reader
# of @sample's ns builds; the same with a planted key fails, naming it.
cc=${CC_HOST:-gcc}
reader() { # KEY
	printf '#include "tools/aplog/read/records.h"\nconst struct field *get(const struct record *r)\n{\n\treturn rec_get(r, %s);\n}\n' "$1" >"$tmp/reader.c"
	(cd "$root" && LC_ALL=C "$cc" -std=c11 -Wall -Wextra -Werror -I. -c -o "$tmp/reader.o" "$tmp/reader.c") >"$tmp/cc.out" 2>&1
}
if reader RK_sample_ns && ! reader RK_sample_bogus && grep -q "RK_sample_bogus' undeclared" "$tmp/cc.out"; then
	ok "a reader of a key the record schema lacks does not build ($(grep -m1 -o "'RK_sample_bogus' undeclared.*" "$tmp/cc.out" | cut -c1-80))"
else
	fail "a reader of a key the record schema lacks does not build" "$(head -3 "$tmp/cc.out")"
fi

# The checker itself catches a duration that does not match its record
# and an event that overlaps another on its track.
if command -v python3 >/dev/null; then
	"$APLOG" trace --out "$tmp/t.json" trace-serial.log 2>/dev/null
	python3 - "$tmp/t.json" "$tmp/dur.json" "$tmp/nest.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
x = [e for e in d["traceEvents"] if e.get("name") == "online #1" and e["tid"] == 2][0]
x["dur"] += 1.0
json.dump(d, open(sys.argv[2], "w"))
x["dur"] -= 1.0
k = [e for e in d["traceEvents"] if e.get("name") == "long mode" and e["tid"] == 2][0]
k["dur"] += 500.0
json.dump(d, open(sys.argv[3], "w"))
PY
	if ! python3 "$here/trace_check.py" "$tmp/dur.json" trace-serial.log >"$tmp/chk"; then
		ok "trace_check.py catches a duration 1 us off its @sample: $(grep -m1 'no event' "$tmp/chk" | sed 's/^ *//')"
	else fail "trace_check.py catches a wrong duration" "it accepted it"; fi
	if ! python3 "$here/trace_check.py" "$tmp/nest.json" trace-serial.log >"$tmp/chk" && grep -q overlaps "$tmp/chk"; then
		ok "trace_check.py catches a phase that overlaps the next one: $(grep -m1 overlaps "$tmp/chk" | sed 's/^ *//' | cut -c1-120)"
	else fail "trace_check.py catches an overlap" "$(head -3 "$tmp/chk")"; fi
fi

summary aplog
