#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A certificate's fingerprints, as make keys and make sign print them and
# as the stick shows them when it asks for the key's enrolment: the
# SHA-256 and SHA-1 of its DER bytes, hex pairs with colons. MokManager
# shows the SHA-1 ("View key", [Fingerprint]) of the certificate it is
# about to enrol: the one to compare, since the stick's own text can be
# replaced with the certificate.
#
#   fingerprint.sh CERT           two lines: "SHA-256 AB:CD:..." "SHA-1 ..."
#   fingerprint.sh --grub CERT    the same as GRUB variables: the SHA-256
#                                 in halves (apstart_key_sha256a, ...b: a
#                                 line of 80 columns holds 16 pairs), and
#                                 apstart_key_sha1
set -euo pipefail

grub=0
[ "${1-}" = --grub ] && { grub=1; shift; }
cert=${1-}
[ -r "$cert" ] || { echo "fingerprint: cannot read '$cert'" >&2; exit 2; }
form=PEM
openssl x509 -inform PEM -in "$cert" -noout 2>/dev/null || form=DER
fpr() { # DIGEST
	openssl x509 -inform "$form" -in "$cert" -noout -fingerprint "-$1" 2>/dev/null | sed 's/^[^=]*=//'
}
sha256=$(fpr sha256 || true) sha1=$(fpr sha1 || true)
[[ $sha256 =~ ^([0-9A-F]{2}:){31}[0-9A-F]{2}$ && $sha1 =~ ^([0-9A-F]{2}:){19}[0-9A-F]{2}$ ]] ||
	{ echo "fingerprint: '$cert' is not an X.509 certificate openssl reads" >&2; exit 2; }
if [ $grub = 1 ]; then
	printf 'set apstart_key_sha256a=%s\nset apstart_key_sha256b=%s\nset apstart_key_sha1=%s\n' \
		"${sha256:0:48}" "${sha256:48}" "$sha1"
else
	printf 'SHA-256 %s\nSHA-1   %s\n' "$sha256" "$sha1"
fi
