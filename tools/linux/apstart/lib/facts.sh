# shellcheck shell=bash
# SPDX-License-Identifier: MIT
# apstart (Linux side): facts about the running machine, each from the
# file Linux shows it in, and the checks that refuse with the reason.

# firmware: uefi or bios (Linux creates /sys/firmware/efi only when it was
# started by UEFI firmware).
firmware() {
	if [ -d "$P_SYS/firmware/efi" ]; then echo uefi; else echo bios; fi
}

# secure_boot: on, off or unknown, and from where (one line: "on SOURCE").
# The SecureBoot variable (UEFI 2.10 §3.3: one byte, 1 = on) first; then
# mokutil --sb-state, which reads the same variable.
secure_boot() {
	[ "$(firmware)" = uefi ] || { echo "off BIOS"; return; }
	local f=$P_EFIVARS/SecureBoot-$EFI_GLOBAL_GUID b
	if [ -f "$f" ]; then
		b=$(od -An -tu1 -j4 -N1 "$f" 2>/dev/null | tr -d ' ')
		case $b in
		1) echo "on efivars SecureBoot=1"; return ;;
		0) echo "off efivars SecureBoot=0"; return ;;
		esac
	fi
	if command -v mokutil >/dev/null 2>&1; then
		case $(mokutil --sb-state 2>&1) in
		*"SecureBoot enabled"*) echo "on mokutil --sb-state"; return ;;
		*"SecureBoot disabled"*) echo "off mokutil --sb-state"; return ;;
		esac
	fi
	echo "unknown no SecureBoot variable"
}

# lockdown: none, integrity, confidentiality, or unknown (no lockdown LSM
# or securityfs not mounted). The file lists the modes, the active one in
# brackets: "none [integrity] confidentiality".
lockdown() {
	local f=$P_SYS/kernel/security/lockdown l
	[ -r "$f" ] || { echo unknown; return; }
	l=$(sed -n 's/.*\[\([a-z]*\)\].*/\1/p' "$f")
	echo "${l:-unknown}"
}

# cvm: empty on an ordinary machine or VM; else what says it is a
# confidential guest (Intel TDX, AMD SEV/SEV-ES/SEV-SNP), one line.
# Signals, most reliable first: the kernel's cpuinfo flag tdx_guest
# (X86_FEATURE_TDX_GUEST, Linux 5.19+); the guest drivers' devices
# (/dev/tdx_guest, /dev/sev-guest); systemd-detect-virt --cvm (systemd
# 254+); the kernel's own boot line "Memory Encryption Features active: ..."
# naming TDX or SEV (SME alone is a host's memory encryption, not a guest).
# The cpuinfo flags sev/sev_es/sev_snp say what a host CPU supports and are
# not used.
cvm() {
	local cpuinfo=$P_PROC/cpuinfo line
	# the first flags line, tdx_guest a word of it (grep -w's words)
	if [ -r "$cpuinfo" ]; then
		while IFS= read -r line && [[ $line != flags* ]]; do :; done <"$cpuinfo"
	fi
	if [[ $line == flags* && " ${line//[^a-zA-Z0-9_]/ } " == *" tdx_guest "* ]]; then
		echo "Intel TDX guest (cpuinfo flag tdx_guest)"; return
	fi
	for d in tdx_guest tdx-guest sev-guest; do
		if [ -e "$(sys_path "/dev/$d")" ]; then
			case $d in tdx*) echo "Intel TDX guest (/dev/$d)" ;; *) echo "AMD SEV-SNP guest (/dev/$d)" ;; esac
			return
		fi
	done
	if command -v systemd-detect-virt >/dev/null 2>&1; then
		line=$(systemd-detect-virt --cvm 2>/dev/null) && [ -n "$line" ] && [ "$line" != none ] && {
			echo "confidential guest: $line (systemd-detect-virt --cvm)"; return
		}
	fi
	line=$(kernel_log | grep -m1 'Memory Encryption Features active:')
	case $line in
	*TDX*) echo "Intel TDX guest (kernel log: ${line#*] })"; return ;;
	*SEV*) echo "AMD SEV guest (kernel log: ${line#*] })"; return ;;
	esac
}

# kernel_log: this boot's kernel messages (dmesg; the journal when the
# ring buffer has wrapped past the boot lines). APSTART_DMESG: the tests.
kernel_log() {
	if [ -n "${APSTART_DMESG:-}" ]; then cat "$APSTART_DMESG"; return; fi
	{ dmesg 2>/dev/null; journalctl -k -b -q --no-pager 2>/dev/null | head -n 3000; } || true
}

refuse_cvm() {
	local c
	c=$(cvm)
	[ -z "$c" ] && return 0
	refuse "this is a confidential guest: $c" \
		"Its CPUs are not started with INIT-SIPI-SIPI through a real-mode trampoline (a TDX guest's" \
		"APs start through the ACPI wake-up mailbox, an SEV-ES/SNP guest's through the GHCB), and the" \
		"host decides what a guest's AP start-up costs: apstart cannot measure it here. Run it on the" \
		"host, or on a bare-metal machine."
}

# cmdline: Linux's command line (one line; read by the shell, not cat).
cmdline() {
	local c=
	{ IFS= read -r c || [ -n "$c" ]; } 2>/dev/null <"$P_PROC/cmdline" && printf '%s\n' "$c"
}

# cmdline_value NAME: the value of NAME= on Linux's command line (last wins).
cmdline_value() {
	local w v=
	for w in $(cmdline); do
		case $w in "$1="*) v=${w#*=} ;; esac
	done
	printf '%s' "$v"
}

# mount_of PATH: "MOUNTPOINT OPTIONS" of the mount holding PATH (from
# /proc/mounts, the longest mount point that is a prefix).
mount_of() {
	local p=$1
	awk -v p="$p" '
		function prefix(m) { return m == "/" || p == m || index(p, m "/") == 1 }
		prefix($2) && length($2) >= best { best = length($2); line = $2 " " $4 }
		END { if (line != "") print line }' "$P_PROC/mounts" 2>/dev/null
}

# refuse_readonly_boot WHAT: /boot must take writes (grub.cfg, grubenv).
refuse_readonly_boot() {
	local m opts
	m=$(mount_of /boot)
	opts=${m#* }
	if [ -n "$m" ] && [[ ,$opts, == *,ro,* ]]; then
		refuse "/boot is read-only (mounted ro at ${m%% *}, /proc/mounts): $1" \
			"mount -o remount,rw ${m%% *}   (and make it so in /etc/fstab), then run again"
	fi
	local probe=$P_BOOT/.apstart-write-test.$$
	if ! (: >"$probe") 2>/dev/null; then
		refuse "cannot write to /boot ($P_BOOT): $1" "check its mount and permissions, then run again"
	fi
	rm -f "$probe"
}

# refuse_secure_boot kexec|grub: Secure Boot and lockdown, for a
# multiboot2 kernel loaded from Linux (kexec_load) or started by GRUB
# (which, under Secure Boot, boots only what shim verifies: signed PE
# images, not an ELF).
refuse_secure_boot() {
	local via=$1 sb ld state src why
	sb=$(secure_boot)
	state=${sb%% *} src=${sb#* }
	ld=$(lockdown)
	local ways=("Either turn Secure Boot off in the firmware set-up (mokutil --disable-validation asks for it at the next boot)," \
		"or enrol apstart's key (apstart setup --secure-boot) and boot its signed stick (docs/hardware.md).")
	if [ "$via" = kexec ] && [ "$ld" != none ] && [ "$ld" != unknown ]; then
		why="the kernel is locked down (lockdown=$ld, /sys/kernel/security/lockdown)"
		[ "$state" = on ] && why="$why because Secure Boot is on ($src)"
		refuse "$why: kexec_load, which a multiboot2 kernel needs, is blocked (kexec_file_load takes only signed bzImages)" "${ways[@]}"
	fi
	[ "$state" = on ] || return 0
	if [ "$via" = kexec ] && [ "$ld" = none ]; then
		say "Secure Boot is on ($src) but this kernel is not locked down: kexec_load is allowed"
		return 0
	fi
	if [ "$via" = kexec ]; then
		why="Debian's kernel then locks itself down (lockdown state $ld here), which blocks kexec_load"
	else
		why="GRUB then boots only kernels that shim verifies (signed PE images), not apstart's multiboot2 ELF"
	fi
	refuse "Secure Boot is on ($src): $why" "${ways[@]}"
}

# kexec_version: kexec-tools' version, e.g. 2.0.25.
kexec_version() { kexec --version 2>&1 | sed -n 's/^kexec-tools \([0-9][0-9.]*\).*/\1/p' | head -1; }

# version_lt A B: A < B, dotted numbers.
version_lt() {
	[ "$1" != "$2" ] && [ "$(printf '%s\n%s\n' "$1" "$2" | sort -V | head -1)" = "$1" ]
}

# refuse_no_kexec: kexec-tools, new enough, and a kernel that has kexec_load.
refuse_no_kexec() {
	command -v kexec >/dev/null 2>&1 ||
		refuse "kexec is not installed (package kexec-tools): it loads apstart's kernel from Linux" \
			"apt-get install kexec-tools   (or use --via grub)"
	local v
	v=$(kexec_version)
	if [ -n "$v" ] && version_lt "$v" 2.0.23; then
		refuse "kexec-tools $v is too old: 2.0.23 is the first that loads an ELF64 multiboot2 kernel" \
			"install a newer kexec-tools, or use --via grub"
	fi
	[ -e "$P_SYS/kernel/kexec_loaded" ] ||
		refuse "this kernel has no kexec_load (/sys/kernel/kexec_loaded is missing: built without CONFIG_KEXEC)" \
			"use --via grub"
	if [ "$(cat "$P_PROC/sys/kernel/kexec_load_disabled" 2>/dev/null)" = 1 ]; then
		refuse "kexec_load is disabled (/proc/sys/kernel/kexec_load_disabled = 1; it stays so until the next boot)" \
			"find what set kernel.kexec_load_disabled (sysctl.d) and reboot without it, or use --via grub"
	fi
}
