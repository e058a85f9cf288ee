#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# make test: every part, its time, and one closing line summing the
# parts' own "N passed, M failed[, K skipped]" counts. A part that fails
# without printing counts is one failure.
set -uo pipefail
cd "$(dirname "$0")/.."

parts=(
	"unit tests (host, plain + ASan/UBSan)|make --no-print-directory unit-tests"
	"framebuffer console (host)|make --no-print-directory fbcon-tests"
	"USB writer refusals (fake sysfs, loop device)|make --no-print-directory usb-tests"
	"log analyzer aplog (plain + ASan/UBSan)|make --no-print-directory aplog-tests"
	"kernel layers point down (includes, symbols)|make --no-print-directory layers-check"
	"linux-hotplug (fake sysfs, failing writes, signals, Linux VM)|make --no-print-directory linux-hotplug-tests"
	"QR encoder (host; python3-qrcode, zbarimg)|make --no-print-directory qr-tests"
	"trampoline content (ndisasm)|make --no-print-directory trampoline-check"
	"QEMU matrix|make --no-print-directory qemu-tests"
	"timing regression (icount baselines, wall-clock A/B, slowed build)|make --no-print-directory timing-tests"
	"ISO image + BIOS/UEFI x CD/USB boots|make --no-print-directory iso-tests"
	"flush cost model (QEMU TCG plugin, wall clock)|make --no-print-directory flushmodel-tests"
)
total_pass=0 total_fail=0 total_skip=0 t_all=$SECONDS
summary=()
mkdir -p build
for entry in "${parts[@]}"; do
	name=${entry%%|*} cmd=${entry#*|}
	echo "=== $name: $cmd"
	t0=$SECONDS
	log=$(mktemp)
	bash -c "$cmd" 2>&1 | tee "$log"
	st=${PIPESTATUS[0]}
	p=0 f=0 k=0 counted=0
	while read -r np nf nk; do
		p=$((p + np)); f=$((f + nf)); k=$((k + ${nk:-0})); counted=1
	done < <(grep -aoE '^([A-Za-z0-9 ()+/_-]*: )?[0-9]+ passed, [0-9]+ failed(, [0-9]+ skipped)?' "$log" |
		sed -E 's/.*([^0-9]|^)([0-9]+) passed, ([0-9]+) failed(, ([0-9]+) skipped)?/\2 \3 \5/')
	# trampoline-check prints one "ok" line per variant.
	if [ $counted = 0 ]; then
		n_ok=$(grep -c ': WBINVD=[01] ok' "$log" || true)
		if [ $st -eq 0 ] && [ "$n_ok" -gt 0 ]; then p=$n_ok; elif [ $st -ne 0 ]; then f=1; fi
	fi
	[ $st -ne 0 ] && [ $f -eq 0 ] && f=1
	rm -f "$log"
	total_pass=$((total_pass + p)); total_fail=$((total_fail + f)); total_skip=$((total_skip + k))
	summary+=("$(printf '%-42s %4ds  %s passed, %s failed%s' "$name" $((SECONDS - t0)) $p $f \
		"$([ $k -gt 0 ] && echo ", $k skipped")")")
done
echo
echo "=== make test summary (wall time per part)"
printf '%s\n' "${summary[@]}"
echo "total time: $((SECONDS - t_all))s"
echo "$total_pass passed, $total_fail failed, $total_skip skipped"
[ $total_fail -eq 0 ]
