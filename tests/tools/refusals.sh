# SPDX-License-Identifier: MIT
# Nothing false at the edges (issue 31), for the runners, make run and
# make ab: a pass needs the kernel's "@end status=pass"; QEMU refusing to
# start (a bad topology, too many CPUs, a bogus CPU model, a firmware
# file it cannot use) is no verdict, exit 2, with QEMU's own message as
# the last line, and a failed run for make ab (the runner's own refusal
# is the runner's: tests/tools/exit-codes.sh); make run never writes over
# an earlier log; its exit status is aplog verify's of the same log (a
# pass with warnings is not a pass); make ab's status reaches the shell.
# Sourced by tests/tools/run.sh (ok/fail, $tmp, status_is).
# The UEFI runners' firmware checks (make run FIRMWARE=uefi, the session
# runner) are in tests/efi/run.sh, which has the image.

# The three ways of making QEMU refuse: NAME|RUNNER-OPTION|VALUE|MAKE-VARIABLE.
refusals=("a bad CPU topology|--smp|4,maxcpus=2|SMP=4,maxcpus=2"
	"more CPUs than the machine has|--smp|1000|SMP=1000"
	"a CPU model QEMU does not know|--cpu|bogus|QEMU_CPU=bogus")

# qemu_said LINE: the line is QEMU's own message (make may put it behind
# its "file:line: *** ").
qemu_said() { grep -Eq '(^|: )qemu(-system-[a-z0-9_]+)?: ' <<<"$1"; }

# refused NAME OUT WANT-STATUS CMD...: CMD exits WANT-STATUS, says no pass,
# and its last line is QEMU's own message.
refused() {
	local name=$1 out=$2 want=$3 st last
	shift 3
	timeout 300 "$@" >"$out" 2>&1 </dev/null
	st=$?
	last=$(grep -a . "$out" | tail -n 1)
	if [ "$st" != "$want" ]; then
		fail "$name" "exit status $st, want $want" "$(tail -n 6 "$out")"
	elif grep -Eaq 'make run: pass|^@end status=pass' "$out"; then
		fail "$name" "it says pass" "$(tail -n 6 "$out")"
	elif ! qemu_said "$last"; then
		fail "$name" "the last line is not QEMU's own message: $last"
	else
		ok "$name"
	fi
}

k=build/wbinvd0/apstart.elf
: >"$tmp/empty.iso"
: >"$tmp/empty.fd"
for r in "${refusals[@]}"; do
	IFS='|' read -r what opt val var <<<"$r"
	refused "qemu-run.sh, QEMU refuses ($what): no verdict, QEMU's message last" "$tmp/qr" 2 \
		tools/run/qemu-run.sh --kernel "$k" --accel tcg --timeout 60 "$opt" "$val" -- cycles=1
	refused "iso-run.sh BIOS, QEMU refuses ($what): no verdict, QEMU's message last" "$tmp/ir" 2 \
		tools/run/iso-run.sh --iso "$tmp/empty.iso" --firmware bios --accel tcg --timeout 60 "$opt" "$val"
	refused "make run $var: QEMU refuses ($what): exit 2, QEMU's message last" "$tmp/mr" 2 \
		make --no-print-directory run ACCEL=tcg TIMEOUT=60 ARGS=cycles=1 RUN_LOG="$tmp/mr.log" "$var"
done
# OVMF's code in a file QEMU cannot use (empty): QEMU refuses. No file at
# all: iso-run.sh's own refusal, its one line last.
fw_refused() {
	local st
	env OVMF_CODE="$tmp/empty.fd" tools/run/iso-run.sh --iso "$tmp/empty.iso" --firmware uefi \
		--accel tcg --smp 2 --timeout 60 >"$tmp/iu" 2>&1 </dev/null
	st=$?
	[ $st = 2 ] && qemu_said "$(tail -n 1 "$tmp/iu")" ||
		{ echo "empty firmware file: exit $st, last line: $(tail -n 1 "$tmp/iu")"; return 1; }
	env OVMF_CODE="$tmp/none.fd" tools/run/iso-run.sh --iso "$tmp/empty.iso" --firmware uefi \
		--smp 2 >"$tmp/iu" 2>&1 </dev/null
	st=$?
	[ $st = 2 ] && tail -n 1 "$tmp/iu" | grep -q "^iso-run: OVMF not found ($tmp/none.fd" ||
		{ echo "no firmware file: exit $st, last line: $(tail -n 1 "$tmp/iu")"; return 1; }
}
check "iso-run.sh UEFI, a firmware file QEMU refuses or none: exit 2, QEMU's or iso-run's word last" fw_refused

# Two runs in the same second (the clock stopped at one second): two logs.
mkdir -p "$tmp/clock"
printf '#!/bin/sh\n[ "$1" = +%%Y%%m%%d-%%H%%M%%S ] && { echo 20990101-000000; exit 0; }\nexec /bin/date "$@"\n' \
	>"$tmp/clock/date"
chmod +x "$tmp/clock/date"
rm -f build/runs/run-20990101-000000-*
for i in 1 2; do
	PATH="$tmp/clock:$PATH" timeout 300 make --no-print-directory run SMP=2 ACCEL=tcg \
		ARGS=cycles=1 >"$tmp/same$i" 2>&1 </dev/null
done
logs=$(ls build/runs/run-20990101-000000-* 2>/dev/null)
if [ "$(wc -l <<<"$logs")" = 2 ] &&
	[ "$(grep -l '^@end status=pass' $logs | wc -l)" = 2 ] &&
	grep -q "is in build/runs/run-20990101-000000-wbinvd0-2.log\$" "$tmp/same2"; then
	ok "make run twice in one second: two logs (the second -2), each its run's"
else
	fail "make run twice in one second: two logs" "logs: $(tr '\n' ' ' <<<"$logs")" "$(tail -n 2 "$tmp/same2")"
fi
rm -f build/runs/run-20990101-000000-*

# A pass with warnings: make run's status is aplog verify's, the warning in
# its last lines.
timeout 300 make --no-print-directory run SMP=2 ACCEL=tcg ARGS="cyclez=3 cycles=1" \
	RUN_LOG="$tmp/warn.log" >"$tmp/warn" 2>&1 </dev/null
st=$?
build/host/aplog verify "$tmp/warn.log" >"$tmp/warn.verify" 2>&1
vst=$?
if [ $st = $vst ] && [ $st = 1 ] && tail -n 4 "$tmp/warn" | grep -q 'warn what=option problem=unknown token=cyclez=3$' &&
	tail -n 4 "$tmp/warn" | grep -q '^make run: the kernel passed with 1 warning'; then
	ok "make run ARGS=cyclez=3: exit 1 as aplog verify, the warning in the last lines"
else
	fail "make run ARGS=cyclez=3: exit 1 as aplog verify, the warning in the last lines" \
		"make run exit $st, aplog verify exit $vst" "$(tail -n 4 "$tmp/warn")"
fi

# make ab: a run QEMU refuses is a failed run (exit 1, through make), each
# failed run named with QEMU's message; the progress line never says
# "about 0 s left". What is checked here is make ab's, not a build's: each
# side starts as a copy of test-prep's build of the same variables (A =
# WBINVD=1: build/wbinvd0/ with build/wbinvd1/'s own objects over it, the
# objects make variant links; B = WBINVD=0: build/wbinvd0/), moved to its
# folder (the paths in its stamps and .d files), times kept: make ab
# compiles nothing when those are up to date, and what is older than its
# sources is compiled again as ever. Without them make ab builds each
# side whole (~9 CPU-s each). That a side's build follows its variables
# (rebuilt whole when they change) is checked with the knob recipe
# (tests/tools/knobs.sh), whose variant built whole it is.
abo=build/tools-ab
mab=(make --no-print-directory ab RUNS=1 ACCEL=tcg AB_OUT="$abo" ARGS=cycles=1 "AB_A=WBINVD=1" "AB_B=WBINVD=0")
# seed_side TO PLAIN [OWN]: the folder TO as a copy of PLAIN, OWN over it
# (build folders, relative); its stamps as old as PLAIN's, which every
# object copied is newer than.
seed_side() {
	local to=$1 from f
	shift
	rm -rf "$to"
	for from; do [ -f "$from/apstart.elf" ] || return 0; done
	mkdir -p "$to"
	for from; do cp -a "$from/." "$to/"; done
	rm -f "$to"/*.vars.new-*
	for from; do
		find "$to" -name '*.d' -exec sed -i "s#$from/#$to/#g" {} +
		sed -i "s#$from/#$to/#g" "$to"/*.vars
	done
	for f in "$to"/*.vars; do touch -r "$1/${f##*/}" "$f"; done
}
seed_side "$abo/build-a" build/wbinvd0 build/wbinvd1
seed_side "$abo/build-b" build/wbinvd0
for r in "${refusals[@]}"; do
	IFS='|' read -r what opt val var <<<"$r"
	refused "make ab $var: QEMU refuses ($what): each run failed, exit 1" "$tmp/ab" 1 "${mab[@]}" "$var"
	if grep -q '^ab: 2 of 2 runs failed' "$tmp/ab" && ! grep -q 'about 0 s left' "$tmp/ab"; then
		ok "make ab $var: 2 of 2 runs failed, named; no 'about 0 s left'"
	else
		fail "make ab $var: 2 of 2 runs failed, named; no 'about 0 s left'" "$(grep '^ab: ' "$tmp/ab" | tail -n 4)"
	fi
done
# Too few runs for a verdict: exit 2 through make, the reason last; the
# header counts in the singular.
timeout 300 "${mab[@]}" SMP=2 >"$tmp/ab2" 2>&1 </dev/null
st=$?
if [ $st = 2 ] && grep -q '^A: WBINVD=1: 1 run, 1 AP, 1 online + 1 offline sample ' "$tmp/ab2" &&
	grep -q '^ab: A = WBINVD=1, B = WBINVD=0: 1 run each, ' "$tmp/ab2" &&
	tail -n 1 "$tmp/ab2" | grep -q 'ab: no verdict (exit 2): ' && ! grep -q 'about 0 s left' "$tmp/ab2"; then
	ok "make ab RUNS=1: exit 2, '1 run each', '1 run, 1 AP, 1 ... sample', the reason last"
else
	fail "make ab RUNS=1: exit 2, '1 run each', '1 run, 1 AP, 1 ... sample', the reason last" \
		"exit $st: $(grep -E '^(A|ab): ' "$tmp/ab2" | head -n 3 | paste -sd' ')" \
		"$(tail -n 1 "$tmp/ab2")"
fi
