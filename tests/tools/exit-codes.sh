# SPDX-License-Identifier: MIT
# Exit status of make run and of the runners, as the README says: 0 the
# kernel reported pass, 1 it reported fail, 2 no verdict (timeout, no
# kernel, QEMU error; the runner's own refusal named as the runner's). And
# what make run shows: the per-CPU table and the three rows last, the
# whole record stream in the log it names (V=1: on the terminal too).
# Sourced by tests/tools/run.sh (its ok/fail helpers). Each boot is TCG,
# -smp 2, one cycle: a few seconds.

# status_is NAME WANT OUT CMD...: CMD's exit status is WANT; output to OUT.
status_is() {
	local name=$1 want=$2 out=$3 st
	shift 3
	timeout 300 "$@" >"$out" 2>&1 </dev/null
	st=$?
	if [ "$st" = "$want" ]; then
		ok "$name"
	else
		fail "$name" "exit status $st, want $want" "$(tail -n 8 "$out")"
	fi
}

k=build/wbinvd0/apstart.elf
make --no-print-directory WBINVD=0 SLOW_TRAMP_NS=0 SLOW_PARK_NS=0 "$k" >/dev/null 2>&1 ||
	fail "exit codes: build $k" "make failed"
q=(tools/run/qemu-run.sh --kernel "$k" --smp 2 --accel tcg)
status_is "qemu-run.sh: a passing run exits 0" 0 "$tmp/q0" "${q[@]}" --timeout 60 -- cycles=1
# (ap_timeout_ms=100: the BSP gives up on the AP after 0.1 s, not the
# default 1 s, each spent spinning under TCG)
status_is "qemu-run.sh: a failed run (an AP never answers) exits 1" 1 "$tmp/q1" \
	"${q[@]}" --timeout 60 -- cycles=1 selftest=ap-hang ap_timeout_ms=100
# exit=halt: the kernel ends without telling QEMU, the timeout ends QEMU.
status_is "qemu-run.sh: no verdict (timeout) exits 2" 2 "$tmp/q2" \
	"${q[@]}" --timeout 3 -- cycles=1 exit=halt
# An image that boots nothing: SeaBIOS waits, the timeout ends it.
: >"$tmp/empty.iso"
status_is "iso-run.sh: no verdict (nothing bootable, timeout) exits 2" 2 "$tmp/i2" \
	tools/run/iso-run.sh --iso "$tmp/empty.iso" --firmware bios --smp 2 --timeout 3

# make run: the same three, through make (which would turn 1 into 2).
mr=(make --no-print-directory run SMP=2 ACCEL=tcg)
status_is "make run: a passing run exits 0" 0 "$tmp/m0" "${mr[@]}" ARGS=cycles=1 RUN_LOG="$tmp/m0.log"
status_is "make run: a failed run exits 1, not make's 2" 1 "$tmp/m1" \
	"${mr[@]}" ARGS="cycles=1 selftest=ap-hang ap_timeout_ms=100" RUN_LOG="$tmp/m1.log"
status_is "make run: no verdict exits 2" 2 "$tmp/m2" \
	"${mr[@]}" ARGS="cycles=1 exit=halt" TIMEOUT=3 RUN_LOG="$tmp/m2.log"
# ... and make carries them without starting itself again
# (tools/run/exit-status.mk: question mode, no remade makefile). The
# runner's own refusal (SMP=0) is reported as the runner's, not the
# kernel's: its line is the last, after make's --debug=b lines too.
timeout 60 make --no-print-directory --debug=b run SMP=0 ACCEL=tcg RUN_LOG="$tmp/m0smp.log" >"$tmp/mr" 2>&1 </dev/null
st=$?
if [ $st = 2 ] && ! grep -q '^Re-executing' "$tmp/mr" && grep -q "^Must remake target 'run'" "$tmp/mr"; then
	ok "make run: its status through one make, not restarted"
else
	fail "make run: its status through one make, not restarted" "exit $st; $(grep -m1 '^Re-executing' "$tmp/mr")"
fi
last=$(grep -a . "$tmp/mr" | tail -n 1)
if [ $st = 2 ] && grep -q "make run: not run (exit 2): qemu-run: --smp must be a CPU count" <<<"$last" &&
	! grep -q 'kernel' <<<"$last"; then
	ok "make run SMP=0: exit 2, the last line is the runner's refusal, not the kernel's"
else
	fail "make run SMP=0: exit 2, the last line is the runner's refusal, not the kernel's" "exit $st: $last"
fi

# What it shows: the last lines are the table, the three rows and the
# verdict with the log's name; no record on the terminal; the log has
# every record the kernel printed (the @end too).
tail -n 9 "$tmp/m0" >"$tmp/m0.tail"
if grep -Eq '^ cpu +apic +median' "$tmp/m0.tail" && grep -Eq '^ +1 +1 ' "$tmp/m0.tail" &&
	grep -q '^Offline: ' "$tmp/m0.tail" && grep -q '^Online: ' "$tmp/m0.tail" &&
	grep -q '^Total: ' "$tmp/m0.tail" &&
	grep -q "^make run: pass, exit 0; the whole record stream ([0-9]* lines) is in $tmp/m0.log\$" "$tmp/m0.tail"; then
	ok "make run: ends with the per-CPU table, Offline/Online/Total and the log's name"
else
	fail "make run: ends with the per-CPU table, Offline/Online/Total and the log's name" "it does not" \
		"$(cat "$tmp/m0.tail")"
fi
if ! grep -q '^@' "$tmp/m0" && grep -q '^@phase ' "$tmp/m0.log" &&
	grep -q '^@end status=pass' "$tmp/m0.log" &&
	build/host/aplog verify --cpus 2 --cycles 1 "$tmp/m0.log" >/dev/null 2>&1; then
	ok "make run: no @record on the terminal; the log holds them all (aplog verify passes)"
else
	fail "make run: no @record on the terminal; the log holds them all" \
		"terminal has $(grep -c '^@' "$tmp/m0") records; log: $(grep -c '^@' "$tmp/m0.log")"
fi
if grep -q '^@fail what=ap_timeout apic=1 ' "$tmp/m1" &&
	grep -q '^make run: FAIL (the kernel reported fail), exit 1' "$tmp/m1"; then
	ok "make run: a failed run names its @fail and says FAIL"
else
	fail "make run: a failed run names its @fail and says FAIL" "it does not" "$(tail -n 6 "$tmp/m1")"
fi
status_is "make run V=1: exit 0" 0 "$tmp/mv" "${mr[@]}" ARGS=cycles=1 V=1 RUN_LOG="$tmp/mv.log"
if grep -q '^@phase ' "$tmp/mv" && grep -q '^@end status=pass' "$tmp/mv"; then
	ok "make run V=1: the record stream on the terminal too"
else
	fail "make run V=1: the record stream on the terminal too" "no @phase/@end on it"
fi
