#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# make bench-linux: Linux's own CPU hotplug next to apstart's, on the same
# QEMU configuration, in one invocation.
#   1. Debian's kernel (tools/linux-vm/fetch.sh) boots with a busybox
#      initramfs holding the static linux-hotplug, which cycles every AP
#      through sysfs CYCLES times and prints apstart's records.
#   2. apstart (WBINVD=1: Debian's trampoline_64.S has the WBINVD too)
#      boots with cycles=CYCLES on the same -machine/-cpu/-smp/-m.
#   3. Linux's boot-time bring-up from its own log, then aplog stats for
#      each and aplog compare (A = Linux, B = apstart).
# Logs: build/bench-linux/{linux,apstart}.log.
#   bench.sh --smp N --cycles K [--accel A] [--machine M] [--timeout S] [--wbinvd 0|1]
set -uo pipefail
cd "$(dirname "$0")/../.."

smp=8 cycles=10 accel=auto machine=pc timeout_s=600 wbinvd=1
while [ $# -gt 0 ]; do
	case "$1" in
	--smp) smp=$2; shift 2 ;;
	--cycles) cycles=$2; shift 2 ;;
	--accel) accel=$2; shift 2 ;;
	--machine) machine=$2; shift 2 ;;
	--timeout) timeout_s=$2; shift 2 ;;
	--wbinvd) wbinvd=$2; shift 2 ;;
	*) echo "bench-linux: unknown option '$1'" >&2; exit 2 ;;
	esac
done
case "$cycles" in ''|*[!0-9]*|0) echo "bench-linux: CYCLES must be a positive number, not '$cycles'" >&2; exit 2 ;; esac
case "$wbinvd" in 0|1) ;; *) echo "bench-linux: --wbinvd must be 0 or 1" >&2; exit 2 ;; esac

LH=build/host/linux-hotplug APLOG=build/host/aplog KERNEL=build/wbinvd$wbinvd/apstart.elf
for f in "$LH" "$APLOG" "$KERNEL"; do
	[ -x "$f" ] || [ -f "$f" ] || { echo "bench-linux: $f not built (run: make bench-linux)" >&2; exit 2; }
done
out=build/bench-linux
mkdir -p "$out"

dir=$(tools/linux-vm/fetch.sh) || { echo "bench-linux: cannot get Debian's kernel (see above)" >&2; exit 2; }
tools/linux-vm/mkinitramfs.sh "$dir/busybox" "$LH" "$out/initramfs.cpio" || exit 2

echo "=== bench-linux: SMP=$smp CYCLES=$cycles MACHINE=$machine ($(tr '\n' ';' <"$dir/versions" | sed 's/;$//; s/;/, /'))"
echo "--- Linux: boot, then linux-hotplug --cycles $cycles (serial log: $out/linux.log)"
t0=$SECONDS
tools/qemu-run.sh --kernel "$dir/vmlinuz" --initrd "$out/initramfs.cpio" --smp "$smp" \
	--accel "$accel" --machine "$machine" --timeout "$timeout_s" \
	-- "console=ttyS0 loglevel=4 panic=-1 lh_cycles=$cycles lh_wbinvd=1" 2>&1 |
	tr -d '\r' >"$out/linux.log"
linux_rc=${PIPESTATUS[0]}
grep -E '^qemu-run:' "$out/linux.log"
echo "    $((SECONDS - t0)) s, exit $linux_rc"
echo "--- apstart WBINVD=$wbinvd: cycles=$cycles (serial log: $out/apstart.log)"
t0=$SECONDS
tools/qemu-run.sh --kernel "$KERNEL" --smp "$smp" --accel "$accel" --machine "$machine" \
	--timeout "$timeout_s" -- "cycles=$cycles" 2>&1 | tr -d '\r' >"$out/apstart.log"
ap_rc=${PIPESTATUS[0]}
grep -E '^qemu-run:' "$out/apstart.log"
echo "    $((SECONDS - t0)) s, exit $ap_rc"

echo
echo "=== Boot-time bring-up of the APs"
sed -n 's/^linux-hotplug: kernel log: /Linux log:    /p' "$out/linux.log"
lb=$(sed -n 's/^@linux_bringup cpus=\([0-9]*\) ns=\([0-9]*\).*/\1 \2/p' "$out/linux.log" | head -1)
if [ -n "$lb" ]; then
	set -- $lb
	awk -v c="$1" -v ns="$2" 'BEGIN { printf "Linux:        %.1f ms from \"smp: Bringing up secondary CPUs\" to \"smp: Brought up ... %d CPUs\" (printk times)\n", ns / 1e6, c }'
else
	echo "Linux:        no bring-up lines in the kernel log"
fi
awk '/^@cpu .*boot_ns=/ { sub(/.*boot_ns=/, ""); s += $1; n++ }
	END { if (n) printf "apstart:      %.3f ms: sum of the %d APs'"'"' first bring-up (@cpu boot_ns)\n", s / 1e6, n;
	      else print "apstart:      no @cpu records" }' "$out/apstart.log"
echo
echo "=== aplog stats: Linux (sysfs writes)"
"$APLOG" stats "$out/linux.log"
echo
echo "=== aplog stats: apstart"
"$APLOG" stats "$out/apstart.log"
echo
echo "=== aplog compare --label-a linux --label-b apstart linux.log -- apstart.log"
"$APLOG" compare --label-a linux --label-b apstart "$out/linux.log" -- "$out/apstart.log"
cmp_rc=$?
if [ "$linux_rc" != 0 ] || [ "$ap_rc" != 0 ] || [ "$cmp_rc" != 0 ]; then
	echo "bench-linux: a run failed (Linux exit $linux_rc, apstart exit $ap_rc, compare $cmp_rc); see $out/" >&2
	grep -E '^(@fail|linux-vm:|linux-hotplug:)' "$out/linux.log" | tail -20 >&2
	exit 1
fi
