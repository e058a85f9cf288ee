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
# --arch i386: the blob of realmode/trampoline_32.asm, whose third part is
# 32-bit paged code, and whose start follows Linux's trampoline_32.S:
# [wbinvd,] the far jump that reloads CS, mov ax,cs, mov ds,ax, cli.
#   check.sh [--arch x86_64|i386] TRAMPOLINE.bin EXPECTED_WBINVD(0|1) [KERNEL.elf]
set -euo pipefail

arch=x86_64
if [ "${1:-}" = --arch ]; then arch=$2; shift 2; fi
case $arch in x86_64|i386) ;; *) echo "check.sh: --arch x86_64|i386, not '$arch'" >&2; exit 2 ;; esac
bin=$1 want=$2 elf=${3:-}
lane="trampoline WBINVD=$want"
[ "$arch" = i386 ] && lane="trampoline i386 WBINVD=$want"
# shellcheck source=tests/protocol.sh
. "$(dirname "$0")/../protocol.sh"
[ -f "$bin" ] || { fail "$bin exists" "missing (make first)"; summary "$lane"; exit 1; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

defs=$(dirname "$bin")/gen/realmode/asm_defs.inc
[ -f "$defs" ] || { fail "$defs exists (built with $bin)" "missing"; summary "$lane"; exit 1; }
def() { # NAME -> its value in the build's %defines
	local v
	v=$(awk -v n="$1" '$1 == "%define" && $2 == n { print $3 }' "$defs")
	[ -n "$v" ] || { echo "trampoline-tests: $defs defines no $1" >&2; exit 1; }
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
ndisasm -b 16 "$tmp/r16b" >"$tmp/r16b.txt"
{
	ndisasm -b 16 "$tmp/r16a"
	cat "$tmp/r16b.txt"
} >"$tmp/16.txt"
ndisasm -b 32 "$tmp/p32" >"$tmp/32.txt"
if [ "$arch" = i386 ]; then
	ndisasm -b 32 "$tmp/l64" >"$tmp/64.txt"   # the paged 32-bit part
	third="32-bit paged" call=eax
else
	ndisasm -b 64 "$tmp/l64" >"$tmp/64.txt"
	third="64-bit" call=rax
fi

count() { grep -Ec "[[:space:]]$1([[:space:]]|\$)" "$2" || true; }
# sanity: the split put the right code in each part
split_ok=1
# (the APIC ID is read, by cpuid on its fallback path, before paging)
for want_part in 'lgdt|16' 'cpuid|32' "call $call|64"; do
	grep -Eq "${want_part%|*}" "$tmp/${want_part#*|}.txt" || split_ok=0
done
if [ $split_ok = 1 ]; then
	ok "$bin split at its header offsets: lgdt in 16-bit, cpuid in 32-bit, call $call in $third code (16-bit $((code32 - hdr_size))B, 32-bit $((code64 - code32))B, $third $((code_end - code64))B)"
else
	fail "$bin split at its header offsets" "a part lacks its marker instruction: offsets wrong?"
fi

wb=0 inv=0
for part in 16 32 64; do
	wb=$((wb + $(count wbinvd "$tmp/$part.txt")))
	inv=$((inv + $(count invd "$tmp/$part.txt")))
done
insn() { # LINE FILE -> that instruction's text (mnemonic and operands)
	sed -n "$1p" "$2" | awk '{ $1 = ""; $2 = ""; sub(/^ +/, ""); print }'
}
if [ "$arch" = i386 ]; then
	# Linux's trampoline_32.S order. The far jump reads the header's
	# far64 pair through CS; its offset must be the code right after the
	# header, where mov ax,cs; mov ds,ax; cli follow.
	far_line=1
	if [ "$want" = 1 ]; then
		if [ "$(insn 1 "$tmp/16.txt")" = wbinvd ]; then ok "$bin starts with wbinvd (as Linux's trampoline_32)"
		else fail "$bin starts with wbinvd" "first instruction is '$(insn 1 "$tmp/16.txt")'"; fi
		far_line=2
	fi
	far=$(insn $far_line "$tmp/16.txt")
	far_hdr=$(printf 'jmp dword far [cs:0x%x]' $((HDR + $(def HDR_FAR64_OFFSET))))
	if [ "$far" = "$far_hdr" ]; then ok "$bin: then the far jump that reloads CS ($far)"
	else fail "$bin: then the far jump that reloads CS" "instruction $far_line is '$far', not '$far_hdr'"; fi
	target=$(field FAR64_OFFSET)
	if [ "$target" = $((HDR + hdr_size)) ]; then ok "$bin: the far jump lands right after the header (0x$(printf %x "$target"))"
	else fail "$bin: the far jump lands right after the header" "its offset is $target, the code starts at $((HDR + hdr_size))"; fi
	after=$(for n in 1 2 3; do insn $n "$tmp/r16b.txt"; done | paste -sd';')
	if [ "$after" = "mov ax,cs;mov ds,ax;cli" ]; then ok "$bin: there mov ax,cs; mov ds,ax; cli"
	else fail "$bin: there mov ax,cs; mov ds,ax; cli" "found '$after'"; fi
	if grep -q 'lmsw' "$tmp/16.txt" && [ "$(grep -A1 lmsw "$tmp/16.txt" | tail -n1 | awk '{print $3}')" = jmp ]; then
		ok "$bin: lmsw (PE), then the far jump into 32-bit code"
	else
		fail "$bin: lmsw (PE), then the far jump into 32-bit code" "no lmsw followed by jmp"
	fi
	# Long mode needs EFER.LME (MSR 0xC0000080, SDM Vol. 3A §10.8.5).
	if grep -qi 'ecx,0xc0000080' "$tmp/16.txt" "$tmp/32.txt" "$tmp/64.txt"; then
		fail "$bin: no long mode" "it loads ECX with IA32_EFER"
	else
		ok "$bin: no long mode (IA32_EFER never addressed)"
	fi
else
	first=$(head -n1 "$tmp/16.txt" | awk '{print $3}')
	second=$(sed -n 2p "$tmp/16.txt" | awk '{print $3}')
	if [ "$first" = cli ]; then ok "$bin starts with cli"; else fail "$bin starts with cli" "first instruction is '$first'"; fi
	if [ "$want" = 1 ]; then
		if [ "$second" = wbinvd ]; then ok "$bin: wbinvd right after cli"; else fail "$bin: wbinvd right after cli" "second instruction is '$second'"; fi
	fi
fi
if [ "$want" = 1 ]; then
	if [ "$wb" = 1 ]; then ok "$bin has exactly one wbinvd"; else fail "$bin has exactly one wbinvd" "it has $wb"; fi
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
