#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Gets Debian's kernel (linux-image-amd64) and busybox-static for the Linux
# VM runs (make bench-linux, the VM test) into build/linux/:
#   build/linux/vmlinuz       the kernel image
#   build/linux/busybox       static busybox for the initramfs
#   build/linux/versions      which packages they came from
# Prints the directory on success; exits 1 with the reason otherwise.
#
# Why `apt-get download` + `dpkg-deb -x` into build/ and not `apt-get
# install`: installing linux-image-* on the host runs its maintainer
# scripts (update-initramfs, the boot loader's hooks, /boot changes) on
# the developer's machine just to get a file we boot under QEMU, and
# busybox-static Conflicts: busybox, which the host's initramfs-tools may
# rely on. Downloading needs no root, changes nothing outside build/, and
# gets the same files. Needs apt's package lists (apt-get update once).
#   KERNEL=/path/to/bzImage  use that kernel instead of Debian's.
set -euo pipefail
cd "$(dirname "$0")/../.."

out=build/linux
mkdir -p "$out/debs"

say() { echo "linux-vm: $*" >&2; }

if [ -s "$out/vmlinuz" ] && [ -x "$out/busybox" ] && [ -s "$out/versions" ] && [ -z "${KERNEL:-}" ]; then
	echo "$out"
	exit 0
fi
command -v apt-get >/dev/null && command -v dpkg-deb >/dev/null ||
	{ say "apt-get/dpkg-deb not found: a Debian or Ubuntu host is needed (or KERNEL=bzImage plus a static busybox at $out/busybox)"; exit 1; }

# apt-get download PKG into $out/debs; once more after apt-get update
# when root and the lists are missing or stale.
download() {
	local pkg=$1
	if (cd "$out/debs" && apt-get download -q "$pkg" >/dev/null 2>"../apt.err"); then return 0; fi
	if [ "$(id -u)" = 0 ]; then
		say "apt-get download $pkg failed; running apt-get update once"
		apt-get update -qq >/dev/null 2>&1 || true
		(cd "$out/debs" && apt-get download -q "$pkg" >/dev/null 2>"../apt.err") && return 0
	fi
	say "cannot download $pkg: $(grep -v unsandboxed "$out/apt.err" | head -2 | tr '\n' ' ')"
	say "(package lists missing? run: sudo apt-get update)"
	return 1
}

# The metapackage names the current kernel package, e.g. linux-image-6.1.0-57-amd64.
if [ -n "${KERNEL:-}" ]; then
	[ -s "$KERNEL" ] || { say "KERNEL=$KERNEL: no such file"; exit 1; }
	cp "$KERNEL" "$out/vmlinuz"
	kver="KERNEL=$KERNEL"
else
	kpkg=$(apt-cache depends linux-image-amd64 2>/dev/null |
		sed -n 's/^ *Depends: \(linux-image-[0-9][^ ]*-amd64\)$/\1/p' | head -1)
	if [ -z "$kpkg" ] && [ "$(id -u)" = 0 ]; then
		apt-get update -qq >/dev/null 2>&1 || true
		kpkg=$(apt-cache depends linux-image-amd64 2>/dev/null |
			sed -n 's/^ *Depends: \(linux-image-[0-9][^ ]*-amd64\)$/\1/p' | head -1)
	fi
	[ -n "$kpkg" ] || { say "linux-image-amd64 is not known to apt here (not Debian, or run: sudo apt-get update)"; exit 1; }
	rm -f "$out"/debs/linux-image-*.deb
	download "$kpkg" || exit 1
	deb=$(ls "$out"/debs/linux-image-*.deb | head -1)
	rm -rf "$out/kpkg"
	mkdir -p "$out/kpkg"
	dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$out/kpkg" --wildcards './boot/vmlinuz-*' './boot/config-*'
	cp "$out"/kpkg/boot/vmlinuz-* "$out/vmlinuz"
	cp "$out"/kpkg/boot/config-* "$out/config"
	kver="$kpkg $(dpkg-deb -f "$deb" Version)"
fi

rm -f "$out"/debs/busybox-static_*.deb
download busybox-static || exit 1
deb=$(ls "$out"/debs/busybox-static_*.deb | head -1)
rm -rf "$out/bbpkg"
mkdir -p "$out/bbpkg"
dpkg-deb -x "$deb" "$out/bbpkg"
cp "$out/bbpkg/bin/busybox" "$out/busybox"
chmod 755 "$out/busybox"
printf 'kernel %s\nbusybox busybox-static %s\n' "$kver" "$(dpkg-deb -f "$deb" Version)" >"$out/versions"
rm -rf "$out/kpkg" "$out/bbpkg" "$out/debs" "$out/apt.err"
echo "$out"
