#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Prove what the built trampoline contains: disassemble each part with its
# own bitness (16-bit real mode, 32-bit protected mode, 64-bit long mode,
# as delimited by the offsets the blob records in its header) and count
# WBINVD/INVD. WBINVD=1 must have exactly one WBINVD, as the first
# instruction after CLI; WBINVD=0 must have neither.
# With a kernel ELF as third argument, also check that the kernel embeds
# exactly these bytes (what runs is what was disassembled).
# The header's offsets and widths come from the build that made the blob
# (gen/realmode/asm_defs.inc next to it, generated from
# realmode/trampoline_abi.h), never from constants here.
#   check.sh TRAMPOLINE.bin EXPECTED_WBINVD(0|1) [KERNEL.elf]
set -euo pipefail

bin=$1 want=$2 elf=${3:-}
lane="trampoline WBINVD=$want"
# shellcheck source=tests/protocol.sh
. "$(dirname "$0")/../protocol.sh"
[ -f "$bin" ] || { fail "$bin exists" "missing (make first)"; summary "$lane"; exit 1; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

defs=$(dirname "$bin")/gen/realmode/asm_defs.inc
[ -f "$defs" ] || { fail "$defs exists (built with $bin)" "missing"; summary "$lane"; exit 1; }
def() { # NAME -> its value in the build's %defines
	local v
	v=$(awk -v n="$1" '$1 == "%define" && $2 == n { print $3 }' "$defs")
	[ -n "$v" ] || { echo "trampoline-check: $defs defines no $1" >&2; exit 1; }
	echo "$v"
}
HDR=$(def TRAMP_HDR)
field() { # header field NAME -> its value in the blob, read with its width
	local off size
	off=$(def "HDR_$1") size=$(def "HDR_$1_SIZE") || exit 1
	od -An -tu"$size" -j $((HDR + off)) -N"$size" "$bin" | tr -d ' '
}

magic=$(field MAGIC)
[ "$magic" = "$(def TRAMP_MAGIC)" ] || { fail "$bin has its APST header at $HDR" "magic $magic"; summary "$lane"; exit 1; }
hdr_size=$(field SIZE)
code32=$(field OFF_CODE32)
code64=$(field OFF_CODE64)
code_end=$(field OFF_CODE_END)

cut() { dd if="$bin" of="$tmp/$3" bs=1 skip="$1" count=$(($2 - $1)) status=none; }
cut 0 $HDR r16a
cut $((HDR + hdr_size)) "$code32" r16b
cut "$code32" "$code64" p32
cut "$code64" "$code_end" l64
{
	ndisasm -b 16 "$tmp/r16a"
	ndisasm -b 16 "$tmp/r16b"
} >"$tmp/16.txt"
ndisasm -b 32 "$tmp/p32" >"$tmp/32.txt"
ndisasm -b 64 "$tmp/l64" >"$tmp/64.txt"

count() { grep -Ec "[[:space:]]$1([[:space:]]|\$)" "$2" || true; }
# sanity: the split put the right code in each part
split_ok=1
for want_part in 'lgdt|16' 'cpuid|32' 'call rax|64'; do
	grep -Eq "${want_part%|*}" "$tmp/${want_part#*|}.txt" || split_ok=0
done
if [ $split_ok = 1 ]; then
	ok "$bin split at its header offsets: lgdt in 16-bit, cpuid in 32-bit, call rax in 64-bit code (16-bit $((code32 - hdr_size))B, 32-bit $((code64 - code32))B, 64-bit $((code_end - code64))B)"
else
	fail "$bin split at its header offsets" "a part lacks its marker instruction: offsets wrong?"
fi

wb=0 inv=0
for part in 16 32 64; do
	wb=$((wb + $(count wbinvd "$tmp/$part.txt")))
	inv=$((inv + $(count invd "$tmp/$part.txt")))
done
first=$(head -n1 "$tmp/16.txt" | awk '{print $3}')
second=$(sed -n 2p "$tmp/16.txt" | awk '{print $3}')
if [ "$first" = cli ]; then ok "$bin starts with cli"; else fail "$bin starts with cli" "first instruction is '$first'"; fi

if [ "$want" = 1 ]; then
	if [ "$wb" = 1 ]; then ok "$bin has exactly one wbinvd"; else fail "$bin has exactly one wbinvd" "it has $wb"; fi
	if [ "$second" = wbinvd ]; then ok "$bin: wbinvd right after cli"; else fail "$bin: wbinvd right after cli" "second instruction is '$second'"; fi
else
	if [ "$wb" = 0 ]; then ok "$bin has no wbinvd"; else fail "$bin has no wbinvd" "it has $wb"; fi
fi
if [ "$inv" = 0 ]; then ok "$bin has no invd"; else fail "$bin has no invd" "it has $inv"; fi

if [ -n "$elf" ]; then
	# Virtual address of trampoline_blob -> file offset through the one
	# PT_LOAD segment (linker.ld lays the file out as memory).
	addr=$(nm "$elf" | awk '$3 == "trampoline_blob" { print $1 }')
	read -r off vaddr < <(readelf -lW "$elf" | awk '$1 == "LOAD" { print $2, $3; exit }')
	if [ -z "$addr" ] || [ -z "$off" ]; then
		fail "$elf embeds $bin" "no trampoline_blob symbol or LOAD segment"
	else
		foff=$(( 0x$addr - vaddr + off ))
		size=$(stat -c %s "$bin")
		dd if="$elf" of="$tmp/embedded" bs=1 skip=$foff count="$size" status=none
		if cmp -s "$tmp/embedded" "$bin"; then
			ok "$elf embeds $bin byte for byte"
		else
			fail "$elf embeds $bin" "the bytes at trampoline_blob differ"
		fi
	fi
fi
summary "$lane"
