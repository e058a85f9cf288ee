#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Secure Boot (make secureboot-tests): the chain firmware -> shim ->
# Debian's signed GRUB -> apstart.efi -> kernel, what `make keys` and
# `make sign` make, and each refusal, under OVMF with Secure Boot
# enforced (q35 with SMM, pflash secure=on), TCG.
#
# Static: make keys (a pair, never overwritten), make sign's refusals,
# tools/image/sign.sh on a copy of the test image (sbverify accepts it, the
# certificate in DER beside it), the EFI partition's chain, and the
# SHA-256 table in apstart.efi against sha256sum of the stick's kernels.
#
# Boots (two at a time; the images are copies of build/iso-test/
# apstart-test-efi.iso, signed with OVMF's test key "snakeoil"):
#   A snakeoil store, signed image              -> @end status=pass
#   B snakeoil store, unsigned image            -> the stick's refusal: not signed
#   C snakeoil store, kernel changed after signing -> apstart.efi's refusal
#   D Microsoft store (a CD), signed image      -> shim, GRUB, the refusal
#                                                  asking for the key's enrolment
#   E Microsoft store, the key in MokList       -> @end status=pass
#     (what MokManager leaves after an enrolment: tests/secureboot/setvar.py)
#   F Secure Boot off, kernel changed           -> a warning, @end status=pass
# The snakeoil store trusts only the snakeoil key, not Microsoft's CA
# (the Microsoft-signed shim gets "Access Denied" there): for A-C the
# test images' shim carries a second signature by the snakeoil key, which
# stands in for Microsoft's. Logs: build/test-logs/sb-*.
set -uo pipefail
cd "$(dirname "$0")/../.."

TEST_ISO=${EFI_TEST_ISO:-build/iso-test/apstart-test-efi.iso}
EFI=${APSTART_EFI:-build/efi/apstart.efi}
HASHES=${EFI_HASHES:-build/efi/gen/kernel_hashes.c}
SHIM=${SHIM_EFI:-/usr/lib/shim/shimx64.efi.signed}
MOKMANAGER=${MOKMANAGER_EFI:-/usr/lib/shim/mmx64.efi.signed}
SIGNED_GRUB=${SIGNED_GRUB_EFI:-/usr/lib/grub/x86_64-efi-signed/grubx64.efi.signed}
GATE=tools/image/gate.cfg
OVMF=${OVMF_DIR:-/usr/share/OVMF}
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
}
check "make keys: RSA 2048, a CN naming apstart and $(hostname), key mode 600, PEM + DER" make_keys
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
}
cp "$work/unsigned.img" "$work/mine.img"
sign_mine() {
	tools/image/sign.sh --key "$keys/apstart-mok.key" --cert "$keys/apstart-mok.crt" --efi "$EFI" \
		--out "$work/sign-mine" "$work/mine.img" >"$work/sign-mine.out" 2>&1 || { cat "$work/sign-mine.out"; return 1; }
	signed_ok "$work/sign-mine" "$keys/apstart-mok.crt" "$work/mine.img"
}
check "make sign's script with make keys' pair: sbverify accepts the image's apstart.efi, DER beside it" sign_mine

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

# ------------------------------------------------------------ boots
for f in OVMF_CODE_4M.snakeoil.fd OVMF_VARS_4M.snakeoil.fd OVMF_CODE_4M.ms.fd OVMF_VARS_4M.ms.fd OVMF_CODE_4M.fd OVMF_VARS_4M.fd; do
	if [ ! -f "$OVMF/$f" ]; then
		skip "Secure Boot boots" "no $OVMF/$f (Debian 12's ovmf has it)"
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
for i in unsigned-so signed-so changed-so signed; do
	tools/image/esp-populate.sh --config "$work/loader.cfg" "$work/$i.img"
done
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
	local m=(-machine q35,smm=on -global driver=cfi.pflash01,property=secure,value=on) code=OVMF_CODE_4M.$fw.fd
	[ "$fw" = plain ] && m=(-machine q35) code=OVMF_CODE_4M.fd
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
	TIMEFORMAT=%U+%S
	{ time timeout "$BOOT_TIMEOUT" qemu-system-x86_64 -display none -no-reboot -m 512 -monitor none \
		-serial "file:$log" -device isa-debug-exit,iobase=0xf4,iosize=4 "${m[@]}" \
		-accel tcg -cpu max -smp "$smp" -net none \
		-drive "if=pflash,format=raw,unit=0,readonly=on,file=$OVMF/$code" \
		-drive "if=pflash,format=raw,unit=1,file=$work/$name.vars" "${media_opts[@]}" \
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
boot_a() { sb_boot A-signed snakeoil "$so_vars" "$work/signed-so.img" usb 2; }
boot_b() { sb_boot B-unsigned snakeoil "$so_vars" "$work/unsigned-so.img" usb 1 "Two ways forward"; }
boot_c() { sb_boot C-changed snakeoil "$so_vars" "$work/changed-so.img" usb 1 'signed SHA-256:'; }
boot_d() { sb_boot D-ms-cd ms "$OVMF/OVMF_VARS_4M.ms.fd" "$work/signed.img" cd 1 "Two ways forward"; }
boot_e() { sb_boot E-ms-mok ms "$work/vars-ms-mok.fd" "$work/signed.img" usb 2; }
boot_f() { sb_boot F-off plain "$OVMF/OVMF_VARS_4M.fd" "$work/changed-so.img" usb 2; }
echo "secureboot: accelerator TCG (OVMF cannot run on this host's paravirtual KVM); boots two at a time"
running=0
for b in boot_a boot_b boot_c boot_d boot_e boot_f; do
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
e_ok() { passed E-ms-mok && said E-ms-mok '^apstart\.efi: Secure Boot on;'; }
check "E Microsoft keys, the key in MokList: shim -> GRUB -> apstart.efi -> kernel, pass" e_ok
f_ok() {
	passed F-off && said F-off '^apstart\.efi: Secure Boot off;' &&
		said F-off '^apstart\.efi: warning: \\apstart\\apstart-wbinvd0\.elf is not the kernel' &&
		said F-off 'Secure Boot is off, so it is started'
}
check "F Secure Boot off, kernel changed: a warning, and it runs as before (pass)" f_ok
finish
