#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# aplog fleet (make fleet-tests), under ASan/UBSan, over recorded logs of
# four QEMU machines (tests/fleet/record.sh: CPU model, CPU count,
# firmware, and one under the flush model), three runs per variant each:
# one row per machine, the figures against an independent reading of
# aplog csv, CSV, a run in two files counted once, make lava's results
# files read, failed runs counted and left out, bad input.
set -uo pipefail
cd "$(dirname "$0")/../.."

APLOG=${APLOG_ASAN:-build/host/aplog_asan}
logs=tests/fleet/logs
out=build/test-logs/fleet
rm -rf "$out"
mkdir -p "$out"
# shellcheck source=tests/protocol.sh
. tests/protocol.sh


"$APLOG" fleet "$logs" >"$out/table.txt" 2>"$out/table.err"
st=$?
"$APLOG" fleet --csv "$logs" >"$out/table.csv" 2>"$out/csv.err"
cst=$?
sed 's/^/  /' "$out/table.txt"

table_rows() {
	[ $st = 0 ] || { echo "exit $st: $(cat "$out/table.err")"; return 1; }
	grep -q '^aplog fleet: 4 machines, 24 runs from 24 files$' "$out/table.txt" ||
		{ echo "header: $(head -n 1 "$out/table.txt")"; return 1; }
	local n
	n=$(grep -cE '^[1-9][0-9]* +[A-Za-z]' "$out/table.txt")
	[ "$n" = 4 ] || { echo "$n machine rows, not 4"; return 1; }
	n=$(grep -cE '\|    3 .*\|    3 ' "$out/table.txt")
	[ "$n" = 4 ] || { echo "$n rows with 3 runs of each variant, not 4"; return 1; }
}
check "fleet: one row per machine, four machines, 3 runs of each variant" table_rows

# The CSV: header + one line per machine, the machines told apart.
csv_rows() {
	[ $cst = 0 ] || { echo "exit $cst: $(cat "$out/csv.err")"; return 1; }
	local cols bad
	cols=$(head -n 1 "$out/table.csv" | awk -F, '{print NF}')
	bad=$(awk -F, -v c="$cols" 'NF != c {print NR": "NF" fields"}' "$out/table.csv")
	[ -z "$bad" ] || { echo "lines with another field count: $bad"; return 1; }
	[ "$(wc -l <"$out/table.csv")" = 5 ] || { echo "$(wc -l <"$out/table.csv") lines, not 5"; return 1; }
	local want
	# microcode: QEMU's constants (0x1 for Intel models, 0x1000065 for AMD
	# ones), read by the kernel from MSR 0x8B (kernel/cpu.c).
	for want in 'AuthenticAMD,0xf,0x6b,QEMU_TCG_CPU_version_2.5+,4,bios,0x1000065,x86_64,-,QEMU TCG,0,0,3,' \
		'GenuineIntel,0x6,0x5e,Intel_Core_Processor_(Skylake),2,bios,0x1,x86_64,-,a hypervisor,0,0,3,' \
		'AuthenticAMD,0x17,0x1,AMD_EPYC_Processor,3,uefi,0x1000065,x86_64,-,a hypervisor,0,0,3,' \
		'AuthenticAMD,0xf,0x6b,QEMU_TCG_CPU_version_2.5+,4,bios,0x1000065,x86_64,us=20000,,0,0,3,'; do
		grep -qF ",$want" "$out/table.csv" || { echo "no row with $want"; return 1; }
	done
}
check "fleet --csv: a header and one row per machine (vendor, model, CPUs, firmware, flush model)" csv_rows

# The verdicts: emulated machines cannot be judged; the modelled one can.
verdicts() {
	local v
	v=$(awk -F, 'NR > 1 {print $11 "|" $(NF - 4)}' "$out/table.csv")
	[ "$(grep -c '^[^|][^|]*|not measurable here$' <<<"$v")" = 3 ] ||
		{ echo "not three 'not measurable here' rows: $v"; return 1; }
	grep -qE '^\|(faster|slower|no difference)$' <<<"$v" ||
		{ echo "the modelled machine has no verdict with an interval: $v"; return 1; }
}
check "fleet: QEMU and hypervisor rows 'not measurable here', the flush-model row judged" verdicts

# The figures, against aplog csv read independently: per run the mean of
# its online ns samples, then the mean over runs (rounded to 1 ns).
figures() {
	local m w want got
	for m in m1-max-smp4-bios m3-epyc-smp3-uefi; do
		for w in 1 0; do
			want=$("$APLOG" csv "$logs/$m"/wbinvd$w-run*.log 2>/dev/null | awk -F, '
				NR > 1 && $7 == "online" { s[$1] += $8; n[$1]++ }
				END { for (f in s) { t += s[f] / n[f]; k++ } printf "%.0f\n", t / k }')
			got=$("$APLOG" fleet --csv "$logs/$m" | awk -F, -v w=$w 'NR == 1 {
				for (i = 1; i <= NF; i++) if ($i == "online_ns_wbinvd" w) c = i }
				NR == 2 { print $c }')
			# each run's mean is rounded to 1 ns before the mean over runs
			[ -n "$got" ] && [ $((got - want)) -le 1 ] && [ $((want - got)) -le 1 ] ||
				{ echo "$m WBINVD=$w online: fleet $got ns, aplog csv $want ns"; return 1; }
		done
	done
}
check "fleet: the online figures are aplog csv's per-run means, averaged over runs" figures

# The same boot in two files counts once.
dups() {
	local t
	t=$("$APLOG" fleet "$logs" "$logs/m1-max-smp4-bios/wbinvd1-run1.log" 2>&1) || { echo "$t"; return 1; }
	grep -q '^aplog fleet: 4 machines, 24 runs .*(1 run seen twice, counted once)' <<<"$t" ||
		{ echo "$(head -n 1 <<<"$t")"; return 1; }
	diff <(sed 1d "$out/table.txt") <(sed 1d <<<"$t")
}
check "fleet: a run in two files counts once" dups

# make lava's results files: the failing kernel's run is counted, left out.
lava_results() {
	mkdir -p "$out/lava"
	/usr/bin/python3 tools/lab/lava/results.py tests/lava/logs/lava-run-lost-sipi.lava \
		>"$out/lava/results.txt"
	cp tests/lava/logs/bios-pass.log "$out/lava/"
	local t
	t=$("$APLOG" fleet "$out/lava" 2>&1) || { echo "$t"; return 1; }
	grep -q '^aplog fleet: 1 machine, 2 runs from 2 files$' <<<"$t" || { echo "$t"; return 1; }
	grep -q '\[1 failed, 0 without totals: left out\]' <<<"$t" || { echo "$t"; return 1; }
	grep -q '|    0 .*|    1 ' <<<"$t" || { echo "$t"; return 1; }
}
if [ -x /usr/bin/python3 ] && /usr/bin/python3 -c 'import yaml' 2>/dev/null; then
	check "fleet: reads make lava's results files; the failed run is counted, left out" lava_results
else
	skip "fleet: reads make lava's results files" "no python3-yaml for tools/lab/lava/results.py"
fi

# Bad input: a corrupt file is left out with its errors, the rest printed.
bad_file() {
	mkdir -p "$out/bad"
	cp "$logs"/m2-skylake-smp2-bios/*.log "$out/bad/"
	sed -i 's/^@sample cpu=1 apic=1 cycle=1 op=online ns=[0-9]*/@sample cpu=1 apic=1 cycle=1 op=online ns=x/' \
		"$out/bad/wbinvd0-run2.log"
	local t st
	t=$("$APLOG" fleet "$out/bad" 2>&1)
	st=$?
	[ $st = 1 ] || { echo "exit $st, not 1"; return 1; }
	grep -q 'wbinvd0-run2.log left out' <<<"$t" || { echo "$t"; return 1; }
	grep -q '^aplog fleet: 1 machine, 5 runs from 5 files (1 file left out: errors)$' <<<"$t" ||
		{ echo "$t"; return 1; }
}
check "fleet: a file with a malformed record is left out, named, exit 1" bad_file
empty_dir() {
	mkdir -p "$out/empty/sub"
	echo "not a log" >"$out/empty/sub/notes.txt"
	local t st
	t=$("$APLOG" fleet "$out/empty" 2>&1)
	st=$?
	[ $st = 1 ] && grep -q 'no apstart run in 1 file' <<<"$t" || { echo "exit $st: $t"; return 1; }
}
check "fleet: a directory without runs is an error, not an empty table" empty_dir
usage() {
	local t st
	t=$("$APLOG" fleet 2>&1)
	st=$?
	[ $st = 2 ] && grep -q 'fleet needs LOG' <<<"$t" || { echo "exit $st: $t"; return 1; }
	t=$("$APLOG" fleet --op online "$logs" 2>&1)
	st=$?
	[ $st = 2 ] || { echo "--op: exit $st"; return 1; }
}
check "fleet: no logs, or an option of another command, is a usage error" usage

summary fleet
