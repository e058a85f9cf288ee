#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Install (or name) the Debian packages the build and tests need.
# Runs apt-get itself when root and something is missing; otherwise prints
# the exact command.
set -euo pipefail

# command -> package
declare -A need=(
	[gcc]=gcc [make]=make [ld]=binutils [nasm]=nasm [ndisasm]=nasm
	[qemu-system-x86_64]=qemu-system-x86 [grub-mkrescue]=grub-common
	[xorriso]=xorriso [mformat]=mtools [timeout]=coreutils
	[zbarimg]=zbar-tools # tests/qr only
)
# files -> package
declare -A need_files=(
	[/usr/lib/grub/i386-pc/modinfo.sh]=grub-pc-bin
	[/usr/lib/grub/x86_64-efi/modinfo.sh]=grub-efi-amd64-bin
	[/usr/share/OVMF/OVMF_CODE_4M.fd]=ovmf
	[/usr/share/grub/unicode.pf2]=grub-common
	# tests/qr only: reference encoder, VGA BIOS font for the text rendering
	[/usr/lib/python3/dist-packages/qrcode/__init__.py]=python3-qrcode
	[/usr/share/seabios/vgabios-stdvga.bin]=seabios
)
missing=()
for cmd in "${!need[@]}"; do
	command -v "$cmd" >/dev/null 2>&1 || missing+=("${need[$cmd]}")
done
for f in "${!need_files[@]}"; do
	[ -e "$f" ] || missing+=("${need_files[$f]}")
done
# Optional: plots in the timing comparison.
command -v gnuplot >/dev/null 2>&1 || optional=gnuplot-nox

[ ${#missing[@]} -eq 0 ] && [ -z "${optional:-}" ] && exit 0
pkgs=$(printf '%s\n' "${missing[@]}" ${optional:-} | sort -u | tr '\n' ' ')
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
	echo "deps: installing $pkgs"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	# shellcheck disable=SC2086
	apt-get install -y -qq $pkgs >/dev/null
elif [ ${#missing[@]} -gt 0 ]; then
	echo "deps: missing packages: $pkgs" >&2
	echo "deps: install them with: sudo apt-get update && sudo apt-get install -y $pkgs" >&2
	exit 1
fi
