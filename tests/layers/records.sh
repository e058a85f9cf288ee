#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The record schema against the sources that print records: every record
# format of the kernel, its wings and linux-hotplug names only records,
# keys and words lib/records.def has (tests/layers/records_lint.c), and
# the lint shown failing on planted faults. Part of make layers-tests.
#   records.sh LINT      LINT: the built build/host/records_lint
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
source tests/protocol.sh
lint=${1:-build/host/records_lint}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The writers: the kernel (core and wings) and the Linux-side tool.
mapfile -t files < <(git ls-files -- app boot smp realmode kernel lib wings tools/linux/hotplug |
	grep -E '\.(c|h|asm|inc)$')
if "$lint" "${files[@]}" >"$tmp/out" 2>&1; then
	ok "records lint: $(tail -n 1 "$tmp/out" | sed 's/^records_lint: //')"
else
	fail "records lint: every record format in the schema" "$(tail -n 1 "$tmp/out")" \
		"$(grep -v '^records_lint:' "$tmp/out" | head -20)"
fi

# plant NAME FILE SED WANT: FILE's copy edited by SED must fail the lint
# with a line matching WANT (grep -E).
plant() {
	local name=$1 file=$2 edit=$3 want=$4 copy=$tmp/$1/$2
	mkdir -p "$(dirname "$copy")"
	sed "$edit" "$file" >"$copy"
	if cmp -s "$file" "$copy"; then
		fail "planted $name is caught" "the edit did not apply to $file (update the plant)"
	elif "$lint" "$copy" >"$tmp/$name.out" 2>&1; then
		fail "planted $name is caught" "the lint passed"
	elif grep -Eq "$want" "$tmp/$name.out"; then
		ok "planted $name is caught ($(grep -Em1 "$want" "$tmp/$name.out" | sed "s|$tmp/$name/||" | cut -c1-100))"
	else
		fail "planted $name is caught" "failed, but not with /$want/" "$(cat "$tmp/$name.out")"
	fi
}
plant unknown-key smp/measure.c 's/ online=%u total_ns=%llu\\n"/ online=%u total_ns=%llu bogus=%u\\n"/' \
	"smp/measure.c:[0-9]+: @bringup: key 'bogus' is not in the schema"
plant other-variant smp/measure.c 's/op=offline ns=%llu ticks=%llu "/op=online ns=%llu ticks=%llu "/' \
	"@sample: key 'settled_ns' is not a key of op=online records"
plant unknown-warning smp/smp.c 's/what=bsp_not_in_madt/what=bsp_missing/' \
	"@warn: what=bsp_missing is not a value the schema takes"
plant unknown-record kernel/confound.c 's/"@confound /"@confounders /' \
	"record @confounders is not in the schema"
summary layers-records
