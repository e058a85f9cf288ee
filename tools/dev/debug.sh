#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# make debug: an apstart kernel under QEMU (TCG), paused at the reset
# vector with QEMU's gdb server, and gdb with a script that loads the
# kernel's symbols and, once the kernel has placed the trampoline blob,
# the blob's symbols at its run-time address.
#
#   debug.sh --kernel ELF --tramp-elf ELF [--listing FILE] [--install FUNC]
#            [--port N] [--timeout S] [--smp N] [--gdb CMD] [--batch FILE]
#            -- [kernel args]
#
# --gdb CMD     the debugger (default gdb); 'none': start QEMU only, with the
#               serial console on this terminal, and attach yourself with
#               the gdb command printed first.
# --batch FILE  run gdb without a terminal: the script, then FILE's commands
#               (used by the tests).
# Otherwise the serial console goes to build/debug/serial.log, and QEMU
# stops when gdb does (or after --timeout seconds, default 900).
# Exit status: gdb's, or qemu-run.sh's with --gdb none; 2 for bad usage.
set -uo pipefail
cd "$(dirname "$0")/../.."

die() { echo "debug: $*" >&2; exit 2; }
need() { [ $# -ge 2 ] || die "$1 needs a value (see --help)"; }
kernel= tramp_elf= listing= install=trampoline_install port=1234 timeout_s=900 smp=2
gdb=gdb batch=
while [ $# -gt 0 ]; do
	case "$1" in
	--kernel) need "$@"; kernel=$2; shift 2 ;;
	--tramp-elf) need "$@"; tramp_elf=$2; shift 2 ;;
	--listing) need "$@"; listing=$2; shift 2 ;;
	--install) need "$@"; install=$2; shift 2 ;;
	--port) need "$@"; port=$2; shift 2 ;;
	--timeout) need "$@"; timeout_s=$2; shift 2 ;;
	--smp) need "$@"; smp=$2; shift 2 ;;
	--gdb) need "$@"; gdb=$2; shift 2 ;;
	--batch) need "$@"; batch=$2; shift 2 ;;
	-h|--help) sed -n '3,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	--) shift; break ;;
	*) die "unknown option '$1' (see --help)" ;;
	esac
done
[ -f "$kernel" ] || die "no kernel at '$kernel'"
[ -f "$tramp_elf" ] || die "no trampoline ELF at '$tramp_elf'"
[ -z "$batch" ] || [ -f "$batch" ] || die "no gdb command file '$batch'"
if [ "$gdb" != none ] && ! command -v "$gdb" >/dev/null 2>&1; then
	die "'$gdb' is not installed (make deps installs gdb; DEBUG_GDB=none starts QEMU alone)"
fi

dir=build/debug
mkdir -p "$dir"
script=$dir/apstart.gdb
# sed replacement text: escape \, & and the delimiter.
esc() { printf '%s' "$1" | sed 's/[\\&|]/\\&/g'; }
sed -e "s|@KERNEL@|$(esc "$kernel")|g" -e "s|@TRAMP_ELF@|$(esc "$tramp_elf")|g" \
	-e "s|@LISTING@|$(esc "${listing:-the NASM listing}")|g" -e "s|@INSTALL@|$(esc "$install")|g" \
	-e "s|@PORT@|$(esc "$port")|g" -e "s|@SCRIPT@|$(esc "$script")|g" \
	tools/dev/debug/apstart.gdb.in >"$script" || die "cannot write $script"

qemu=(tools/run/qemu-run.sh --kernel "$kernel" --smp "$smp" --accel tcg --gdb "$port"
	--timeout "$timeout_s" -- "$@")
if [ "$gdb" = none ]; then
	echo "debug: QEMU waits for gdb on port $port; in another terminal: gdb -x $script" >&2
	exec "${qemu[@]}"
fi

# QEMU in a session of its own, so that it can be stopped as a whole.
serial=$dir/serial.log
setsid "${qemu[@]}" >"$serial" 2>&1 </dev/null &
qpid=$!
trap 'kill -TERM -- -$qpid 2>/dev/null' EXIT
echo "debug: QEMU (pid $qpid) waits on port $port; serial console: $serial" >&2
if [ -n "$batch" ]; then
	"$gdb" -nx -batch -x "$script" -x "$batch" </dev/null
else
	"$gdb" -q -x "$script"
fi
st=$?
# A run gdb let finish ends QEMU by itself: qemu-run.sh then passes the
# last of the serial stream on (through its tee) and exits. Give it that
# moment before the EXIT trap stops whatever is left (QEMU still held
# after an early quit).
for _ in $(seq 50); do
	kill -0 "$qpid" 2>/dev/null || break
	sleep 0.1
done
exit $st
