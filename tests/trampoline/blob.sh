# SPDX-License-Identifier: MIT
# shellcheck shell=bash
# Sourced: a trampoline blob's code, part by part, disassembled with each
# part's own bitness at the offsets the blob records in its header; the
# layout comes from the build that made it (gen/realmode/asm_defs.inc next
# to the blob, generated from realmode/trampoline_abi.h), never from
# constants here.
#   blob_parts BLOB OUT [i386]: ndisasm listings of OUT-entry (the 16-bit
#   code before the header), OUT-real (16-bit, after it), OUT-prot
#   (32-bit) and OUT-long (64-bit; i386: the paged 32-bit code).

# blob_def BLOB NAME: NAME's value in the blob's build.
blob_def() {
	awk -v n="$2" '$1 == "%define" && $2 == n { print $3 }' "$(dirname "$1")/gen/realmode/asm_defs.inc"
}

# blob_field BLOB NAME: the header field HDR_NAME, read with its width.
blob_field() {
	od -An -tu"$(blob_def "$1" "HDR_$2_SIZE")" -j $(($(blob_def "$1" TRAMP_HDR) + $(blob_def "$1" "HDR_$2"))) \
		-N"$(blob_def "$1" "HDR_$2_SIZE")" "$1" | tr -d ' '
}

blob_parts() {
	local bin=$1 out=$2 bits=64 hdr size c32 c64 end
	[ "${3:-}" = i386 ] && bits=32
	hdr=$(blob_def "$bin" TRAMP_HDR) size=$(blob_field "$bin" SIZE)
	c32=$(blob_field "$bin" OFF_CODE32) c64=$(blob_field "$bin" OFF_CODE64)
	end=$(blob_field "$bin" OFF_CODE_END)
	blob_part() { dd if="$bin" bs=1 skip="$1" count=$(($2 - $1)) status=none | ndisasm -b "$3" - >"$out-$4"; }
	blob_part 0 "$hdr" 16 entry
	blob_part $((hdr + size)) "$c32" 16 real
	blob_part "$c32" "$c64" 32 prot
	blob_part "$c64" "$end" $bits long
}
