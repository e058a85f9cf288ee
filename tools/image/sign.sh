#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# make sign: sign apstart.efi with the user's key (sbsign), check the
# result (sbverify), and put it with the certificate in DER form (what
# MokManager and mokutil --import take) on the image's EFI system
# partition, in place:
#   \EFI\apstart\apstart.efi          the signed apstart.efi
#   \apstart\keys\apstart-mok.der     the certificate
# The image's kernels are the ones whose SHA-256 apstart.efi carries: the
# signature covers them too (wings/efi/kernel_hash.c). A rebuilt image is
# unsigned again: make sign again.
#
#   sign.sh --key KEY --cert CERT --efi APSTART_EFI --out DIR IMAGE
#       KEY: PEM private key; CERT: its certificate, PEM or DER.
#       DIR gets apstart.efi (signed) and apstart-mok.der.
set -euo pipefail

die() { echo "make sign: $*" >&2; exit 2; }
key= cert= efi= out=
while [ $# -gt 0 ]; do
	case $1 in
	--key) key=${2-}; shift 2 ;;
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
# The key must be the certificate's: else MokManager enrols a key that
# verifies nothing.
kpub=$(openssl pkey -in "$key" -pubout 2>/dev/null) || die "'$key' is not a private key openssl can read"
cpub=$(openssl x509 -in "$out/cert.pem" -noout -pubkey)
[ "$kpub" = "$cpub" ] || die "'$key' is not the private key of '$cert'"

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
echo "  next: make usb DEV=/dev/sdX; enrol the key once per machine (docs/hardware.md, Secure Boot)"
