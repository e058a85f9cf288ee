#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# apstart.efi's A/B session under OVMF (make session-tests): K=2 runs per
# variant at -smp 4, unattended from loader.cfg (session=2), on one
# writable copy of build/iso-test/apstart-test-efi.iso and one of
# OVMF_VARS_4M.fd. Each QEMU process is one boot (-no-reboot: the
# kernel's reset ends it), the next one is the machine coming back:
#   1 the loader writes the plan and boots run 1, which keeps its records
#     in NVRAM and resets;
#   2 run 1 is filed; QEMU is killed while run 2's kernel runs (a power
#     cut);
#   3 run 2 is recorded interrupted; a key in the countdown stops the
#     session before run 3 (the plan says so), 'r' in the menu resumes
#     it; run 3 fails (test_session_fail=3: selftest=ap-hang);
#   4 run 3 is filed as failed and counted; run 4 runs;
#   5 the table: table.txt, the screen (screendump, read back with the
#     kernel's font), the QR code (zbarimg) show the same rows, and they
#     are the rows `aplog compare` prints for the session folder;
#   BIOS: GRUB's own session on the same stick (SeaBIOS): runs 19 and 20
#     of its order through \apstart\grubenv, each ending in a reset, then
#     the end;
#   6 the shipped image as a CD with a session's mark (and, in make
#     session-long, NVRAM nearly full): GRUB starts apstart.efi by itself,
#     which says so (both) and starts nothing.
# The records filed for runs 1, 3 and 4 must equal what serial printed.
# Logs: build/test-logs/session-*.
set -uo pipefail
cd "$(dirname "$0")/../.."

TEST_ISO=${EFI_TEST_ISO:-build/iso-test/apstart-test-efi.iso}
ISO=${ISO:-build/apstart.iso}
APLOG=${APLOG:-build/host/aplog}
SCREENTEXT=${SCREENTEXT:-build/host/screentext}
OVMF_VARS=${OVMF_VARS:-/usr/share/OVMF/OVMF_VARS_4M.fd}
SMP=4
BOOT_TIMEOUT=${SESSION_BOOT_TIMEOUT:-120}
export MTOOLS_SKIP_CHECK=1
. tests/protocol.sh
lane_start session
need_files session-tests "$TEST_ISO" "$ISO" "$APLOG" "$SCREENTEXT" "$OVMF_VARS"

img=$work/stick.img vars=$work/vars.fd
cp "$TEST_ISO" "$img" && cp "$OVMF_VARS" "$vars" || { fail "inputs" "cannot copy the image or the variable store"; finish; }
read -r off _ < <(tools/image/esp-offset.sh "$img")
fat=$img@@$off
dir=::/apstart/results/session-0001
loader_cfg() {
	printf '%s\n' "$@" >"$work/loader.cfg" && tools/image/esp-populate.sh --config "$work/loader.cfg" "$img"
}
# boot NAME ISO-RUN-ARGS...: one boot (one QEMU process) in the foreground.
boot() {
	local name=$1 log=$out/session-$1.log t0=$SECONDS; shift
	rm -f "$log"
	tools/run/iso-run.sh --smp $SMP --timeout "$BOOT_TIMEOUT" --log "$log" "$@" >"$log.run" 2>&1
	echo $? >"$work/$name.st"
	text "$name"
	echo "session: boot $name took $((SECONDS - t0))s"
}
text() { tr -d '\r' <"$out/session-$1.log" | sed 's/\x1b\[[0-9;=?]*[A-Za-z]//g' >"$out/session-$1.log.txt"; }
said() { grep -aqE "$2" "$out/session-$1.log.txt"; }
st() { cat "$work/$1.st"; }
# One grep on the raw log a poll (1.8 ms of CPU; tr | grep was 4.5 ms):
# the lines waited for start after a newline, not a CR.
wait_for() { # NAME REGEX [SECONDS]: the boot's serial log shows REGEX
	local i
	for ((i = 0; i < ${3:-90} * 10; i++)); do
		grep -aqE "$2" "$out/session-$1.log" 2>/dev/null && return 0
		sleep 0.1
	done
	return 1
}
has() { mdir -i "$fat" "$dir/$1" >/dev/null 2>&1; }
get() { mcopy -n -i "$fat" "$dir/$1" "$2"; }
plan_has() { get plan.txt "$work/plan.txt" && grep -qE "$1" "$work/plan.txt" || { echo "plan.txt has no line matching '$1'"; return 1; }; }
run_file() { # N: the name of run N's files (from the plan's order)
	local o
	o=$(sed -n 's/^order=//p' "$work/plan.txt")
	local v=${o:$(($1 - 1)):1}
	printf 'run-%03d-%s-wbinvd%d' "$1" "$v" $([ "$v" = A ] && echo 1 || echo 0)
}
# The records a kept summary holds, as serial printed them (the kernel's
# part of the boot's log: from its banner to its last @end).
kept_records() { grep -aE '^@(boot|env|warn|fail|cpusum|phases|summary|end) '; }
records_equal() { # BOOT N
	local f
	f=$(run_file "$2").log
	get "$f" "$work/$f" || { echo "no $f"; return 1; }
	kept_records <"$out/session-$1.log.txt" >"$work/serial.rec"
	kept_records <"$work/$f" >"$work/file.rec"
	[ -s "$work/file.rec" ] || { echo "$f holds no records"; return 1; }
	diff "$work/serial.rec" "$work/file.rec" >"$work/rec.diff" ||
		{ echo "$f differs from boot $1's serial: $(head -n 4 "$work/rec.diff" | tr '\n' ' ')"; return 1; }
}

# ---------------------------------------------------------------- 1
# Seed 4 orders BABA: the interrupted run 2 is an A, the failing run 3 a B.
loader_cfg timeout=60 results_wait=0 session=2 session_wait=2 session_seed=4 test_session_fail=3
boot 1 --firmware uefi --media usb --disk "$img" --vars "$vars"
started() {
	said 1 '^session-0001: started: 2 runs of each variant, order [AB]{4} \(randomised pairs\)' || { echo "no 'session-0001: started'"; return 1; }
	plan_has '^order=BABA$' && plan_has '^seed=0x4$' && plan_has '^state=running$' && plan_has '^run=001 variant=[AB] wbinvd=[01] started clock=' || return 1
	said 1 '^cmdline: "cycles=1 exit=reset"$' || { echo "the kernel did not get 'cycles=1 exit=reset'"; return 1; }
	[ "$(st 1)" = 0 ] && grep -q '^iso-run: the machine reset' "$out/session-1.log.run" ||
		{ echo "iso-run status $(st 1), want 0 after a reset"; return 1; }
	has "$(run_file 1).started" || { echo "no $(run_file 1).started on the stick"; return 1; }
	mdir -i "$fat" ::/apstart/session-running >/dev/null 2>&1 || { echo "no \\apstart\\session-running for GRUB"; return 1; }
}
check "1 session=2: plan.txt in randomised pairs, run 1 booted with exit=reset, kept, reset" started

# ---------------------------------------------------------------- 2
# The processes this script started under PID (iso-run, timeout, QEMU).
descendants() {
	local c
	for c in $(ps -o pid= --ppid "$1"); do
		echo "$c"
		descendants "$c"
	done
}
log2=$out/session-2.log
rm -f "$log2"
# In a subshell whose stderr is not the lane's: bash's "Killed" goes there.
(tools/run/iso-run.sh --smp $SMP --timeout "$BOOT_TIMEOUT" --log "$log2" --firmware uefi --media usb \
	--disk "$img" --vars "$vars" >"$log2.run" 2>&1) 2>/dev/null &
pid=$!
killed=no
if wait_for 2 '^apstart [0-9.]+: x86_64'; then
	tree=$(descendants "$pid")
	# shellcheck disable=SC2086
	[ -n "$tree" ] && kill -KILL $tree 2>/dev/null && killed=yes
	for p in $tree; do # until QEMU has let go of the image
		while kill -0 "$p" 2>/dev/null; do sleep 0.1; done
	done
fi
wait "$pid"
text 2
cut2() {
	[ $killed = yes ] || { echo "run 2's kernel never started (or could not be killed)"; return 1; }
	said 2 '^A/B session under way: starting apstart.efi' || { echo "GRUB did not see the session's mark"; return 1; }
	said 2 '^session: run 1 of 4 \([AB], WBINVD=[01] .*\) filed as run-001-[AB]-wbinvd[01]\.log' || { echo "run 1 not filed"; return 1; }
	has "$(run_file 1).log" && has "$(run_file 2).started" && ! has "$(run_file 2).log"
}
check "2 run 1 filed; QEMU killed while run 2's kernel ran (a power cut)" cut2

# ---------------------------------------------------------------- 3
mkfifo "$work/keys" && exec 5<>"$work/keys"
rm -f "$out/session-3.log"
boot 3 --firmware uefi --media usb --disk "$img" --vars "$vars" --input "$work/keys" &
pid=$!
typed=no
if wait_for 3 'session: any key stops it; next run in'; then
	printf 'x' >&5
	wait_for 3 '^ r\) resume session-0001 at run 3 of 4' 60 && printf 'r' >&5 && typed=yes
fi
wait "$pid"
exec 5>&-
interrupted() {
	said 3 '^session: run 2 of 4 \([AB]\) was INTERRUPTED' || { echo "no 'run 2 ... INTERRUPTED'"; return 1; }
	has "$(run_file 2).interrupted" && ! has "$(run_file 2).started" || { echo "no $(run_file 2).interrupted"; return 1; }
	plan_has '^run=002 variant=[AB] interrupted: no results came back'
}
check "3 run 2 recorded as interrupted (file and plan), the session went on" interrupted
stopped() {
	[ $typed = yes ] || { echo "the loader never offered the countdown and then 'r'"; return 1; }
	said 3 '^session-0001: STOPPED before run 3 of 4' && plan_has '^state=stopped next=003 \(a key during the countdown\)' &&
		plan_has '^state=running \(resumed\)'
}
check "3 a key in the countdown stopped it before run 3 (plan.txt says so); 'r' resumed it" stopped
failed3() {
	said 3 '^cmdline: "cycles=1 exit=reset selftest=ap-hang ap_timeout_ms=200"$' || { echo "run 3 did not get selftest=ap-hang"; return 1; }
	said 3 '^@end status=fail ' && [ "$(st 3)" = 1 ] || { echo "run 3 did not fail (iso-run status $(st 3))"; return 1; }
}
check "3 run 3 ran and failed (an AP that never answers)" failed3

# ---------------------------------------------------------------- 4
# The stick is anyone's to edit: a control byte put into the plan's
# kernel options reaches neither the loader's echo nor the kernel raw.
get plan.txt "$work/plan.txt" && sed -i 's/^cmdline=cycles=1$/cmdline=cycles=1\x01/' "$work/plan.txt" &&
	mcopy -o -i "$fat" "$work/plan.txt" "$dir/plan.txt"
boot 4 --firmware uefi --media usb --disk "$img" --vars "$vars"
control_byte() {
	! grep -q $'\x01' "$out/session-4.log" || { echo "boot 4's serial carries the plan's raw control byte"; return 1; }
	said 4 '^cmdline: "cycles=1  exit=reset"$' || { echo "the kernel did not get 'cycles=1  exit=reset' (the byte as a blank)"; return 1; }
}
check "4 a control byte written into plan.txt's options reaches the kernel as a blank, echoed nowhere raw" control_byte
failed_kept() {
	said 4 '^session: run 3 FAILED \(@end status=fail online=3 failed=1\): kept, counted' || { echo "no 'run 3 FAILED ... kept, counted'"; return 1; }
	plan_has '^run=003 variant=[AB] filed run-003-[AB]-wbinvd[01]\.log bytes=[0-9]+ parts=1 status=fail' &&
		has "$(run_file 3).log" && [ "$(st 4)" = 0 ]
}
check "4 the failing run 3 filed and counted; run 4 ran and passed" failed_kept

# ---------------------------------------------------------------- 5
printf '%s\n' 'wait ^table: on the screen, QR code of the whole table' "screendump $work/table.ppm" >"$work/script"
boot 5 --firmware uefi --media usb --disk "$img" --vars "$vars" --screen-script "$work/script"
get table.txt "$work/table.txt" 2>/dev/null
done5() {
	[ -s "$work/table.txt" ] || { echo "no table.txt"; return 1; }
	plan_has '^state=done' || return 1
	! mdir -i "$fat" ::/apstart/session-running >/dev/null 2>&1 || { echo "\\apstart\\session-running left behind"; return 1; }
	local o a_fail=0 b_fail=0 a_int=0 b_int=0 want
	o=$(sed -n 's/^order=//p' "$work/plan.txt")
	[ "${o:1:1}" = A ] && a_int=1 || b_int=1
	[ "${o:2:1}" = A ] && a_fail=1 || b_fail=1
	count() { # SIDE FAILED INTERRUPTED
		local n=$((2 - $2 - $3)) s
		s="$1: $n of 2 runs in the figures"
		if [ "$2" = 1 ] && [ "$3" = 1 ]; then s+=" (1 failed, 1 interrupted)"
		elif [ "$2" = 1 ]; then s+=" (1 failed)"
		elif [ "$3" = 1 ]; then s+=" (1 interrupted)"; fi
		printf '%s' "$s"
	}
	want="$(count A $a_fail $a_int); $(count B $b_fail $b_int)"
	grep -qxF "$want" "$work/table.txt" || { echo "table.txt lacks '$want': $(sed -n 3p "$work/table.txt")"; return 1; }
	grep -qE '^Offline: ' "$work/table.txt" && grep -qE '^Online: ' "$work/table.txt" && grep -qE '^Total: ' "$work/table.txt" ||
		{ echo "table.txt lacks a row"; return 1; }
	grep -qE '^EMULATED: WBINVD costs nothing under QEMU TCG' "$work/table.txt" || { echo "no EMULATED line"; return 1; }
	grep -qE "^run 002 [AB] WBINVD=[01] INTERRUPTED" "$work/table.txt" && grep -qE "^run 003 [AB] WBINVD=[01] FAILED" "$work/table.txt" ||
		{ echo "the run list lacks run 2 interrupted or run 3 failed"; return 1; }
}
check "5 table.txt: three rows, EMULATED, counts with the failed and the interrupted run" done5
screen() {
	[ -s "$work/table.ppm" ] || { echo "no screendump ($(tail -n 2 "$out/session-5.log.run" | tr '\n' ' '))"; return 1; }
	"$SCREENTEXT" "$work/table.ppm" >"$work/screen.txt" || return 1
	local cols n
	cols=$(($(head -c 20 "$work/table.ppm" | sed -n 2p | cut -d' ' -f1) / 8))
	n=$(grep -n '^EMULATED' "$work/table.txt" | cut -d: -f1)
	diff <(head -n "$n" "$work/table.txt" | cut -c1-"$cols") <(head -n "$n" "$work/screen.txt") >"$work/screen.diff" ||
		{ echo "screen and table.txt differ: $(head -n 4 "$work/screen.diff" | tr '\n' ' ')"; return 1; }
}
check "5 the screen (screendump, kernel font) shows table.txt's header and rows" screen
qr() {
	command -v zbarimg >/dev/null || { echo "no zbarimg"; return 1; }
	zbarimg -q --raw "$work/table.ppm" 2>/dev/null >"$work/qr.txt"
	# zbarimg ends the text with one newline of its own.
	cmp <(head -c -1 "$work/qr.txt") "$work/table.txt" >/dev/null ||
		{ echo "the QR code is not table.txt: $(head -n 2 "$work/qr.txt" | tr '\n' ' ')"; return 1; }
}
if command -v zbarimg >/dev/null; then
	check "5 the QR code decodes to table.txt, byte for byte" qr
else
	skip "5 the QR code decodes to table.txt" "no zbarimg (package zbar-tools)"
fi
# Boot N ran run N (run 2's boot was the one cut short).
for n in 1 3 4; do
	check "run $n's filed records equal what its boot's serial printed" records_equal $n $n
done
aplog_rows() {
	mcopy -s -n -i "$fat" "$dir" "$work/" || return 1
	"$APLOG" compare "$work/session-0001" >"$work/compare.txt" 2>"$work/compare.err" ||
		{ echo "aplog compare failed: $(head -n 3 "$work/compare.err" | tr '\n' ' ')"; return 1; }
	local row line
	for row in Offline Online Total; do
		line=$(grep -E "^$row: " "$work/table.txt")
		grep -qxF "$line" "$work/compare.txt" ||
			{ echo "aplog compare does not print '$line': $(grep -E "^ *$row: " "$work/compare.txt" | head -n 1)"; return 1; }
	done
}
check "5 aplog compare SESSION-FOLDER prints the table's three rows, character for character" aplog_rows

# ---------------------------------------------------------------- BIOS
# GRUB's session on the same stick under SeaBIOS: runs 19 and 20 of the
# grub.cfg's order, then the end. Started at run 19 by writing grubenv.
xorriso -osirrox on -indev "$img" -extract /boot/grub/grub.cfg "$work/grub.cfg" >/dev/null 2>&1
bios_order=$(sed -n 's/^# B = WBINVD=0): \([AB]*\)\. .*/\1/p' "$work/grub.cfg")
mcopy -n -i "$fat" ::/apstart/grubenv "$work/grubenv" && grub-editenv "$work/grubenv" set apstart_run=19 &&
	mcopy -o -i "$fat" "$work/grubenv" ::/apstart/grubenv
for n in 19 20 end; do
	boot "bios-$n" --firmware bios --media usb --disk "$img"
done
bios_runs() {
	[ ${#bios_order} = 20 ] || { echo "no order of 20 runs in grub.cfg's comment ('$bios_order')"; return 1; }
	local n v
	for n in 19 20; do
		v=${bios_order:$((n - 1)):1}
		said "bios-$n" "^A/B session \(BIOS\): run $n of 20: $v = WBINVD=$([ "$v" = A ] && echo 1 || echo 0)" &&
			said "bios-$n" '^cmdline: "cycles=1 exit=reset"$' &&
			said "bios-$n" "^@boot .*wbinvd=$([ "$v" = A ] && echo 1 || echo 0) " &&
			grep -q '^iso-run: the machine reset' "$out/session-bios-$n.log.run" ||
			{ echo "boot bios-$n is not run $n ($v) ending in a reset"; return 1; }
	done
	said bios-end '^A/B session \(BIOS\): all 20 runs done' || { echo "no 'all 20 runs done'"; return 1; }
	mtype -i "$fat" ::/apstart/grubenv | grep -qx 'apstart_run=' || { echo "grubenv still holds a run"; return 1; }
}
check "BIOS: GRUB alternates the runs through grubenv (exit=reset each), then ends the session" bios_runs

# ---------------------------------------------------------------- 6
# The shipped image (GRUB's default is a kernel entry, 5 s) as a CD with a
# session's mark on it: GRUB goes straight to apstart.efi, which finds the
# medium read-only. SESSION_FULL_NVRAM=1 (make session-long): NVRAM as the
# session left it, then filled, which the loader must say too. Not in make
# test: with less free than its largest variable (0x8400 bytes in the 4 MiB
# build) OVMF rewrites the whole store at ReadyToBoot, word by word through
# pflash under TCG: that boot took 53 CPU-s here (38 of them QEMU's writes
# to the file), the plain one 9.
full=${SESSION_FULL_NVRAM:-0}
cd_img=$work/shipped.iso
cp "$ISO" "$cd_img" && echo session-0001 >"$work/mark" &&
	mcopy -o -i "$cd_img@@$(tools/image/esp-offset.sh "$cd_img" | cut -d' ' -f1)" "$work/mark" ::/apstart/session-running &&
	printf '%s\n' timeout=0 results_wait=0 session=2 'cmdline=cycles=1 save=off' >"$work/loader.cfg" &&
	tools/image/esp-populate.sh --config "$work/loader.cfg" "$cd_img"
# The plain boot reads no NVRAM back: OVMF's variables in RAM (-bios
# OVMF.fd, ~2 CPU-s less than pflash); the loader still asks the firmware
# how much is free (QueryVariableInfo) and says it.
nvram_opt=(--nvram ram)
if [ "$full" = 1 ]; then
	cp "$vars" "$work/full.fd" && python3 tests/efi/fill-vars.py "$work/full.fd" 6000 >/dev/null
	nvram_opt=(--vars "$work/full.fd")
fi
boot 6 --firmware uefi --media cdrom --iso "$cd_img" "${nvram_opt[@]}"
refused() {
	said 6 '^A/B session under way: starting apstart.efi' && said 6 '^apstart\.efi [0-9.]+ \(gnu-efi\)' ||
		{ echo "GRUB on the shipped image did not go to apstart.efi"; return 1; }
	said 6 '^session: this medium is read-only \(a CD\?\)' || { echo "the read-only medium was not said"; return 1; }
	if [ "$full" = 1 ]; then
		said 6 '^session: NVRAM is too full' || { echo "the full NVRAM was not said"; return 1; }
	else
		said 6 '^session: NVRAM [0-9]+ bytes, [0-9]+ free' && ! said 6 '^session: NVRAM is too full' ||
			{ echo "NVRAM's free space not said, or said to be too full"; return 1; }
	fi
	said 6 '^session: not started$' && ! said 6 '^session-0002' || { echo "a session started"; return 1; }
	[ "$(st 6)" = 0 ] && said 6 '^cmdline: "cycles=1 save=off"$' || { echo "the menu's entry did not boot (status $(st 6))"; return 1; }
}
if [ "$full" = 1 ]; then
	check "6 shipped image as a CD with a session's mark, NVRAM full: GRUB -> apstart.efi, both said, nothing started" refused
else
	check "6 shipped image as a CD with a session's mark: GRUB -> apstart.efi, read-only said, nothing started" refused
fi

# SESSION_KEEP=DIR: the session's folder as it lay on the stick, kept
# (tests/docs/fixtures/make.sh: docs/session.md's table comes from it).
if [ -n "${SESSION_KEEP:-}" ] && [ -d "$work/session-0001" ]; then
	rm -rf "$SESSION_KEEP" && mkdir -p "$SESSION_KEEP" && cp -r "$work/session-0001" "$SESSION_KEEP"/
fi
finish
