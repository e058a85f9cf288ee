#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# make install: apstart beside the distribution's kernel (memtest86+'s
# layout): the kernels in /boot and the GRUB script in /etc/grub.d (always
# there: GRUB looks nowhere else), the rest under PREFIX. Writes into
# DESTDIR (a staging tree for packages); runs nothing on this machine
# (no update-grub, no systemctl: the package's maintainer scripts do that,
# and 'apstart setup' on a make install).
#   PREFIX=/usr/local DESTDIR= UNITDIR=... VERSION=... APLOG=build/host/aplog \
#   APREALMODE=build/host/aprealmode install.sh
set -euo pipefail
cd "$(dirname "$0")/../.."

: "${PREFIX:=/usr/local}" "${DESTDIR:=}" "${VERSION:=0}" "${APLOG:=build/host/aplog}"
: "${APREALMODE:=build/host/aprealmode}"
: "${UNITDIR:=$PREFIX/lib/systemd/system}"
src=tools/linux
d=$DESTDIR
for f in build/wbinvd0/apstart.elf build/wbinvd1/apstart.elf "$APLOG" "$APREALMODE"; do
	[ -f "$f" ] || { echo "install: $f is not built (make install builds it)" >&2; exit 1; }
done

inst() { # MODE SRC DEST
	install -D -m "$1" "$2" "$3"
}
# subst FILE: the installed paths and version in place of @...@.
subst() {
	sed -e "s|@LIBDIR@|$PREFIX/lib/apstart|g" -e "s|@SBINDIR@|$PREFIX/sbin|g" \
		-e "s|@VERSION@|$VERSION|g" "$1"
}

inst 644 build/wbinvd0/apstart.elf "$d/boot/apstart-wbinvd0.elf"
inst 644 build/wbinvd1/apstart.elf "$d/boot/apstart-wbinvd1.elf"
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
subst "$src/grub/90_apstart" >"$tmp"
inst 755 "$tmp" "$d/etc/grub.d/90_apstart"
subst "$src/apstart/apstart" >"$tmp"
inst 755 "$tmp" "$d$PREFIX/sbin/apstart"
for f in "$src"/apstart/lib/*.sh "$src"/apstart/lib/*.awk; do
	inst 644 "$f" "$d$PREFIX/lib/apstart/${f##*/}"
done
inst 755 "$APLOG" "$d$PREFIX/bin/aplog"
inst 755 "$APREALMODE" "$d$PREFIX/bin/aprealmode"
for u in apstart-collect.service apstart-session.service; do
	mkdir -p "$d$UNITDIR"
	subst "$src/systemd/$u.in" >"$d$UNITDIR/$u"
	chmod 644 "$d$UNITDIR/$u"
done
mkdir -p "$d$PREFIX/share/man/man8" "$d$PREFIX/share/man/man1"
subst "$src/man/apstart.8" >"$d$PREFIX/share/man/man8/apstart.8"
subst "$src/man/aplog.1" >"$d$PREFIX/share/man/man1/aplog.1"
subst "$src/man/aprealmode.1" >"$d$PREFIX/share/man/man1/aprealmode.1"
chmod 644 "$d$PREFIX/share/man/man8/apstart.8" "$d$PREFIX/share/man/man1/aplog.1" "$d$PREFIX/share/man/man1/aprealmode.1"
echo "install: apstart $VERSION into ${DESTDIR:-/} (PREFIX=$PREFIX): /boot/apstart-wbinvd{0,1}.elf," \
	"/etc/grub.d/90_apstart, $PREFIX/sbin/apstart, $PREFIX/bin/aplog, $PREFIX/bin/aprealmode, $UNITDIR/apstart-{collect,session}.service"
[ -n "$DESTDIR" ] || echo "install: next, as root: apstart setup   (reserves the region, runs update-grub; one reboot)"
