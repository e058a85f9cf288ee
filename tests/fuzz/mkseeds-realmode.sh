#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Writes the seeds of the lrm and realmode_scan fuzz targets into
# tests/fuzz/corpus/ (committed; rerun only to change them), from the
# synthetic blobs of tests/unit/lrm_fixture.c (not Linux's code):
#   lrm/           LRM files (6.1 as shipped, its twin, i386), and a blob
#                  with its relocations in the target's split form
#   realmode_scan/ a vmlinux (i386) and a gzip bzImage (6.1) around them
# Needs make build/host/aprealmode build/host/lrm_mkfixture.
set -euo pipefail
cd "$(dirname "$0")/../.."
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
c=tests/fuzz/corpus
mkdir -p "$c/lrm" "$c/realmode_scan"
for l in 6.1 i386; do
	mkdir -p "$t/$l/arch/x86/realmode/rm"
	build/host/lrm_mkfixture "$l" shipped "$t/$l/arch/x86/realmode/rm"
done
build/host/aprealmode "$t/6.1" --version "Linux version seed" -o "$c/lrm/linux-6.1" --twin "$c/lrm/linux-6.1-twin" >/dev/null
build/host/aprealmode "$t/i386" --version "Linux version seed" -o "$c/lrm/linux-6.1-i386" >/dev/null
# The split: one byte (the relocations' entries), the blob, the relocations.
rm=$t/i386/arch/x86/realmode/rm
n=$((($(stat -c %s "$rm/realmode.relocs") - 8) / 4))
{ printf '%b' "\\x$(printf %02x "$n")"; cat "$rm/realmode.bin" "$rm/realmode.relocs"; } >"$c/lrm/split-i386"
python3 tests/realmode/mkimage.py vmlinux 32 3 "$rm/realmode.bin" "$rm/realmode.relocs" "Linux version seed" "$c/realmode_scan/vmlinux-i386"
rm=$t/6.1/arch/x86/realmode/rm
python3 tests/realmode/mkimage.py vmlinux 64 62 "$rm/realmode.bin" "$rm/realmode.relocs" "Linux version seed" "$t/vmlinux"
python3 tests/realmode/mkimage.py bzimage "$t/vmlinux" gzip "$c/realmode_scan/bzImage-gzip"
ls -l "$c/lrm" "$c/realmode_scan"
