#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# make keys: a key pair for signing apstart.efi (make sign), for a user
# who has none: RSA 2048, a self-signed certificate valid 10 years whose
# CN names apstart and this host, in DIR (default keys/, which git
# ignores). It never overwrites: an existing pair is a key someone may
# have enrolled on machines already.
#
#   keys.sh [--pass FILE] [DIR]          (make keys [KEY_PASS=FILE])
#       DIR/apstart-mok.key   private key, PEM, mode 0600; encrypted with
#                             the passphrase in FILE (its first line) if
#                             given, else without one
#       DIR/apstart-mok.crt   certificate, PEM (make sign's CERT=)
#       DIR/apstart-mok.der   the same in DER (MokManager, mokutil --import)
# It prints the certificate's SHA-256 and SHA-1 fingerprints: write them
# down; before enrolling the key on a machine, compare them with the one
# MokManager shows (docs/hardware.md, Secure Boot).
set -euo pipefail

pass=
if [ "${1-}" = --pass ]; then
	pass=${2-}
	shift 2 || shift $#
	[ -n "$pass" ] || { echo "make keys: KEY_PASS= names no file" >&2; exit 2; }
	if [ ! -r "$pass" ] || [ ! -s "$pass" ]; then
		echo "make keys: cannot read the passphrase file '$pass' (or it is empty)" >&2
		exit 2
	fi
fi
dir=${1:-keys}
key=$dir/apstart-mok.key crt=$dir/apstart-mok.crt der=$dir/apstart-mok.der
command -v openssl >/dev/null || { echo "make keys: no openssl: install the package openssl" >&2; exit 2; }
for f in "$key" "$crt" "$der"; do
	if [ -e "$f" ]; then
		echo "make keys: $f exists: not overwritten (a key may already be enrolled)." >&2
		echo "  Sign with it: make sign KEY=$key CERT=$crt; or choose another KEYS_DIR=." >&2
		exit 2
	fi
done
mkdir -p "$dir"
host=$(hostname 2>/dev/null || echo unknown-host)
cn="apstart Secure Boot signing key ($host)"
tmp=$(mktemp -d "$dir/.keys.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
(
	umask 077
	if [ -n "$pass" ]; then
		enc=(-passout "file:$pass")
	else
		enc=(-noenc)
	fi
	openssl req -new -x509 -newkey rsa:2048 "${enc[@]}" -sha256 -days 3650 \
		-subj "/CN=$cn/" -addext "basicConstraints=critical,CA:FALSE" \
		-addext "keyUsage=critical,digitalSignature" -addext "extendedKeyUsage=codeSigning" \
		-keyout "$tmp/key" -out "$tmp/crt" 2>"$tmp/log"
) || { cat "$tmp/log" >&2; echo "make keys: openssl failed" >&2; exit 2; }
openssl x509 -in "$tmp/crt" -outform DER -out "$tmp/der"
chmod 600 "$tmp/key"
chmod 644 "$tmp/crt" "$tmp/der"
mv -n "$tmp/key" "$key"
mv -n "$tmp/crt" "$crt"
mv -n "$tmp/der" "$der"
echo "make keys: made $key (private: keep it so$([ -n "$pass" ] && echo ", encrypted with the passphrase in $pass")), $crt and $der"
echo "  CN=$cn, $(openssl x509 -in "$crt" -noout -enddate | sed 's/notAfter=/valid until /')"
echo "  the certificate's fingerprints (write them down; compare this fingerprint with the one"
echo "  MokManager shows before you enrol the key on a machine):"
"$(dirname "$0")/fingerprint.sh" "$crt" | sed 's/^/    /'
echo "  next: make sign$([ -n "$pass" ] && echo " KEY_PASS=$pass")   (signs build/apstart.iso's apstart.efi with it)"
