#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Record the fleet fixtures (tests/fleet/logs/): three differently
# configured QEMU machines (CPU model, CPU count, firmware), each variant
# RUNS times, the variants interleaved (A B A B ...), cycles=2, TCG:
#   m1-max-smp4-bios       pc,  -cpu max (AuthenticAMD), -smp 4, SeaBIOS, -kernel
#   m2-skylake-smp2-bios   q35, -cpu Skylake-Client (GenuineIntel), -smp 2, -kernel
#   m3-epyc-smp3-uefi      q35, -cpu EPYC (AuthenticAMD 0x17), -smp 3, OVMF, UEFI PXE
#                          from make netboot-tests' directory (the MAC picks the variant)
#   m4-max-smp4-flush      pc,  -cpu max, -smp 4, -kernel, FLUSH=us=20000 (tools/flushmodel:
#                          every WBINVD costs 20 ms, so the verdict can see the variants)
# Usage: tests/fleet/record.sh [RUNS]   (default 3; needs make netboot-tests' build/netboot-test)
# Every recorded log must hold its kernel's "@end status=pass": a run QEMU
# refused (or that ended early) stops the recording, exit 2, with the
# log's last lines (QEMU's own message last), and is not kept.
set -euo pipefail
cd "$(dirname "$0")/../.."
runs=${1:-3}
out=tests/fleet/logs
nd=build/netboot-test
[ -f "$nd/boot/grub/x86_64-efi/core.efi" ] || { echo "record: no $nd (make netboot-tests first)" >&2; exit 2; }
make --no-print-directory WBINVD=0 SLOW_TRAMP_NS=0 build/wbinvd0/apstart.elf >/dev/null
make --no-print-directory WBINVD=1 SLOW_TRAMP_NS=0 build/wbinvd1/apstart.elf >/dev/null
rm -rf "$out"
mkdir -p "$out"/m1-max-smp4-bios "$out"/m2-skylake-smp2-bios "$out"/m3-epyc-smp3-uefi \
	"$out"/m4-max-smp4-flush
make --no-print-directory flushmodel >/dev/null
strip_host() { grep -av '^qemu-run:' || true; }
# passed LOG: the run it holds passed, or the recording stops here.
passed() {
	tr -d '\r' <"$1" | grep -aq '^@end status=pass' && return 0
	echo "record: no pass in $1 (removed); its last lines:" >&2
	grep -a . "$1" | tail -n 3 >&2
	rm -f "$1"
	exit 2
}
for i in $(seq "$runs"); do
	for w in 1 0; do
		log=$out/m1-max-smp4-bios/wbinvd$w-run$i.log
		tools/run/qemu-run.sh --kernel build/wbinvd$w/apstart.elf --accel tcg --smp 4 --timeout 120 \
			-- cycles=2 >"$log" 2>&1 || passed "$log"
		strip_host <"$log" >"$log.new" && mv "$log.new" "$log"
		log=$out/m2-skylake-smp2-bios/wbinvd$w-run$i.log
		tools/run/qemu-run.sh --kernel build/wbinvd$w/apstart.elf --accel tcg --machine q35 \
			--cpu Skylake-Client --smp 2 --timeout 120 -- cycles=2 >"$log" 2>&1 || passed "$log"
		strip_host <"$log" >"$log.new" && mv "$log.new" "$log"
		# tests/netboot/machines: MAC :01 boots WBINVD=1, others (by IP) WBINVD=0.
		mac=52:54:00:27:00:0$((2 - w))
		log=$out/m3-epyc-smp3-uefi/wbinvd$w-run$i.log
		timeout -k 5 120 qemu-system-x86_64 -display none -no-reboot -m 512 -monitor none \
			-serial stdio -device isa-debug-exit,iobase=0xf4,iosize=4 -accel tcg -cpu EPYC -smp 3 \
			-machine q35 -drive if=pflash,format=raw,unit=0,readonly=on,file=/usr/share/OVMF/OVMF_CODE_4M.fd \
			-drive if=pflash,format=raw,unit=1,snapshot=on,file=/usr/share/OVMF/OVMF_VARS_4M.fd \
			-netdev "user,id=n0,tftp=$nd,bootfile=/boot/grub/x86_64-efi/core.efi" \
			-device "virtio-net-pci,netdev=n0,mac=$mac,romfile=,bootindex=1" </dev/null \
			>"$log" 2>&1 || true
		passed "$log"
		log=$out/m4-max-smp4-flush/wbinvd$w-run$i.log
		tools/run/qemu-run.sh --kernel build/wbinvd$w/apstart.elf --accel tcg --smp 4 --timeout 120 \
			--flush us=20000 -- cycles=2 >"$log" 2>&1 || passed "$log"
		strip_host <"$log" >"$log.new" && mv "$log.new" "$log"
		echo "record: run $i WBINVD=$w done"
	done
done
