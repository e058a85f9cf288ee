#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Put apstart.efi and the kernels on the EFI system partition of an image
# made by grub-mkrescue. That partition is efi.img, a FAT12 file system
# inside the ISO 9660 tree that the GPT points at when the image is a disk
# (USB stick), and the El Torito UEFI image on a CD. apstart.efi loads its
# kernels from there and writes results there (\apstart\results\NNNN.log);
# GRUB's own files are left alone, so the image boots as before.
#
#   esp-populate.sh IMAGE TREE
#       TREE/boot/apstart.efi           -> \EFI\apstart\apstart.efi
#       TREE/boot/apstart-wbinvd{0,1}.elf -> \apstart\ (debug sections
#                                          stripped; the loaded bytes are
#                                          the same)
#       and an empty \apstart\results\, and \apstart\grubenv (GRUB's
#                                          1024-byte environment block: the
#                                          BIOS A/B session's place)
#   esp-populate.sh --config FILE IMAGE   FILE becomes \apstart\loader.cfg
#   esp-populate.sh --direct IMAGE        \EFI\BOOT\BOOTX64.EFI becomes
#       apstart.efi: firmware starts it without GRUB (per-run images only;
#       the stick keeps GRUB there)
#
# The image is changed in place (mtools, IMAGE@@OFFSET from esp-offset.sh).
set -euo pipefail

die() { echo "esp-populate: $*" >&2; exit 2; }
mode=files config=
case "${1-}" in
--config) mode=config config=${2-}; shift 2 ;;
--direct) mode=direct; shift ;;
esac
img=${1-}
[ -f "$img" ] || die "usage: esp-populate.sh [--config FILE | --direct] IMAGE [TREE]"
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
files)
	tree=${2-}
	for f in apstart.efi apstart-wbinvd0.elf apstart-wbinvd1.elf; do
		[ -f "$tree/boot/$f" ] || die "no $tree/boot/$f"
	done
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	for w in 0 1; do
		objcopy --strip-debug "$tree/boot/apstart-wbinvd$w.elf" "$tmp/apstart-wbinvd$w.elf"
	done
	mkdir_p ::/EFI/apstart
	mkdir_p ::/apstart
	mkdir_p ::/apstart/results
	mcopy -o -i "$fat" "$tree/boot/apstart.efi" ::/EFI/apstart/apstart.efi
	mcopy -o -i "$fat" "$tmp/apstart-wbinvd0.elf" "$tmp/apstart-wbinvd1.elf" ::/apstart/
	# As grub-editenv creates it: the header line, '#' up to 1024 bytes.
	{ printf '# GRUB Environment Block\n'; head -c 999 /dev/zero | tr '\0' '#'; } >"$tmp/grubenv"
	mcopy -o -i "$fat" "$tmp/grubenv" ::/apstart/grubenv ;;
esac
