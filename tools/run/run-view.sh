#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# What make run shows: a runner's serial stream (tools/run/qemu-run.sh or
# tools/run/iso-run.sh) goes whole into a log file; the terminal gets the
# console text as it comes, without the @records and without the phase
# table, and at the end the per-CPU table and the three rows
# (Offline/Online/Total), the kernel's warnings, the run's verdict and the
# log's name.
#
#   run-view.sh --log FILE | --new-log FILE  [--link LINK] [--verbose]
#               -- RUNNER [ARGS...]
#
# --log FILE     the log, written over if it exists (a name the user gave).
# --new-log FILE the log, never written over: FILE, or FILE with -2, -3...
#                before its extension, the first name not taken (made
#                with noclobber, so two runs never share one).
# --link LINK    a symbolic link to the log (make run: build/run.log).
# --verbose      the whole stream on the terminal too (make run V=1).
#
# The verdict, the rule aplog verify applies to a log (docs/running.md):
# a pass is the kernel's "@end status=pass" with no warnings besides the
# events a run survives (@warn what=nmi, stray_irq, sipi_retry). A run
# that passed with warnings (an unknown or out-of-range option, a CPU it
# could not reach, a firmware table it could not fully use) did not
# measure what was asked: it is not a pass. Every @warn record is repeated
# at the end.
#
# Exit status: 0 a pass; 1 the kernel reported fail, or passed with
# warnings; 2 no verdict (the runner's; or the runner refused to start,
# reported as its refusal, not the kernel's) or bad usage. With EXIT_WHY
# set (tools/run/exit-status.mk), the reason for a 2 goes to that file.
set -uo pipefail

# shellcheck source=tools/run/exit-why.sh
. "$(dirname "${BASH_SOURCE[0]}")/exit-why.sh"
die() { echo "run-view: $*" >&2; exit 2; }
log= new=0 link= verbose=0
while [ $# -gt 0 ]; do
	case "$1" in
	--log|--new-log)
		[ $# -ge 2 ] || die "$1 needs a value"
		log=$2 new=0
		[ "$1" = --new-log ] && new=1
		shift 2 ;;
	--link) [ $# -ge 2 ] || die "--link needs a value"; link=$2; shift 2 ;;
	--verbose) verbose=1; shift ;;
	-h|--help) sed -n '3,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	--) shift; break ;;
	*) die "unknown option '$1'" ;;
	esac
done
[ -n "$log" ] || die "--log FILE or --new-log FILE is required"
[ $# -gt 0 ] || die "no runner command after --"
mkdir -p "$(dirname "$log")" || die "cannot make the folder of $log"
if [ $new = 1 ]; then
	base=$log stem=${log%.log} n=1
	until (set -o noclobber; : >"$log") 2>/dev/null; do
		[ -e "$log" ] || die "cannot write $log"
		n=$((n + 1))
		[ $n -le 999 ] || die "999 logs named like $base: give RUN_LOG=FILE"
		log=$stem-$n.log
	done
else
	: >"$log" || die "cannot write $log"
fi
if [ -n "$link" ]; then
	mkdir -p "$(dirname "$link")" &&
		ln -sfn "$(realpath -m --relative-to="$(dirname "$link")" "$log")" "$link" ||
		die "cannot link $link to $log"
fi

# Live: console text only, up to the result (the table comes at the end).
# The kernel's lines end in CRLF; a line cut by a timeout has no LF.
live() {
	if [ "$verbose" = 1 ]; then
		cat
		return
	fi
	LC_ALL=C awk '
		{ sub(/\r+$/, "") }
		/^ +online \(us\) +\| +offline \(us\)/ { held = 1 }
		held || /^@/ { next }
		{ print; fflush() }'
}
# The runner's stderr: to the terminal as it comes, and kept, for the
# reason of a run without a verdict (its last line).
work=$(mktemp -d) || die "cannot make a temporary directory"
trap 'kill "${errtee:-}" 2>/dev/null; rm -rf "$work"' EXIT
mkfifo "$work/stderr" || die "cannot make a FIFO in $work"
tee "$work/runner.err" <"$work/stderr" >&2 &
errtee=$!
"$@" </dev/null 2>"$work/stderr" | tee "$log" | live
status=${PIPESTATUS[0]}
wait "$errtee"
errtee=

# The end: the per-CPU table, the slowest lines, the three rows, and any
# @fail records, as the kernel printed them.
LC_ALL=C awk '
	{ sub(/\r+$/, "") }
	/^ +online \(us\) +\| +offline \(us\)/ { table = 1; print; next }
	table && /^ *[0-9]+ +[0-9]+ |^ cpu +apic / { print; next }
	{ table = 0 }
	/^slowest (online|phase)/ || /^(Offline|Online|Total): / { print }
	/^@fail / { fails = fails $0 "\n" }
	END { printf "%s", fails }
' "$log"
# The warnings: every @warn record (the events a run survives counted on
# one line), and how many count against the run: @end warnings= less the
# events, as aplog verify reckons.
warned=$(LC_ALL=C awk '
	{ sub(/\r+$/, "") }
	/^@warn what=(nmi|stray_irq|sipi_retry) / { events++; next }
	/^@warn / { w[++n] = substr($0, 7) }
	/^@end / { for (i = 2; i <= NF; i++) if ($i ~ /^warnings=[0-9]+$/) end = substr($i, 10) }
	END {
		other = end != "" ? end - events : n
		if (other < 0) other = 0
		print other
		for (i = 1; i <= n && i <= 20; i++) print "  warn " w[i]
		if (n > 20) print "  ... " n - 20 " more @warn records in the log"
		if (events) print "  (" events " event" (events == 1 ? "" : "s") \
			" the run survived: @warn what=nmi, stray_irq or sipi_retry; not counted)"
	}' "$log")
other=${warned%%$'\n'*}
if [ "$warned" != "$other" ]; then
	echo "make run: the kernel's warnings (@warn records):"
	printf '%s\n' "${warned#*$'\n'}"
fi
lines=$(wc -l <"$log")
plural() { [ "$1" = 1 ] && echo "$1 $2" || echo "$1 $2s"; }
reason=
case $status in
0)
	if [ "$other" -gt 0 ]; then
		status=1
		verdict="the kernel passed with $(plural "$other" warning) (above): not a clean pass, exit 1 (as aplog verify)"
	else
		verdict="pass, exit 0"
	fi ;;
1) verdict="FAIL (the kernel reported fail), exit 1" ;;
*)
	status=2
	reason=$(grep -a . "$work/runner.err" | tail -n 1)
	# The runners say "accel=..." just before they start QEMU: without it,
	# the runner itself refused (a bad SMP=, TIMEOUT=, a missing file).
	if ! grep -Eaq '^(qemu|iso)-run: accel=' "$work/runner.err"; then
		verdict="not run: the runner refused, exit 2"
		reason="make run: not run (exit 2): ${reason:-the runner $1 exited 2 without a word}"
	else
		verdict="no verdict, exit 2"
		reason=${reason#qemu-run: no verdict (exit 2): }
		reason=${reason#iso-run: no verdict (exit 2): }
		reason="make run: no verdict (exit 2): ${reason:-the runner said nothing}"
	fi ;;
esac
echo "make run: $verdict; the whole record stream ($(plural "$lines" line)) is in $log"
if [ "$verbose" = 0 ] && grep -aq '^@' "$log"; then
	echo "make run: V=1 shows it here too; aplog reads it: make aplog && build/host/aplog stats $log"
fi
# The reason is the last line printed.
[ -z "$reason" ] || exit_why "$reason"
exit "$status"
