#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# make test: every lane, its time, and one closing line summing the lanes'
# own counts. Host-only lanes (marked '&') run beside the QEMU lanes that
# come before the wall-clock ones. Every lane follows the test protocol
# (tests/protocol.sh):
# one line per check ("ok   NAME", "FAIL NAME: WHY", "skip NAME: REASON")
# and a last line "LANE: N passed, M failed, K skipped". This script adds
# up the last lines, checks them against the check lines, names every
# skip with its reason, and counts as one failure a lane that exits
# non-zero without a failed check, prints no summary, or miscounts.
set -uo pipefail
cd "$(dirname "$0")/.."

parts=(
	"&unit tests (host, plain + ASan/UBSan)|make --no-print-directory unit-tests"
	"&framebuffer console (host)|make --no-print-directory fbcon-tests"
	"&USB writer (fake sysfs, loop device)|make --no-print-directory usb-tests"
	"&log analyzer aplog (plain + ASan/UBSan)|make --no-print-directory aplog-tests"
	"developer tools (runners, make help/debug)|make --no-print-directory tools-tests"
	"docs: front page, links, package lines, its commands run|make --no-print-directory docs-tests"
	"&parsers under libFuzzer, 3 s each from the seeds|make --no-print-directory fuzz-smoke"
	"kernel layers point down (includes, symbols)|make --no-print-directory layers-check"
	"linux-hotplug (fake sysfs, signals, Linux VM)|make --no-print-directory linux-hotplug-tests"
	"&apstart on Linux: setup, run, collect, ab on fake machines|make --no-print-directory linux-tool-tests"
	"apstart's .deb: make install, lintian, dpkg --root install/purge|make --no-print-directory deb-tests"
	"from Linux: kexec, records back via pstore (SeaBIOS, OVMF)|make --no-print-directory kexec-tests"
	"apstart run --via kexec, collect, in Debian's kernel (SeaBIOS, OVMF)|make --no-print-directory linux-vm-tests"
	"&QR encoder (host; python3-qrcode, zbarimg)|make --no-print-directory qr-tests"
	"trampoline content (ndisasm)|make --no-print-directory trampoline-check"
	"QEMU matrix|make --no-print-directory qemu-tests"
	"timing (icount baselines, wall-clock A/B)|make --no-print-directory timing-tests"
	"TSC-skewed AP prints na (Bochs, KVM)|make --no-print-directory tscskew-tests"
	"ISO image + BIOS/UEFI x CD/USB boots|make --no-print-directory iso-tests"
	"flush cost model (QEMU TCG plugin, wall clock)|make --no-print-directory flushmodel-tests"
	"flush probe: curve vs model, fit, SMIs, victims (TCG)|make --no-print-directory flushprobe-tests"
	"aplog fleet: one row per machine (recorded logs)|make --no-print-directory fleet-tests"
	"network boot: BIOS/UEFI PXE, UEFI HTTP (QEMU, dnsmasq)|make --no-print-directory netboot-tests"
	"LAVA: monitors replayed, job templates, lava-run jobs|make --no-print-directory lava-tests"
	"apstart.efi, results kept across a reset (OVMF)|make --no-print-directory efi-tests"
	"A/B session from one stick, K=2 (OVMF)|make --no-print-directory session-tests"
	"crafted MADTs through GRUB's acpi command (SeaBIOS, TCG)|make --no-print-directory madt-tests"
	"Bochs: BIOS image, Intel + AMD models, SMT|make --no-print-directory bochs-tests"
)
summary_re='^(.+): ([0-9]+) passed, ([0-9]+) failed(, ([0-9]+) skipped)?$'
total_pass=0 total_fail=0 total_skip=0 t_all=$SECONDS
table=() skips=() problems=()
mkdir -p build

# count NAME LOG STATUS SECONDS: adds a lane's counts, checked against its
# check lines, to the totals and the table.
count() {
	local name=$1 log=$2 st=$3 dt=$4 p=0 f=0 s=0 lanes=0 line why=
	while IFS= read -r line; do
		[[ $line =~ $summary_re ]] || continue
		p=$((p + BASH_REMATCH[2])) f=$((f + BASH_REMATCH[3])) s=$((s + ${BASH_REMATCH[5]:-0}))
		lanes=$((lanes + 1))
	done < <(tr -d '\r' <"$log")
	local n_ok n_fail n_skip
	n_ok=$(grep -ac '^ok   ' "$log")
	n_fail=$(grep -ac '^FAIL ' "$log")
	n_skip=$(grep -ac '^skip ' "$log")
	while IFS= read -r line; do
		skips+=("$name: ${line#skip }")
	done < <(grep -a '^skip ' "$log")
	if [ $lanes = 0 ]; then
		why="printed no 'N passed, M failed, K skipped' line (exit status $st)"
	elif [ "$n_ok $n_fail $n_skip" != "$p $f $s" ]; then
		why="its counts ($p passed, $f failed, $s skipped) do not match its check lines ($n_ok ok, $n_fail FAIL, $n_skip skip)"
	elif [ "$st" -ne 0 ] && [ $f -eq 0 ]; then
		why="exit status $st without a failed check"
	fi
	if [ -n "$why" ]; then
		f=$((f + 1))
		problems+=("$name: $why")
	fi
	total_pass=$((total_pass + p)) total_fail=$((total_fail + f)) total_skip=$((total_skip + s))
	table+=("$(printf '%-44s %4ds  %s passed, %s failed, %s skipped' "$name" "$dt" $p $f $s)")
}

# Lanes marked '&' build and run host programs only (no QEMU, nothing the
# other lanes build but aplog, built first): they run one after another
# beside the QEMU lanes, and their output is printed, and counted, before
# the first wall-clock lane (timing), which runs with nothing beside it.
make --no-print-directory build/host/aplog build/host/aplog_asan >/dev/null 2>&1
bg_dir=$(mktemp -d)
bg_names=()
for entry in "${parts[@]}"; do
	[ "${entry:0:1}" = "&" ] || continue
	bg_names+=("${entry:1}")
done
(
	i=0
	for entry in "${bg_names[@]}"; do
		i=$((i + 1))
		t0=$SECONDS
		bash -c "${entry#*|}" >"$bg_dir/$i.log" 2>&1
		echo "$? $((SECONDS - t0))" >"$bg_dir/$i.st"
	done
) &
bg_pid=$!
join_bg() {
	[ -n "$bg_pid" ] || return 0
	wait "$bg_pid"
	bg_pid=
	local i=0 entry st dt
	for entry in "${bg_names[@]}"; do
		i=$((i + 1))
		echo "=== ${entry%%|*}: ${entry#*|} (beside the QEMU lanes)"
		cat "$bg_dir/$i.log"
		read -r st dt <"$bg_dir/$i.st" || { st=1 dt=0; }
		count "${entry%%|*}" "$bg_dir/$i.log" "$st" "$dt"
	done
	rm -rf "$bg_dir"
}

for entry in "${parts[@]}"; do
	[ "${entry:0:1}" = "&" ] && continue
	name=${entry%%|*} cmd=${entry#*|}
	case $name in timing*) join_bg ;; esac
	echo "=== $name: $cmd"
	t0=$SECONDS
	log=$(mktemp)
	bash -c "$cmd" 2>&1 | tee "$log"
	count "$name" "$log" "${PIPESTATUS[0]}" $((SECONDS - t0))
	rm -f "$log"
done
join_bg
echo
echo "=== make test summary (wall time per part)"
printf '%s\n' "${table[@]}"
if [ ${#problems[@]} -gt 0 ]; then
	echo "counted as failures:"
	printf '  %s\n' "${problems[@]}"
fi
if [ ${#skips[@]} -gt 0 ]; then
	echo "skipped (not run here, and why):"
	printf '  %s\n' "${skips[@]}"
fi
echo "total time: $((SECONDS - t_all))s"
echo "$total_pass passed, $total_fail failed, $total_skip skipped"
[ $total_fail -eq 0 ]
