#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# make sign: sign apstart.efi with the user's key (sbsign), check the
# result (sbverify), and put it with the certificate in DER form (what
# MokManager and mokutil --import take) on the image's EFI system
# partition, in place:
#   \EFI\apstart\apstart.efi          the signed apstart.efi
#   \apstart\keys\apstart-mok.der     the certificate
#   \apstart\keys\fingerprint.cfg     its fingerprints, which the stick's
#                                     enrolment message shows (gate.cfg)
# The image's kernels are the ones whose SHA-256 apstart.efi carries: the
# signature covers them too (wings/efi/kernel_hash.c). A rebuilt image is
# unsigned again: make sign again.
#
#   sign.sh --key KEY --cert CERT [--pass FILE] --efi APSTART_EFI --out DIR IMAGE
#       KEY: PEM private key; CERT: its certificate, PEM or DER.
#       FILE: the key's passphrase (first line), if it has one (make keys
#       KEY_PASS=); without it openssl asks on the terminal. sbsign takes
#       no passphrase: the key is decrypted for it into a folder of mode
#       0700 (on /dev/shm, RAM, where there is one) and removed at once.
#       DIR gets apstart.efi (signed) and apstart-mok.der.
# It prints the certificate's fingerprints, as make keys did.
set -euo pipefail

die() { echo "make sign: $*" >&2; exit 2; }
key= cert= efi= out= pass=
while [ $# -gt 0 ]; do
	case $1 in
	--key) key=${2-}; shift 2 ;;
	--pass) pass=${2-}; shift 2 ;;
	--cert) cert=${2-}; shift 2 ;;
	--efi) efi=${2-}; shift 2 ;;
	--out) out=${2-}; shift 2 ;;
	-*) die "unknown option '$1'" ;;
	*) break ;;
	esac
done
img=${1-}
if [ -z "$key" ] || [ -z "$cert" ]; then
	die "which key? make sign KEY=your.key CERT=your.crt (PEM), or make keys first (keys/)"
fi
[ -r "$key" ] || die "cannot read the key '$key'"
[ -r "$cert" ] || die "cannot read the certificate '$cert'"
[ -z "$pass" ] || [ -r "$pass" ] || die "cannot read the passphrase file '$pass' (KEY_PASS=)"
[ -f "$efi" ] || die "no apstart.efi at '$efi'"
[ -f "$img" ] || die "no image at '$img'"
for t in openssl sbsign sbverify mcopy; do
	command -v $t >/dev/null || die "no $t: install the packages openssl, sbsigntool, mtools (make deps)"
done
mkdir -p "$out"

# The certificate as PEM for sbsign, as DER for the stick.
if openssl x509 -in "$cert" -noout 2>/dev/null; then
	cp "$cert" "$out/cert.pem"
elif openssl x509 -inform DER -in "$cert" -noout 2>/dev/null; then
	openssl x509 -inform DER -in "$cert" -out "$out/cert.pem"
else
	die "'$cert' is not an X.509 certificate (PEM or DER)"
fi
openssl x509 -in "$out/cert.pem" -outform DER -out "$out/apstart-mok.der"
# An encrypted key: decrypted for sbsign into a private folder, removed
# on the way out whatever happens.
passin=() key_name=$key
[ -z "$pass" ] || passin=(-passin "file:$pass")
if ! openssl pkey -in "$key" -passin pass: -noout 2>/dev/null; then
	[ -n "$pass" ] || [ -t 0 ] ||
		die "'$key' is encrypted (or not a key): give its passphrase, make sign KEY_PASS=FILE"
	shm=/dev/shm
	[ -d "$shm" ] && [ -w "$shm" ] || shm=${TMPDIR:-/tmp}
	plain=$(mktemp -d "$shm/apstart-sign.XXXXXX")
	chmod 700 "$plain"
	trap 'rm -rf "$plain"' EXIT
	(umask 077; openssl pkey -in "$key" "${passin[@]}" -out "$plain/key" 2>"$plain/log") ||
		die "cannot decrypt '$key' with that passphrase ($(head -n 1 "$plain/log"))"
	key=$plain/key
fi
# The key must be the certificate's: else MokManager enrols a key that
# verifies nothing.
kpub=$(openssl pkey -in "$key" -pubout 2>/dev/null) || die "'$key_name' is not a private key openssl can read"
cpub=$(openssl x509 -in "$out/cert.pem" -noout -pubkey)
[ "$kpub" = "$cpub" ] || die "'$key_name' is not the private key of '$cert'"

sbsign --key "$key" --cert "$out/cert.pem" --output "$out/apstart.efi.new" "$efi" >"$out/sbsign.log" 2>&1 ||
	{ cat "$out/sbsign.log" >&2; die "sbsign failed"; }
sbverify --cert "$out/cert.pem" "$out/apstart.efi.new" >"$out/sbverify.log" 2>&1 ||
	{ cat "$out/sbverify.log" >&2; die "sbverify does not accept the signed apstart.efi"; }
mv -f "$out/apstart.efi.new" "$out/apstart.efi"

"$(dirname "$0")/esp-populate.sh" --signed "$out/apstart.efi" "$out/apstart-mok.der" "$img"
# Read back what the image now holds.
read -r off _ < <("$(dirname "$0")/esp-offset.sh" "$img")
MTOOLS_SKIP_CHECK=1 mcopy -n -i "$img@@$off" ::/EFI/apstart/apstart.efi "$out/readback.efi"
cmp -s "$out/readback.efi" "$out/apstart.efi" || die "$img: \\EFI\\apstart\\apstart.efi is not the signed file after writing"
rm -f "$out/readback.efi"

subject=$(openssl x509 -in "$out/cert.pem" -noout -subject | sed 's/^subject= *//')
echo "make sign: $img: \\EFI\\apstart\\apstart.efi signed ($subject); sbverify: $(tail -n 1 "$out/sbverify.log")"
echo "  certificate for MokManager: \\apstart\\keys\\apstart-mok.der on the image, and $out/apstart-mok.der"
echo "  its fingerprints (the same as make keys printed; compare the one MokManager shows before you enrol):"
"$(dirname "$0")/fingerprint.sh" "$out/cert.pem" | sed 's/^/    /'
echo "  next: make usb DEV=/dev/sdX; enrol the key once per machine (docs/hardware.md, Secure Boot)"
