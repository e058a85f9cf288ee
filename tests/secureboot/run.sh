#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Secure Boot (make secureboot-tests): the chain firmware -> shim ->
# Debian's signed GRUB -> apstart.efi -> kernel, what `make keys` and
# `make sign` make, and each refusal, under OVMF with Secure Boot
# enforced (q35 with SMM, pflash secure=on), TCG.
#
# Static: make keys (a pair, never overwritten, its fingerprints printed;
# with KEY_PASS= an encrypted key), make sign's refusals,
# tools/image/sign.sh on a copy of the test image (sbverify accepts it, the
# certificate in DER and its fingerprints beside it; an encrypted key with
# its passphrase, and refused without), the EFI partition's chain, the
# SHA-256 table in apstart.efi against sha256sum of the stick's kernels,
# the .sbat section of the signed apstart.efi (shim's SBAT.md CSV), and no
# test switch in the apstart.efi make sign signs (strings, nm).
#
# Boots (two at a time; the images are copies of build/iso-test/
# apstart-test-efi.iso, signed with OVMF's test key "snakeoil"):
#   A snakeoil store, signed image              -> @end status=pass; on its
#     stick a crafted session (plan.txt: k=100, order= of 200 A's, 200
#     passing run files) is refused, loader.cfg's test switches are
#     unknown and its session=2 waits for a key (Secure Boot is on)
#   B snakeoil store, unsigned image            -> the stick's refusal: not signed
#   C snakeoil store, kernel changed after signing -> apstart.efi's refusal
#   D Microsoft store (a CD), signed image      -> shim, GRUB, the refusal
#                                                  asking for the key's enrolment
#   E Microsoft store, the key in MokList       -> @end status=pass
#     (what MokManager leaves after an enrolment: tests/secureboot/setvar.py)
#   F Secure Boot off, kernel changed           -> a warning, @end status=pass
#     (OVMF without Secure Boot, its variables in RAM: -bios OVMF.fd)
#   G snakeoil store, signed image, an SbatLevel that revokes apstart,1
#                                               -> shim refuses apstart.efi
# The snakeoil store trusts only the snakeoil key, not Microsoft's CA
# (the Microsoft-signed shim gets "Access Denied" there): for A-C the
# test images' shim carries a second signature by the snakeoil key, which
# stands in for Microsoft's. Logs: build/test-logs/sb-*.
set -uo pipefail
cd "$(dirname "$0")/../.."

TEST_ISO=${EFI_TEST_ISO:-build/iso-test/apstart-test-efi.iso}
EFI=${APSTART_EFI:-build/efi/apstart.efi}
EFI_TEST=${APSTART_EFI_TEST:-build/efi-test/apstart.efi}
HASHES=${EFI_HASHES:-build/efi/gen/kernel_hashes.c}
SHIM=${SHIM_EFI:-/usr/lib/shim/shimx64.efi.signed}
MOKMANAGER=${MOKMANAGER_EFI:-/usr/lib/shim/mmx64.efi.signed}
SIGNED_GRUB=${SIGNED_GRUB_EFI:-/usr/lib/grub/x86_64-efi-signed/grubx64.efi.signed}
GATE=tools/image/gate.cfg
OVMF=${OVMF_DIR:-/usr/share/OVMF}
OVMF_FD=${OVMF_FD:-/usr/share/ovmf/OVMF.fd} # Secure Boot off, variables in RAM
SNAKEOIL=${SNAKEOIL_DIR:-/usr/share/ovmf}
BOOT_TIMEOUT=${SB_BOOT_TIMEOUT:-300}
SHIM_LOCK_GUID=605dab50-e046-4300-abb6-3dd810dd8b23
export MTOOLS_SKIP_CHECK=1
. tests/protocol.sh
lane_start secureboot
need_files secureboot-tests "$TEST_ISO" "$EFI" "$HASHES" "$SHIM" "$MOKMANAGER" "$SIGNED_GRUB"
esp() { # IMAGE: IMAGE@@OFFSET of its EFI system partition
	local off
	read -r off _ < <(tools/image/esp-offset.sh "$1") && echo "$1@@$off"
}

# ------------------------------------------------------------ make keys
keys=$work/keys
make_keys() {
	make --no-print-directory keys KEYS_DIR="$keys" >"$work/keys.out" 2>&1 || { cat "$work/keys.out"; return 1; }
	local f
	for f in apstart-mok.key apstart-mok.crt apstart-mok.der; do
		[ -s "$keys/$f" ] || { echo "no $keys/$f"; return 1; }
	done
	[ "$(stat -c %a "$keys/apstart-mok.key")" = 600 ] || { echo "the key is mode $(stat -c %a "$keys/apstart-mok.key"), not 600"; return 1; }
	local subject
	subject=$(openssl x509 -in "$keys/apstart-mok.crt" -noout -subject)
	[[ $subject == *apstart* && $subject == *"$(hostname)"* ]] || { echo "CN does not name apstart and $(hostname): $subject"; return 1; }
	openssl x509 -in "$keys/apstart-mok.crt" -noout -text | grep -q 'Public-Key: (2048 bit)' || { echo "not RSA 2048"; return 1; }
	openssl x509 -in "$keys/apstart-mok.crt" -outform DER | cmp -s - "$keys/apstart-mok.der" || { echo "the .der is not the .crt"; return 1; }
	openssl pkey -in "$keys/apstart-mok.key" -passin pass: -noout 2>/dev/null || { echo "the key is encrypted without KEY_PASS="; return 1; }
}
check "make keys: RSA 2048, a CN naming apstart and $(hostname), key mode 600, PEM + DER" make_keys
fingerprints_said() { # OUTPUT-FILE CERT: OUTPUT prints CERT's SHA-256 and SHA-1
	local d256 d1
	d256=$(openssl x509 -in "$2" -noout -fingerprint -sha256 | sed 's/^[^=]*=//')
	d1=$(openssl x509 -in "$2" -noout -fingerprint -sha1 | sed 's/^[^=]*=//')
	grep -qF "SHA-256 $d256" "$1" && grep -qF "SHA-1   $d1" "$1" ||
		{ echo "$1 does not print SHA-256 $d256 and SHA-1 $d1:"; cat "$1"; return 1; }
}
check "make keys prints the certificate's SHA-256 and SHA-1 fingerprints (openssl's)" \
	fingerprints_said "$work/keys.out" "$keys/apstart-mok.crt"
printf 'apstart test passphrase\n' >"$work/pass"
keys_pass() {
	make --no-print-directory keys KEYS_DIR="$work/keys-enc" KEY_PASS="$work/pass" >"$work/keys-enc.out" 2>&1 ||
		{ cat "$work/keys-enc.out"; return 1; }
	grep -q 'BEGIN ENCRYPTED PRIVATE KEY' "$work/keys-enc/apstart-mok.key" || { echo "the key is not encrypted"; return 1; }
	! openssl pkey -in "$work/keys-enc/apstart-mok.key" -passin pass: -noout 2>/dev/null || { echo "it opens without the passphrase"; return 1; }
	openssl pkey -in "$work/keys-enc/apstart-mok.key" -passin "file:$work/pass" -noout || { echo "the passphrase does not open it"; return 1; }
	fingerprints_said "$work/keys-enc.out" "$work/keys-enc/apstart-mok.crt"
}
check "make keys KEY_PASS=FILE: the key encrypted with that passphrase, fingerprints printed" keys_pass
keys_again() {
	local before
	before=$(sha256sum "$keys"/*)
	if make --no-print-directory keys KEYS_DIR="$keys" >"$work/keys2.out" 2>&1; then
		echo "a second make keys succeeded"; return 1
	fi
	grep -q 'exists: not overwritten' "$work/keys2.out" || { cat "$work/keys2.out"; return 1; }
	[ "$(sha256sum "$keys"/*)" = "$before" ] || { echo "the files changed"; return 1; }
}
check "make keys again: refused, the pair left as it was" keys_again
sign_nokey() {
	local t0=$SECONDS
	if make --no-print-directory sign KEY= CERT= >"$work/sign0.out" 2>&1; then
		echo "make sign without a key succeeded"; return 1
	fi
	grep -q 'which key? make sign KEY=.* CERT=.*make keys' "$work/sign0.out" || { cat "$work/sign0.out"; return 1; }
	! grep -q '  ISO ' "$work/sign0.out" || { echo "it built the image first"; return 1; }
}
check "make sign without KEY/CERT: refused at once, names KEY=, CERT= and make keys" sign_nokey

# ------------------------------------------------------------ the images
cp "$TEST_ISO" "$work/unsigned.img" || { fail "images" "cannot copy $TEST_ISO"; finish; }
openssl rsa -passin pass:snakeoil -in "$SNAKEOIL/PkKek-1-snakeoil.key" -out "$work/snakeoil.key" 2>/dev/null
cp "$SNAKEOIL/PkKek-1-snakeoil.pem" "$work/snakeoil.pem"
cp "$work/unsigned.img" "$work/mismatch.img"
sign_mismatch() {
	if tools/image/sign.sh --key "$work/snakeoil.key" --cert "$keys/apstart-mok.crt" --efi "$EFI" --out "$work/sign-bad" \
		"$work/mismatch.img" >"$work/sign-bad.out" 2>&1; then
		echo "signing with another key's certificate succeeded"; return 1
	fi
	grep -q 'is not the private key of' "$work/sign-bad.out" || { cat "$work/sign-bad.out"; return 1; }
}
check "sign: a key that is not the certificate's is refused, with the reason" sign_mismatch
signed_ok() { # DIR CERT IMAGE: what sign.sh made, read back from IMAGE
	local dir=$1 cert=$2 img=$3 fat
	fat=$(esp "$img") || return 1
	mcopy -n -i "$fat" ::/EFI/apstart/apstart.efi "$work/on-image.efi" || return 1
	sbverify --cert "$cert" "$work/on-image.efi" || return 1
	openssl x509 -in "$cert" -outform DER -out "$work/want.der"
	mcopy -n -i "$fat" ::/apstart/keys/apstart-mok.der "$work/on-image.der" &&
		cmp "$work/on-image.der" "$work/want.der" && cmp "$dir/apstart-mok.der" "$work/want.der" || return 1
	cp "$work/on-image.efi" "$work/bare.efi" && sbattach --remove "$work/bare.efi" &&
		cmp "$work/bare.efi" "$EFI" || { echo "without its signature it is not $EFI"; return 1; }
	mcopy -n -i "$fat" ::/apstart/keys/fingerprint.cfg "$work/on-image.cfg" || return 1
	local d256
	d256=$(openssl x509 -in "$cert" -noout -fingerprint -sha256 | sed 's/^[^=]*=//')
	printf 'set apstart_key_sha256a=%s\nset apstart_key_sha256b=%s\nset apstart_key_sha1=%s\n' \
		"${d256:0:48}" "${d256:48}" "$(openssl x509 -in "$cert" -noout -fingerprint -sha1 | sed 's/^[^=]*=//')" |
		cmp -s - "$work/on-image.cfg" || { echo "\\apstart\\keys\\fingerprint.cfg is not the certificate's:"; cat "$work/on-image.cfg"; return 1; }
}
cp "$work/unsigned.img" "$work/mine.img"
sign_mine() {
	tools/image/sign.sh --key "$keys/apstart-mok.key" --cert "$keys/apstart-mok.crt" --efi "$EFI" \
		--out "$work/sign-mine" "$work/mine.img" >"$work/sign-mine.out" 2>&1 || { cat "$work/sign-mine.out"; return 1; }
	signed_ok "$work/sign-mine" "$keys/apstart-mok.crt" "$work/mine.img" &&
		fingerprints_said "$work/sign-mine.out" "$keys/apstart-mok.crt"
}
check "make sign's script with make keys' pair: sbverify accepts it, DER and fingerprints beside it, printed" sign_mine
cp "$work/unsigned.img" "$work/enc.img"
sign_enc() {
	if tools/image/sign.sh --key "$work/keys-enc/apstart-mok.key" --cert "$work/keys-enc/apstart-mok.crt" --efi "$EFI" \
		--out "$work/sign-enc0" "$work/enc.img" </dev/null >"$work/sign-enc0.out" 2>&1; then
		echo "an encrypted key without its passphrase was used"; return 1
	fi
	grep -q 'is encrypted (or not a key): give its passphrase, make sign KEY_PASS=FILE' "$work/sign-enc0.out" ||
		{ cat "$work/sign-enc0.out"; return 1; }
	tools/image/sign.sh --key "$work/keys-enc/apstart-mok.key" --cert "$work/keys-enc/apstart-mok.crt" \
		--pass "$work/pass" --efi "$EFI" --out "$work/sign-enc" "$work/enc.img" </dev/null >"$work/sign-enc.out" 2>&1 ||
		{ cat "$work/sign-enc.out"; return 1; }
	signed_ok "$work/sign-enc" "$work/keys-enc/apstart-mok.crt" "$work/enc.img" &&
		fingerprints_said "$work/sign-enc.out" "$work/keys-enc/apstart-mok.crt" || return 1
	! ls /dev/shm/apstart-sign.* "${TMPDIR:-/tmp}"/apstart-sign.* >/dev/null 2>&1 || { echo "the decrypted key was left behind"; return 1; }
}
check "sign with an encrypted key: refused without KEY_PASS (no terminal), signed with it, nothing decrypted left" sign_enc

cp "$work/unsigned.img" "$work/signed.img"
tools/image/sign.sh --key "$work/snakeoil.key" --cert "$work/snakeoil.pem" --efi "$EFI" --out "$work/sign-so" \
	"$work/signed.img" >"$work/sign-so.out" 2>&1
check "the test image signed with the snakeoil key: sbverify accepts it" signed_ok "$work/sign-so" "$work/snakeoil.pem" "$work/signed.img"

# ------------------------------------------------------------ the chain on the stick
fat=$(esp "$work/unsigned.img")
chain() {
	local bad=0 f want
	for f in BOOTX64.EFI:"$SHIM" mmx64.efi:"$MOKMANAGER" grubx64.efi:"$SIGNED_GRUB" grub.cfg:"$GATE"; do
		want=${f#*:} f=${f%%:*}
		mcopy -n -i "$fat" "::/EFI/BOOT/$f" "$work/$f" 2>/dev/null && cmp -s "$work/$f" "$want" ||
			{ echo "\\EFI\\BOOT\\$f is not $want"; bad=1; }
	done
	mcopy -n -i "$fat" ::/EFI/debian/grub.cfg "$work/debian.cfg" 2>/dev/null && cmp -s "$work/debian.cfg" "$GATE" ||
		{ echo "\\EFI\\debian\\grub.cfg is not $GATE"; bad=1; }
	xorriso -osirrox on -indev "$work/unsigned.img" -extract /boot/grub/x86_64-efi/grub.cfg "$work/cd.cfg" >/dev/null 2>&1 &&
		cmp -s "$work/cd.cfg" "$GATE" || { echo "the ISO's /boot/grub/x86_64-efi/grub.cfg is not $GATE"; bad=1; }
	mcopy -n -i "$fat" ::/EFI/apstart/grub.efi "$work/own.efi" 2>/dev/null && grep -aq grub_mod_init "$work/own.efi" ||
		{ echo "no GRUB at \\EFI\\apstart\\grub.efi"; bad=1; }
	# shim would start fallback (fbx64.efi), which writes boot entries.
	mdir -i "$fat" ::/EFI/BOOT/fbx64.efi >/dev/null 2>&1 && { echo "fbx64.efi is on the stick"; bad=1; }
	sbverify --list "$work/BOOTX64.EFI" 2>/dev/null | grep -q 'Microsoft Corporation UEFI CA 2011' ||
		{ echo "the shim is not signed by Microsoft's UEFI CA"; bad=1; }
	return $bad
}
check "the stick: shim, MokManager, Debian's signed GRUB and its config (3 places), GRUB's menu aside" chain
hashes() {
	local w sum want
	for w in 0 1; do
		mcopy -n -i "$fat" "::/apstart/apstart-wbinvd$w.elf" "$work/k$w.elf" || return 1
		sum=$(sha256sum "$work/k$w.elf" | cut -c1-64)
		want=$(grep "apstart-wbinvd$w.elf" "$HASHES" | grep -o '0x[0-9a-f][0-9a-f]' | sed 's/0x//' | tr -d '\n')
		[ "$sum" = "$want" ] || { echo "\\apstart\\apstart-wbinvd$w.elf: sha256sum $sum, apstart.efi carries '$want'"; return 1; }
	done
}
check "apstart.efi carries the SHA-256 of both kernels on the stick" hashes

# shim's SBAT.md: a .sbat section of CSV lines, each of six fields
# (component, generation, vendor, package, version, URL), the format's
# own line first; sbsign keeps it (it is read out of the signed file).
sbat_ok() { # EFI
	objdump -h "$1" | grep -qE '^ +[0-9]+ \.sbat ' || { echo "objdump -h shows no .sbat in $1"; return 1; }
	objcopy -O binary -j .sbat "$1" "$work/sbat.bin" 2>/dev/null || { echo "cannot read .sbat"; return 1; }
	local version
	version=$(sed -n 's/^VERSION := //p' Makefile)
	tr -d '\0' <"$work/sbat.bin" >"$work/sbat.csv"
	[ "$(tail -c 1 "$work/sbat.csv" | od -An -c | tr -d ' ')" = '\n' ] || { echo ".sbat does not end in a newline"; return 1; }
	awk -F, -v v="$version" '
		NF != 6 { print "line " NR " has " NF " fields, not 6: " $0; bad = 1 }
		{ for (i = 1; i <= 6; i++) if ($i == "") { print "line " NR ": field " i " empty"; bad = 1 } }
		NR == 1 && $0 != "sbat,1,SBAT Version,sbat,1,https://github.com/rhboot/shim/blob/main/SBAT.md" { print "line 1 is not SBAT.md'"'"'s: " $0; bad = 1 }
		NR == 2 && !($1 == "apstart" && $2 ~ /^[1-9][0-9]*$/ && $3 == "apstart" && $4 == "apstart" && $5 == v) { print "line 2 is not apstart,N,apstart,apstart," v ",URL: " $0; bad = 1 }
		END { if (NR != 2) { print NR " lines, not 2"; bad = 1 } exit bad }' "$work/sbat.csv" || return 1
	# After the text only zeros (the array's NUL, the section's padding).
	local text
	text=$(wc -c <"$work/sbat.csv")
	[ "$(head -c "$text" "$work/sbat.bin" | tr -d '\0' | wc -c)" = "$text" ] ||
		{ echo ".sbat has a NUL inside its text"; return 1; }
}
check "the signed apstart.efi has a .sbat section of shim's SBAT.md CSV (objdump -h; apstart,N,...,$(sed -n 's/^VERSION := //p' Makefile),URL)" \
	sbat_ok "$work/sign-so/apstart.efi"
# The apstart.efi make sign signs has no test switch; the tests' build
# has them (the check can fail).
no_switches() { # EFI
	local words='test_stale_map_key|test_session_fail|test_fail_run|selftest=ap-hang' n so=${1%.efi}.so
	n=$( (strings -a "$1"; strings -a -el "$1") | grep -cE "$words")
	[ "$n" = 0 ] || { echo "$1 holds $n strings of test switches: $( (strings -a "$1"; strings -a -el "$1") | grep -E "$words" | head -n 3 | tr '\n' ' ')"; return 1; }
	[ ! -f "$so" ] || ! nm "$so" | grep -q handoff_test_stale_key || { echo "$so has handoff_test_stale_key"; return 1; }
}
check "make sign's apstart.efi ($EFI) has no test switch (strings -a, -el; nm)" no_switches "$EFI"
check "the signed copy has none either" no_switches "$work/sign-so/apstart.efi"
if [ -f "$EFI_TEST" ]; then
	switches_there() { ! no_switches "$EFI_TEST" >/dev/null || { echo "$EFI_TEST has no test switch: the check above cannot see one"; return 1; }; }
	check "the tests' apstart.efi ($EFI_TEST) has them: the check above finds them where they are" switches_there
fi

# ------------------------------------------------------------ boots
for f in "$OVMF"/OVMF_{CODE,VARS}_4M.{snakeoil,ms}.fd "$OVMF/OVMF_VARS_4M.fd" "$OVMF_FD"; do
	if [ ! -f "$f" ]; then
		skip "Secure Boot boots" "no $f (Debian 12's ovmf has it)"
		finish
	fi
done
# The snakeoil images: shim countersigned, as the snakeoil db trusts.
sbsign --key "$work/snakeoil.key" --cert "$work/snakeoil.pem" --output "$work/shim-so.efi" "$SHIM" >/dev/null 2>&1
for i in unsigned signed; do
	cp "$work/$i.img" "$work/$i-so.img"
	mcopy -o -i "$(esp "$work/$i-so.img")" "$work/shim-so.efi" ::/EFI/BOOT/BOOTX64.EFI
done
# A kernel changed after signing: one byte more (it still runs).
cp "$work/signed-so.img" "$work/changed-so.img"
mcopy -n -i "$(esp "$work/changed-so.img")" ::/apstart/apstart-wbinvd0.elf "$work/k.elf"
printf '\0' >>"$work/k.elf"
mcopy -o -i "$(esp "$work/changed-so.img")" "$work/k.elf" ::/apstart/apstart-wbinvd0.elf
# apstart.efi boots its own entry at once: one short cycle, nothing
# written to NVRAM (slow behind SMM under TCG).
printf 'timeout=0\nresults_wait=0\ncmdline=cycles=1 save=off\n' >"$work/loader.cfg"
for i in unsigned-so changed-so signed; do
	tools/image/esp-populate.sh --config "$work/loader.cfg" "$work/$i.img"
done
# A's stick as someone with the stick may leave it: test switches and a
# session to start at power-on in loader.cfg, and a session "under way"
# whose plan has k=100 and 200 A's, with 200 passing run files (issue 38:
# the old apstart.efi accepted it and wrote past its arrays making the
# table). The signed apstart.efi must refuse the plan, not know the
# switches, not start the session by itself, and boot its entry.
cp "$work/signed-so.img" "$work/crafted-so.img"
printf '%s\n' timeout=0 results_wait=0 'cmdline=cycles=1 save=off' test_stale_map_key=1 \
	test_session_fail=1 session=2 >"$work/loader-crafted.cfg"
tools/image/esp-populate.sh --config "$work/loader-crafted.cfg" "$work/crafted-so.img"
crafted=$work/crafted/session-0001
mkdir -p "$crafted"
{
	printf 'session=0001\nruns_per_variant=100\norder=%s\nseed=0x1\ncmdline=cycles=1\nstate=running\n' \
		"$(printf 'A%.0s' $(seq 200))"
} >"$crafted/plan.txt"
for r in $(seq 1 200); do
	printf '@boot cpus=2 firmware=uefi wbinvd=1\n@summary op=offline cpus=1 total_ns=1000 settled_total_ns=1000\n@summary op=online cpus=1 total_ns=2000\n@end status=pass online=2 failed=0\n' \
		>"$crafted/run-$(printf %03d "$r")-A-wbinvd1.log"
done
mcopy -s -i "$(esp "$work/crafted-so.img")" "$crafted" ::/apstart/results/
# G: an SbatLevel newer than shim's own (so shim keeps it) that asks for
# apstart's generation 2: shim must refuse the signed apstart.efi of
# generation 1 (its .sbat), which A shows it accepts otherwise.
printf 'sbat,1,2099010100\napstart,2\n' >"$work/sbatlevel"
cp "$OVMF/OVMF_VARS_4M.snakeoil.fd" "$work/vars-so-sbat.fd"
tests/secureboot/setvar.py "$work/vars-so-sbat.fd" SbatLevel "$SHIM_LOCK_GUID" 3 "$work/sbatlevel"
# E: the snakeoil certificate in MokList, as after an enrolment.
cert-to-efi-sig-list -g "$SHIM_LOCK_GUID" "$work/snakeoil.pem" "$work/moklist.esl" >/dev/null
cp "$OVMF/OVMF_VARS_4M.ms.fd" "$work/vars-ms-mok.fd"
tests/secureboot/setvar.py "$work/vars-ms-mok.fd" MokList "$SHIM_LOCK_GUID" 3 "$work/moklist.esl"

# sb_boot NAME FIRMWARE(snakeoil|ms|plain) VARS IMAGE MEDIA(usb|cd) SMP [UNTIL]:
# one boot, serial to build/test-logs/sb-NAME.log; stopped once UNTIL (an
# ERE) is on serial, else when QEMU exits. $work/NAME.st: QEMU's status,
# or "stopped".
sb_boot() {
	local name=$1 fw=$2 vars=$3 img=$4 media=$5 smp=$6 until=${7:-} log=$out/sb-$1.log
	local m=(-machine q35,smm=on -global driver=cfi.pflash01,property=secure,value=on)
	local flash=(-drive "if=pflash,format=raw,unit=0,readonly=on,file=$OVMF/OVMF_CODE_4M.$fw.fd"
		-drive "if=pflash,format=raw,unit=1,file=$work/$name.vars")
	# plain: Secure Boot off, no check reads NVRAM: OVMF's variables in
	# RAM (-bios OVMF.fd, ~3 CPU-s less than pflash; VARS unused).
	[ "$fw" = plain ] && m=(-machine q35) flash=(-bios "$OVMF_FD")
	cp "$vars" "$work/$name.vars"
	# Its own copy: boots run side by side, and a stick is written to.
	cp --sparse=always "$img" "$work/$name.img"
	img=$work/$name.img
	local media_opts=(-drive "if=none,id=stick,format=raw,file=$img"
		-device qemu-xhci,id=xhci -device usb-storage,bus=xhci.0,drive=stick,bootindex=0)
	[ "$media" = cd ] && media_opts=(-drive "if=none,id=cd,format=raw,media=cdrom,readonly=on,file=$img"
		-device ide-cd,drive=cd,bootindex=0)
	local t0=$SECONDS
	: >"$log"
	# thread=single: with SMM, each SMI gathers every vCPU in SMM; under
	# multi-threaded TCG a vCPU spins there until the other's host thread
	# runs, which on a busy host cost boot A 13.7 s of CPU (7.1 s with one
	# thread for all vCPUs). With -smp 1 it changes nothing.
	TIMEFORMAT=%U+%S
	{ time timeout "$BOOT_TIMEOUT" qemu-system-x86_64 -display none -no-reboot -m 512 -monitor none \
		-serial "file:$log" -device isa-debug-exit,iobase=0xf4,iosize=4 "${m[@]}" \
		-accel tcg,thread=single -cpu max -smp "$smp" -net none \
		"${flash[@]}" "${media_opts[@]}" \
		>"$log.qemu" 2>&1; } 2>"$work/$name.cpu" &
	local q=$! st=
	while kill -0 $q 2>/dev/null; do
		if [ -n "$until" ] && tr -d '\r' <"$log" | grep -aE "$until" >/dev/null; then
			# $q is the subshell that times QEMU: stop its timeout,
			# which stops QEMU and lets the subshell report.
			kill $(ps -o pid= --ppid $q) 2>/dev/null
			wait $q 2>/dev/null
			st=stopped
			break
		fi
		sleep 0.5
	done
	[ -n "$st" ] || { wait $q; st=$?; }
	echo "$st" >"$work/$name.st"
	tr -d '\r' <"$log" | sed 's/\x1b\[[0-9;=?]*[A-Za-z]//g' >"$log.txt"
	local cpu
	cpu=$(tail -n 1 "$work/$name.cpu")
	echo "secureboot: boot $name ($fw, $media, -smp $smp) took $((SECONDS - t0)) s, QEMU's CPU $(echo "$cpu" | bc) s, ended: $st"
}
said() { grep -aqE "$2" "$out/sb-$1.log.txt" || { echo "sb-$1.log does not say: $2"; return 1; }; }
silent() { ! grep -aqE "$2" "$out/sb-$1.log.txt" || { echo "sb-$1.log says: $(grep -aE "$2" "$out/sb-$1.log.txt" | head -n 1)"; return 1; }; }
passed() { # NAME: apstart.efi started the kernel, which passed
	local st
	st=$(cat "$work/$1.st")
	[ "$st" = 1 ] || { echo "QEMU ended with $st, not 1 (the kernel's pass through isa-debug-exit)"; return 1; }
	said "$1" '^@end status=pass ' && said "$1" '^@env .* loader=apstart\.efi( |$)'
}
stopped() { [ "$(cat "$work/$1.st")" = stopped ] || { echo "the boot ended ($(cat "$work/$1.st")) before its message"; return 1; }; }

gate_not_signed='Secure Boot is on and apstart.efi on this stick is not signed'
gate_not_enrolled="Secure Boot is on and apstart's key is not enrolled"
efi_refused='^apstart\.efi: Secure Boot is on and \\apstart\\apstart-wbinvd0\.elf is not the kernel'
so_vars=$OVMF/OVMF_VARS_4M.snakeoil.fd
boot_a() { sb_boot A-signed snakeoil "$so_vars" "$work/crafted-so.img" usb 2; }
boot_b() { sb_boot B-unsigned snakeoil "$so_vars" "$work/unsigned-so.img" usb 1 "The menu follows in"; }
boot_c() { sb_boot C-changed snakeoil "$so_vars" "$work/changed-so.img" usb 1 'signed SHA-256:'; }
boot_d() { sb_boot D-ms-cd ms "$OVMF/OVMF_VARS_4M.ms.fd" "$work/signed.img" cd 1 "The menu follows in"; }
# E at -smp 1: with SMM and two CPUs every SMI (each variable access
# before ExitBootServices) gathers both vCPUs (see sb_boot); E needs no
# AP. A keeps -smp 2, the one boot that wakes an AP under SMM-enabled
# firmware.
boot_e() { sb_boot E-ms-mok ms "$work/vars-ms-mok.fd" "$work/signed.img" usb 1; }
boot_f() { sb_boot F-off plain "$OVMF/OVMF_VARS_4M.fd" "$work/changed-so.img" usb 2; }
boot_g() { sb_boot G-sbat snakeoil "$work/vars-so-sbat.fd" "$work/signed-so.img" usb 1 "The menu follows in"; }
echo "secureboot: accelerator TCG (OVMF cannot run on this host's paravirtual KVM); boots two at a time"
running=0
for b in boot_a boot_b boot_c boot_d boot_e boot_f boot_g; do
	if [ $running -ge 2 ]; then
		wait -n
		running=$((running - 1))
	fi
	$b &
	running=$((running + 1))
done
wait

a_ok() { passed A-signed && said A-signed '^apstart\.efi: Secure Boot on;' && silent A-signed 'is not the kernel'; }
check "A snakeoil, signed: shim -> GRUB -> apstart.efi (Secure Boot on) -> kernel, pass" a_ok
a_crafted() {
	said A-signed 'session-0001\\plan\.txt is not a plan: order= has 200 runs of A and 0 of B, not 100 each \(left alone\)' &&
		silent A-signed 'the table|runs in the figures|all [0-9]+ runs done'
}
check "A: the crafted plan (k=100, 200 A's, 200 passing runs) refused with its reason, no table made" a_crafted
a_switches() {
	said A-signed "loader\.cfg:4: unknown setting 'test_stale_map_key'" &&
		said A-signed "loader\.cfg:5: unknown setting 'test_session_fail'" &&
		said A-signed '^apstart\.efi: ExitBootServices done \(1 try,'
}
check "A: loader.cfg's test switches unknown to the signed apstart.efi (ExitBootServices: 1 try)" a_switches
a_session() {
	said A-signed "loader\.cfg: session=2 does not start a session by itself with Secure Boot on" &&
		silent A-signed '^session-[0-9]+: started'
}
check "A: loader.cfg's session=2 starts nothing by itself with Secure Boot on" a_session
b_ok() {
	stopped B-unsigned && said B-unsigned 'error: bad shim signature' && said B-unsigned "$gate_not_signed" &&
		said B-unsigned 'Turn Secure Boot off' && silent B-unsigned '^@boot '
}
check "B snakeoil, unsigned: GRUB refuses apstart.efi, the stick says 'not signed' and the two ways" b_ok
c_ok() {
	stopped C-changed && said C-changed "$efi_refused" && said C-changed 'signed SHA-256: +[0-9a-f]{64}' &&
		said C-changed 'turn Secure Boot off' && silent C-changed '^@boot '
}
check "C snakeoil, kernel changed after signing: apstart.efi refuses it, naming Secure Boot and SHA-256" c_ok
d_ok() {
	stopped D-ms-cd && said D-ms-cd 'Welcome to GRUB' && said D-ms-cd 'error: bad shim signature' &&
		said D-ms-cd "$gate_not_enrolled" && said D-ms-cd 'Enroll key from disk' && said D-ms-cd 'mokutil --import'
}
check "D Microsoft keys, CD: shim -> GRUB, then the stick's message asking to enrol the key" d_ok
d_fingerprint() {
	local d256 d1
	d256=$(openssl x509 -in "$work/snakeoil.pem" -noout -fingerprint -sha256 | sed 's/^[^=]*=//')
	d1=$(openssl x509 -in "$work/snakeoil.pem" -noout -fingerprint -sha1 | sed 's/^[^=]*=//')
	said D-ms-cd 'Compare this fingerprint with the one make keys printed before you' &&
		said D-ms-cd "SHA-256 ${d256:0:48}" && said D-ms-cd "^ {15}${d256:48}" &&
		said D-ms-cd "SHA-1   $d1" && said D-ms-cd 'mokutil --delete'
}
check "D: the enrolment message shows the signing certificate's SHA-256 and SHA-1, asks to compare" d_fingerprint
e_ok() { passed E-ms-mok && said E-ms-mok '^apstart\.efi: Secure Boot on;'; }
check "E Microsoft keys, the key in MokList: shim -> GRUB -> apstart.efi -> kernel, pass" e_ok
f_ok() {
	passed F-off && said F-off '^apstart\.efi: Secure Boot off;' &&
		said F-off '^apstart\.efi: warning: \\apstart\\apstart-wbinvd0\.elf is not the kernel' &&
		said F-off 'Secure Boot is off, so it is started'
}
check "F Secure Boot off, kernel changed: a warning, and it runs as before (pass)" f_ok
g_ok() {
	stopped G-sbat && said G-sbat 'error: ' && silent G-sbat '^@boot ' && silent G-sbat '^apstart\.efi '
}
check "G snakeoil, signed, SbatLevel apstart,2: shim refuses apstart.efi (its .sbat says generation 1)" g_ok
finish
