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
[ -f "$bin" ] || { echo "trampoline-check: missing $bin" >&2; exit 1; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

defs=$(dirname "$bin")/gen/realmode/asm_defs.inc
[ -f "$defs" ] || { echo "trampoline-check: missing $defs (built with $bin)" >&2; exit 1; }
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
[ "$magic" = "$(def TRAMP_MAGIC)" ] || { echo "trampoline-check: $bin: no APST header at $HDR" >&2; exit 1; }
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

fail=0
count() { grep -Ec "[[:space:]]$1([[:space:]]|\$)" "$2" || true; }
expect_has() { # sanity: the split put the right code in each part
	grep -Eq "$1" "$2" || { echo "trampoline-check: $3 part lacks '$1': offsets wrong?"; fail=1; }
}
expect_has 'lgdt' "$tmp/16.txt" 16-bit
expect_has 'mov cr0,eax' "$tmp/32.txt" 32-bit
expect_has 'cpuid' "$tmp/64.txt" 64-bit

wb=0 inv=0
for part in 16 32 64; do
	wb=$((wb + $(count wbinvd "$tmp/$part.txt")))
	inv=$((inv + $(count invd "$tmp/$part.txt")))
done
first=$(head -n1 "$tmp/16.txt" | awk '{print $3}')
second=$(sed -n 2p "$tmp/16.txt" | awk '{print $3}')
[ "$first" = cli ] || { echo "trampoline-check: first instruction is '$first', not cli"; fail=1; }

if [ "$want" = 1 ]; then
	[ "$wb" = 1 ] || { echo "trampoline-check: $bin has $wb WBINVD, want exactly 1"; fail=1; }
	[ "$second" = wbinvd ] || { echo "trampoline-check: WBINVD is not right after cli"; fail=1; }
else
	[ "$wb" = 0 ] || { echo "trampoline-check: $bin has $wb WBINVD, want none"; fail=1; }
fi
[ "$inv" = 0 ] || { echo "trampoline-check: $bin has $inv INVD, want none"; fail=1; }

if [ -n "$elf" ]; then
	# Virtual address of trampoline_blob -> file offset through the one
	# PT_LOAD segment (linker.ld lays the file out as memory).
	addr=$(nm "$elf" | awk '$3 == "trampoline_blob" { print $1 }')
	read -r off vaddr < <(readelf -lW "$elf" | awk '$1 == "LOAD" { print $2, $3; exit }')
	if [ -z "$addr" ] || [ -z "$off" ]; then
		echo "trampoline-check: $elf: no trampoline_blob symbol or LOAD segment"; fail=1
	else
		foff=$(( 0x$addr - vaddr + off ))
		size=$(stat -c %s "$bin")
		dd if="$elf" of="$tmp/embedded" bs=1 skip=$foff count="$size" status=none
		if cmp -s "$tmp/embedded" "$bin"; then
			embedded=", embedded in $elf"
		else
			echo "trampoline-check: $elf does not embed $bin"; fail=1
		fi
	fi
fi

if [ $fail = 0 ]; then
	echo "trampoline-check: $bin: WBINVD=$want ok ($wb wbinvd, $inv invd; 16-bit $((code32 - hdr_size))B, 32-bit $((code64 - code32))B, 64-bit $((code_end - code64))B${embedded:-})"
fi
exit $fail
