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
# APSTART=, GRUB_SCRIPT=: another copy's (an older commit's, to show a
# new check failing there).
APSTART=${APSTART:-$ROOT_DIR/tools/linux/apstart/apstart}
GRUB_SCRIPT=${GRUB_SCRIPT:-$ROOT_DIR/tools/linux/grub/90_apstart}
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
# a run id as apstart run makes them (lib/run.sh new_run_id), for regexes
RID='r[0-9]{8}T[0-9]{6}-[0-9a-f]{8}'
MENU_AWK=$ROOT_DIR/tools/linux/apstart/lib/grub-menu.awk

# ---- fake machines

# tree NAME uefi|bios: a fresh machine, set up as Debian 12 on a 2 GiB box
# with GRUB, apstart installed, not yet set up. Prints its root. Each is a
# copy (a boot of its own) of one built per firmware by tree_build.
tree() {
	local r=$T/$1 tpl=$T/.fresh-$2
	[ -d "$tpl" ] || tree_build "$tpl" "$2"
	rm -rf "$r" "$r.calls"
	cp -a "$tpl" "$r"
	new_boot_id "$r"
	echo "$r"
}
# set_up_tree NAME uefi|bios: tree NAME with set_up done. The setup runs
# once per firmware, on a machine of its own; each is a copy of it.
set_up_tree() {
	local r=$T/$1 tpl=$T/.set-up-$2
	if [ ! -d "$tpl" ]; then
		tree "${tpl##*/}" "$2" >/dev/null
		set_up "$tpl"
	fi
	rm -rf "$r" "$r.calls"
	cp -a "$tpl" "$r"
	: >"$r.calls"
	new_boot_id "$r"
	echo "$r"
}
# tree_build ROOT uefi|bios: the machine that tree copies.
tree_build() {
	local r=$1 fw=$2
	mkdir -p "$r"/{proc/sys/kernel/random,sys/firmware/memmap,sys/kernel/security,sys/fs/pstore,sys/module/pstore/parameters} \
		"$r"/{boot/grub,etc/default/grub.d,etc/grub.d,var/lib,dev,run/systemd/system}
	echo "BOOT_IMAGE=/boot/vmlinuz-6.1.0-35-amd64 root=UUID=1234 ro console=tty0 console=ttyS1,115200n8 quiet" >"$r/proc/cmdline"
	printf '%s\n' "/dev/sda2 / ext4 rw,relatime 0 0" "/dev/sda1 /boot/efi vfat rw,relatime 0 0" \
		"proc /proc proc rw 0 0" >"$r/proc/mounts"
	printf '%s\n' "00000000-00000fff : Reserved" "00001000-0009fbff : System RAM" \
		"000f0000-000fffff : Reserved" "00100000-7ffdffff : System RAM" \
		"  01000000-01ffffff : Kernel code" "7ffe0000-7fffffff : Reserved" "fee00000-fee00fff : Local APIC" >"$r/proc/iomem"
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
	printf '%s\n' 'GRUB_DEFAULT=0' 'GRUB_TIMEOUT=5' 'GRUB_CMDLINE_LINUX_DEFAULT="quiet"' 'GRUB_CMDLINE_LINUX="console=tty0 console=ttyS1,115200n8"' >"$r/etc/default/grub"
	cp "$GRUB_SCRIPT" "$r/etc/grub.d/${GRUB_SCRIPT##*/}"
	cp "$HERE/fake-grub.d/10_linux" "$HERE/fake-grub.d/41_custom" "$r/etc/grub.d/"
	chmod 755 "$r"/etc/grub.d/*
	truncate -s 4G "$r/dev/mem"
	grub_mkconfig "$r"
}
# grub_mkconfig ROOT: grub.cfg written as update-grub does (the package's
# postinst did so), without recording a call.
grub_mkconfig() {
	APSTART_ROOT=$1 FAKE_LOG=/dev/null FAKE_GRUB_LIB="$HERE/grub-mkconfig_lib-stub" FAKE_MENU_AWK="$MENU_AWK" \
		PATH="$FAKE_BIN:$SAFE" "$FAKE_BIN/update-grub" 2>"$T/mkconfig.err"
}
# menu_entry ROOT N: the id (else the title) of grub.cfg's top-level entry
# N, as GRUB numbers them for GRUB_DEFAULT=N.
menu_entry() {
	awk -f "$MENU_AWK" -v custom="$1/boot/grub/custom.cfg" "$1/boot/grub/grub.cfg" |
		awk -F '\t' -v n="$2" '$1 == n { print ($3 != "" ? $3 : $4) }'
}
# pending ROOT KEY: a value of the run in flight's file.
pending() { sed -n "s/^$2=//p" "$1/var/lib/apstart/pending" 2>/dev/null; }
set_default() { # ROOT VALUE: GRUB_DEFAULT in the fake /etc/default/grub
	sed -i "s|^GRUB_DEFAULT=.*|GRUB_DEFAULT=\"$2\"|" "$1/etc/default/grub"
}
memmap_entry() { # ROOT N START END TYPE
	mkdir -p "$1/sys/firmware/memmap/$2"
	echo "$3" >"$1/sys/firmware/memmap/$2/start"
	echo "$4" >"$1/sys/firmware/memmap/$2/end"
	echo "$5" >"$1/sys/firmware/memmap/$2/type"
}
new_boot_id() { # ROOT: a boot of its own (/proc/sys/kernel/random/boot_id)
	od -An -tx1 -N16 /dev/urandom | tr -d ' \n' |
		sed 's/^\(.\{8\}\)\(.\{4\}\)\(.\{4\}\)\(.\{4\}\)/\1-\2-\3-\4-/' >"$1/proc/sys/kernel/random/boot_id"
	echo >>"$1/proc/sys/kernel/random/boot_id"
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
		APLOG="$APLOG" APREALMODE="$APREALMODE" FAKE_GRUB_LIB="$HERE/grub-mkconfig_lib-stub" FAKE_MENU_AWK="$MENU_AWK" TMPDIR="$T" \
		APSTART_LEAVE_WAIT=0 ${FAKE_ENV[@]+"${FAKE_ENV[@]}"} bash "$APSTART" "$@" 2>&1)
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

# stamp FILE ID: FILE as the kernel prints it when given run_id=ID: @boot
# and @end end with run_id=ID (before a CR LF's CR); ID none: as given.
stamp() {
	if [ "$2" = none ]; then cat "$1"; return; fi
	sed -E "s/^(@(boot|end) .*[^\r])(\r?)\$/\1 run_id=$2\3/" "$1"
}

# reboot_with ROOT pstore|nvram|nothing|cleared [FILE [RUN-ID]]: what the
# next boot finds: the records in pstore (ramoops' console file), the
# summary in NVRAM (two parts), nothing (RAM kept: the marker is there),
# or nothing with RAM cleared. The records carry the pending run's id, as
# the kernel prints the run_id= it was given (RUN-ID: another, or none);
# $T/record is what was planted. A new boot: boot_id and uptime change.
reboot_with() {
	local r=$1 how=$2 file=${3:-} id=${4:-}
	[ -n "$id" ] || id=$(sed -n 's/^run_id=//p' "$r/var/lib/apstart/pending" 2>/dev/null)
	[ -n "$file" ] && stamp "$file" "${id:-none}" >"$T/record"
	case $how in
	pstore) cp "$T/record" "$r/sys/fs/pstore/console-ramoops-0" ;;
	nvram)
		local n
		n=$(($(wc -c <"$T/record") / 2))
		head -c $n "$T/record" >"$T/part0"
		tail -c +$((n + 1)) "$T/record" >"$T/part1"
		efivar "$r" "ApstartResults-$GUID" "$T/part0"
		efivar "$r" "ApstartResults1-$GUID" "$T/part1"
		;;
	cleared) dd if=/dev/zero of="$r/dev/mem" bs=4096 seek=$((0x10200000 / 4096)) count=1 conv=notrunc status=none ;;
	esac
	echo "0.50 0.50" >"$r/proc/uptime"
	new_boot_id "$r"
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
grub_mkconfig "$R"
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

R=$(set_up_tree r1 uefi)
ap "$R" run -- cycles=2
expect "run (UEFI, kexec): says what it does" 0 "kexec -l .*/boot/apstart-wbinvd0.elf --type multiboot2-x86"
want="kexec -l $R/boot/apstart-wbinvd0.elf --type multiboot2-x86 --command-line=pstore=0x10000000,0x200000 exit=reboot acpi_rsdp=0x3f77d014 firmware=uefi console=ttyS1,115200 run_id=$RID cycles=2"
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

R=$(set_up_tree r2 bios)
rm -rf "$R/run/systemd"
ap "$R" run --wbinvd 1
called "$R" "^kexec -l $R/boot/apstart-wbinvd1.elf --type multiboot2-x86 --command-line=pstore=0x10000000,0x200000 exit=reboot firmware=bios console=ttyS1,115200 run_id=$RID\$" &&
	called "$R" '^kexec -e$' && ok "run (BIOS, no systemd): no acpi_rsdp=, firmware=bios, kexec -e" || fail "run (BIOS, no systemd)" "" "$(calls_of "$R")"

R=$(set_up_tree r3 uefi)
ap "$R" run --via grub --wbinvd 1 -- cycles=3
called "$R" '^grub-reboot apstart-wbinvd1$' && called "$R" '^systemctl --no-block reboot$' &&
	grep -q '^next_entry=apstart-wbinvd1$' "$R/boot/grub/grubenv" &&
	grep -Eq "^apstart_options=exit=reboot console=ttyS1,115200 run_id=$RID cycles=3\$" "$R/boot/grub/grubenv" &&
	ok "run --via grub: grubenv apstart_options (no second pstore=: the entry has it), grub-reboot apstart-wbinvd1, reboot" ||
	fail "run --via grub" "" "$(calls_of "$R")" "$(cat "$R/boot/grub/grubenv")"
sed -i 's/ pstore=[^ ]*//' "$R/boot/grub/grub.cfg"
ap "$R" run --via grub --wbinvd 1 -- cycles=3
grep -Eq "^apstart_options=pstore=0x10000000,0x200000 exit=reboot console=ttyS1,115200 run_id=$RID cycles=3\$" "$R/boot/grub/grubenv" &&
	ok "run --via grub: pstore= through apstart_options when the entry lacks it" || fail "run --via grub: pstore= when the entry lacks it" "" "$(cat "$R/boot/grub/grubenv")"

# ===== run --trampoline: Linux's own blob, kexec --module

R=$(set_up_tree t1 bios)
rel=$(uname -r)
ap "$R" run --trampoline running -- cycles=2
expect "refused: --trampoline running without /boot/vmlinuz-\$(uname -r)" 3 "refused: --trampoline running: no .*/boot/vmlinuz-$rel"
cp "$VMLINUZ" "$R/boot/vmlinuz-$rel"
ap "$R" run --trampoline running -- cycles=2
lrm=$R/var/lib/apstart/trampoline/vmlinuz-$rel
want="kexec -l $R/boot/apstart-wbinvd0.elf --type multiboot2-x86 --module=$lrm-twin.lrm --command-line=pstore=0x10000000,0x200000 exit=reboot firmware=bios console=ttyS1,115200 trampoline=linux run_id=$RID cycles=2"
[ "$RC" = 0 ] && called "$R" "^$want\$" &&
	ok "run --trampoline running: the running kernel's blob, patched (its twin), kexec --module, trampoline=linux" ||
	fail "run --trampoline running: kexec's arguments" "exit $RC" "$OUT" "$(calls_of "$R")" "want: $want"
"$APREALMODE" --check "$lrm-twin.lrm" | grep -q '^state: .*patched' && "$APREALMODE" --check "$lrm.lrm" | grep -q '^state: .*as shipped' &&
	grep -q "^trampoline=$lrm-twin.lrm\$" "$R/var/lib/apstart/pending" &&
	ok "run --trampoline: both LRM files pass aprealmode --check; the pending run names its blob" ||
	fail "run --trampoline: the LRM files and the pending run" "" "$(cat "$R/var/lib/apstart/pending")"
: >"$R.calls"
ap "$R" run --trampoline running --wbinvd 1
called "$R" "^kexec -l $R/boot/apstart-wbinvd1.elf --type multiboot2-x86 --module=$lrm.lrm --command-line=.* trampoline=linux run_id=$RID\$" &&
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
R=$(set_up_tree t2 bios)
cp "$VMLINUZ" "$R/boot/vmlinuz-$rel"
ap "$R" ab 1 --seed 3 --wait 0 --trampoline running -- cycles=1
grep -q "^trampoline=$R/boot/vmlinuz-$rel\$" "$R/var/lib/apstart/session-0001/plan.txt" &&
	called "$R" "^kexec -l $R/boot/apstart-wbinvd[01].elf --type multiboot2-x86 --module=$R/var/lib/apstart/trampoline/vmlinuz-$rel(-twin)?.lrm --command-line=.* trampoline=linux run_id=$RID cycles=1\$" &&
	grep -q "A = as shipped (WBINVD), B = its patched twin" <<<"$OUT" &&
	ok "ab --trampoline running: the plan keeps the kernel's file, its first run goes through its blob (kexec --module)" ||
	fail "ab --trampoline running" "" "$OUT" "$(calls_of "$R")" "$(cat "$R/var/lib/apstart/session-0001/plan.txt")"

# ===== collect: the way back

R=$(set_up_tree c1 uefi)
ap "$R" run -- cycles=2
reboot_with "$R" pstore "$LOGS/smp4.log"
ap "$R" collect --boot
expect "collect: files pstore's record as run-0001.log" 0 "filed .*/var/lib/apstart/run-0001.log \($(wc -c <"$T/record") bytes, from pstore"
cp "$T/record" "$T/record1"
cmp -s "$T/record1" "$R/var/lib/apstart/run-0001.log" && ok "collect: byte for byte what pstore held" || fail "collect: byte for byte" "differs"
[ ! -e "$R/sys/fs/pstore/console-ramoops-0" ] && ok "collect: removed the pstore file after the read-back" || fail "collect: removed the pstore file" "still there"
grep -q '^  Total: ' <<<"$OUT" && grep -q '^  @end status=pass' <<<"$OUT" && ok "collect: prints the run's rows (aplog stats)" || fail "collect: prints the rows" "" "$OUT"
[ ! -f "$R/var/lib/apstart/pending" ] && ok "collect: the pending run is done" || fail "collect: pending" "still there"
called "$R" '^modprobe ramoops$' && ok "collect: loads ramoops (its options from the command line)" || fail "collect: modprobe ramoops" "" "$(calls_of "$R")"
ap "$R" run
reboot_with "$R" pstore "$LOGS/smp4-slow.log"
ap "$R" collect
cmp -s "$T/record" "$R/var/lib/apstart/run-0002.log" && cmp -s "$T/record1" "$R/var/lib/apstart/run-0001.log" &&
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
cmp -s "$T/record" "$R/var/lib/apstart/run-0005.log" && ok "collect: filed on the next try" || fail "collect: filed on the next try" "" "$OUT" "$(ls "$R/var/lib/apstart")"

R=$(tree c2 uefi)
ap "$R" setup
: >"$R.calls"
printf '%s\n' "$(cat "$R/etc/default/grub")" >/dev/null
reboot_with "$R" nvram "$LOGS/wbinvd0-run1.log"
ap "$R" collect
cmp -s "$T/record" "$R/var/lib/apstart/run-0001.log" && ok "collect: NVRAM summary of two parts joined, 4 attribute bytes off" ||
	fail "collect: NVRAM summary" "" "$OUT"
[ ! -e "$R/sys/firmware/efi/efivars/ApstartResults-$GUID" ] && [ ! -e "$R/sys/firmware/efi/efivars/ApstartResults1-$GUID" ] &&
	called "$R" "^chattr -i .*ApstartResults-$GUID" && ok "collect: NVRAM variables removed (chattr -i first)" || fail "collect: NVRAM removed" "" "$(calls_of "$R")"
echo tail >"$T/part2"
efivar "$R" "ApstartResults2-$GUID" "$T/part2"
ap "$R" collect
[ ! -e "$R/sys/firmware/efi/efivars/ApstartResults2-$GUID" ] && grep -q "without its first part" <<<"$OUT" &&
	ok "collect: parts without part 0 (a save cut short) deleted" || fail "collect: orphan parts" "" "$OUT"

# grub run on UEFI: pstore and NVRAM both, the same run
R=$(set_up_tree c3 uefi)
ap "$R" run --via grub
reboot_with "$R" pstore "$LOGS/smp4.log"
reboot_with "$R" nvram "$LOGS/smp4-slow.log"
ap "$R" collect
[ -f "$R/var/lib/apstart/run-0001.log" ] && [ -f "$R/var/lib/apstart/run-0001.nvram.log" ] &&
	! grep -q apstart_options "$R/boot/grub/grubenv" &&
	ok "collect (grub run): pstore record and its NVRAM summary filed together; apstart_options cleared" || fail "collect (grub run)" "" "$OUT"

# nothing came back: the marker tells RAM kept from RAM cleared
R=$(set_up_tree c4 uefi)
ap "$R" run
reboot_with "$R" nothing
ap "$R" collect
expect "collect: nothing back, marker kept: the kernel did not finish" 0 "RAM survived the reset \(the marker is there\): the kernel did not get to write them"
ap "$R" run
reboot_with "$R" cleared
ap "$R" collect
expect "collect: nothing back, marker gone: this reset does not keep RAM" 0 "marker page is gone: this machine's reset did not keep RAM"

# ===== ab: the session

R=$(set_up_tree a0 uefi)
ap "$R" ab 10 --seed 1 --wait 0 --via kexec
order=$(sed -n 's/^order=//p' "$R"/var/lib/apstart/session-0001/plan.txt)
[ "$order" = BAABBABAABBABAABABBA ] && ok "ab: seed 1 gives apstart.efi's order (boot/efi/plan.c) BAABBABAABBABAABABBA" ||
	fail "ab: the order of seed 1" "got $order"
grep -q "how long: " <<<"$OUT" && grep -q "to stop it: 'apstart ab --stop'" <<<"$OUT" && ok "ab: says how long and how to stop before it starts" ||
	fail "ab: says how long and how to stop" "" "$OUT"
ap "$R" run
expect "refused: apstart run during a session" 3 "refused: the A/B session session-0001 is under way"

R=$(set_up_tree a1 uefi)
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
		echo "0.50 0.50" >"$R/proc/uptime"; new_boot_id "$R"
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
R=$(set_up_tree a2 bios)
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

R=$(set_up_tree u1 uefi)
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

# ===== GRUB's default entry is never one of apstart's (issue 38)
# An apstart entry booted by default halts the machine at every boot. The
# entries come after every other script's (90_apstart), so a number that
# pointed at another entry still does, after apt install and after setup.
R=$(tree d1 uefi)
cp "$HERE/fake-grub.d/20_memtest86+" "$R/etc/grub.d/"
set_default "$R" 2
grub_mkconfig "$R"
[ "$(menu_entry "$R" 2)" = memtest86+ ] &&
	ok "GRUB_DEFAULT=2 (memtest86+'s entry): still memtest86+ once apstart's entries are in (apt install)" ||
	fail "GRUB_DEFAULT=2 after apt install" "entry 2 is $(menu_entry "$R" 2)" "$(grep -E '^(menuentry|submenu)' "$R/boot/grub/grub.cfg")"
ap "$R" setup
[ "$RC" = 0 ] && [ "$(menu_entry "$R" 2)" = memtest86+ ] &&
	ok "GRUB_DEFAULT=2 (memtest86+'s entry): setup goes on, entry 2 still memtest86+" ||
	fail "GRUB_DEFAULT=2 after setup" "exit $RC, entry 2 is $(menu_entry "$R" 2)" "$OUT"
# A number past the other entries (memtest86+ removed since: GRUB booted
# entry 0 for it) would be apstart's first entry: none is written, and
# setup refuses before it changes anything.
R=$(tree d2 uefi)
set_default "$R" 2
grub_mkconfig "$R"
! grep -q 'menuentry .*apstart' "$R/boot/grub/grub.cfg" && grep -q "90_apstart: GRUB_DEFAULT=2 would boot the apstart entry apstart-wbinvd0 at every boot" "$T/mkconfig.err" &&
	ok "90_apstart: GRUB_DEFAULT=2 past the other entries: no apstart entries written, and update-grub says why" ||
	fail "90_apstart: GRUB_DEFAULT=2 past the other entries" "entry 2 is $(menu_entry "$R" 2)" "$(cat "$T/mkconfig.err")"
ap "$R" setup
expect "refused: GRUB_DEFAULT=2 would be apstart's entry" 3 "refused: GRUB_DEFAULT=2 .* is past grub.cfg's 2 entries .*would be entry 2: every boot would start apstart's kernel"
[ ! -e "$R/etc/default/grub.d/apstart.cfg" ] && ! called "$R" '^update-grub' && ok "  ... and nothing was changed" ||
	fail "  ... and nothing was changed" "" "$(calls_of "$R")"
ap "$R" run --via grub
expect "refused: run --via grub says why the entries are missing" 3 "grub.cfg has no menu entry 'apstart-wbinvd0' \(GRUB_DEFAULT=2 .*would be entry 2, so 90_apstart writes none\)"
set_default "$R" "2>0"
ap "$R" setup
expect "refused: GRUB_DEFAULT=\"2>0\" (its first part counts)" 3 "refused: GRUB_DEFAULT=2>0 .*would be entry 2"
R=$(tree d3 uefi)
set_default "$R" saved
grub-editenv "$R/boot/grub/grubenv" set saved_entry=apstart-wbinvd1
ap "$R" setup
expect "refused: GRUB_DEFAULT=saved, saved_entry=apstart-wbinvd1" 3 "refused: GRUB_DEFAULT=saved, and saved_entry=apstart-wbinvd1 in .*grubenv \(grub-set-default\) boots entry [0-9] of grub.cfg"
set_default "$R" "apstart: AP start-up timing (patched, no WBINVD)"
grub-editenv "$R/boot/grub/grubenv" unset saved_entry
ap "$R" setup
expect "refused: GRUB_DEFAULT naming apstart's entry by its title" 3 "refused: GRUB_DEFAULT=apstart: AP start-up timing \(patched, no WBINVD\) .*every boot"
set_default "$R" "1>0"
ap "$R" setup
expect "not refused: GRUB_DEFAULT=\"1>0\" (the Advanced submenu's first entry)" 0 "ONE REBOOT"
# custom.cfg's entries count where 41_custom sources them; os-prober's too
R=$(tree d4 uefi)
cp "$HERE/fake-grub.d/30_os-prober" "$R/etc/grub.d/"
printf '%s\n' "menuentry 'Rescue shell (custom.cfg)' {" "	linux /vmlinuz init=/bin/sh" "}" >"$R/boot/grub/custom.cfg"
set_default "$R" 3
grub_mkconfig "$R"
ap "$R" setup
[ "$RC" = 0 ] && [ "$(menu_entry "$R" 3)" = "Rescue shell (custom.cfg)" ] && [ "$(menu_entry "$R" 2)" = osprober-efi-ABCD-1234 ] &&
	ok "GRUB_DEFAULT=3 (custom.cfg's entry after os-prober's): setup goes on, entry 3 still custom.cfg's" ||
	fail "GRUB_DEFAULT=3, custom.cfg" "exit $RC, entry 2 $(menu_entry "$R" 2), entry 3 $(menu_entry "$R" 3)" "$OUT"

# ===== setup --address: only RAM Linux can spare
R=$(tree x1 uefi)
sed -i 's/^  01000000-01ffffff : Kernel code$/&\n  20000000-27ffffff : Crash kernel/' "$R/proc/iomem"
ap "$R" setup --address 0
expect "refused: --address 0 (the first MiB: Linux's real-mode trampoline)" 3 "refused: --address 0x0: 3 MiB there cannot hold the records: it starts in the first MiB .*real-mode trampoline"
ap "$R" setup --address 0x1000
expect "refused: --address 0x1000 (the first MiB)" 3 "refused: --address 0x1000: .*first MiB"
ap "$R" setup --address 0xfee00000
expect "refused: --address 0xfee00000 (the local APIC: MMIO, no RAM)" 3 "refused: --address 0xfee00000: .*is not wholly RAM in the firmware's map \(/sys/firmware/memmap: no entry: MMIO.*/proc/iomem: 0xfee00000-0xfee00fff Local APIC"
ap "$R" setup --address 0x7ff00000
expect "refused: --address over the firmware's reserved range" 3 "refused: --address 0x7ff00000: .*not wholly RAM .*Reserved 0x7ffe0000-0x7fffffff"
ap "$R" setup --address 0x1000000
expect "refused: --address over the running kernel" 3 "refused: --address 0x1000000: .*it overlaps Kernel code at 0x1000000-0x1ffffff"
ap "$R" setup --address 0x21000000
expect "refused: --address over the crash kernel" 3 "refused: --address 0x21000000: .*it overlaps Crash kernel at 0x20000000-0x27ffffff"
[ ! -e "$R/etc/default/grub.d/apstart.cfg" ] && ! called "$R" '^update-grub' && ok "  ... and none of them changed anything" ||
	fail "  ... and none of them changed anything" "" "$(calls_of "$R")"
ap "$R" setup --address 0x30000000
expect "setup --address 0x30000000 (RAM, clear of both)" 0 "region: 3 MiB at 0x30000000 \(--address; RAM in the firmware's map"
# above 4 GiB: the x86_64 kernel maps it, the i386 kernel cannot
R=$(tree x2 uefi)
memmap_entry "$R" 4 0x100000000 0x17fffffff "System RAM"
ap "$R" setup --address 0x100000000
expect "refused: --address above 4 GiB with a kernel that is not x86_64" 3 "refused: --address 0x100000000: .*ends above 4 GiB, and .*/boot/apstart-wbinvd0.elf is not an x86_64 \(ELF64\) kernel: the i386 kernel's 32-bit paging"
for w in 0 1; do printf '\177ELF\002\001\001' >"$R/boot/apstart-wbinvd$w.elf"; done
ap "$R" setup --address 0x100000000
expect "setup --address above 4 GiB with both kernels x86_64 (ELF64)" 0 "region: 3 MiB at 0x100000000"
# a second setup checks the region it keeps again
R=$(set_up_tree x3 uefi)
sed -i 's/^  01000000-01ffffff : Kernel code$/&\n  10100000-17ffffff : Crash kernel/' "$R/proc/iomem"
ap "$R" setup
expect "refused: a second setup, a crash kernel now over the region" 3 "refused: the region apstart setup reserved earlier, 3 MiB at 0x10000000 .*cannot stay: it overlaps Crash kernel at 0x10100000-0x17ffffff"
R=$(set_up_tree x4 bios)
rm -rf "$R/sys/firmware/memmap"
ap "$R" setup
expect "setup again, /proc/iomem only: its own reservation is no obstacle" 0 "already set up: 3 MiB at 0x10000000 .*checked against the memory map again"

# ===== one run id, from the request to the record
R=$(set_up_tree i1 uefi)
ap "$R" run -- cycles=2
id=$(pending "$R" run_id)
[[ $id =~ ^$RID$ ]] && called "$R" "^kexec -l .* run_id=$id cycles=2\$" && grep -q "^boot_id=$(cat "$R/proc/sys/kernel/random/boot_id")$" "$R/var/lib/apstart/pending" &&
	ok "run: a run id made for the run ($id), on kexec's command line and in the pending file with this boot's boot_id" ||
	fail "run: the run id" "" "$(cat "$R/var/lib/apstart/pending")" "$(calls_of "$R")"
ap "$R" run -- run_id=mine
expect "usage: run_id= among the kernel options" 2 "run_id= is apstart's to give"
# The run hangs (nothing in pstore), and an old record of another run lies
# in systemd-pstore's archive: it is not this run's.
reboot_with "$R" nothing
mkdir -p "$R/var/lib/systemd/pstore/1700000000"
stamp "$LOGS/smp4-slow.log" r20240101T000000-0badf00d >"$R/var/lib/systemd/pstore/1700000000/console-ramoops-0"
cp "$R/var/lib/systemd/pstore/1700000000/console-ramoops-0" "$T/stale"
ap "$R" collect --boot
if [ ! -e "$R/var/lib/apstart/run-0001.log" ] && cmp -s "$T/stale" "$R/var/lib/apstart/unmatched/record-0001.log" &&
	grep -q "kept aside, not filed as a run: .*systemd/pstore/1700000000/console-ramoops-0 -> .*unmatched/record-0001.log: its run_id=r20240101T000000-0badf00d is not the run in flight's ($id)" <<<"$OUT" &&
	grep -q "RAM survived the reset" <<<"$OUT" && [ ! -e "$R/var/lib/systemd/pstore/1700000000/console-ramoops-0" ]; then
	ok "collect: a stale record in /var/lib/systemd/pstore (another run id) is kept aside in unmatched/, never filed as the run"
else
	fail "collect: a stale record is not the run" "" "$OUT" "$(ls -R "$R/var/lib/apstart")"
fi
grep -q "r20240101T000000-0badf00d is not the run in flight's ($id)" "$R/var/lib/apstart/unmatched/record-0001.why" &&
	ok "  ... with its .why beside it" || fail "  ... its .why" "" "$(cat "$R"/var/lib/apstart/unmatched/*.why 2>/dev/null)"
# both: the run's own record in pstore, another run's summary in NVRAM
ap "$R" run --via grub -- cycles=2
id=$(pending "$R" run_id)
reboot_with "$R" nvram "$LOGS/wbinvd0-run1.log" r20240101T000000-0badf00d
reboot_with "$R" pstore "$LOGS/smp4.log" "$id"
cp "$T/record" "$T/own"
ap "$R" collect --boot
cmp -s "$T/own" "$R/var/lib/apstart/run-0001.log" && [ ! -e "$R/var/lib/apstart/run-0001.nvram.log" ] &&
	[ -f "$R/var/lib/apstart/unmatched/record-0002.log" ] && grep -q "kept aside, not filed as a run: the NVRAM summary" <<<"$OUT" &&
	ok "collect (grub): the run's pstore record filed, another run's NVRAM summary kept aside, not filed as its .nvram.log" ||
	fail "collect (grub): by run id" "" "$OUT" "$(ls "$R/var/lib/apstart")"
# the same record again (a copy of it came back): its run is filed already
cp "$T/own" "$R/sys/fs/pstore/console-ramoops-0"
ap "$R" collect
grep -q "kept aside, not filed as a run: .* it has run_id=$id, and no run is in flight; that id is the run started=.* wbinvd=0 via=grub: filed as run-0001.log" <<<"$OUT" &&
	[ ! -e "$R/var/lib/apstart/run-0002.log" ] && ok "collect: a record of a run filed before is kept aside and named as that run's" ||
	fail "collect: a record of a filed run again" "" "$OUT"
# a record with no run id while a run is in flight is not taken for it
ap "$R" run
reboot_with "$R" pstore "$LOGS/smp4.log" none
ap "$R" collect
[ ! -e "$R/var/lib/apstart/run-0002.log" ] && grep -q "it has no run_id\|its no run_id is not the run in flight's" <<<"$OUT" &&
	ok "collect: a record without a run id while a run is in flight is kept aside" || fail "collect: a record without a run id" "" "$OUT"

# the run's record twice (in /sys/fs/pstore and, copied by systemd-pstore,
# in its archive): filed once, the copy kept aside and said to be one
R=$(set_up_tree i3 uefi)
ap "$R" run
reboot_with "$R" pstore "$LOGS/smp4.log"
mkdir -p "$R/var/lib/systemd/pstore/1700000001"
cp "$T/record" "$R/var/lib/systemd/pstore/1700000001/console-ramoops-0"
ap "$R" collect --boot
[ -f "$R/var/lib/apstart/run-0001.log" ] && [ ! -e "$R/var/lib/apstart/run-0002.log" ] &&
	grep -q "a second copy of the run in flight's record" <<<"$OUT" &&
	ok "collect: the run's record twice (pstore and systemd-pstore's archive): filed once, the copy kept aside as such" ||
	fail "collect: a second copy of the run's record" "" "$OUT"

# in a session: run 1 hangs, a stale record lies in systemd-pstore; run 2
# comes back. The table holds run 2 only; run 1 is interrupted.
R=$(set_up_tree i2 uefi)
ap "$R" ab 1 --seed 3 --wait 0
reboot_with "$R" nothing
mkdir -p "$R/var/lib/systemd/pstore/1700000000"
stamp "$LOGS/smp4-slow.log" r20240101T000000-0badf00d >"$R/var/lib/systemd/pstore/1700000000/console-ramoops-0"
ap "$R" collect --boot
ap "$R" ab --continue
reboot_with "$R" pstore "$LOGS/wbinvd0-run1.log"
ap "$R" collect --boot
ap "$R" ab --continue
S=$R/var/lib/apstart/session-0001
if [ "$(ls "$S"/run-001-*.interrupted 2>/dev/null | wc -l)" = 1 ] && [ "$(ls "$S"/run-00*.log | wc -l)" = 1 ] &&
	grep -q '^runs with records: 1; interrupted: 1$' "$S/table.txt" && [ -f "$R/var/lib/apstart/unmatched/record-0001.log" ] &&
	grep -q "^run 001 .* INTERRUPTED" "$S/table.txt"; then
	ok "ab: a stale record during a session is kept aside; the hung run is interrupted; the table has only the run whose id matched"
else
	fail "ab: a stale record during a session" "" "$(ls "$S")" "$(cat "$S/table.txt" 2>/dev/null)"
fi

# ===== the boot is boot_id, not the wall clock
R=$(set_up_tree b1 uefi)
ap "$R" run
reboot_with "$R" pstore "$LOGS/smp4.log"
cp "$T/record" "$T/rec-b1"
FAKE_ENV=(FAKE_CLOCK_SKEW=-600)
ap "$R" collect --boot
FAKE_ENV=()
cmp -s "$T/rec-b1" "$R/var/lib/apstart/run-0001.log" && ! grep -q "pending from this boot" <<<"$OUT" &&
	ok "collect: the next boot's clock 10 minutes behind: the run is filed (its boot_id is not this boot's)" ||
	fail "collect: a clock 10 minutes behind" "" "$OUT"
R=$(set_up_tree b2 uefi)
ap "$R" ab 1 --seed 3 --wait 0
reboot_with "$R" pstore "$LOGS/wbinvd0-run1.log"
FAKE_ENV=(FAKE_CLOCK_SKEW=-600)
ap "$R" collect --boot
ap "$R" ab --continue
FAKE_ENV=()
S=$R/var/lib/apstart/session-0001
[ "$(find "$S" -name 'run-001-*.log' | wc -l)" = 1 ] && ! ls "$S"/*.interrupted >/dev/null 2>&1 && grep -q "run 2 of 2" <<<"$OUT" &&
	ok "ab: a clock 10 minutes behind: run 1 filed, run 2 started (not stalled, not interrupted)" ||
	fail "ab: a clock 10 minutes behind" "" "$OUT" "$(ls "$S")"

# ===== a run that did not leave Linux is taken back, all of it
R=$(set_up_tree o1 uefi)
FAKE_ENV=(FAKE_SYSTEMCTL_FAIL=reboot)
ap "$R" run --via grub
FAKE_ENV=()
expect "run --via grub, the reboot fails: a failure, said" 1 "failed: the machine did not reboot: the run $RID was taken back"
! grep -q '^next_entry=' "$R/boot/grub/grubenv" && ! grep -q '^apstart_options=' "$R/boot/grub/grubenv" && [ ! -e "$R/var/lib/apstart/pending" ] &&
	ok "  ... next_entry, apstart_options and the pending file cleared: the next reboot is Linux's" ||
	fail "  ... the one-shot taken back" "" "$(cat "$R/boot/grub/grubenv" | tr -d '#')" "$(ls "$R/var/lib/apstart")"
FAKE_ENV=(FAKE_SYSTEMCTL_FAIL=kexec)
ap "$R" run
FAKE_ENV=()
called "$R" '^kexec -u$' && [ "$(cat "$R/sys/kernel/kexec_loaded")" = 0 ] && [ ! -e "$R/var/lib/apstart/pending" ] &&
	ok "run (kexec), systemctl kexec fails: kexec -u (no loaded kernel for systemd >= 255's reboot), pending cleared" ||
	fail "run (kexec), systemctl kexec fails" "" "$OUT" "$(calls_of "$R")"
FAKE_ENV=(APSTART_LEAVE_WAIT=1)
ap "$R" run --via grub
FAKE_ENV=()
expect "run: Linux still here after the wait: taken back" 1 "Linux is still running 1 s after the reboot was asked for"
! grep -q '^next_entry=' "$R/boot/grub/grubenv" && [ ! -e "$R/var/lib/apstart/pending" ] && ok "  ... next_entry and pending cleared" ||
	fail "  ... next_entry and pending cleared" "" "$(tr -d '#' <"$R/boot/grub/grubenv")"
# --undo takes back a run in flight and disables both units
ap "$R" run --via grub
: >"$R.calls"
ap "$R" setup --undo
! grep -q '^next_entry=' "$R/boot/grub/grubenv" && ! grep -q '^apstart_options=' "$R/boot/grub/grubenv" && [ ! -e "$R/var/lib/apstart/pending" ] &&
	called "$R" '^systemctl disable apstart-collect.service$' && called "$R" '^systemctl disable apstart-session.service$' &&
	ok "setup --undo: next_entry, apstart_options, pending cleared; both units disabled" ||
	fail "setup --undo: all of it" "" "$OUT" "$(calls_of "$R")"
R=$(set_up_tree o3 uefi)
ap "$R" run
ap "$R" setup --undo
called "$R" '^kexec -u$' && [ "$(cat "$R/sys/kernel/kexec_loaded")" = 0 ] && ok "setup --undo: the kernel loaded for a run is unloaded (kexec -u)" ||
	fail "setup --undo: kexec -u" "" "$OUT"
# a one-shot left armed with no run in flight is taken back at boot
R=$(set_up_tree o2 uefi)
grub-editenv "$R/boot/grub/grubenv" set next_entry=apstart-wbinvd1 apstart_options=exit=reboot
ap "$R" collect --boot
! grep -q '^next_entry=' "$R/boot/grub/grubenv" && ! grep -q '^apstart_options=' "$R/boot/grub/grubenv" && grep -q "no run is in flight, but grubenv still arms one" <<<"$OUT" &&
	ok "collect: grubenv arming apstart with no run in flight: taken back" || fail "collect: a stale one-shot" "" "$OUT"

# ===== --watchdog: a hung run comes back by itself, or is refused and says why
R=$(set_up_tree w1 uefi)
ap "$R" run --watchdog 120
expect "refused: --watchdog without a hardware watchdog (the BMC's power control is what is left)" 3 "refused: this machine has no hardware watchdog .* a run that hangs stays hung until the machine is power-cycled"
grep -q "ipmitool chassis power cycle" <<<"$OUT" && [ ! -e "$R/var/lib/apstart/pending" ] && ok "  ... says the BMC's power control, nothing left armed" ||
	fail "  ... the BMC's power control" "" "$OUT"
wd=$R/sys/class/watchdog/watchdog0
mkdir -p "$wd" "$R/sys/module/watchdog/parameters"
echo iTCO_wdt >"$wd/identity"; echo 614 >"$wd/max_timeout"; echo inactive >"$wd/state"; echo 0 >"$wd/bootstatus"
echo -1 >"$R/sys/module/watchdog/parameters/stop_on_reboot"
ap "$R" run --watchdog 120
expect "refused: --watchdog where Linux would stop the watchdog at kexec (stop_on_reboot)" 3 "refused: Linux would stop the watchdog iTCO_wdt on the way out.*stop_on_reboot is -1"
grep -q "apstart setup --watchdog" <<<"$OUT" && ok "  ... and says apstart setup --watchdog" || fail "  ... apstart setup --watchdog" "" "$OUT"
echo 0 >"$R/sys/module/watchdog/parameters/stop_on_reboot"
ap "$R" run --watchdog 700
expect "refused: --watchdog beyond the watchdog's max_timeout" 3 "refused: the watchdog iTCO_wdt counts at most 614 s, not 700: apstart's kernel does not pet it"
ap "$R" run --watchdog 30
expect "usage: --watchdog below 60 s" 2 "--watchdog needs seconds, at least 60"
: >"$R.calls"
ap "$R" run --watchdog 120
called "$R" '^busctl set-property org.freedesktop.systemd1 /org/freedesktop/systemd1 org.freedesktop.systemd1.Manager KExecWatchdogUSec t 120000000$' &&
	called "$R" '^systemctl --no-block kexec$' && [ "$(pending "$R" watchdog)" = 120 ] &&
	ok "run --watchdog 120 (systemd, kexec): KExecWatchdogUSec=120 s, then systemctl kexec; the pending run says so" ||
	fail "run --watchdog (systemd, kexec)" "" "$OUT" "$(calls_of "$R")"
: >"$R.calls"
FAKE_ENV=(FAKE_SYSTEMCTL_FAIL=reboot FAKE_BUS_VALUE=600000000)
ap "$R" run --via grub --watchdog 300
FAKE_ENV=()
called "$R" 'RebootWatchdogUSec t 300000000$' && called "$R" 'RebootWatchdogUSec t 600000000$' && [ ! -e "$R/var/lib/apstart/pending" ] &&
	ok "run --via grub --watchdog, the reboot fails: RebootWatchdogUSec set, then given back (600 s)" ||
	fail "run --via grub --watchdog, reboot fails" "" "$OUT" "$(calls_of "$R")"
R=$(set_up_tree w2 bios)
rm -rf "$R/run/systemd"
mkdir -p "$R/sys/class/watchdog/watchdog0" "$R/sys/module/watchdog/parameters"
echo i6300ESB >"$R/sys/class/watchdog/watchdog0/identity"; echo 2046 >"$R/sys/class/watchdog/watchdog0/max_timeout"
echo 0 >"$R/sys/module/watchdog/parameters/stop_on_reboot"
ap "$R" run --watchdog 90
called "$R" "^wdctl -s 90 $R/dev/watchdog0\$" && [ "$(cat "$R/dev/watchdog0" 2>/dev/null)" = 1 ] && called "$R" '^kexec -e$' &&
	ok "run --watchdog 90 (no systemd): wdctl -s 90, opened and closed without 'V' (left running), kexec -e" ||
	fail "run --watchdog (no systemd)" "" "$OUT" "$(calls_of "$R")"
echo 32 >"$R/sys/class/watchdog/watchdog0/bootstatus"
reboot_with "$R" nothing
ap "$R" collect
expect "collect: nothing back, the watchdog's reset said (bootstatus)" 0 "the last reset was the hardware watchdog's \(i6300ESB, bootstatus 32\)"
R=$(tree w3 uefi)
ap "$R" setup --watchdog
grep -q "ramoops.pmsg_size=0 watchdog.stop_on_reboot=0" "$R/boot/grub/grub.cfg" && ok "setup --watchdog: watchdog.stop_on_reboot=0 on Linux's command line" ||
	fail "setup --watchdog" "" "$(grep linux "$R/boot/grub/grub.cfg")"
set_up "$R"
ap "$R" setup
grep -q "watchdog.stop_on_reboot=0" "$R/etc/default/grub.d/apstart.cfg" && ok "  ... kept by a later setup" || fail "  ... kept" "" "$OUT"

# ===== "removed" only when it is gone
R=$(set_up_tree n1 uefi)
ap "$R" run --via grub
reboot_with "$R" nvram "$LOGS/wbinvd0-run1.log"
FAKE_ENV=(FAKE_RM_FAIL="*ApstartResults1-*")
ap "$R" collect
FAKE_ENV=()
! grep -q "removed the summary from NVRAM" <<<"$OUT" && grep -q "warning: NVRAM: could not delete ApstartResults1-$GUID" <<<"$OUT" &&
	grep -q "the summary stays in NVRAM" <<<"$OUT" && ok "collect: an NVRAM part that cannot be deleted: not said removed, said which" ||
	fail "collect: NVRAM not removed" "" "$OUT"
ap "$R" run
reboot_with "$R" pstore "$LOGS/smp4.log"
FAKE_ENV=(FAKE_RM_FAIL="*console-ramoops-0")
ap "$R" collect
FAKE_ENV=()
! grep -q "^apstart: removed .*console-ramoops-0" <<<"$OUT" && grep -q "cannot remove .*console-ramoops-0 (copied and read back identical): it stays" <<<"$OUT" &&
	ok "collect: a pstore file that cannot be removed: not said removed" || fail "collect: pstore not removed" "" "$OUT"
ap "$R" collect
[ "$(ls "$R"/var/lib/apstart/run-*.log | wc -l)" = 2 ] && grep -q "kept aside" <<<"$OUT" &&
	ok "  ... and found again at the next collect, it is kept aside by its run id, not filed twice" || fail "  ... found again" "" "$OUT"
ap "$R" setup
grep -q "while set up, Linux's pstore keeps no oops or panic dumps: pstore.backend=ramoops keeps efi-pstore" <<<"$OUT" &&
	ok "setup: says that pstore's oops and efi-pstore dumps are off while set up" || fail "setup: pstore dumps said" "" "$OUT"

# ===== the scripts themselves
if command -v shellcheck >/dev/null; then
	check "shellcheck: apstart, its lib/, these tests" \
		shellcheck -S warning -s bash -e SC2034,SC2154,SC2120,SC2119,SC2015,SC2012 "$APSTART" "$ROOT_DIR"/tools/linux/apstart/lib/*.sh "$0"
	check "shellcheck: install.sh, mkdeb.sh, the package, VM and long lanes' scripts" \
		shellcheck -S warning -x "$ROOT_DIR"/tools/linux/install.sh "$ROOT_DIR"/tools/linux/deb/mkdeb.sh "$HERE"/deb.sh \
		"$HERE"/deb-root.sh "$HERE"/vm.sh "$ROOT_DIR"/tests/linux-session/*.sh
	fakes=()
	for f in "$HERE"/fake-bin/* "$HERE"/fake-grub.d/*; do [ "${f##*/}" = _record ] || fakes+=("$f"); done
	check "shellcheck: the fakes (fake-bin, fake-grub.d)" shellcheck -S warning -x -e SC1091 "${fakes[@]}"
	check "shellcheck: 90_apstart, the maintainer scripts, the VM's init as sh" shellcheck -S warning -s sh "$GRUB_SCRIPT" \
		"$ROOT_DIR"/tools/linux/deb/preinst "$ROOT_DIR"/tools/linux/deb/postinst "$ROOT_DIR"/tools/linux/deb/prerm "$ROOT_DIR"/tools/linux/deb/postrm \
		"$HERE"/vm-init "$HERE"/vm-modprobe
else
	skip "shellcheck" "shellcheck is not installed (apt-get install shellcheck)"
fi

summary linux-tool
