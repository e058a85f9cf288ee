#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The layer check shown failing: each fault planted in a copy of the
# tree's sources, or among the kernel's objects, must make
# tests/layers/check.sh fail, naming it. Part of make layers-tests (so a
# check that stops catching a fault fails here).
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

# The objects: a core file that calls a wing's function (the screen's
# pager_run), a wing's object in the core's own link, a core object
# nothing calls. The kernel's objects are those make layers-tests built
# (build/wbinvd0, build/wbinvd0-core), seen through symbolic links, with
# the planted one compiled as the kernel is (PLANT_CC, LD_FLAGS: the
# Makefile's).
objects_from() { # MAP: the objects a kernel's link map loaded
	awk '$1 == "LOAD" && $2 ~ /\.o$/ { print $2 }' "$1"
}
plant_obj() { # NAME DIR SOURCE: DIR/NAME.o from SOURCE (C)
	rm -f "$2/$1.o" "$2/$1.d" "$2/$1.c" # links to the build's own files
	printf '%s\n' "$3" >"$2/$1.c"
	# shellcheck disable=SC2086 # PLANT_CC: the Makefile's compiler and flags
	${PLANT_CC:?PLANT_CC: how the kernel is compiled} -c -o "$2/$1.o" "$2/$1.c"
}
# catch NAME WANT CHECK-ARGS...: check.sh must fail, with WANT.
catch() {
	local name=$1 want=$2
	shift 2
	if tests/layers/check.sh "$@" >"$tmp/$name.out" 2>&1; then
		fail "planted $name is caught" "check.sh passed"
	elif grep -Eq "$want" "$tmp/$name.out"; then
		ok "planted $name is caught ($(grep -Em1 "$want" "$tmp/$name.out" | cut -c1-90)...)"
	else
		fail "planted $name is caught" "failed, but not with /$want/" "$(grep '^FAIL' "$tmp/$name.out")"
	fi
}
full=build/wbinvd0 core=build/wbinvd0-core
if [ ! -f $core/apstart.elf.map ] || [ ! -d $full/wings ]; then
	fail "planted objects" "no $full or $core/apstart.elf.map (make layers-tests builds them)"
else
	mkdir -p "$tmp/full" "$tmp/core"
	cp -as "$PWD/$full/." "$tmp/full/"
	cp -as "$PWD/$core/." "$tmp/core/"
	mapfile -t full_objs < <(objects_from $full/apstart.elf.map | sed "s|^$full/|$tmp/full/|")
	mapfile -t core_objs < <(objects_from $core/apstart.elf.map | sed "s|^$core/|$tmp/core/|")
	# shellcheck disable=SC2206 # LD_FLAGS: the Makefile's words
	link=(ld ${LD_FLAGS:?LD_FLAGS: how the kernel is linked})
	# A core file (kernel/warn.c) that calls the screen wing: the full
	# kernel's symbols, and the core's own link (undefined there: ld
	# makes its map anyway).
	plant_obj warn "$tmp/full/kernel" "$(cat kernel/warn.c)
void pager_run(int); void planted(void); void planted(void) { pager_run(1); }"
	catch wing-symbol-in-core '^FAIL symbols used by kernel/ objects .*kernel/warn.o uses pager_run \(defined in wings/screen/pager.o\)' \
		"$tmp/full" "${full_objs[@]}"
	rm "$tmp/core/kernel/warn.o"
	cp "$tmp/full/kernel/warn.o" "$tmp/core/kernel/"
	"${link[@]}" --unresolved-symbols=ignore-all -Map="$tmp/core/wing.map" -o "$tmp/core/wing.elf" \
		"${core_objs[@]}"
	catch wing-symbol-in-core-link "^FAIL the core links by itself, every object used: ld: undefined reference to .pager_run" \
		--core-map "$tmp/core/wing.map"
	ln -sf "$PWD/$core/kernel/warn.o" "$tmp/core/kernel/warn.o"
	# A wing's object in the core's link.
	mkdir -p "$tmp/core/wings/screen"
	cp "$tmp/full/wings/screen/qr.o" "$tmp/core/wings/screen/"
	"${link[@]}" -Map="$tmp/core/qr.map" -o "$tmp/core/qr.elf" "${core_objs[@]}" "$tmp/core/wings/screen/qr.o"
	catch wing-object-in-core-link '^FAIL the core alone links only core objects: in no core folder: .*wings/screen/qr.o \(wings/screen\)' \
		--core-map "$tmp/core/qr.map"
	# A core object nothing calls.
	plant_obj unused "$tmp/core/kernel" 'int planted_unused(int x); int planted_unused(int x) { return x + 1; }'
	"${link[@]}" -Map="$tmp/core/unused.map" -o "$tmp/core/unused.elf" "${core_objs[@]}" "$tmp/core/kernel/unused.o"
	catch unused-core-object '^FAIL the core links by itself, every object used: nothing of these is reached: kernel/unused.o' \
		--core-map "$tmp/core/unused.map"
fi
summary layers-planted
