#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# make linux-session-long (not in make test): apstart's Linux side on a
# real Debian 12 under OVMF, end to end, unattended. The image
# (tests/linux-session/mkimage.sh: GRUB EFI, the .deb installed, checked
# in its chroot on the way) boots under QEMU (q35, TCG, -smp 4, -m 2048,
# a persistent OVMF variable store, no -no-reboot: a warm reset reboots
# the same machine) and its driver (driver.sh) takes one step per boot:
#   1 apstart setup; reboot
#   2 the region reserved; apstart run --via grub --wbinvd 1 (one-shot
#     GRUB entry; the summary in NVRAM, the records in the region)
#   3 apstart run --via kexec
#   4 apstart ab 2 --wait 5: four runs, one per reboot, then the table
# During the session's third countdown QEMU is killed (a power cut) and
# started again; the session must go on without losing or repeating a run.
# Checked from the serial capture and, after the machine powers itself
# off, from its disk (debugfs): what each run filed, byte for byte against
# the serial bytes of that run; the NVRAM summary through efivarfs; the
# session's plan, run files and table; the times.
#   DEB=build/deb/apstart_V_amd64.deb run.sh
set -uo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT_DIR=$(cd "$HERE/../.." && pwd)
cd "$ROOT_DIR" || exit 2
# shellcheck source=tests/protocol.sh
. tests/protocol.sh
: "${DEB:?}"
lane=linux-session
out=build/linux-session
mkdir -p "$out"
SESSION_TIMEOUT=${SESSION_TIMEOUT:-5400}

if [ "$(id -u)" != 0 ]; then
	skip "$lane" "needs root (debootstrap, a loop device, mounts: tests/linux-session/mkimage.sh)"
	summary "$lane"; exit 0
fi
for t in debootstrap sgdisk mkfs.vfat mcopy debugfs qemu-system-x86_64; do
	command -v "$t" >/dev/null || { skip "$lane" "$t is not installed"; summary "$lane"; exit 0; }
done
[ -f /usr/share/OVMF/OVMF_CODE_4M.fd ] || { skip "$lane" "no OVMF (apt-get install ovmf)"; summary "$lane"; exit 0; }

t_all=$SECONDS
img=$out/disk.img
if [ ! -s "$img" ] || [ "$DEB" -nt "$img" ] || [ "$HERE/mkimage.sh" -nt "$img" ] || [ "$HERE/driver.sh" -nt "$img" ]; then
	rm -f "$img"
	bash "$HERE/mkimage.sh" "$DEB" "$img" >"$out/mkimage.out" 2>&1
	st=$?
	while IFS= read -r line; do
		case $line in
		"ok   "*) ok "${line#ok   }" ;;
		"FAIL "*) n=${line#FAIL }; fail "${n%%: *}" "${n#*: }" ;;
		*) printf '%s\n' "$line" ;;
		esac
	done <"$out/mkimage.out"
	[ $st = 0 ] && [ -s "$img" ] || { summary "$lane"; exit 1; }
else
	echo "$lane: the image $img is newer than the .deb and its scripts: used as it is"
fi
echo "$lane: image ready after $((SECONDS - t_all)) s"

# A fresh machine from the image: its disk and its NVRAM.
run_img=$out/run.img vars=$out/vars.fd serial=$out/serial.log times=$out/times.log
cp --sparse=always "$img" "$run_img"
cp /usr/share/OVMF/OVMF_VARS_4M.fd "$vars"
: >"$serial"; : >"$times"
qpid=
start_qemu() {
	qemu-system-x86_64 -machine q35 -accel tcg,thread=single -cpu max -smp 4 -m 2048 -display none -monitor none \
		-drive if=pflash,format=raw,unit=0,readonly=on,file=/usr/share/OVMF/OVMF_CODE_4M.fd \
		-drive if=pflash,format=raw,unit=1,file="$vars" \
		-drive file="$run_img",format=raw,if=virtio \
		-chardev file,id=s0,path="$serial",append=on -serial chardev:s0 -net none >>"$out/qemu.out" 2>&1 &
	qpid=$!
	echo "$(date +%s) qemu started (pid $qpid)" >>"$times"
}
stop_qemu() { [ -n "$qpid" ] && kill -9 "$qpid" 2>/dev/null; wait "$qpid" 2>/dev/null; qpid=; }
trap stop_qemu EXIT
text() { tr -d '\r' <"$serial" | sed 's/\x1b\[[0-9;?]*[a-zA-Z]//g'; }
# wait_for REGEX COUNT SECONDS: the capture has COUNT lines matching REGEX
# (0; 2: QEMU ended; 1: timed out). A machine that prints nothing for
# HANG_S seconds is hung (seen here: Linux's reboot under OVMF and
# TCG never reached the firmware; GRUB silent after its welcome on a warm
# reboot): it is power-cycled, as a BMC would, and
# counted; the driver's steps are on its disk, so it goes on.
HANG_S=${HANG_S:-480}
hangs=0
wait_for() {
	local re=$1 n=$2 until=$((SECONDS + $3)) size=-1 quiet_since=$SECONDS s
	while [ $SECONDS -lt $until ]; do
		[ "$(text | grep -Eac -- "$re")" -ge "$n" ] && return 0
		kill -0 "$qpid" 2>/dev/null || return 2
		s=$(stat -c %s "$serial")
		local why=
		if [ "$s" != "$size" ]; then size=$s quiet_since=$SECONDS; fi
		[ $((SECONDS - quiet_since)) -ge "$HANG_S" ] && why="no output for $HANG_S s"
		[ "$(sed -n '/^=== power-cycled/h; /^=== power-cycled/!H; ${x;p}' "$serial" | grep -ac 'soft lockup - CPU#')" -ge 3 ] &&
			why="Linux's soft lockups (an IPI never answered: seen under TCG)"
		if [ -n "$why" ]; then
			hangs=$((hangs + 1))
			mark "$why: hung; power-cycled (QEMU killed and started again; $hangs so far)"
			# its last lines, on the mark's line format (time, then text)
			echo "$(date +%s)   its last lines: $(text | grep -av '^\s*$' | tail -n 3 | tr '\n' '|')" >>"$times"
			stop_qemu
			echo "=== power-cycled by the lane ($why)" >>"$serial"
			sleep 2; start_qemu
			quiet_since=$SECONDS
		fi
		sleep 2
	done
	return 1
}
mark() { echo "$(date +%s) $*" >>"$times"; echo "$lane: $(date -u +%H:%M:%S) $*"; }

start_qemu
t_session0=$SECONDS
# the machine boots, sets up, reboots, runs through GRUB and through kexec,
# starts the session: until the third run's countdown
if wait_for 'apstart-lane: boot .* step 1$' 1 900; then mark "first boot up"; else fail "first boot" "no driver line" "$(text | tail -5)"; fi
if wait_for 'apstart-lane: boot .* step 2$' 1 900; then mark "rebooted after setup"; else fail "reboot after setup" "" "$(text | tail -8)"; fi
if wait_for 'apstart-lane: boot .* step 3$' 1 900; then mark "back from the GRUB run"; else fail "the GRUB run" "" "$(text | tail -8)"; fi
if wait_for 'apstart-lane: boot .* step 4$' 1 900; then mark "back from the kexec run"; else fail "the kexec run" "" "$(text | tail -8)"; fi
if wait_for 'apstart-lane: ab start at ' 1 300; then mark "apstart ab 2 started"; fi
t_ab=$SECONDS
if wait_for 'session-0001: run 3 of 4' 1 1800; then
	# the countdown (5 s) follows that line at once
	mark "killing QEMU during the countdown before run 3 (a power cut)"
	stop_qemu
	sleep 2
	start_qemu
else
	fail "the session reached run 3's countdown" "" "$(text | tail -8)"
fi
# from here alone: the session's last two runs, the table, power off
wait_for 'apstart-lane: done at ' 1 "$SESSION_TIMEOUT"
st=$?
mark "the machine is done (wait status $st)"
t_ab_end=$SECONDS
for _ in $(seq 60); do kill -0 "$qpid" 2>/dev/null || break; sleep 2; done
stop_qemu
text >"$out/serial.txt"

# ---- what the machine filed: its disk, read with debugfs
root_loop=$(losetup -f --show -r -o $((411648 * 512)) "$run_img")
got=$out/got
rm -rf "$got"; mkdir -p "$got"
debugfs -R "rdump /var/lib/apstart $got" "$root_loop" >/dev/null 2>&1
debugfs -R "dump /boot/grub/grub.cfg $got/grub.cfg" "$root_loop" >/dev/null 2>&1
losetup -d "$root_loop"
S=$got/apstart/session-0001

grep -q 'apstart-lane: cmdline: .*memmap=3M\$0x10000000 pstore.backend=ramoops ramoops.mem_address=0x10000000' "$out/serial.txt" &&
	grep -q 'apstart-lane: iomem: .*10000000-102fffff : Reserved' "$out/serial.txt" &&
	ok "setup, one reboot: Linux's command line has memmap= and ramoops', /proc/iomem the region reserved" ||
	fail "setup took effect" "" "$(grep 'apstart-lane: \(cmdline\|iomem\)' "$out/serial.txt")"

# the serial bytes of each apstart run, in order: from the CR LF before its
# banner through its "reset: warm" line (the kernel's last before the reset)
python3 - "$serial" "$out" <<'EOF'
import re, sys
cap = open(sys.argv[1], "rb").read()
n = 0
for m in re.finditer(rb"\r\napstart .*?\r\nreset: warm[^\r\n]*\r\n", cap, re.S):
    n += 1
    open(f"{sys.argv[2]}/serial-run-{n}.bin", "wb").write(m.group(0))
print(f"linux-session: {n} apstart runs in the serial capture")
EOF
# same_as_serial NAME FILE: FILE equals the serial bytes of a run after the
# one matched last (a run that a hang cut short has serial bytes and no
# record: it is stepped over)
next_serial=1
same_as_serial() {
	if [ ! -s "$2" ]; then fail "$1" "$2 was not filed"; return; fi
	local k=$next_serial
	while [ -f "$out/serial-run-$k.bin" ]; do
		if cmp -s "$2" "$out/serial-run-$k.bin"; then
			ok "$1 ($(stat -c %s "$2") bytes; apstart run $k on serial)"
			next_serial=$((k + 1))
			return
		fi
		k=$((k + 1))
	done
	fail "$1" "equals no apstart run on serial from run $next_serial on" "$(cmp "$2" "$out/serial-run-$next_serial.bin" 2>&1 | head -1)"
}
same_as_serial "run --via grub: the pstore record filed (run-0001.log) = the run's serial bytes" "$got/apstart/run-0001.log"
if [ -s "$got/apstart/run-0001.nvram.log" ] && grep -q '^@end status=pass' "$got/apstart/run-0001.nvram.log" &&
	grep -q '^@summary op=online' "$got/apstart/run-0001.nvram.log" && grep -q 'firmware=uefi' "$got/apstart/run-0001.nvram.log"; then
	ok "run --via grub: the NVRAM summary came back through efivarfs (run-0001.nvram.log, $(stat -c %s "$got/apstart/run-0001.nvram.log") bytes, @summary and @end status=pass)"
else
	fail "run --via grub: the NVRAM summary through efivarfs" "" "$(ls -l "$got/apstart")"
fi
grep -q 'wbinvd=1' "$got/apstart/run-0001.log" && ok "run --via grub --wbinvd 1 ran the WBINVD=1 kernel" || fail "run --via grub --wbinvd 1" "no wbinvd=1 in @boot"
same_as_serial "run --via kexec: the pstore record filed (run-0002.log) = the run's serial bytes" "$got/apstart/run-0002.log"
grep -q '^@boot .*firmware=uefi' <(tr -d '\r' <"$got/apstart/run-0002.log") &&
	ok "run --via kexec: the kernel knew the firmware (firmware=uefi) and found the CPUs (acpi_rsdp=)" ||
	fail "run --via kexec: firmware=uefi" "" "$(grep -a '^@boot' "$got/apstart/run-0002.log")"

# the session
order=$(sed -n 's/^order=//p' "$S/plan.txt" 2>/dev/null)
k=0
for i in 1 2 3 4; do
	x=${order:i-1:1}
	w=$([ "$x" = A ] && echo 1 || echo 0)
	f=$S/run-00$i-$x-wbinvd$w.log
	if [ -f "${f%.log}.interrupted" ]; then
		echo "$lane: ab run $i ($x) interrupted: $(cat "${f%.log}.interrupted")"
		continue
	fi
	same_as_serial "ab run $i ($x, WBINVD=$w): filed, = its serial bytes" "$f"
	[ -s "$f" ] && k=$((k + 1))
done
starts=$(grep -c ' started clock=' "$S/plan.txt" 2>/dev/null)
n_int=$(find "$S" -name '*.interrupted' 2>/dev/null | wc -l)
# a machine found hung and power-cycled during a run loses that run (it is
# recorded interrupted and not repeated): only such runs may be missing
if [ $((k + n_int)) = 4 ] && [ "$n_int" -le "$hangs" ] && [ "$starts" = 4 ] && grep -q '^state=done$' "$S/plan.txt"; then
	ok "ab 2 through a killed QEMU: 4 runs, each started once, $k filed, $n_int interrupted (by $hangs hang(s) power-cycled), state=done"
else
	fail "ab 2 through a killed QEMU" "$k runs filed, $n_int interrupted, $starts started lines, $hangs hangs" "$(cat "$S/plan.txt" 2>/dev/null)"
fi
if grep -q '^Offline: ' "$S/table.txt" && grep -q '^Online: ' "$S/table.txt" && grep -q '^Total: ' "$S/table.txt" &&
	grep -q 'apstart: session-0001 done' "$out/serial.txt" && grep -q ': *Total: ' "$out/serial.txt"; then
	ok "ab 2: the three rows and the verdict printed and in table.txt"
else
	fail "ab 2: the table" "" "$(cat "$S/table.txt" 2>/dev/null)"
fi
echo "$lane: table.txt:"
sed 's/^/    /' "$S/table.txt" 2>/dev/null
echo "$lane: times (this host is shared and loaded: upper bounds): whole lane $((SECONDS - t_all)) s;" \
	"first boot to the end $((t_ab_end - t_session0)) s; apstart ab 2 from its start to the table $((t_ab_end - t_ab)) s" \
	"(4 runs, one QEMU kill and cold start); machines found hung and power-cycled: $hangs"
t_first=$(head -n 1 "$times" | cut -d' ' -f1)
while read -r t what; do
	[[ $t =~ ^[0-9]+$ ]] || { printf '            %s\n' "$t $what"; continue; }
	printf '    %5d s  %s\n' $((t - t_first)) "$what"
done <"$times"
summary "$lane"
