#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The long lane's machine (tests/linux-session/run.sh): a Debian 12 disk
# image that boots under OVMF through GRUB (EFI, the removable path, so no
# NVRAM boot entry is needed), with apstart's .deb installed, a serial
# console, and a driver unit that runs the lane's steps one per boot
# (tests/linux-session/driver.sh). On the way, in the image's chroot, the
# .deb is installed, set up, removed and purged, and each time checked
# (issue 33: "installs and purges cleanly in a debootstrapped chroot"),
# before it is installed for good.
#
# Root: debootstrap, a loop device and mounts, all under build/. The
# Debian packages are cached in /work/cache (or $APSTART_CACHE), written
# atomically, so a second build needs no network.
#   mkimage.sh DEB OUT.img       (prints check lines; exit 1 on a failure)
set -uo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
deb=$(readlink -f "$1") img=$2
work=$(dirname "$img")/image-build
cache=${APSTART_CACHE:-/work/cache}
pkgs=linux-image-amd64,grub-efi-amd64,systemd-sysv,kexec-tools,e2fsprogs,dosfstools,kmod,udev,efibootmgr,mokutil,initramfs-tools,zstd
tarball=$cache/apstart-bookworm-image-debs.tgz
ok() { echo "ok   $1"; }
fail() { echo "FAIL $1: $2"; shift 2; local d; for d in "$@"; do printf '%s\n' "$d" | sed 's/^/     | /'; done; }
say() { echo "linux-session: $*"; }

loop='' loop_esp='' mnt=$work/mnt
cleanup() {
	for m in usr/sbin/grub-probe usr/bin/systemd-detect-virt usr/bin/ischroot dev proc sys/firmware/efi/efivars sys; do
		mountpoint -q "$mnt/$m" 2>/dev/null && umount -l "$mnt/$m"
	done
	mountpoint -q "$mnt" && umount -l "$mnt"
	[ -n "$loop" ] && losetup -d "$loop" 2>/dev/null
	[ -n "$loop_esp" ] && losetup -d "$loop_esp" 2>/dev/null
}
trap cleanup EXIT
rm -rf "$work"
mkdir -p "$work" "$mnt"

# ---- the Debian tree: from the cached packages, else downloaded (and cached)
mirror=$(sed -n 's/^URIs: *\([^ ]*\).*/\1/p' /etc/apt/sources.list.d/debian.sources 2>/dev/null | grep -v security | head -1)
[ -n "$mirror" ] || mirror=http://deb.debian.org/debian
t0=$SECONDS
if [ ! -s "$tarball" ]; then
	mkdir -p "$cache"
	say "downloading Debian 12's packages into $tarball (once)"
	tmp=$cache/.tmp-$$-$(basename "$tarball")
	if debootstrap --variant=minbase --include="$pkgs" --make-tarball="$tmp" bookworm "$work/dl" "$mirror" >"$work/dl.log" 2>&1; then
		mv "$tmp" "$tarball"
	else
		rm -f "$tmp"
		fail "debootstrap --make-tarball" "see $work/dl.log" "$(tail -n 4 "$work/dl.log")"
		exit 1
	fi
fi
root=$work/rootfs
# the debootstrapped tree itself is cached too (unpacking and configuring
# 150 packages takes minutes under load): keyed by the package list
rootfs_cache=$cache/apstart-bookworm-rootfs-$(echo "$pkgs" | md5sum | cut -c1-8).tar
if [ -s "$rootfs_cache" ] && [ "$rootfs_cache" -nt "$tarball" ]; then
	mkdir -p "$root" && tar -C "$root" -xf "$rootfs_cache" &&
		ok "Debian 12 tree from the cache ($rootfs_cache, $((SECONDS - t0)) s)" ||
		{ fail "untar $rootfs_cache" ""; exit 1; }
elif debootstrap --variant=minbase --include="$pkgs" --unpack-tarball="$tarball" bookworm "$root" "$mirror" >"$work/debootstrap.log" 2>&1; then
	ok "debootstrap Debian 12 (minbase, the kernel, GRUB EFI, systemd, kexec-tools) from the cached packages ($((SECONDS - t0)) s)"
	tmp=$cache/.tmp-$$-$(basename "$rootfs_cache")
	tar -C "$root" -cf "$tmp" . && mv "$tmp" "$rootfs_cache" || rm -f "$tmp"
else
	fail "debootstrap" "see $work/debootstrap.log" "$(tail -n 4 "$work/debootstrap.log")"
	exit 1
fi

# ---- the disk: GPT, an ESP and an ext4 root. Each partition gets a loop
# device of its own at its offset (partition devices of a loop device need
# udev, which a build host may not run).
ESP_START=2048 ESP_SECTORS=409600 ROOT_START=411648
truncate -s 3G "$img.tmp"
sgdisk -n 1:$ESP_START:+$ESP_SECTORS -t 1:EF00 -n 2:$ROOT_START:0 -t 2:8300 "$img.tmp" >/dev/null ||
	{ fail "sgdisk" "cannot partition"; exit 1; }
[ "$(sgdisk -p "$img.tmp" 2>/dev/null | grep -c '^ *[12] ')" = 2 ] || { fail "sgdisk" "the two partitions are not there"; exit 1; }
loop_esp=$(losetup -f --show -o $((ESP_START * 512)) --sizelimit $((ESP_SECTORS * 512)) "$img.tmp") &&
	loop=$(losetup -f --show -o $((ROOT_START * 512)) --sizelimit $(( ($(stat -c %s "$img.tmp") / 512 - 34 - ROOT_START) * 512 )) "$img.tmp") ||
	{ fail "losetup" "no loop device"; exit 1; }
mkfs.vfat -F 32 -n ESP "$loop_esp" >/dev/null && mkfs.ext4 -q -L root "$loop" || { fail "mkfs" "cannot format the partitions"; exit 1; }
# (the ESP is written with mtools: vfat may not be mountable on a build host)
mount "$loop" "$mnt" && cp -a "$root"/. "$mnt"/ && mkdir -p "$mnt/boot/efi" ||
	{ fail "mount and copy" "cannot fill the image"; exit 1; }
for m in proc sys; do mount --bind "/$m" "$mnt/$m"; done
# a /dev of its own: the two loop devices, and the by-uuid link that
# grub-mkconfig looks for before it writes root=UUID= (udev would make it)
mount -t tmpfs tmpfs "$mnt/dev"
for n in "null 1 3" "zero 1 5" "random 1 8" "urandom 1 9" "tty 5 0"; do
	set -- $n
	mknod -m 666 "$mnt/dev/$1" c "$2" "$3"
done
# The loop devices under the names the machine will give the disks
# (10_linux writes no entry for a root on a loop device backed by a file;
# grub-probe finds a device by its number)
for l in "$loop:vda2" "$loop_esp:vda1"; do
	mknod -m 660 "$mnt/dev/${l#*:}" b "$(stat -c %t "${l%%:*}" | xargs printf '%d')" "$(stat -c %T "${l%%:*}" | xargs printf '%d')"
done
mkdir -p "$mnt/dev/disk/by-uuid" "$mnt/dev/pts"
# not this machine's EFI variables: grub-install --no-nvram never writes
# them, and an empty mount hides them from everything in the chroot
mountpoint -q /sys/firmware/efi/efivars && mount -t tmpfs tmpfs "$mnt/sys/firmware/efi/efivars"
in_root() { chroot "$mnt" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 "$@"; }
uuid_root=$(blkid -s UUID -o value "$loop") uuid_esp=$(blkid -s UUID -o value "$loop_esp")
ln -s ../../vda2 "$mnt/dev/disk/by-uuid/$uuid_root"
# grub-probe finds a path's device through the mount table, which names the
# loop device (and 10_linux writes no entry for a root on a loop device
# backed by a file): while the image is built, every path it is asked
# about is /dev/vda2, the name the machine gives the root (a wrapper bound
# over the image's grub-probe; the image's own file is unchanged)
cp "$mnt/usr/sbin/grub-probe" "$work/grub-probe.real"
cat >"$work/grub-probe" <<'EOF2'
#!/bin/sh
# build-time stand-in (tests/linux-session/mkimage.sh): paths are on /dev/vda2
keep=
for a in "$@"; do
	case $a in --device|-d) ;; -*) keep="$keep $a" ;; esac
done
exec /root/grub-probe.real $keep --device /dev/vda2
EOF2
chmod 755 "$work/grub-probe"
cp "$work/grub-probe.real" "$mnt/root/grub-probe.real"
mount --bind "$work/grub-probe" "$mnt/usr/sbin/grub-probe"
# and the build host may be a container, which systemd-detect-virt sees
# through /proc; the machine this image becomes is not one (memtest86+'s
# and apstart's maintainer scripts skip update-grub in a container)
printf '#!/bin/sh\n# build-time stand-in: the machine is not a container\necho none\nexit 1\n' >"$work/detect-virt"
chmod 755 "$work/detect-virt"
mount --bind "$work/detect-virt" "$mnt/usr/bin/systemd-detect-virt"
# nor a chroot (apstart's scripts skip update-grub in one: an image being
# built); this lane checks the entries the package's update-grub writes
printf '#!/bin/sh\n# build-time stand-in: the machine is not a chroot\nexit 1\n' >"$work/ischroot"
chmod 755 "$work/ischroot"
mount --bind "$work/ischroot" "$mnt/usr/bin/ischroot"
printf '%s\n' "UUID=$uuid_root / ext4 errors=remount-ro 0 1" "UUID=$uuid_esp /boot/efi vfat umask=0077 0 1" >"$mnt/etc/fstab"
echo apstart-lane >"$mnt/etc/hostname"
# reboot=acpi: Linux resets through the FADT's reset register (one of
# Linux's reboots under OVMF hung here after "reboot: machine restart")
cat >"$mnt/etc/default/grub" <<'EOF'
GRUB_DEFAULT=0
GRUB_TIMEOUT=1
GRUB_DISTRIBUTOR=Debian
GRUB_CMDLINE_LINUX_DEFAULT=""
GRUB_CMDLINE_LINUX="console=tty0 console=ttyS0,115200 no_timer_check reboot=acpi"
GRUB_TERMINAL="serial console"
GRUB_SERIAL_COMMAND="serial --unit=0 --speed=115200"
EOF
# root on the serial console without a password (the lane's machine only)
mkdir -p "$mnt/etc/systemd/system/serial-getty@ttyS0.service.d"
printf '[Service]\nExecStart=\nExecStart=-/sbin/agetty --autologin root --keep-baud 115200 %%I $TERM\n' \
	>"$mnt/etc/systemd/system/serial-getty@ttyS0.service.d/autologin.conf"
in_root passwd -d root >/dev/null
# GRUB as grub-install would put it (whose probing wants the whole disk):
# its modules in /boot/grub, and on the ESP's removable path an image that
# finds the root by UUID and reads /boot/grub/grub.cfg
mkdir -p "$mnt/boot/grub/x86_64-efi"
cp "$mnt"/usr/lib/grub/x86_64-efi/*.mod "$mnt"/usr/lib/grub/x86_64-efi/*.lst "$mnt/boot/grub/x86_64-efi/"
printf 'search --no-floppy --fs-uuid --set=root %s\nset prefix=($root)/boot/grub\n' "$uuid_root" >"$mnt/root/early.cfg"
if in_root grub-mkimage -O x86_64-efi -p /boot/grub -c /root/early.cfg -o /root/BOOTX64.EFI \
		part_gpt fat ext2 search search_fs_uuid normal configfile echo serial terminal efi_gop all_video \
		>"$work/grub-mkimage.log" 2>&1 &&
	mmd -i "$loop_esp" ::/EFI ::/EFI/BOOT 2>/dev/null && mcopy -i "$loop_esp" "$mnt/root/BOOTX64.EFI" ::/EFI/BOOT/BOOTX64.EFI 2>/dev/null &&
	in_root update-grub >"$work/update-grub.log" 2>&1 &&
	grep -Eq "root=(UUID=$uuid_root|/dev/vda2) " "$mnt/boot/grub/grub.cfg"; then
	ok "GRUB (EFI, removable path \\EFI\\BOOT\\BOOTX64.EFI) and grub.cfg in the image"
else
	fail "grub-mkimage / update-grub in the image" "want root=UUID=$uuid_root" "$(tail -n 5 "$work/grub-mkimage.log" "$work/update-grub.log")" "$(grep -E "^\s*linux|search" "$mnt/boot/grub/grub.cfg" | head -4)"
	exit 1
fi

# ---- the package in a debootstrapped chroot: install, set up, remove, purge
cp "$deb" "$mnt/root/apstart.deb"
unit_links() { find "$mnt/etc/systemd" -name 'apstart*' 2>/dev/null | sed "s|^$mnt||" | sort | tr '\n' ' '; }
if in_root dpkg -i /root/apstart.deb >"$work/dpkg-i.log" 2>&1 && grep -q -- '--id apstart-wbinvd1-serial' "$mnt/boot/grub/grub.cfg" &&
	[ -L "$mnt/etc/systemd/system/sysinit.target.wants/apstart-collect.service" ]; then
	ok "chroot: dpkg -i: the kernels in /boot, the entries in grub.cfg (real update-grub), the units enabled"
else
	fail "chroot: dpkg -i" "" "$(tail -n 6 "$work/dpkg-i.log")" "$(grep menuentry "$mnt/boot/grub/grub.cfg")"
fi
# apstart setup reads this machine's /proc and /sys through the binds: it
# only writes the image's /etc/default/grub.d and runs the image's update-grub
if in_root apstart setup >"$work/setup.log" 2>&1 && grep -q 'memmap=' "$mnt/boot/grub/grub.cfg"; then
	ok "chroot: apstart setup: the reservation in the image's grub.cfg"
else
	fail "chroot: apstart setup" "" "$(tail -n 6 "$work/setup.log")"
fi
in_root dpkg -r apstart >"$work/dpkg-r.log" 2>&1
left=$(grep -Ec "^menuentry .*apstart|multiboot2|memmap" "$mnt/boot/grub/grub.cfg")
if [ "$left" = 0 ] && [ ! -e "$mnt/etc/default/grub.d/apstart.cfg" ] && [ -z "$(unit_links)" ] && [ ! -e "$mnt/boot/apstart-wbinvd0.elf" ]; then
	ok "chroot: dpkg -r: no entry, no reservation in grub.cfg, no unit link, no kernel"
else
	fail "chroot: dpkg -r" "grub.cfg lines naming apstart/memmap: $left; unit links: $(unit_links)" "$(tail -n 4 "$work/dpkg-r.log")"
fi
in_root dpkg -P apstart >"$work/dpkg-p.log" 2>&1
if [ ! -e "$mnt/etc/grub.d/90_apstart" ] && [ ! -e "$mnt/var/lib/apstart" ] && [ -z "$(unit_links)" ] &&
	! find "$mnt/var/lib/systemd" -name 'apstart*' | grep -q . && ! in_root dpkg -s apstart >/dev/null 2>&1; then
	ok "chroot: dpkg -P: nothing of apstart left (conffile, results, units' state)"
else
	fail "chroot: dpkg -P" "" "$(find "$mnt/etc" "$mnt/var/lib" -name '*apstart*')"
fi

# ---- installed for good, with the lane's driver
in_root dpkg -i /root/apstart.deb >"$work/dpkg-i2.log" 2>&1 || { fail "dpkg -i (for the lane)" "" "$(tail -n 4 "$work/dpkg-i2.log")"; exit 1; }
umount "$mnt/usr/sbin/grub-probe" "$mnt/usr/bin/systemd-detect-virt" "$mnt/usr/bin/ischroot" && rm -f "$mnt/root/grub-probe.real"
rm "$mnt/root/apstart.deb"
install -m 755 "$HERE/driver.sh" "$mnt/usr/local/sbin/apstart-lane-driver"
cat >"$mnt/etc/systemd/system/apstart-lane.service" <<'EOF'
[Unit]
Description=apstart's long lane: the next step (tests/linux-session/driver.sh)
After=multi-user.target apstart-collect.service apstart-session.service
[Service]
Type=exec
ExecStart=/usr/local/sbin/apstart-lane-driver
StandardOutput=journal+console
[Install]
WantedBy=multi-user.target
EOF
in_root systemctl enable apstart-lane.service >/dev/null 2>&1
echo 1 >"$mnt/root/lane-step"
cleanup
loop=''
trap - EXIT
mv "$img.tmp" "$img"
ok "image $img ready ($((SECONDS - t0)) s in all)"
