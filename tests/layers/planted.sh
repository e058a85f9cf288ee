#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The layer check shown failing: each fault planted in a copy of the
# tree's sources must make tests/layers/check.sh fail, naming it. Part of
# make layers-tests (so a check that stops catching a fault fails here).
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
source tests/protocol.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# plant NAME FILE LINE WANT: FILE gets LINE appended in a fresh copy;
# check.sh must fail with a line matching WANT (grep -E).
plant() {
	local name=$1 file=$2 line=$3 want=$4 copy=$tmp/$1
	mkdir -p "$copy"
	git ls-files -z -- '*.c' '*.h' '*.asm' '*.inc' docs/layout.md |
		xargs -0 cp --parents -t "$copy"
	mkdir -p "$copy/$(dirname "$file")"
	printf '%s\n' "$line" >>"$copy/$file"
	if tests/layers/check.sh --root "$copy" >"$tmp/$name.out" 2>&1; then
		fail "planted $name is caught" "check.sh passed with $file: $line"
	elif grep -Eq "$want" "$tmp/$name.out"; then
		ok "planted $name is caught ($(grep -Em1 "$want" "$tmp/$name.out" | cut -c1-90)...)"
	else
		fail "planted $name is caught" "failed, but not with /$want/" "$(grep '^FAIL' "$tmp/$name.out")"
	fi
}
plant upward-include smp/sipi.c '#include "app/run.h"' \
	'^FAIL includes from smp/ .*smp/sipi.c includes "app/run.h" \(app/ is above smp/\)'
plant core-includes-wing kernel/console.c '#include "wings/screen/screen.h"' \
	'^FAIL includes from kernel/ .*\(the core includes no wing\)'
plant wing-to-wing wings/nvram/nvram_save.c '#include "wings/screen/screen.h"' \
	'^FAIL includes from wings/nvram/ .*may use: core'
plant circle kernel/serial.c '#include "kernel/console.h"' \
	'^FAIL no circle among the modules: .*kernel/console -> kernel/serial.*kernel/serial -> kernel/console'
plant folder-without-rule tools/newtool/x.c '#include "lib/format.h"' \
	'^FAIL every folder with C or assembly is a part .*tools/newtool'
summary layers-planted
