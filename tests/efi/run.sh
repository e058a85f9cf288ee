#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# apstart.efi and the results kept across a reset (make efi-tests).
#
# Static: apstart.efi is an EFI application; the image's EFI system
# partition carries it and the kernels; the GRUB menu offers it; docs/hardware.md
# names the variable as wings/efi/efi_vendor.h does; the variable-store
# reader (tests/efi/varstore.c, ASan/UBSan build) on crafted stores.
#
# Boots, all under OVMF with TCG except one SeaBIOS boot, on one writable
# copy of build/iso-test/apstart-test-efi.iso (the stick: GRUB starts
# apstart.efi at once on UEFI) and one writable copy of OVMF_VARS_4M.fd:
#   1 stick: apstart.efi finds nothing saved; the kernel keeps its summary
#     in NVRAM and resets the machine (exit=reset); the variable is read
#     out of the vars file. The loader's first ExitBootServices is made to
#     fail (loader.cfg test_stale_map_key=1): the retry must boot.
#   2 the same image as a CD: read-only, the loader says so and boots on
#     (save=off from here on); NVRAM unchanged.
#   3 stick: the loader writes \apstart\results\0001.log, shows it and
#     deletes the variable; the file is read back with mtools.
#   4 SeaBIOS (and 7 OVMF): the stick still boots both ways after the
#     firmware wrote to it; nothing saved any more, and the save=off runs
#     leave no variable behind.
#   6 `make run FIRMWARE=uefi LOADER=gnu-efi`'s path: firmware starts
#     apstart.efi itself (no GRUB); OVMF's variables in RAM (-bios).
#   5 (gone: its OVMF boot of the stick is boot 7's, its checks are 7's)
#   7 the menu from the serial console (OVMF's console splitter): a key
#     stops the countdown, Down marks entry 2, 'e' edits its command line.
#   8 make run FIRMWARE=uefi, tools/run/iso-run.sh and
#     tools/run/session-qemu.sh when QEMU refuses to start or the firmware
#     file is unusable or missing: exit 2 with QEMU's (or the runner's)
#     word last, never a pass.
# Logs: build/test-logs/efi-*.
set -uo pipefail
cd "$(dirname "$0")/../.."

ISO=${ISO:-build/apstart.iso}
TEST_ISO=${EFI_TEST_ISO:-build/iso-test/apstart-test-efi.iso}
EFI=${APSTART_EFI:-build/efi/apstart.efi}
VARSTORE=${VARSTORE:-build/host/varstore}
APLOG=${APLOG:-build/host/aplog}
OVMF_VARS=${OVMF_VARS:-/usr/share/OVMF/OVMF_VARS_4M.fd}
SMP=2
BOOT_TIMEOUT=${EFI_BOOT_TIMEOUT:-120}
export MTOOLS_SKIP_CHECK=1
. tests/protocol.sh
lane_start efi
need_files efi-tests "$ISO" "$TEST_ISO" "$EFI" "$VARSTORE" "$OVMF_VARS" "$APLOG"

# ---------------------------------------------------------------- static
pe_app() {
	objdump -f "$EFI" | grep 'file format pei-x86-64' >/dev/null || { echo "not a PE32+ x86-64 image"; return 1; }
	objdump -p "$EFI" | grep -E '^Subsystem[[:space:]]+0000000a' >/dev/null || { echo "subsystem is not 10 (EFI application)"; return 1; }
}
check "apstart.efi is a PE32+ x86-64 EFI application" pe_app

read -r esp_off _ < <(tools/image/esp-offset.sh "$ISO") || esp_off=
unsigned() { # FILE: the same without the signature make sign may have added
	sbverify --list "$1" 2>/dev/null | grep -q '^signature 1' && sbattach --remove "$1" >/dev/null 2>&1
	return 0
}
esp_files() { # the image as shipped: GRUB's menu, apstart.efi and kernels beside it
	local bad=0 w
	[ -n "$esp_off" ] || { echo "no EFI system partition in $ISO"; return 1; }
	local fat=$ISO@@$esp_off
	mcopy -n -i "$fat" ::/EFI/apstart/apstart.efi "$work/esp.efi" 2>/dev/null && unsigned "$work/esp.efi" &&
		cmp -s "$work/esp.efi" "$EFI" || { echo "\\EFI\\apstart\\apstart.efi missing or not $EFI (signed or not)"; bad=1; }
	for w in 0 1; do
		objcopy --strip-debug "build/wbinvd$w/apstart.elf" "$work/k$w.elf"
		mcopy -n -i "$fat" "::/apstart/apstart-wbinvd$w.elf" "$work/esp$w.elf" 2>/dev/null &&
			cmp -s "$work/esp$w.elf" "$work/k$w.elf" ||
			{ echo "\\apstart\\apstart-wbinvd$w.elf missing or not build/wbinvd$w/apstart.elf"; bad=1; }
	done
	mdir -i "$fat" ::/apstart/results >/dev/null 2>&1 || { echo "no \\apstart\\results"; bad=1; }
	mdir -i "$fat" ::/apstart/loader.cfg >/dev/null 2>&1 && { echo "the stick ships a loader.cfg"; bad=1; }
	# Behind shim and Debian's signed GRUB (tests/secureboot/): grub-mkrescue's GRUB.
	mcopy -n -i "$fat" ::/EFI/apstart/grub.efi "$work/boot.efi" 2>/dev/null &&
		grep -aq 'grub_mod_init' "$work/boot.efi" || { echo "\\EFI\\apstart\\grub.efi is not GRUB"; bad=1; }
	xorriso -osirrox on -indev "$ISO" -extract /boot/apstart.efi "$work/iso.efi" >/dev/null 2>&1 &&
		cmp -s "$work/iso.efi" "$EFI" || { echo "/boot/apstart.efi missing or stale"; bad=1; }
	return $bad
}
check "EFI partition: apstart.efi, both kernels, results/; GRUB's menu as \\EFI\\apstart\\grub.efi" esp_files

grub_entry() {
	xorriso -osirrox on -indev "$ISO" -extract /boot/grub/grub.cfg "$work/grub.cfg" >/dev/null 2>&1 ||
		{ echo "cannot extract grub.cfg"; return 1; }
	awk '/^if \[ "\$grub_platform" = efi \]; then$/ { efi = 1 }
	     /^fi$/ { efi = 0 }
	     efi && /^\tmenuentry "apstart.efi: / { entry = 1 }
	     entry && /^\t\tchainload_apstart_efi$/ { found = 1 }
	     END { exit !found }' "$work/grub.cfg" || { echo "no UEFI-only menu entry that chainloads apstart.efi"; return 1; }
	grep -q '^		chainloader (\$apstart_esp)/EFI/apstart/apstart.efi$' "$work/grub.cfg" ||
		{ echo "chainload_apstart_efi does not start the partition's copy"; return 1; }
}
check "GRUB menu: a UEFI entry chainloads apstart.efi" grub_entry

var_name=$("$VARSTORE" --name)
readme_name() {
	grep -qF "/sys/firmware/efi/efivars/$var_name" docs/hardware.md ||
		{ echo "docs/hardware.md does not name /sys/firmware/efi/efivars/$var_name"; return 1; }
}
check "docs/hardware.md names the variable as wings/efi/efi_vendor.h defines it" readme_name

# A variable under our name and GUID in a copy of the pristine store,
# after its last variable (none): bytes as EDK II writes them.
le32() { printf "$(printf '\\x%02x\\x%02x\\x%02x\\x%02x' $(($1 & 255)) $(($1 >> 8 & 255)) $(($1 >> 16 & 255)) $(($1 >> 24 & 255)))"; }
var_bytes() { # STATE DATA-SIZE-FIELD DATA: one authenticated variable
	local guid=${var_name#*-} name=${var_name%%-*} g i
	g=${guid//-/}
	printf "\\xaa\\x55\\x$1\\x00"                    # StartId, State, Reserved
	le32 7                                               # NV, BS, RT
	head -c 28 /dev/zero                                 # count, time stamp, key index
	le32 $(((${#name} + 1) * 2))
	le32 "$2"
	printf "\\x${g:6:2}\\x${g:4:2}\\x${g:2:2}\\x${g:0:2}\\x${g:10:2}\\x${g:8:2}\\x${g:14:2}\\x${g:12:2}"
	for ((i = 16; i < 32; i += 2)); do printf "\\x${g:$i:2}"; done
	for ((i = 0; i < ${#name}; i++)); do printf '%s\0' "${name:$i:1}"; done
	printf '\0\0%s' "$3"
}
store_with() { # FILE STATE SIZE DATA
	local first
	cp "$OVMF_VARS" "$1"
	first=$(($(od -A n --endian=little -t u2 -j 48 -N 2 "$OVMF_VARS") + 28))
	var_bytes "$2" "$3" "$4" | dd of="$1" bs=1 seek="$first" conv=notrunc status=none
}
expect_varstore() { # WANT-STATUS WANT-OUTPUT FILE: varstore's verdict on FILE
	local st got
	got=$("$VARSTORE" "$3" 2>"$work/varstore.err"); st=$?
	[ $st = "$1" ] || { echo "exit $st, want $1: $(cat "$work/varstore.err")"; return 1; }
	[ "$got" = "$2" ] || { echo "printed '$got', want '$2'"; return 1; }
}
check "varstore: pristine OVMF_VARS_4M.fd has no ApstartResults (exit 1)" expect_varstore 1 "" "$OVMF_VARS"
store_with "$work/live.fd" 3f 5 hello
check "varstore: a live variable is found and printed" expect_varstore 0 hello "$work/live.fd"
store_with "$work/deleted.fd" 3c 5 hello
check "varstore: a deleted variable (state 0x3c) is not live (exit 1)" expect_varstore 1 "" "$work/deleted.fd"
store_with "$work/huge.fd" 3f 4294967040 hello
check "varstore: data size beyond the store is rejected (exit 2)" expect_varstore 2 "" "$work/huge.fd"
store_with "$work/short2.fd" 3f 5 hello
head -c 140 "$work/short2.fd" >"$work/short.fd"
check "varstore: a truncated store is rejected (exit 2)" expect_varstore 2 "" "$work/short.fd"
head -c 4096 /dev/zero >"$work/zero.fd"
check "varstore: no firmware volume header is rejected (exit 2)" expect_varstore 2 "" "$work/zero.fd"

# ---------------------------------------------------------------- boots
img=$work/stick.img vars=$work/vars.fd
cp "$TEST_ISO" "$img" && cp "$OVMF_VARS" "$vars" || { fail "boots" "cannot copy the test image or the variable store"; finish; }
read -r off _ < <(tools/image/esp-offset.sh "$img")
fat=$img@@$off
loader_cfg() { # LINES...: the stick's \apstart\loader.cfg
	printf '%s\n' "$@" >"$work/loader.cfg" && tools/image/esp-populate.sh --config "$work/loader.cfg" "$img"
}
# boot NAME ISO-RUN-ARGS...: one boot; $work/NAME.st its exit status,
# build/test-logs/efi-NAME.log its serial log, .txt without escapes.
boot() {
	local name=$1 log=$out/efi-$1.log; shift
	local t0=$SECONDS
	tools/run/iso-run.sh --smp $SMP --timeout "$BOOT_TIMEOUT" --log "$log" "$@" >"$log.run" 2>&1
	echo $? >"$work/$name.st"
	tr -d '\r' <"$log" | sed 's/\x1b\[[0-9;=?]*[A-Za-z]//g' >"$log.txt"
	echo "efi: boot $name took $((SECONDS - t0))s"
}
said() { grep -aqE "$2" "$out/efi-$1.log.txt"; }
st() { cat "$work/$1.st"; }
passed() { # NAME [CPUS]: the kernel ran through apstart.efi and passed (aplog reads the log)
	local log=$out/efi-$1.log.txt
	[ "$(st "$1")" = 0 ] || { echo "iso-run exit status $(st "$1"), want 0: $(tail -n 2 "$out/efi-$1.log.run" | tr '\n' ' ')"; return 1; }
	"$APLOG" verify --cpus "${2:-$SMP}" --boot firmware=uefi --boot protocol=mb2 "$log" || return 1
	grep -aqE '^@env .* loader=apstart\.efi( |$)' "$log" || { echo "no '@env ... loader=apstart.efi'"; return 1; }
}
records() { # FILE: a saved summary of a passing -smp $SMP run
	local f=$1 bad=0
	# One run that passed (no samples are saved, so no --cpus/--cycles).
	"$APLOG" verify --online $SMP --boot firmware=uefi --boot cpus=$SMP "$f" >"$work/verify.out" 2>&1 ||
		{ cat "$work/verify.out"; bad=1; }
	grep -qE '^@env .* firmware=uefi .*loader=apstart\.efi( |$)' "$f" || { echo "no @env with firmware=uefi, loader=apstart.efi"; bad=1; }
	grep -qE '^@summary op=offline cpus=1 ' "$f" && grep -qE '^@summary op=online cpus=1 ' "$f" ||
		{ echo "no @summary op=offline and op=online"; bad=1; }
	grep -q '^ cpu   apic  median     min     max  ap-med |' "$f" &&
		grep -qE '^ +1 +1 +[0-9.]+ +[0-9.]+ +[0-9.]+ +([0-9.]+|na) \|' "$f" || { echo "no per-CPU table with the AP's row"; bad=1; }
	grep -qE '^Total: ' "$f" || { echo "no totals"; bad=1; }
	[[ "$(tail -n 1 "$f")" == "@end "* ]] || { echo "the last line is not @end"; bad=1; }
	grep -q '^@sample ' "$f" && { echo "@sample records were saved"; bad=1; }
	return $bad
}
saved_var() { # FILE: the live variable, read out of the vars file
	"$VARSTORE" "$vars" >"$1" 2>"$work/varstore.err" || { cat "$work/varstore.err"; return 1; }
	records "$1"
}
no_var() {
	"$VARSTORE" "$vars" >/dev/null 2>&1
	[ $? = 1 ] || { echo "varstore does not say 'no live variable': $("$VARSTORE" --list "$vars" | grep -a Apstart)"; return 1; }
}

echo "efi: boots on $img (-smp $SMP, vars $vars)"
loader_cfg timeout=0 results_wait=0 'cmdline=cycles=2 exit=reset' test_stale_map_key=1
boot 1-save --firmware uefi --media usb --disk "$img" --vars "$vars"
check "1 UEFI stick: GRUB -> apstart.efi -> kernel, pass" passed 1-save
check "1 apstart.efi: nothing saved in fresh NVRAM" said 1-save '^results: none saved in NVRAM'
check "1 ExitBootServices retried after a stale map key" said 1-save '^apstart.efi: ExitBootServices done \(2 tries,'
save1() {
	said 1-save '^save: summary kept in NVRAM, [0-9]+ bytes' &&
		grep -q '^iso-run: the machine reset' "$out/efi-1-save.log.run"
}
check "1 kernel kept its summary through SetVariable, then reset the machine" save1
check "1 the vars file holds ApstartResults with the run's records and table" saved_var "$work/var1"

loader_cfg timeout=0 results_wait=0 'cmdline=cycles=1 save=off'
boot 2-cd --firmware uefi --media cdrom --iso "$img" --vars "$vars"
check "2 the image as a CD: pass" passed 2-cd
cd_ro() { said 2-cd '^results: the last run saved [0-9]+ bytes' && said 2-cd 'medium is read-only' && said 2-cd '^save: off \(save=off\)'; }
check "2 CD: results found, 'cannot be saved here', booted on" cd_ro
same_var() { "$VARSTORE" "$vars" | cmp - "$work/var1"; }
check "2 CD, save=off: the variable is as the first run left it" same_var

boot 3-collect --firmware uefi --media usb --disk "$img" --vars "$vars"
check "3 UEFI stick: pass" passed 3-collect
collected() { said 3-collect '^results: saved to \\apstart\\results\\0001\.log$' && said 3-collect '^results: deleted ApstartResults from NVRAM$'; }
check "3 apstart.efi saved the results as 0001.log and deleted the variable" collected
file_is_var() {
	mcopy -n -i "$fat" ::/apstart/results/0001.log "$work/0001.log" || return 1
	cmp "$work/0001.log" "$work/var1" && records "$work/0001.log"
}
check "3 mtools reads 0001.log off the image: the variable, byte for byte" file_is_var
check "3 no variable left in the vars file" no_var

boot 4-bios --firmware bios --media usb --disk "$img"
bios_ok() {
	[ "$(st 4-bios)" = 0 ] || { echo "iso-run exit status $(st 4-bios)"; return 1; }
	"$APLOG" verify --cpus $SMP --boot firmware=bios "$out/efi-4-bios.log.txt" &&
		said 4-bios '^boot: multiboot2 from "GRUB[^"]*", firmware BIOS'
}
check "4 after the firmware's write the stick boots from BIOS (GRUB)" bios_ok
# ... and from UEFI: boot 7 below, on the same stick and NVRAM (GRUB ->
# apstart.efi -> kernel, save=off), which finds nothing saved.

# OVMF's variables in RAM (-bios OVMF.fd, ~3 CPU-s less): boot 6 checks
# the path to the kernel, not NVRAM (boots 1, 2, 3 and 7 keep the flash).
boot 6-direct --firmware uefi --media usb --loader gnu-efi --iso "$ISO" --nvram ram -- cycles=1
direct() { passed 6-direct && ! said 6-direct 'Welcome to GRUB' && said 6-direct '^apstart\.efi [0-9.]+ \(gnu-efi\)'; }
check "6 LOADER=gnu-efi: firmware starts apstart.efi itself (no GRUB), pass" direct

# Keys go in through a FIFO that is QEMU's standard input (the serial
# console), each once the loader has printed what it answers.
# Each poll is one grep on the raw log (CRs and escapes left in: the
# REGEX is never anchored), every 0.2 s: the loader waits for the key
# (timeout=60), and a tr | grep every 0.1 s cost 45 ms of CPU a second.
wait_for() { # NAME REGEX: up to 60 s for the boot's log to show REGEX
	local i
	for ((i = 0; i < 300; i++)); do
		grep -aqE "$2" "$out/efi-$1.log" 2>/dev/null && return 0
		sleep 0.2
	done
	return 1
}
loader_cfg timeout=60 results_wait=0
mkfifo "$work/keys" && exec 5<>"$work/keys"
rm -f "$out/efi-7-keys.log"
boot 7-keys --firmware uefi --media usb --disk "$img" --vars "$vars" --input "$work/keys" &
keys_pid=$!
typed=no
if wait_for 7-keys 'default entry in'; then
	printf '\033[B' >&5                       # Down: stops the countdown, marks entry 2
	if wait_for 7-keys '> 2\) WBINVD=1'; then
		printf 'e' >&5
		wait_for 7-keys 'kernel command line \(Enter' && printf ' maxcpus=1 save=off\r' >&5 && typed=yes
	fi
fi
wait $keys_pid
exec 5>&-
keys() {
	[ $typed = yes ] || { echo "the loader never asked for the keys (menu, marked entry 2, editor)"; return 1; }
	[ "$(st 7-keys)" = 0 ] || { echo "iso-run exit status $(st 7-keys)"; return 1; }
	said 7-keys '^cmdline: "cycles=10 maxcpus=1 save=off"$' || { echo "the kernel did not get the edited line"; return 1; }
	"$APLOG" verify --cpus 1 --cycles 10 --wbinvd 1 "$out/efi-7-keys.log.txt"
}
check "7 menu from the serial console: Down, e, typed options -> entry 2 as edited" keys
nothing() { said 7-keys '^results: none saved in NVRAM' && ! said 7-keys '0002\.log'; }
check "7 after the firmware's writes the stick boots from UEFI too; apstart.efi finds nothing saved" nothing
check "7 the save=off runs (3 and 7) left no variable behind" no_var
fat_ok() {
	mdir -i "$fat" ::/apstart/results >"$work/results.dir" || return 1
	[ "$(grep -ci '^0001 *log' "$work/results.dir")" = 1 ] && [ "$(grep -ci '^000[2-9]' "$work/results.dir")" = 0 ] ||
		{ cat "$work/results.dir"; return 1; }
}
check "the FAT file system holds exactly 0001.log after the stick's boots" fat_ok

# ---------------------------------------------------------------- 8
# The UEFI runners when QEMU refuses to start (a bad topology, too many
# CPUs, a bogus CPU model) or the firmware file is unusable or missing:
# no verdict (exit 2), QEMU's own message (or the runner's refusal) the
# last line, never a pass. make run FIRMWARE=uefi, iso-run.sh and the
# session runner (tools/run/session-qemu.sh, which stops at the first
# such boot).
: >"$work/empty.fd"
# last_is OUT WANT-STATUS REGEX CMD...: CMD exits WANT-STATUS, says no
# pass, and its last line matches REGEX.
last_is() {
	local out=$1 want=$2 re=$3 st last
	shift 3
	timeout 600 "$@" >"$out" 2>&1 </dev/null
	st=$?
	last=$(grep -a . "$out" | tail -n 1)
	[ $st = "$want" ] || { echo "exit status $st, want $want; last line: $last"; return 1; }
	! grep -Eaq 'make run: pass|^@end status=pass' "$out" || { echo "it says pass"; return 1; }
	grep -Eq -- "$re" <<<"$last" || { echo "last line: $last"; return 1; }
}
qemu_re='(^|: )qemu(-system-[a-z0-9_]+)?: '
# make run FIRMWARE=uefi is called where make's part is the check: its
# QEMU_CPU reaching the runner, its own wording of the runner's refusal.
# The -smp and firmware-file refusals are iso-run.sh's (make run passes
# SMP as it does in every lane, OVMF_CODE through the environment): the
# runner itself, without make run's no-op make iso (~2 CPU-s each). No
# kernel arguments: nothing is built per run before QEMU refuses.
make_run=(make --no-print-directory run FIRMWARE=uefi ACCEL=tcg TIMEOUT=60 RUN_LOG="$work/r8.log")
iso_run=(tools/run/iso-run.sh --firmware uefi --accel tcg --timeout 60 --log "$work/r8.log")
for r in "a bad CPU topology|--smp|4,maxcpus=2|" "more CPUs than the machine has|--smp|1000|" \
	"a CPU model QEMU does not know|--cpu|bogus|QEMU_CPU=bogus"; do
	IFS='|' read -r what opt val var <<<"$r"
	if [ -n "$var" ]; then
		check "8 make run FIRMWARE=uefi $var: QEMU refuses ($what): exit 2, its message last" \
			last_is "$work/r8.txt" 2 "$qemu_re" "${make_run[@]}" "$var"
	else
		check "8 iso-run.sh --firmware uefi $opt $val: QEMU refuses ($what): exit 2, its message last" \
			last_is "$work/r8.txt" 2 "$qemu_re" "${iso_run[@]}" "$opt" "$val"
	fi
	check "8 session-qemu.sh $opt $val: QEMU refuses ($what): stops at boot 1, exit 2, its message last" \
		last_is "$work/s8.txt" 2 "$qemu_re" tools/run/session-qemu.sh --k 1 --timeout 60 --out "$work/s8" "$opt" "$val"
done
check "8 iso-run.sh --firmware uefi, an empty OVMF_CODE: QEMU refuses, exit 2, its message last" \
	last_is "$work/r8.txt" 2 "$qemu_re" env OVMF_CODE="$work/empty.fd" "${iso_run[@]}" --smp 2
check "8 make run FIRMWARE=uefi, no OVMF_CODE: the runner's refusal last, not the kernel's" \
	last_is "$work/r8.txt" 2 "make run: not run \(exit 2\): iso-run: OVMF not found" env OVMF_CODE="$work/none.fd" \
	"${make_run[@]}" SMP=2
session_fw() {
	last_is "$work/s8.txt" 2 "$qemu_re" env OVMF_CODE="$work/empty.fd" tools/run/session-qemu.sh --k 1 --smp 2 \
		--timeout 60 --out "$work/s8" || return 1
	last_is "$work/s8.txt" 2 '^session-qemu: cannot copy' env OVMF_VARS="$work/none.fd" tools/run/session-qemu.sh \
		--k 1 --smp 2 --timeout 60 --out "$work/s8"
}
check "8 session-qemu.sh, an empty OVMF_CODE, no OVMF_VARS: exit 2, QEMU's message, its own refusal last" session_fw

finish
