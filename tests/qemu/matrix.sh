#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# QEMU matrix: both trampoline variants at -smp 1, 2, 4, 8, plus a machine
# whose MADT lists CPUs that are not enabled (-smp 4,maxcpus=8), plus the
# failure paths (AP that never answers, exceptions on BSP and AP).
#
# What a log must hold is checked by aplog verify (the run's records) and
# tests/qemu/expect.sh (console messages).
set -uo pipefail
cd "$(dirname "$0")/../.."

# shellcheck source=tests/protocol.sh
. tests/protocol.sh
APLOG=${APLOG:-build/host/aplog}
out=build/test-logs
mkdir -p "$out"
cycles=10
extra=()   # more qemu-run.sh options for the next case
logs=()    # every boot's log, for the record schema's check at the end

if [ ! -x "$APLOG" ]; then
	fail "aplog is built" "no $APLOG (make aplog)"
	summary qemu
	exit 1
fi

# run_case NAME KERNEL SMP pass|fail [verify ARGS...] [expect REGEX...] -- KERNEL-ARGS...
# Boots KERNEL; QEMU's verdict must be the expected one, then
# "aplog verify ARGS --status pass|fail LOG" and "expect.sh REGEX... LOG".
run_case() {
	local name=$1 kernel=$2 smp=$3 expect=$4; shift 4
	local verify=() regexes=() mode=
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		case "$1" in
		verify|expect) mode=$1; [ "$1" = verify ] && verify=(--status "$expect") ;;
		*) if [ "$mode" = verify ]; then verify+=("$1"); else regexes+=("$1"); fi ;;
		esac
		shift
	done
	[ $# -gt 0 ] && shift
	local log=$out/$name.log t0=$SECONDS
	logs+=("$log")
	tools/run/qemu-run.sh --kernel "$kernel" --smp "$smp" --timeout 120 "${extra[@]}" -- "$@" >"$log" 2>&1
	local st=$?
	local ok=1 why=
	if [ "$expect" = pass ] && [ $st -ne 0 ]; then ok=0; why="exit status $st, want 0"; fi
	if [ "$expect" = fail ] && [ $st -ne 1 ]; then ok=0; why="exit status $st, want 1 (kernel-reported failure)"; fi
	if [ $ok = 1 ] && [ ${#verify[@]} -gt 0 ] && ! why=$("$APLOG" verify "${verify[@]}" "$log" 2>&1); then ok=0; fi
	if [ $ok = 1 ] && [ ${#regexes[@]} -gt 0 ] && ! why=$(tests/qemu/expect.sh "${regexes[@]}" "$log" 2>&1); then ok=0; fi
	# The accelerator that ran, as qemu-run.sh reported it.
	local accel
	accel=$(sed -n 's/^qemu-run: accel=\([a-z]*\).*/\1/p' "$log" | head -n 1)
	if [ $ok = 1 ]; then
		ok "$name (${accel:-?}, $((SECONDS - t0))s)"
	else
		fail "$name (${accel:-?}, $((SECONDS - t0))s)" "$why (log: $log)" "$(tail -n 15 "$log")"
	fi
}

# What qemu-run.sh picks by default here (each case says what it ran).
echo "qemu matrix: $(tools/run/qemu-run.sh --kernel build/wbinvd0/apstart.elf --dry-run 2>&1 |
	sed -n '1s/^qemu-run: \(accel=.*\) machine=.*/\1/p')"
for w in 0 1; do
	for smp in 1 2 4 8; do
		run_case "wbinvd$w-smp$smp" build/wbinvd$w/apstart.elf $smp pass \
			verify --wbinvd $w --cpus $smp --cycles $cycles --boot arch=x86_64 --
	done
done
# The core alone (make WINGS=): the minimal kernel runs and reports as
# the whole one does, on serial, and says that no wing is linked; a
# wing's option given to it is named as its wing's, ignored, a warning
# each (app/options.c, the list the Makefile reads from the wings'
# tables); the run is the cycles.
run_case "core-only-kernel-names-wing-options" build/wbinvd0-core/apstart.elf 4 pass \
	verify --wbinvd 0 --cpus 4 --cycles $cycles --warnings 5 \
	expect '^@env .* screen=none .*wings=none' \
	"^cmdline: probe= belongs to the experiments wing, not linked in this kernel; ignored\$" \
	"^@warn what=option problem=no_wing option=probe wing=experiments\$" \
	"^@warn what=option problem=no_wing option=save wing=nvram\$" \
	"^@warn what=option problem=no_wing option=pstore wing=pstore\$" \
	"^@warn what=option problem=no_wing option=progress_ms wing=screen\$" \
	"^@warn what=option problem=no_wing option=selftest wing=selftest\$" -- \
	cycles=$cycles probe=flush save=off pstore=0x10000000,4K progress_ms=3 selftest=ap-hang
run_case "wbinvd0-smp4-maxcpus8-reports-absent-cpus" build/wbinvd0/apstart.elf 4,maxcpus=8 pass \
	verify --wbinvd 0 --cpus 4 --cycles $cycles \
	expect "cpus: 4 more MADT entries are neither enabled nor online-capable" --

# Options: bad ones are named and the default kept; good ones take effect.
# Each bad one is also a result: a @warn what=option record, counted in
# @end warnings=; the command line's echo shows a control byte escaped.
run_case "bad-cmdline-keeps-defaults" build/wbinvd0/apstart.elf 2 pass \
	verify --cpus 2 --cycles 10 --warnings 7 --boot bringup=serial \
	expect "unknown option 'frobnicate=1'" "cycles=0 is out of range" \
	"x2apic=maybe invalid" "maxcpus=9999 is out of range" \
	"cycles=-1 is out of range 1..100000, keeping 10" \
	"^@warn what=option problem=out_of_range option=cycles value=-1 min=1 max=100000 kept=10\$" \
	"^@warn what=option problem=unknown token=frobnicate=1\$" \
	"^@warn what=option problem=out_of_range option=cycles value=0 min=1 max=100000 kept=10\$" \
	"^@warn what=option problem=invalid option=x2apic value=maybe kept=auto\$" \
	"^@warn what=option problem=out_of_range option=maxcpus value=9999 min=1 max=512 kept=all\$" \
	"^@warn what=option problem=not_a_number option=cycles value=\?\[2J kept=10\$" \
	"bringup=sideways" "^@warn what=option problem=invalid option=bringup value=sideways kept=serial\$" \
	'^cmdline: ".* cycles=\\x1b\[2J"$' "^@end status=pass .* warnings=7 " -- \
	frobnicate=1 cycles=0 x2apic=maybe maxcpus=9999 cycles=-1 bringup=sideways $'cycles=\e[2J'
# The kexec options (docs/from-linux.md) on a machine where they are
# wrong: a zone over the kernel (refused, run without it), an RSDP
# address with none there (the BIOS areas' scan finds the real one),
# firmware= taken as said; and a zone too small for the run: kept, its
# end kept, said before @end.
run_case "from-linux-refusals" build/wbinvd0/apstart.elf 2 pass \
	verify --cpus 2 --cycles 1 --warnings 2 \
	expect "^pstore: 0x100000-0x101000 not used: it overlaps the kernel " \
	"^@warn what=pstore problem=overlap addr=0x100000 size=0x1000\$" \
	"^acpi: acpi_rsdp=0x1000: no RSDP there \(bad signature\); scanning the BIOS areas\$" \
	"^@warn what=acpi_rsdp addr=0x1000 problem=bad_signature\$" \
	"^firmware: UEFI: firmware= on the command line\$" "^@boot .* firmware=uefi " -- \
	cycles=1 pstore=0x100000,4K acpi_rsdp=1000 firmware=uefi
run_case "from-linux-small-zone" build/wbinvd0/apstart.elf 2 pass \
	verify --cpus 2 --cycles 1 --warnings 1 \
	expect "^pstore: the console also goes to Linux's ramoops console zone at 0x10000000 \(4 KiB, 4084 bytes of text; " \
	"^pstore: this run printed [0-9]+ bytes, the zone keeps the last 4084: " \
	"^@warn what=pstore_wrapped printed=[0-9]+ kept=4084\$" -- \
	cycles=1 pstore=0x10000000,4K
# A Multiboot1 command line of 4 KiB and more is taken whole (its last
# option counts), and its 5 KiB echo is cut with the newline kept.
long_cmdline=$(printf 'x2apic=auto %.0s' $(seq 400))cycles=3
run_case "long-mb1-cmdline" build/wbinvd0/apstart.elf 2 pass \
	verify --cpus 2 --cycles 3 --warnings 0 \
	expect '^cmdline: ".*x2apic=auto x2a\.\.\.$' '^exit: ' -- $long_cmdline
# console=ttyS1 (Linux's spelling): records move to COM2 after the
# command line is read; COM1 keeps only the lines before.
extra=(--com1-file "$out/console-ttyS1.com1.log")
run_case "console-ttyS1" build/wbinvd0/apstart.elf 2 pass \
	verify --cpus 2 --cycles 1 --warnings 0 -- console=ttyS1,57600 nosmp maxcpus=2 cycles=1
extra=()
if grep -aq "serial output moves to ttyS1 (COM2, I/O 0x2f8" "$out/console-ttyS1.com1.log" &&
	! grep -aq "^@boot" "$out/console-ttyS1.com1.log"; then
	ok "console-ttyS1-com1"
else
	fail "console-ttyS1-com1" "COM1 should end at the switch ($out/console-ttyS1.com1.log)"
fi
run_case "linux-spellings" build/wbinvd0/apstart.elf 4 pass \
	verify --cpus 1 --cycles 1 expect "init_delay_us=20 " -- \
	maxcpus=0 nox2apic cpu_init_udelay=20 cycles=1
run_case "one-sipi" build/wbinvd0/apstart.elf 4 pass \
	verify --wbinvd 0 --cpus 4 --cycles 3 -- sipi_count=1 cycles=3
run_case "maxcpus2-of-4" build/wbinvd0/apstart.elf 4 pass \
	verify --wbinvd 0 --cpus 2 --cycles 3 -- maxcpus=2 cycles=3
run_case "sipi-count-auto" build/wbinvd0/apstart.elf 4 pass \
	verify --wbinvd 0 --cpus 4 --cycles 3 --boot sipi_count=auto -- sipi_count=auto cycles=3

# Bring-up modes (issue 9): every AP started at once, by per-AP IPIs
# (parallel) or the all-excluding-self shorthand (broadcast), with the
# cycles serial or all APs at once; each must report its mode in
# @bringup, one @phase record set per start, and for broadcast not fall
# back. -smp 64: many APs in the trampoline at the same time; the sparse
# topology (2 sockets x 3 cores x 2 threads: APIC IDs 0-5, 8-13) has
# holes that an index-keyed slot would get wrong.
phases_ok() { # log aps cycles: every AP has its phases for cycles 0..C
	local log=$1 aps=$2 cycles=$3 n want
	n=$(tr -d '\r' <"$log" | grep -c '^@phase .* phase=seen ns=[0-9]')
	want=$((aps * (cycles + 1)))
	[ "$n" -eq "$want" ] || { echo "$log: $n @phase seen records with a number, want $want"; return 1; }
}
for m in parallel broadcast; do
	run_case "bringup-$m" build/wbinvd0/apstart.elf 8 pass \
		verify --wbinvd 0 --cpus 8 --cycles 3 --boot bringup=$m \
		expect "^@bringup mode=$m aps=7 online=7 " -- bringup=$m cycles=3
	if why=$(phases_ok "$out/bringup-$m.log" 7 3); then
		ok "bringup-$m: @phase records for every AP and start, seen na-free"
	else
		fail "bringup-$m: @phase records for every AP and start" "$why"
	fi
	run_case "bringup-$m-cycles-parallel" build/wbinvd1/apstart.elf 4 pass \
		verify --wbinvd 1 --cpus 4 --cycles 3 --boot cycles_mode=parallel \
		expect "^@bringup mode=$m aps=3 online=3 " "^@round cycle=3 op=online aps=3 online=3 ns=[0-9]+ mode=$m" \
		"^@round cycle=3 op=offline aps=3 " -- bringup=$m cycles_mode=parallel cycles=3
done
run_case "bringup-parallel-smp64" build/wbinvd0/apstart.elf 64 pass \
	verify --cpus 64 --cycles 2 expect "^@bringup mode=parallel aps=63 online=63 " \
	"^@round cycle=2 op=online aps=63 online=63 " -- bringup=parallel cycles_mode=parallel cycles=2
run_case "bringup-broadcast-sparse-apic-ids" build/wbinvd0/apstart.elf 12,sockets=2,cores=3,threads=2 pass \
	verify --cpus 12 --cycles 2 expect "^@bringup mode=broadcast aps=11 online=11 " \
	"@cpu cpu=11 apic=13 state=online" "^@round cycle=2 op=online aps=11 online=11 ns=[0-9]+ mode=broadcast" -- \
	bringup=broadcast cycles_mode=parallel cycles=2
# Broadcast would wake CPUs left out by maxcpus: refused, parallel instead.
run_case "broadcast-refused-with-maxcpus" build/wbinvd0/apstart.elf 4 pass \
	verify --cpus 3 --cycles 1 expect "bringup: broadcast refused \(not every MADT CPU is to be started" \
	"^@bringup mode=parallel aps=2 online=2 " -- bringup=broadcast maxcpus=3 cycles=1
# A failed AP in parallel mode is named with its exact stage (6: it
# stops after loading the kernel's tables), the others go on.
run_case "parallel-ap-never-answers" build/wbinvd0/apstart.elf 4 fail \
	verify --cpus 4 --cycles 2 --online 3 --failed 1 \
	expect "APIC ID 1 did not come online within 200 ms; last stage: 6 \(kernel GDT/IDT loaded\)" \
	"@warn what=sipi_retry apic=1 retry=1 stage=6" \
	"@fail what=ap_timeout apic=1 stage=6" "^@round cycle=2 op=online aps=2 online=2 " -- \
	bringup=parallel cycles_mode=parallel selftest=ap-hang ap_timeout_ms=200 cycles=2
# A lost SIPI in a parallel start: that AP alone is woken again after
# the round (sipi_retry=1, the default), the others are not held up.
run_case "parallel-lost-sipi-retried" build/wbinvd0/apstart.elf 4 pass \
	verify --cpus 4 --cycles 2 --boot bringup=parallel \
	expect "selftest: APIC ID 1: INIT without STARTUP IPIs" \
	"@warn what=sipi_retry apic=1 retry=1 stage=0" \
	"@cpu cpu=1 apic=1 state=online .* retries=1" \
	"^@bringup mode=parallel aps=3 online=3 " "@end status=pass .* retries=1" -- \
	bringup=parallel selftest=lost-sipi ap_timeout_ms=200 cycles=2
# An unknown mode is named and the default kept: bad-cmdline-keeps-defaults.

# Park modes: every case above runs park=linux (the default); each of the
# others must park its APs and bring them back too.
run_case "park-linux-flushes" build/wbinvd0/apstart.elf 2 pass \
	verify --cpus 2 --cycles 1 --boot park=linux --boot park_flush=1 \
	expect "^park: linux: WBINVD after reporting dead" -- cycles=1
for p in hlt mwait init; do
	run_case "park-$p" build/wbinvd0/apstart.elf 4 pass \
		verify --wbinvd 0 --cpus 4 --cycles 3 --boot park=$p --boot park_flush=0 -- park=$p cycles=3
done

run_case "more-cpus-than-build-max" build/wbinvd0-max4/apstart.elf 8 pass \
	verify --cpus 4 --cycles 2 --warnings 1 \
	expect "MADT lists 4 more usable CPUs than APSTART_MAX_CPUS=4" \
	"@warn what=cpus_beyond_max count=4 max=4" -- cycles=2

# Failure paths: each must end the run with a clear report, never hang.
run_case "exception-on-bsp" build/wbinvd0/apstart.elf 2 fail \
	verify \
	expect "^EXCEPTION on CPU apic=0: vector 6 \(#UD" "rip=0x[0-9a-f]+ cr2=0x" \
	"@fail what=exception apic=0 vector=6" -- selftest=bsp-fault
run_case "exception-on-ap" build/wbinvd0/apstart.elf 4 fail \
	verify \
	expect "^EXCEPTION on CPU apic=1: vector 6 \(#UD" "rip=0x[0-9a-f]+ cr2=0x" \
	"@fail what=exception apic=1 vector=6" -- selftest=ap-fault
run_case "ap-never-answers" build/wbinvd0/apstart.elf 4 fail \
	verify --cpus 4 --cycles 2 --online 3 --failed 1 \
	expect "APIC ID 1 did not come online within 200 ms; last stage: 6 " \
	"@fail what=ap_timeout apic=1 stage=6" -- selftest=ap-hang ap_timeout_ms=200 cycles=2

# The trampoline entered a second time (INIT mid-way, then SIPIs again).
run_case "trampoline-entered-twice" build/wbinvd0/apstart.elf 4 pass \
	verify --cpus 4 --cycles 2 \
	expect "selftest: APIC ID 1 stopped with INIT at stage [1-8] .* started again" \
	-- selftest=double-start cycles=2

# The APIC ID comes from the APIC, not CPUID: an AP whose xAPIC ID register
# was rewritten (1 -> 17) must still find its trampoline slot every cycle.
run_case "apic-id-from-register" build/wbinvd0/apstart.elf 4 pass \
	verify --cpus 4 --cycles 3 \
	expect "selftest: APIC ID 1 renumbered to 17 " "@sample cpu=1 apic=17 cycle=3 op=online" -- \
	selftest=apic-renumber cycles=3 ap_timeout_ms=500
# An AP arriving just after the BSP gave up is reported, never counted online.
run_case "late-ap-not-online" build/wbinvd0/apstart.elf 4 fail \
	verify --cpus 4 --cycles 2 --online 3 --failed 1 \
	expect "@fail what=ap_timeout apic=1 " \
	"smp: APIC ID 1 reached C 1 time\(s\) after it was given up on" \
	"@warn what=late_ap apic=1 arrivals=1" -- selftest=ap-late ap_timeout_ms=200 \
	sipi_retry=0 cycles=2

# Events a run survives (issue 17). A lost SIPI: the first wake-up of one
# AP sends INIT only; sipi_retry=1 (the default) must bring it online.
run_case "lost-sipi-retried" build/wbinvd0/apstart.elf 4 pass \
	verify --cpus 4 --cycles 2 \
	expect "selftest: APIC ID 1: INIT without STARTUP IPIs" \
	"@warn what=sipi_retry apic=1 retry=1 stage=0" \
	"@cpu cpu=1 apic=1 state=online .* retries=1" \
	"@end status=pass .* retries=1" -- \
	selftest=lost-sipi ap_timeout_ms=200 cycles=2
# ...and without the retry the same AP is lost.
run_case "lost-sipi-no-retry" build/wbinvd0/apstart.elf 4 fail \
	verify --cpus 4 --cycles 2 --online 3 --failed 1 \
	expect "@fail what=ap_timeout apic=1 stage=0" "@end status=fail .* retries=0" -- \
	selftest=lost-sipi ap_timeout_ms=200 sipi_retry=0 cycles=2
# A stray vector to a parked AP (pending, dropped by its next INIT) and
# to an idle one (taken, counted, EOI'd): the run goes on.
run_case "stray-ipi-counted" build/wbinvd0/apstart.elf 4 pass \
	verify --cpus 4 --cycles 3 \
	expect "selftest: vector 0x41 sent to APIC ID 1 \(parked\)" \
	"@warn what=stray_irq apic=2 count=1 vector=0x41" \
	"@end status=pass .* strays=1 " -- selftest=stray-ipi cycles=3
# An NMI to a parked AP, in both park loops: back to the loop, then online.
for p in linux mwait; do
	run_case "parked-nmi-$p" build/wbinvd0/apstart.elf 4 pass \
		verify --cpus 4 --cycles 3 \
		expect "@warn what=nmi apic=1 count=1 reason=unknown port61=0x[0-9a-f]+ parked=1" \
		"@end status=pass .* nmis=1 " -- selftest=parked-nmi park=$p cycles=3
done
# MONITOR errata (Linux's init_intel() model lists): a Goldmont (family 6
# model 0x5C, X86_BUG_MONITOR) falls back to HLT for park=mwait and keeps
# mwait_play_dead() for park=linux; a Nehalem-EX (model 46,
# X86_BUG_CLFLUSH_MONITOR) flushes the line before MONITOR.
extra=(--accel tcg --cpu max,vendor=GenuineIntel,family=6,model=92)
run_case "bug-monitor-mwait-falls-back" build/wbinvd0/apstart.elf 2 pass \
	verify --cpus 2 --cycles 2 --boot park_via=hlt --boot park_why=x86_bug_monitor -- \
	park=mwait cycles=2
run_case "bug-monitor-linux-keeps-mwait" build/wbinvd0/apstart.elf 2 pass \
	verify --cpus 2 --cycles 2 --boot park_via=mwait \
	--boot park_why=mwait_play_dead_bug_monitor -- park=linux cycles=2
extra=(--accel tcg --cpu max,vendor=GenuineIntel,family=6,model=46)
run_case "clflush-monitor-erratum" build/wbinvd0/apstart.elf 2 pass \
	verify --cpus 2 --cycles 2 --boot park_via=mwait \
	--boot park_why=x86_bug_clflush_monitor -- park=mwait cycles=2
extra=()

# nmi_case NAME SMP PERIOD_S CYCLES [expect REGEX...] -- KERNEL-ARGS...:
# boots wbinvd0 with the QEMU monitor on FIFOs (qemu-run.sh
# --monitor-pipe) and types "nmi" into it every PERIOD_S seconds from the
# kernel's first line to QEMU's exit. QEMU delivers it on LINT1 of every CPU that
# has LINT1 unmasked (extnmi=all: all of them once online). The run must
# pass, say nmis=N with N > 0, and report them.
nmi_case() {
	local name=$1 smp=$2 period=$3 cycles=$4; shift 4
	local regexes=()
	[ "${1:-}" = expect ] && shift
	while [ $# -gt 0 ] && [ "$1" != -- ]; do regexes+=("$1"); shift; done
	[ $# -gt 0 ] && shift
	local log=$out/$name.log mon=$out/$name.mon t0=$SECONDS fd sent=0
	logs+=("$log")
	rm -f "$mon.in" "$mon.out" "$mon.log"
	mkfifo "$mon.in" "$mon.out"
	# Emptied here, not by the background job's redirection: the loop
	# below could read an earlier run's banner before that has run, and
	# send NMIs into the firmware (a shutdown: QEMU exits 0, no output).
	: >"$log"
	tools/run/qemu-run.sh --kernel build/wbinvd0/apstart.elf --smp "$smp" --accel tcg \
		--timeout 120 --monitor-pipe "$mon" -- "$@" >"$log" 2>&1 &
	local pid=$!
	exec {fd}<>"$mon.in" # read-write: never blocks, whoever has the other end
	# Not before the kernel's IDT is loaded (its first line): an NMI in
	# the firmware or in the kernel's first instructions is a shutdown.
	while kill -0 "$pid" 2>/dev/null && ! grep -aq '^apstart ' "$log"; do
		sleep 0.05
	done
	while kill -0 "$pid" 2>/dev/null; do
		echo nmi >&"$fd"
		sent=$((sent + 1))
		sleep "$period"
	done
	exec {fd}>&-
	wait "$pid"
	local st=$? why=
	if [ $st -ne 0 ]; then
		why="exit status $st, want 0"
	elif ! why=$("$APLOG" verify --status pass --cpus "$smp" --cycles "$cycles" "$log" 2>&1); then
		:
	elif ! why=$(tests/qemu/expect.sh "@end status=pass .* nmis=[1-9][0-9]* " \
		"@warn what=nmi apic=[0-9]+ count=[0-9]+ reason=unknown " \
		"${regexes[@]}" "$log" 2>&1); then
		:
	else
		ok "$name (tcg, $((SECONDS - t0))s, $sent nmi commands, $(sed -n 's/^@end .* nmis=\([0-9]*\) .*/\1/p' "$log") NMIs taken)"
		rm -f "$mon.in" "$mon.out"
		return
	fi
	fail "$name (tcg, $((SECONDS - t0))s)" "$why (log: $log)" "$(tail -n 15 "$log")"
	rm -f "$mon.in" "$mon.out"
}
# During bring-up: the legacy 10 ms INIT delay, twice over, stretches the
# bring-up of 7 APs to ~140 ms, while an NMI comes every ~10 ms; some must
# land before the first sample (the BSP takes them, the APs not yet).
nmi_case "nmi-storm-bring-up" 8 0.01 2 expect \
	"^@warn what=nmi apic=0 " -- init_delay_us=20000 extnmi=all cycles=2
# awk reads the file itself: behind a pipe, its early exit would SIGPIPE
# the writer and, under pipefail, fail the check (seen once here).
if ! awk '{ sub(/\r$/, "") } /^@sample/ { exit 1 } /^@warn what=nmi / { found = 1; exit 0 }
	END { exit !found }' "$out/nmi-storm-bring-up.log"; then
	fail "nmi-storm-bring-up-before-samples" "no @warn what=nmi before the first @sample (log: $out/nmi-storm-bring-up.log)"
else
	ok "nmi-storm-bring-up-before-samples"
fi
# During serial cycles: samples whose window held one are marked nmi=1.
nmi_case "nmi-storm-cycles" 4 0.02 300 expect " nmi=1( |$)" \
	"@warn what=nmi apic=[1-3] " -- extnmi=all cycles=300
# During parallel bring-up and parallel cycles (issue 9): every AP's
# window is its round's, so an NMI on the BSP marks the whole round; the
# starts' @phase records carry the mark too.
nmi_case "nmi-storm-parallel-cycles" 4 0.02 300 expect "^@sample .* nmi=1( |$)" \
	"^@phase .* nmi=1$" "^@round cycle=[0-9]+ op=online aps=3 online=3 " \
	"@warn what=nmi apic=[1-3] " -- extnmi=all cycles=300 bringup=parallel cycles_mode=parallel

# x2APIC: TCG in QEMU 7.2 has none, so this needs KVM. make test boots it
# on hardware-backed KVM only; a paravirtual one (~200x slower, ~6 CPU-s
# for this short run) only in make qemu-long (QEMU_FULL=1). x2APIC mode
# itself is in make test either way: make bochs-tests boots it twice.
. tools/run/kvm-usable.sh
if ! kvm_usable && [ "${QEMU_FULL:-0}" != 1 ] && kvm_starts; then
	skip kvm-x2apic-on "a paravirtual KVM only: make qemu-long boots it (x2APIC mode: make bochs-tests)"
elif kvm_starts; then
	extra=(--accel kvm --machine q35)
	run_case "kvm-x2apic-on" build/wbinvd0/apstart.elf 4 pass \
		verify --cpus 4 --cycles 3 --boot x2apic=1 \
		expect "BSP APIC ID 0, x2APIC" -- x2apic=on cycles=3
else
	skip kvm-x2apic-on "QEMU cannot start a KVM guest here (TCG has no x2APIC)"
fi

# Before any @boot record: console text and the exit status only.
extra=(--machine pc,acpi=off)
run_case "no-acpi-tables" build/wbinvd0/apstart.elf 2 fail \
	expect "PANIC: no ACPI RSDP: cannot find the CPUs" "@end status=fail" -- cycles=1

# Big buffers come from the memory map (kernel/bootmem.c): 3 MiB of RAM
# holds the image and a small run; a sample store that does not fit ends
# the run with a message that says what and how much, before any cycle.
extra=(--mem 3)
run_case "small-ram-small-run" build/wbinvd0/apstart.elf 2 pass \
	expect "bootmem: the AP stacks: 0x" "@end status=pass" -- cycles=2
run_case "no-ram-for-samples" build/wbinvd0/apstart.elf 4 fail \
	expect "PANIC: no free memory for the online samples \\(2343 KiB\\)" \
	"run aborted: out of memory" "@end status=fail" -- cycles=100000

# CPUs below each kernel's floor (no long mode, no CMOV, no TSC...):
# tests/qemu/cpu-models.sh, which make qemu-tests runs after this.

# ARCH=i386 (make ARCH=i386): each variant on a 32-bit CPU (qemu-system-i386,
# Pentium III: no long mode, no LFENCE), once under the x86_64 emulator, and
# an AP exception (the 32-bit trap frame).
extra=(--accel tcg --emulator i386 --cpu pentium3)
for w in 0 1; do
	run_case "i386-wbinvd$w-smp4-pentium3" build/i386-wbinvd$w/apstart.elf 4 pass \
		verify --wbinvd $w --cpus 4 --cycles $cycles --boot arch=i386 --
done
run_case "i386-exception-on-ap" build/i386-wbinvd0/apstart.elf 2 fail \
	verify \
	expect "^EXCEPTION on CPU apic=1: vector 6 \(#UD" "eip=0x[0-9a-f]+ cr2=0x" \
	"@fail what=exception apic=1 vector=6" -- selftest=ap-fault
extra=(--accel tcg)
run_case "i386-on-x86_64-emulator" build/i386-wbinvd0/apstart.elf 4 pass \
	verify --wbinvd 0 --cpus 4 --cycles 3 --boot arch=i386 -- cycles=3
extra=()

# Every record of every boot above (kernels with and without wings, both
# arches, failures, warnings, NMIs) in the record schema, lib/records.def:
# each key the kernel printed, in its record's variant, with a value of
# its unit. A key the kernel prints and the schema lacks fails here.
if "$APLOG" schema --check "${logs[@]}" >"$out/schema-check.out" 2>&1; then
	ok "record schema: every record of the ${#logs[@]} boots' logs in lib/records.def ($(awk '/^OK:/ { n += $3 } END { print n + 0 }' "$out/schema-check.out") records)"
else
	fail "record schema: every record of the boots' logs in lib/records.def" \
		"$(grep -c '^FAIL:' "$out/schema-check.out") of ${#logs[@]} logs have records it lacks (aplog schema --check; $out/schema-check.out)" \
		"$(grep -v '^OK:' "$out/schema-check.out" | head -20)"
fi

summary qemu
