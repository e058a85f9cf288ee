#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# One short real run of linux-hotplug inside a VM: Debian's kernel with a
# busybox initramfs under QEMU TCG (one host thread: ~10% less CPU than
# one per vCPU, measured), -smp 4, 1 cycle, with --trace (the
# kernel's own cpuhp tracepoints through tracefs); no_timer_check as in
# tools/linux/vm/bench.sh (a loaded host can fail the boot-time IO-APIC
# timer check). Prints one line,
# "ok   ...", "FAIL ...: why" or "skip ...: reason" (no kernel package).
#   vm.sh LINUX_HOTPLUG APLOG OUTDIR
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
lh=$1 aplog=$2 out=$3
name="VM run (Debian kernel, QEMU TCG on one host thread, -smp 4, 1 cycle, --trace)"
mkdir -p "$out"

if ! dir=$("$root/tools/linux/vm/fetch.sh" 2>"$out/fetch.err"); then
	echo "skip $name: Debian's kernel/busybox-static not available: $(tail -2 "$out/fetch.err" | tr '\n' ' ')"
	exit 0
fi
dir=$root/$dir
# the uncompressed vmlinux where fetch.sh has it (PVH entry: no ~5 s of
# TCG in the bzImage's decompressor), else the bzImage
kernel=$dir/vmlinuz
[ -s "$dir/vmlinux" ] && kernel=$dir/vmlinux
if ! "$root/tools/linux/vm/mkinitramfs.sh" "$dir/busybox" "$lh" "$out/initramfs.cpio" 2>"$out/mk.err"; then
	echo "FAIL $name: initramfs: $(cat "$out/mk.err")"
	exit 1
fi
"$root/tools/run/qemu-run.sh" --kernel "$kernel" --initrd "$out/initramfs.cpio" \
	--smp 4 --accel tcg --tcg-single --timeout 240 -- "console=ttyS0 loglevel=4 panic=-1 no_timer_check lh_cycles=1 lh_trace=1" \
	>"$out/vm.log" 2>&1
rc=$?
tr -d '\r' <"$out/vm.log" >"$out/vm.txt"
n_off=$(grep -c '^@sample cpu=[1-3] apic=[1-3] cycle=1 op=offline ' "$out/vm.txt")
n_on=$(grep -c '^@sample cpu=[1-3] apic=[1-3] cycle=1 op=online ' "$out/vm.txt")
why=
[ $rc = 0 ] || why="qemu-run exit $rc (0 = the guest reported pass)"
[ -z "$why" ] && ! grep -q '^@end status=pass online=4 failed=0 restored=yes' "$out/vm.txt" && why="no '@end status=pass online=4 failed=0 restored=yes'"
[ -z "$why" ] && { [ "$n_off" = 3 ] && [ "$n_on" = 3 ]; } || why=${why:-"samples: $n_off offline, $n_on online, want 3 each"}
[ -z "$why" ] && ! grep -q '^@boot kernel=linux version=6\.' "$out/vm.txt" && why="no @boot kernel=linux"
[ -z "$why" ] && ! grep -q '^@linux_bringup cpus=4 ns=[1-9]' "$out/vm.txt" && why="no @linux_bringup cpus=4 from the kernel log"
# Traced: each write has callbacks, none lost; each online write has
# cpu:bringup on another CPU than the AP and AP-side states on the AP.
n_w=$(grep -c '^@cpuhp_write cpu=[1-3] .* lost=0 foreign=0 malformed=0$' "$out/vm.txt")
n_b=$(grep -cE '^@cpuhp cpu=([1-3]) .* op=online state=[0-9]+ name=cpu:bringup fn=bringup_cpu ' "$out/vm.txt")
n_ap=$(awk '/^@cpuhp / && / op=online / && / name=sched:active / { split($2, a, "="); split($10, b, "="); if ($10 ~ /^on=/ && a[2] == b[2]) n++ } END { print n + 0 }' "$out/vm.txt")
[ -z "$why" ] && ! grep -q '^@cpuhp_trace tracefs=/sys/kernel/tracing clock=mono states=[1-9]' "$out/vm.txt" && why="no @cpuhp_trace record"
[ -z "$why" ] && [ "$n_w" != 6 ] && why="$n_w of 6 writes traced with nothing lost"
[ -z "$why" ] && [ "$n_b" != 3 ] && why="$n_b of 3 online writes have a cpu:bringup record"
[ -z "$why" ] && [ "$n_ap" != 3 ] && why="$n_ap of 3 online writes have sched:active on the AP itself"
[ -z "$why" ] && ! "$aplog" stats "$out/vm.txt" >"$out/aplog.txt" 2>&1 && why="aplog stats: $(head -2 "$out/aplog.txt")"
# What Linux really gave (its SMT control, microcode, tracefs): every
# record in the record schema (lib/records.def).
[ -z "$why" ] && ! "$aplog" schema --check "$out/vm.txt" >"$out/schema.txt" 2>&1 &&
	why="records the schema lacks: $(grep -v '^OK' "$out/schema.txt" | head -3 | tr '\n' ' ')"
if [ -n "$why" ]; then
	echo "FAIL $name: $why (log: $out/vm.txt)"
	tail -25 "$out/vm.txt"
	exit 1
fi
med=$(sed -n 's/^@summary op=online .*median_ns=\([0-9]*\).*/\1/p' "$out/vm.txt")
ncb=$(grep -c '^@cpuhp ' "$out/vm.txt")
echo "ok   $name: $(sed -n 's/^@boot kernel=linux version=\([^ ]*\).*/\1/p' "$out/vm.txt"), 3 APs offline+online, median online $((med / 1000)) us, $ncb cpuhp callbacks traced, restored, every record in the schema"
