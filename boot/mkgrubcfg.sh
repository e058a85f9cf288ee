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
#
# TIMEOUT: seconds GRUB shows the menu (0 = boot the default at once).
# Arguments may use only [A-Za-z0-9_.,:=+/@%-], so nothing in them can mean
# anything to GRUB's parser (quotes, $, ;, braces, newlines).
# Output on stdout; exit status 2 on bad arguments.
set -euo pipefail

die() {
	echo "mkgrubcfg: $*" >&2
	exit 2
}

[[ $# -ge 2 ]] || die "usage: mkgrubcfg.sh TEMPLATE TIMEOUT [WBINVD [ARG...]]"
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
	for a in "$@"; do
		[[ $a =~ ^[A-Za-z0-9_.,:=+/@%-]+$ ]] ||
			die "kernel argument '$a' has characters other than [A-Za-z0-9_.,:=+/@%-]"
	done
	args="$*"
	custom="menuentry \"apstart $what, ${args:-default options} (default entry)\" {"$'\n'
	custom+="	multiboot2 /boot/$kfile${args:+ $args}"$'\n'
	custom+='	if [ "$grub_platform" = pc ]; then set gfxpayload=text; fi'$'\n'
	custom+="}"
fi

grep -q '^@CUSTOM_ENTRY@$' "$template" || die "template has no @CUSTOM_ENTRY@ line"
grep -q '@TIMEOUT@' "$template" || die "template has no @TIMEOUT@"
while IFS= read -r line || [[ -n $line ]]; do
	if [[ $line == '@CUSTOM_ENTRY@' ]]; then
		[[ -z $custom ]] || printf '%s\n' "$custom"
	else
		printf '%s\n' "${line//@TIMEOUT@/$timeout}"
	fi
done <"$template"
