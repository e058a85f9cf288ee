#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Part of make deb-tests, run by deb.sh inside a mount namespace of its own
# (unshare -m): a root made of overlays of this machine's /usr (writes go
# to the overlay, never to /usr) and empty /etc, /var, /boot, with fake
# /proc and /sys files (nothing is mounted there); in it the real
# update-grub, systemctl, kexec, reboot... are deleted (whiteouts in the
# overlay) and the recording fakes of tests/linux-tool/fake-bin are in
# /usr/local/sbin, first on the PATH dpkg gives maintainer scripts. The .deb is installed, set up,
# removed and purged with dpkg --root (which runs the maintainer scripts
# chrooted there). Prints check lines for deb.sh to count.
#   deb-root.sh PACKAGE.deb ROOT
set -uo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
deb=$1 R=$2
ok() { echo "ok   $1"; }
fail() { echo "FAIL $1: $2"; shift 2; local d; for d in "$@"; do printf '%s\n' "$d" | sed 's/^/  /'; done; }

mkdir -p "$R"/{usr,etc/default/grub.d,etc/grub.d,var/lib/dpkg/info,var/lib/dpkg/updates,var/lib/dpkg/triggers,var/log} \
	"$R"/{boot/grub,proc/sys/kernel,sys/firmware/memmap,sys/kernel,dev,run,tmp,root}
# This machine's /usr and /bin, /lib...: as overlays, so that the package's
# files land in the overlay's upper folder and this machine's stay as they
# are. The tools that could change a machine are deleted in the overlay
# (whiteouts: there only) and their recording fakes go first on the PATH.
overlay() { # DIR
	local up=$R.upper$1
	mkdir -p "$up/u" "$up/w" "$R$1"
	mount -t overlay overlay -o "lowerdir=$1,upperdir=$up/u,workdir=$up/w" "$R$1"
}
if ! grep -qw overlay /proc/filesystems; then
	echo "skip dpkg --root install/remove/purge: this kernel has no overlay file system"
	exit 0
fi
overlay /usr || { fail "deb root" "cannot mount an overlay of /usr"; exit 1; }
for d in bin sbin lib lib32 lib64 libx32; do
	if [ -L "/$d" ]; then ln -s "$(readlink "/$d")" "$R/$d"
	elif [ -d "/$d" ]; then overlay "/$d" || { fail "deb root" "cannot mount an overlay of /$d"; exit 1; }; fi
done
for t in update-grub update-grub2 grub-mkconfig grub-reboot grub-set-default kexec reboot shutdown halt poweroff \
	systemctl mokutil modprobe mount chattr; do
	for d in usr/sbin usr/bin sbin bin; do
		[ -e "$R/$d/$t" ] && [ ! -L "$R/$d" ] && rm -f "$R/$d/$t"
	done
done
mkdir -p "$R/usr/local/sbin" "$R/usr/local/lib"
cp "$HERE"/fake-bin/* "$R/usr/local/sbin/"
# the system's own entries, as Debian's 10_linux and 41_custom write them
cp "$HERE/fake-grub.d/10_linux" "$HERE/fake-grub.d/41_custom" "$R/etc/grub.d/"
cp "$HERE/grub-mkconfig_lib-stub" "$R/usr/local/lib/"
: >"$R/var/lib/dpkg/status"
cp -a /etc/alternatives "$R/etc/" # awk, pager...: Debian's alternatives
printf 'root:x:0:0:root:/root:/bin/sh\n' >"$R/etc/passwd"
printf 'root:x:0:\n' >"$R/etc/group"
echo 'GRUB_CMDLINE_LINUX="console=ttyS0,115200"' >"$R/etc/default/grub"
{ echo "# grub.cfg before apstart"; GRUB_CMDLINE_LINUX="console=ttyS0,115200" "$HERE/fake-grub.d/10_linux"; } >"$R/boot/grub/grub.cfg"
echo "BOOT_IMAGE=/boot/vmlinuz root=/dev/vda1 ro console=ttyS0,115200" >"$R/proc/cmdline"
printf '%s\n' "/dev/vda1 / ext4 rw 0 0" >"$R/proc/mounts"
printf '%s\n' "00100000-7ffdffff : System RAM" >"$R/proc/iomem"
printf 'flags\t\t: fpu apic\n' >"$R/proc/cpuinfo"
echo "1000.0 1000.0" >"$R/proc/uptime"
mkdir -p "$R/sys/firmware/memmap/0"
echo 0x100000 >"$R/sys/firmware/memmap/0/start"
echo 0x7ffdffff >"$R/sys/firmware/memmap/0/end"
echo "System RAM" >"$R/sys/firmware/memmap/0/type"
echo 0 >"$R/sys/kernel/kexec_loaded"
calls=$R/var/log/fake-calls
export APSTART_ROOT='' FAKE_LOG=/var/log/fake-calls FAKE_GRUB_LIB=/usr/local/lib/grub-mkconfig_lib-stub
dpkg_r() { dpkg --root="$R" --force-depends --force-unsafe-io "$@"; }
in_root() { chroot "$R" /usr/bin/env -i PATH=/usr/local/sbin:/usr/sbin:/usr/bin APSTART_ROOT= \
	FAKE_LOG=/var/log/fake-calls FAKE_GRUB_LIB=/usr/local/lib/grub-mkconfig_lib-stub "$@"; }
unit_links() { find "$R/etc/systemd" "$R/var/lib/systemd" -name 'apstart*' 2>/dev/null | sed "s|^$R||" | sort | tr '\n' ' '; }
have_dsh=0
command -v deb-systemd-helper >/dev/null && have_dsh=1

# install
if dpkg_r -i "$deb" >"$R/tmp/install.out" 2>&1 && dpkg --root="$R" -s apstart 2>/dev/null | grep -q '^Status: install ok installed'; then
	ok "dpkg --root -i: installed (maintainer scripts chrooted, fakes for update-grub and systemctl)"
else
	fail "dpkg --root -i" "not installed" "$(tail -n 8 "$R/tmp/install.out")"
fi
grep -q '^update-grub$' "$calls" && grep -q -- '--id apstart-wbinvd0 ' "$R/boot/grub/grub.cfg" &&
	grep -q -- '--id apstart-wbinvd1-serial ' "$R/boot/grub/grub.cfg" &&
	ok "postinst: update-grub; the four entries with their --id in grub.cfg" ||
	fail "postinst: update-grub and the entries" "" "$(cat "$calls" 2>/dev/null)" "$(grep menuentry "$R/boot/grub/grub.cfg")"
if [ $have_dsh = 1 ]; then
	links=$(unit_links)
	[[ $links == *"/etc/systemd/system/sysinit.target.wants/apstart-collect.service"* ]] &&
		[[ $links == *"/etc/systemd/system/multi-user.target.wants/apstart-session.service"* ]] &&
		ok "postinst: the units enabled (sysinit.target.wants, multi-user.target.wants)" || fail "postinst: the units enabled" "links: $links"
else
	echo "skip postinst: the units enabled: deb-systemd-helper is not installed (init-system-helpers)"
fi
grep -q '^systemctl' "$calls" && fail "postinst: no systemctl without systemd running" "$(grep systemctl "$calls")" ||
	ok "postinst: systemctl not called (systemd does not run in this root)"

# set up, a result kept
if in_root apstart setup >"$R/tmp/setup.out" 2>&1 && grep -q 'memmap=3M\\\$0x10000000' "$R/boot/grub/grub.cfg"; then
	ok "apstart setup in the root: the reservation in grub.cfg (memmap=3M\\\$0x10000000)"
else
	fail "apstart setup in the root" "" "$(tail -n 6 "$R/tmp/setup.out")" "$(grep linux "$R/boot/grub/grub.cfg")"
fi
mkdir -p "$R/var/lib/apstart"
echo "@boot kernel=apstart" >"$R/var/lib/apstart/run-0001.log"

# remove
: >"$calls"
if dpkg_r -r apstart >"$R/tmp/remove.out" 2>&1; then ok "dpkg --root -r apstart"
else fail "dpkg --root -r" "" "$(tail -n 8 "$R/tmp/remove.out")"; fi
left=$(grep -Ec "^menuentry .*apstart|multiboot2|memmap" "$R/boot/grub/grub.cfg")
[ ! -e "$R/etc/default/grub.d/apstart.cfg" ] && [ "$left" = 0 ] && [ "$(grep -c '^update-grub$' "$calls")" = 1 ] &&
	ok "remove: no reservation, no entry in grub.cfg (one update-grub)" ||
	fail "remove: no reservation, no entry" "grub.cfg lines with apstart/memmap: $left" "$(cat "$calls")" "$(cat "$R/boot/grub/grub.cfg")"
[ -z "$(unit_links | tr -d ' ' | sed 's|/var/lib/systemd/deb-systemd-helper-enabled/[^ ]*||g')" ] &&
	! ls "$R"/usr/lib/systemd/system/apstart* >/dev/null 2>&1 && ok "remove: no unit and no unit link left in /etc/systemd" ||
	fail "remove: no unit left" "$(unit_links)"
[ ! -e "$R/boot/apstart-wbinvd0.elf" ] && [ -f "$R/var/lib/apstart/run-0001.log" ] && [ -f "$R/etc/grub.d/90_apstart" ] &&
	ok "remove: kernels gone; results and the conffile kept until purge" || fail "remove: kept and gone" "$(ls "$R/boot" "$R/var/lib/apstart" "$R/etc/grub.d")"

# purge
if dpkg_r -P apstart >"$R/tmp/purge.out" 2>&1; then ok "dpkg --root -P apstart"
else fail "dpkg --root -P" "" "$(tail -n 8 "$R/tmp/purge.out")"; fi
[ ! -e "$R/etc/grub.d/90_apstart" ] && [ ! -e "$R/var/lib/apstart" ] && [ -z "$(unit_links)" ] &&
	! dpkg --root="$R" -s apstart 2>/dev/null | grep -q 'Status: install' &&
	ok "purge: conffile, results, the units' state gone; not installed" ||
	fail "purge: all gone" "left: $(unit_links) $(ls -d "$R/etc/grub.d/90_apstart" "$R/var/lib/apstart" 2>/dev/null)"

# The maintainer scripts' rules (issue 38).
wants="$R/etc/systemd/system/sysinit.target.wants/apstart-collect.service $R/etc/systemd/system/multi-user.target.wants/apstart-session.service"
if [ $have_dsh = 1 ]; then
	# A unit the administrator disabled stays disabled on the next configure.
	dpkg_r -i "$deb" >"$R/tmp/install2.out" 2>&1
	# shellcheck disable=SC2086
	rm -f $wants # what systemctl disable (or apstart setup --undo) removes
	if dpkg_r -i "$deb" >"$R/tmp/reinstall.out" 2>&1 && ! ls $wants >/dev/null 2>&1; then
		ok "postinst: a reinstall (configure again) leaves the units the administrator disabled disabled"
	else
		fail "postinst: disabled units stay disabled" "links back: $(unit_links)"
	fi
	dpkg_r -P apstart >/dev/null 2>&1
else
	echo "skip postinst: disabled units stay disabled: deb-systemd-helper is not installed (init-system-helpers)"
fi
# update-grub failing does not fail the installation
: >"$calls"
if FAKE_UPDATE_GRUB_FAIL="no such device" dpkg_r -i "$deb" >"$R/tmp/install3.out" 2>&1 &&
	dpkg --root="$R" -s apstart 2>/dev/null | grep -q '^Status: install ok installed' &&
	grep -q "apstart: warning: update-grub failed" "$R/tmp/install3.out"; then
	ok "postinst: update-grub failing: installed all the same, the failure said"
else
	fail "postinst: update-grub failing is not fatal" "" "$(tail -n 6 "$R/tmp/install3.out")"
fi
# in a chroot (an image being built): no update-grub
: >"$calls"
if FAKE_ISCHROOT=0 dpkg_r -i "$deb" >"$R/tmp/install4.out" 2>&1 && ! grep -q '^update-grub' "$calls" &&
	grep -q "apstart: in a chroot: update-grub not run" "$R/tmp/install4.out"; then
	ok "postinst: in a chroot (ischroot): update-grub not run, said"
else
	fail "postinst: in a chroot" "" "$(cat "$calls")" "$(tail -n 4 "$R/tmp/install4.out")"
fi
FAKE_ISCHROOT=0 dpkg_r -P apstart >"$R/tmp/purge4.out" 2>&1
! grep -q '^update-grub' "$calls" && ok "postrm: in a chroot: update-grub not run" || fail "postrm: in a chroot" "" "$(cat "$calls")"
# an upgrade from the package that had /etc/grub.d/20_apstart: the
# conffile moves (dpkg keeps an obsolete one, which would write every
# entry twice, the first before 20_memtest86+)
old=$R/tmp/old
rm -rf "$old"
dpkg-deb -R "$deb" "$old"
mv "$old/etc/grub.d/90_apstart" "$old/etc/grub.d/20_apstart"
echo /etc/grub.d/20_apstart >"$old/DEBIAN/conffiles"
sed -i 's|etc/grub.d/90_apstart|etc/grub.d/20_apstart|' "$old/DEBIAN/md5sums"
sed -i 's/^Version: .*/Version: 0.1~old/' "$old/DEBIAN/control"
rm -f "$old/DEBIAN/preinst"
dpkg-deb --root-owner-group -b "$old" "$R/tmp/apstart_old.deb" >/dev/null 2>&1
if dpkg_r -i "$R/tmp/apstart_old.deb" >"$R/tmp/old.out" 2>&1 && [ -f "$R/etc/grub.d/20_apstart" ] &&
	dpkg_r -i "$deb" >"$R/tmp/upgrade.out" 2>&1 && [ ! -e "$R/etc/grub.d/20_apstart" ] && [ -x "$R/etc/grub.d/90_apstart" ] &&
	[ "$(grep -c '^menuentry .*--id apstart-' "$R/boot/grub/grub.cfg")" = 4 ]; then
	ok "upgrade from 20_apstart: the conffile moved to 90_apstart (mv_conffile), grub.cfg has each entry once"
else
	fail "upgrade from 20_apstart" "" "$(ls "$R/etc/grub.d")" "$(grep -c '^menuentry .*--id apstart-' "$R/boot/grub/grub.cfg")" "$(tail -n 4 "$R/tmp/upgrade.out")"
fi
dpkg_r -P apstart >/dev/null 2>&1
exit 0
