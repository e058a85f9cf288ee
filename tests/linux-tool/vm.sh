#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# make linux-vm-tests: apstart run --via kexec, apstart ab and apstart
# collect, the installed program, under Debian's kernel in QEMU (TCG,
# -m 1024), two machines side by side, each booting Linux three times:
# SeaBIOS -smp 4 (every AP through Linux's own trampoline too; Linux as
# the uncompressed vmlinux, PVH), OVMF -smp 2 (its checks are about run
# ids and records; OVMF's own APs cost ~7 CPU-s a boot under TCG at
# -smp 4, measured; -bios, no flash store: nothing here needs NVRAM
# across the resets). The initramfs
# (tools/linux/vm/mkinitramfs.sh) holds busybox, the host's bash, xz and
# wdctl with the libraries they need, make install's files (PREFIX=/usr),
# aplog, aprealmode, kexec-tools, (SeaBIOS only) Debian's kernel image as
# /boot/vmlinuz-RELEASE, ramoops, a virtio disk's and the i6300esb
# watchdog's modules; /var/lib/apstart is an ext2 disk, so the filed runs
# survive the resets (tests/linux-tool/vm-init). Linux's command line
# holds what apstart setup puts there; the kernel's warm reset boots the
# same Linux again, which files the run (apstart collect) and goes on.
#   SeaBIOS (-machine pc -device i6300esb, watchdog.stop_on_reboot=0):
#     apstart run --via kexec twice. The first with --watchdog 60 --
#     exit=halt: the run halts, the watchdog resets the machine, Linux
#     comes back by itself, files the run and says the last reset was the
#     watchdog's. The second through Linux's own trampoline: apstart run
#     --via kexec --trampoline running --wbinvd 1 (the VM's
#     /boot/vmlinuz-$(uname -r), through aprealmode and xz in the VM;
#     kexec --module): run-0001.log and run-0002.log, the second not over
#     the first; its record says Linux's blob of the VM's own kernel ran,
#     as shipped (@trampoline kind=linux wbinvd=1 linux_version=RELEASE).
#   OVMF (-machine q35): apstart ab 1, two runs (A and B) through reboots;
#     before the second boot's collect a stale record of another run lies
#     in /var/lib/systemd/pstore: kept aside in unmatched/, never filed as
#     a run; table.txt from the two runs whose ids matched; kexec's command
#     line (pstore=, exit=reboot, firmware=uefi, acpi_rsdp= from
#     /sys/firmware/efi/systab, run_id=).
#   Both, at the last boot: the kernel side alone (what make kexec-long
#     does at length): kexec-tools straight into apstart, nothing saying
#     the firmware, exit=qemu: SeaBIOS said "unknown" (kexec gives no EFI
#     tags), OVMF "UEFI" from the RSDP's place (acpi_rsdp= alone);
#     aplog verify on that run's serial bytes.
# Every filed run = its serial bytes, byte for byte (from the CR LF before
# apstart's banner through its "reset: warm" line), its run_id= the one
# apstart gave kexec, and aplog verify passes on it.
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
add_binary "$(command -v wdctl)" usr/bin/wdctl
# --trampoline running: aprealmode, the xz its payload needs, the image.
add_binary "$stage/usr/bin/aprealmode" usr/bin/aprealmode
add_binary "$(command -v xz)" usr/bin/xz
release=$(sed -n 's/^kernel: *Linux version \([^ ]*\).*/\1/p' \
	<("$stage/usr/bin/aprealmode" "$dir/vmlinuz" -o "$out/vm-kernel.lrm" 2>&1))
[ -n "$release" ] || { fail "aprealmode on the VM's kernel" "no release found"; summary "$lane"; exit 1; }
adds+=(--add "$stage/usr/sbin/apstart:usr/sbin/apstart")
for w in 0 1; do adds+=(--add "$stage/boot/apstart-wbinvd$w.elf:boot/apstart-wbinvd$w.elf"); done
for f in "$stage"/usr/lib/apstart/*.sh "$stage"/usr/lib/apstart/*.awk; do adds+=(--add "$f:usr/lib/apstart/${f##*/}"); done
adds+=(--add "tests/linux-tool/vm-modprobe:usr/sbin/modprobe")
for m in ramoops reed_solomon virtio_ring virtio virtio_pci_legacy_dev virtio_pci_modern_dev virtio_pci virtio_blk \
	crc16 crc32c_generic mbcache jbd2 ext4 watchdog i6300esb; do
	adds+=(--add "$dir/modules/$m.ko:lib/modules/$m.ko")
done
# the stale record: a run of another id, as the kernel prints run_id=
stale_id=r20200101T000000-5a1e0000
sed -E "s/^(@(boot|end) .*)\$/\1 run_id=$stale_id/" tests/aplog/smp4.log >"$out/stale-record.log"
adds+=(--add "$out/stale-record.log:stale-record.log")
if ! tools/linux/vm/mkinitramfs.sh "$dir/busybox" - "$out/initramfs.cpio" --init tests/linux-tool/vm-init \
	"${adds[@]}" --kexec "$dir/kexec" 2>"$out/mk.err"; then
	fail "initramfs with apstart, bash, kexec-tools, ramoops" "$(cat "$out/mk.err")"
	summary "$lane"; exit 1
fi
echo "$lane: $(tr '\n' ';' <"$dir/versions" | sed 's/;$//; s/;/; /')"
# The VM's kernel image (8 MB) only where --trampoline running reads it
# (SeaBIOS): a second newc archive after the first (Linux unpacks the
# concatenation), so OVMF, which reads -initrd through fw_cfg (5.8 s
# for 21 MB in one profile on a loaded host), loads 13 MB, not 21.
mkdir -p "$out/tramp-root/boot"
cp "$dir/vmlinuz" "$out/tramp-root/boot/vmlinuz-$release"
(cd "$out/tramp-root" && find . | LC_ALL=C sort | "$root/$dir/busybox" cpio -o -H newc 2>/dev/null) >"$out/tramp.cpio"
[ "$(stat -c %s "$out/tramp.cpio")" -gt "$(stat -c %s "$dir/vmlinuz")" ] ||
	{ fail "initramfs: the kernel image's archive" "$out/tramp.cpio: $(stat -c %s "$out/tramp.cpio") bytes"; summary "$lane"; exit 1; }
cat "$out/initramfs.cpio" "$out/tramp.cpio" >"$out/initramfs-bios.cpio"

# What apstart setup puts on the command line for this machine's RAM
# (-m 1024: 3 MiB at 0x10000000, the zone 2 MiB).
setup_words='memmap=3M$0x10000000 pstore.backend=ramoops ramoops.mem_address=0x10000000 ramoops.mem_size=0x200000 ramoops.console_size=0x200000 ramoops.record_size=0 ramoops.ftrace_size=0 ramoops.pmsg_size=0'
# cryptomgr.notests: the crypto self-tests (1.1 s of a boot under TCG by
# initcall_debug's times) test nothing a check here needs; lpj=: the APs
# skip the delay-loop calibration (0.22 s for one AP by printk's times;
# Linux's delays go by the TSC). -nic none: no check needs a network card.
linux_args="console=ttyS0,115200 loglevel=4 panic=-1 no_timer_check cryptomgr.notests lpj=9190632 $setup_words"

boot() { # NAME SMP KERNEL INITRD LINUX-WORDS QEMU-ARGS...: one QEMU session in the background
	local name=$1 smp=$2 kernel=$3 initrd=$4 words=$5
	shift 5
	mkfs.ext2 -q -F "$out/$name.disk" 32M >/dev/null 2>&1
	(
		t=$SECONDS
		timeout 600 qemu-system-x86_64 -cpu max -smp "$smp" -m 1024 -display none \
			-monitor none -serial "file:$out/$name.serial" \
			-nic none \
			-device isa-debug-exit,iobase=0xf4,iosize=4 \
			-drive file="$out/$name.disk",format=raw,if=virtio \
			-kernel "$kernel" -initrd "$initrd" \
			-append "$linux_args $words" "$@" >"$out/$name.qemu" 2>&1
		echo $? >"$out/$name.rc"
		echo $((SECONDS - t)) >"$out/$name.seconds"
		# the host CPU it took: bash's times, its children's line
		times >"$out/$name.times"
		awk 'END { print $1 "+" $2 }' "$out/$name.times" >"$out/$name.cpu"
	) &
}
# SeaBIOS boots Linux as the uncompressed vmlinux where fetch.sh has it
# (PVH entry: ~1 s to "Linux version" where the bzImage's decompressor
# took ~6 s under TCG, three boots a session); the VM's
# /boot/vmlinuz-RELEASE that --trampoline running reads stays the
# bzImage. OVMF boots the bzImage: its EFI stub is the UEFI path.
bios_kernel=$dir/vmlinuz
[ -s "$dir/vmlinux" ] && bios_kernel=$dir/vmlinux
echo "$lane: SeaBIOS boots $bios_kernel, OVMF $dir/vmlinuz"
t0=$SECONDS
# SeaBIOS on one host thread (thread=single, as linux-hotplug's VM): its
# work is mostly one vCPU's (Linux's boots, the guest's xz), and one
# thread per vCPU cost more (the VM: 52.6 CPU-s, one thread 45.9 and
# 42.6, measured); OVMF keeps one thread per vCPU (one thread: 95 CPU-s
# against 83-85).
boot bios 4 "$bios_kernel" "$out/initramfs-bios.cpio" "vm_mode=run vm_runs=2 vm_wd_run=1 vm_tramp_run=2 vm_raw=1 watchdog.stop_on_reboot=0" \
	-accel tcg,thread=single -machine pc -device i6300esb
# OVMF as -bios, its variables in RAM (nothing persists): no check here
# needs NVRAM across the resets (kexec hands apstart no EFI tables, so it
# writes no NVRAM summary; the VM mounts no efivarfs), and a flash store
# is firmware work no check needs (OVMF reached BdsDxe 5.6 s after QEMU's
# start with a fresh store, 3.3 s as -bios; in CPU-s to Linux's init the
# gain was within the noise, ~0.6 of ~15 a boot: measured).
boot uefi 2 "$dir/vmlinuz" "$out/initramfs.cpio" "vm_mode=ab vm_raw=1" -accel tcg -machine q35 \
	-bios /usr/share/ovmf/OVMF.fd
wait
echo "$lane: the two sessions done in $((SECONDS - t0)) s (TCG, side by side on a shared host; SeaBIOS $(cat "$out/bios.seconds") s, $(tail -1 "$out/bios.cpu") CPU-s; OVMF $(cat "$out/uefi.seconds") s, $(tail -1 "$out/uefi.cpu") CPU-s)"

# split_runs NAME: the serial capture's filed runs, NAME-serial-N.bin,
# from the CR LF before apstart's banner through its "reset: warm" line,
# or, for a run that halted (the watchdog reset it), through the last CR
# LF before the next Linux's first line; prints how many. The raw run at
# the end (exit=qemu: neither) is NAME-raw.bin, from its banner to the
# capture's end.
split_runs() {
	python3 - "$out/$1.serial" "$out/$1" <<'PY'
import re, sys
cap = open(sys.argv[1], "rb").read()
n = 0
end = rb"(?:\r\nreset: warm[^\r\n]*\r\n|\r\n(?=\[ *[0-9]+\.[0-9]+\] |apstart-vm: ))"
for n, m in enumerate(re.finditer(rb"\r\napstart .*?" + end, cap, re.S), 1):
    open(f"{sys.argv[2]}-serial-{n}.bin", "wb").write(m.group(0))
raw = cap.rfind(b"\r\napstart ")
if raw >= 0 and not re.compile(end).search(cap, raw):
    open(f"{sys.argv[2]}-raw.bin", "wb").write(cap[raw:])
print(n)
PY
}

# raw NAME LABEL FIRMWARE CPUS GREP...: the last boot's raw kexec (nothing said
# the firmware, exit=qemu) passed aplog verify as FIRMWARE, and its lines
# say how the kernel knew (each GREP a line of the run).
raw() {
	local name=$1 label=$2 fw=$3 cpus=$4 f=$out/$1-raw.bin v g
	shift 4
	if [ ! -s "$f" ]; then
		fail "$label: kexec-tools straight into apstart, nothing saying the firmware" "no run after 'raw: kexec' in the capture" \
			"$(grep -aE '^(apstart-vm|@end|firmware:)' "$out/$name.txt" | tail -6)"
		return
	fi
	if v=$("$aplog" verify --cpus "$cpus" --cycles 1 --boot "firmware=$fw" --boot protocol=mb2 "$f" 2>&1); then
		ok "$label: kexec-tools straight into apstart, nothing saying the firmware, exit=qemu: aplog verify (firmware=$fw, $cpus CPUs)"
	else
		fail "$label: the raw kexec's run: aplog verify" "$(tail -3 <<<"$v" | paste -sd ' ')"
	fi
	for g in "$@"; do
		grep -aq "$g" <(tr -d '\r' <"$f") || { fail "$label: the firmware said as known" "no line '$g'" "$(tr -d '\r' <"$f" | grep -a '^firmware:\|^acpi:')"; return; }
	done
	ok "$label: the firmware said as known: $(tr -d '\r' <"$f" | sed -n 's/^firmware: //p' | head -1)"
}

# qemu_done NAME LABEL WHAT: QEMU ended as the last boot quits (exit 1).
qemu_done() {
	local rc
	rc=$(cat "$out/$1.rc" 2>/dev/null || echo none)
	tr -d '\r' <"$out/$1.serial" >"$out/$1.txt" 2>/dev/null
	[ "$rc" = 1 ] && return 0
	fail "$2: $3" "QEMU exit $rc (1: the last boot was reached)" \
		"$(grep -aE '^(apstart-vm|apstart|@end|reset:|pstore:|PANIC|watchdog)' "$out/$1.txt" | tail -16)"
	return 1
}

# filed NAME LABEL DISK-PATH N FIRMWARE CYCLES CPUS: the file on the disk =
# the Nth run's serial bytes, aplog verify passes on it, and its run_id=
# is the one apstart gave kexec for that run (its Nth kexec line).
filed() {
	local name=$1 label=$2 path=$3 k=$4 fw=$5 cycles=$6 cpus=$7 f id want v
	f=$out/$name-filed-$k.log
	debugfs -R "dump $path $f" "$out/$name.disk" >/dev/null 2>&1
	if [ -s "$f" ] && cmp -s "$f" "$out/$name-serial-$k.bin"; then
		ok "$label run $k: apstart collect filed $path = the run's serial bytes ($(stat -c %s "$f") bytes, from pstore)"
	else
		fail "$label run $k: filed = serial" "$( [ -s "$f" ] || echo "$path not on the disk; ")$(cmp "$f" "$out/$name-serial-$k.bin" 2>&1 | head -1)"
		return
	fi
	if v=$("$aplog" verify --cpus "$cpus" --cycles "$cycles" --boot "firmware=$fw" "$f" 2>&1); then
		ok "$label run $k: aplog verify ($cpus CPUs, cycles=$cycles, firmware=$fw)"
	else
		fail "$label run $k: aplog verify" "$(tail -3 <<<"$v" | paste -sd ' ')"
	fi
	want=$(grep -a '^apstart: kexec -l ' "$out/$name.txt" | sed -n "${k}s/.* run_id=\([A-Za-z0-9_-]*\).*/\1/p")
	id=$(tr -d '\r' <"$f" | grep -a -E '^@(boot|end) ' | grep -o ' run_id=[A-Za-z0-9_-]*' | cut -d= -f2 | sort -u | tr '\n' ' ')
	if [ -n "$want" ] && [ "$id" = "$want " ]; then
		ok "$label run $k: its @boot and @end carry run_id=$want, the id apstart gave kexec"
	else
		fail "$label run $k: run_id" "record: '$id', kexec: '$want'"
	fi
}

# SeaBIOS: two runs, the first left to the watchdog, the second through
# Linux's own trampoline; then the raw kexec
if qemu_done bios SeaBIOS "2 runs through apstart run --via kexec (the first reset by the watchdog), filed by apstart collect"; then
	split_runs bios >/dev/null
	filed bios SeaBIOS /run-0001.log 1 bios 1 4
	filed bios SeaBIOS /run-0002.log 2 bios 2 4
	if grep -Eq "^apstart: kexec -l /boot/apstart-wbinvd0.elf --type multiboot2-x86 --command-line=\"pstore=0x10000000,0x200000 exit=reboot firmware=bios console=ttyS0,115200 run_id=r[0-9]{8}T[0-9]{6}-[0-9a-f]{8} cycles=1 exit=halt\"" "$out/bios.txt"; then
		ok "SeaBIOS: apstart run gave kexec pstore= of the region, exit=reboot, firmware=bios, Linux's console, run_id=, then the user's words"
	else
		fail "SeaBIOS: kexec's command line" "" "$(grep -a 'kexec -l' "$out/bios.txt")"
	fi
	tr_run=$out/bios-filed-2.log
	if [ -s "$tr_run" ] && grep -aq "^@trampoline kind=linux wbinvd=1 linux_version=$release .*patched=0 " <(tr -d '\r' <"$tr_run") &&
		grep -Eq "^apstart: kexec -l /boot/apstart-wbinvd1.elf --type multiboot2-x86 --module=/var/lib/apstart/trampoline/vmlinuz-$release.lrm --command-line=\".* trampoline=linux run_id=[A-Za-z0-9_-]* cycles=2\"" "$out/bios.txt"; then
		ok "SeaBIOS run 2: apstart run --trampoline running: the VM's kernel's own blob ($release), as shipped, kexec --module"
	else
		fail "SeaBIOS run 2: apstart run --trampoline running" "" "$(grep -a 'kexec -l\|refused\|trampoline' "$out/bios.txt" | tail -5)" \
			"$(grep -a '^@trampoline' "$tr_run" 2>/dev/null)"
	fi
	if [ -s "$out/bios-filed-1.log" ] && [ -s "$tr_run" ] && ! cmp -s "$out/bios-filed-1.log" "$tr_run" &&
		grep -q 'cycles=1' "$out/bios-filed-1.log" && grep -q 'cycles=2' "$tr_run"; then
		ok "SeaBIOS: the second run is run-0002.log, the first still run-0001.log (not overwritten)"
	else
		fail "SeaBIOS: the second run did not overwrite the first" "" "$(debugfs -R 'ls -l /' "$out/bios.disk" 2>/dev/null)"
	fi
	# run 1: it halted (exit=halt); the watchdog brought Linux back
	if grep -aq "^apstart: watchdog: i6300ESB timer running, 60 s from now" "$out/bios.txt" &&
		grep -aq "^apstart-vm: watchdog0: i6300ESB timer, stop_on_reboot=0, bootstatus 32" "$out/bios.txt" &&
		grep -aq "the last reset was the hardware watchdog's (i6300ESB timer, bootstatus 32)" "$out/bios.txt" &&
		grep -aq '^@end status=pass ' "$out/bios-filed-1.log" && grep -aq '^exit: halt' "$out/bios-filed-1.log" &&
		! grep -aq '^reset: warm' "$out/bios-filed-1.log"; then
		ok "SeaBIOS run 1: it halted (exit=halt), the i6300esb watchdog (60 s) reset the machine, Linux came back and filed the run (bootstatus 32: card reset)"
	else
		fail "SeaBIOS run 1: back by itself through the watchdog" "" "$(grep -aE '^(apstart|apstart-vm|@end|exit:)' "$out/bios.txt" | head -12)"
	fi
	raw bios SeaBIOS unknown 4 '^firmware: unknown: no EFI tags'
fi

# OVMF: the A/B session, a stale record beside it
if qemu_done uefi OVMF "apstart ab 1 through reboots, filed by apstart collect"; then
	n=$(split_runs uefi)
	order=$(debugfs -R "cat /session-0001/plan.txt" "$out/uefi.disk" 2>/dev/null | sed -n 's/^order=//p')
	for k in 1 2; do
		x=${order:k-1:1}
		filed uefi OVMF "/session-0001/run-00$k-$x-wbinvd$( [ "$x" = A ] && echo 1 || echo 0).log" "$k" uefi 1 2
	done
	if grep -Eq "^apstart: kexec -l /boot/apstart-wbinvd[01].elf --type multiboot2-x86 --command-line=\"pstore=0x10000000,0x200000 exit=reboot acpi_rsdp=0x[0-9a-f]* firmware=uefi console=ttyS0,115200 run_id=r[0-9]{8}T[0-9]{6}-[0-9a-f]{8} cycles=1\"" "$out/uefi.txt"; then
		ok "OVMF: apstart gave kexec pstore= of the region, exit=reboot, firmware=uefi, acpi_rsdp= from systab, Linux's console, run_id="
	else
		fail "OVMF: kexec's command line" "" "$(grep -a 'kexec -l' "$out/uefi.txt")"
	fi
	debugfs -R "dump /unmatched/record-0001.log $out/uefi-unmatched.log" "$out/uefi.disk" >/dev/null 2>&1
	debugfs -R "dump /session-0001/table.txt $out/uefi-table.txt" "$out/uefi.disk" >/dev/null 2>&1
	if [ "$n" = 2 ] && cmp -s "$out/uefi-unmatched.log" "$out/stale-record.log" &&
		grep -aq "kept aside, not filed as a run: pstore's /var/lib/systemd/pstore/1600000000/console-ramoops-0 -> /var/lib/apstart/unmatched/record-0001.log: its run_id=$stale_id is not the run in flight's" "$out/uefi.txt" &&
		! debugfs -R "ls -l /session-0001" "$out/uefi.disk" 2>/dev/null | grep -q 'interrupted'; then
		ok "OVMF: the stale record in /var/lib/systemd/pstore (another run id) kept aside in unmatched/, never filed as run 1"
	else
		fail "OVMF: the stale record" "$n runs on serial" "$(grep -a 'kept aside\|filed' "$out/uefi.txt" | head -6)" "$(debugfs -R 'ls -l /session-0001' "$out/uefi.disk" 2>/dev/null)"
	fi
	if grep -q '^runs with records: 2; interrupted: 0$' "$out/uefi-table.txt" && grep -q '^Offline: ' "$out/uefi-table.txt" &&
		[ "$(grep -c '^run 00[12] ' "$out/uefi-table.txt")" = 2 ]; then
		ok "OVMF: the session's table.txt from the two runs whose ids matched, the stale record not among them"
	else
		fail "OVMF: table.txt" "" "$(cat "$out/uefi-table.txt" 2>/dev/null)"
	fi
	raw uefi OVMF uefi 2 '^firmware: UEFI: the RSDP lies outside the BIOS areas' '^acpi: RSDP at 0x[0-9a-f]* from acpi_rsdp='
fi

summary "$lane"
