#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Builds the Linux VM's initramfs: static busybox, tools/linux-vm/init as
# /init, and the static linux-hotplug, as an uncompressed newc cpio (the
# kernel unpacks it on top of its built-in one, which has /dev/console).
#   mkinitramfs.sh BUSYBOX LINUX_HOTPLUG OUT.cpio
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
[ $# = 3 ] || { echo "usage: mkinitramfs.sh BUSYBOX LINUX_HOTPLUG OUT.cpio" >&2; exit 2; }
bb=$1 lh=$2 out=$3
for f in "$bb" "$lh"; do [ -x "$f" ] || { echo "mkinitramfs: $f missing or not executable" >&2; exit 1; }; done
! readelf -l "$lh" 2>/dev/null | grep 'program interpreter' >/dev/null ||
	{ echo "mkinitramfs: $lh is not a static binary (the initramfs has no libc)" >&2; exit 1; }
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
mkdir -p "$root/bin" "$root/proc" "$root/sys" "$root/dev" "$root/tmp"
cp "$bb" "$root/bin/busybox"
ln -s busybox "$root/bin/sh"
cp "$here/init" "$root/init"
cp "$lh" "$root/linux-hotplug"
chmod 755 "$root/init" "$root/linux-hotplug" "$root/bin/busybox"
out_abs=$(cd "$(dirname "$out")" && pwd)/$(basename "$out")
# busybox's own cpio writes the archive: no host cpio needed.
(cd "$root" && find . | LC_ALL=C sort | "$root/bin/busybox" cpio -o -H newc >"$out_abs" 2>/dev/null)
[ -s "$out_abs" ] || { echo "mkinitramfs: cpio failed" >&2; exit 1; }
