#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The bootable image: grub-mkrescue's hybrid ISO (El Torito BIOS + UEFI,
# MBR + GPT: a CD or a USB stick) with an EFI system partition of ESP_MB
# MiB (default 16), filled from an ESP tree by tools/image/esp-populate.sh.
# grub-mkrescue makes that partition (efi.img) 2.88 MB, which holds GRUB
# but not the Secure Boot chain (shim 1 MB, Debian's signed GRUB 4.2 MB,
# MokManager 0.9 MB) beside apstart.efi, the kernels and the results.
#
#   mkimage.sh OUT ESP-TREE TREE...   TREEs: the ISO 9660 file tree, as
#                                     grub-mkrescue takes them
#
# The same script is grub-mkrescue's xorriso (--xorriso): called so, with
# APSTART_MKIMAGE_ESP_MB set, it makes efi.img that size with the same
# files before xorriso packs it, so xorriso itself sizes the El Torito
# entry and the GPT partition that point at it.
set -euo pipefail

if [ -n "${APSTART_MKIMAGE_ESP_MB:-}" ]; then
	# As xorriso: find grub-mkrescue's tree (-r DIR) and its efi.img.
	dir= efi= prev=
	for a in "$@"; do
		case $prev in -r) dir=$a ;; --efi-boot) efi=$a ;; esac
		prev=$a
	done
	[ -n "$dir" ] && [ -n "$efi" ] || exec xorriso "$@" # its feature probe
	img=$dir/$efi
	export MTOOLS_SKIP_CHECK=1
	files=$(mktemp -d)
	trap 'rm -rf "$files"' EXIT
	mcopy -s -n -i "$img" '::/*' "$files/"
	rm -f "$img"
	# Heads and sectors as a disk of that size would have; FAT16 at 16 MiB.
	mformat -C -i "$img" -T $((APSTART_MKIMAGE_ESP_MB * 2048)) -h 64 -s 32 ::
	mcopy -s -i "$img" "$files"/* ::/
	xorriso "$@"
	exit
fi

die() { echo "mkimage: $*" >&2; exit 2; }
[ $# -ge 3 ] || die "usage: mkimage.sh OUT ESP-TREE TREE..."
out=$1 esp=$2
shift 2
[ -d "$esp" ] || die "no ESP tree '$esp'"
mb=${ESP_MB:-16}
[[ $mb =~ ^[0-9]+$ ]] && [ "$mb" -ge 8 ] && [ "$mb" -le 1024 ] || die "ESP_MB must be 8..1024, not '$mb'"
log=$out.log
if ! APSTART_MKIMAGE_ESP_MB=$mb ${GRUB_MKRESCUE:-grub-mkrescue} --xorriso="$(realpath "$0")" \
	-o "$out" "$@" >"$log" 2>&1; then
	cat "$log" >&2
	rm -f "$out"
	die "grub-mkrescue failed (log above)"
fi
"$(dirname "$0")/esp-populate.sh" "$out" "$esp"
