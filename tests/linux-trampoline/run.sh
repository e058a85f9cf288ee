#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# make linux-trampoline-tests: apstart runs every AP through Linux's own
# trampoline (trampoline=linux, wings/linux_trampoline,
# docs/linux-trampoline.md), from the blobs of Debian 12's kernel images
# (tests/realmode/fetch-images.sh, fetched once by make test-prep) as
# shipped and as their patched twins (aprealmode --twin):
#
# - under QEMU -icount (BIOS, -kernel, -smp 4, the timing lane's arguments),
#   each of Linux 6.1's and 6.12's blobs and twins (x86_64) and 6.1's i386
#   blob and twin (qemu-system-i386, pentium3): @end status=pass with 10
#   online/offline cycles per AP (aplog verify), every phase exactly as in
#   its baseline (tests/baselines/icount-pc-smp4-linux-*.exact), and each
#   twin exactly one instruction (the WBINVD) shorter than its blob, in the
#   phase that runs Linux's code and nowhere else;
# - TCG: 6.12's blob (tr_lock) with parallel bring-up and parallel cycles;
# - the refusals, each before any SIPI: 6.1's (one real-mode stack, no
#   tr_lock) with bringup=parallel, a module that is not an LRM file (the
#   vmlinuz itself), an LRM file with one byte of its blob changed;
# - UEFI (OVMF): apstart.efi built with 6.1's blob and twin (make
#   EFI_OUT=... LINUX_IMAGE=...) hands the twin over as the module and the
#   kernel runs it; the same with one byte of the twin changed: apstart.efi
#   says it is not the blob it was built with (Secure Boot off: a warning;
#   on: refused, as a kernel) and the kernel refuses it before any SIPI;
# - BIOS (SeaBIOS) through GRUB's module2 from a per-run image: the i386
#   kernel with 6.1's i386 twin.
#
#   run.sh            the lane
#   run.sh --update   rewrite the six baselines from fresh runs, show what
#                     changed (make baseline-linux)
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
# shellcheck source=tests/protocol.sh
source tests/protocol.sh
APLOG=${APLOG:-build/host/aplog}
APREALMODE=${APREALMODE:-build/host/aprealmode}
OUT=build/test-logs/linux-trampoline
BASE=tests/baselines
SMP=4
DET_ARGS="cycles=10 bsp_wait=hlt sipi_count=auto" # as tests/timing/run.sh
update=0
[ "${1:-}" = --update ] && update=1
mkdir -p "$OUT"

# The LRM files: every Debian image's blob and its twin.
declare -A image=()
while read -r name dir; do
	image[$name]=$dir
done < <(tests/realmode/fetch-images.sh 2>"$OUT/fetch.err")
blobs=()
for name in amd64-6.1 amd64-6.12 i386-6.1; do
	if [ -z "${image[$name]:-}" ]; then
		skip "LRM files from Debian's $name image" "not fetched: $(tail -n1 "$OUT/fetch.err")"
		continue
	fi
	if "$APREALMODE" "${image[$name]}/vmlinuz" -o "$OUT/$name.lrm" --twin "$OUT/$name-twin.lrm" \
		>"$OUT/$name.txt" 2>&1; then
		ok "LRM files from Debian's $name image: $(cut -d' ' -f1 "${image[$name]}/package"), blob and twin"
		blobs+=("$name" "$name-twin")
	else
		fail "LRM files from Debian's $name image" "aprealmode refused it" "$(cat "$OUT/$name.txt")"
	fi
done

kernel_of() { case $1 in i386-*) echo build/i386-wbinvd0/apstart.elf ;; *) echo build/wbinvd0/apstart.elf ;; esac; }
emu_of() { case $1 in i386-*) echo "--emulator i386 --cpu pentium3" ;; esac; }
emu_config() { # blob -> the QEMU part of a baseline's config line
	case $1 in
	i386-*) echo "qemu-system-i386 -machine pc -accel tcg -cpu pentium3" ;;
	*) echo "qemu -machine pc -accel tcg -cpu max" ;;
	esac
}

# Under -icount: pass, verified, and exactly as in its baseline.
for b in "${blobs[@]}"; do
	log=$OUT/icount-$b.log
	# shellcheck disable=SC2046 # the emulator's options are words
	tools/run/qemu-run.sh --kernel "$(kernel_of "$b")" $(emu_of "$b") --smp $SMP --timeout 300 \
		--icount --no-defaults --module "$OUT/$b.lrm" -- trampoline=linux $DET_ARGS >"$log" 2>&1
	st=$?
	if [ $st = 0 ] && "$APLOG" verify --status pass --cpus $SMP --cycles 10 "$log" >"$OUT/verify-$b.txt" 2>&1; then
		ok "icount $b: every AP through Linux's blob, 10 cycles, @end status=pass ($(tail -n1 "$OUT/verify-$b.txt"))"
	else
		fail "icount $b: every AP through Linux's blob, 10 cycles, @end status=pass" "exit $st" \
			"$(cat "$OUT/verify-$b.txt" 2>/dev/null)" "$(grep -a -e refused -e '^@end' -e PANIC "$log" | tail -n 3)"
		continue
	fi
	ex=$BASE/icount-pc-smp$SMP-linux-$b.exact
	if [ $update = 1 ]; then
		new=$(mktemp)
		pkg=${b%-twin}
		what=$(cut -d' ' -f1,2 "${image[$pkg]}/package")
		[ "$b" = "$pkg" ] || what+=", its twin"
		if "$APLOG" exact-baseline --config "$(emu_config "$b") -icount shift=0,sleep=off -smp $SMP; kernel: trampoline=linux $DET_ARGS; module: $what" \
			"$log" >"$new"; then
			if [ -f "$ex" ]; then
				echo "  per-phase changes in $ex (old -> new):"
				"$APLOG" exact-diff "$ex" -- "$new" | sed 's/^/    /'
			fi
			mv "$new" "$ex"
			ok "baseline written: $ex"
		else
			fail "baseline written: $ex" "aplog exact-baseline failed"
		fi
	elif [ ! -f "$ex" ]; then
		fail "icount $b: every phase exactly as in its baseline" "no baseline $ex (run: make baseline-linux)"
	elif "$APLOG" exact "$ex" -- "$log" >"$OUT/exact-$b.txt" 2>&1; then
		ok "icount $b: every phase exactly as in its baseline ($(tail -n1 "$OUT/exact-$b.txt"))"
	else
		fail "icount $b: every phase exactly as in its baseline" \
			"how apstart runs Linux's blob changed (if intended: make baseline-linux, and say why in the commit)" \
			"$(cat "$OUT/exact-$b.txt")"
	fi
done

# A twin runs exactly the patch's instruction stream: one instruction (the
# WBINVD) fewer than its blob, in the phase that holds Linux's code (long:
# SIPI -> arrival in long mode; i386: protected), in every start's total
# and the AP's own figure, nowhere else: 3 APs x 3 figures.
for name in amd64-6.1 amd64-6.12 i386-6.1; do
	a=$OUT/icount-$name.log b=$OUT/icount-$name-twin.log
	[ -s "$a" ] && [ -s "$b" ] || continue
	phase=@phase:long
	[[ $name == i386-* ]] && phase=@phase:protected
	"$APLOG" exact "$a" -- "$b" >"$OUT/twin-$name.txt" 2>&1
	diffs=$(grep -c '^DIFF ' "$OUT/twin-$name.txt")
	minus1=$(grep -cE "^DIFF apic=[0-9]+ op=online phase=(ns|ap_ns|$phase): -1 ns \(= -1 instruction\) in every sample" "$OUT/twin-$name.txt")
	if [ "$diffs" = 9 ] && [ "$minus1" = 9 ]; then
		ok "icount $name: the twin is exactly 1 instruction shorter, in $phase, ns and ap_ns only"
	else
		fail "icount $name: the twin is exactly 1 instruction shorter, in $phase, ns and ap_ns only" \
			"$diffs differences, $minus1 of them that one" "$(head -n 12 "$OUT/twin-$name.txt")"
	fi
done

# run NAME LOG EXPECT-STATUS QEMU-RUN-ARGS... -- KERNEL-ARGS: one TCG boot.
boot() {
	local log=$1
	shift
	tools/run/qemu-run.sh --accel tcg --smp $SMP --timeout 120 "$@" >"$log" 2>&1
}
if [ -s "$OUT/amd64-6.12.lrm" ]; then
	log=$OUT/parallel-6.12.log
	boot "$log" --kernel build/wbinvd0/apstart.elf --module "$OUT/amd64-6.12.lrm" -- \
		trampoline=linux bringup=parallel cycles_mode=parallel cycles=3
	st=$?
	if [ $st = 0 ] && "$APLOG" verify --status pass --cpus $SMP --cycles 3 "$log" >"$OUT/verify-parallel.txt" 2>&1; then
		ok "tcg amd64-6.12: parallel bring-up and cycles on tr_lock pass"
	else
		fail "tcg amd64-6.12: parallel bring-up and cycles on tr_lock pass" "exit $st" \
			"$(cat "$OUT/verify-parallel.txt" 2>/dev/null)" "$(grep -a -e refused -e '^@end' "$log" | tail -n 3)"
	fi
fi

# refused NAME LOG REASON TEXT: the run stopped before any SIPI, saying why.
refused() {
	local name=$1 log=$2 reason=$3 text=$4 end=${5:-}
	tr -d '\r' <"$log" >"$log.txt"
	if [ "$st" = 1 ] && grep -aq "^@fail what=trampoline reason=$reason\$" "$log.txt" &&
		grep -aqF "linux_trampoline: refused, no SIPI sent: $text" "$log.txt" &&
		grep -aF "linux_trampoline: refused, no SIPI sent: " "$log.txt" | grep -qF "$end" &&
		grep -aq '^@end status=fail online=1 ' "$log.txt" && ! grep -aq '^@sample ' "$log.txt"; then
		ok "$name"
	else
		fail "$name" "exit $st, want 1 with reason=$reason, \"$text\", online=1 and no sample" \
			"$(grep -a -e refused -e '^@fail' -e '^@end' "$log")"
	fi
}
if [ -s "$OUT/amd64-6.1.lrm" ]; then
	log=$OUT/refuse-no-lock.log
	boot "$log" --kernel build/wbinvd0/apstart.elf --module "$OUT/amd64-6.1.lrm" -- trampoline=linux bringup=parallel
	st=$?
	refused "6.1's blob (no tr_lock) with bringup=parallel: refused before any SIPI" "$log" no_tr_lock \
		"layout linux-6.1-x86_64 has one real-mode stack and no tr_lock"
	log=$OUT/refuse-vmlinuz.log
	boot "$log" --kernel build/wbinvd0/apstart.elf --module "${image[amd64-6.1]}/vmlinuz" -- trampoline=linux
	st=$?
	refused "a vmlinuz as the module: refused before any SIPI" "$log" lrm_invalid \
		"the module is not a valid LRM file: " ": not an LRM file"
	cp "$OUT/amd64-6.1.lrm" "$OUT/changed.lrm"
	# One byte of the blob's code that the layout check does not read (0x140:
	# the header; 0x2010: in machine_real_restart's text): only its SHA-256
	# tells.
	printf '\x90' | dd of="$OUT/changed.lrm" bs=1 seek=$((0x140 + 0x2010)) conv=notrunc status=none
	log=$OUT/refuse-changed.log
	boot "$log" --kernel build/wbinvd0/apstart.elf --module "$OUT/changed.lrm" -- trampoline=linux
	st=$?
	refused "an LRM file with a byte of its blob changed: refused before any SIPI" "$log" lrm_invalid \
		"the module is not a valid LRM file: the blob's SHA-256 is not the one recorded"
fi

# Through GRUB's module2, from the image (make iso), UEFI and BIOS.
# iso NAME LRM WBINVD FIRMWARE: one boot of a per-run image.
iso() {
	local name=$1 lrm=$2 w=$3 fw=$4 log=$OUT/iso-$1.log
	if [ ! -s build/apstart.iso ]; then
		skip "$name" "no build/apstart.iso (make iso; make test-prep builds it)"
		return
	fi
	[ -s "$lrm" ] || return
	tools/run/iso-run.sh --firmware "$fw" --timeout 240 --wbinvd "$w" --module "$lrm" --log "$log" \
		-- trampoline=linux cycles=2 >"$OUT/iso-$1.out" 2>&1
	st=$?
	if [ $st = 0 ] && "$APLOG" verify --status pass --cpus $SMP --cycles 2 "$log" >"$OUT/verify-iso-$1.txt" 2>&1 &&
		grep -aq '^@trampoline kind=linux ' "$log"; then
		ok "$name"
	else
		fail "$name" "exit $st" "$(cat "$OUT/verify-iso-$1.txt" 2>/dev/null)" "$(tail -n 3 "$OUT/iso-$1.out")"
	fi
}

# UEFI through apstart.efi: a FAT volume as the firmware's disk, the blobs
# in \apstart\linux\, loader.cfg's entry with module=twin. OVMF's
# variables in RAM (-bios OVMF.fd: ~3 CPU-s less a boot than pflash): the
# runs are save=off and nothing is read from NVRAM.
OVMF_FD=/usr/share/ovmf/OVMF.fd
efi_boot() { # NAME FAT-DIR LOG: OVMF boots it; sets st
	timeout 240 qemu-system-x86_64 -machine q35 -accel tcg -cpu max -smp $SMP -m 512 -display none \
		-no-reboot -serial "file:$3" -monitor none -device isa-debug-exit,iobase=0xf4,iosize=4 \
		-bios "$OVMF_FD" -drive "file=fat:rw:$2,format=raw,if=virtio" -nic none >"$3.qemu" 2>&1
	st=$?
	tr -d '\r' <"$3" >"$3.txt"
}
if [ -z "${image[amd64-6.1]:-}" ]; then
	skip "apstart.efi (OVMF): 6.1's twin as the module" "Debian's 6.1 image not fetched"
elif [ ! -r "$OVMF_FD" ]; then
	skip "apstart.efi (OVMF): 6.1's twin as the module" "no OVMF (apt-get install ovmf)"
elif ! make --no-print-directory EFI_OUT="$OUT/efi" LINUX_IMAGE="${image[amd64-6.1]}/vmlinuz" \
	"$OUT/efi/apstart.efi" >"$OUT/efi.make" 2>&1; then
	fail "apstart.efi built with 6.1's blob and twin" "make failed" "$(tail -n 5 "$OUT/efi.make")"
else
	fat=$OUT/fat
	rm -rf "$fat"
	mkdir -p "$fat/EFI/BOOT" "$fat/apstart/linux"
	cp "$OUT/efi/apstart.efi" "$fat/EFI/BOOT/BOOTX64.EFI"
	cp "$OUT"/efi/kernels/*.elf "$fat/apstart/"
	cp "$OUT"/efi/linux/*.lrm "$fat/apstart/linux/"
	printf 'timeout=0\nresults_wait=0\nwbinvd=0\nmodule=twin\ncmdline=trampoline=linux cycles=2 save=off\n' \
		>"$fat/apstart/loader.cfg"
	log=$OUT/efi-twin.log
	efi_boot twin "$fat" "$log"
	if [ $st = 1 ] && grep -q 'handoff: module \\apstart\\linux\\twin.lrm at 0x' "$log.txt" &&
		! grep -q 'is not the Linux blob' "$log.txt" &&
		grep -q '^@trampoline kind=linux wbinvd=0 linux_version=6.1.0-[0-9]*-amd64 .*edited=1 ' "$log.txt" &&
		"$APLOG" verify --status pass --cpus $SMP --cycles 2 "$log.txt" >"$OUT/verify-efi.txt" 2>&1; then
		ok "apstart.efi (OVMF): 6.1's twin, its SHA-256 as built in, as the module: every AP, 2 cycles, pass"
	else
		fail "apstart.efi (OVMF): 6.1's twin as the module" "QEMU exit $st" "$(cat "$OUT/verify-efi.txt" 2>/dev/null)" \
			"$(grep -a -e 'apstart.efi' -e handoff -e '^@end' -e refused "$log.txt" | tail -n 6)"
	fi
	printf '\x90' | dd of="$fat/apstart/linux/twin.lrm" bs=1 seek=$((0x140 + 0x2010)) conv=notrunc status=none
	log=$OUT/efi-changed.log
	efi_boot changed "$fat" "$log"
	if grep -q 'apstart.efi: warning: \\apstart\\linux\\twin.lrm is not the Linux blob this apstart.efi was built with' "$log.txt" &&
		grep -q '^@fail what=trampoline reason=lrm_invalid$' "$log.txt" && grep -q '^@end status=fail online=1 ' "$log.txt"; then
		ok "apstart.efi (OVMF): a twin changed after the build: not the blob it was built with (Secure Boot off: a warning), the kernel refuses it"
	else
		fail "apstart.efi (OVMF): a changed twin" "QEMU exit $st" \
			"$(grep -a -e 'apstart.efi' -e '^@fail' -e '^@end' -e refused "$log.txt" | tail -n 6)"
	fi
fi
iso "GRUB module2, BIOS (SeaBIOS): the i386 kernel, 6.1's i386 twin, 2 cycles, pass" \
	"$OUT/i386-6.1-twin.lrm" i386-0 bios

summary linux-trampoline
