#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Run apstart as a LAVA job on this machine (make lava): fill in the qemu
# job (tools/lab/lava/mkjob.py), run it with lava-run on the pre-rendered
# qemu device (tools/lab/lava/devices/qemu-apstart.yaml; no lava-server
# needed), and turn its log into a results file (tools/lab/lava/results.py).
#
#   run-job.sh --kernel ELF --out DIR [--smp N] [--variant TEXT] [--timeout S]
#              [--module FILE.lrm] -- [ARG...]
#
# --module: the APs start in Linux's own trampoline, that LRM file
# (docs/linux-trampoline.md) deployed as the kernel's module (mkjob.py
# --module-url; trampoline=linux).
# DIR gets job.yaml, lava.log (lava-run's log), output/ (its output
# directory: the job's verdict only) and results.txt.
# Exit status: 0 apstart's @end said pass, 1 fail, 2 no verdict (LAVA not
# installed, the job did not finish, QEMU refused to start: then QEMU's own
# message, as LAVA saw it, is the last line; bad usage).
set -uo pipefail

die() { echo "lava: $*" >&2; exit 2; }
kernel= out= smp=4 variant= timeout_s=300 module=
while [ $# -gt 0 ]; do
	case $1 in
	--kernel) kernel=${2:?}; shift 2 ;;
	--out) out=${2:?}; shift 2 ;;
	--smp) smp=${2:?}; shift 2 ;;
	--variant) variant=${2:?}; shift 2 ;;
	--timeout) timeout_s=${2:?}; shift 2 ;;
	--module) module=${2:?}; shift 2 ;;
	--) shift; break ;;
	*) die "unknown option '$1' (usage: run-job.sh --kernel ELF --out DIR [--smp N] -- [ARG...])" ;;
	esac
done
[ -n "$kernel" ] && [ -n "$out" ] || die "--kernel ELF and --out DIR are required"
[ -f "$kernel" ] || die "no kernel at '$kernel' (run make first)"
[ -z "$module" ] || [ -f "$module" ] || die "no module at '$module'"
command -v lava-run >/dev/null ||
	die "no lava-run: install lava-dispatcher (apt-get install -y --no-install-recommends lava-dispatcher)"
[ "$(id -u)" = 0 ] || die "lava-run runs as root (it works in /var/lib/lava/dispatcher)"
here=$(cd "$(dirname "$0")" && pwd)
py=/usr/bin/python3

rm -rf "$out"
mkdir -p "$out"
"$py" "$here/mkjob.py" --template qemu --kernel-url "file://$(realpath "$kernel")" \
	--smp "$smp" --variant "${variant:-$(basename "$kernel")}" --args "$*" \
	${module:+--module-url "file://$(realpath "$module")"} --out "$out/job.yaml" || exit 2
# The job id names lava-run's work directory: this process's, so that two
# runs at once do not share one.
t0=$(date +%s%N)
timeout -k 10 "$timeout_s" lava-run --job-id $$ --output-dir "$out/output" \
	--device "$here/devices/qemu-apstart.yaml" "$out/job.yaml" >"$out/lava.log" 2>&1
st=$?
ms=$((($(date +%s%N) - t0) / 1000000))
[ $st = 124 ] && echo "lava: lava-run did not finish in ${timeout_s}s (log: $out/lava.log)" >&2
"$py" "$here/results.py" "$out/lava.log" >"$out/results.txt"
verdict=$?
echo "lava: lava-run exit $st in $ms ms; results: $out/results.txt"
grep -E '^@lava(run)? ' "$out/results.txt" | sed 's/^/  /'
if [ $st != 0 ] || [ $verdict = 2 ]; then
	echo "lava: no verdict (exit 2): lava-run exit $st, apstart's @end case: $(sed -n 's/^@lavarun .*verdict=\([a-z]*\).*/\1/p' "$out/results.txt"); $out/lava.log" >&2
	said=$("$py" "$here/results.py" --qemu-said "$out/lava.log")
	# shellcheck source=tools/run/exit-why.sh
	. "$here/../../run/exit-why.sh"
	exit_why "lava: no verdict (exit 2)${said:+: $said}"
	exit 2
fi
exit $verdict
