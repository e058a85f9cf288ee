#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# make realmode-long (not in make test: minutes, and a kernel tree): Linux's
# realmode blob built from Debian's linux-source-V (V: $SOURCE_VERSIONS,
# default "6.1 6.12") with the configuration of Debian's image of that
# version (tests/realmode/fetch-images.sh), as /work's qemu-notes measured:
#   make olddefconfig; make prepare; make arch/x86/realmode/
# then aprealmode on the tree: the blob as shipped, byte for byte the one
# in Debian's image of the same version; then the reference's diff
# (tests/realmode/wbinvd.diff) applied by patch -p1, the blob rebuilt: no
# WBINVD, recorded as patched, its real-mode instructions those of the
# twin aprealmode makes of the shipped blob (entry-path.sh); the diff
# reverted after. Each step timed.
# Needs flex, bison, bc, libelf-dev, libssl-dev (tools/build/packages.list).
#   tests/realmode/source.sh APREALMODE APREALMODE_ASAN
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
# shellcheck source=tests/protocol.sh
. tests/protocol.sh
P=$1 A=$2
src=build/linux/source
work=build/realmode-long
mkdir -p "$src" "$work"
jobs=$(nproc)
diff=$PWD/tests/realmode/wbinvd.diff

# timed NAME CMD...: runs it, its output into $work/NAME.log, its wall
# time in seconds into $dt.
timed() {
	local name=$1 t0
	shift
	t0=$(date +%s.%N)
	"$@" >"$work/$name.log" 2>&1
	st=$?
	dt=$(echo "$(date +%s.%N) - $t0" | bc | xargs printf '%.1f')
	return $st
}
sha() { sha256sum "$1" | cut -d' ' -f1; }
field() { sed -n "s/^$2: *//p" "$1" | head -1; }

for t in flex bison bc; do
	command -v $t >/dev/null || { skip "realmode-long" "$t missing (apt-get install flex bison bc libelf-dev libssl-dev)"; summary realmode-long; exit; }
done
tests/realmode/fetch-images.sh >/dev/null 2>"$work/fetch.err"

for v in ${SOURCE_VERSIONS:-6.1 6.12}; do
	tree=$src/linux-source-$v
	img=build/linux/images/amd64-$v
	if [ ! -s "$img/config" ]; then
		skip "linux-source-$v" "no Debian $v image's config (tests/realmode/fetch-images.sh: $(head -1 "$work/fetch.err"))"
		continue
	fi
	# The source, unpacked once (kept: the next run rebuilds only what changed).
	if [ ! -f "$tree/Makefile" ]; then
		rm -rf "$src/deb-$v"
		mkdir -p "$src/deb-$v"
		if ! (cd "$src/deb-$v" && apt-get download -q "linux-source-$v" >/dev/null 2>../apt.err); then
			skip "linux-source-$v" "cannot download: $(grep -v unsandboxed "$src/apt.err" | head -1)"
			continue
		fi
		timed "unpack-$v" bash -c "dpkg-deb --fsys-tarfile $src/deb-$v/*.deb |
			tar -xO ./usr/src/linux-source-$v.tar.xz | tar -xJ -C $src" ||
			{ fail "linux-source-$v unpacked" "see $work/unpack-$v.log"; continue; }
		dpkg-deb -f "$src"/deb-"$v"/*.deb Version >"$tree/.apstart-debian-version"
		rm -rf "$src/deb-$v"
		ok "linux-source-$v $(cat "$tree/.apstart-debian-version") unpacked in ${dt} s"
	fi
	srcver=$(cat "$tree/.apstart-debian-version")
	imgver=$(cut -d' ' -f2 "$img/package")
	# Shipped: the tree as Debian ships it, the image's configuration.
	patch -d "$tree" -p1 -R --dry-run -s <"$diff" >/dev/null 2>&1 && patch -d "$tree" -p1 -R -s <"$diff"
	cp "$img/config" "$tree/.config"
	if timed "prepare-$v" nice -n 10 make -C "$tree" -j"$jobs" olddefconfig prepare; then
		ok "linux-source-$v: make olddefconfig prepare (-j$jobs) in ${dt} s"
	else
		fail "linux-source-$v: make olddefconfig prepare" "exit $st" "$(tail -5 "$work/prepare-$v.log")"
		continue
	fi
	if timed "realmode-$v" nice -n 10 make -C "$tree" -j"$jobs" arch/x86/realmode/; then
		ok "linux-source-$v: make arch/x86/realmode/ in ${dt} s"
	else
		fail "linux-source-$v: make arch/x86/realmode/" "exit $st" "$(tail -5 "$work/realmode-$v.log")"
		continue
	fi
	rm=$tree/arch/x86/realmode/rm
	rel=$(cat "$tree/include/config/kernel.release")
	"$A" "$tree" --version "Linux version $rel (linux-source-$v $srcver, built by realmode-long)" \
		-o "$work/source-$v.lrm" --twin "$work/source-$v-twin.lrm" >"$work/source-$v.out" 2>&1
	st=$?
	if [ $st = 0 ] && grep -q '(WBINVD: yes' "$work/source-$v.out"; then
		ok "linux-source-$v as shipped: $(field "$work/source-$v.out" layout | cut -d' ' -f1), WBINVD present, $(stat -c %s "$rm/realmode.bin") + $(stat -c %s "$rm/realmode.relocs") bytes"
	else
		fail "linux-source-$v as shipped" "exit $st" "$(cat "$work/source-$v.out")"
		continue
	fi
	# The image's blob, for the byte-for-byte comparison.
	"$P" "$img/vmlinuz" >"$work/image-$v.out" 2>&1
	ib=$(field "$work/image-$v.out" blob | sed 's/.*sha256 //')
	ir=$(field "$work/image-$v.out" relocs | sed 's/.*sha256 //')
	same=$( [ "$(sha "$rm/realmode.bin")" = "$ib" ] && [ "$(sha "$rm/realmode.relocs")" = "$ir" ] && echo 1)
	if [ "$srcver" != "$imgver" ] && [ -z "$same" ]; then
		skip "linux-source-$v's blob = the $v image's" "versions differ (source $srcver, image $imgver): blob $( [ "$(sha "$rm/realmode.bin")" = "$ib" ] && echo same || echo differs), relocs $( [ "$(sha "$rm/realmode.relocs")" = "$ir" ] && echo same || echo differ)"
	elif [ -n "$same" ]; then
		ok "linux-source-$v $srcver's realmode.bin and realmode.relocs = the blob and relocations aprealmode found in $(cut -d' ' -f1 "$img/package") $imgver (sha256 ${ib:0:16}..., ${ir:0:16}...)"
	else
		fail "linux-source-$v's realmode.bin/.relocs = the image's" "tree $(sha "$rm/realmode.bin") / $(sha "$rm/realmode.relocs"), image $ib / $ir"
	fi
	# Patched: the reference's diff, the blob rebuilt.
	if ! patch -d "$tree" -p1 --forward -s <"$diff" >"$work/patch-$v.log" 2>&1; then
		fail "linux-source-$v: patch -p1 < tests/realmode/wbinvd.diff" "$(head -3 "$work/patch-$v.log")"
		continue
	fi
	ok "linux-source-$v: patch -p1 < tests/realmode/wbinvd.diff applied$(grep -o 'offset [-0-9]* lines' "$work/patch-$v.log" | head -1 | sed 's/^/ (/; s/$/)/')"
	if timed "patched-$v" nice -n 10 make -C "$tree" -j"$jobs" arch/x86/realmode/; then
		ok "linux-source-$v patched: make arch/x86/realmode/ in ${dt} s"
	else
		fail "linux-source-$v patched: make arch/x86/realmode/" "exit $st" "$(tail -5 "$work/patched-$v.log")"
	fi
	"$A" "$tree" --version "Linux version $rel (linux-source-$v $srcver + wbinvd.diff, built by realmode-long)" \
		-o "$work/source-$v-patched.lrm" >"$work/source-$v-patched.out" 2>&1
	st=$?
	if [ $st = 0 ] && grep -q '^trampoline_start: *0x1000: cli; ljmpw (WBINVD: no)' "$work/source-$v-patched.out" &&
		grep -q 'patched (no WBINVD, as built)' "$work/source-$v-patched.out"; then
		ok "linux-source-$v patched: $(field "$work/source-$v-patched.out" layout | cut -d' ' -f1), trampoline_start cli; ljmpw, recorded as patched, blob sha256 $(field "$work/source-$v-patched.out" blob | sed 's/.*sha256 //' | cut -c1-16)..."
	else
		fail "linux-source-$v patched" "exit $st" "$(cat "$work/source-$v-patched.out")"
	fi
	# The patch's build runs what the image's twin runs.
	tests/realmode/entry-path.sh "$work/source-$v-patched.lrm" >"$work/path-$v-patched" 2>&1
	tests/realmode/entry-path.sh "$work/source-$v-twin.lrm" >"$work/path-$v-twin" 2>&1
	if [ -s "$work/path-$v-twin" ] && cmp -s "$work/path-$v-patched" "$work/path-$v-twin"; then
		ok "linux-source-$v patched: its real-mode path = the twin's ($(wc -l <"$work/path-$v-twin") instructions to the ljmpl, addresses aside)"
	else
		fail "linux-source-$v patched: its real-mode path = the twin's" "they differ" "$(diff "$work/path-$v-patched" "$work/path-$v-twin")"
	fi
	cp "$rm/realmode.bin" "$work/realmode-$v-patched.bin"
	cp "$rm/realmode.relocs" "$work/realmode-$v-patched.relocs"
	patch -d "$tree" -p1 -R -s <"$diff" >/dev/null 2>&1
done
summary realmode-long
