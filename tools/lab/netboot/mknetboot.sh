#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Make the directory a lab serves over TFTP or HTTP to boot apstart from
# the network (make netboot; docs/lab.md says how to serve it).
#
#   mknetboot.sh --out DIR --kernels KDIR [--timeout N] [--machines FILE]
#
# KDIR: the image's kernel tree (build/iso/kernels: boot/apstart-*.elf and
# boot/apstart.efi), copied as they are, so a network boot runs the very
# files a stick has. DIR gets:
#   boot/grub/i386-pc/core.0       BIOS PXE boot file (grub-mknetdir)
#   boot/grub/x86_64-efi/core.efi  UEFI PXE and UEFI HTTP boot file
#   boot/grub/grub.cfg             the image's menu (tools/image/grub.cfg.in),
#                                  TIMEOUT seconds, for every machine not
#                                  listed in FILE
#   boot/grub/grub.cfg-01-<mac>    one menu per machine listed by MAC ...
#   boot/grub/grub.cfg-<IP in hex> ... or by IPv4 address: the image's
#                                  menu with that machine's default entry
#   boot/*.elf, boot/apstart.efi   the kernels and the UEFI loader
#   README.txt                     what to tell the DHCP server
# The names are GRUB's own: over TFTP GRUB 2.06 asks for grub.cfg-01-<mac>,
# then grub.cfg-<IP in hex> (and shorter prefixes of it), then grub.cfg.
# Over HTTP it asks only for grub.cfg, so grub.cfg starts by handing a
# listed machine to its file itself.
#
# FILE (NETBOOT_MACHINES): one machine a line, '#' comments:
#   MACHINE  VARIANT  [KERNEL ARGUMENT...]
# MACHINE: a MAC (aa:bb:cc:dd:ee:ff or aa-bb-...), an IPv4 address, or
# "default" (the entry every unlisted machine boots). VARIANT: 0, 1,
# i386-0 or i386-1 (tools/image/mkgrubcfg.sh). A MAC wins over an IP address.
#
# DIR is rebuilt whole (DIR.new, then renamed). Exit status 2 on bad input.
set -euo pipefail

die() {
	echo "mknetboot: $*" >&2
	exit 2
}

out= kdir= timeout=5 machines=
while [[ $# -gt 0 ]]; do
	case $1 in
	--out) out=${2:?}; shift 2 ;;
	--kernels) kdir=${2:?}; shift 2 ;;
	--timeout) timeout=${2:?}; shift 2 ;;
	--machines) machines=${2-}; shift 2 ;;
	*) die "unknown option '$1' (usage: mknetboot.sh --out DIR --kernels KDIR [--timeout N] [--machines FILE])" ;;
	esac
done
[[ -n $out && -n $kdir ]] || die "--out DIR and --kernels KDIR are required"
here=$(cd "$(dirname "$0")/../../.." && pwd)
template=$here/tools/image/grub.cfg.in mkcfg=$here/tools/image/mkgrubcfg.sh
for f in apstart-wbinvd0.elf apstart-wbinvd1.elf apstart-i386-wbinvd0.elf apstart-i386-wbinvd1.elf apstart.efi; do
	[[ -f $kdir/boot/$f ]] || die "no $kdir/boot/$f (make iso-kernels first)"
done
[[ -z $machines || -r $machines ]] || die "cannot read the machines file '$machines'"
for p in i386-pc x86_64-efi; do
	[[ -f /usr/lib/grub/$p/modinfo.sh ]] || die "no /usr/lib/grub/$p (packages grub-pc-bin, grub-efi-amd64-bin)"
done

new=$out.new
rm -rf "$new"
mkdir -p "$new/boot"
trap 'rm -rf "$new"' EXIT

# The boot files. On UEFI, core.efi carries http as well as tftp: under
# UEFI HTTP boot GRUB takes its prefix, (http,SERVER)/boot/grub, from the
# firmware's URI device path and must read its modules through it.
# core.efi also carries what the menu needs (normal mode, serial, video,
# search, multiboot2) and every file system of fs.lst: the menu's search
# for a stick probes each device, and GRUB loads file system modules one
# by one until one knows it; over HTTP that was ~70 requests, ~30 s of a
# 45 s boot (and as many CPU-s under QEMU TCG). 1.2 MB instead of 0.25.
grub-mknetdir --net-directory="$new" --subdir=boot/grub -d /usr/lib/grub/i386-pc \
	--modules="pxe tftp" >"$new/mknetdir.log" 2>&1 ||
	{ cat "$new/mknetdir.log" >&2; die "grub-mknetdir (i386-pc) failed"; }
efi_fs=$(tr '\n' ' ' </usr/lib/grub/x86_64-efi/fs.lst) || die "no /usr/lib/grub/x86_64-efi/fs.lst"
grub-mknetdir --net-directory="$new" --subdir=boot/grub -d /usr/lib/grub/x86_64-efi \
	--modules="efinet tftp http normal configfile test serial terminfo all_video search multiboot2 $efi_fs" \
	>>"$new/mknetdir.log" 2>&1 ||
	{ cat "$new/mknetdir.log" >&2; die "grub-mknetdir (x86_64-efi) failed"; }
rm -f "$new/mknetdir.log"
cp "$kdir"/boot/apstart-*.elf "$kdir/boot/apstart.efi" "$new/boot/"

# Appended to every menu: over the network, apstart.efi's entry works only
# with a stick in the machine. apstart.efi keeps its kernels and results on
# a volume; the copy GRUB would fetch from the server finds none, says so
# and returns, and GRUB 2.06's network is gone after it ("couldn't send
# network packet"): the machine would need a reset. GRUB runs the last
# definition of a function, so this one replaces the template's.
efi_override() {
	cat <<'GRUB'

# make netboot: apstart.efi only from a stick (see tools/lab/netboot/mknetboot.sh).
function chainload_apstart_efi {
	if search --no-floppy --file --set=apstart_esp /EFI/apstart/apstart.efi; then
		chainloader ($apstart_esp)/EFI/apstart/apstart.efi
	else
		echo "apstart.efi keeps its kernels and results on a stick (make usb); this machine has none."
		echo "Over the network, boot a kernel entry: results go to the serial console."
		sleep 10
	fi
}
GRUB
}

# The machines file: MAC or IP -> file name, variant, arguments.
names=() keys=() variants=() argss=()
default_variant= default_args= have_default=0 lineno=0
if [[ -n $machines ]]; then
	while IFS= read -r line || [[ -n $line ]]; do
		lineno=$((lineno + 1))
		line=${line%%#*}
		read -r -a w <<<"$line" || true
		[[ ${#w[@]} -gt 0 ]] || continue
		[[ ${#w[@]} -ge 2 ]] || die "$machines:$lineno: '${w[0]}' needs a VARIANT (0, 1, i386-0, i386-1)"
		m=${w[0]} v=${w[1]} a=("${w[@]:2}")
		case $v in 0|1|i386-0|i386-1) ;; *) die "$machines:$lineno: VARIANT must be 0, 1, i386-0 or i386-1, not '$v'" ;; esac
		if [[ $m == default ]]; then
			[[ $have_default == 0 ]] || die "$machines:$lineno: a second 'default' line"
			have_default=1 default_variant=$v default_args="${a[*]}"
			continue
		fi
		mac=${m,,}
		mac=${mac//-/:}
		if [[ $mac =~ ^[0-9a-f]{2}(:[0-9a-f]{2}){5}$ ]]; then
			key=mac:$mac name=grub.cfg-01-${mac//:/-}
		elif [[ $m =~ ^([0-9]{1,3})\.([0-9]{1,3})\.([0-9]{1,3})\.([0-9]{1,3})$ ]]; then
			hex=
			for i in 1 2 3 4; do
				o=$((10#${BASH_REMATCH[$i]}))
				[[ $o -le 255 ]] || die "$machines:$lineno: '$m' is not an IPv4 address"
				hex+=$(printf '%02X' "$o")
			done
			key=ip:$((10#${BASH_REMATCH[1]})).$((10#${BASH_REMATCH[2]})).$((10#${BASH_REMATCH[3]})).$((10#${BASH_REMATCH[4]}))
			name=grub.cfg-$hex
		else
			die "$machines:$lineno: MACHINE must be a MAC (aa:bb:cc:dd:ee:ff), an IPv4 address or 'default', not '$m'"
		fi
		for k in "${keys[@]}"; do
			[[ $k != "$key" ]] || die "$machines:$lineno: ${key#*:} is listed twice"
		done
		# mkgrubcfg checks the arguments' characters; a bad one stops here.
		"$mkcfg" "$template" "$timeout" "$v" "${a[@]}" >"$new/boot/grub/$name" ||
			die "$machines:$lineno: bad entry for ${key#*:}"
		efi_override >>"$new/boot/grub/$name"
		names+=("$name") keys+=("$key") variants+=("$v") argss+=("${a[*]}")
	done <"$machines"
fi

# grub.cfg: the HTTP hand-over to the machines' files (MACs first), then
# the menu every other machine gets.
{
	echo "# SPDX-License-Identifier: MIT"
	echo "# apstart network boot (make netboot). Per-machine menus: GRUB fetches"
	echo "# grub.cfg-01-<mac> and grub.cfg-<IP in hex> itself over TFTP; over HTTP it"
	echo "# reads only this file, which hands a listed machine to its own."
	for pass in mac ip; do
		for i in "${!keys[@]}"; do
			[[ ${keys[$i]} == "$pass":* ]] || continue
			var=net_default_mac
			[[ $pass == ip ]] && var=net_default_ip
			echo "if [ \"\$$var\" = \"${keys[$i]#*:}\" ]; then configfile \$prefix/${names[$i]}; fi"
		done
	done
	if [[ $have_default == 1 ]]; then
		# shellcheck disable=SC2086 # the arguments are words
		"$mkcfg" "$template" "$timeout" "$default_variant" $default_args
	else
		"$mkcfg" "$template" "$timeout"
	fi
	efi_override
} >"$new/boot/grub/grub.cfg" || die "cannot write grub.cfg"

{
	echo "apstart network boot directory (make netboot): serve it as the TFTP root"
	echo "and/or the HTTP document root. DHCP boot files:"
	echo "  BIOS PXE (client arch 0):        boot/grub/i386-pc/core.0"
	echo "  UEFI PXE (client arch 7, 9):     boot/grub/x86_64-efi/core.efi"
	echo "  UEFI HTTP (arch 16, HTTPClient): http://SERVER/boot/grub/x86_64-efi/core.efi"
	echo "Menu timeout: $timeout s. Machines with their own menu:"
	for i in "${!keys[@]}"; do
		echo "  ${keys[$i]#*:}  boot/grub/${names[$i]}  variant ${variants[$i]}  ${argss[$i]:-default options}"
	done
	[[ ${#keys[@]} -gt 0 ]] || echo "  (none: every machine gets boot/grub/grub.cfg)"
	if [[ $have_default == 1 ]]; then
		echo "  every other machine: variant $default_variant ${default_args:-default options}"
	else
		echo "  every other machine: the image's menu and its default entry"
	fi
	echo "Results: on the serial console (serial-over-LAN); see docs/lab.md."
} >"$new/README.txt"

rm -rf "$out"
mv "$new" "$out"
trap - EXIT
echo "  NETBOOT $out (${#keys[@]} machine menu(s)$([[ $have_default == 1 ]] && echo ', own default'))"
