#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A lean BIOS CD for a Bochs boot: GRUB for BIOS only (i386-pc, the
# modules a Multiboot2 boot from a CD with a serial console needs, no
# fonts, locales or themes), one kernel with its debug sections stripped
# and a one-entry menu that boots it at once with ARGS. The kernel's
# loaded bytes are the same (objcopy --strip-debug drops only unloaded
# sections); GRUB's multiboot2 loads the unloaded sections too, so the
# ~0.7 MB of debug info cost ~10 M emulated instructions a boot, and the
# image's full menu (insmod all_video, the BIOS session's search) ~3 CPU-s
# more under Bochs. The image's own menu is booted by make bochs-tests'
# bochs-intel (and by make iso-tests under SeaBIOS).
#   tests/bochs/lean-iso.sh OUT KERNEL [ARG...]
set -euo pipefail
[ $# -ge 2 ] || { echo "lean-iso: usage: lean-iso.sh OUT KERNEL [ARG...]" >&2; exit 2; }
out=$1 kernel=$2
shift 2
[ -r "$kernel" ] || { echo "lean-iso: cannot read kernel '$kernel'" >&2; exit 2; }
for a in "$@"; do # as tools/image/mkgrubcfg.sh: nothing GRUB's parser reads
	[[ $a =~ ^[A-Za-z0-9_.,:=+/@%-]+$ ]] || { echo "lean-iso: argument '$a' has characters GRUB would parse" >&2; exit 2; }
done
tree=$(mktemp -d)
trap 'rm -rf "$tree"' EXIT
mkdir -p "$tree/boot/grub"
objcopy --strip-debug "$kernel" "$tree/boot/apstart.elf"
cat >"$tree/boot/grub/grub.cfg" <<-CFG
	set timeout=0
	serial --unit=0 --speed=115200 --word=8 --parity=no --stop=1
	terminal_input serial console
	terminal_output serial console
	menuentry "apstart $*" {
		multiboot2 /boot/apstart.elf $*
		set gfxpayload=text
	}
CFG
if ! ${GRUB_MKRESCUE:-grub-mkrescue} -d /usr/lib/grub/i386-pc --fonts= --locales= --themes= \
	--install-modules="multiboot2 serial terminal normal iso9660 biosdisk" \
	-o "$out.new" "$tree" >"$out.log" 2>&1; then
	cat "$out.log" >&2
	rm -f "$out.new"
	echo "lean-iso: grub-mkrescue failed (log above)" >&2
	exit 1
fi
mv -f "$out.new" "$out"
