#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# make deb: apstart as a Debian package, built with dpkg-deb from make
# install's tree (PREFIX=/usr), without debhelper:
#   /boot/apstart-wbinvd{0,1}.elf      the kernels, stripped (nothing reads
#                                      their symbols; the loaded bytes are
#                                      the build's: make deb-tests checks)
#   /etc/grub.d/90_apstart             a conffile
#   /usr/sbin/apstart, /usr/lib/apstart/, /usr/bin/aplog, /usr/bin/aprealmode
#   /usr/lib/systemd/system/apstart-{collect,session}.service
#   /usr/share/man/man8/apstart.8.gz, man1/aplog.1.gz, man1/aprealmode.1.gz
#   /usr/share/doc/apstart/{copyright,changelog.gz}
#   /usr/share/apstart/apstart-mok.der  with DEB_CERT=FILE.der: the key
#                                      apstart setup --secure-boot enrols
# and the maintainer scripts of tools/linux/deb/ (units, update-grub,
# apstart setup --undo on removal, /var/lib/apstart on purge).
#   DEB_VERSION=0.1 APLOG=build/host/aplog APREALMODE=build/host/aprealmode
#   [DEB_CERT=FILE.der] mkdeb.sh OUTDIR
set -euo pipefail
cd "$(dirname "$0")/../../.."
out=${1:?usage: mkdeb.sh OUTDIR}
: "${DEB_VERSION:?}" "${APLOG:=build/host/aplog}" "${APREALMODE:=build/host/aprealmode}"
here=tools/linux/deb
for t in dpkg-deb dpkg-shlibdeps fakeroot; do
	command -v "$t" >/dev/null || { echo "deb: $t is missing (apt-get install dpkg-dev fakeroot)" >&2; exit 2; }
done
[[ $DEB_VERSION =~ ^[0-9][A-Za-z0-9.+~]*$ ]] ||
	{ echo "deb: DEB_VERSION '$DEB_VERSION' is not a native Debian version (digits first, no '-')" >&2; exit 2; }

mkdir -p "$out"
out=$(cd "$out" && pwd)
stage=$out/root
rm -rf "$stage"
PREFIX=/usr DESTDIR=$stage UNITDIR=/usr/lib/systemd/system VERSION=$DEB_VERSION APLOG=$APLOG APREALMODE=$APREALMODE \
	tools/linux/install.sh >/dev/null

# Symbols and debug sections off (what GRUB or kexec loads is the same
# bytes); aplog's and aprealmode's too.
for k in "$stage"/boot/apstart-wbinvd*.elf; do strip "$k"; done
strip --strip-unneeded "$stage/usr/bin/aplog" "$stage/usr/bin/aprealmode"
gzip -9n "$stage/usr/share/man/man8/apstart.8" "$stage/usr/share/man/man1/aplog.1" "$stage/usr/share/man/man1/aprealmode.1"
# The certificate of the key that signs apstart.efi (issue 34), for
# 'apstart setup --secure-boot' to enrol: DEB_CERT=FILE.der, a DER X.509
# certificate as openssl reads one (a DER private key also starts with
# 0x30, an ASN.1 SEQUENCE: it must never be shipped).
if [ -n "${DEB_CERT:-}" ]; then
	command -v openssl >/dev/null || { echo "deb: DEB_CERT needs openssl to check it (apt-get install openssl)" >&2; exit 2; }
	openssl x509 -inform DER -noout -in "$DEB_CERT" >/dev/null 2>&1 ||
		{ echo "deb: DEB_CERT=$DEB_CERT is not a DER X.509 certificate (openssl x509 -inform DER cannot read it)" >&2; exit 2; }
	install -D -m 644 "$DEB_CERT" "$stage/usr/share/apstart/apstart-mok.der"
fi
# Without debhelper there is no debian/apstart.maintscript for
# dh_installdeb to turn into these calls: the scripts make them.
install -D -m 644 /dev/stdin "$stage/usr/share/lintian/overrides/apstart" <<'EOF'
# built with dpkg-deb, not debhelper: the conffile move 20_apstart ->
# 90_apstart is written in preinst, postinst and postrm by hand
apstart: maintainer-script-should-not-use-dpkg-maintscript-helper
EOF
doc=$stage/usr/share/doc/apstart
mkdir -p "$doc"
cp "$here/copyright" "$doc/copyright"
when=$(git log -1 --format=%cD 2>/dev/null || date -R)
commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
{
	echo "apstart ($DEB_VERSION) unstable; urgency=medium"
	echo
	echo "  * Built from the apstart repository, commit $commit."
	echo
	echo " -- apstart developers <maintainers@users.noreply.a-seed-2d1466fb.example>  $when"
} | gzip -9n >"$doc/changelog.gz"

# The shared libraries aplog and aprealmode need, as dpkg-shlibdeps says (it wants a
# debian/control to read, in a folder of its own).
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/debian"
printf 'Source: apstart\n\nPackage: apstart\nArchitecture: amd64\n' >"$work/debian/control"
shlibs=$(cd "$work" && dpkg-shlibdeps -O "$stage/usr/bin/aplog" "$stage/usr/bin/aprealmode" 2>/dev/null | sed -n 's/^shlibs:Depends=//p')
[ -n "$shlibs" ] || { echo "deb: dpkg-shlibdeps found no libraries for aplog" >&2; exit 1; }

mkdir -p "$stage/DEBIAN"
size=$(du -sk --exclude=DEBIAN "$stage" | cut -f1)
sed -e "s|@VERSION@|$DEB_VERSION|" -e "s|@SIZE@|$size|" -e "s|@SHLIBS@|$shlibs|" \
	"$here/control.in" >"$stage/DEBIAN/control"
for s in preinst postinst prerm postrm; do install -m 755 "$here/$s" "$stage/DEBIAN/$s"; done
echo /etc/grub.d/90_apstart >"$stage/DEBIAN/conffiles"
(cd "$stage" && find . -path ./DEBIAN -prune -o -type f -printf '%P\0' | LC_ALL=C sort -z |
	xargs -0 md5sum) >"$stage/DEBIAN/md5sums"
chmod 644 "$stage/DEBIAN/control" "$stage/DEBIAN/conffiles" "$stage/DEBIAN/md5sums"
find "$stage" -type d -exec chmod 755 {} +

deb=$out/apstart_${DEB_VERSION}_amd64.deb
SOURCE_DATE_EPOCH=$(git log -1 --format=%ct 2>/dev/null || date +%s) \
	fakeroot dpkg-deb -Zxz --root-owner-group --build "$stage" "$deb" >/dev/null
echo "deb: $deb ($(stat -c %s "$deb") bytes; Depends: $shlibs, e2fsprogs, kmod)"
