#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A second, independent emulator: Bochs boots the BIOS image (Bochs BIOS,
# GRUB from a CD, Multiboot2) with an Intel and an AMD CPU model, each as
# 1 socket x 2 cores x 2 threads (SMT), and the run must pass with every
# CPU online; then the Intel model again in x2APIC mode (x2apic=on), the
# path QEMU's TCG cannot run: APIC IDs from MSR 0x802 in the trampoline,
# 32-bit ICR destinations. Bochs has no isa-debug-exit: the serial file is
# watched for the @end record, then Bochs is stopped (by its PID); a
# timeout bounds it. Last, x2APIC mode with broadcast bring-up (the
# all-excluding-self shorthand in the x2APIC ICR) and parallel cycles,
# and xAPIC mode with parallel bring-up and cycles on the AMD model:
# every AP through the trampoline at once on a second emulator.
# make test (make bochs-tests) leaves out the AMD model's serial xAPIC
# boot: the AMD model boots with parallel bring-up and cycles (the AMD
# vendor, its init delay and park choice are in that path too), and the
# serial xAPIC path runs on the Intel model. BOCHS_FULL=1 (make
# bochs-long) boots it too.
#   tests/bochs/run.sh ISO ISO_X2APIC ISO_X2APIC_BROADCAST ISO_PARALLEL
set -uo pipefail
cd "$(dirname "$0")/../.."
iso=$(realpath "$1") iso_x2=$(realpath "$2") iso_par=$(realpath "$3") iso_par_x=$(realpath "$4")
out=$(realpath -m build/test-logs/bochs)
mkdir -p "$out"
pass=0 fail=0 skip=0
timeout_s=${BOCHS_TIMEOUT:-240}

if ! command -v bochs >/dev/null 2>&1 || ! [ -e /usr/share/bochs/BIOS-bochs-latest ]; then
	echo "skip bochs: bochs/bochsbios/vgabios not installed (apt-get install bochs bochsbios vgabios)"
	echo "bochs: 0 passed, 0 failed, 1 skipped"
	exit 0
fi

# boot NAME MODEL VENDOR ISO CYCLES X2APIC(0|1) [REGEX...]: the run
# passes with every CPU online, and every REGEX matches a line
boot() {
	local name=$1 model=$2 vendor=$3 iso=$4 cycles=$5 x2=$6 dir=$out/$1 t0=$SECONDS why=
	shift 6
	rm -rf "$dir"; mkdir -p "$dir"
	# Debian's build: no 'nogui' (rfb without a viewer instead); its ALSA
	# speaker aborts without a sound card, so sound is off. fastboot: the
	# BIOS skips its "Press F12 for boot menu" wait, 150M of the 375M
	# instructions a boot took (ticks in bochs.log).
	cat >"$dir/bochsrc" <<-RC
		megs: 256
		cpu: count=1:2:2, ips=50000000, model=$model, reset_on_triple_fault=0
		romimage: file=/usr/share/bochs/BIOS-bochs-latest, options=fastboot
		vgaromimage: file=/usr/share/bochs/VGABIOS-lgpl-latest
		ata0-master: type=cdrom, path="$iso", status=inserted
		boot: cdrom
		com1: enabled=1, mode=file, dev=$dir/serial.txt
		display_library: rfb, options="timeout=0"
		speaker: enabled=0
		sound: waveoutdrv=dummy
		log: $dir/bochs.log
	RC
	echo c >"$dir/cmds" # the debugger build stops at a prompt without it
	timeout -k 5 "$timeout_s" bochs -q -f "$dir/bochsrc" -rc "$dir/cmds" \
		</dev/null >"$dir/bochs.out" 2>&1 &
	local bpid=$!
	# The @end record, whole: Bochs writes serial.txt as bytes arrive, and
	# stopping it on a half-written '@end status=pass' cut the rest of the
	# line off (seen once in make test): wait for the line's newline too.
	end_whole() {
		grep -aq '^@end ' "$dir/serial.txt" 2>/dev/null &&
			[ "$(tail -c 1 "$dir/serial.txt" | od -An -tx1 | tr -d ' ')" = 0a ]
	}
	while kill -0 $bpid 2>/dev/null && ! end_whole; do
		sleep 1
	done
	kill $bpid 2>/dev/null
	wait $bpid 2>/dev/null
	local log=$dir/serial.txt
	[ -f "$log" ] || : >"$log"
	if ! grep -aq '^@end ' "$log"; then
		why="no @end within ${timeout_s}s (Bochs output: $dir/bochs.out)"
	else
		why=$(tests/qemu/expect.sh "@env vendor=$vendor " "@boot .* cpus=4 x2apic=$x2 " \
			"@sample cpu=3 apic=3 cycle=$cycles op=online" \
			"@end status=pass online=4 failed=0 warnings=0" "$@" "$log") && why=
	fi
	if [ -z "$why" ]; then
		pass=$((pass + 1))
		echo "ok   bochs-$name ($model, 1x2x2 SMT, x2apic=$x2, $((SECONDS - t0))s)"
	else
		fail=$((fail + 1))
		echo "FAIL bochs-$name ($model): $why"
		tr -d '\r' <"$log" | grep -a -E '^(@|smp|PANIC|EXCEPTION)' | tail -n 8 | sed 's/^/       | /'
	fi
}

boot intel corei7_skylake_x GenuineIntel "$iso" 1 0
[ "${BOCHS_FULL:-0}" = 1 ] && boot amd ryzen AuthenticAMD "$iso" 1 0
boot intel-x2apic corei7_skylake_x GenuineIntel "$iso_x2" 2 1
boot intel-x2apic-broadcast corei7_skylake_x GenuineIntel "$iso_par" 2 1 \
	"^@bringup mode=broadcast aps=3 online=3 " \
	"^@round cycle=2 op=online aps=3 online=3 ns=[0-9]+ mode=broadcast" \
	"^@phase cpu=3 apic=3 cycle=2 phase=online ns=[0-9]+"
boot amd-parallel ryzen AuthenticAMD "$iso_par_x" 2 0 \
	"^@bringup mode=parallel aps=3 online=3 " \
	"^@round cycle=2 op=online aps=3 online=3 ns=[0-9]+ mode=parallel" \
	"^@phase cpu=3 apic=3 cycle=2 phase=online ns=[0-9]+"
echo "bochs: $pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]
