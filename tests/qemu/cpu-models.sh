#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The CPU floor under QEMU's CPU models: each kernel, under its emulator
# (x86_64 under qemu-system-x86_64, i386 under qemu-system-i386) and each
# model that emulator lists in `-cpu help`, either runs to
# "@end status=pass" or says why it stops (boot/cpu_floor.asm:
# "apstart: stopping: this CPU lacks ...", then "@end status=fail") and
# exits with the failure status. Silence, a triple fault (QEMU exits
# without a word from the kernel), a hang or anything else fails. A model
# QEMU itself refuses (e.g. "host" without KVM) is skipped with QEMU's
# words.
#
#   tests/qemu/cpu-models.sh          a representative set: the models on
#                                     each side of each floor (make qemu-tests)
#   tests/qemu/cpu-models.sh --all    every model and alias listed (make
#                                     cpu-models; a few minutes)
#
# One boot per model: TCG, -smp 2 (one AP start), cycles=1. Logs:
# build/test-logs/cpu-models/EMULATOR-MODEL.log.
set -uo pipefail
cd "$(dirname "$0")/../.."

# shellcheck source=tests/protocol.sh
. tests/protocol.sh

all=0
case ${1:-} in
--all) all=1 ;;
"") ;;
*) echo "usage: tests/qemu/cpu-models.sh [--all]" >&2; exit 2 ;;
esac
out=build/test-logs/cpu-models
mkdir -p "$out"

# Representative models, per emulator: below and above each floor
# (boot/cpu_floor.asm): no CPUID features at all (base), no TSC (486),
# no CMOV (pentium), the first P6 (pentium2), 32-bit CPUs with and without
# SSE2, the first x86-64 ones, and everything QEMU has (max).
quick() { # EMULATOR
	case $1 in
	i386) echo base 486 pentium pentium2 n270 athlon coreduo max ;;
	# (x86_64's max is the QEMU matrix's model: tests/qemu/matrix.sh)
	x86_64) echo base 486 pentium pentium3 coreduo qemu64 Opteron_G1 ;;
	esac
}

# one EMULATOR KERNEL MODEL: boots, checks, prints one check line.
one() {
	local emu=$1 kernel=$2 model=$3 arch
	local log=$out/$emu-$model.log t0=$SECONDS st text
	arch=$emu
	tools/run/qemu-run.sh --kernel "$kernel" --emulator "$emu" --cpu "$model" --smp 2 \
		--accel tcg --timeout 30 -- cycles=1 >"$log" 2>&1
	st=$?
	text=$(tr -d '\r' <"$log")
	local name="cpu-model $emu/$model" took="$((SECONDS - t0))s"
	local lacks
	lacks=$(sed -n "s/^apstart: stopping: this CPU lacks \(.*\)\. The $arch kernel needs .*/\1/p" <<<"$text" | head -n 1)
	if [ $st = 0 ] && grep -q '^@end status=pass ' <<<"$text"; then
		ok "$name: runs to @end status=pass ($took)"
		runs+=("$model")
	elif [ $st = 1 ] && [ -n "$lacks" ] && grep -q '^@end status=fail ' <<<"$text"; then
		ok "$name: stops, lacks $lacks ($took)"
		stops+=("$model")
	elif ! grep -q '^\(apstart\|@\)' <<<"$text" && grep -q "^qemu-system-$emu: " <<<"$text"; then
		skip "$name" "QEMU refuses it: $(grep -m 1 "^qemu-system-$emu: " <<<"$text" | sed "s/^qemu-system-$emu: //")"
	else
		local why="exit status $st, neither @end status=pass nor the floor's message"
		grep -q '^\(apstart\|@\)' <<<"$text" || why="exit status $st, not a word from the kernel (a triple fault?)"
		fail "$name ($took)" "$why (log: $log)" "$(tail -n 8 <<<"$text")"
	fi
}

for emu in i386 x86_64; do
	if [ $emu = i386 ]; then kernel=build/i386-wbinvd0/apstart.elf; else kernel=build/wbinvd0/apstart.elf; fi
	if [ ! -f "$kernel" ]; then
		fail "cpu-models $emu" "no $kernel (make qemu-tests builds it)"
		continue
	fi
	if ! listed=$(qemu-system-$emu -cpu help 2>&1); then
		fail "cpu-models $emu" "qemu-system-$emu -cpu help failed: $(tail -n 1 <<<"$listed")"
		continue
	fi
	listed=$(awk '/^x86 /{ print $2 }' <<<"$listed")
	if [ $all = 1 ]; then models=$listed; else models=$(quick $emu); fi
	runs=() stops=()
	t_emu=$SECONDS
	for model in $models; do
		if ! grep -qxF "$model" <<<"$listed"; then
			skip "cpu-model $emu/$model" "not in this QEMU's qemu-system-$emu -cpu help"
			continue
		fi
		one "$emu" "$kernel" "$model"
	done
	echo "cpu-models: $emu: ${#runs[@]} run, ${#stops[@]} stop with the floor's message ($((SECONDS - t_emu)) s):" \
		"${stops[*]:-none}"
done

# The floor's message on VGA text too (boot/cpu_floor.asm writes the text
# cells itself: no font, no framebuffer): the i386 kernel on a Pentium,
# QEMU without isa-debug-exit so that it halts with the message on the
# screen, a screendump once serial has the record, read back cell by cell.
SCREENTEXT=${SCREENTEXT:-build/host/screentext}
floor_on_screen() {
	local k=build/i386-wbinvd0/apstart.elf ser=$out/floor-vga.serial ppm=$out/floor-vga.ppm
	local name="floor message on VGA text (i386 kernel, pentium)"
	if [ ! -x "$SCREENTEXT" ] || [ ! -f "$k" ]; then
		fail "$name" "no $SCREENTEXT or $k (make qemu-tests builds them)"
		return
	fi
	rm -f "$ser" "$ppm"
	{
		for _ in $(seq 200); do grep -q '^@end' "$ser" 2>/dev/null && break; sleep 0.1; done
		echo "screendump $ppm"
		sleep 1
		echo quit
	} | timeout 40 qemu-system-i386 -display none -no-reboot -m 64 -accel tcg -cpu pentium \
		-serial "file:$ser" -monitor stdio -kernel "$k" >/dev/null 2>&1
	local want="apstart: stopping: this CPU lacks CMOV. The i386 kernel needs CPUID"
	if [ -f "$ppm" ] && "$SCREENTEXT" "$ppm" 2>/dev/null | grep -qF "$want"; then
		ok "$name"
	else
		fail "$name" "no '$want' on the screen (serial: $ser, screen: $ppm)" \
			"$("$SCREENTEXT" "$ppm" 2>&1 | head -n 4)"
	fi
}
floor_on_screen

summary cpu-models
