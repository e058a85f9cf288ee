#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# LAVA tests (make lava-tests):
#   - the monitors (tools/lab/lava/monitors.yaml) replayed through LAVA's
#     matcher over recorded consoles cut at random points, no QEMU and no
#     LAVA needed (tests/lava/replay.py; python3-pexpect, python3-yaml);
#   - the job templates filled in by tools/lab/lava/mkjob.py, checked against
#     LAVA's own job schema where lava-dispatcher is installed;
#   - tools/lab/lava/results.py on a recorded lava-run log;
#   - where lava-run is installed (and we are root): the qemu job run end
#     to end with lava-run, for a passing kernel and for a failing one
#     (selftest=lost-sipi sipi_retry=0), each results file checked case
#     by case and read back by aplog.
set -uo pipefail
cd "$(dirname "$0")/../.."

APLOG=${APLOG:-build/host/aplog}
PY=/usr/bin/python3
logs=tests/lava/logs
out=build/test-logs/lava
mkdir -p "$out"
# shellcheck source=tests/protocol.sh
. tests/protocol.sh

# ------------------------------------------------------------- the replay
if ! "$PY" -c 'import pexpect, yaml' 2>/dev/null; then
	skip "LAVA monitors replayed over recorded consoles" "no python3-pexpect or python3-yaml for $PY"
else
	# bios-pass.log first: the replay's own fail-checks use the first log.
	while IFS= read -r line; do
		case $line in
		"ok   "*) ok "${line#ok   }" ;;
		"FAIL "*) t_failed=$((t_failed + 1)); echo "$line" ;;
		"lava replay: exit "*)
			[ "${line##* }" = 0 ] || [ $t_failed -gt 0 ] ||
				fail "LAVA monitors replayed over recorded consoles" "replay.py: $line" ;;
		"lava replay: "*) ;;
		*) echo "  $line" ;;
		esac
	done < <("$PY" tests/lava/replay.py $logs/bios-pass.log $logs/bios-lost-sipi.log \
		$logs/bios-maxcpus.log $logs/bios-ap-fault.log $logs/uefi-pxe.log 2>&1;
		echo "lava replay: exit $?")
fi

# ---------------------------------------------------------- job templates
have_lava_schema=0
"$PY" -c 'import lava_common.schemas' 2>/dev/null && have_lava_schema=1
for tm in qemu x86-ipxe x86-grub qemu+lrm x86-ipxe+lrm x86-grub+lrm; do
	t=${tm%+lrm}
	mod=()
	# +lrm: Linux's own trampoline, its LRM file as the kernel's module
	[ "$tm" = "$t" ] || mod=(--module-url http://lab.example/linux-6.1.lrm)
	name="job template $tm: filled in, no placeholder left, monitors in"
	job=$out/$tm.yaml
	if ! why=$("$PY" tools/lab/lava/mkjob.py --template $t --kernel-url http://lab.example/apstart-wbinvd0.elf \
		--args "cycles=10 x2apic=off" --smp 4 --variant WBINVD=0 "${mod[@]}" --out "$job" 2>&1); then
		fail "$name" "$why"
		continue
	fi
	if grep -q '@[A-Z_]*@' "$job"; then
		fail "$name" "$(grep -m1 '@[A-Z_]*@' "$job")"
	elif ! "$PY" -c 'import sys, yaml; j = yaml.safe_load(open(sys.argv[1]))
m = [a["test"]["monitors"] for a in j["actions"] if "test" in a][0]
assert [x["name"] for x in m] == ["apstart-ap", "apstart-summary", "apstart"], m' "$job" 2>"$out/err"; then
		fail "$name" "$(tail -n 1 "$out/err")"
	else
		ok "$name"
	fi
	if [ ${#mod[@]} -gt 0 ]; then
		# the module where the template's boot method loads it, and the option
		if "$PY" -c 'import sys, yaml; j = yaml.safe_load(open(sys.argv[1])); t = sys.argv[2]
d = [a["deploy"] for a in j["actions"] if "deploy" in a][0]
b = [a["boot"] for a in j["actions"] if "boot" in a][0]
s = yaml.safe_dump(j)
assert "trampoline=linux" in s, "no trampoline=linux"
if t == "qemu":
    assert d["images"]["module"] == {"image_arg": "-initrd {module}", "url": "http://lab.example/linux-6.1.lrm"}, d
else:
    assert d["ramdisk"]["url"] == "http://lab.example/linux-6.1.lrm" and d["ramdisk"]["install_overlay"] is False, d
    want = "module2 (tftp,{SERVER_IP})/{RAMDISK}" if t == "x86-grub" else "initrd tftp://{SERVER_IP}/{RAMDISK}"
    assert want in b["commands"], b["commands"]' "$job" "$t" 2>"$out/err"; then
			ok "job template $tm: the LRM file deployed as the kernel's module, trampoline=linux"
		else
			fail "job template $tm: the LRM file as the kernel's module" "$(tail -n 1 "$out/err")"
		fi
	fi
	if [ $have_lava_schema = 1 ]; then
		check_name="job template $tm: valid under LAVA's job schema (lava_common, strict)"
		if why=$("$PY" -c 'import sys, yaml
from lava_common.schemas import validate
validate(yaml.safe_load(open(sys.argv[1])), strict=True)' "$job" 2>&1); then
			ok "$check_name"
		else
			fail "$check_name" "$(tail -n 2 <<<"$why")"
		fi
	fi
done
[ $have_lava_schema = 1 ] ||
	skip "job templates valid under LAVA's job schema" "lava-dispatcher is not installed (no lava_common)"
refuses() { # NAME WANTED ARGS...
	local name=$1 want=$2 msg st
	shift 2
	msg=$("$PY" tools/lab/lava/mkjob.py "$@" 2>&1 >/dev/null)
	st=$?
	if [ $st = 2 ] && [[ $msg == *"$want"* ]]; then ok "$name"; else fail "$name" "exit $st: $msg"; fi
}
refuses "mkjob: a kernel argument with a quote is refused" "characters other than" \
	--template qemu --kernel-url file:///k.elf --args 'cycles=2"; reboot'
refuses "mkjob: a kernel URL that is not one is refused" "must be a file://" \
	--template qemu --kernel-url /k.elf
refuses "mkjob: a module URL that is not one is refused" "--module-url must be a file://" \
	--template qemu --kernel-url file:///k.elf --module-url k.lrm

# --------------------------------------------- results.py, recorded log
res=$out/recorded-results.txt
"$PY" tools/lab/lava/results.py $logs/lava-run-lost-sipi.lava >"$res"
st=$?
# expect FILE STATUS WANTED-LINE...: the results file has these lines.
expect_results() {
	local file=$1 st=$2 want=$3 l miss=
	shift 3
	[ "$st" = "$want" ] || { echo "results.py exit $st, not $want"; return 1; }
	for l in "$@"; do
		grep -qxF -- "$l" "$file" || miss+="'$l' "
	done
	[ -z "$miss" ] || { echo "missing: $miss"; return 1; }
}
fail_lines=("@lava suite=apstart-ap case=apic_1 result=fail"
	"@lava suite=apstart-ap case=apic_2 result=pass" "@lava suite=apstart-ap case=apic_3 result=pass"
	"@lava suite=apstart case=end result=fail" "@lava suite=lava case=job result=pass"
	"@lavarun aps=3 ap_pass=2 ap_fail=1 ap_skip=0 verdict=fail job=pass")
if why=$(expect_results "$res" $st 1 "${fail_lines[@]}" \
	"@lava suite=apstart-summary case=op_online result=pass measurement=640032 units=ns" \
	"@lava suite=apstart-summary case=op_offline result=pass measurement=4768779 units=ns"); then
	ok "results.py: a recorded lava-run log of a failing kernel, case by case"
else
	fail "results.py: a recorded lava-run log of a failing kernel, case by case" "$why"
fi
if why=$("$APLOG" verify --status fail --cpus 4 --cycles 2 --online 3 --failed 1 "$res" 2>&1); then
	ok "results.py: aplog reads the results file's console records"
else
	fail "results.py: aplog reads the results file's console records" "$(tail -n 2 <<<"$why")"
fi

# ------------------------------------------------------ lava-run, for real
lava_missing=
command -v lava-run >/dev/null || lava_missing="lava-run is not installed (optional package lava-dispatcher)"
[ -z "$lava_missing" ] && [ "$(id -u)" != 0 ] && lava_missing="lava-run needs root"
# run_job NAME WANT-STATUS DIR ARGS...: the job, WANT-STATUS its exit status
# (SMP: its -smp, default 4).
run_job() {
	local name=$1 want=$2 dir=$out/job-$3 st
	shift 3
	tools/lab/lava/run-job.sh --kernel build/wbinvd0/apstart.elf --out "$dir" --smp "${SMP:-4}" \
		--variant WBINVD=0 ${MODULE:+--module "$MODULE"} -- "$@" >"$out/$(basename "$dir").out" 2>&1
	st=$?
	sed -n 's/^lava: lava-run exit .* in \([0-9]*\) ms.*/lava: '"$name"': lava-run took \1 ms/p' \
		"$out/$(basename "$dir").out"
	if [ $st != "$want" ]; then
		fail "$name" "run-job.sh exit $st, not $want" "$(tail -n 12 "$out/$(basename "$dir").out")"
		return 1
	fi
}
if [ -n "$lava_missing" ]; then
	skip "lava-run: the qemu job, a passing kernel" "$lava_missing"
	skip "lava-run: the qemu job, a failing kernel (lost SIPI)" "$lava_missing"
	skip "lava-run: QEMU refuses -smp 1000: no verdict, QEMU's message last" "$lava_missing"
	skip "lava-run: the qemu job through Linux 6.12's own trampoline (the LRM file as its module)" "$lava_missing"
else
	# QEMU refuses to start (over pc's 255 CPUs): no verdict, never a pass,
	# and QEMU's own message, as LAVA logged it, the last line.
	n="lava-run: QEMU refuses -smp 1000: no verdict, QEMU's message last"
	if SMP=1000 run_job "$n" 2 refused cycles=2; then
		last=$(grep -a . "$out/job-refused.out" | tail -n 1)
		if grep -Eq "(^|: )qemu-system-x86_64: Invalid SMP CPUs 1000" <<<"$last"; then
			ok "$n"
		else
			fail "$n" "the last line: $last"
		fi
	fi
	n="lava-run: the qemu job, a passing kernel"
	if run_job "$n" 0 pass cycles=2; then
		r=$out/job-pass/results.txt
		if why=$(expect_results "$r" 0 0 "@lava suite=apstart-ap case=apic_1 result=pass" \
			"@lava suite=apstart-ap case=apic_2 result=pass" "@lava suite=apstart-ap case=apic_3 result=pass" \
			"@lava suite=apstart case=end result=pass" "@lava suite=lava case=job result=pass" \
			"@lavarun aps=3 ap_pass=3 ap_fail=0 ap_skip=0 verdict=pass job=pass") &&
			why=$(grep -cE '^@lava suite=apstart-summary case=op_(online|offline) result=pass measurement=[1-9][0-9]* units=ns$' "$r" |
				grep -qx 2 || echo "not two summary cases with a measurement in ns") &&
			why=$("$APLOG" verify --status pass --cpus 4 --cycles 2 "$r" 2>&1); then
			ok "$n"
		else
			fail "$n" "$why ($r)"
		fi
	fi
	# Linux's own trampoline: Debian 6.12's blob (fetched by make
	# test-prep for the realmode lanes) as the job's module.
	n="lava-run: the qemu job through Linux 6.12's own trampoline (the LRM file as its module)"
	img=build/linux/images/amd64-6.12/vmlinuz
	if [ ! -s "$img" ]; then
		skip "$n" "no $img (tests/realmode/fetch-images.sh: Debian's images not fetched)"
	elif ! lrm=$(tools/run/linux-lrm.sh --out "$out" "$img" 2>"$out/lrm.err"); then
		fail "$n" "no LRM file: $(tail -n 1 "$out/lrm.err")"
	elif MODULE=$lrm run_job "$n" 0 linux cycles=2; then
		r=$out/job-linux/results.txt
		if why=$(expect_results "$r" 0 0 "@lava suite=apstart case=end result=pass" "@lava suite=lava case=job result=pass") &&
			why=$(grep -q '^@trampoline kind=linux wbinvd=1 linux_version=6\.12\.' "$r" || echo "no @trampoline kind=linux record") &&
			why=$("$APLOG" verify --status pass --cpus 4 --cycles 2 "$r" 2>&1); then
			ok "$n"
		else
			fail "$n" "$why ($r)"
		fi
	fi
	n="lava-run: the qemu job, a failing kernel (lost SIPI)"
	if run_job "$n" 1 fail cycles=2 selftest=lost-sipi sipi_retry=0; then
		r=$out/job-fail/results.txt
		if why=$(expect_results "$r" 1 1 "${fail_lines[@]}") &&
			why=$(grep -cE '^@lava suite=apstart-summary case=op_(online|offline) result=pass measurement=[1-9][0-9]* units=ns$' "$r" |
				grep -qx 2 || echo "not two summary cases with a measurement in ns") &&
			why=$("$APLOG" verify --status fail --cpus 4 --online 3 --failed 1 "$r" 2>&1); then
			ok "$n"
		else
			fail "$n" "$why ($r)"
		fi
	fi
fi

summary lava
