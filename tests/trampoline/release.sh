#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# make RELEASE=1 compiles the AP path's test instrumentation to nothing
# (smp/instrument.h, realmode/instrument.inc): shown on what was built,
# never on the source.
#   release.sh [--arch i386] RELEASE_DIR DEFAULT_DIR SLOWED_DIR PADDED_DIR
# The directories are builds of one ARCH: RELEASE=1, the default, and
# (for the blob's negative controls) SLOW_TRAMP_NS=N and PAD_REAL, PAD_PROT,
# PAD_LONG builds, of which only trampoline.bin is read.
#
# 1. Symbols: every symbol the default build's instrumentation objects
#    define for other objects (smp/instrument.o; wings/selftest/*.o, the
#    wing whose points the release compiles out, and its struct wing) is
#    absent from the release kernel's symbol
#    table. The kernel is a static link that left nothing undefined, so no
#    object linked into it refers to one either. The same look at the
#    default kernel must find them (the check can fail).
# 2. The blob: the release trampoline's code (each part with its own
#    bitness, tests/trampoline/blob.sh) holds no instruction of the
#    instrumentation: no NOP (INSTRUMENT_PAD), no PAUSE and no read of
#    TRAMP_SLOW_TICKS_AT (INSTRUMENT_SLOW_SPIN); and it is the default
#    build's blob byte for byte. The same look must fail on the slowed
#    blob and on the padded one.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
arch=
if [ "${1:-}" = --arch ]; then arch=$2; shift 2; fi
rel=$1 def=$2 slow=$3 pad=$4
# shellcheck source=tests/protocol.sh
. tests/protocol.sh
# shellcheck source=tests/trampoline/blob.sh
. tests/trampoline/blob.sh
lane="release ${arch:-x86_64}"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
for f in "$rel/apstart.elf" "$def/apstart.elf" "$def/smp/instrument.o" "$rel/trampoline.bin" \
	"$def/trampoline.bin" "$slow/trampoline.bin" "$pad/trampoline.bin"; do
	[ -f "$f" ] || { fail "$f exists" "missing (make first)"; summary "$lane"; exit 1; }
done

# ---- 1. symbols
# The instrumentation's symbols: what its objects define for others (a
# static is theirs alone; its name may be any file's), and the wing's
# struct wing, which links it into the run.
nm --defined-only "$def/smp/instrument.o" "$def"/wings/selftest/*.o |
	awk 'NF == 3 && ($2 ~ /^[A-Z]$/ || $3 ~ /^wing_/) { print $3 }' | sort -u >"$tmp/instr"
found() { # ELF -> the instrumentation symbols its symbol table holds
	nm "$1" | awk 'NF == 3 { print $3 }' | sort -u | comm -12 - "$tmp/instr"
}
n=$(wc -l <"$tmp/instr")
in_def=$(found "$def/apstart.elf" | wc -l)
if [ "$n" -gt 0 ] && [ "$in_def" = "$n" ]; then
	ok "the check sees the instrumentation in the default kernel: all $n symbols of smp/instrument.o and wings/selftest/ ($(paste -sd' ' "$tmp/instr" | cut -c1-80)...)"
else
	fail "the check sees the instrumentation in the default kernel" \
		"$in_def of $n symbols found in $def/apstart.elf: the check could not fail"
fi
left=$(found "$rel/apstart.elf")
if [ -z "$left" ]; then
	ok "$rel/apstart.elf defines and references none of them"
else
	fail "$rel/apstart.elf defines and references none of them" "it has: $(paste -sd' ' <<<"$left")"
fi
if nm -u "$rel/apstart.elf" | grep -q .; then
	fail "$rel/apstart.elf: a static link with nothing undefined" "undefined: $(nm -u "$rel/apstart.elf" | paste -sd' ')"
else
	ok "$rel/apstart.elf: a static link with nothing undefined (so no object in it refers to them)"
fi

# ---- 2. the blob
ticks=$(printf '0x%x' "$(blob_def "$rel/trampoline.bin" TRAMP_SLOW_TICKS_AT)")
instrumented() { # BLOB -> what of the instrumentation its code holds, or nothing
	blob_parts "$1" "$tmp/parts" "$arch"
	cat "$tmp"/parts-* | awk -v t="$ticks" '
		$3 == "nop" { nops++ } $3 == "pause" { pauses++ } index($0, t) { reads++ }
		END { if (nops) printf "%d nop ", nops; if (pauses) printf "%d pause ", pauses
		      if (reads) printf "%d read(s) of %s", reads, t }'
}
for b in "$slow" "$pad"; do
	what=$(instrumented "$b/trampoline.bin")
	if [ -n "$what" ]; then
		ok "the check sees the instrumentation in $b/trampoline.bin: $what"
	else
		fail "the check sees the instrumentation in $b/trampoline.bin" "it found none: the check could not fail"
	fi
done
what=$(instrumented "$rel/trampoline.bin")
if [ -z "$what" ]; then
	ok "$rel/trampoline.bin: no nop, no pause, no read of $ticks in its code"
else
	fail "$rel/trampoline.bin: no instrumentation in its code" "it holds $what"
fi
if cmp -s "$rel/trampoline.bin" "$def/trampoline.bin"; then
	ok "$rel/trampoline.bin is $def/trampoline.bin byte for byte ($(stat -c %s "$rel/trampoline.bin") bytes)"
else
	fail "$rel/trampoline.bin is $def/trampoline.bin byte for byte" "they differ"
fi
summary "$lane"
