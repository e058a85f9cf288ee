#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A second, independent emulator: Bochs boots the BIOS image (Bochs BIOS,
# GRUB from a CD, Multiboot2) with an Intel and an AMD CPU model, each as
# 1 socket x 2 cores x 2 threads (SMT), and the run must pass with every
# CPU online; then the Intel model again in x2APIC mode (x2apic=on), the
# path QEMU's TCG cannot run: APIC IDs from MSR 0x802 in the trampoline,
# 32-bit ICR destinations. Each boot: tests/bochs/boot.sh (until the
# @end record). Last, x2APIC mode with broadcast bring-up (the
# all-excluding-self shorthand in the x2APIC ICR) and parallel cycles,
# and xAPIC mode with parallel bring-up and cycles on the AMD model:
# every AP through the trampoline at once on a second emulator.
# The first boot is the image's own menu (the ISO with its default entry
# set); the others boot lean CDs (tests/bochs/lean-iso.sh: the same
# kernel, stripped, behind a one-entry menu), which spares GRUB ~4 CPU-s
# of menu and module loading a boot.
# make test (make bochs-tests) leaves out the AMD model's serial xAPIC
# boot: the AMD model boots with parallel bring-up and cycles (the AMD
# vendor, its init delay and park choice are in that path too), and the
# serial xAPIC path runs on the Intel model. BOCHS_FULL=1 (make
# bochs-long) boots it too.
#   tests/bochs/run.sh ISO ISO_X2APIC ISO_X2APIC_BROADCAST ISO_PARALLEL
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
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
	local log=$dir/serial.txt
	if ! tests/bochs/boot.sh "$dir" "$iso" "$model" 1:2:2 "$timeout_s"; then
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
