#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# make realmode-tests: aprealmode (tools/linux/realmode/) on
#   - Debian 12's kernel images (tests/realmode/fetch-images.sh: 6.1 xz,
#     6.12 zstd with its appended size, 6.1 686 i386): the blob found by
#     validation, WBINVD reported, the LRM file and its patched twin
#     written and checked, the twin's real-mode instructions the shipped
#     ones less the wbinvd (entry-path.sh); a corrupted and a truncated
#     image refused;
#   - synthetic images and trees around a synthetic blob (mkfixture.c,
#     mkimage.py; no download): every payload format through the system's
#     own command, a build tree as shipped and as patched, and each bad
#     input refused with one line and exit status 1, never a hang (each
#     run under timeout) nor a crash (the ASan/UBSan build).
#   tests/realmode/run.sh APREALMODE APREALMODE_ASAN MKFIXTURE
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
# shellcheck source=tests/protocol.sh
. tests/protocol.sh
P=$1 A=$2 MKFIXTURE=$3
work=build/realmode-test
rm -rf "$work"
mkdir -p "$work"

# run NAME BIN ARGS...: runs it (60 s at most) into $work/NAME.out/.err,
# its status into $st.
run() {
	local name=$1
	shift
	timeout 60 "$@" >"$work/$name.out" 2>"$work/$name.err"
	st=$?
}

# refused NAME REGEX ARGS...: exit status 1, one line on stderr matching
# REGEX (the ASan build: a crash would be a report, not one line). The
# command is ${cmd[@]} (the ASan build unless set otherwise).
cmd=("$A")
refused() {
	local name=$1 re=$2 lines
	shift 2
	run "$name" "${cmd[@]}" "$@"
	lines=$(wc -l <"$work/$name.err")
	if [ "$st" != 1 ]; then
		fail "refuses $name" "exit status $st, want 1" "$(head -5 "$work/$name.err")"
	elif [ "$lines" != 1 ]; then
		fail "refuses $name" "$lines lines on stderr, want one" "$(head -5 "$work/$name.err")"
	elif ! grep -Eq -- "$re" "$work/$name.err"; then
		fail "refuses $name" "stderr lacks /$re/" "$(cat "$work/$name.err")"
	else
		ok "refuses $name: $(cut -c1-150 "$work/$name.err")"
	fi
}

# field NAME KEY: the value of "KEY: value" in NAME's output.
field() { sed -n "s/^$2: *//p" "$work/$1.out" | head -1; }

# ---------------------------------------------------------------- synthetic
syn=$work/syn
for l in 6.1 6.12 i386; do
	for s in shipped patched; do
		d=$syn/tree-$l-$s
		mkdir -p "$d/arch/x86/realmode/rm" "$d/include/config"
		"$MKFIXTURE" "$l" "$s" "$d/arch/x86/realmode/rm" || fail "mkfixture $l $s" "failed"
		echo "0.0.0-synthetic-$l" >"$d/include/config/kernel.release"
	done
done
declare -A want_layout=([6.1]=linux-6.1-x86_64 [6.12]=linux-6.12-x86_64 [i386]=linux-6.1-i386)

# A build tree, as shipped: the layout, WBINVD, the LRM and its twin.
for l in 6.1 6.12 i386; do
	n=tree-$l
	run "$n" "$A" "$syn/tree-$l-shipped" -o "$work/$n.lrm" --twin "$work/$n-twin.lrm"
	if [ "$st" = 0 ] && [ "$(field "$n" layout | cut -d' ' -f1)" = "${want_layout[$l]}" ] &&
		grep -q '^trampoline_start: .*wbinvd; ljmpw (WBINVD: yes' "$work/$n.out" &&
		grep -q '^state: *from a build tree, as shipped' "$work/$n.out" &&
		grep -q "^kernel: *Linux version 0.0.0-synthetic-$l (build tree)" "$work/$n.out"; then
		ok "synthetic build tree $l: ${want_layout[$l]}, WBINVD found, LRM and twin written"
	else
		fail "synthetic build tree $l" "exit $st" "$(cat "$work/$n.out" "$work/$n.err")"
	fi
	run "$n-check" "$A" --check "$work/$n-twin.lrm"
	if [ "$st" = 0 ] && grep -q 'ljmpw; int3; int3 (WBINVD: no, removed by the twin edit)' "$work/$n-check.out" &&
		[ "$(field "$n-check" 'shipped blob' | cut -d' ' -f2)" = "$(field "$n" blob | sed 's/.*sha256 //')" ]; then
		ok "synthetic twin $l: checks as edited, records the shipped blob's SHA-256"
	else
		fail "synthetic twin $l" "exit $st" "$(cat "$work/$n-check.out" "$work/$n-check.err")"
	fi
done
# A tree built with the patch: no WBINVD, recorded as patched; no twin.
run tree-patched "$A" "$syn/tree-6.1-patched" -o "$work/tree-patched.lrm"
if [ "$st" = 0 ] && grep -q '^trampoline_start: *0x1000: cli; ljmpw (WBINVD: no)' "$work/tree-patched.out" &&
	grep -q '^state: *from a build tree, patched (no WBINVD, as built)' "$work/tree-patched.out"; then
	ok "synthetic tree built with the patch: no WBINVD, recorded as patched"
else
	fail "synthetic tree built with the patch" "exit $st" "$(cat "$work/tree-patched.out" "$work/tree-patched.err")"
fi
refused twin-without-wbinvd 'has no WBINVD to remove' "$syn/tree-6.1-patched" --twin "$work/x.lrm"
# realmode.bin given alone, its relocs beside it.
run bin-alone "$A" "$syn/tree-6.12-shipped/arch/x86/realmode/rm/realmode.bin"
if [ "$st" = 0 ] && grep -q '^layout: *linux-6.12-x86_64' "$work/bin-alone.out"; then
	ok "a realmode.bin with its realmode.relocs beside it"
else fail "a realmode.bin alone" "exit $st" "$(cat "$work/bin-alone.err")"; fi

# Every payload format, by the system's command; the blob the tree's.
tree_sha=$(field tree-6.1 blob | sed 's/.*sha256 //')
python3 tests/realmode/mkimage.py vmlinux 64 62 "$syn/tree-6.1-shipped/arch/x86/realmode/rm/realmode.bin" \
	"$syn/tree-6.1-shipped/arch/x86/realmode/rm/realmode.relocs" \
	"Linux version 0.0.0-synthetic (tests/realmode) #1 SMP" "$syn/vmlinux"
for fmt in gzip xz zstd lz4 bzip2 lzma lzo; do
	python3 tests/realmode/mkimage.py bzimage "$syn/vmlinux" "$fmt" "$syn/bzImage.$fmt" 2>"$work/mk.err" ||
		{ fail "synthetic bzImage, $fmt payload" "could not make it: $(head -1 "$work/mk.err")"; continue; }
	run "fmt-$fmt" "$A" "$syn/bzImage.$fmt"
	if [ "$st" = 0 ] && grep -q "^input: .*payload $fmt " "$work/fmt-$fmt.out" &&
		[ "$(field "fmt-$fmt" blob | sed 's/.*sha256 //')" = "$tree_sha" ] &&
		grep -q '^kernel: *Linux version 0.0.0-synthetic (tests/realmode) #1 SMP$' "$work/fmt-$fmt.out"; then
		ok "synthetic bzImage, $fmt payload: the blob found, the tree's SHA-256, the banner"
	else
		fail "synthetic bzImage, $fmt payload" "exit $st" "$(cat "$work/fmt-$fmt.out" "$work/fmt-$fmt.err")"
	fi
done
run vmlinux "$A" "$syn/vmlinux"
if [ "$st" = 0 ] && grep -q '^input: .*vmlinux (ELF x86_64, .*blob at 0x2000' "$work/vmlinux.out"; then
	ok "synthetic vmlinux (ELF): the blob at 0x2000"
else fail "synthetic vmlinux" "exit $st" "$(cat "$work/vmlinux.err")"; fi

# ---------------------------------------------------------------- bad input
# The synthetic bzImage: boot sector and one setup sector (0x400 bytes),
# the payload 0x100 after them, its length at 0x24c.
pay=$((0x500))
paylen() { od -An -tu4 -j $((0x24c)) -N4 "$1" | tr -d ' '; }
head -c $((pay + $(paylen "$syn/bzImage.xz") - 8)) "$syn/bzImage.xz" >"$syn/truncated"
refused truncated-image 'cut short: its payload ends at' "$syn/truncated"
cp "$syn/bzImage.xz" "$syn/corrupt-xz"
printf '\x55\xaa\x55\xaa' | dd of="$syn/corrupt-xz" bs=1 seek=$((pay + $(paylen "$syn/corrupt-xz") / 2)) conv=notrunc status=none
refused corrupted-xz-payload 'xz could not decompress the xz payload' "$syn/corrupt-xz"
cp "$syn/bzImage.gzip" "$syn/corrupt-gzip"
printf '\x55\xaa\x55\xaa' | dd of="$syn/corrupt-gzip" bs=1 seek=$((pay + $(paylen "$syn/corrupt-gzip") / 2)) conv=notrunc status=none
refused corrupted-gzip-payload 'gzip could not decompress the gzip payload' "$syn/corrupt-gzip"
# The size Linux appends, not the one the payload gives.
cp "$syn/bzImage.zstd" "$syn/wrong-size"
printf '\x01' | dd of="$syn/wrong-size" bs=1 seek=$((pay + $(paylen "$syn/wrong-size") - 4)) conv=notrunc status=none
refused payload-size-mismatch 'decompressed to [0-9]+ bytes, the image says' "$syn/wrong-size"
python3 tests/realmode/mkimage.py arm64 "$syn/arm64-Image"
refused non-x86-arm64-image 'an arm64 kernel Image' "$syn/arm64-Image"
python3 tests/realmode/mkimage.py vmlinux 64 183 - - "Linux version 0.0.0-arm64" "$syn/vmlinux-aarch64"
refused non-x86-elf 'an ELF file for arm64 \(AArch64\)' "$syn/vmlinux-aarch64"
python3 tests/realmode/mkimage.py vmlinux 64 62 - - "Linux version 0.0.0-noblob" "$syn/vmlinux-noblob"
python3 tests/realmode/mkimage.py bzimage "$syn/vmlinux-noblob" gzip "$syn/vmlinuz-noblob"
refused vmlinuz-without-a-blob 'no realmode blob in the kernel' "$syn/vmlinuz-noblob"
# A blob in the kernel whose header lies: found, refused, named.
cp "$syn/vmlinux" "$syn/vmlinux-badheader"
printf '\x04\x50' | dd of="$syn/vmlinux-badheader" bs=1 seek=$((0x2000 + 12)) conv=notrunc status=none
refused corrupted-blob-in-vmlinux 'no valid realmode blob in the kernel: the nearest, at 0x2000: .*trampoline_header 0x5004' \
	"$syn/vmlinux-badheader"
# Relocations pointing outside the blob.
cp -r "$syn/tree-6.1-shipped" "$syn/tree-badrelocs"
printf '\xff\x70\x00\x00' | dd of="$syn/tree-badrelocs/arch/x86/realmode/rm/realmode.relocs" bs=1 seek=$((4 + 4 * 5 + 4 + 4 * 14)) \
	conv=notrunc status=none
refused relocs-outside-the-blob 'linear relocation 14 at 0x70ff: outside the blob' "$syn/tree-badrelocs"
cp -r "$syn/tree-6.1-shipped" "$syn/tree-unknown"
printf '\x10' | dd of="$syn/tree-unknown/arch/x86/realmode/rm/realmode.bin" bs=1 seek=40 conv=notrunc status=none
refused unknown-layout 'unknown realmode layout \(header 1000 20f4 1000 5000 1050 20e0 4000 11f0 3010 2080 10; 10 words relocated\)' \
	"$syn/tree-unknown"
printf 'just some text\n' >"$syn/text"
refused not-a-kernel 'not a kernel image, vmlinux, realmode.bin or build tree' "$syn/text"
: >"$syn/empty"
refused empty-file 'not a kernel image' "$syn/empty"
gzip -c "$syn/text" >"$syn/text.gz"
refused compressed-alone 'a gzip file, not a kernel image' "$syn/text.gz"
refused folder-without-blob 'a folder without arch/x86/realmode/rm/realmode.bin' "$syn"
refused missing-file 'cannot read .*: No such file' "$syn/nothing-here"
refused not-an-lrm 'not an LRM file' --check "$syn/text"
head -c 5000 "$work/tree-6.1.lrm" >"$syn/short.lrm"
refused truncated-lrm 'relocations at|blob at' --check "$syn/short.lrm"
cp "$work/tree-6.1.lrm" "$syn/flipped.lrm"
printf '\x01' | dd of="$syn/flipped.lrm" bs=1 seek=$((0x140 + 0x1800)) conv=notrunc status=none
refused corrupted-lrm "the blob's SHA-256 is not the one recorded" --check "$syn/flipped.lrm"
# A decompressor that is not installed: named, with its package.
mkdir -p "$syn/bin"
cmd=(env PATH="$syn/bin" "$A")
refused missing-decompressor 'needs the lz4 command \(apt-get install lz4\)' "$syn/bzImage.lz4"
cmd=("$A")
run usage "$A"
if [ "$st" = 2 ] && grep -q 'no INPUT' "$work/usage.err"; then ok "no INPUT: usage error, exit 2"
else fail "no INPUT: usage error" "exit $st"; fi

# ---------------------------------------------------------------- Debian's
if ! tests/realmode/fetch-images.sh >"$work/images" 2>"$work/fetch.err"; then
	:
fi
for img in amd64-6.1:linux-6.1-x86_64 amd64-6.12:linux-6.12-x86_64 i386-6.1:linux-6.1-i386; do
	n=${img%%:*} layout=${img#*:}
	dir=build/linux/images/$n
	if [ ! -s "$dir/vmlinuz" ]; then
		skip "Debian's $n image" "not fetched: $(head -1 "$work/fetch.err" 2>/dev/null)"
		continue
	fi
	pkg=$(cat "$dir/package")
	run "deb-$n" "$P" "$dir/vmlinuz" -o "$work/$n.lrm" --twin "$work/$n-twin.lrm"
	if [ "$st" = 0 ] && grep -q "^layout: *$layout " "$work/deb-$n.out" &&
		grep -q '^trampoline_start: *0x1000: \(cli; \)\?wbinvd; ljmpw (WBINVD: yes' "$work/deb-$n.out" &&
		grep -q '^kernel: *Linux version ' "$work/deb-$n.out"; then
		ok "Debian's $pkg: $(sed -n 's/^input: .*: bzImage[^,]*, payload \([a-z0-9]*\) .*blob at \(0x[0-9a-f]*\)/\1 payload, blob at \2/p' "$work/deb-$n.out"), $layout, WBINVD present, LRM and twin written"
	else
		fail "Debian's $pkg" "exit $st" "$(cat "$work/deb-$n.out" "$work/deb-$n.err")"
		continue
	fi
	run "deb-$n-check" "$A" --check "$work/$n.lrm"
	run "deb-$n-twin" "$A" --check "$work/$n-twin.lrm"
	if grep -q 'valid$' "$work/deb-$n-check.out" && grep -q 'removed by the twin edit' "$work/deb-$n-twin.out" &&
		[ "$(field "deb-$n-twin" 'shipped blob' | cut -d' ' -f2)" = "$(field "deb-$n" blob | sed 's/.*sha256 //')" ]; then
		ok "Debian's $n: the LRM file and its twin check as the kernel checks them"
	else
		fail "Debian's $n: the LRM files check" "see below" "$(cat "$work/deb-$n-check.err" "$work/deb-$n-twin.err")"
	fi
	# The twin runs the shipped instructions but the wbinvd: one fewer.
	tests/realmode/entry-path.sh "$work/$n.lrm" >"$work/path-$n" 2>&1
	tests/realmode/entry-path.sh "$work/$n-twin.lrm" >"$work/path-$n-twin" 2>&1
	if [ "$(grep -vx wbinvd "$work/path-$n")" = "$(cat "$work/path-$n-twin")" ] &&
		[ "$(wc -l <"$work/path-$n")" = $(($(wc -l <"$work/path-$n-twin") + 1)) ] && grep -qx wbinvd "$work/path-$n"; then
		ok "Debian's $n: the twin's real-mode path is the shipped one without its wbinvd ($(wc -l <"$work/path-$n") -> $(wc -l <"$work/path-$n-twin") instructions to the ljmpl)"
	else
		fail "Debian's $n: the twin's real-mode path" "not the shipped one less its wbinvd" "$(diff "$work/path-$n" "$work/path-$n-twin")"
	fi
done
# A corrupted and a truncated real image (6.12: zstd checks its frame).
d12=build/linux/images/amd64-6.12/vmlinuz
if [ -s "$d12" ]; then
	cp "$d12" "$work/corrupt-6.12"
	size=$(stat -c %s "$d12")
	printf '\x55\xaa\x55\xaa\x55\xaa\x55\xaa' | dd of="$work/corrupt-6.12" bs=1 seek=$((size / 2)) conv=notrunc status=none
	refused "corrupted-debian-6.12-image" 'zstd could not decompress the zstd payload' "$work/corrupt-6.12"
	head -c $((size / 2)) "$d12" >"$work/truncated-6.12"
	refused "truncated-debian-6.12-image" 'a bzImage cut short' "$work/truncated-6.12"
	rm -f "$work/corrupt-6.12" "$work/truncated-6.12"
else
	skip "refuses a corrupted Debian image" "amd64-6.12 not fetched"
fi
summary realmode
