#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Where the EFI system partition of a disk image is, read from its GPT
# (UEFI 2.10 §5.3: header at LBA 1 of 512 bytes, partition entries from
# the LBA it names), so mtools can reach the FAT inside it as
# IMAGE@@OFFSET. grub-mkrescue's hybrid ISO has one: its efi.img.
#
#   esp-offset.sh IMAGE     prints "OFFSET SIZE" in bytes; exit 1 if none
set -euo pipefail

[ $# -eq 1 ] || { echo "usage: esp-offset.sh IMAGE" >&2; exit 2; }
img=$1
[ -r "$img" ] || { echo "esp-offset: cannot read '$img'" >&2; exit 2; }

u() { od -A n --endian=little -t "u$2" -j "$1" -N "$2" "$img" | tr -d ' \n'; }

if [ "$(od -A n -c -j 512 -N 8 "$img" | tr -d ' \n')" != "EFIPART" ]; then
	echo "esp-offset: $img has no GPT" >&2
	exit 1
fi
entries_lba=$(u 584 8) count=$(u 592 4) esize=$(u 596 4)
# C12A7328-F81F-11D2-BA4B-00A0C93EC93B as stored (first three fields
# little-endian).
esp=28732ac11ff8d211ba4b00a0c93ec93b
if [ "$count" -gt 1024 ] || [ "$esize" -lt 128 ] || [ "$esize" -gt 4096 ]; then
	echo "esp-offset: $img: implausible GPT ($count entries of $esize bytes)" >&2
	exit 1
fi
for ((i = 0; i < count; i++)); do
	off=$((entries_lba * 512 + i * esize))
	type=$(od -A n -t x1 -j "$off" -N 16 "$img" | tr -d ' \n')
	[ "$type" = "$esp" ] || continue
	first=$(u $((off + 32)) 8) last=$(u $((off + 40)) 8)
	echo "$((first * 512)) $(((last - first + 1) * 512))"
	exit 0
done
echo "esp-offset: $img has no EFI system partition" >&2
exit 1
