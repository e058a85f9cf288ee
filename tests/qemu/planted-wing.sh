#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# CONTRIBUTING.md's "Adding a wing", walked through: in a copy of the tree
# (the built kernels' objects copied with it, so that only what the wing
# changes is built), a wing with an option and a step is added by the
# recipe's steps alone; the layer check takes it, the kernel builds and
# links it and says so in @env wings=, its option works, and the core
# alone names the option as the wing's.
#
#   tests/qemu/planted-wing.sh       after make qemu-tests' builds
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
# shellcheck source=tests/protocol.sh
. tests/protocol.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
copy=$tmp/tree
out=build/test-logs/planted-wing
mkdir -p "$copy/build/host" "$out"
rm -f "$out"/*.log

# The tree as it is (with files not yet committed), timestamps kept.
git ls-files -co --exclude-standard -z | xargs -0 cp -p --parents -t "$copy" 2>/dev/null
for d in wbinvd0 wbinvd0-core gen; do
	[ -d "build/$d" ] && cp -a "build/$d" "$copy/build/"
done
cp -a build/host/mkfont build/host/mkfont.vars "$copy/build/host/" 2>/dev/null

# The recipe. 1: the wing's folder, one struct wing with its option and
# a step.
mkdir -p "$copy/wings/planted"
cat >"$copy/wings/planted/planted.c" <<'EOF'
/* SPDX-License-Identifier: MIT */
/* A wing planted by tests/qemu/planted-wing.sh. */
#include "app/wing.h"
#include "kernel/console.h"

static struct planted_options {
	uint32_t planted_knob;
} opt;

static const struct option_row option_rows[] = {
	OPTION_ROW(struct planted_options, planted_knob, 1, .min = 1, .max = 9),
};

static void say(const struct options *o, const struct run_facts *facts)
{
	(void)o;
	kprintf("planted: knob=%u of %u CPUs\n", opt.planted_knob, facts->cpus);
}

WING(planted) = {
	.name = "planted",
	.options = WING_OPTIONS(option_rows, &opt),
	.run_starts = say,
};
EOF
# 2: its line in docs/layout.md's table; 3: its name in wings/wings.list.
sed -i 's|^    wings/efi  |    wings/planted        wing   core\n&|' "$copy/docs/layout.md"
echo planted >>"$copy/wings/wings.list"

if tests/layers/check.sh --root "$copy" >"$out/layers.log" 2>&1 &&
	grep -q '^ok   includes from wings/planted/ follow its rule' "$out/layers.log"; then
	ok "planted wing: the layer check takes it (its line in docs/layout.md)"
else
	fail "planted wing: the layer check takes it" "see $out/layers.log" "$(grep '^FAIL' "$out/layers.log")"
fi

# make builds and links it by default; the core alone does not.
boot() { # NAME KERNEL ARGS...: boots, the log (CR LF as LF) in $out/NAME.log
	local name=$1 kernel=$2 st
	shift 2
	tools/run/qemu-run.sh --kernel "$kernel" --smp 2 --accel tcg --timeout 60 -- "$@" \
		>"$out/$name.raw" 2>&1
	st=$?
	tr -d '\r' <"$out/$name.raw" >"$out/$name.log"
	return $st
}
if ! make -C "$copy" --no-print-directory variant >"$out/build.log" 2>&1; then
	fail "planted wing: make builds and links it" "see $out/build.log" "$(tail -n 5 "$out/build.log")"
elif ! boot full "$copy/build/wbinvd0/apstart.elf" cycles=1 planted_knob=7; then
	fail "planted wing: the kernel runs with it" "see $out/full.log" "$(tail -n 5 "$out/full.log")"
elif grep -q "^@env .* wings=$(sed 's/#.*//' "$copy/wings/wings.list" | xargs | tr ' ' ,)\$" "$out/full.log" &&
	grep -q '^@env .* wings=.*,planted$' "$out/full.log" &&
	grep -q '^planted: knob=7 of 2 CPUs$' "$out/full.log"; then
	ok "planted wing: make builds and links it, @env wings= names it, planted_knob=7 reaches it"
else
	fail "planted wing: @env wings= names it, its option reaches it" "see $out/full.log" \
		"$(grep -E '^@env|^planted|cmdline' "$out/full.log")"
fi
if ! make -C "$copy" --no-print-directory WINGS= variant >"$out/build-core.log" 2>&1; then
	fail "planted wing: the core alone builds" "see $out/build-core.log" "$(tail -n 5 "$out/build-core.log")"
elif boot core "$copy/build/wbinvd0-core/apstart.elf" cycles=1 planted_knob=7 &&
	grep -q '^cmdline: planted_knob= belongs to the planted wing, not linked in this kernel; ignored$' "$out/core.log" &&
	grep -q '^@warn what=option problem=no_wing option=planted_knob wing=planted$' "$out/core.log" &&
	! grep -q '^planted:' "$out/core.log"; then
	ok "planted wing: the core alone names planted_knob= as the planted wing's"
else
	fail "planted wing: the core alone names planted_knob= as the planted wing's" "see $out/core.log" \
		"$(grep -E '^@env|^planted|cmdline' "$out/core.log")"
fi
summary planted-wing
