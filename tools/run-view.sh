#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# What make run shows: a runner's serial stream (tools/qemu-run.sh or
# tools/iso-run.sh) goes whole into a log file; the terminal gets the
# console text as it comes, without the @records and without the phase
# table, and at the end the per-CPU table and the three rows
# (Offline/Online/Total), the run's verdict and the log's name.
#
#   run-view.sh --log FILE [--verbose] -- RUNNER [ARGS...]
#
# --verbose     the whole stream on the terminal too (make run V=1).
#
# Exit status: the runner's (0 pass, 1 fail, 2 no verdict); 2 for bad usage.
set -uo pipefail

die() { echo "run-view: $*" >&2; exit 2; }
log= verbose=0
while [ $# -gt 0 ]; do
	case "$1" in
	--log) [ $# -ge 2 ] || die "--log needs a value"; log=$2; shift 2 ;;
	--verbose) verbose=1; shift ;;
	-h|--help) sed -n '3,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	--) shift; break ;;
	*) die "unknown option '$1'" ;;
	esac
done
[ -n "$log" ] || die "--log FILE is required"
[ $# -gt 0 ] || die "no runner command after --"
mkdir -p "$(dirname "$log")" || die "cannot make the folder of $log"
: >"$log" || die "cannot write $log"

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
"$@" </dev/null | tee "$log" | live
status=${PIPESTATUS[0]}

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
lines=$(wc -l <"$log")
case $status in
0) verdict="pass" ;;
1) verdict="FAIL (the kernel reported fail)" ;;
*) verdict="no verdict (see the messages above)" ;;
esac
echo "make run: $verdict, exit $status; the whole record stream ($lines lines) is in $log"
[ "$verbose" = 1 ] || echo "make run: V=1 shows it here too; aplog reads it: make aplog && build/host/aplog stats $log"
exit "$status"
