#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# make linux-vm-tests: apstart run --via kexec and apstart collect, the
# installed program, under Debian's kernel in QEMU, SeaBIOS (-machine pc)
# and OVMF (-machine q35) side by side (TCG, -smp 4, -m 1024). The
# initramfs (tools/linux/vm/mkinitramfs.sh) holds busybox, the host's bash
# and the libraries it needs, make install's files (PREFIX=/usr), aplog,
# kexec-tools, ramoops and a virtio disk's modules; /var/lib/apstart is an
# ext2 disk, so the filed runs survive the resets (tests/linux-tool/vm-init).
# Linux's command line holds what apstart setup puts there. Each boot runs
# apstart collect, then apstart run --via kexec -- cycles=K; the kernel's
# warm reset boots the same Linux again. SeaBIOS makes 2 runs, OVMF 1.
# Checked from the serial capture and the disk (debugfs):
#   - each run filed (run-0001.log, run-0002.log) = the run's serial bytes,
#     byte for byte (from the CR LF before apstart's banner through its
#     "reset: warm" line);
#   - the second run did not overwrite the first; aplog verify on each
#     (firmware said as Linux knows it, the run's cycles);
#   - what apstart told kexec (pstore=, exit=reboot, firmware=, and on UEFI
#     acpi_rsdp= from /sys/firmware/efi/systab).
#   tests/linux-tool/vm.sh APLOG
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root" || exit 2
# shellcheck source=tests/protocol.sh
. tests/protocol.sh
aplog=$1
lane=linux-vm
out=build/linux-vm-apstart
rm -rf "$out"
mkdir -p "$out"

if ! dir=$(tools/linux/vm/fetch.sh 2>"$out/fetch.err"); then
	for n in SeaBIOS OVMF; do
		skip "$n: apstart run --via kexec, collect" "Debian's kernel/busybox/kexec-tools not available: $(tail -2 "$out/fetch.err" | tr '\n' ' ')"
	done
	summary "$lane"; exit 0
fi
for t in mkfs.ext2 debugfs; do
	command -v "$t" >/dev/null || { skip "$lane" "$t is not installed (e2fsprogs)"; summary "$lane"; exit 0; }
done

# The initramfs: make install's tree, bash and aplog with their libraries.
stage=$out/stage
make --no-print-directory -s install DESTDIR="$root/$stage" PREFIX=/usr >"$out/install.out" 2>&1 ||
	{ fail "make install for the VM" "$(tail -3 "$out/install.out")"; summary "$lane"; exit 1; }
adds=()
add_binary() { # PATH DEST: a dynamic binary and every library ldd names
	adds+=(--add "$1:$2")
	local name arrow path
	while read -r name arrow path _; do
		case $name in
		linux-vdso*) ;;
		/*) adds+=(--add "$(readlink -f "$name"):${name#/}") ;;
		*) [ "$arrow" = "=>" ] && adds+=(--add "$(readlink -f "$path"):lib/x86_64-linux-gnu/$name") ;;
		esac
	done < <(ldd "$1")
}
add_binary "$(command -v bash)" bin/bash
add_binary "$stage/usr/bin/aplog" usr/bin/aplog
adds+=(--add "$stage/usr/sbin/apstart:usr/sbin/apstart")
for w in 0 1; do adds+=(--add "$stage/boot/apstart-wbinvd$w.elf:boot/apstart-wbinvd$w.elf"); done
for f in "$stage"/usr/lib/apstart/*.sh; do adds+=(--add "$f:usr/lib/apstart/${f##*/}"); done
adds+=(--add "tests/linux-tool/vm-modprobe:usr/sbin/modprobe")
for m in ramoops reed_solomon virtio_ring virtio virtio_pci_legacy_dev virtio_pci_modern_dev virtio_pci virtio_blk \
	crc16 crc32c_generic mbcache jbd2 ext4; do
	adds+=(--add "$dir/modules/$m.ko:lib/modules/$m.ko")
done
if ! tools/linux/vm/mkinitramfs.sh "$dir/busybox" - "$out/initramfs.cpio" --init tests/linux-tool/vm-init \
	"${adds[@]}" --kexec "$dir/kexec" 2>"$out/mk.err"; then
	fail "initramfs with apstart, bash, kexec-tools, ramoops" "$(cat "$out/mk.err")"
	summary "$lane"; exit 1
fi
echo "$lane: $(tr '\n' ';' <"$dir/versions" | sed 's/;$//; s/;/; /')"

# What apstart setup puts on the command line for this machine's RAM
# (-m 1024: 3 MiB at 0x10000000, the zone 2 MiB).
setup_words='memmap=3M$0x10000000 pstore.backend=ramoops ramoops.mem_address=0x10000000 ramoops.mem_size=0x200000 ramoops.console_size=0x200000 ramoops.record_size=0 ramoops.ftrace_size=0 ramoops.pmsg_size=0'
linux_args="console=ttyS0,115200 loglevel=4 panic=-1 no_timer_check $setup_words"

boot() { # NAME RUNS QEMU-ARGS...: one QEMU session in the background
	local name=$1 runs=$2
	shift 2
	mkfs.ext2 -q -F "$out/$name.disk" 32M >/dev/null 2>&1
	(
		timeout 600 qemu-system-x86_64 -accel tcg -cpu max -smp 4 -m 1024 -display none \
			-monitor none -serial "file:$out/$name.serial" \
			-device isa-debug-exit,iobase=0xf4,iosize=4 \
			-drive file="$out/$name.disk",format=raw,if=virtio \
			-kernel "$dir/vmlinuz" -initrd "$out/initramfs.cpio" \
			-append "$linux_args vm_runs=$runs" "$@" >"$out/$name.qemu" 2>&1
		echo $? >"$out/$name.rc"
	) &
}
t0=$SECONDS
boot bios 2 -machine pc
cp /usr/share/OVMF/OVMF_VARS_4M.fd "$out/OVMF_VARS.fd"
boot uefi 1 -machine q35 \
	-drive if=pflash,format=raw,unit=0,readonly=on,file=/usr/share/OVMF/OVMF_CODE_4M.fd \
	-drive if=pflash,format=raw,unit=1,file="$out/OVMF_VARS.fd"
wait
echo "$lane: both sessions done in $((SECONDS - t0)) s (TCG, side by side on a shared host)"

check_session() { # NAME LABEL RUNS FIRMWARE
	local name=$1 label=$2 runs=$3 fw=$4 rc k
	rc=$(cat "$out/$name.rc" 2>/dev/null || echo none)
	tr -d '\r' <"$out/$name.serial" >"$out/$name.txt" 2>/dev/null
	if [ "$rc" != 1 ]; then
		fail "$label: $runs run(s) through apstart run --via kexec, filed by apstart collect" "QEMU exit $rc (1: the last boot filed run $runs)" \
			"$(grep -aE '^(apstart-vm|apstart|@end|reset:|pstore:|PANIC)' "$out/$name.txt" | tail -14)"
		return
	fi
	python3 - "$out/$name.serial" "$out/$name" <<'EOF'
import re, sys
cap = open(sys.argv[1], "rb").read()
for n, m in enumerate(re.finditer(rb"\r\napstart .*?\r\nreset: warm[^\r\n]*\r\n", cap, re.S), 1):
    open(f"{sys.argv[2]}-serial-{n}.bin", "wb").write(m.group(0))
EOF
	for k in $(seq 1 "$runs"); do
		local f=$out/$name-run-$k.log
		debugfs -R "dump /run-000$k.log $f" "$out/$name.disk" >/dev/null 2>&1
		if [ -s "$f" ] && cmp -s "$f" "$out/$name-serial-$k.bin"; then
			ok "$label run $k: apstart collect filed run-000$k.log = the run's serial bytes ($(stat -c %s "$f") bytes, from pstore)"
		else
			fail "$label run $k: filed = serial" "$( [ -s "$f" ] || echo "run-000$k.log not on the disk; ")$(cmp "$f" "$out/$name-serial-$k.bin" 2>&1 | head -1)"
			continue
		fi
		local v
		if v=$("$aplog" verify --cpus 4 --cycles "$k" --boot "firmware=$fw" "$f" 2>&1); then
			ok "$label run $k: aplog verify (4 CPUs, cycles=$k, firmware=$fw)"
		else
			fail "$label run $k: aplog verify" "$(tail -3 <<<"$v" | paste -sd ' ')"
		fi
	done
	local want="pstore=0x10000000,0x200000 exit=reboot"
	[ "$fw" = uefi ] && want="$want acpi_rsdp=0x[0-9a-f]* firmware=uefi" || want="$want firmware=bios"
	grep -Eq "^apstart: kexec -l /boot/apstart-wbinvd0.elf --type multiboot2-x86 --command-line=\"$want console=ttyS0,115200 cycles=1\"" "$out/$name.txt" &&
		ok "$label: apstart run gave kexec pstore= of the region, exit=reboot, firmware=$fw$( [ "$fw" = uefi ] && echo ', acpi_rsdp= from systab'), Linux's console" ||
		fail "$label: kexec's command line" "" "$(grep -a 'kexec -l' "$out/$name.txt")"
}
check_session bios SeaBIOS 2 bios
check_session uefi OVMF 1 uefi
if [ -s "$out/bios-run-1.log" ] && [ -s "$out/bios-run-2.log" ] && ! cmp -s "$out/bios-run-1.log" "$out/bios-run-2.log" &&
	grep -q 'cycles=1' "$out/bios-run-1.log" && grep -q 'cycles=2' "$out/bios-run-2.log"; then
	ok "SeaBIOS: the second run is run-0002.log, the first still run-0001.log (not overwritten)"
else
	fail "SeaBIOS: the second run did not overwrite the first" "" "$(debugfs -R 'ls -l /' "$out/bios.disk" 2>/dev/null)"
fi
summary "$lane"
