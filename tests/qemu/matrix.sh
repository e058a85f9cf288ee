#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# QEMU matrix: both trampoline variants at -smp 1, 2, 4, 8, plus a machine
# whose MADT lists CPUs that are not enabled (-smp 4,maxcpus=8), plus the
# failure paths (AP that never answers, exceptions on BSP and AP).
set -uo pipefail
cd "$(dirname "$0")/../.."

out=build/test-logs
mkdir -p "$out"
pass=0 fail=0
cycles=10
extra=()   # more qemu-run.sh options for the next case

run_case() { # name kernel smp expect(pass|fail) checker... -- kernel args
	local name=$1 kernel=$2 smp=$3 expect=$4; shift 4
	local checker=() args=()
	while [ $# -gt 0 ] && [ "$1" != -- ]; do checker+=("$1"); shift; done
	[ $# -gt 0 ] && shift
	args=("$@")
	local log=$out/$name.log t0=$SECONDS
	tools/qemu-run.sh --kernel "$kernel" --smp "$smp" --timeout 120 "${extra[@]}" -- "${args[@]}" >"$log" 2>&1
	local st=$?
	local ok=1 why=
	if [ "$expect" = pass ] && [ $st -ne 0 ]; then ok=0; why="exit status $st, want 0"; fi
	if [ "$expect" = fail ] && [ $st -ne 1 ]; then ok=0; why="exit status $st, want 1 (kernel-reported failure)"; fi
	if [ $ok = 1 ] && ! why=$("${checker[@]}" "$log" 2>&1); then ok=0; fi
	if [ $ok = 1 ]; then
		pass=$((pass + 1)); echo "  ok   $name ($((SECONDS - t0))s)"
	else
		fail=$((fail + 1)); echo "  FAIL $name ($((SECONDS - t0))s): $why (log: $log)"
		tail -n 15 "$log" | sed 's/^/       | /'
	fi
}

accel=$(tools/qemu-run.sh --kernel /dev/null --smp 1 2>&1 | head -1)
echo "qemu matrix: $(grep -o 'accel=[a-z]*' <<<"$accel" || echo 'accel=tcg')"
for w in 0 1; do
	for smp in 1 2 4 8; do
		run_case "wbinvd$w-smp$smp" build/wbinvd$w/apstart.elf $smp pass \
			tests/qemu/check-log.sh $w $smp $cycles --
	done
done
run_case "wbinvd0-smp4-maxcpus8" build/wbinvd0/apstart.elf 4,maxcpus=8 pass \
	tests/qemu/check-log.sh 0 4 $cycles --
run_case "maxcpus8-reports-absent-cpus" build/wbinvd0/apstart.elf 4,maxcpus=8 pass \
	tests/qemu/expect.sh "cpus: 4 more MADT entries are neither enabled nor online-capable" -- cycles=1

# Options: bad ones are named and the default kept; good ones take effect.
run_case "bad-cmdline-keeps-defaults" build/wbinvd0/apstart.elf 2 pass \
	tests/qemu/expect.sh "unknown option 'frobnicate=1'" "cycles=0 out of range" \
	"x2apic=maybe invalid" "maxcpus=9999 out of range" "@boot .* cycles=10( |$)" \
	"@end status=pass online=2 failed=0" -- \
	frobnicate=1 cycles=0 x2apic=maybe maxcpus=9999
run_case "one-sipi" build/wbinvd0/apstart.elf 4 pass \
	tests/qemu/check-log.sh 0 4 3 -- sipi_count=1 cycles=3
run_case "maxcpus2-of-4" build/wbinvd0/apstart.elf 4 pass \
	tests/qemu/check-log.sh 0 2 3 -- maxcpus=2 cycles=3

run_case "more-cpus-than-build-max" build/wbinvd0-max4/apstart.elf 8 pass \
	tests/qemu/expect.sh "MADT lists 4 more usable CPUs than APSTART_MAX_CPUS=4" \
	"@end status=pass online=4 failed=0" -- cycles=2

# Failure paths: each must end the run with a clear report, never hang.
run_case "exception-on-bsp" build/wbinvd0/apstart.elf 2 fail \
	tests/qemu/expect.sh "^EXCEPTION on CPU apic=0: vector 6 \(#UD" "rip=0x[0-9a-f]+ cr2=0x" \
	"@fail what=exception apic=0 vector=6" "@end status=fail" -- selftest=bsp-fault
run_case "exception-on-ap" build/wbinvd0/apstart.elf 4 fail \
	tests/qemu/expect.sh "^EXCEPTION on CPU apic=1: vector 6 \(#UD" "rip=0x[0-9a-f]+ cr2=0x" \
	"@fail what=exception apic=1 vector=6" "@end status=fail" -- selftest=ap-fault
run_case "ap-never-answers" build/wbinvd0/apstart.elf 4 fail \
	tests/qemu/expect.sh "APIC ID 1 did not come online within 200 ms; last stage: 6 " \
	"@fail what=ap_timeout apic=1 stage=6" "@sample cpu=3 apic=3 cycle=2 op=online" \
	"@end status=fail online=3 failed=1" -- selftest=ap-hang ap_timeout_ms=200 cycles=2

# The trampoline entered a second time (INIT mid-way, then SIPIs again).
run_case "trampoline-entered-twice" build/wbinvd0/apstart.elf 4 pass \
	tests/qemu/expect.sh "selftest: APIC ID 1 stopped with INIT at stage [1-8] .* started again" \
	"@end status=pass online=4 failed=0" -- selftest=double-start cycles=2

# x2APIC: TCG in QEMU 7.2 has none, so this needs KVM (any /dev/kvm that
# opens, even a slow paravirtual one: the run is short).
kvm_starts() { # can QEMU create a KVM guest at all here?
	[ -r /dev/kvm ] && [ -w /dev/kvm ] || return 1
	echo quit | timeout 20 qemu-system-x86_64 -accel kvm -machine q35 \
		-cpu host,-arch-capabilities -display none -nodefaults -S \
		-monitor stdio >/dev/null 2>&1
}
if kvm_starts; then
	extra=(--accel kvm --machine q35)
	run_case "kvm-x2apic-on" build/wbinvd0/apstart.elf 4 pass \
		tests/qemu/expect.sh "@boot .* x2apic=1 " "BSP APIC ID 0, x2APIC" \
		"@end status=pass online=4 failed=0" -- x2apic=on cycles=3
else
	echo "  skip kvm-x2apic-on: QEMU cannot start a KVM guest here (TCG has no x2APIC)"
fi

extra=(--machine pc,acpi=off)
run_case "no-acpi-tables" build/wbinvd0/apstart.elf 2 fail \
	tests/qemu/expect.sh "PANIC: no ACPI RSDP: cannot find the CPUs" "@end status=fail" -- cycles=1

extra=(--accel tcg --cpu pentium3)
run_case "cpu-without-long-mode" build/wbinvd0/apstart.elf 2 fail \
	tests/qemu/expect.sh "this CPU has no long mode" -- cycles=1
extra=()

echo "qemu: $pass passed, $fail failed"
[ $fail -eq 0 ]
