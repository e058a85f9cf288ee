#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Put the stick's UEFI files on the EFI system partition of an image made
# by grub-mkrescue (tools/image/mkimage.sh). That partition is efi.img, a FAT
# file system inside the ISO 9660 tree that the GPT points at when the
# image is a disk (USB stick), and the El Torito UEFI image on a CD.
#
#   esp-populate.sh IMAGE ESP-TREE
#       grub-mkrescue's GRUB (\EFI\BOOT\BOOTX64.EFI) moves to
#       \EFI\apstart\grub.efi; then every file of ESP-TREE (tools/image/esp.mk:
#       shim as \EFI\BOOT\BOOTX64.EFI, MokManager, Debian's signed GRUB
#       and its config, apstart.efi, the kernels in \apstart\), an empty
#       \apstart\results\ and \apstart\grubenv (GRUB's 1024-byte
#       environment block: the BIOS A/B session's place)
#   esp-populate.sh --config FILE IMAGE   FILE becomes \apstart\loader.cfg
#   esp-populate.sh --direct IMAGE        \EFI\BOOT\BOOTX64.EFI becomes
#       apstart.efi: firmware starts it without shim or GRUB (per-run
#       images only)
#   esp-populate.sh --signed EFI DER IMAGE   EFI (apstart.efi signed by
#       make sign) replaces \EFI\apstart\apstart.efi, DER (its
#       certificate) becomes \apstart\keys\apstart-mok.der and its
#       fingerprints \apstart\keys\fingerprint.cfg (GRUB variables the
#       stick's enrolment message shows: tools/image/gate.cfg)
#
# The image is changed in place (mtools, IMAGE@@OFFSET from esp-offset.sh).
set -euo pipefail

die() { echo "esp-populate: $*" >&2; exit 2; }
mode=files config= signed_efi= der=
case "${1-}" in
--config) mode=config config=${2-}; shift 2 ;;
--direct) mode=direct; shift ;;
--signed) mode=signed signed_efi=${2-} der=${3-}; shift 3 ;;
esac
img=${1-}
[ -f "$img" ] || die "usage: esp-populate.sh [--config FILE | --direct | --signed EFI DER] IMAGE [ESP-TREE]"
read -r off _ < <("$(dirname "$0")/esp-offset.sh" "$img") || die "$img: no EFI system partition"
fat=$img@@$off
export MTOOLS_SKIP_CHECK=1

mkdir_p() { # FAT directory, no error if it is there
	mdir -i "$fat" "$1" >/dev/null 2>&1 || mmd -i "$fat" "$1"
}

case $mode in
config)
	[ -r "$config" ] || die "cannot read '$config'"
	mkdir_p ::/apstart
	mcopy -o -i "$fat" "$config" ::/apstart/loader.cfg ;;
direct)
	mdir -i "$fat" ::/EFI/apstart/apstart.efi >/dev/null 2>&1 || die "$img has no \\EFI\\apstart\\apstart.efi"
	tmp=$(mktemp)
	trap 'rm -f "$tmp"' EXIT
	mcopy -n -i "$fat" ::/EFI/apstart/apstart.efi "$tmp"
	mcopy -o -i "$fat" "$tmp" ::/EFI/BOOT/BOOTX64.EFI ;;
signed)
	[ -r "$signed_efi" ] || die "cannot read '$signed_efi'"
	[ -r "$der" ] || die "cannot read '$der'"
	mdir -i "$fat" ::/EFI/apstart/apstart.efi >/dev/null 2>&1 || die "$img has no \\EFI\\apstart\\apstart.efi"
	mkdir_p ::/apstart/keys
	mcopy -o -i "$fat" "$signed_efi" ::/EFI/apstart/apstart.efi
	mcopy -o -i "$fat" "$der" ::/apstart/keys/apstart-mok.der
	tmp=$(mktemp)
	trap 'rm -f "$tmp"' EXIT
	"$(dirname "$0")/fingerprint.sh" --grub "$der" >"$tmp" || die "'$der' is not a certificate"
	mcopy -o -i "$fat" "$tmp" ::/apstart/keys/fingerprint.cfg ;;
files)
	tree=${2-}
	for f in EFI/BOOT/BOOTX64.EFI EFI/apstart/apstart.efi apstart/apstart-wbinvd0.elf apstart/apstart-wbinvd1.elf; do
		[ -f "$tree/$f" ] || die "no $tree/$f"
	done
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	mkdir_p ::/EFI/apstart
	mcopy -n -i "$fat" ::/EFI/BOOT/BOOTX64.EFI "$tmp/grub.efi" || die "$img has no \\EFI\\BOOT\\BOOTX64.EFI (grub-mkrescue's GRUB)"
	mcopy -o -i "$fat" "$tmp/grub.efi" ::/EFI/apstart/grub.efi
	(cd "$tree" && find . -mindepth 1 -type d | sort) | while read -r d; do mkdir_p "::/${d#./}"; done
	(cd "$tree" && find . -type f | sort) | while read -r f; do
		mcopy -o -i "$fat" "$tree/${f#./}" "::/${f#./}"
	done
	mkdir_p ::/apstart/results
	# As grub-editenv creates it: the header line, '#' up to 1024 bytes.
	{ printf '# GRUB Environment Block\n'; head -c 999 /dev/zero | tr '\0' '#'; } >"$tmp/grubenv"
	mcopy -o -i "$fat" "$tmp/grubenv" ::/apstart/grubenv ;;
esac
