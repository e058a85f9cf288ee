#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The qr lane: unit tests (plain, then ASan+UBSan), then check.py against
# python3-qrcode and zbarimg. Passes the parts' "ok"/"FAIL"/"skip" lines
# through and ends with "qr: N passed, M failed, K skipped". A part that
# dies without saying FAIL counts as one failure.
set -uo pipefail
cd "$(dirname "$0")/../.."
dir=${QRT_DIR:-build/host}
font=${QRT_FONT:-/usr/share/seabios/vgabios-stdvga.bin}
py=/usr/bin/python3 # Debian's, where python3-qrcode installs
[ -x "$py" ] || py=python3
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0
export UBSAN_OPTIONS=print_stacktrace=1

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
imgs=build/qr # rendered images; those zbarimg failed on stay here
rm -rf "$imgs" && mkdir -p "$imgs"
passed=0 failed=0 skipped=0

part() { # NAME CMD...
	local name=$1 log=$tmp/log rc
	shift
	timeout 120 "$@" >"$log" 2>&1
	rc=$?
	grep -E '^(ok   |FAIL |skip )' "$log"
	passed=$((passed + $(grep -c '^ok   ' "$log")))
	failed=$((failed + $(grep -c '^FAIL ' "$log")))
	skipped=$((skipped + $(grep -c '^skip ' "$log")))
	if [ $rc -ne 0 ] && ! grep -q '^FAIL ' "$log"; then
		echo "FAIL $name: exit status $rc"
		grep -vE '^(ok   |FAIL |skip )' "$log" | tail -20 | sed 's/^/  /'
		failed=$((failed + 1))
	elif grep -qE 'Traceback|AddressSanitizer|runtime error:' "$log"; then
		echo "FAIL $name: crash or sanitizer report"
		grep -vE '^(ok   |FAIL |skip )' "$log" | tail -20 | sed 's/^/  /'
		failed=$((failed + 1))
	fi
}

echo "--- unit (plain)"
part "unit tests" "$dir/test_qr"
echo "--- unit (ASan+UBSan)"
part "unit tests (asan)" "$dir/test_qr_asan"
echo "--- against python3-qrcode and zbarimg"
if [ ! -r "$font" ]; then
	echo "FAIL VGA font ROM $font: missing (Debian package seabios, with qemu-system-x86)"
	failed=$((failed + 1))
fi
part "check.py" "$py" tests/qr/check.py --tool "$dir/qrtool" --tool-asan "$dir/qrtool_asan" \
	--font "$font" --tmp "$imgs"
echo "qr: $passed passed, $failed failed, $skipped skipped"
[ $failed -eq 0 ]
