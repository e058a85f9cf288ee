#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# One Bochs boot of a BIOS CD until the kernel's @end record (make
# bochs-tests, make tscskew-tests). Bochs has no isa-debug-exit: the
# serial file (DIR/serial.txt) is watched for the @end line, whole, then
# Bochs is stopped by its PID; TIMEOUT seconds bound it. Exit status 0
# when @end came; DIR also holds the bochsrc, Bochs's log (bochs.log) and
# its output (bochs.out).
#   tests/bochs/boot.sh DIR ISO MODEL S:C:T TIMEOUT
#
# ips=1000000: ips is how many instructions Bochs runs per emulated
# second, so every wait that is paced by emulated time costs instructions
# in proportion: the BIOS's, GRUB's and, most of all, the UART's (115200
# baud, 87 us a byte: 4,350 instructions at the 50 M it had, 87 at 1 M,
# for each of the ~10 kB a run prints). The kernel times itself by the
# TSC, which Bochs advances per instruction whatever ips is (its figures
# came out the same at 50 M, 4 M and 1 M), so the run it makes does not
# change: a boot took 8.2 CPU-s at 50 M and 6.1 at 1 M (the same image).
set -uo pipefail
[ $# -eq 5 ] || { echo "bochs boot: usage: boot.sh DIR ISO MODEL S:C:T TIMEOUT" >&2; exit 2; }
dir=$1 iso=$(realpath "$2") model=$3 count=$4 timeout_s=$5
rm -rf "$dir"; mkdir -p "$dir"
dir=$(realpath "$dir")
# Debian's build: no 'nogui' (rfb without a viewer instead); its ALSA
# speaker aborts without a sound card, so sound is off. fastboot: the
# BIOS skips its "Press F12 for boot menu" wait, 150M of the 375M
# instructions a boot took at ips=50M (ticks in bochs.log).
cat >"$dir/bochsrc" <<-RC
	megs: 256
	cpu: count=$count, ips=1000000, model=$model, reset_on_triple_fault=0
	romimage: file=/usr/share/bochs/BIOS-bochs-latest, options=fastboot
	vgaromimage: file=/usr/share/bochs/VGABIOS-lgpl-latest
	ata0-master: type=cdrom, path="$iso", status=inserted
	boot: cdrom
	com1: enabled=1, mode=file, dev=$dir/serial.txt
	display_library: rfb, options="timeout=0"
	speaker: enabled=0
	sound: waveoutdrv=dummy
	panic: action=fatal
	log: $dir/bochs.log
RC
echo c >"$dir/cmds" # the debugger build stops at a prompt without it
timeout -k 5 "$timeout_s" bochs -q -f "$dir/bochsrc" -rc "$dir/cmds" \
	</dev/null >"$dir/bochs.out" 2>&1 &
bpid=$!
# The @end record, whole: Bochs writes serial.txt as bytes arrive, and
# stopping it on a half-written '@end status=pass' cut the rest of the
# line off (seen once in make test): wait for the line's newline too.
end_whole() {
	grep -aq '^@end ' "$dir/serial.txt" 2>/dev/null &&
		[ "$(tail -c 1 "$dir/serial.txt" | od -An -tx1 | tr -d ' ')" = 0a ]
}
while kill -0 $bpid 2>/dev/null && ! end_whole; do
	sleep 0.5
done
kill $bpid 2>/dev/null
wait $bpid 2>/dev/null
[ -f "$dir/serial.txt" ] || : >"$dir/serial.txt"
grep -aq '^@end ' "$dir/serial.txt"
