#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# ISO tests (make iso-tests): what the image contains, the grub.cfg
# generator, the screenshot checker, and QEMU boots of the test image four
# ways: SeaBIOS and OVMF, each from a CD and from a USB stick.
#
# The boots use build/iso-test/*.iso (same menu as build/apstart.iso plus a
# default entry with ISO_TEST_ARGS, no menu delay). Every way boots twice:
#   exit  the kernel ends the run itself (isa-debug-exit): QEMU's exit
#         status is the verdict (apstart-test.iso);
#   shot  the kernel runs ISO_TEST_SCREEN_ARGS with exit=halt
#         (apstart-test-halt.iso); the screen is saved (QEMU monitor
#         screendump) while the cycles run, on the result page, and, after
#         a key, on the QR code page; tests/iso/screens.sh reads them: the
#         status line, the result page's figures against serial's, the QR
#         code decoded (zbarimg) against serial's records.
# Three more SeaBIOS boots check the result page of a machine whose APs do
# not fit a row each (-smp 16 in 2 sockets), of a run that passed with
# warnings and of a failed run.
# ISO_TESTS_QUICK=1 (make iso-tests): 9 boots, exit from the USB stick,
# shot from the CD; ISO_TESTS_QUICK=0 (make iso-long): all 13.
#
# The BIOS and UEFI boots run as two parallel lanes (OVMF under TCG takes
# ~5 s to start). Logs and screenshots: build/test-logs/iso-*.
set -uo pipefail
cd "$(dirname "$0")/../.."

ISO=${ISO:-build/apstart.iso}
TDIR=${ISO_TEST_DIR:-build/iso-test}
TEST_ARGS=${ISO_TEST_ARGS:-cycles=2}
SCREEN_ARGS=${ISO_TEST_SCREEN_ARGS:-cycles=40 init_delay_us=20000}
PPMCHECK=${PPMCHECK:-build/host/ppmcheck}
SCREENTEXT=${SCREENTEXT:-build/host/screentext}
APLOG=${APLOG:-build/host/aplog}
SMP=4
BOOT_TIMEOUT=${ISO_BOOT_TIMEOUT:-120}
out=build/test-logs
mkdir -p "$out"
work=$(mktemp -d "$out/iso-tmp.XXXXXX")
trap 'rm -rf "$work"' EXIT
# shellcheck source=tests/protocol.sh
. tests/protocol.sh
# shellcheck source=tests/iso/screens.sh
. tests/iso/screens.sh
not_ok() { # NAME WHY [LOG]: a failure, with the log's tail below it
	if [ -n "${3:-}" ] && [ -f "$3" ]; then
		fail "$1" "$2 (log: $3)" "$(tail -n 15 "$3")"
	else
		fail "$1" "$2"
	fi
}

for f in "$ISO" "$TDIR/apstart-test.iso" "$TDIR/apstart-test-halt.iso" "$PPMCHECK" "$SCREENTEXT" "$APLOG"; do
	[ -f "$f" ] || { fail "$f exists" "missing (run: make iso-tests)"; summary iso; exit 1; }
done

# ---------------------------------------------------------------- contents
echo "iso: contents of $ISO"
xorriso -indev "$ISO" -find / -type f 2>/dev/null | tr -d "'" >"$work/files"
xorriso -osirrox on -indev "$ISO" -extract /boot "$work/boot" >/dev/null 2>&1
xorriso -indev "$ISO" -report_el_torito plain -report_system_area plain 2>/dev/null >"$work/boot-report"

has_kernels() {
	local v bad=0
	for v in wbinvd0 wbinvd1 i386-wbinvd0 i386-wbinvd1; do
		grep -qx "/boot/apstart-$v.elf" "$work/files" || { echo "no /boot/apstart-$v.elf"; bad=1; continue; }
		cmp -s "$work/boot/apstart-$v.elf" "build/$v/apstart.elf" ||
			{ echo "/boot/apstart-$v.elf differs from build/$v/apstart.elf (stale image?)"; bad=1; }
	done
	cmp -s "$work/boot/apstart-wbinvd0.elf" "$work/boot/apstart-wbinvd1.elf" &&
		{ echo "the two variants are the same file"; bad=1; }
	cmp -s "$work/boot/apstart-i386-wbinvd0.elf" "$work/boot/apstart-i386-wbinvd1.elf" &&
		{ echo "the two i386 variants are the same file"; bad=1; }
	return $bad
}
check "all four kernels in the image, identical to build/{,i386-}wbinvd{0,1}/apstart.elf" has_kernels

cfg=$work/boot/grub/grub.cfg
cfg_menu() {
	local c=$1 want_timeout=$2 bad=0 t
	[ -f "$c" ] || { echo "no /boot/grub/grub.cfg"; return 1; }
	t=$(sed -n 's/^set timeout=\([0-9][0-9]*\)$/\1/p' "$c")
	case "$want_timeout" in
	short) [ -n "$t" ] && [ "$t" -ge 1 ] && [ "$t" -le 30 ] || { echo "want a short menu timeout (1..30 s), got '${t:-none}'"; bad=1; } ;;
	*) [ "$t" = "$want_timeout" ] || { echo "want set timeout=$want_timeout, got '${t:-none}'"; bad=1; } ;;
	esac
	grep -qx 'set default=0' "$c" || { echo "no 'set default=0'"; bad=1; }
	local line
	for line in 'serial --unit=0 --speed=115200.*' 'terminal_input serial console' \
		'terminal_output serial console' 'insmod all_video'; do
		grep -qx "$line" "$c" || { echo "no line /$line/"; bad=1; }
	done
	local w name args
	for w in 0 1; do
		[ $w = 0 ] && name='WBINVD=0 (patched)' || name='WBINVD=1 (Linux before the patch)'
		for args in 'cycles=10|10 cycles' 'cycles=1|1 cycle' 'maxcpus=1|maxcpus=1 (BSP only)' 'x2apic=off|x2apic=off'; do
			grep -qxF "menuentry \"apstart $name, ${args#*|}\" {" "$c" ||
				{ echo "no entry \"apstart $name, ${args#*|}\""; bad=1; }
			grep -qxF "	multiboot2 /boot/apstart-wbinvd$w.elf ${args%%|*}" "$c" ||
				{ echo "no 'multiboot2 /boot/apstart-wbinvd$w.elf ${args%%|*}'"; bad=1; }
		done
	done
	# Each multiboot2 line is followed by the BIOS text-mode line.
	awk '/^\tmultiboot2 / { want = NR + 1 }
	     NR == want && $0 != "\tif [ \"$grub_platform\" = pc ]; then set gfxpayload=text; fi" {
		print "line " NR ": no gfxpayload=text line after multiboot2"; bad = 1 }
	     END { exit bad }' "$c" || bad=1
	return $bad
}
first_entry() { # CFG TITLE-REGEX KERNEL-LINE: the first menuentry (= default 0)
	local got
	got=$(grep -m1 -A1 '^menuentry ' "$1")
	grep -qE "^menuentry \"$2\" \{\$" <<<"$got" && grep -qxF "	$3" <<<"$got" ||
		{ echo "first entry is: $got"; return 1; }
}
check "grub.cfg: short timeout, serial + screen, all 8 apstart entries" cfg_menu "$cfg" short
check "grub.cfg: default entry WBINVD=0, 10 cycles" \
	first_entry "$cfg" 'apstart WBINVD=0 \(patched\), 10 cycles' "multiboot2 /boot/apstart-wbinvd0.elf cycles=10"

boot_images() {
	local bad=0
	grep -Eq '^El Torito boot img : +[0-9]+ +BIOS ' "$work/boot-report" || { echo "no BIOS El Torito image"; bad=1; }
	grep -Eq '^El Torito boot img : +[0-9]+ +UEFI ' "$work/boot-report" || { echo "no UEFI El Torito image"; bad=1; }
	grep -Eq '^System area summary: .*MBR.*GPT' "$work/boot-report" || { echo "no MBR + GPT (not bootable as a disk)"; bad=1; }
	grep -Eq '^GPT partname local : +[0-9]+ +EFI boot partition' "$work/boot-report" || { echo "no EFI system partition in the GPT"; bad=1; }
	[ "$(od -A n -t x1 -j 510 -N 2 "$ISO" | tr -d ' ')" = 55aa ] || { echo "no MBR boot signature"; bad=1; }
	return $bad
}
check "hybrid: El Torito BIOS + UEFI, MBR + GPT with an EFI partition" boot_images

test_cfg() { # ISO ARGS: the test image's default entry carries ARGS, no delay
	local d=$work/$(basename "$1" .iso)
	xorriso -osirrox on -indev "$1" -extract /boot/grub/grub.cfg "$d.cfg" >/dev/null 2>&1 || { echo "cannot extract grub.cfg"; return 1; }
	cfg_menu "$d.cfg" 0 && first_entry "$d.cfg" "apstart WBINVD=0 \\(patched\\), $2 \\(default entry\\)" \
		"multiboot2 /boot/apstart-wbinvd0.elf $2"
}
check "test image: default entry '$TEST_ARGS', timeout 0" test_cfg "$TDIR/apstart-test.iso" "$TEST_ARGS"
check "test image (halt): default entry '$SCREEN_ARGS exit=halt'" test_cfg "$TDIR/apstart-test-halt.iso" "$SCREEN_ARGS exit=halt"

# ---------------------------------------------------------------- generator
echo "iso: grub.cfg generator (tools/image/mkgrubcfg.sh)"
gen_refuses() {
	local bad=0 a
	for a in 'cycles=2;reboot' 'x=$y' "a'b" 'a"b' 'a{b' 'a\b' ''; do
		if tools/image/mkgrubcfg.sh tools/image/grub.cfg.in 0 0 "$a" >/dev/null 2>&1; then echo "accepted '$a'"; bad=1; fi
	done
	tools/image/mkgrubcfg.sh tools/image/grub.cfg.in 5s >/dev/null 2>&1 && { echo "accepted timeout 5s"; bad=1; }
	tools/image/mkgrubcfg.sh tools/image/grub.cfg.in 0 2 >/dev/null 2>&1 && { echo "accepted WBINVD=2"; bad=1; }
	return $bad
}
check "refuses GRUB metacharacters, bad timeout or variant" gen_refuses
gen_plain() { # no default-entry arguments: the template's own menu
	tools/image/mkgrubcfg.sh tools/image/grub.cfg.in 7 >"$work/plain.cfg" && cfg_menu "$work/plain.cfg" 7 &&
		! grep -q '@[A-Z_]*@' "$work/plain.cfg" && ! grep -q '(default entry)' "$work/plain.cfg"
}
check "plain menu: timeout substituted, no leftover placeholders" gen_plain
gen_custom() {
	tools/image/mkgrubcfg.sh tools/image/grub.cfg.in 0 1 >"$work/c1.cfg" &&
		first_entry "$work/c1.cfg" 'apstart WBINVD=1 \(Linux before the patch\), default options \(default entry\)' \
			"multiboot2 /boot/apstart-wbinvd1.elf"
}
check "custom default entry without arguments (WBINVD=1)" gen_custom

# ---------------------------------------------------------------- ppmcheck
echo "iso: screenshot checker ($PPMCHECK)"
ppm() { # FILE W H MAXVAL: header; pixel bytes come from stdin
	{ printf 'P6\n# made by tests/iso/run.sh\n%s %s\n%s\n' "$2" "$3" "$4"; cat; } >"$1"
}
# 64x32 black, with or without a block of grey "text" in the top rows
head -c $((64 * 32 * 3)) /dev/zero | ppm "$work/black.ppm" 64 32 255
head -c $((64 * 32 * 3)) /dev/zero | tr '\0' '\377' | ppm "$work/white.ppm" 64 32 255
{ for ((y = 0; y < 32; y++)); do
	if [ $y -ge 2 ] && [ $y -lt 14 ]; then
		head -c $((8 * 3)) /dev/zero; head -c $((48 * 3)) /dev/zero | tr '\0' '\252'; head -c $((8 * 3)) /dev/zero
	else head -c $((64 * 3)) /dev/zero; fi
done; } | ppm "$work/text.ppm" 64 32 255
head -c $((64 * 32 * 6)) /dev/zero | tr '\0' '\377' | ppm "$work/white16.ppm" 64 32 65535
{ head -c $((64 * 16 * 6)) /dev/zero | tr '\0' '\001'; head -c $((64 * 16 * 6)) /dev/zero; } | ppm "$work/two16.ppm" 64 32 65535
head -c 100 /dev/zero | ppm "$work/short.ppm" 64 32 255
head -c $((64 * 32 * 3 + 1)) /dev/zero | ppm "$work/long.ppm" 64 32 255
head -c 3 /dev/zero | ppm "$work/max0.ppm" 1 1 0
head -c 3 /dev/zero | ppm "$work/huge.ppm" 100000 1 255
head -c 3 /dev/zero | tr '\0' '\377' | ppm "$work/over.ppm" 1 1 100
printf 'P3\n1 1\n255\n0 0 0\n' >"$work/p3.ppm"
printf 'P6\n64' >"$work/hdr.ppm"
expect_status() { # WANT ARGS...: ppmcheck exits with WANT
	local want=$1 st; shift
	"$PPMCHECK" "$@" >"$work/ppmcheck.out" 2>&1; st=$?
	[ $st = "$want" ] || { echo "exit $st, want $want: $(cat "$work/ppmcheck.out")"; return 1; }
}
check "all-black image fails (exit 1)" expect_status 1 --min-pixels 1 "$work/black.ppm"
check "all-white image fails (exit 1)" expect_status 1 --min-pixels 1 "$work/white.ppm"
check "16-bit all-white image fails (exit 1)" expect_status 1 --min-pixels 1 "$work/white16.ppm"
check "text in the top rows passes" expect_status 0 --rows 16 --min-pixels 400 "$work/text.ppm"
check "too few text pixels fail (--min-pixels)" expect_status 1 --rows 16 --min-pixels 700 "$work/text.ppm"
check "text below --rows is not counted" expect_status 1 --rows 2 --min-pixels 1 "$work/text.ppm"
check "16-bit samples: two colours, one counted as text" expect_status 0 --min-pixels 1024 "$work/two16.ppm"
for bad in short long max0 huge over p3 hdr; do
	check "malformed $bad.ppm rejected (exit 2)" expect_status 2 "$work/$bad.ppm"
done
check "missing file rejected (exit 2)" expect_status 2 "$work/none.ppm"
check "bad usage rejected (exit 2)" expect_status 2 --rows 0 "$work/text.ppm"

# ---------------------------------------------------------------- boots
# boot NAME FIRMWARE MEDIA MODE(exit|shot): one boot, its result in $work/NAME.result
boot() {
	local name=$1 fw=$2 media=$3 mode=$4 log=$out/iso-$1.log shots=$out/iso-$1 t0=$SECONDS st
	local why=() img=$TDIR/apstart-test.iso opts=() args=$TEST_ARGS arch=x86_64
	if [ "$mode" = shot ]; then
		img=$TDIR/apstart-test-halt.iso args=$SCREEN_ARGS
		rm -rf "$shots" && mkdir -p "$shots"
		screen_script "$shots" >"$shots/script"
		opts=(--screen-script "$shots/script")
	fi
	# i386: the 32-bit kernel (default entry of apstart-test-i386.iso).
	if [ "$mode" = i386 ]; then img=$TDIR/apstart-test-i386.iso mode=exit arch=i386; fi
	# UEFI: OVMF with its variables in RAM (-bios OVMF.fd, ~3 CPU-s less a
	# boot than pflash): no check here reads NVRAM after a run. The
	# kernel's summary through SetVariable into the flash store, read
	# back, is the netboot lane's (UEFI PXE) and the efi lane's (boot 1).
	[ "$fw" = uefi ] && opts+=(--nvram ram)
	tools/run/iso-run.sh --iso "$img" --firmware "$fw" --media "$media" --smp $SMP \
		--timeout "$BOOT_TIMEOUT" "${opts[@]}" >"$log" 2>&1
	st=$?
	[ $st = 0 ] || why+=("exit status $st, want 0 (pass)")
	tr -d '\r' <"$log" >"$log.txt"
	# One run, passed, every CPU online, booted by GRUB through Multiboot2.
	local verdict
	verdict=$("$APLOG" verify --cpus $SMP --boot firmware="$fw" --boot protocol=mb2 --boot arch=$arch "$log.txt" 2>&1) ||
		why+=("$(grep -v '^FAIL' <<<"$verdict" | sed 's/^verify: [^ ]* //' | head -n 5 | paste -sd';')")
	local screen=vga-text
	[ "$fw" = uefi ] && screen=framebuffer
	grep -Eq "^boot: multiboot2 from \"GRUB[^\"]*\", firmware ${fw^^}, screen $screen\$" "$log.txt" ||
		why+=("kernel boot line does not say firmware ${fw^^}, screen $screen")
	grep -Eq "^cmdline: \"$args( exit=halt)?\"\$" "$log.txt" ||
		why+=("kernel did not get the test arguments '$args'")
	if [ "$mode" = exit ]; then
		grep -q '^exit: qemu' "$log.txt" || why+=("kernel did not choose exit=qemu")
	else
		local problems
		if [ ! -s "$shots/result.ppm" ]; then
			why+=("no screendump of the result page")
		elif ! "$PPMCHECK" "$shots/result.ppm" >>"$log.txt" 2>&1; then
			why+=("screen shows no text: $(tail -n 1 "$log.txt")")
		fi
		problems=$(screen_checks "$log.txt" "$fw" "$shots") ||
			why+=("screens ($shots): $(head -n 4 <<<"$problems" | paste -sd';')")
	fi
	rm -f "$log.txt"
	boot_result "$name" "$fw, $media" "$([ $mode = exit ] && echo 'verdict from QEMU exit status' ||
		echo 'exit=halt: status line mid-run, result page, QR code = serial records')" \
		$t0 "$log" "${why[@]}"
}
# boot_result NAME HOW WHAT T0 LOG [WHY...]: a boot's line for the summary
# (ok without WHY, else FAIL with the reasons) in $work/NAME.result.
boot_result() {
	local name=$1 how=$2 what=$3 t0=$4 log=$5
	shift 5
	if [ $# = 0 ]; then
		echo "ok|$name ($how, $what, $((SECONDS - t0))s)"
	else
		local IFS=';'
		echo "FAIL|$name ($how, $((SECONDS - t0))s)|$*|$log"
	fi >"$work/$name.result"
}
# Three more SeaBIOS boots (CD, exit=halt) for the end screens' other
# forms, checked by tests/iso/screens.sh:
#  many  -smp 16 in 2 sockets x 4 cores x 2 threads, too many APs for a
#        row each on 80x25: the result page must summarise them per
#        socket and SMT thread (package shift 3, one SMT bit in QEMU's
#        APIC IDs) with the slowest APs; the QR code holds the slowest
#        APs' @cpusum; bringup=broadcast: the header must say so.
#  warn  a run that passes with two bad options (cyclez=3, cycles=-1):
#        the verdict says PASS and its 2 warnings, the block both.
#  fail  the first AP never answers (selftest=ap-hang): the verdict
#        FAIL, and the @fail record in the warnings block. -smp 5 with
#        maxcpus=4 leaves a CPU out, so bringup=broadcast is refused: the
#        header must show the fallback, bring-up=parallel. park=sleep is
#        a bad option: its @warn record must be in the warnings block.
MANY_SMP=16,sockets=2,cores=4,threads=2
# end_boot NAME SMP WANT_STATUS WHAT CHECK -- ARGS...: CHECK LOG DIR judges
# the screens; its output lines are the reasons.
end_boot() {
	local name=bios-cdrom-$1 smp=$2 want=$3 what=$4 check=$5 args
	shift 6
	args="$*"
	local log=$out/iso-$name.log shots=$out/iso-$name t0=$SECONDS st why=() problems
	rm -rf "$shots" && mkdir -p "$shots"
	screen_script_end "$shots" >"$shots/script"
	tools/run/iso-run.sh --iso "$ISO" --firmware bios --media cdrom --smp "$smp" \
		--timeout "$BOOT_TIMEOUT" --screen-script "$shots/script" -- "$@" exit=halt >"$log" 2>&1
	st=$?
	[ $st = "$want" ] || why+=("exit status $st, want $want")
	tr -d '\r' <"$log" >"$log.txt"
	problems=$("$check" "$log.txt" "$shots") ||
		why+=("screens ($shots): $(head -n 6 <<<"$problems" | paste -sd';')")
	rm -f "$log.txt"
	boot_result "$name" "bios, cdrom, -smp $smp, '$args'" "$what" $t0 "$log" "${why[@]}"
}
many_checks() { # LOG DIR
	"$APLOG" verify --cpus 16 --cycles 2 --boot firmware=bios "$1" >/dev/null 2>&1 ||
		{ echo "aplog verify --cpus 16: $("$APLOG" verify --cpus 16 --cycles 2 "$1" 2>&1 | grep -v '^FAIL' | head -n 2 | paste -sd';')"; return 1; }
	screen_checks_many "$1" "$2" 16 2 3 1 broadcast
}
warn_checks() { # LOG DIR
	screen_checks_warn "$1" "$2" 4 2 2
}
fail_checks() { # LOG DIR
	grep -q '^bringup: broadcast refused ' "$1" || { echo "serial log: broadcast was not refused"; return 1; }
	screen_checks_fail "$1" "$2" 4 2 parallel
}
lane() { # FIRMWARE: that firmware's boots, one after the other
	local fw=$1 m mode
	for m in usb cdrom; do
		for mode in exit shot; do
			if [ "${ISO_TESTS_QUICK:-0}" = 1 ]; then
				[ $m = usb ] && [ $mode = shot ] && continue
				[ $m = cdrom ] && [ $mode = exit ] && continue
			fi
			boot "$fw-$m-$mode" "$fw" "$m" "$mode"
		done
	done
	# The i386 kernel through GRUB, BIOS and UEFI (x86_64 GRUB loads a
	# 32-bit Multiboot2 kernel too), both in the BIOS lane, the shorter.
	if [ "$fw" = bios ]; then
		boot bios-cdrom-i386 bios cdrom i386
		boot uefi-cdrom-i386 uefi cdrom i386
		# The BIOS lane has time to spare while OVMF boots.
		end_boot many "$MANY_SMP" 0 "result page per socket and SMT thread + slowest APs, QR code" \
			many_checks -- cycles=2 bringup=broadcast
		end_boot warn "$SMP" 0 "PASS with its 2 warnings on the verdict line, both in the block" \
			warn_checks -- cycles=2 cyclez=3 cycles=-1
		end_boot fail $((SMP + 1)) 1 "FAIL verdict, the @fail record in the warnings block" \
			fail_checks -- selftest=ap-hang ap_timeout_ms=200 cycles=2 maxcpus=$SMP bringup=broadcast park=sleep
	fi
}

echo "iso: QEMU boots of $TDIR/*.iso, -smp $SMP, '$TEST_ARGS' (BIOS and UEFI lanes in parallel)"
t0=$SECONDS
lane bios &
bios_lane=$!
lane uefi
wait $bios_lane
for r in "$work"/*.result; do
	[ -f "$r" ] || continue
	IFS='|' read -r res what why log <"$r"
	if [ "$res" = ok ]; then ok "$what"; else not_ok "$what" "$why" "$log"; fi
done
n=$(ls "$work"/*.result 2>/dev/null | wc -l)
want=13
[ "${ISO_TESTS_QUICK:-0}" = 1 ] && want=9
[ "$n" = $want ] || not_ok "boots" "$n of $want boots reported a result"
echo "iso: boots took $((SECONDS - t0))s"

summary iso
