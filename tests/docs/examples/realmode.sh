#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# aprealmode's output for docs/linux-trampoline.md, on a synthetic blob
# (tests/unit/lrm_fixture.c: the shape of Debian 12's 6.1 amd64 blob,
# not Linux's code) so that the docs lane needs no download:
#   realmode.sh tree       a build tree: the blob, the LRM file, its twin
#   realmode.sh image      the same blob in a bzImage (zstd payload)
#   realmode.sh check      --check of the twin
#   realmode.sh refusals   one line per bad input, with its exit status
# Needs build/host/aprealmode and build/host/lrm_mkfixture (the docs lane
# builds them). Paths are printed as the docs show them.
set -uo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd)
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
cd "$t" || exit 2
PATH=$root/build/host:$PATH
mkdir -p linux/arch/x86/realmode/rm linux/include/config
lrm_mkfixture 6.1 shipped linux/arch/x86/realmode/rm
echo 6.1.0-synthetic >linux/include/config/kernel.release
python3 "$root/tests/realmode/mkimage.py" vmlinux 64 62 linux/arch/x86/realmode/rm/realmode.bin \
	linux/arch/x86/realmode/rm/realmode.relocs "Linux version 6.1.0-synthetic (docs) #1 SMP" vmlinux
python3 "$root/tests/realmode/mkimage.py" bzimage vmlinux zstd vmlinuz

case ${1:-} in
tree) aprealmode linux -o linux.lrm --twin linux-twin.lrm ;;
image) aprealmode vmlinuz -o linux.lrm ;;
check)
	aprealmode linux --twin linux-twin.lrm >/dev/null
	aprealmode --check linux-twin.lrm
	;;
refusals)
	# each: the command, its one line, its exit status
	try() {
		local out st
		out=$(aprealmode "$@" 2>&1 >/dev/null)
		st=$?
		printf '$ aprealmode %s\n%s\n(exit %d)\n' "$*" "$out" "$st"
	}
	head -c 1500 vmlinuz >truncated
	try truncated
	cp vmlinuz corrupt
	printf '\125\252\125\252' | dd of=corrupt bs=1 seek=1400 conv=notrunc status=none
	try corrupt
	python3 "$root/tests/realmode/mkimage.py" arm64 Image
	try Image
	python3 "$root/tests/realmode/mkimage.py" vmlinux 64 62 - - "Linux version 6.1.0-noblob" noblob
	python3 "$root/tests/realmode/mkimage.py" bzimage noblob gzip vmlinuz-noblob
	try vmlinuz-noblob
	printf '\377\160' | dd of=linux/arch/x86/realmode/rm/realmode.relocs bs=1 seek=84 conv=notrunc status=none
	try linux
	lrm_mkfixture 6.1 shipped linux/arch/x86/realmode/rm
	printf '\020' | dd of=linux/arch/x86/realmode/rm/realmode.bin bs=1 seek=40 conv=notrunc status=none
	try linux
	echo "not a module" >notes.txt
	try --check notes.txt
	;;
*) echo "usage: realmode.sh tree|image|check|refusals" >&2; exit 2 ;;
esac
