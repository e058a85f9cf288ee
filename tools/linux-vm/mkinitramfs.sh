#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Builds the Linux VM's initramfs: static busybox, tools/linux-vm/init as
# /init, and the static linux-hotplug, as an uncompressed newc cpio (the
# kernel unpacks it on top of its built-in one, which has /dev/console).
#   mkinitramfs.sh BUSYBOX LINUX_HOTPLUG|- OUT.cpio [--init FILE]
#                  [--add SRC:DEST]... [--kexec DIR]
#   --init FILE    this /init instead of tools/linux-vm/init
#   --add SRC:DEST one more file at /DEST (mode kept)
#   --kexec DIR    kexec-tools' kexec from DIR (fetch.sh's build/linux/kexec)
#                  as /sbin/kexec, with the libraries ldd names for it
#                  (DIR's Xen libraries, the host's libc) and the loader
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
[ $# -ge 3 ] || { echo "usage: mkinitramfs.sh BUSYBOX LINUX_HOTPLUG|- OUT.cpio [--init FILE] [--add SRC:DEST]... [--kexec DIR]" >&2; exit 2; }
bb=$1 lh=$2 out=$3
shift 3
init=$here/init kexec_dir= adds=()
while [ $# -gt 0 ]; do
	case $1 in
	--init) init=$2; shift 2 ;;
	--add) adds+=("$2"); shift 2 ;;
	--kexec) kexec_dir=$2; shift 2 ;;
	*) echo "mkinitramfs: unknown option '$1'" >&2; exit 2 ;;
	esac
done
for f in "$bb" $([ "$lh" = - ] || echo "$lh"); do [ -x "$f" ] || { echo "mkinitramfs: $f missing or not executable" >&2; exit 1; }; done
[ "$lh" = - ] || ! readelf -l "$lh" 2>/dev/null | grep 'program interpreter' >/dev/null ||
	{ echo "mkinitramfs: $lh is not a static binary (the initramfs has no libc)" >&2; exit 1; }
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
mkdir -p "$root/bin" "$root/proc" "$root/sys" "$root/dev" "$root/tmp"
cp "$bb" "$root/bin/busybox"
ln -s busybox "$root/bin/sh"
cp "$init" "$root/init"
chmod 755 "$root/init" "$root/bin/busybox"
if [ "$lh" != - ]; then
	cp "$lh" "$root/linux-hotplug"
	chmod 755 "$root/linux-hotplug"
fi
for a in "${adds[@]}"; do
	src=${a%%:*} dest=${a#*:}
	[ -e "$src" ] || { echo "mkinitramfs: $src missing" >&2; exit 1; }
	mkdir -p "$root/$(dirname "$dest")"
	cp "$src" "$root/$dest"
done
if [ -n "$kexec_dir" ]; then
	kx=$kexec_dir/sbin/kexec
	[ -x "$kx" ] || { echo "mkinitramfs: $kx missing (tools/linux-vm/fetch.sh)" >&2; exit 1; }
	mkdir -p "$root/sbin"
	cp "$kx" "$root/sbin/kexec"
	# Every library ldd resolves, at the path the loader looks in.
	libs=$(LD_LIBRARY_PATH=$kexec_dir/usr/lib/x86_64-linux-gnu:$kexec_dir/lib/x86_64-linux-gnu ldd "$kx") ||
		{ echo "mkinitramfs: ldd $kx failed" >&2; exit 1; }
	if grep -q 'not found' <<<"$libs"; then
		echo "mkinitramfs: kexec needs libraries not found here: $(grep 'not found' <<<"$libs" | tr '\n' ' ')" >&2
		exit 1
	fi
	mkdir -p "$root/lib/x86_64-linux-gnu" "$root/lib64"
	while read -r name arrow path _; do
		case $name in
		linux-vdso*) ;;
		/*) cp -L "$name" "$root$name" ;;
		*) [ "$arrow" = "=>" ] && cp -L "$path" "$root/lib/x86_64-linux-gnu/$name" ;;
		esac
	done <<<"$libs"
fi
out_abs=$(cd "$(dirname "$out")" && pwd)/$(basename "$out")
# busybox's own cpio writes the archive: no host cpio needed.
(cd "$root" && find . | LC_ALL=C sort | "$root/bin/busybox" cpio -o -H newc >"$out_abs" 2>/dev/null)
[ -s "$out_abs" ] || { echo "mkinitramfs: cpio failed" >&2; exit 1; }
