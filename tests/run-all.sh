#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# make test: every lane, its time, and one closing line summing the lanes'
# own counts. Every lane follows the test protocol (tests/protocol.sh):
# one line per check ("ok   NAME", "FAIL NAME: WHY", "skip NAME: REASON")
# and a last line "LANE: N passed, M failed, K skipped". This script adds
# up the last lines, checks them against the check lines, names every
# skip with its reason, and counts as one failure a lane that exits
# non-zero without a failed check, prints no summary, or miscounts.
set -uo pipefail
cd "$(dirname "$0")/.."

parts=(
	"unit tests (host, plain + ASan/UBSan)|make --no-print-directory unit-tests"
	"framebuffer console (host)|make --no-print-directory fbcon-tests"
	"USB writer (fake sysfs, loop device)|make --no-print-directory usb-tests"
	"log analyzer aplog (plain + ASan/UBSan)|make --no-print-directory aplog-tests"
	"developer tools (runners, make help/debug)|make --no-print-directory tools-tests"
	"docs: front page, links, package lines, its commands run|make --no-print-directory docs-tests"
	"parsers under libFuzzer, 3 s each from the seeds|make --no-print-directory fuzz-smoke"
	"kernel layers point down (includes, symbols)|make --no-print-directory layers-check"
	"linux-hotplug (fake sysfs, signals, Linux VM)|make --no-print-directory linux-hotplug-tests"
	"QR encoder (host; python3-qrcode, zbarimg)|make --no-print-directory qr-tests"
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
for entry in "${parts[@]}"; do
	name=${entry%%|*} cmd=${entry#*|}
	echo "=== $name: $cmd"
	t0=$SECONDS
	log=$(mktemp)
	bash -c "$cmd" 2>&1 | tee "$log"
	st=${PIPESTATUS[0]}
	p=0 f=0 s=0 lanes=0
	while IFS= read -r line; do
		[[ $line =~ $summary_re ]] || continue
		p=$((p + BASH_REMATCH[2])) f=$((f + BASH_REMATCH[3])) s=$((s + ${BASH_REMATCH[5]:-0}))
		lanes=$((lanes + 1))
	done < <(tr -d '\r' <"$log")
	n_ok=$(grep -ac '^ok   ' "$log")
	n_fail=$(grep -ac '^FAIL ' "$log")
	n_skip=$(grep -ac '^skip ' "$log")
	while IFS= read -r line; do
		skips+=("$name: ${line#skip }")
	done < <(grep -a '^skip ' "$log")
	why=
	if [ $lanes = 0 ]; then
		why="printed no 'N passed, M failed, K skipped' line (exit status $st)"
	elif [ "$n_ok $n_fail $n_skip" != "$p $f $s" ]; then
		why="its counts ($p passed, $f failed, $s skipped) do not match its check lines ($n_ok ok, $n_fail FAIL, $n_skip skip)"
	elif [ $st -ne 0 ] && [ $f -eq 0 ]; then
		why="exit status $st without a failed check"
	fi
	if [ -n "$why" ]; then
		f=$((f + 1))
		problems+=("$name: $why")
	fi
	rm -f "$log"
	total_pass=$((total_pass + p)) total_fail=$((total_fail + f)) total_skip=$((total_skip + s))
	table+=("$(printf '%-44s %4ds  %s passed, %s failed, %s skipped' "$name" $((SECONDS - t0)) $p $f $s)")
done
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
