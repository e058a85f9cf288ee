#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Gets Debian's kernel (linux-image-amd64) and busybox-static for the Linux
# VM runs (make bench-linux, the VM test) into build/linux/:
#   build/linux/vmlinuz       the kernel image
#   build/linux/vmlinux       the same kernel uncompressed (the bzImage's XZ
#                             payload), when it has the PVH entry note
#                             (CONFIG_PVH): QEMU -kernel boots it straight
#                             into Linux, ~5 s of TCG less per boot than
#                             the bzImage's decompressor (the VM lanes);
#                             absent otherwise (they boot vmlinuz)
#   build/linux/busybox       static busybox for the initramfs
#   build/linux/modules/      ramoops.ko and reed_solomon.ko from the same
#                             kernel package (Debian builds ramoops as a
#                             module: the pstore lane loads it); and a
#                             virtio disk's and ext4's modules (virtio*.ko,
#                             ext4.ko, jbd2.ko, mbcache.ko, crc16.ko,
#                             crc32c_generic.ko: the
#                             apstart-on-Linux VM keeps its files on a disk);
#                             and the hardware watchdogs' (watchdog.ko,
#                             i6300esb.ko; iTCO_wdt.ko with lpc_ich.ko,
#                             iTCO_vendor_support.ko, intel_pmc_bxt.ko for
#                             q35's TCO: the watchdog run of the VM lane)
#   build/linux/kexec/        kexec-tools' files and the Xen libraries its
#                             kexec links (libxenctrl...), for a copy in
#                             the initramfs (tests/kexec)
#   build/linux/versions      which packages they came from
# Prints the directory on success; exits 1 with the reason otherwise.
#
# Why `apt-get download` + `dpkg-deb -x` into build/ and not `apt-get
# install`: installing linux-image-* on the host runs its maintainer
# scripts (update-initramfs, the boot loader's hooks, /boot changes) on
# the developer's machine just to get a file we boot under QEMU, and
# busybox-static Conflicts: busybox, which the host's initramfs-tools may
# rely on; and installing kexec-tools asks (debconf, default yes) to make
# the host's own reboots go through kexec. Downloading needs no root, changes nothing outside build/, and
# gets the same files. Needs apt's package lists (apt-get update once).
#   KERNEL=/path/to/bzImage  use that kernel instead of Debian's.
set -euo pipefail
cd "$(dirname "$0")/../../.."

out=build/linux
mkdir -p "$out/debs"

say() { echo "linux-vm: $*" >&2; }

# vmlinux: the bzImage's payload (the boot protocol's setup_sects at
# 0x1f1, payload_offset and payload_length at 0x248: Linux's
# Documentation/arch/x86/boot.rst), kept where it is XZ and the ELF
# carries XEN_ELFNOTE_PHYS32_ENTRY (note 18), which QEMU's -kernel needs
# for an ELF (PVH boot). Written under a private name, then renamed: the
# VM lanes may call this side by side.
extract_vmlinux() {
	local img=$out/vmlinuz tmp=$out/vmlinux.$$ sects off len
	rm -f "$out/vmlinux"
	sects=$(od -An -tu1 -j $((0x1f1)) -N1 "$img" | tr -d ' ')
	[ "${sects:-0}" = 0 ] && sects=4
	read -r off len < <(od -An -tu4 -j $((0x248)) -N8 "$img")
	if ! dd if="$img" iflag=skip_bytes,count_bytes skip=$(((sects + 1) * 512 + off)) count="$len" bs=64K status=none |
		xz -dc --single-stream >"$tmp" 2>/dev/null ||
		! readelf -n "$tmp" 2>/dev/null | grep -q '^ *Xen .*(0x00000012)'; then
		say "$img: no XZ payload with the PVH entry note (CONFIG_PVH): the VM lanes boot the bzImage"
		rm -f "$tmp"
		return 0
	fi
	mv "$tmp" "$out/vmlinux"
}

if [ -s "$out/vmlinuz" ] && [ -x "$out/busybox" ] && [ -s "$out/versions" ] &&
	[ -s "$out/modules/ramoops.ko" ] && [ -s "$out/modules/crc32c_generic.ko" ] && [ -s "$out/modules/intel_pmc_bxt.ko" ] &&
	[ -x "$out/kexec/sbin/kexec" ] &&
	[ -z "${KERNEL:-}" ]; then
	[ -s "$out/vmlinux" ] || extract_vmlinux
	echo "$out"
	exit 0
fi
command -v apt-get >/dev/null && command -v dpkg-deb >/dev/null ||
	{ say "apt-get/dpkg-deb not found: a Debian or Ubuntu host is needed (or KERNEL=bzImage plus a static busybox at $out/busybox)"; exit 1; }

# apt-get download PKG... into $out/debs, all in one apt-get (each apt
# run reads every package list: ~1 CPU-s here, where apt keeps no cache);
# once more after apt-get update when root and the lists are missing or
# stale.
download() {
	if (cd "$out/debs" && apt-get download -q "$@" >/dev/null 2>"../apt.err"); then return 0; fi
	if [ "$(id -u)" = 0 ]; then
		say "apt-get download $* failed; running apt-get update once"
		apt-get update -qq >/dev/null 2>&1 || true
		(cd "$out/debs" && apt-get download -q "$@" >/dev/null 2>"../apt.err") && return 0
	fi
	say "cannot download $*: $(grep -v unsandboxed "$out/apt.err" | head -2 | tr '\n' ' ')"
	say "(package lists missing? run: sudo apt-get update)"
	return 1
}

# The metapackage names the current kernel package, e.g. linux-image-6.1.0-57-amd64.
kpkg=
if [ -n "${KERNEL:-}" ]; then
	[ -s "$KERNEL" ] || { say "KERNEL=$KERNEL: no such file"; exit 1; }
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
fi

# The kernel's package, busybox-static, kexec-tools and the libraries its
# kexec needs that a minimal Debian may lack (libxenctrl and the Xen
# libraries under it, libyajl), downloaded by one apt-get.
kx_pkgs="kexec-tools $(apt-cache depends --recurse --no-recommends --no-suggests --no-conflicts \
	--no-breaks --no-replaces --no-enhances kexec-tools 2>/dev/null |
	sed -n 's/^ *Depends: \(libxen[a-z0-9.-]*\|libyajl[0-9]*\)$/\1/p' | sort -u | tr '\n' ' ')"
for p in busybox-static $kx_pkgs; do rm -f "$out"/debs/"$p"_*.deb; done
# shellcheck disable=SC2086 # one word per package
download $kpkg busybox-static $kx_pkgs || exit 1

if [ -n "${KERNEL:-}" ]; then
	cp "$KERNEL" "$out/vmlinuz"
	kver="KERNEL=$KERNEL"
else
	deb=$(ls "$out"/debs/linux-image-*.deb | head -1)
	rm -rf "$out/kpkg"
	mkdir -p "$out/kpkg"
	dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$out/kpkg" --wildcards './boot/vmlinuz-*' './boot/config-*' \
		'./lib/modules/*/kernel/fs/pstore/ramoops.ko' '*/reed_solomon.ko' '*/virtio*.ko' '*/ext4.ko' '*/jbd2.ko' \
		'*/mbcache.ko' '*/crc16.ko' '*/crc32c_generic.ko' '*/watchdog/watchdog.ko' '*/i6300esb.ko' '*/iTCO_wdt.ko' \
		'*/lpc_ich.ko' '*/iTCO_vendor_support.ko' '*/intel_pmc_bxt.ko'
	cp "$out"/kpkg/boot/vmlinuz-* "$out/vmlinuz"
	cp "$out"/kpkg/boot/config-* "$out/config"
	rm -rf "$out/modules"
	mkdir -p "$out/modules"
	find "$out/kpkg" \( -name ramoops.ko -o -name reed_solomon.ko -o -name virtio.ko -o -name virtio_ring.ko \
		-o -name 'virtio_pci*.ko' -o -name virtio_blk.ko -o -name ext4.ko \
		-o -name jbd2.ko -o -name mbcache.ko -o -name crc16.ko -o -name crc32c_generic.ko -o -name watchdog.ko \
		-o -name i6300esb.ko -o -name iTCO_wdt.ko -o -name lpc_ich.ko \
		-o -name iTCO_vendor_support.ko -o -name intel_pmc_bxt.ko \) -exec cp {} "$out/modules/" \;
	kver="$kpkg $(dpkg-deb -f "$deb" Version)"
fi

deb=$(ls "$out"/debs/busybox-static_*.deb | head -1)
rm -rf "$out/bbpkg"
mkdir -p "$out/bbpkg"
dpkg-deb -x "$deb" "$out/bbpkg"
cp "$out/bbpkg/bin/busybox" "$out/busybox"
chmod 755 "$out/busybox"
bbver=$(dpkg-deb -f "$deb" Version)

# kexec-tools and its libraries: extracted side by side; mkinitramfs.sh
# --kexec copies what ldd names.
rm -rf "$out/kexec"
mkdir -p "$out/kexec"
kxver=
for p in $kx_pkgs; do
	d=$(ls "$out"/debs/"$p"_*.deb | head -1)
	dpkg-deb -x "$d" "$out/kexec"
	[ "$p" = kexec-tools ] && kxver=$(dpkg-deb -f "$d" Version)
done
[ -x "$out/kexec/sbin/kexec" ] || { say "kexec-tools has no sbin/kexec"; exit 1; }
printf 'kernel %s\nbusybox busybox-static %s\nkexec kexec-tools %s (%s)\n' "$kver" "$bbver" "$kxver" \
	"$(echo $kx_pkgs | tr ' ' ',')" >"$out/versions"
rm -rf "$out/kpkg" "$out/bbpkg" "$out/debs" "$out/apt.err"
extract_vmlinux
echo "$out"
