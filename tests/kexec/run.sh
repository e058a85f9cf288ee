#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# make kexec-long (not in make test): apstart entered from a running
# Linux and its records sent back through pstore (docs/from-linux.md). Debian's kernel (the
# Linux VM of make bench-linux) boots with a busybox initramfs holding
# kexec-tools, ramoops and tests/kexec/init, under SeaBIOS (-machine pc)
# and OVMF (-machine q35, pflash) side by side, TCG, -smp 4, -m 1024,
# memmap=512K$0x30000000 on Linux's command line. The init kexecs apstart
# with pstore=0x30000000,512K exit=reboot; QEMU runs WITHOUT -no-reboot,
# so the kernel's warm reset boots the same -kernel/-initrd again; that
# Linux loads ramoops and prints /sys/fs/pstore/console-ramoops-0 (base64)
# before the next run. Checked, per firmware and run:
#   - the zone read back equals, byte for byte, the run's part of the
#     serial capture (tests/kexec/parts.py says which bytes: the CR LF
#     before apstart's banner through its "reset: warm" line);
#   - aplog verify passes on what Linux read back (CR LF and all);
#   - the firmware is said as known when nothing says it: SeaBIOS
#     unknown (kexec gives no EFI tags); OVMF uefi from the RSDP's place
#     (acpi_rsdp= from /sys/firmware/efi/systab; kexec gives no RSDP).
# SeaBIOS boots Linux once: QEMU stops at the run's reset (-no-reboot),
# and the run is checked in the serial capture; its pstore round trip
# under SeaBIOS, a run given firmware=bios and two runs in a row are make
# linux-vm-tests' (tests/linux-tool/vm.sh: apstart run, apstart collect),
# which boots the same Debian kernel for them.
# Times: from QEMU's start to Linux's kexec -e, the apstart run, and the
# reset to the next Linux (from the capture growing, polled every 0.2 s).
#   tests/kexec/run.sh APSTART_ELF APLOG
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
# shellcheck source=tests/protocol.sh
. tests/protocol.sh
elf=$1 aplog=$2
out=build/kexec
rm -rf "$out"
mkdir -p "$out"
lane=kexec

if ! dir=$(tools/linux/vm/fetch.sh 2>"$out/fetch.err"); then
	for n in "SeaBIOS" "OVMF"; do
		skip "$n: kexec into apstart, records back through pstore" \
			"Debian's kernel/busybox/kexec-tools not available: $(tail -2 "$out/fetch.err" | tr '\n' ' ')"
	done
	summary "$lane"
	exit 0
fi
if ! tools/linux/vm/mkinitramfs.sh "$dir/busybox" - "$out/initramfs.cpio" --init tests/kexec/init \
	--add "$elf:apstart.elf" --add "$dir/modules/ramoops.ko:lib/modules/ramoops.ko" \
	--add "$dir/modules/reed_solomon.ko:lib/modules/reed_solomon.ko" --kexec "$dir/kexec" 2>"$out/mk.err"; then
	fail "initramfs with kexec-tools and ramoops" "$(cat "$out/mk.err")"
	summary "$lane"
	exit 1
fi
echo "$lane: $(tr '\n' ';' <"$dir/versions" | sed 's/;$//; s/;/; /')"

ZONE=0x30000000 ZSIZE=0x80000
linux_args="console=ttyS0 loglevel=4 panic=-1 no_timer_check memmap=512K\$$ZONE kx_addr=$ZONE kx_size=$ZSIZE"

# boot NAME TIMEOUT QEMU-ARGS...: one QEMU session in the background; the
# capture in $out/NAME.serial, the exit status in $out/NAME.rc, the times
# at which markers first appeared in $out/NAME.times.
boot() {
	local name=$1 t=$2
	shift 2
	(
		t0=$(date +%s%N)
		timeout "$t" qemu-system-x86_64 -accel tcg -cpu max -smp 4 -m 1024 -display none \
			-monitor none -serial "file:$out/$name.serial" \
			-device isa-debug-exit,iobase=0xf4,iosize=4 \
			-kernel "$dir/vmlinuz" -initrd "$out/initramfs.cpio" "$@" \
			>"$out/$name.qemu" 2>&1 &
		qpid=$!
		# The first time each marker shows in the capture; and a run
		# started twice (the zone came back empty): no point waiting.
		declare -A seen=()
		while kill -0 $qpid 2>/dev/null; do
			sleep 0.2
			now=$(date +%s%N)
			while IFS= read -r m; do
				[ -n "${seen[$m]:-}" ] && continue
				seen[$m]=1
				echo "$(( (now - t0) / 1000000 )) $m" >>"$out/$name.times"
			done < <(grep -aoE 'kexec-vm: run [0-9]+: kexec -e|@end status=[a-z]+|kexec-vm: pstore-begin [0-9]+|kexec-vm: done' \
				"$out/$name.serial" 2>/dev/null | awk '{ print $0 " #" ++n[$0] }')
			[ "$(grep -ac 'kexec-vm: run 1: kexec -e' "$out/$name.serial")" -gt 1 ] && kill $qpid 2>/dev/null
		done
		wait $qpid
		echo $? >"$out/$name.rc"
	) &
}

t_all=$SECONDS
boot bios 300 -machine pc -no-reboot -append "$linux_args kx_runs=1 kx_args1=cycles=1"
vars=$out/OVMF_VARS.fd
cp /usr/share/OVMF/OVMF_VARS_4M.fd "$vars"
boot uefi 300 -machine q35 \
	-drive if=pflash,format=raw,unit=0,readonly=on,file=/usr/share/OVMF/OVMF_CODE_4M.fd \
	-drive if=pflash,format=raw,unit=1,file="$vars" \
	-append "$linux_args kx_runs=1 kx_args1=cycles=1"
wait
echo "$lane: both sessions done in $((SECONDS - t_all)) s (TCG, side by side on a shared host)"

# check_session NAME FIRMWARE RUNS WANT-FIRMWARE...
check_session() {
	local name=$1 label=$2 runs=$3
	shift 3
	local rc why= k
	rc=$(cat "$out/$name.rc" 2>/dev/null || echo none)
	tr -d '\r' <"$out/$name.serial" >"$out/$name.txt" 2>/dev/null
	mkdir -p "$out/$name"
	local counts
	counts=$(python3 tests/kexec/parts.py "$out/$name.serial" "$out/$name" 2>&1)
	if [ "$rc" != 1 ]; then
		why="QEMU exit $rc (1 = the last Linux read run $runs back and passed)"
		grep -q 'kexec-vm: run 1: kexec -e' "$out/$name.txt" &&
			[ "$(grep -c 'kexec-vm: run 1: kexec -e' "$out/$name.txt")" -gt 1 ] &&
			why="$why; run 1 started twice: the zone came back empty after the reset"
		fail "$label: kexec into apstart, records back through pstore" "$why ($counts)" \
			"$(grep -aE '^(kexec-vm|@end|reset:|pstore:|firmware:|PANIC)' "$out/$name.txt" | tail -12)"
		return
	fi
	for k in $(seq 1 "$runs"); do
		local s=$out/$name/serial-$k.bin z=$out/$name/zone-$k.bin want=$1
		shift
		local n="$label run $k: the pstore zone Linux read back = the serial capture, byte for byte"
		if [ ! -s "$s" ] || [ ! -s "$z" ]; then
			fail "$n" "missing: $( [ -s "$s" ] || echo "run $k's serial part" ) $( [ -s "$z" ] || echo "the zone read back" ) ($counts)"
			continue
		fi
		if cmp -s "$s" "$z"; then
			ok "$n ($(stat -c %s "$z") bytes)"
		else
			fail "$n" "$(cmp "$s" "$z" 2>&1 | head -1); sizes $(stat -c %s "$s") (serial) and $(stat -c %s "$z") (zone)"
		fi
		local v
		if v=$("$aplog" verify --cpus 4 --cycles "$k" --boot "firmware=$want" --boot protocol=mb2 "$z" 2>&1); then
			ok "$label run $k: aplog verify on the zone read back (firmware=$want, 4 CPUs online)"
		else
			fail "$label run $k: aplog verify on the zone read back" "$(tail -3 <<<"$v" | paste -sd ' ')"
		fi
	done
}

check_session uefi OVMF 1 uefi
# SeaBIOS: the run, up to its reset (QEMU's exit 0 under -no-reboot).
mkdir -p "$out/bios"
tr -d '\r' <"$out/bios.serial" >"$out/bios.txt" 2>/dev/null
python3 tests/kexec/parts.py "$out/bios.serial" "$out/bios" >/dev/null 2>&1
if [ "$(cat "$out/bios.rc" 2>/dev/null)" = 0 ] && [ -s "$out/bios/serial-1.bin" ] &&
	v=$("$aplog" verify --cpus 4 --cycles 1 --boot firmware=unknown --boot protocol=mb2 "$out/bios/serial-1.bin" 2>&1); then
	ok "SeaBIOS: kexec into apstart, nothing said: aplog verify on the run (firmware=unknown, 4 CPUs online)"
else
	fail "SeaBIOS: kexec into apstart, nothing said" "QEMU exit $(cat "$out/bios.rc" 2>/dev/null) (0: the run's reset); ${v:-no run in the capture}" \
		"$(grep -aE '^(kexec-vm|@end|reset:|firmware:|PANIC)' "$out/bios.txt" | tail -8)"
fi
# The firmware lines say how they know.
grep -q '^firmware: unknown: no EFI tags' "$out/bios.txt" &&
	grep -q '^firmware: UEFI: the RSDP lies outside the BIOS areas' "$out/uefi.txt" &&
	grep -q '^acpi: RSDP at 0x[0-9a-f]* from acpi_rsdp=' "$out/uefi.txt" &&
	ok "the firmware said as known: unknown (nothing said it), UEFI (the RSDP's place)" ||
	fail "the firmware said as known" "$(grep -h '^firmware:' "$out/bios.txt" "$out/uefi.txt" | paste -sd ' ')"

# Times, for docs/from-linux.md (a loaded host stretches them).
for name in bios uefi; do
	[ -s "$out/$name.times" ] && echo "$lane: $name: $(awk '{ t = $1; $1 = ""; printf "%s%.1f s%s", (NR > 1 ? ", " : ""), t / 1000, $0 }' "$out/$name.times")"
done
summary "$lane"
