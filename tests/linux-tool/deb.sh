#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# make deb-tests: apstart as installed.
#   1. make install into a staging folder (PREFIX=/usr/local): the files,
#      the substituted paths, the installed program runs.
#   2. the .deb (make deb): its files and conffile, md5sums, the kernels
#      load the build's bytes, lintian finds no error.
#   3. installed, set up, removed and purged with dpkg --root in a root
#      made of this machine's /usr (read-only, in a mount namespace of its
#      own) and empty /etc, /var, /boot (tests/linux-tool/deb-root.sh): the
#      maintainer scripts run chrooted there, with update-grub and systemctl
#      as recording fakes first on dpkg's PATH (/usr/local/sbin); the
#      units' links, the GRUB entries and the reservation come and go.
# (The same in a debootstrapped Debian: make linux-deb-chroot, long.)
#   DEB=build/deb/apstart_V_amd64.deb APLOG=build/host/aplog deb.sh
set -uo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT_DIR=$(cd "$HERE/../.." && pwd)
cd "$ROOT_DIR" || exit 2
# shellcheck source=tests/protocol.sh
. tests/protocol.sh
: "${DEB:?}" "${APLOG:=build/host/aplog}"
T=$(mktemp -d "${TMPDIR:-/tmp}/deb-tests.XXXXXX") || exit 1
trap 'rm -rf -- "$T"' EXIT

# ---- 1. make install
D=$T/inst
if make --no-print-directory -s install DESTDIR="$D" PREFIX=/usr/local >"$T/install.out" 2>&1; then
	ok "make install DESTDIR=... PREFIX=/usr/local"
else
	fail "make install" "(below)" "$(tail -n 5 "$T/install.out")"
fi
want="boot/apstart-wbinvd0.elf boot/apstart-wbinvd1.elf etc/grub.d/90_apstart usr/local/bin/aplog
usr/local/bin/aprealmode
usr/local/lib/apstart/collect.sh usr/local/lib/apstart/common.sh usr/local/lib/apstart/facts.sh
usr/local/lib/apstart/grub-menu.awk usr/local/lib/apstart/grub.sh
usr/local/lib/apstart/region.sh usr/local/lib/apstart/run.sh usr/local/lib/apstart/session.sh
usr/local/lib/apstart/setup.sh usr/local/lib/apstart/trampoline.sh usr/local/lib/apstart/watchdog.sh
usr/local/lib/systemd/system/apstart-collect.service
usr/local/lib/systemd/system/apstart-session.service usr/local/sbin/apstart
usr/local/share/man/man1/aplog.1 usr/local/share/man/man1/aprealmode.1 usr/local/share/man/man8/apstart.8"
got=$(cd "$D" 2>/dev/null && find . -type f | sed 's|^\./||' | sort | tr '\n' ' ')
[ "$got" = "$(tr '\n' ' ' <<<"$want" | tr -s ' ' | sed 's/ $//') " ] && ok "make install: the 21 files in their places" ||
	fail "make install: the files" "got: $got"
if grep -q '^ExecStart=/usr/local/sbin/apstart collect --boot$' "$D/usr/local/lib/systemd/system/apstart-collect.service" &&
	grep -q '^APSTART_LIBDIR=${APSTART_LIBDIR:-/usr/local/lib/apstart}$' "$D/usr/local/sbin/apstart" &&
	grep -q '^: "${APSTART_MENU_AWK:=/usr/local/lib/apstart/grub-menu.awk}"$' "$D/etc/grub.d/90_apstart" &&
	! grep -rq '@[A-Z]*@' "$D/usr/local/sbin/apstart" "$D/usr/local/lib/systemd" "$D/usr/local/share/man" "$D/etc/grub.d"; then
	ok "make install: PREFIX in the program, the GRUB script, the units and the manuals, no @...@ left"
else
	fail "make install: PREFIX substituted" "" "$(grep -rn '@[A-Z]*@\|ExecStart\|^APSTART_LIBDIR' "$D/usr/local" | head -5)"
fi
v=$(APSTART_LIBDIR="$D/usr/local/lib/apstart" "$D/usr/local/sbin/apstart" --version 2>&1)
[ "$v" = "apstart $(make -s --no-print-directory -f Makefile -p 2>/dev/null | sed -n 's/^VERSION := //p' | head -1)" ] &&
	ok "make install: the installed apstart runs ($v)" || fail "make install: the installed apstart runs" "$v"

# ---- 2. the package
X=$T/deb
dpkg-deb -x "$DEB" "$X" && dpkg-deb -e "$DEB" "$X/DEBIAN" || fail "dpkg-deb -x" "cannot unpack $DEB"
for f in boot/apstart-wbinvd0.elf boot/apstart-wbinvd1.elf etc/grub.d/90_apstart usr/sbin/apstart usr/bin/aplog usr/bin/aprealmode \
	usr/lib/apstart/run.sh usr/lib/systemd/system/apstart-collect.service usr/lib/systemd/system/apstart-session.service \
	usr/share/man/man8/apstart.8.gz usr/share/man/man1/aplog.1.gz usr/share/man/man1/aprealmode.1.gz usr/share/doc/apstart/copyright \
	usr/share/doc/apstart/changelog.gz; do
	[ -f "$X/$f" ] || missing="${missing:-} $f"
done
[ -z "${missing:-}" ] && ok "deb: kernels in /boot, the GRUB script, apstart, aplog, aprealmode, units (in /usr/lib/systemd/system), manuals, copyright" ||
	fail "deb: files" "missing:$missing"
[ ! -e "$X/lib" ] && ok "deb: nothing in /lib (the units are in /usr/lib/systemd/system)" || fail "deb: nothing in /lib" "$(find "$X/lib" | head -3)"
grep -q '^TimeoutStartSec=2min$' "$X/usr/lib/systemd/system/apstart-collect.service" &&
	ok "deb: the collect unit, which sysinit.target waits for, has TimeoutStartSec=" ||
	fail "deb: the collect unit's TimeoutStartSec" "" "$(cat "$X/usr/lib/systemd/system/apstart-collect.service")"
# The maintainer scripts' rules, read in the scripts (the dpkg --root part
# below runs them): update-grub never fatal and not in a chroot; the
# units enabled by dh_installsystemd's was-enabled rule, not every time.
for sc in postinst postrm; do
	if grep -q 'update-grub 3>&- || echo' "$X/DEBIAN/$sc" && grep -q 'ischroot' "$X/DEBIAN/$sc" &&
		! grep -Eq '^[[:space:]]*update-grub 3>&-[[:space:]]*$' "$X/DEBIAN/$sc"; then
		ok "deb: $sc: update-grub guarded by ischroot, its failure not fatal under set -e"
	else
		fail "deb: $sc: update-grub guarded and not fatal" "" "$(grep -n 'update-grub\|ischroot' "$X/DEBIAN/$sc")"
	fi
done
grep -q 'was-enabled' "$X/DEBIAN/postinst" && ok "deb: postinst: enables a unit only when it was (deb-systemd-helper was-enabled)" ||
	fail "deb: postinst: was-enabled" "" "$(grep -n 'deb-systemd-helper' "$X/DEBIAN/postinst")"
[ "$(cat "$X/DEBIAN/conffiles")" = /etc/grub.d/90_apstart ] && [ -x "$X/etc/grub.d/90_apstart" ] &&
	ok "deb: /etc/grub.d/90_apstart is an executable conffile" || fail "deb: conffile" "$(cat "$X/DEBIAN/conffiles")"
(cd "$X" && md5sum --quiet -c DEBIAN/md5sums) >"$T/md5.out" 2>&1 && ok "deb: md5sums match" || fail "deb: md5sums" "" "$(head -3 "$T/md5.out")"
for w in 0 1; do
	objcopy -O binary "build/wbinvd$w/apstart.elf" "$T/built$w.bin" && objcopy -O binary "$X/boot/apstart-wbinvd$w.elf" "$T/packed$w.bin"
	if cmp -s "$T/built$w.bin" "$T/packed$w.bin" && [ -s "$T/built$w.bin" ] && ! readelf -S "$X/boot/apstart-wbinvd$w.elf" | grep -q symtab; then
		ok "deb: /boot/apstart-wbinvd$w.elf is stripped and loads the build's $(stat -c %s "$T/built$w.bin") bytes"
	else
		fail "deb: /boot/apstart-wbinvd$w.elf loads the build's bytes" "differs from build/wbinvd$w/apstart.elf"
	fi
done
# a real DER certificate is shipped; a DER private key (which also starts
# with 0x30) never is
openssl req -x509 -newkey rsa:2048 -nodes -keyout "$T/key.pem" -subj /CN=apstart-test -days 1 \
	-outform DER -out "$T/cert.der" >/dev/null 2>&1
openssl pkey -in "$T/key.pem" -outform DER -out "$T/key.der" 2>/dev/null
if ! DEB_VERSION=0.1 DEB_CERT="$T/key.der" APLOG="$APLOG" APREALMODE="${APREALMODE:-build/host/aprealmode}" tools/linux/deb/mkdeb.sh "$T/debkey" >"$T/debkey.out" 2>&1 &&
	grep -q "DEB_CERT=$T/key.der is not a DER X.509 certificate" "$T/debkey.out" && [ ! -e "$T/debkey/apstart_0.1_amd64.deb" ] &&
	[ "$(od -An -tx1 -N1 "$T/key.der" | tr -d ' ')" = 30 ]; then
	ok "make deb DEB_CERT=a DER private key: refused (it starts with 0x30 too)"
else
	fail "make deb DEB_CERT=a DER private key" "not refused" "$(tail -n 3 "$T/debkey.out")"
fi
# The listing into a file: grep -q behind a pipe would end it early and
# dpkg-deb would die of SIGPIPE (seen: "tar subprocess was killed").
if DEB_VERSION=0.1 DEB_CERT="$T/cert.der" APLOG="$APLOG" APREALMODE="${APREALMODE:-build/host/aprealmode}" tools/linux/deb/mkdeb.sh "$T/debcert" >"$T/debcert.out" 2>&1 &&
	dpkg-deb -c "$T/debcert/apstart_0.1_amd64.deb" >"$T/debcert.list" 2>&1 &&
	grep -q ' ./usr/share/apstart/apstart-mok.der$' "$T/debcert.list"; then
	ok "make deb DEB_CERT=FILE.der: the certificate as /usr/share/apstart/apstart-mok.der"
else
	fail "make deb DEB_CERT=" "" "$(tail -n 3 "$T/debcert.out")"
fi
if command -v lintian >/dev/null; then
	lintian --no-tag-display-limit "$DEB" >"$T/lintian.out" 2>&1
	ne=$(grep -c '^E: ' "$T/lintian.out") nw=$(grep -c '^W: ' "$T/lintian.out")
	[ "$ne" = 0 ] && ok "lintian: no errors ($nw warnings)" || fail "lintian: no errors" "$ne errors" "$(grep '^[EW]: ' "$T/lintian.out")"
	[ "$nw" = 0 ] || grep '^W: ' "$T/lintian.out" | sed 's/^/deb-tests: lintian /'
else
	skip "lintian" "lintian is not installed (apt-get install lintian)"
fi

# ---- 3. dpkg --root: install, setup, remove, purge
if [ "$(id -u)" != 0 ]; then
	skip "dpkg --root install/remove/purge" "needs root (a mount namespace, dpkg's chroot)"
elif ! command -v unshare >/dev/null; then
	skip "dpkg --root install/remove/purge" "unshare is not installed (util-linux)"
else
	unshare -m --propagation private bash "$HERE/deb-root.sh" "$ROOT_DIR/$DEB" "$T/root" >"$T/root.out" 2>&1
	st=$?
	while IFS= read -r line; do
		case $line in
		"ok   "*) ok "${line#ok   }" ;;
		"FAIL "*) n=${line#FAIL }; fail "${n%%: *}" "${n#*: }" ;;
		"skip "*) n=${line#skip }; skip "${n%%: *}" "${n#*: }" ;;
		*) printf '     | %s\n' "$line" ;;
		esac
	done <"$T/root.out"
	[ $st = 0 ] || grep -q '^FAIL ' "$T/root.out" || fail "dpkg --root" "deb-root.sh exit status $st"
fi
summary deb
