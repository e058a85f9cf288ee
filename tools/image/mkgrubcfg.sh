#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Write a grub.cfg for the apstart ISO from the template.
#
#   mkgrubcfg.sh TEMPLATE TIMEOUT                 the plain menu
#   mkgrubcfg.sh TEMPLATE TIMEOUT WBINVD [ARG...] the menu with one more entry
#       first, the default: kernel variant WBINVD (0|1, or i386-0|i386-1 for
#       the 32-bit kernels: /boot/apstart-i386-wbinvdN.elf) with these kernel
#       arguments (none: the kernel's defaults). Used for `make run ARGS=...`
#       and the test images.
#   mkgrubcfg.sh TEMPLATE TIMEOUT efi             the default entry starts
#       apstart.efi on UEFI (tests/efi/); on BIOS the menu is the plain one.
#   mkgrubcfg.sh --module PATH TEMPLATE TIMEOUT WBINVD [ARG...]
#       the default entry also loads PATH (on the medium) as a Multiboot2
#       module: an LRM file for trampoline=linux (docs/linux-trampoline.md).
#   LINUX_ENTRIES="PATH|KERNEL|TITLE ..." (environment): more entries, after
#       the custom one, each booting /boot/KERNEL with trampoline=linux and
#       PATH as its module (make iso LINUX_IMAGE=...: a kernel's blob and
#       its twin).
#
# TIMEOUT: seconds GRUB shows the menu (0 = boot the default at once).
# @BIOS_SESSION@ becomes the BIOS A/B session (docs/session.md): K=10 runs
# per variant in the order apstart.efi would draw from seed 1 (randomised
# pairs, wings/efi/plan.c), the next run's number in \apstart\grubenv on
# the stick's EFI partition; its countdown is 10 s (0 with TIMEOUT 0).
# Arguments may use only [A-Za-z0-9_.,:=+/@%-], so nothing in them can mean
# anything to GRUB's parser (quotes, $, ;, braces, newlines).
# Output on stdout; exit status 2 on bad arguments.
set -euo pipefail

die() {
	echo "mkgrubcfg: $*" >&2
	exit 2
}

module=
if [[ ${1:-} == --module ]]; then
	[[ $# -ge 2 && $2 =~ ^/[A-Za-z0-9_./+-]+$ ]] || die "--module needs a path on the medium ([A-Za-z0-9_./+-], from /)"
	module=$2
	shift 2
fi
[[ $# -ge 2 ]] || die "usage: mkgrubcfg.sh [--module PATH] TEMPLATE TIMEOUT [WBINVD [ARG...]]"
template=$1 timeout=$2
shift 2
[[ -r $template ]] || die "cannot read template '$template'"
[[ $timeout =~ ^[0-9]{1,4}$ ]] || die "timeout must be 0..9999 seconds, not '$timeout'"

custom=''
if [[ $# -eq 1 && $1 == efi ]]; then
	custom='if [ "$grub_platform" = efi ]; then'$'\n'
	custom+='	menuentry "apstart.efi (default entry)" {'$'\n'
	custom+='		chainload_apstart_efi'$'\n'
	custom+='	}'$'\n'
	custom+='fi'
elif [[ $# -gt 0 ]]; then
	wbinvd=$1 kfile=apstart-wbinvd$1.elf
	shift
	case $wbinvd in
	0) what='WBINVD=0 (patched)' ;;
	1) what='WBINVD=1 (Linux before the patch)' ;;
	i386-0) what='i386 WBINVD=0 (patched)' ;;
	i386-1) what='i386 WBINVD=1 (Linux before the patch)' ;;
	*) die "WBINVD must be 0, 1, i386-0 or i386-1, not '$wbinvd'" ;;
	esac
	[[ $wbinvd == i386-* ]] && kfile=apstart-i386-wbinvd${wbinvd#i386-}.elf
	# The kernel's own trampoline is not the one that runs: the module's.
	if [[ -n $module && $wbinvd == i386-* ]]; then
		what="i386 with the module $module"
	elif [[ -n $module ]]; then
		what="with the module $module"
	fi
	for a in "$@"; do
		[[ $a =~ ^[A-Za-z0-9_.,:=+/@%-]+$ ]] ||
			die "kernel argument '$a' has characters other than [A-Za-z0-9_.,:=+/@%-]"
	done
	args="$*"
	custom="menuentry \"apstart $what, ${args:-default options} (default entry)\" {"$'\n'
	custom+="	multiboot2 /boot/$kfile${args:+ $args}"$'\n'
	[[ -z $module ]] || custom+="	module2 $module"$'\n'
	custom+='	if [ "$grub_platform" = pc ]; then set gfxpayload=text; fi'$'\n'
	custom+="}"
fi
[[ -z $module || -n ${wbinvd:-} ]] || die "--module needs a WBINVD entry to load it"

# make iso LINUX_IMAGE=...: Linux's blob and its twin, one entry each.
linux_entries=''
for e in ${LINUX_ENTRIES:-}; do
	IFS='|' read -r lpath lkernel ltitle <<<"$e"
	[[ $lpath =~ ^/[A-Za-z0-9_./+-]+$ && $lkernel =~ ^apstart-[a-z0-9-]+\.elf$ &&
		-n $ltitle && $ltitle =~ ^[A-Za-z0-9_.,:=+/@%()-]+$ ]] ||
		die "LINUX_ENTRIES: '$e' is not PATH|KERNEL|TITLE (TITLE with _ for blanks)"
	linux_entries+="menuentry \"${ltitle//_/ }\" {"$'\n'
	linux_entries+="	multiboot2 /boot/$lkernel trampoline=linux cycles=10"$'\n'
	linux_entries+="	module2 $lpath"$'\n'
	linux_entries+='	if [ "$grub_platform" = pc ]; then set gfxpayload=text; fi'$'\n'
	linux_entries+="}"$'\n'
done

# The run order of wings/efi/plan.c (splitmix64, then xorshift64*: one
# coin per pair) in bash's 64-bit arithmetic; shr is a logical shift.
shr() { echo $((($1 >> $2) & ((1 << (64 - $2)) - 1))); }
session_order() { # SEED K
	local z=$(($1 + 0x9E3779B97F4A7C15)) o='' i r
	z=$(((z ^ $(shr $z 30)) * 0xBF58476D1CE4E5B9))
	z=$(((z ^ $(shr $z 27)) * 0x94D049BB133111EB))
	z=$((z ^ $(shr $z 31)))
	((z == 0)) && z=1
	for ((i = 0; i < $2; i++)); do
		z=$((z ^ $(shr $z 12)))
		z=$((z ^ (z << 25)))
		z=$((z ^ $(shr $z 27)))
		r=$((z * 0x2545F4914F6CDD1D))
		((r < 0)) && o+=AB || o+=BA
	done
	echo "$o"
}
bios_session() { # K CYCLES COUNTDOWN
	local k=$1 cycles=$2 wait=$3 order runs i v w what
	order=$(session_order 1 "$k")
	runs=$((2 * k))
	cat <<EOT
# A/B session on BIOS, which has no NVRAM for apstart.efi's session: GRUB
# keeps the next run's number in \apstart\grubenv on the stick's EFI
# partition (save_env rewrites that file's own sectors) and boots $k runs
# of each variant in this order (randomised pairs, seed 1; A = WBINVD=1,
# B = WBINVD=0): $order. Each run resets the machine (exit=reset).
# Results go to the serial console only: capture it for the whole
# session (docs/session.md splits it for aplog compare). On a CD nothing
# can be written: the start entry says so.
if [ "\$grub_platform" = pc ]; then
	insmod part_gpt
	insmod fat
	insmod loadenv
	set apstart_env=
	set apstart_run=
	if search --no-floppy --file --set=apstart_env /apstart/grubenv; then
		load_env -f (\$apstart_env)/apstart/grubenv apstart_run
	fi
	set apstart_file=
EOT
	for ((i = 1; i <= runs; i++)); do
		v=${order:$((i - 1)):1}
		[ "$v" = A ] && w=1 what='A = WBINVD=1 (Linux before the patch)' || w=0 what='B = WBINVD=0 (patched)'
		printf '	if [ "$apstart_run" = %d ]; then
' "$i"
		printf '		set apstart_next=%d
		set apstart_file=/boot/apstart-wbinvd%d.elf
' $((i + 1)) "$w"
		printf '		set apstart_title="run %d of %d: %s, cycles=%d"
	fi
' "$i" "$runs" "$what" "$cycles"
	done
	cat <<EOT
	if [ -n "\$apstart_file" ]; then
		set default=apstart-bios-session
		set timeout=$wait
		echo "A/B session (BIOS): \$apstart_title in $wait s; a key stops the countdown"
		menuentry "A/B session (BIOS): \$apstart_title" --id apstart-bios-session {
			set apstart_run=\$apstart_next
			save_env -f (\$apstart_env)/apstart/grubenv apstart_run
			multiboot2 \$apstart_file cycles=$cycles exit=reset
			set gfxpayload=text
		}
		menuentry "A/B session (BIOS): stop it here" {
			set apstart_run=
			save_env -f (\$apstart_env)/apstart/grubenv apstart_run
			configfile \$prefix/grub.cfg
		}
	elif [ -n "\$apstart_run" ]; then
		echo "A/B session (BIOS): all $runs runs done; the results are in the serial log"
		set apstart_run=
		save_env -f (\$apstart_env)/apstart/grubenv apstart_run
	fi
	menuentry "A/B session (BIOS): $k runs of each variant, reset between; results on serial only" {
		set apstart_run=1
		if [ -z "\$apstart_env" ]; then
			echo "no \\apstart\\grubenv on this medium: the session cannot keep its place"
			sleep 10
		elif save_env -f (\$apstart_env)/apstart/grubenv apstart_run; then
			configfile \$prefix/grub.cfg
		else
			echo "cannot write \\apstart\\grubenv (a CD is read-only): the session needs a writable stick"
			sleep 10
		fi
	}
fi
EOT
}

grep -q '^@CUSTOM_ENTRY@$' "$template" || die "template has no @CUSTOM_ENTRY@ line"
grep -q '^@BIOS_SESSION@$' "$template" || die "template has no @BIOS_SESSION@ line"
grep -q '@TIMEOUT@' "$template" || die "template has no @TIMEOUT@"
while IFS= read -r line || [[ -n $line ]]; do
	if [[ $line == '@CUSTOM_ENTRY@' ]]; then
		[[ -z $custom ]] || printf '%s\n' "$custom"
		[[ -z $linux_entries ]] || printf '%s' "$linux_entries"
	elif [[ $line == '@BIOS_SESSION@' ]]; then
		bios_session 10 1 $((timeout > 0 ? 10 : 0))
	else
		printf '%s\n' "${line//@TIMEOUT@/$timeout}"
	fi
done <"$template"
