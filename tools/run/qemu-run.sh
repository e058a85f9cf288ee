#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Boot an apstart kernel under QEMU with the serial console on stdout.
#
#   qemu-run.sh --kernel ELF [--smp N] [--accel auto|kvm|tcg] [--machine pc|q35]
#               [--timeout S] [--icount] [--tcg-single] [--cpu MODEL] [--mem MB]
#               [--log FILE] [--initrd FILE] [--module FILE] [--flush SPEC] [--gdb PORT]
#               [--com1-file FILE] [--monitor-pipe PATH] [--emulator x86_64|i386]
#               [--no-defaults] [--dry-run]
#               -- [kernel args...]
#
# --smp         QEMU -smp syntax (default 4), e.g. 4,maxcpus=8.
# --accel       auto (default): KVM when hardware-backed (tools/run/kvm-usable.sh),
#               else TCG; the first line on stderr says which and why.
# --icount      deterministic virtual time (TCG -icount shift=0,sleep=off,
#               1 instruction = 1 ns) and the kernel option icount=on.
# --tcg-single  one host thread runs every vCPU in turn (-accel
#               tcg,thread=single): run-to-run spread of the timings drops
#               from ~+-40% (multi-threaded TCG on 2 host cores) to ~+-2%,
#               used for wall-clock checks.
# --cpu         another CPU model (TCG), e.g. pentium3 (no long mode).
# --emulator    qemu-system-x86_64 (default) or qemu-system-i386, the 32-bit
#               emulator (make ARCH=i386's kernels run under either).
# --initrd      boots a Linux kernel given as --kernel (a bzImage, or a
#               vmlinux with the PVH entry note: tools/linux/vm/fetch.sh)
#               with that initramfs (make bench-linux, linux-hotplug's
#               VM), under the same configuration.
# --module      a boot module for the apstart kernel (QEMU's -initrd, which
#               its Multiboot1 loader hands over as module 1): the LRM file
#               of trampoline=linux (docs/linux-trampoline.md)
# --flush SPEC  charge every WBINVD/INVD a modelled cost (tools/flushmodel
#               plugin; SPEC e.g. us=2000 or xeon6985p). Forces TCG, prints
#               "@host flush_model=SPEC" before the kernel's output, and needs
#               the kernel's @end for a verdict (QEMU also exits 1 if the
#               plugin refuses).
# --gdb PORT    start paused with QEMU's gdb server on PORT (-S -gdb); the
#               timeout still applies. auto accel picks TCG.
# --com1-file   COM1 goes to FILE and COM2 to stdout (console=ttyS1 tests).
# --monitor-pipe PATH
#               the QEMU monitor on two FIFOs instead of none: commands
#               written to PATH.in run as typed (e.g. `echo nmi > PATH.in`
#               sends an NMI through LINT1), replies go to PATH.out, which
#               this script drains into PATH.log. The FIFOs are made if
#               missing; needs no tool besides the shell.
# --no-defaults without QEMU's default NIC, CD-ROM, floppy and parallel port
#               (-nodefaults, the VGA kept: -vga std): SeaBIOS has nothing to
#               probe, ~0.2 CPU-s less per -icount boot; the kernel prints
#               the same.
# --dry-run     print the accelerator line and the QEMU command, run nothing.
#
# Exit status: 0 = the kernel reported pass (its "@end status=pass" in the
# log and its pass byte through isa-debug-exit), 1 = it reported fail (its
# fail byte), 2 = no verdict (timeout, QEMU refused to start or ended
# early, crash: "qemu-run: no verdict", then QEMU's own last message as
# the last line) or bad usage (one "qemu-run: ..." line).
set -uo pipefail

usage() { sed -n '3,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; }
# The runner's own refusal: one line, the last it prints.
die() { echo "qemu-run: $* (see tools/run/qemu-run.sh --help)" >&2; exit 2; }
# need "$@": the option in $1 must have a value in $2.
need() { [ $# -ge 2 ] || die "$1 needs a value"; }

kernel= smp=4 accel=auto machine=pc timeout_s=120 icount=0 log= mem=512 tcg_single=0 cpu_model= nodefaults=0
initrd= flush= gdb_port= dry_run=0 com1_file= monitor_pipe= emulator=x86_64
while [ $# -gt 0 ]; do
	case "$1" in
	--kernel) need "$@"; kernel=$2; shift 2 ;;
	--smp) need "$@"; smp=$2; shift 2 ;;
	--accel) need "$@"; accel=$2; shift 2 ;;
	--machine) need "$@"; machine=$2; shift 2 ;;
	--timeout) need "$@"; timeout_s=$2; shift 2 ;;
	--icount) icount=1; shift ;;
	--tcg-single) tcg_single=1; shift ;;
	--cpu) need "$@"; cpu_model=$2; shift 2 ;;
	--log) need "$@"; log=$2; shift 2 ;;
	--com1-file) need "$@"; com1_file=$2; shift 2 ;;
	--monitor-pipe) need "$@"; monitor_pipe=$2; shift 2 ;;
	--flush) need "$@"; flush=$2; shift 2 ;;
	--mem) need "$@"; mem=$2; shift 2 ;;
	--initrd|--module) need "$@"; initrd=$2; shift 2 ;;
	--gdb) need "$@"; gdb_port=$2; shift 2 ;;
	--emulator) need "$@"; emulator=$2; shift 2 ;;
	--no-defaults) nodefaults=1; shift ;;
	--dry-run) dry_run=1; shift ;;
	-h|--help) usage; exit 0 ;;
	--) shift; break ;;
	*) die "unknown option '$1'" ;;
	esac
done
args="$*"

[ -n "$kernel" ] || die "--kernel ELF is required"
[[ $smp =~ ^[1-9][0-9]*(,.*)?$ ]] || die "--smp must be a CPU count (QEMU -smp syntax), not '$smp'"
[[ $timeout_s =~ ^[1-9][0-9]*$ ]] || die "--timeout must be a positive number of seconds (never infinite), not '$timeout_s'"
[[ $mem =~ ^[1-9][0-9]*$ ]] || die "--mem must be a number of MiB, not '$mem'"
if [ -n "$gdb_port" ] && ! { [[ $gdb_port =~ ^[1-9][0-9]{0,4}$ ]] && [ "$gdb_port" -le 65535 ]; }; then
	die "--gdb must be a TCP port number, not '$gdb_port'"
fi
[ -f "$kernel" ] || { echo "qemu-run: no kernel at '$kernel' (run make first)" >&2; exit 2; }
case "$machine" in pc|q35|pc,*|q35,*) ;; *) die "--machine must be pc or q35 (options after a comma), not '$machine'" ;; esac

# kvm_usable: KVM with hardware virtualisation behind it.
. "$(dirname "${BASH_SOURCE[0]}")/kvm-usable.sh"
if [ -n "$flush" ]; then
	. "$(dirname "${BASH_SOURCE[0]}")/../flushmodel/flush-opts.sh"
	accel=$(flush_accel "$accel" "$icount") || exit 2
	flush_plugin "$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)" "$flush" "${smp%%[!0-9]*}" || exit 2
fi
case "$accel" in
auto)
	if [ "$icount" = 1 ]; then accel=tcg; why="instruction counting needs TCG"
	elif [ -n "$gdb_port" ]; then accel=tcg; why="gdb server: TCG"
	elif kvm_usable; then accel=kvm; why="/dev/kvm with kvm_intel/kvm_amd"
	else accel=tcg; why="no hardware-backed KVM (/dev/kvm missing, not accessible, or not kvm_intel/kvm_amd)"; fi ;;
kvm)
	why="forced"
	[ "$icount" = 1 ] && die "--icount needs tcg"
	[ -r /dev/kvm ] && [ -w /dev/kvm ] || {
		echo "qemu-run: ACCEL=kvm, but /dev/kvm is missing or not accessible (use ACCEL=tcg or auto)" >&2
		exit 2
	} ;;
tcg) why="forced" ;;
*) die "--accel must be auto, kvm or tcg, not '$accel'" ;;
esac
[ -n "$flush" ] && why="the flush model is a TCG plugin"

if [ "$accel" = kvm ]; then
	accel_opts=(-accel kvm -cpu host,-arch-capabilities)
elif [ "$icount" = 1 ]; then
	# Deterministic virtual time: one instruction = 1 ns of TSC. The
	# kernel's icount=on keeps INIT from warping it (smp/instrument.h);
	# it goes first so an explicit icount=off in the args still wins.
	accel_opts=(-accel tcg -cpu max -icount shift=0,sleep=off)
	args="icount=on${args:+ $args}"
elif [ "$tcg_single" = 1 ]; then
	accel_opts=(-accel tcg,thread=single -cpu max)
else
	accel_opts=(-accel tcg -cpu max)
fi
# --cpu: another CPU model (TCG), e.g. to test a CPU without long mode.
if [ -n "$cpu_model" ]; then
	for i in "${!accel_opts[@]}"; do
		[ "${accel_opts[$i]}" = "-cpu" ] && accel_opts[$((i + 1))]=$cpu_model
	done
fi
mode=
[ "$icount" = 1 ] && mode=" icount=1"
[ "$accel" = tcg ] && [ "$icount" = 0 ] && [ "$tcg_single" = 1 ] && mode=" thread=single"
echo "qemu-run: accel=$accel ($why) machine=$machine smp=$smp$mode timeout=${timeout_s}s" >&2
[ -n "$flush" ] && echo "qemu-run: flush model $flush (TCG plugin): $flush_what" >&2

monitor_opts=(-monitor none)
if [ -n "$monitor_pipe" ]; then
	monitor_opts=(-monitor "pipe:$monitor_pipe")
	if [ "$dry_run" = 0 ]; then
		for f in "$monitor_pipe.in" "$monitor_pipe.out"; do
			[ -p "$f" ] || mkfifo "$f" || die "cannot make the FIFO $f"
		done
		# Drained in the background, or QEMU stalls once the pipe fills.
		cat "$monitor_pipe.out" >"$monitor_pipe.log" &
		drain=$!
		trap 'kill "$drain" 2>/dev/null' EXIT # replaced by the run's, which kills it too
	fi
fi
serial_opts=(-serial stdio)
[ -n "$com1_file" ] && serial_opts=(-serial "file:$com1_file" -serial stdio)
case $emulator in
x86_64|i386) ;;
*) die "--emulator must be x86_64 or i386, not '$emulator'" ;;
esac
cmd=(qemu-system-$emulator -machine "$machine" "${accel_opts[@]}" -smp "$smp" -m "$mem"
	-display none -no-reboot "${serial_opts[@]}" "${monitor_opts[@]}"
	-device isa-debug-exit,iobase=0xf4,iosize=4
	-kernel "$kernel")
[ "$nodefaults" = 1 ] && cmd+=(-nodefaults -vga std)
if [ -n "$initrd" ]; then
	[ -r "$initrd" ] || die "--initrd/--module: cannot read '$initrd'"
	# QEMU's Multiboot loader splits the value at commas (modules) and
	# blanks (a module's string).
	case $initrd in *[,[:space:]]*) die "--initrd/--module: QEMU would split '$initrd' at its comma or blank" ;; esac
	cmd+=(-initrd "$initrd")
fi
[ -n "$args" ] && cmd+=(-append "$args")
[ -n "$gdb_port" ] && cmd+=(-S -gdb "tcp::$gdb_port")
[ -n "$flush" ] && cmd+=(-plugin "$flush_arg")
if [ "$dry_run" = 1 ]; then
	printf '%q ' timeout --foreground -k 5 "$timeout_s" "${cmd[@]}"
	echo
	exit 0
fi

# The serial stream is always kept (in --log, else a temporary file): the
# verdict is read from it. QEMU's stderr goes to the terminal as it comes
# and to a file, so that a run without a verdict can end on QEMU's own
# message.
work=$(mktemp -d) || die "cannot make a temporary directory"
trap 'kill "${drain:-}" "${errtee:-}" 2>/dev/null; rm -rf "$work"' EXIT
serial=${log:-$work/serial.log}
mkfifo "$work/stderr" || die "cannot make a FIFO in $work"
tee "$work/qemu.err" <"$work/stderr" >&2 &
errtee=$!
{
	# The record goes first, so even a cut-short log says it was modelled.
	[ -z "$flush" ] || echo "@host flush_model=$flush"
	timeout --foreground -k 5 "$timeout_s" "${cmd[@]}" </dev/null 2>"$work/stderr"
} | tee "$serial"
status=${PIPESTATUS[0]}
wait "$errtee"
errtee=
[ -z "$flush" ] || flush_report_show

# The verdict: the kernel's last @end record, and its exit byte through
# isa-debug-exit (QEMU exits (byte << 1) | 1: 1 pass, 3 fail). QEMU also
# exits 1 when it refuses to start (a bad -smp, CPU model or firmware
# file) or a plugin refuses: 1 is a pass only with @end status=pass.
end=$(cat "$serial" ${com1_file:+"$com1_file"} 2>/dev/null | tr -d '\r' | grep -a '^@end ' | tail -n 1)
case $status:$end in
1:'@end status=pass'*) exit 0 ;;
3:*) exit 1 ;;
esac
case $status in
124|137) why="TIMEOUT after ${timeout_s}s" ;;
*) why="QEMU exited with status $status" ;;
esac
said=${end#@end }
said=${said%% *}
if [ -z "$end" ]; then
	why+=" before the kernel's @end"
elif [ "$status" = 1 ]; then
	why+=" (the pass byte), but the kernel's @end says $said"
else
	why+="; the kernel's @end says $said, but its exit byte never came (exit=halt or exit=reset?)"
fi
case " $args " in *' console=ttyS'[123]*) [ -n "$end" ] || why+=" (console= moved the kernel's output off COM1?)" ;; esac
echo "qemu-run: no verdict (exit 2): $why" >&2
# QEMU's own last message is the last line (not an "info:" follow-up, nor
# "terminating on signal", which is the timeout's doing).
said=$(grep -av -e ': info: ' -e 'terminating on signal' "$work/qemu.err" | grep -a . | tail -n 1)
[ -z "$said" ] || printf '%s\n' "$said" >&2
exit 2
