#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The kernel's layers point down only:
#
#   boot/ -> app/ -> smp/ -> realmode/ -> kernel/ -> lib/
#
# lib/ is the floor: pure code (formatting, order statistics, the QR
# encoder, memcpy and friends) that needs nothing of the kernel, so that
# host tools and tests can build it as it is.
# A file may include, and its object may call, only its own layer and the
# layers below it. Two checks per layer:
#   includes  every quoted #include / %include names a layer ("kernel/x.h")
#             and that layer is not above the file's own;
#   symbols   every symbol an object of the layer leaves undefined is
#             defined by an object of its own layer or one below
#             (catches a hand-written extern that skips the headers).
# A layer above may still be reached through a function pointer the upper
# layer registers (kernel/abort.h): that is the one sanctioned way up.
# And inside smp/ no circle: no two modules (x.c, y.c) include each
# other's headers.
#
#   check.sh [BUILD_DIR OBJECT...]   the objects linked into one kernel,
#       under BUILD_DIR (build/wbinvdN); without them the symbol checks
#       are skipped.
set -uo pipefail
cd "$(dirname "$0")/../.."

layers=(boot app smp realmode kernel lib)
build=${1:-}
objects=("${@:2}")
pass=0 fail=0 skip=0
ok() { pass=$((pass + 1)); echo "ok   $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1: $2"; }
skipped() { skip=$((skip + 1)); echo "skip $1: $2"; }

rank() { # layer -> position top-down, 99 for anything else
	local i
	for i in "${!layers[@]}"; do
		[ "${layers[$i]}" = "$1" ] && { echo "$i"; return; }
	done
	echo 99
}

for layer in "${layers[@]}"; do
	me=$(rank "$layer") why=""
	while IFS= read -r hit; do
		[ -n "$hit" ] || continue
		file=${hit%%:*} target=$(sed -E 's/.*include[[:space:]]+"([^"]*)".*/\1/' <<<"$hit")
		to=${target%%/*}
		if [ "$to" = "$target" ]; then
			why+="${why:+; }$file includes \"$target\" (no layer named)"
		elif [ "$(rank "$to")" = 99 ]; then
			why+="${why:+; }$file includes \"$target\" (not a layer)"
		elif [ "$(rank "$to")" -lt "$me" ]; then
			why+="${why:+; }$file includes \"$target\" ($to/ is above $layer/)"
		fi
	done < <(grep -HE '^[[:space:]]*[#%]include[[:space:]]+"' \
		"$layer"/*.c "$layer"/*.h "$layer"/*.asm "$layer"/*.inc 2>/dev/null)
	if [ -z "$why" ]; then
		ok "includes from $layer/ name a layer at or below it"
	else
		bad "includes from $layer/ name a layer at or below it" "$why"
	fi
done

# No include circle inside smp/: module x (x.c) -> y when x.c includes
# "smp/y.h" and there is a y.c; x -> y and y -> x is a circle (main had
# two: ap_entry/park, tsc_sync/wakeup). Longer loops all pass through
# smp.h, the CPU table every module reads: not counted. The test hooks
# (smp/test_hooks.[ch]) stay out of it: they call the start path to
# test it and are called from named points in it, by design.
circle_edges=$(for f in smp/*.c; do
	m=$(basename "${f%.c}")
	[ "$m" = test_hooks ] && continue
	sed -nE 's|^[[:space:]]*#include[[:space:]]+"smp/([A-Za-z0-9_]+)\.h".*|\1|p' "$f" |
		while read -r t; do
			[ "$t" != "$m" ] && [ "$t" != test_hooks ] && [ -f "smp/$t.c" ] && echo "$m $t"
		done
done | sort -u)
circle=$(awk 'NR == FNR { e[$1 " " $2] = 1; next }
	($2 " " $1) in e && $1 < $2 { print $1 " <-> " $2 }' <(echo "$circle_edges") <(echo "$circle_edges") |
	paste -sd, | sed 's/,/, /g')
if [ -z "$circle_edges" ]; then
	bad "no include circle in smp/" "no includes found (check the sed)"
elif [ -z "$circle" ]; then
	ok "no include circle in smp/ ($(wc -l <<<"$circle_edges") includes between its modules, test hooks aside)"
else
	bad "no include circle in smp/" "modules that include each other: $circle"
fi

if [ ${#objects[@]} = 0 ]; then
	for layer in "${layers[@]}"; do
		skipped "symbols used by $layer/ objects" "no objects given"
	done
else
	# symbol -> rank of the layer defining it (objects outside the layer
	# folders, such as the generated font, count as the bottom layer).
	declare -A def
	for obj in "${objects[@]}"; do
		rel=${obj#"$build"/}
		r=$(rank "${rel%%/*}")
		[ "$r" = 99 ] && r=${#layers[@]}
		while read -r sym; do def[$sym]=$r; done < <(nm --defined-only -g "$obj" | awk '{ print $3 }')
	done
	for layer in "${layers[@]}"; do
		me=$(rank "$layer") why="" n=0
		for obj in "${objects[@]}"; do
			rel=${obj#"$build"/}
			[ "${rel%%/*}" = "$layer" ] || continue
			n=$((n + 1))
			while read -r sym; do
				# Undefined everywhere: the linker script's symbols.
				[ -n "${def[$sym]:-}" ] || continue
				if [ "${def[$sym]}" -lt "$me" ]; then
					why+="${why:+; }$rel uses $sym (defined in ${layers[${def[$sym]}]}/)"
				fi
			done < <(nm -u "$obj" | awk '{ print $2 }')
		done
		if [ $n = 0 ]; then
			bad "symbols used by $layer/ objects" "none of the objects is under $build/$layer/"
		elif [ -z "$why" ]; then
			ok "symbols used by $layer/ objects are defined at or below it"
		else
			bad "symbols used by $layer/ objects are defined at or below it" "$why"
		fi
	done
fi
echo "layers: $pass passed, $fail failed, $skip skipped"
[ $fail = 0 ]
