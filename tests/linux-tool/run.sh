#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# make linux-tool-tests: apstart's Linux side (tools/linux/apstart) and its
# GRUB script (tools/linux/grub/20_apstart) against fake machines. Each
# machine is a tree (proc, sys, boot, etc, var, dev/mem as a sparse file)
# that the program reads through APSTART_ROOT; every tool that could change
# a machine (kexec, update-grub, grub-reboot, mokutil, systemctl, reboot,
# modprobe, mount, chattr) is a fake that records its arguments
# (tests/linux-tool/fake-bin), and PATH holds only those fakes and a list
# of harmless host tools, so a real one can never run. awk is mawk when it
# is installed (Debian's default awk, the stricter about large numbers).
# A "reboot" of a fake machine is the test doing what the kernel and
# ramoops would: the run's records appear in /sys/fs/pstore or efivarfs.
set -uo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT_DIR=$(cd "$HERE/../.." && pwd)
# shellcheck source=tests/protocol.sh
. "$HERE/../protocol.sh"
APSTART=$ROOT_DIR/tools/linux/apstart/apstart
GRUB_SCRIPT=$ROOT_DIR/tools/linux/grub/20_apstart
APLOG=${APLOG:-$ROOT_DIR/build/host/aplog}
LOGS=$ROOT_DIR/tests/aplog
GUID=effcee49-e744-482d-8f24-37b608c11fbd
EFI_GLOBAL=8be4df61-93ca-11d2-aa0d-00e098032b8c
[ -x "$APLOG" ] || { echo "linux-tool: $APLOG not built (make aplog)"; exit 2; }
APREALMODE=${APREALMODE:-$ROOT_DIR/build/host/aprealmode}
[ -x "$APREALMODE" ] || { echo "linux-tool: $APREALMODE not built (make aprealmode)"; exit 2; }
# A kernel image with a realmode blob of Debian 6.1's shape (synthetic, gzip
# payload: the realmode lane's fuzz seed) for --trampoline.
VMLINUZ=$ROOT_DIR/tests/fuzz/corpus/realmode_scan/bzImage-gzip

T=$(mktemp -d "${TMPDIR:-/tmp}/linux-tool.XXXXXX") || exit 1
trap 'rm -rf -- "$T"' EXIT

# The host tools the program may use: nothing here changes a machine.
SAFE=$T/safe-bin
mkdir -p "$SAFE"
for t in bash sh cat sed grep od tr head tail cut sort dd date mktemp mv rm cp ln cmp sync gzip \
	mkdir dirname basename readlink wc find printf sleep stat touch ls env uname tee chmod \
	grub-editenv; do
	p=$(command -v "$t") || { echo "linux-tool: host tool $t missing"; exit 2; }
	ln -s "$p" "$SAFE/$t"
done
if command -v mawk >/dev/null; then ln -s "$(command -v mawk)" "$SAFE/awk"; else ln -s "$(command -v awk)" "$SAFE/awk"; fi
FAKE_BIN=$HERE/fake-bin

# ---- fake machines

# tree NAME uefi|bios: a fresh machine, set up as Debian 12 on a 2 GiB box
# with GRUB, apstart installed, not yet set up. Prints its root.
tree() {
	local r=$T/$1 fw=$2
	rm -rf "$r" "$r.calls"
	mkdir -p "$r"/{proc/sys/kernel,sys/firmware/memmap,sys/kernel/security,sys/fs/pstore,sys/module/pstore/parameters} \
		"$r"/{boot/grub,etc/default/grub.d,etc/grub.d,var/lib,dev,run/systemd/system}
	echo "BOOT_IMAGE=/boot/vmlinuz-6.1.0-35-amd64 root=UUID=1234 ro console=tty0 console=ttyS1,115200n8 quiet" >"$r/proc/cmdline"
	printf '%s\n' "/dev/sda2 / ext4 rw,relatime 0 0" "/dev/sda1 /boot/efi vfat rw,relatime 0 0" \
		"proc /proc proc rw 0 0" >"$r/proc/mounts"
	printf '%s\n' "00000000-00000fff : Reserved" "00001000-0009fbff : System RAM" \
		"000f0000-000fffff : Reserved" "00100000-7ffdffff : System RAM" \
		"  01000000-01ffffff : Kernel code" "7ffe0000-7fffffff : Reserved" >"$r/proc/iomem"
	printf '%s\n' "processor	: 0" "flags		: fpu vme de pse tsc msr pae mce cx8 apic sep mtrr hypervisor" >"$r/proc/cpuinfo"
	echo "100000.00 100000.00" >"$r/proc/uptime"
	echo 0 >"$r/proc/sys/kernel/kexec_load_disabled"
	echo 0 >"$r/sys/kernel/kexec_loaded"
	echo "[none] integrity confidentiality" >"$r/sys/kernel/security/lockdown"
	memmap_entry "$r" 0 0x0 0x9fbff "System RAM"
	memmap_entry "$r" 1 0x9fc00 0x9ffff Reserved
	memmap_entry "$r" 2 0x100000 0x7ffdffff "System RAM"
	memmap_entry "$r" 3 0x7ffe0000 0x7fffffff Reserved
	if [ "$fw" = uefi ]; then
		mkdir -p "$r/sys/firmware/efi/efivars"
		printf '%s\n' "SMBIOS3=0x3f6ee000" "ACPI20=0x3f77d014" "ACPI=0x3f77d000" >"$r/sys/firmware/efi/systab"
		secure_boot_var "$r" 0
	fi
	printf 'x' >"$r/boot/apstart-wbinvd0.elf"
	printf 'y' >"$r/boot/apstart-wbinvd1.elf"
	printf '# GRUB Environment Block\n%s' "$(printf '#%.0s' $(seq 1 1000))" | head -c 1024 >"$r/boot/grub/grubenv"
	echo "# fake grub.cfg" >"$r/boot/grub/grub.cfg"
	printf '%s\n' 'GRUB_DEFAULT=0' 'GRUB_TIMEOUT=5' 'GRUB_CMDLINE_LINUX_DEFAULT="quiet"' 'GRUB_CMDLINE_LINUX="console=tty0 console=ttyS1,115200n8"' >"$r/etc/default/grub"
	cp "$GRUB_SCRIPT" "$r/etc/grub.d/20_apstart"
	chmod 755 "$r/etc/grub.d/20_apstart"
	truncate -s 4G "$r/dev/mem"
	echo "$r"
}
memmap_entry() { # ROOT N START END TYPE
	mkdir -p "$1/sys/firmware/memmap/$2"
	echo "$3" >"$1/sys/firmware/memmap/$2/start"
	echo "$4" >"$1/sys/firmware/memmap/$2/end"
	echo "$5" >"$1/sys/firmware/memmap/$2/type"
}
efivar() { # ROOT NAME-GUID FILE: efivarfs' layout, 4 bytes of attributes first
	{ printf '\007\000\000\000'; cat "$3"; } >"$1/sys/firmware/efi/efivars/$2"
}
secure_boot_var() { # ROOT 0|1
	printf "\\007\\000\\000\\000\\00$2" >"$1/sys/firmware/efi/efivars/SecureBoot-$EFI_GLOBAL"
}

# ap ROOT ARGS...: the program on that machine; sets OUT and RC.
ap() {
	local r=$1
	shift
	OUT=$(timeout 60 env -i PATH="$FAKE_BIN:$SAFE" HOME="$T" APSTART_ROOT="$r" FAKE_LOG="$r.calls" \
		APLOG="$APLOG" APREALMODE="$APREALMODE" FAKE_GRUB_LIB="$HERE/grub-mkconfig_lib-stub" TMPDIR="$T" \
		${FAKE_ENV[@]+"${FAKE_ENV[@]}"} bash "$APSTART" "$@" 2>&1)
	RC=$?
}
FAKE_ENV=()

# expect NAME STATUS REGEX: the last ap call's status and output.
expect() { check_status "$1" "$2" "$3" "$RC" "$OUT"; }
# called ROOT REGEX: a fake was called so (a line of its calls log).
called() { grep -Eq -- "$2" "$1.calls" 2>/dev/null; }
calls_of() { cat "$1.calls" 2>/dev/null; }

# set_up ROOT: apstart setup done and the machine rebooted with it.
set_up() {
	local r=$1
	ap "$r" setup
	local words
	words=$(sed -n "s/^GRUB_CMDLINE_LINUX=.*'\(.*\)'$/\1/p" "$r/etc/default/grub.d/apstart.cfg" | sed 's/\\\$/$/')
	sed -i "s|\$| $words|" "$r/proc/cmdline"
	# Linux now shows the region as reserved
	sed -i 's/^00100000-7ffdffff : System RAM$/00100000-0fffffff : System RAM\n10000000-102fffff : Reserved\n10300000-7ffdffff : System RAM/' "$r/proc/iomem"
	: >"$r.calls"
}

# reboot_with ROOT pstore|nvram|nothing|cleared [FILE]: what the next boot
# finds: the records in pstore (ramoops' console file), the summary in
# NVRAM (two parts), nothing (RAM kept: the marker is there), or nothing
# with RAM cleared. The fake clock moves: the pending run is from the last
# boot.
reboot_with() {
	local r=$1 how=$2 file=${3:-}
	case $how in
	pstore) cp "$file" "$r/sys/fs/pstore/console-ramoops-0" ;;
	nvram)
		local n
		n=$(($(wc -c <"$file") / 2))
		head -c $n "$file" >"$T/part0"
		tail -c +$((n + 1)) "$file" >"$T/part1"
		efivar "$r" "ApstartResults-$GUID" "$T/part0"
		efivar "$r" "ApstartResults1-$GUID" "$T/part1"
		;;
	cleared) dd if=/dev/zero of="$r/dev/mem" bs=4096 seek=$((0x10200000 / 4096)) count=1 conv=notrunc status=none ;;
	esac
	sleep 1
	echo "0.50 0.50" >"$r/proc/uptime"
}

# ===== refusals, each with its message

R=$(tree m1 uefi)
FAKE_ENV=(FAKE_UID=1000)
ap "$R" setup
expect "refused: not root" 3 "refused: must run as root"
FAKE_ENV=()

ap "$R" run
expect "refused: no reserved region (setup not done)" 3 "refused: no region of RAM is reserved .*apstart setup has not been run"
! called "$R" '^kexec -l' && ok "  ... and kexec was not called" || fail "  ... and kexec was not called" "it was" "$(calls_of "$R")"

ap "$R" setup
expect "setup: says one reboot is needed" 0 "ONE REBOOT is needed"
ap "$R" run
expect "refused: region set up but not rebooted" 3 "refused: apstart setup reserved 3 MiB at 0x10000000, but this boot started without it"
cp "$R/proc/iomem" "$T/iomem.orig"
set_up "$R"
cp "$R/proc/iomem" "$T/iomem.reserved"
cp "$T/iomem.orig" "$R/proc/iomem"
ap "$R" run
expect "refused: on the command line but still System RAM" 3 "still shows System RAM at 0x100000-0x7ffdffff inside it"
cp "$T/iomem.reserved" "$R/proc/iomem"

echo "none [integrity] confidentiality" >"$R/sys/kernel/security/lockdown"
secure_boot_var "$R" 1
ap "$R" run
expect "refused: lockdown (Secure Boot on) blocks kexec_load" 3 "refused: the kernel is locked down \(lockdown=integrity, /sys/kernel/security/lockdown\) because Secure Boot is on \(efivars SecureBoot=1\): kexec_load"
grep -q "apstart setup --secure-boot" <<<"$OUT" && ok "  ... and says the two ways forward" || fail "  ... and says the two ways forward" "no" "$OUT"
rm "$R/sys/kernel/security/lockdown"
ap "$R" run
expect "refused: Secure Boot on, lockdown unreadable" 3 "refused: Secure Boot is on \(efivars SecureBoot=1\): Debian's kernel then locks itself down"
ap "$R" run --via grub
expect "refused: Secure Boot on, through GRUB" 3 "refused: Secure Boot is on .*GRUB then boots only kernels that shim verifies"
rm "$R/sys/firmware/efi/efivars/SecureBoot-$EFI_GLOBAL"
FAKE_ENV=(FAKE_SB=enabled)
ap "$R" run
expect "refused: Secure Boot on, seen by mokutil --sb-state" 3 "refused: Secure Boot is on \(mokutil --sb-state\)"
FAKE_ENV=()
echo "[none] integrity confidentiality" >"$R/sys/kernel/security/lockdown"
secure_boot_var "$R" 0

mv "$FAKE_BIN/kexec" "$T/kexec.fake"
ap "$R" run
mv "$T/kexec.fake" "$FAKE_BIN/kexec"
expect "refused: no kexec" 3 "refused: kexec is not installed \(package kexec-tools\)"
FAKE_ENV=(FAKE_KEXEC_VERSION=2.0.20)
ap "$R" run
expect "refused: kexec-tools too old for ELF64 multiboot2" 3 "refused: kexec-tools 2.0.20 is too old: 2.0.23"
FAKE_ENV=()
rm "$R/sys/kernel/kexec_loaded"
ap "$R" run
expect "refused: kernel without kexec_load" 3 "refused: this kernel has no kexec_load .*CONFIG_KEXEC"
echo 0 >"$R/sys/kernel/kexec_loaded"
echo 1 >"$R/proc/sys/kernel/kexec_load_disabled"
ap "$R" run
expect "refused: kexec_load disabled" 3 "refused: kexec_load is disabled \(/proc/sys/kernel/kexec_load_disabled = 1"
echo 0 >"$R/proc/sys/kernel/kexec_load_disabled"
FAKE_ENV=(FAKE_KEXEC_ERROR="kexec_load failed: Operation not permitted")
ap "$R" run
expect "refused: kexec_load says EPERM" 3 "refused: kexec_load was refused \(Operation not permitted\)"
[ ! -f "$R/var/lib/apstart/pending" ] && ok "  ... and no run is left pending" || fail "  ... and no run is left pending" "pending file there"
FAKE_ENV=()

sed -i 's/^flags.*/& tdx_guest/' "$R/proc/cpuinfo"
ap "$R" run
expect "refused: TDX guest (cpuinfo flag)" 3 "refused: this is a confidential guest: Intel TDX guest \(cpuinfo flag tdx_guest\)"
ap "$R" setup
expect "refused: TDX guest, setup too" 3 "refused: this is a confidential guest"
sed -i 's/ tdx_guest//' "$R/proc/cpuinfo"
echo "[    0.000000] AMD Memory Encryption Features active: SEV SEV-ES" >"$T/dmesg-sev"
FAKE_ENV=(FAKE_DMESG="$T/dmesg-sev")
ap "$R" run
expect "refused: SEV guest (the kernel's boot line)" 3 "refused: this is a confidential guest: AMD SEV guest \(kernel log: AMD Memory Encryption Features active: SEV SEV-ES\)"
echo "[    0.000000] AMD Memory Encryption Features active: SME" >"$T/dmesg-sme"
FAKE_ENV=(FAKE_DMESG="$T/dmesg-sme")
ap "$R" run
if [ "$RC" = 0 ] && ! grep -q "confidential" <<<"$OUT"; then ok "not refused: a host with SME (its own memory encryption)"; else fail "not refused: a host with SME" "exit $RC" "$OUT"; fi
FAKE_ENV=(FAKE_CVM=sev-snp)
ap "$R" run
expect "refused: SEV-SNP guest (systemd-detect-virt --cvm)" 3 "confidential guest: sev-snp \(systemd-detect-virt --cvm\)"
FAKE_ENV=()
touch "$R/dev/sev-guest"
ap "$R" run
expect "refused: SEV-SNP guest (/dev/sev-guest)" 3 "AMD SEV-SNP guest \(/dev/sev-guest\)"
rm "$R/dev/sev-guest"

sed -i 's|^/dev/sda1 /boot/efi.*|&\n/dev/sda3 /boot ext4 ro,relatime 0 0|' "$R/proc/mounts"
ap "$R" setup
expect "refused: read-only /boot (setup)" 3 "refused: /boot is read-only \(mounted ro at /boot, /proc/mounts\)"
ap "$R" run --via grub
expect "refused: read-only /boot (run --via grub)" 3 "refused: /boot is read-only .*grub-reboot writes /boot/grub/grubenv"
sed -i '/ \/boot ext4 ro/d' "$R/proc/mounts"

echo "# empty" >"$R/boot/grub/grub.cfg"
ap "$R" run --via grub
expect "refused: no GRUB entry" 3 "refused: grub.cfg has no menu entry 'apstart-wbinvd0'"
ap "$R" setup
FAKE_ENV=(FAKE_BOOT_ABSTRACTION=lvm FAKE_BOOT_FS=ext2)
ap "$R" run --via grub
expect "refused: grubenv on LVM (one-shot entry would stick)" 3 "refused: GRUB cannot write its environment block on /boot \(ext2 on lvm"
FAKE_ENV=()
rm "$R/sys/firmware/efi/systab"
ap "$R" run
expect "refused: UEFI without an RSDP in systab (kexec)" 3 "refused: UEFI machine, but /sys/firmware/efi/systab has no ACPI20= or ACPI= line"
printf '%s\n' "ACPI20=0x3f77d014" >"$R/sys/firmware/efi/systab"
ap "$R" run -- 'cycles=2;reboot'
expect "usage: kernel options with shell syntax" 2 "kernel options may hold"
ap "$R" run --wbinvd 2
expect "usage: --wbinvd 2" 2 "--wbinvd must be 0 or 1"
ap "$R" frobnicate
expect "usage: unknown command" 2 "unknown command 'frobnicate'"

# ===== setup: the region, the command line, the GRUB entries

R=$(tree s1 uefi)
ap "$R" setup
expect "setup: region from /sys/firmware/memmap, 256 MiB floor" 0 "region: 3 MiB at 0x10000000: 2 MiB for the records"
cfg=$R/etc/default/grub.d/apstart.cfg
line=$(GRUB_CMDLINE_LINUX="console=ttyS1" bash -c ". '$cfg'; echo \"\$GRUB_CMDLINE_LINUX\"")
want='console=ttyS1 memmap=3M\$0x10000000 pstore.backend=ramoops ramoops.mem_address=0x10000000 ramoops.mem_size=0x200000 ramoops.console_size=0x200000 ramoops.record_size=0 ramoops.ftrace_size=0 ramoops.pmsg_size=0'
[ "$line" = "$want" ] && ok "setup: GRUB_CMDLINE_LINUX gets memmap= (\\\$ for GRUB) and ramoops' options, after the old value" ||
	fail "setup: GRUB_CMDLINE_LINUX" "got: $line" "want: $want"
called "$R" '^update-grub$' && ok "setup: runs update-grub" || fail "setup: runs update-grub" "not called" "$(calls_of "$R")"
grep -q 'multiboot2	/boot/apstart-wbinvd1.elf pstore=0x10000000,0x200000 $apstart_options' "$R/boot/grub/grub.cfg" &&
	ok "setup: grub.cfg entries pass pstore= of the region" || fail "setup: grub.cfg entries pass pstore=" "" "$(cat "$R/boot/grub/grub.cfg")"
expect "setup: names the entries grub-reboot takes" 0 "GRUB menu entries: apstart-wbinvd0 apstart-wbinvd0-serial apstart-wbinvd1 apstart-wbinvd1-serial"
if grub-script-check "$R/boot/grub/grub.cfg" 2>&1; then ok "setup: grub.cfg passes grub-script-check"; else fail "setup: grub.cfg passes grub-script-check" "(above)"; fi
called "$R" '^systemctl enable apstart-collect.service' && called "$R" '^systemctl enable apstart-session.service' &&
	ok "setup: enables the two units" || fail "setup: enables the two units" "" "$(calls_of "$R")"
ap "$R" setup
expect "setup again: keeps the region" 0 "already set up: 3 MiB at 0x10000000"

R=$(tree s2 bios)
sed -i 's/^  01000000-01ffffff : Kernel code$/&\n  10000000-17ffffff : Crash kernel/' "$R/proc/iomem"
ap "$R" setup
expect "setup: steps over the crash kernel's reservation" 0 "region: 3 MiB at 0x18000000"
R=$(tree s3 bios)
rm -rf "$R/sys/firmware/memmap"
printf '%s\n' "00001000-0009fbff : System RAM" "00100000-0bffffff : System RAM" >"$R/proc/iomem"
ap "$R" setup
expect "setup: small machine, /proc/iomem, 64 MiB floor" 0 "reading the RAM map \(/proc/iomem\).*|region: 3 MiB at 0x4000000"
grep -q 'region: 3 MiB at 0x4000000' <<<"$OUT" && ok "  ... at 0x4000000" || fail "  ... at 0x4000000" "" "$OUT"
R=$(tree s4 bios)
rm -rf "$R/sys/firmware/memmap"
printf '%s\n' "00001000-0009fbff : System RAM" "00100000-02ffffff : System RAM" "100000000-17fffffff : System RAM" >"$R/proc/iomem"
ap "$R" setup
expect "refused: no room below 4 GiB" 3 "refused: no RAM range below 4 GiB has 3 MiB free.*0x100000-0x2ffffff, 0x100000000-0x17fffffff"
R=$(tree s5 uefi)
rm -rf "$R/sys/firmware/memmap"
printf '%s\n' "00100000-bfffffff : System RAM" "  02000000-bfffffff : Crash kernel" "100000000-43fffffff : System RAM" >"$R/proc/iomem"
rm -rf "$R/sys/firmware/memmap"
memmap_entry "$R" 0 0x100000 0xbfffffff "System RAM"
memmap_entry "$R" 1 0x100000000 0x43fffffff "System RAM"
ap "$R" setup
expect "refused: RAM below 4 GiB all taken (large numbers, mawk)" 3 "no RAM range below 4 GiB .*RAM map: 0x100000-0xbfffffff, 0x100000000-0x43fffffff"
ap "$R" setup --size 3M
expect "usage: --size not a power of two" 2 "must be a power of two"

# GRUB script switches
R=$(tree g1 bios)
echo 'GRUB_APSTART_SERIAL="ttyS1,57600"' >>"$R/etc/default/grub"
ap "$R" setup
grep -q "console=ttyS1,57600 pstore=" "$R/boot/grub/grub.cfg" && grep -q -- "--id apstart-wbinvd0-serial" "$R/boot/grub/grub.cfg" &&
	ok "20_apstart: serial twin on GRUB_APSTART_SERIAL" || fail "20_apstart: serial twin" "" "$(cat "$R/boot/grub/grub.cfg")"
echo 'GRUB_APSTART_DISABLE_SERIAL=true' >>"$R/etc/default/grub"
ap "$R" setup
! grep -q -- "-serial" "$R/boot/grub/grub.cfg" && grep -q -- "--id apstart-wbinvd1 " "$R/boot/grub/grub.cfg" &&
	ok "20_apstart: GRUB_APSTART_DISABLE_SERIAL=true drops the twins" || fail "20_apstart: GRUB_APSTART_DISABLE_SERIAL" "" "$(cat "$R/boot/grub/grub.cfg")"
echo 'GRUB_DISABLE_APSTART=true' >"$R/etc/default/grub.d/local.cfg"
ap "$R" setup
! grep -q "apstart" <(grep menuentry "$R/boot/grub/grub.cfg") && grep -q "GRUB_DISABLE_APSTART=true: no apstart entries" <<<"$OUT" &&
	ok "20_apstart: GRUB_DISABLE_APSTART=true (grub.d) drops every entry, and setup says so" || fail "20_apstart: GRUB_DISABLE_APSTART" "" "$OUT"

# ===== run: what kexec, grub-reboot and systemd are asked

R=$(tree r1 uefi)
set_up "$R"
ap "$R" run -- cycles=2
expect "run (UEFI, kexec): says what it does" 0 "kexec -l .*/boot/apstart-wbinvd0.elf --type multiboot2-x86"
want="kexec -l $R/boot/apstart-wbinvd0.elf --type multiboot2-x86 --command-line=pstore=0x10000000,0x200000 exit=reboot acpi_rsdp=0x3f77d014 firmware=uefi console=ttyS1,115200 cycles=2"
called "$R" "^$want\$" && ok "run (UEFI, kexec): pstore=, exit=reboot, acpi_rsdp= from systab, firmware=uefi, Linux's serial console" ||
	fail "run (UEFI, kexec): kexec's arguments" "" "$(calls_of "$R")" "want: $want"
called "$R" '^systemctl --no-block kexec$' && ok "run: systemctl kexec (a clean shutdown first)" || fail "run: systemctl kexec" "" "$(calls_of "$R")"
grep -q "^nonce=[0-9a-f]\{32\}$" "$R/var/lib/apstart/pending" && grep -q '^mark=written$' "$R/var/lib/apstart/pending" &&
	ok "run: the pending run and its nonce, written in the marker page" || fail "run: pending file" "" "$(cat "$R/var/lib/apstart/pending")"
nonce=$(sed -n 's/^nonce=//p' "$R/var/lib/apstart/pending")
[ "$(dd if="$R/dev/mem" bs=4096 skip=$((0x10200000 / 4096)) count=1 status=none | head -c 45)" = "apstart-mark $nonce" ] &&
	ok "run: marker page at 0x10200000 (after the zone) holds the nonce" || fail "run: marker page" "not found"
ap "$R" collect
expect "collect: a run from this boot is left pending" 0 "a run is pending from this boot"

for i in $(seq 1 899); do echo "processor	: $i"; done >>"$R/proc/cpuinfo"
ap "$R" run -- cycles=10
grep -q "warning: this run prints about 2214 KiB (900 CPUs, cycles=10) and the zone holds 2 MiB: only its end comes back" <<<"$OUT" &&
	ok "run: says when the zone cannot hold the whole run (900 CPUs, cycles=10)" || fail "run: zone too small said" "" "$OUT"

mkdir -p "$R/sys/class/watchdog/watchdog0"
echo active >"$R/sys/class/watchdog/watchdog0/state"
echo 30 >"$R/sys/class/watchdog/watchdog0/timeout"
echo "iTCO_wdt" >"$R/sys/class/watchdog/watchdog0/identity"
ap "$R" run
grep -q "warning: the hardware watchdog watchdog0 (iTCO_wdt) is running (timeout 30 s): it resets the machine" <<<"$OUT" &&
	ok "run: says when a hardware watchdog is running" || fail "run: a running watchdog said" "" "$OUT"

R=$(tree r2 bios)
set_up "$R"
rm -rf "$R/run/systemd"
ap "$R" run --wbinvd 1
called "$R" "^kexec -l $R/boot/apstart-wbinvd1.elf --type multiboot2-x86 --command-line=pstore=0x10000000,0x200000 exit=reboot firmware=bios console=ttyS1,115200$" &&
	called "$R" '^kexec -e$' && ok "run (BIOS, no systemd): no acpi_rsdp=, firmware=bios, kexec -e" || fail "run (BIOS, no systemd)" "" "$(calls_of "$R")"

R=$(tree r3 uefi)
set_up "$R"
ap "$R" run --via grub --wbinvd 1 -- cycles=3
called "$R" '^grub-reboot apstart-wbinvd1$' && called "$R" '^systemctl --no-block reboot$' &&
	grep -q '^next_entry=apstart-wbinvd1$' "$R/boot/grub/grubenv" &&
	grep -q '^apstart_options=exit=reboot console=ttyS1,115200 cycles=3$' "$R/boot/grub/grubenv" &&
	ok "run --via grub: grubenv apstart_options (no second pstore=: the entry has it), grub-reboot apstart-wbinvd1, reboot" ||
	fail "run --via grub" "" "$(calls_of "$R")" "$(cat "$R/boot/grub/grubenv")"
sed -i 's/ pstore=[^ ]*//' "$R/boot/grub/grub.cfg"
ap "$R" run --via grub --wbinvd 1 -- cycles=3
grep -q '^apstart_options=pstore=0x10000000,0x200000 exit=reboot console=ttyS1,115200 cycles=3$' "$R/boot/grub/grubenv" &&
	ok "run --via grub: pstore= through apstart_options when the entry lacks it" || fail "run --via grub: pstore= when the entry lacks it" "" "$(cat "$R/boot/grub/grubenv")"

# ===== run --trampoline: Linux's own blob, kexec --module

R=$(tree t1 bios)
set_up "$R"
rel=$(uname -r)
ap "$R" run --trampoline running -- cycles=2
expect "refused: --trampoline running without /boot/vmlinuz-\$(uname -r)" 3 "refused: --trampoline running: no .*/boot/vmlinuz-$rel"
cp "$VMLINUZ" "$R/boot/vmlinuz-$rel"
ap "$R" run --trampoline running -- cycles=2
lrm=$R/var/lib/apstart/trampoline/vmlinuz-$rel
want="kexec -l $R/boot/apstart-wbinvd0.elf --type multiboot2-x86 --module=$lrm-twin.lrm --command-line=pstore=0x10000000,0x200000 exit=reboot firmware=bios console=ttyS1,115200 trampoline=linux cycles=2"
[ "$RC" = 0 ] && called "$R" "^$want\$" &&
	ok "run --trampoline running: the running kernel's blob, patched (its twin), kexec --module, trampoline=linux" ||
	fail "run --trampoline running: kexec's arguments" "exit $RC" "$OUT" "$(calls_of "$R")" "want: $want"
"$APREALMODE" --check "$lrm-twin.lrm" | grep -q '^state: .*patched' && "$APREALMODE" --check "$lrm.lrm" | grep -q '^state: .*as shipped' &&
	grep -q "^trampoline=$lrm-twin.lrm\$" "$R/var/lib/apstart/pending" &&
	ok "run --trampoline: both LRM files pass aprealmode --check; the pending run names its blob" ||
	fail "run --trampoline: the LRM files and the pending run" "" "$(cat "$R/var/lib/apstart/pending")"
: >"$R.calls"
ap "$R" run --trampoline running --wbinvd 1
called "$R" "^kexec -l $R/boot/apstart-wbinvd1.elf --type multiboot2-x86 --module=$lrm.lrm --command-line=.* trampoline=linux\$" &&
	ok "run --trampoline running --wbinvd 1: the blob as shipped" || fail "run --trampoline --wbinvd 1" "" "$(calls_of "$R")"
: >"$R.calls"
ap "$R" run --trampoline running --via grub
expect "refused: --trampoline via grub" 3 "refused: --trampoline goes via kexec only"
echo "not a kernel" >"$T/notes.txt"
ap "$R" run --trampoline "$T/notes.txt"
expect "refused: --trampoline FILE that is not a kernel, with aprealmode's line" 3 "refused: --trampoline .*notes.txt: .*not a kernel image"
! called "$R" '^kexec -l' && ok "  ... and kexec -l was never called for a refused --trampoline" || fail "  ... kexec not called" "it was" "$(calls_of "$R")"
ap "$R" run --trampoline "$lrm.lrm"
expect "refused: the twin of an LRM file given as it is" 3 "refused: --wbinvd 0 with an LRM file"
R=$(tree t2 bios)
set_up "$R"
cp "$VMLINUZ" "$R/boot/vmlinuz-$rel"
ap "$R" ab 1 --seed 3 --wait 0 --trampoline running -- cycles=1
grep -q "^trampoline=$R/boot/vmlinuz-$rel\$" "$R/var/lib/apstart/session-0001/plan.txt" &&
	called "$R" "^kexec -l $R/boot/apstart-wbinvd[01].elf --type multiboot2-x86 --module=$R/var/lib/apstart/trampoline/vmlinuz-$rel(-twin)?.lrm --command-line=.* trampoline=linux cycles=1\$" &&
	grep -q "A = as shipped (WBINVD), B = its patched twin" <<<"$OUT" &&
	ok "ab --trampoline running: the plan keeps the kernel's file, its first run goes through its blob (kexec --module)" ||
	fail "ab --trampoline running" "" "$OUT" "$(calls_of "$R")" "$(cat "$R/var/lib/apstart/session-0001/plan.txt")"

# ===== collect: the way back

R=$(tree c1 uefi)
set_up "$R"
ap "$R" run -- cycles=2
reboot_with "$R" pstore "$LOGS/smp4.log"
ap "$R" collect --boot
expect "collect: files pstore's record as run-0001.log" 0 "filed .*/var/lib/apstart/run-0001.log \($(wc -c <"$LOGS/smp4.log") bytes, from pstore"
cmp -s "$LOGS/smp4.log" "$R/var/lib/apstart/run-0001.log" && ok "collect: byte for byte what pstore held" || fail "collect: byte for byte" "differs"
[ ! -e "$R/sys/fs/pstore/console-ramoops-0" ] && ok "collect: removed the pstore file after the read-back" || fail "collect: removed the pstore file" "still there"
grep -q '^  Total: ' <<<"$OUT" && grep -q '^  @end status=pass' <<<"$OUT" && ok "collect: prints the run's rows (aplog stats)" || fail "collect: prints the rows" "" "$OUT"
[ ! -f "$R/var/lib/apstart/pending" ] && ok "collect: the pending run is done" || fail "collect: pending" "still there"
called "$R" '^modprobe ramoops$' && ok "collect: loads ramoops (its options from the command line)" || fail "collect: modprobe ramoops" "" "$(calls_of "$R")"
ap "$R" run
reboot_with "$R" pstore "$LOGS/smp4-slow.log"
ap "$R" collect
cmp -s "$LOGS/smp4-slow.log" "$R/var/lib/apstart/run-0002.log" && cmp -s "$LOGS/smp4.log" "$R/var/lib/apstart/run-0001.log" &&
	ok "collect: a second run is run-0002.log, the first untouched" || fail "collect: second run" "" "$OUT"
rm "$R/var/lib/apstart/run-0002.log"
ap "$R" run
reboot_with "$R" pstore "$LOGS/wbinvd0-run1.log"
ap "$R" collect
[ -f "$R/var/lib/apstart/run-0003.log" ] && [ ! -e "$R/var/lib/apstart/run-0002.log" ] &&
	ok "collect: a deleted run's number is never given again (run-0003)" || fail "collect: numbers never reused" "" "$(ls "$R/var/lib/apstart")"

# read-back failure: a cmp that says "differ" keeps the source
ln -s /bin/false "$T/cmp-false" 2>/dev/null
mkdir -p "$T/badcmp"
ln -sf /bin/false "$T/badcmp/cmp"
ap "$R" run
reboot_with "$R" pstore "$LOGS/wbinvd0-run2.log"
OUT=$(timeout 60 env -i PATH="$T/badcmp:$FAKE_BIN:$SAFE" HOME="$T" APSTART_ROOT="$R" FAKE_LOG="$R.calls" APLOG="$APLOG" \
	TMPDIR="$T" bash "$APSTART" collect 2>&1)
RC=$?
expect "collect: a copy that does not read back identical is an error" 1 "does not read back identical"
[ -f "$R/sys/fs/pstore/console-ramoops-0" ] && ok "  ... and the pstore record stays in place" || fail "  ... and the source stays" "removed"
ap "$R" collect
cmp -s "$LOGS/wbinvd0-run2.log" "$R/var/lib/apstart/run-0005.log" && ok "collect: filed on the next try" || fail "collect: filed on the next try" "" "$OUT" "$(ls "$R/var/lib/apstart")"

R=$(tree c2 uefi)
ap "$R" setup
: >"$R.calls"
printf '%s\n' "$(cat "$R/etc/default/grub")" >/dev/null
reboot_with "$R" nvram "$LOGS/wbinvd0-run1.log"
ap "$R" collect
cmp -s "$LOGS/wbinvd0-run1.log" "$R/var/lib/apstart/run-0001.log" && ok "collect: NVRAM summary of two parts joined, 4 attribute bytes off" ||
	fail "collect: NVRAM summary" "" "$OUT"
[ ! -e "$R/sys/firmware/efi/efivars/ApstartResults-$GUID" ] && [ ! -e "$R/sys/firmware/efi/efivars/ApstartResults1-$GUID" ] &&
	called "$R" "^chattr -i .*ApstartResults-$GUID" && ok "collect: NVRAM variables removed (chattr -i first)" || fail "collect: NVRAM removed" "" "$(calls_of "$R")"
echo tail >"$T/part2"
efivar "$R" "ApstartResults2-$GUID" "$T/part2"
ap "$R" collect
[ ! -e "$R/sys/firmware/efi/efivars/ApstartResults2-$GUID" ] && grep -q "without its first part" <<<"$OUT" &&
	ok "collect: parts without part 0 (a save cut short) deleted" || fail "collect: orphan parts" "" "$OUT"

# grub run on UEFI: pstore and NVRAM both, the same run
R=$(tree c3 uefi)
set_up "$R"
ap "$R" run --via grub
reboot_with "$R" pstore "$LOGS/smp4.log"
reboot_with "$R" nvram "$LOGS/smp4-slow.log"
ap "$R" collect
[ -f "$R/var/lib/apstart/run-0001.log" ] && [ -f "$R/var/lib/apstart/run-0001.nvram.log" ] &&
	! grep -q apstart_options "$R/boot/grub/grubenv" &&
	ok "collect (grub run): pstore record and its NVRAM summary filed together; apstart_options cleared" || fail "collect (grub run)" "" "$OUT"

# nothing came back: the marker tells RAM kept from RAM cleared
R=$(tree c4 uefi)
set_up "$R"
ap "$R" run
reboot_with "$R" nothing
ap "$R" collect
expect "collect: nothing back, marker kept: the kernel did not finish" 0 "RAM survived the reset \(the marker is there\): the kernel did not get to write them"
ap "$R" run
reboot_with "$R" cleared
ap "$R" collect
expect "collect: nothing back, marker gone: this reset does not keep RAM" 0 "marker page is gone: this machine's reset did not keep RAM"

# ===== ab: the session

R=$(tree a0 uefi)
set_up "$R"
ap "$R" ab 10 --seed 1 --wait 0 --via kexec
order=$(sed -n 's/^order=//p' "$R"/var/lib/apstart/session-0001/plan.txt)
[ "$order" = BAABBABAABBABAABABBA ] && ok "ab: seed 1 gives apstart.efi's order (boot/efi/plan.c) BAABBABAABBABAABABBA" ||
	fail "ab: the order of seed 1" "got $order"
grep -q "how long: " <<<"$OUT" && grep -q "to stop it: 'apstart ab --stop'" <<<"$OUT" && ok "ab: says how long and how to stop before it starts" ||
	fail "ab: says how long and how to stop" "" "$OUT"
ap "$R" run
expect "refused: apstart run during a session" 3 "refused: the A/B session session-0001 is under way"

R=$(tree a1 uefi)
set_up "$R"
ap "$R" ab 2 --seed 7 --wait 0 -- cycles=1
expect "ab 2: starts run 1 at once (--wait 0)" 0 "session-0001: run 1 of 4"
order=$(sed -n 's/^order=//p' "$R"/var/lib/apstart/session-0001/plan.txt)
logs_a=("$LOGS/smp4.log" "$LOGS/smp4-slow.log") logs_b=("$LOGS/wbinvd0-run1.log" "$LOGS/wbinvd0-run2.log")
ia=0 ib=0
# each boot: the record of the variant that ran comes back; collect (the
# early unit), then ab --continue (the session unit)
for i in 1 2 3 4; do
	x=${order:i-1:1}
	if [ "$x" = A ]; then f=${logs_a[ia]}; ia=$((ia + 1)); else f=${logs_b[ib]}; ib=$((ib + 1)); fi
	grep -q "wbinvd=$( [ "$x" = A ] && echo 1 || echo 0)" "$R/var/lib/apstart/pending" ||
		fail "ab: run $i is variant $x" "pending: $(cat "$R/var/lib/apstart/pending")"
	if [ $i = 3 ]; then
		reboot_with "$R" cleared   # a power cut during run 3
	else
		reboot_with "$R" pstore "$f"
	fi
	[ $i = 1 ] && cp "$R/var/lib/apstart/pending" "$T/pending-run1"
	ap "$R" collect --boot
	if [ $i = 1 ]; then
		# A power cut right after collect brings back the pending file
		# whose removal had not reached the disk (seen in the long lane):
		# the next collect must see run 1 filed, not interrupted.
		cp "$T/pending-run1" "$R/var/lib/apstart/pending"
		reboot_with "$R" cleared
		ap "$R" collect --boot
		if grep -q "is stale (that run is filed): removed" <<<"$OUT" && [ ! -e "$R/var/lib/apstart/pending" ] &&
			! ls "$R"/var/lib/apstart/session-0001/run-001-*.interrupted >/dev/null 2>&1; then
			ok "collect: a pending file back after a power cut, its run filed: said stale, removed, not interrupted"
		else
			fail "collect: a stale pending file" "" "$OUT" "$(ls "$R/var/lib/apstart/session-0001")"
		fi
	fi
	ap "$R" ab --continue
	if [ $i = 2 ]; then
		# the machine goes down after the .started file, before leaving Linux
		rm -f "$R/var/lib/apstart/pending"
		sleep 1; echo "0.50 0.50" >"$R/proc/uptime"
		ap "$R" ab --continue
	fi
done
S=$R/var/lib/apstart/session-0001
n_log=$(find "$S" -name 'run-*.log' ! -name '*.nvram.log' | wc -l)
if [ "$n_log" = 3 ] && [ "$(ls "$S"/*.interrupted | wc -l)" = 1 ] && [ -f "$S/run-003-${order:2:1}-wbinvd$( [ "${order:2:1}" = A ] && echo 1 || echo 0).interrupted" ]; then
	ok "ab 2: 3 runs filed, run 3 (power cut) interrupted and not repeated"
else
	fail "ab 2: runs filed" "" "$(ls "$S")" "$(cat "$S/plan.txt")"
fi
grep -q "not run (the machine went down before it left Linux): run again" "$S/plan.txt" &&
	ok "ab 2: a run that never left Linux is run again, not counted" || fail "ab 2: run again" "" "$(cat "$S/plan.txt")"
grep -q '^state=done$' "$S/plan.txt" && [ ! -e "$R/var/lib/apstart/session-running" ] && ok "ab 2: done" || fail "ab 2: done" "" "$(cat "$S/plan.txt")"
if grep -q '^Offline: ' "$S/table.txt" && grep -q '^Online: ' "$S/table.txt" && grep -q '^Total: ' "$S/table.txt" && grep -q '^Verdict:' "$S/table.txt"; then
	ok "ab 2: table.txt has the three rows and the verdict"
	[ "$(stat -c %a "$S/table.txt") $(stat -c %a "$S/plan.txt") $(stat -c %a "$S"/run-001-*.log)" = "644 644 644" ] &&
		ok "ab 2: the session's files are readable by all (0644)" || fail "ab 2: file modes" "$(ls -l "$S")"
else
	fail "ab 2: table.txt" "" "$(cat "$S/table.txt" 2>/dev/null)"
fi
direct=$("$APLOG" compare "$S" 2>/dev/null | grep -E '^(Offline|Online|Total):')
[ -n "$direct" ] && [ "$direct" = "$(grep -E '^(Offline|Online|Total):' "$S/table.txt")" ] &&
	ok "ab 2: the rows are aplog compare's on the session folder" || fail "ab 2: rows = aplog compare" "" "$direct"
grep -q "^  Total:" <<<"$OUT" || grep -q "Total:" <<<"$OUT" && ok "ab 2: the table is printed at the end" || fail "ab 2: table printed" "" "$OUT"

# stop and resume
R=$(tree a2 bios)
set_up "$R"
ap "$R" ab 1 --seed 3 --wait 0
reboot_with "$R" pstore "$LOGS/wbinvd0-run1.log"
ap "$R" collect --boot
ap "$R" ab --stop
expect "ab --stop" 0 "session-0001 stopped"
: >"$R.calls"
ap "$R" ab --continue
! called "$R" '^kexec' && ok "ab: a stopped session starts no run at boot" || fail "ab: stopped session" "" "$(calls_of "$R")"
ap "$R" ab --resume --wait 0
expect "ab --resume goes on" 0 "session-0001 resumed"
called "$R" '^kexec -l' && ok "  ... with the next run" || fail "  ... with the next run" "" "$(calls_of "$R")"

# ===== undo, secure boot

R=$(tree u1 uefi)
set_up "$R"
ap "$R" setup --undo
[ ! -e "$R/etc/default/grub.d/apstart.cfg" ] && called "$R" '^update-grub$' && ! grep -q memmap "$R/boot/grub/grub.cfg" &&
	ok "setup --undo: the reservation removed, grub.cfg written again" || fail "setup --undo" "" "$OUT"

R=$(tree k1 uefi)
ap "$R" setup --secure-boot
expect "refused: --secure-boot without a certificate" 3 "refused: no certificate given and none installed"
echo "-----BEGIN CERTIFICATE-----" >"$T/c.pem"
ap "$R" setup --secure-boot --cert "$T/c.pem"
expect "refused: --secure-boot with a PEM file" 3 "is not a DER certificate"
printf '\060\202\003\001' >"$T/c.der"
ap "$R" setup --secure-boot --cert "$T/c.der"
expect "setup --secure-boot: says what MokManager will ask" 0 "Enroll MOK"
called "$R" "^mokutil --import $T/c.der$" && ok "setup --secure-boot: mokutil --import CERT" || fail "setup --secure-boot: mokutil --import" "" "$(calls_of "$R")"
: >"$R.calls"
FAKE_ENV=(FAKE_MOK_ENROLLED=1)
ap "$R" setup --secure-boot --cert "$T/c.der"
FAKE_ENV=()
! called "$R" '^mokutil --import' && grep -q "already enrolled" <<<"$OUT" && ok "setup --secure-boot: an enrolled key is not imported again" ||
	fail "setup --secure-boot: already enrolled" "" "$OUT"
mkdir -p "$R/usr/share/apstart"
cp "$T/c.der" "$R/usr/share/apstart/apstart-mok.der"
: >"$R.calls"
ap "$R" setup --secure-boot
called "$R" "^mokutil --import $R/usr/share/apstart/apstart-mok.der$" &&
	ok "setup --secure-boot: the package's certificate (/usr/share/apstart/apstart-mok.der) by default" ||
	fail "setup --secure-boot: the installed certificate" "" "$OUT" "$(calls_of "$R")"
R=$(tree k2 bios)
ap "$R" setup --secure-boot --cert "$T/c.der"
expect "refused: --secure-boot on a BIOS machine" 3 "refused: this machine booted through BIOS"

# ===== the scripts themselves
if command -v shellcheck >/dev/null; then
	check "shellcheck: apstart, its lib/, these tests" \
		shellcheck -S warning -s bash -e SC2034,SC2154,SC2120,SC2119,SC2015,SC2012 "$APSTART" "$ROOT_DIR"/tools/linux/apstart/lib/*.sh "$0"
	check "shellcheck: install.sh, mkdeb.sh, the package, VM and long lanes' scripts" \
		shellcheck -S warning -x "$ROOT_DIR"/tools/linux/install.sh "$ROOT_DIR"/tools/linux/deb/mkdeb.sh "$HERE"/deb.sh \
		"$HERE"/deb-root.sh "$HERE"/vm.sh "$ROOT_DIR"/tests/linux-session/*.sh
	check "shellcheck: 20_apstart, the maintainer scripts, the VM's init as sh" shellcheck -S warning -s sh "$GRUB_SCRIPT" \
		"$ROOT_DIR"/tools/linux/deb/postinst "$ROOT_DIR"/tools/linux/deb/prerm "$ROOT_DIR"/tools/linux/deb/postrm \
		"$HERE"/vm-init "$HERE"/vm-modprobe
else
	skip "shellcheck" "shellcheck is not installed (apt-get install shellcheck)"
fi

summary linux-tool
