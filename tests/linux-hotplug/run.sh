#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Tests for tools/linux/hotplug (make linux-hotplug-tests). Never touches
# this machine's CPUs: every case runs against a fake sysfs/procfs tree in
# a temporary directory (--sysfs-root/--proc-root), and write errors come
# from an LD_PRELOAD shim over write()/pwrite() (failwrite.c) loaded into
# the ASan/UBSan build (the shipped binary is static: no LD_PRELOAD). Then
# a check boots Debian's kernel under QEMU and runs the tool there
# (tests/linux-hotplug/vm.sh), and the last one asks make bench-linux for
# more CPUs than QEMU's machine has (no verdict, QEMU's message last).
#   LH=build/host/linux-hotplug LH_ASAN=build/host/linux-hotplug_asan \
#   LH_SHIM=build/host/failwrite.so APLOG=build/host/aplog bash tests/linux-hotplug/run.sh
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
abspath() { case $1 in /*) echo "$1" ;; *) echo "$root/$1" ;; esac; }
LH=$(abspath "${LH:-build/host/linux-hotplug}")
LH_ASAN=$(abspath "${LH_ASAN:-build/host/linux-hotplug_asan}")
LH_SHIM=$(abspath "${LH_SHIM:-build/host/failwrite.so}")
LH_TRACESHIM=$(abspath "${LH_TRACESHIM:-build/host/faketrace.so}")
APLOG=$(abspath "${APLOG:-build/host/aplog}")
for f in "$LH" "$LH_ASAN" "$LH_SHIM" "$LH_TRACESHIM" "$APLOG"; do
	[ -e "$f" ] || { echo "linux-hotplug tests: $f not built (make linux-hotplug-tests)" >&2; exit 1; }
done

export ASAN_OPTIONS=detect_leaks=1:exitcode=86:abort_on_error=0:verify_asan_link_order=0
export UBSAN_OPTIONS=print_stacktrace=1:exitcode=87

tmp=$(mktemp -d "${TMPDIR:-/tmp}/lh-tests.XXXXXX") || exit 1
# LH_TESTS_KEEP=1 keeps the directory for a look after a failure.
trap '[ -n "${LH_TESTS_KEEP:-}" ] && echo "kept $tmp" || rm -rf "$tmp"' EXIT
chmod 755 "$tmp"

PASS=0 FAIL=0 SKIP=0
ok() { PASS=$((PASS + 1)); echo "ok   $1"; }
skip() { SKIP=$((SKIP + 1)); echo "skip $1: $2"; }
bad() {
	FAIL=$((FAIL + 1))
	echo "FAIL $1: $2"
	[ -f "$tmp/out" ] && sed 's/^/     | out: /' "$tmp/out" | tail -15
	[ -f "$tmp/err" ] && sed 's/^/     | err: /' "$tmp/err" | tail -15
}

# A fake tree: cpu0 without an online file (the boot CPU), cpu1-3 online,
# cpu4 offline (not in cpuinfo, as Linux lists only online CPUs).
make_tree() { # DIR [cpuinfo-for-cpu4]
	local t=$1 i
	rm -rf "$t"
	mkdir -p "$t/sys/devices/system/cpu/smt" "$t/proc/sys/kernel"
	for i in 0 1 2 3 4; do mkdir -p "$t/sys/devices/system/cpu/cpu$i"; done
	for i in 1 2 3; do echo 1 >"$t/sys/devices/system/cpu/cpu$i/online"; done
	echo 0 >"$t/sys/devices/system/cpu/cpu4/online"
	echo 0-3 >"$t/sys/devices/system/cpu/online"
	echo on >"$t/sys/devices/system/cpu/smt/control"
	echo 1 >"$t/sys/devices/system/cpu/smt/active"
	mkdir -p "$t/sys/devices/system/cpu/cpu0/cache/index3"
	echo 3 >"$t/sys/devices/system/cpu/cpu0/cache/index3/level"
	echo Unified >"$t/sys/devices/system/cpu/cpu0/cache/index3/type"
	echo 516096K >"$t/sys/devices/system/cpu/cpu0/cache/index3/size"
	echo 6.1.0-fake-amd64 >"$t/proc/sys/kernel/osrelease"
	local last=3
	[ "${2:-}" = with-cpu4 ] && last=4
	for i in $(seq 0 $last); do
		printf 'processor\t: %d\nvendor_id\t: GenuineIntel\ncpu family\t: 6\nmodel\t\t: 173\n' "$i"
		printf 'model name\t: Intel(R) Xeon(R) 6985P-C\nstepping\t: 1\nmicrocode\t: 0x10003a2\n'
		printf 'apicid\t\t: %d\nflags\t\t: fpu x2apic hypervisor\n\n' $((i * 2))
	done >"$t/proc/cpuinfo"
}

# The tracefs part of a fake tree: instances/ and the cpuhp events (the
# shim faketrace.so plays the kernel's part), and hotplug/states.
add_tracefs() { # DIR [no-events]
	local t=$1 e
	mkdir -p "$t/sys/kernel/tracing/instances" "$t/sys/devices/system/cpu/hotplug"
	[ "${2:-}" = no-events ] ||
		for e in cpuhp_enter cpuhp_multi_enter cpuhp_exit; do
			mkdir -p "$t/sys/kernel/tracing/events/cpuhp/$e"
		done
	printf '%s\n' '  0: offline' '  1: threads:prepare' '  2: perf:prepare' \
		' 62: trace/RB:prepare' ' 91: cpu:bringup' '153: cpu:teardown' \
		'235: sched:active' '236: online' >"$t/sys/devices/system/cpu/hotplug/states"
}

# States of cpu0..4 as one string ("-1110": cpu0 has no file).
states() {
	local t=$1 i s=
	for i in 0 1 2 3 4; do
		if [ -f "$t/sys/devices/system/cpu/cpu$i/online" ]; then
			s+=$(head -c1 "$t/sys/devices/system/cpu/cpu$i/online")
		else s+=-; fi
	done
	echo "$s"
}

# run BIN TREE ARGS...: output in $tmp/out, $tmp/err, status in $rc.
run() {
	local bin=$1 t=$2
	shift 2
	"$bin" --sysfs-root "$t/sys" --proc-root "$t/proc" "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
}
# 86/87: the sanitizers' exit codes (ASAN_OPTIONS/UBSAN_OPTIONS above).
sanitizer_clean() {
	! grep -qE 'AddressSanitizer|LeakSanitizer|runtime error:' "$tmp/err" && [ "$rc" != 86 ] && [ "$rc" != 87 ]
}
count() { grep -c "$1" "$tmp/out"; }
# schema_ok NAME FILE: every record FILE holds is in the record schema
# (lib/records.def: aplog schema --check), key, variant and value.
schema_ok() {
	if "$APLOG" schema --check "$2" >"$tmp/schema" 2>&1; then
		ok "$1: every record in the record schema ($(sed -n 's/^OK: .*: \([0-9]*\) records.*/\1/p' "$tmp/schema") records)"
	else
		bad "$1: records in the record schema" "$(grep -v '^OK' "$tmp/schema" | head -5)"
	fi
}

T=$tmp/tree
for bin in "$LH" "$LH_ASAN"; do
	b=$(basename "$bin")

	# 1. A full run: every cycle timed, records aplog accepts, every CPU
	#    back as it was (cpu4 offline again).
	make_tree "$T"
	run "$bin" "$T" --cycles 3
	n_off=$(count '^@sample .* op=offline ') n_on=$(count '^@sample .* op=online ')
	if [ $rc = 0 ] && sanitizer_clean && [ "$n_off" = 12 ] && [ "$n_on" = 12 ] &&
		grep -q '^@end status=pass online=5 failed=0' "$tmp/out" &&
		grep -q '^@boot kernel=linux version=6.1.0-fake-amd64 wbinvd=1 cpus=5 ' "$tmp/out" &&
		grep -q '^@env vendor=GenuineIntel family=0x6 model=0xad stepping=1 brand=Intel(R)_Xeon(R)_6985P-C llc_kib=516096 microcode=0x10003a2 hypervisor=1 smt_control=on ' "$tmp/out" &&
		[ "$(states "$T")" = -1110 ]; then
		ok "$b: 4 CPUs x 3 cycles, 24 samples, @end pass, states restored (cpu4 offline again)"
	else
		bad "$b: full run" "rc=$rc offline=$n_off online=$n_on states=$(states "$T")"
	fi
	cp "$tmp/out" "$tmp/full-$b.log"

	if "$APLOG" stats "$tmp/full-$b.log" >"$tmp/aplog" 2>&1 &&
		grep -qE '^Online: ' "$tmp/aplog" &&
		cp "$tmp/full-$b.log" "$tmp/full-$b-again.log" &&
		"$APLOG" compare "$tmp/full-$b.log" -- "$tmp/full-$b-again.log" >"$tmp/aplog" 2>&1 &&
		grep -q '^Online: ' "$tmp/aplog"; then
		ok "$b: aplog stats and compare read the records"
	else
		bad "$b: aplog on linux-hotplug output" "$(head -5 "$tmp/aplog")"
	fi
	schema_ok "$b: full run" "$tmp/full-$b.log"
	# Its @summary medians are lib/stats.c's, as aplog's are.
	for op in online offline; do
		want=$("$APLOG" medians --op $op "$tmp/full-$b.log" 2>&1 | sed -n "s/.*: $op median_ns=\([0-9]*\) .*/\1/p")
		got=$(sed -n "s/^@summary op=$op .* median_ns=\([0-9]*\) .*/\1/p" "$tmp/full-$b.log")
		if [ -n "$want" ] && [ "$got" = "$want" ]; then
			ok "$b: @summary op=$op median_ns=$got is aplog's median (lib/stats.c in both)"
		else
			bad "$b: @summary op=$op median_ns" "$got, aplog medians says '$want'"
		fi
	done

	# 2. APIC IDs: from cpuinfo when it lists every CPU taking part, the
	#    CPU number for all of them when it does not (cpu4 above).
	make_tree "$T" with-cpu4
	run "$bin" "$T" --cycles 1
	if [ $rc = 0 ] && grep -q '^@sample cpu=3 apic=6 cycle=1 op=online' "$tmp/out" &&
		grep -q 'apic_source=cpuinfo' "$tmp/out" &&
		grep -q '^@sample cpu=3 apic=3 ' "$tmp/full-$b.log" &&
		grep -q 'apic_source=cpu_number' "$tmp/full-$b.log"; then
		ok "$b: APIC IDs from cpuinfo, CPU numbers when cpuinfo lacks a CPU"
	else
		bad "$b: APIC IDs" "rc=$rc"
	fi

	# 3. Refusals before anything is written: the boot CPU, a missing CPU,
	#    bad options, no hotplug, no sysfs.
	make_tree "$T"
	touch "$tmp/stamp"
	sleep 0.01
	refused() { # NAME EXPECTED-STDERR ARGS...
		local name=$1 want=$2
		shift 2
		run "$bin" "$T" "$@"
		local changed
		changed=$(find "$T" -newer "$tmp/stamp" -type f | head -3)
		if [ $rc = 2 ] && sanitizer_clean && grep -q -- "$want" "$tmp/err" && [ -z "$changed" ] &&
			! grep -q '^@sample' "$tmp/out"; then
			ok "$b: refuses $name, nothing written"
		else
			bad "$b: refusal $name" "rc=$rc changed=[$changed] want stderr '$want'"
		fi
	}
	refused "cpu0 (no online file)" "refusing cpu0: it cannot be taken offline" --cpus 0-2
	refused "a CPU that does not exist" "cpu9 does not exist" --cpus 9
	refused "a malformed --cpus" "bad range" --cpus 3-1
	refused "--cycles 0" "expected 1..100000" --cycles 0
	refused "an unknown option" "unknown option" --bogus
	refused "--cpus without a value" "its value is missing" --cpus
	refused "--wbinvd 2" "expected 0 or 1" --wbinvd 2
	mkdir -p "$tmp/nohp/sys/devices/system/cpu/cpu0"
	run "$bin" "$tmp/nohp" --cycles 1
	if [ $rc = 2 ] && grep -q 'CPU hotplug is not available' "$tmp/err"; then
		ok "$b: no online file anywhere: says hotplug is not available"
	else bad "$b: no hotplug" "rc=$rc"; fi
	run "$bin" "$tmp/nonexistent" --cycles 1
	if [ $rc = 2 ] && grep -q 'is sysfs mounted' "$tmp/err"; then
		ok "$b: no sysfs CPU directory: says so"
	else bad "$b: no sysfs" "rc=$rc"; fi

	# 4. --dry-run writes nothing and prints no parseable record.
	make_tree "$T"
	touch "$tmp/stamp"
	sleep 0.01
	run "$bin" "$T" --dry-run --cycles 5
	changed=$(find "$T" -newer "$tmp/stamp" -type f | head -3)
	if [ $rc = 0 ] && [ -z "$changed" ] && grep -q 'nothing was written' "$tmp/out" &&
		grep -q '^  @boot kernel=linux' "$tmp/out" && ! grep -q '^@' "$tmp/out" &&
		grep -q 'cpu4(offline now' "$tmp/out"; then
		ok "$b: --dry-run writes nothing, shows the plan and the records indented"
	else bad "$b: dry-run" "rc=$rc changed=[$changed]"; fi

	# 5. Output into a pipe that closes at once: no SIGPIPE death with
	#    CPUs offline; the run completes and restores.
	make_tree "$T"
	"$bin" --sysfs-root "$T/sys" --proc-root "$T/proc" --cycles 300 2>"$tmp/err" | head -1 >/dev/null
	rc=${PIPESTATUS[0]}
	if [ $rc = 0 ] && [ "$(states "$T")" = -1110 ]; then
		ok "$b: stdout closed early (SIGPIPE ignored): completes, states restored"
	else bad "$b: closed stdout" "rc=$rc states=$(states "$T")"; fi

	# 6. The kernel log: Debian 6.1's boot log under QEMU (verbatim) gives
	#    the bring-up time from printk stamps; a 6.18 log says x2APIC.
	make_tree "$T"
	run "$bin" "$T" --dry-run --kmsg "$here/kmsg-debian-6.1.txt"
	if [ $rc = 0 ] && grep -q '^  @env .* x2apic_source=cpuinfo ' "$tmp/out" &&
		grep -q '^@linux_bringup cpus=8 ns=877629000 from=printk_time' "$tmp/out" &&
		grep -q 'kernel log: smp: Brought up 1 node, 8 CPUs' "$tmp/out" &&
		grep -q 'kernel log: smpboot: Total of 8 processors activated (38926.44 BogoMIPS)' "$tmp/out" &&
		sanitizer_clean; then
		ok "$b: Debian 6.1 kernel log: bring-up lines, 877.6 ms from printk stamps"
	else bad "$b: kernel log 6.1" "rc=$rc"; fi
	run "$bin" "$T" --dry-run --kmsg "$here/kmsg-6.18-x2apic.txt"
	if [ $rc = 0 ] && grep -q '^  @boot .* x2apic=1 ' "$tmp/out" &&
		grep -q '^  @env .* x2apic_source=kmsg ' "$tmp/out" &&
		grep -q '^@linux_bringup cpus=2 ns=711000 from=printk_time' "$tmp/out" &&
		grep -q 'kernel log: APIC: Switched APIC routing to: physical x2apic' "$tmp/out" &&
		sanitizer_clean; then
		ok "$b: 6.18 kernel log: x2APIC mode from 'x2apic enabled'"
	else bad "$b: kernel log 6.18" "rc=$rc"; fi
	run "$bin" "$T" --dry-run --kmsg "$here/run.sh"
	if [ $rc = 0 ] && grep -q 'bring-up not in the kernel log' "$tmp/out" && sanitizer_clean; then
		ok "$b: kernel log without bring-up lines: says so"
	else bad "$b: kernel log without lines" "rc=$rc"; fi
done

# 7. Not root: the online files are 0444 and the tool runs as nobody.
make_tree "$T"
chmod 0444 "$T"/sys/devices/system/cpu/cpu*/online
chmod -R a+rX "$T"
cp "$LH" "$tmp/lh-static" && chmod 755 "$tmp/lh-static"
if [ "$(id -u)" = 0 ]; then
	if command -v setpriv >/dev/null; then
		as_user=(setpriv --reuid=65534 --regid=65534 --clear-groups)
	else as_user=(); fi
else
	as_user=(env)
fi
if [ ${#as_user[@]} = 0 ]; then
	skip "not root: permission refusal" "running as root without setpriv (util-linux) to drop to nobody"
elif ! "${as_user[@]}" test -x "$tmp/lh-static"; then
	skip "not root: permission refusal" "user nobody cannot reach $tmp (TMPDIR not traversable)"
else
	"${as_user[@]}" "$tmp/lh-static" --sysfs-root "$T/sys" --proc-root "$T/proc" \
		--cycles 1 >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ $rc = 2 ] && grep -q 'not root: .*cpu1/online is not writable (Permission denied)' "$tmp/err" &&
		grep -q 'run it with sudo' "$tmp/err" && [ "$(states "$T")" = -1110 ]; then
		ok "not root, online files 0444: refuses with a clear message, nothing written"
	else bad "not root" "rc=$rc"; fi
fi

# The shim works only with the dynamic (ASan) build.
B=$LH_ASAN
# shim_run VAR=VALUE... -- ARGS...: that build on a fresh tree, with the
# shim configured by the FAILWRITE_* variables given.
shim_run() {
	local envs=()
	while [ "$1" != -- ]; do envs+=("$1"); shift; done
	shift
	make_tree "$T"
	env "${envs[@]}" LD_PRELOAD="$LH_SHIM" "$B" --sysfs-root "$T/sys" --proc-root "$T/proc" \
		"$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
}

# 8. cpu2 refuses to go offline (write fails with EBUSY): reported, left
#    out, the others complete, every CPU restored, status 1.
shim_run FAILWRITE_MATCH=/cpu2/online FAILWRITE_VALUE=0 FAILWRITE_ERRNO=16 -- --cycles 3
if [ $rc = 1 ] && sanitizer_clean &&
	grep -q '^@fail what=offline_refused cpu=2 apic=2 cycle=1 errno=16' "$tmp/out" &&
	grep -q 'cpu2 refused to go offline (cycle 1): Device or resource busy' "$tmp/err" &&
	[ "$(count '^@sample cpu=2 ')" = 0 ] && [ "$(count '^@sample cpu=3 ')" = 6 ] &&
	grep -q '^@end status=fail online=4 failed=1' "$tmp/out" && [ "$(states "$T")" = -1110 ]; then
	ok "cpu2 refuses to go offline (EBUSY): reported, others done, states restored, status 1"
else bad "EBUSY on offline" "rc=$rc states=$(states "$T")"; fi
"$APLOG" stats "$tmp/out" >"$tmp/aplog" 2>&1
if grep -q 'run 1 ended with status=fail (online=4 failed=1): excluded' "$tmp/aplog" &&
	! grep -qiE 'error|malformed|missing' "$tmp/aplog"; then
	ok "aplog reads a failed run and leaves it out as failed"
else bad "aplog on a failed run" "$(head -3 "$tmp/aplog")"; fi
schema_ok "a failed run" "$tmp/out"

# 9. cpu3 refuses once to come back online (cycle 2): left offline by the
#    run, put back online by the restore.
shim_run FAILWRITE_MATCH=/cpu3/online FAILWRITE_VALUE=1 FAILWRITE_AFTER=1 FAILWRITE_COUNT=1 -- --cycles 3
if [ $rc = 1 ] && sanitizer_clean &&
	grep -q '^@fail what=online_refused cpu=3 apic=3 cycle=2 errno=16' "$tmp/out" &&
	grep -q 'cpu3 put back online' "$tmp/err" && [ "$(states "$T")" = -1110 ]; then
	ok "cpu3 refuses once to come online: the restore puts it back online"
else bad "EBUSY on online, restored" "rc=$rc states=$(states "$T")"; fi

# 10. cpu3 never comes back online: the tool cannot restore it and says
#     so loudly, with the command, and exits 3.
shim_run FAILWRITE_MATCH=/cpu3/online FAILWRITE_VALUE=1 -- --cycles 2
if [ $rc = 3 ] && sanitizer_clean &&
	grep -q "ERROR: cpu3 is offline, not online as it was at the start; restore it by hand: echo 1 > $T/sys/devices/system/cpu/cpu3/online" "$tmp/err" &&
	grep -q '^@end status=fail .* restored=no' "$tmp/out" && [ "$(states "$T")" = -1100 ]; then
	ok "cpu3 cannot be restored: says so with the command to fix it, status 3"
else bad "unrestorable CPU" "rc=$rc states=$(states "$T")"; fi

# 11. A write that 'succeeds' without effect is caught by the read-back.
shim_run FAILWRITE_MATCH=/cpu1/online FAILWRITE_VALUE=0 FAILWRITE_ERRNO=ignore -- --cycles 2
if [ $rc = 1 ] && grep -q '^@fail what=offline_not_taken cpu=1' "$tmp/out" &&
	[ "$(states "$T")" = -1110 ]; then
	ok "a write without effect is detected by reading the state back"
else bad "write without effect" "rc=$rc"; fi

# 12. A CPU offline at the start that cannot be brought online: the run
#     fails, nothing is measured on it, it stays offline.
shim_run FAILWRITE_MATCH=/cpu4/online FAILWRITE_VALUE=1 -- --cycles 1
if [ $rc = 1 ] && grep -q '^@fail what=prepare_online cpu=4 errno=16' "$tmp/out" &&
	[ "$(count '^@sample cpu=4 ')" = 0 ] && [ "$(states "$T")" = -1110 ]; then
	ok "an offline CPU that cannot be brought online is left out and left offline"
else bad "prepare fails" "rc=$rc states=$(states "$T")"; fi

# 13. SIGINT / SIGTERM in the middle: offline writes take 30 ms, so the
#     signal lands while a CPU is offline; the tool stops, puts it back,
#     still prints @summary/@end, exits 128+N.
for sig in INT TERM; do
	make_tree "$T"
	# exec: $! is then the tool itself, not a subshell.
	(FAILWRITE_DELAY_US=30000 FAILWRITE_DELAY_VALUE=0 LD_PRELOAD="$LH_SHIM" exec \
		"$B" --sysfs-root "$T/sys" --proc-root "$T/proc" --cycles 50 >"$tmp/out" 2>"$tmp/err") &
	pid=$!
	sleep 1
	mid=$(states "$T")
	kill -s $sig $pid
	wait $pid
	rc=$?
	want=$((128 + $(kill -l $sig)))
	n=$(count '^@sample ')
	if [ $rc = $want ] && sanitizer_clean && grep -q "^@fail what=interrupted signal=SIG$sig" "$tmp/out" &&
		grep -q '^@end status=fail' "$tmp/out" && grep -q '^@summary op=online' "$tmp/out" &&
		grep -qE 'cpu[1-4] put back online' "$tmp/err" &&
		[ "$n" -gt 0 ] && [ "$n" -lt 400 ] && [ "$(states "$T")" = -1110 ]; then
		ok "SIG$sig in the middle ($n of 400 samples, states then $mid): every CPU restored, status $rc"
	else bad "SIG$sig in the middle" "rc=$rc (want $want) samples=$n states=$(states "$T") mid=$mid"; fi
done

# 14. --trace against a fake tracefs (faketrace.so writes the cpuhp events
#     Linux 6.1 writes, in its trace_pipe format, inside each sysfs write).
tr_instances() { find "$T/sys/kernel/tracing/instances" -mindepth 1 -maxdepth 1 | wc -l; }
trace_run() { # VAR=VALUE... -- ARGS...
	local envs=()
	while [ "$1" != -- ]; do envs+=("$1"); shift; done
	shift
	make_tree "$T"
	add_tracefs "$T"
	rm -f "$tmp/tlog"
	env FAKETRACE_LOG="$tmp/tlog" "${envs[@]}" LD_PRELOAD="$LH_TRACESHIM" "$B" \
		--sysfs-root "$T/sys" --proc-root "$T/proc" --trace "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
}
# Every callback inside its write; the AP's sched:active inside the control
# CPU's cpu:bringup (online) / cpuhp_kick_ap_work (offline) of the same write.
trace_shape() {
	awk '
	function v(k,  i) { for (i = 2; i <= NF; i++) if (index($i, k "=") == 1) return substr($i, length(k) + 2); return "" }
	/^@cpuhp / { key = v("cpu") " " v("cycle") " " v("op"); s = v("start_ns") + 0; e = s + v("ns")
		if (v("state") == 91 || v("state") == 236) { os[key] = s; oe[key] = e; if (v("on") != 0) bad = bad " outer-on=" v("on") }
		if (v("state") == 235) { is[key] = s; ie[key] = e; if (v("on") != v("cpu")) bad = bad " ap-on=" v("on") }
		if (e > last[key] + 0) last[key] = e; n++ }
	/^@cpuhp_write / { key = v("cpu") " " v("cycle") " " v("op"); w++
		if (last[key] > v("ns") + 0) bad = bad " outside:" key
		if (!(key in os) || !(key in is) || is[key] + 0 < os[key] + 0 || ie[key] + 0 > oe[key] + 0) bad = bad " nesting:" key }
	END { printf "%d %d%s\n", n, w, bad }' "$tmp/out"
}
trace_run -- --cycles 3
shape=$(trace_shape)
if [ $rc = 0 ] && sanitizer_clean && [ "$shape" = "96 24" ] &&
	[ "$(count '^@cpuhp_write cpu=[1-4] apic=[1-4] cycle=[1-3] op=[a-z]* at_ns=[0-9]* ns=[0-9]* callbacks=4 lost=0 foreign=0 malformed=0$')" = 24 ] &&
	grep -q '^@cpuhp cpu=3 apic=3 cycle=2 op=online state=91 name=cpu:bringup fn=bringup_cpu multi=0 on=0 ' "$tmp/out" &&
	grep -q '^@cpuhp cpu=4 apic=4 cycle=1 op=online state=62 name=trace/RB:prepare fn=trace_rb_cpu_prepare multi=1 on=0 ' "$tmp/out" &&
	[ "$(head -4 "$tmp/tlog" | sed 's/linux-hotplug\.[0-9]*/I/' | tr '\n' ';')" = "mkdir I;tracing_on 0;trace_clock mono;events/cpuhp/enable 1;" ] &&
	[ "$(tail -3 "$tmp/tlog" | sed 's/linux-hotplug\.[0-9]*/I/' | tr '\n' ';')" = "events/cpuhp/enable 0;tracing_on 0;rmdir I;" ] &&
	[ "$(grep -c '^tracing_on 1' "$tmp/tlog")" = 24 ] && [ "$(tr_instances)" = 0 ] &&
	[ "$(states "$T")" = -1110 ] && grep -q '^@end status=pass' "$tmp/out"; then
	ok "--trace: 24 writes, 96 @cpuhp records nested as Linux runs them, tracing on only around the writes, instance removed"
else bad "--trace full run" "rc=$rc shape=[$shape] instances=$(tr_instances) states=$(states "$T") log=$(tr '\n' ';' <"$tmp/tlog" 2>/dev/null | head -c 300)"; fi
if "$APLOG" stats "$tmp/out" >"$tmp/aplog" 2>&1 && grep -qE '^Online: ' "$tmp/aplog"; then
	ok "--trace: aplog stats reads the traced records"
else bad "aplog on --trace output" "$(head -3 "$tmp/aplog")"; fi
schema_ok "--trace" "$tmp/out"

trace_run FAKETRACE_MODE=lose -- --cycles 1
if [ $rc = 0 ] && sanitizer_clean && [ "$(count '^@cpuhp_write .* callbacks=3 lost=1 ')" = 8 ] &&
	grep -q 'trace event(s) lost or unpaired' "$tmp/err" && [ "$(tr_instances)" = 0 ]; then
	ok "--trace: an enter without its exit is counted as lost, not paired with another"
else bad "--trace lost exit" "rc=$rc"; fi
trace_run FAKETRACE_MODE=lostline -- --cycles 1
if [ $rc = 0 ] && [ "$(count '^@cpuhp_write .* callbacks=4 lost=3 ')" = 8 ]; then
	ok "--trace: the kernel's [LOST 3 EVENTS] line is counted"
else bad "--trace LOST line" "rc=$rc"; fi
trace_run FAKETRACE_MODE=foreign -- --cycles 1
if [ $rc = 0 ] && [ "$(count '^@cpuhp_write .* callbacks=4 lost=0 foreign=1 ')" = 8 ] &&
	! grep -q '^@cpuhp .*state=200 ' "$tmp/out"; then
	ok "--trace: another CPU's callbacks are counted as foreign, not recorded"
else bad "--trace foreign" "rc=$rc"; fi

# Tracing cannot be set up (no trace_clock in the instance): no cycles are
# run untraced, the instance is removed, the CPUs are as they were.
trace_run FAKETRACE_MODE=noclock -- --cycles 2
if [ $rc = 1 ] && sanitizer_clean && grep -q '^@fail what=trace_setup' "$tmp/out" &&
	grep -q 'trace_clock (mono): No such file or directory' "$tmp/err" &&
	! grep -q '^@sample' "$tmp/out" && [ "$(tr_instances)" = 0 ] &&
	grep -q '^@end status=fail' "$tmp/out" && [ "$(states "$T")" = -1110 ]; then
	ok "--trace: tracing cannot be set up: says why, runs nothing untraced, instance removed, status 1"
else bad "--trace setup fails" "rc=$rc states=$(states "$T") instances=$(tr_instances)"; fi

# The instance cannot be removed: tracing is off anyway, the tool says
# how to remove it and the run fails.
trace_run FAKETRACE_RMDIR=fail -- --cycles 1
if [ $rc = 1 ] && sanitizer_clean && grep -q 'was not removed: Device or resource busy (its events are off); remove it by hand: rmdir ' "$tmp/err" &&
	[ "$(tail -3 "$tmp/tlog" | sed 's/linux-hotplug\.[0-9]*/I/' | tr '\n' ';')" = "events/cpuhp/enable 0;tracing_on 0;rmdir I;" ] &&
	grep -q '^@end status=fail' "$tmp/out" && [ "$(states "$T")" = -1110 ]; then
	ok "--trace: an instance that cannot be removed: events off, says how, status 1"
else bad "--trace rmdir fails" "rc=$rc"; fi

# SIGINT in the middle of a traced run (offline writes slowed to 30 ms by
# failwrite.so, chained before faketrace.so): CPUs restored, tracing off,
# instance gone.
for sig in INT TERM; do
	make_tree "$T"
	add_tracefs "$T"
	rm -f "$tmp/tlog"
	(FAILWRITE_DELAY_US=30000 FAILWRITE_DELAY_VALUE=0 FAKETRACE_LOG="$tmp/tlog" \
		LD_PRELOAD="$LH_SHIM:$LH_TRACESHIM" exec \
		"$B" --sysfs-root "$T/sys" --proc-root "$T/proc" --trace --cycles 50 >"$tmp/out" 2>"$tmp/err") &
	pid=$!
	sleep 1
	mid=$(states "$T") inst=$(tr_instances)
	kill -s $sig $pid
	wait $pid
	rc=$?
	want=$((128 + $(kill -l $sig)))
	n=$(count '^@cpuhp_write ')
	if [ $rc = $want ] && sanitizer_clean && grep -q "^@fail what=interrupted signal=SIG$sig" "$tmp/out" &&
		[ "$inst" = 1 ] && [ "$(tr_instances)" = 0 ] && [ "$n" -gt 0 ] && [ "$n" -lt 400 ] &&
		[ "$(tail -3 "$tmp/tlog" | sed 's/linux-hotplug\.[0-9]*/I/' | tr '\n' ';')" = "events/cpuhp/enable 0;tracing_on 0;rmdir I;" ] &&
		[ "$(states "$T")" = -1110 ]; then
		ok "--trace, SIG$sig in the middle ($n traced writes, states then $mid): CPUs restored, tracing off, instance removed"
	else bad "--trace SIG$sig" "rc=$rc (want $want) writes=$n inst=$inst/$(tr_instances) states=$(states "$T") mid=$mid"; fi
done

# Refusals before anything changes, with either build: no tracefs, a
# tracefs without the cpuhp events; --dry-run says what it would do.
for bin in "$LH" "$LH_ASAN"; do
	b=$(basename "$bin")
	make_tree "$T"
	touch "$tmp/stamp"
	sleep 0.01
	run "$bin" "$T" --trace --cycles 1
	changed=$(find "$T" -newer "$tmp/stamp" | head -3)
	if [ $rc = 2 ] && grep -q -- "--trace: no tracefs at $T/sys/kernel/tracing or $T/sys/kernel/debug/tracing" "$tmp/err" &&
		grep -q 'mount -t tracefs nodev' "$tmp/err" && [ -z "$changed" ] && ! grep -q '^@sample' "$tmp/out"; then
		ok "$b: --trace without tracefs: refuses, says how to mount it, nothing written"
	else bad "$b: --trace without tracefs" "rc=$rc changed=[$changed]"; fi
	add_tracefs "$T" no-events
	run "$bin" "$T" --trace --cycles 1
	if [ $rc = 2 ] && grep -q 'this kernel cannot trace CPU hotplug' "$tmp/err" && [ "$(tr_instances)" = 0 ]; then
		ok "$b: --trace on a kernel without cpuhp events: refuses"
	else bad "$b: --trace no events" "rc=$rc"; fi
	add_tracefs "$T"
	run "$bin" "$T" --tracefs "$T/sys/kernel/tracing" --dry-run --cycles 1
	if [ $rc = 0 ] && grep -q "would trace the cpuhp events of each write in a tracefs instance $T/sys/kernel/tracing/instances/linux-hotplug\.[0-9]* (clock mono; 8 state names" "$tmp/out" &&
		[ "$(tr_instances)" = 0 ] && [ "$(states "$T")" = -1110 ]; then
		ok "$b: --tracefs DIR --dry-run: says what it would trace, makes nothing"
	else bad "$b: --trace --dry-run" "rc=$rc"; fi
done

# 15. One short real run inside a VM: Debian's kernel under QEMU.
bash "$here/vm.sh" "$LH" "$APLOG" "$tmp/vm" 2>&1 | tee "$tmp/vm.out" | grep -E '^(ok  |FAIL|skip) '
vm_rc=${PIPESTATUS[0]}
if grep -q '^ok   ' "$tmp/vm.out"; then PASS=$((PASS + 1))
elif grep -q '^skip ' "$tmp/vm.out"; then SKIP=$((SKIP + 1))
else
	FAIL=$((FAIL + 1))
	grep -q '^FAIL' "$tmp/vm.out" || echo "FAIL VM run: vm.sh exited $vm_rc without a verdict"
	tail -30 "$tmp/vm.out" | sed 's/^/     | /'
fi

# 16. make bench-linux when QEMU refuses to start (-smp 1000, over pc's
# 255 CPUs): no verdict, exit 2 through make, QEMU's own message the last
# line (before: the bench went on to apstart and ended "a run failed").
name="make bench-linux SMP=1000: QEMU refuses: exit 2, its message last"
if ! (cd "$root" && tools/linux/vm/fetch.sh) >"$tmp/fetch16.out" 2>&1; then
	echo "skip $name: Debian's kernel/busybox-static not available: $(tail -n 1 "$tmp/fetch16.out")"
	SKIP=$((SKIP + 1))
else
	(cd "$root" && timeout 600 make --no-print-directory bench-linux SMP=1000 ROUNDS=1) \
		>"$tmp/bench16.out" 2>&1 </dev/null
	st=$?
	last=$(grep -a . "$tmp/bench16.out" | tail -n 1)
	if [ $st = 2 ] && grep -Eq '(^|: )qemu-system-x86_64: Invalid SMP CPUs 1000' <<<"$last"; then
		echo "ok   $name"
		PASS=$((PASS + 1))
	else
		echo "FAIL $name: exit $st, last line: $last"
		FAIL=$((FAIL + 1))
	fi
fi

echo "linux-hotplug: $PASS passed, $FAIL failed, $SKIP skipped"
[ $FAIL = 0 ]
