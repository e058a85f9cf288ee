#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Debian 12's kernel images whose realmode blobs the realmode lane checks,
# fetched once into build/linux/images/ the way tools/linux/vm/fetch.sh
# fetches the Linux VM's kernel (apt-get download + dpkg-deb: nothing is
# installed, nothing outside build/ changes):
#   amd64-6.1/   linux-image-amd64's kernel (6.1.0-N-amd64): fetch.sh's
#                build/linux/vmlinuz when it is that package, else downloaded
#   amd64-6.12/  linux-image-6.12-amd64's kernel (6.12.N+deb12-amd64)
#   i386-6.1/    linux-image-686's kernel (6.1.0-N-686, an i386 package):
#                apt run with a state folder of its own under build/ that
#                knows the i386 lists, so that this machine's dpkg
#                architectures stay as they are
# Each holds vmlinuz, config and package (its name and version). Prints
# "NAME DIR" per image it has; exits 1 if amd64-6.1 or amd64-6.12 is
# missing (the reason on stderr). Run by make test-prep and the lane.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
out=build/linux/images
mkdir -p "$out"
say() { echo "realmode-images: $*" >&2; }
status=0

# fetch NAME PACKAGE [APT-OPTIONS...]: PACKAGE's /boot into $out/NAME.
fetch() {
	local name=$1 pkg=$2 dir=$out/$1 tmp
	shift 2
	if [ -s "$dir/vmlinuz" ] && [ "$(cut -d' ' -f1 "$dir/package" 2>/dev/null)" = "$pkg" ]; then
		echo "$name $dir"
		return 0
	fi
	tmp=$(mktemp -d "$out/.fetch-XXXXXX")
	if ! (cd "$tmp" && apt-get "$@" download -q "$pkg" >/dev/null 2>apt.err); then
		say "cannot download $pkg: $(grep -v unsandboxed "$tmp/apt.err" | head -2 | tr '\n' ' ')"
		rm -rf "$tmp"
		return 1
	fi
	local deb
	deb=$(ls "$tmp"/*.deb)
	mkdir -p "$tmp/x"
	# /boot comes first in Debian's kernel packages: tar --occurrence stops
	# once it has both files, before the modules (~5 CPU-s of xz a package),
	# and dpkg-deb, its pipe closed, stops too (its complaint is not ours).
	dpkg-deb --fsys-tarfile "$deb" 2>/dev/null |
		tar -x -C "$tmp/x" --occurrence --wildcards './boot/vmlinuz-*' './boot/config-*'
	if ! [ -s "$(echo "$tmp"/x/boot/vmlinuz-*)" ] || ! [ -s "$(echo "$tmp"/x/boot/config-*)" ]; then
		say "$deb: no /boot/vmlinuz and /boot/config in it"
		rm -rf "$tmp"
		return 1
	fi
	rm -rf "$dir"
	mkdir -p "$dir"
	cp "$tmp"/x/boot/vmlinuz-* "$dir/vmlinuz"
	cp "$tmp"/x/boot/config-* "$dir/config"
	echo "$pkg $(dpkg-deb -f "$deb" Version)" >"$dir/package"
	rm -rf "$tmp"
	echo "$name $dir"
}

# depends META... [-- APT-OPTIONS...]: the kernel package each META
# depends on, one line each ("" when apt does not know it), from one
# apt-cache (each reads every package list: ~1 CPU-s here).
depends() {
	local metas=()
	while [ $# -gt 0 ] && [ "$1" != -- ]; do metas+=("$1"); shift; done
	[ $# -gt 0 ] && shift
	apt-cache "$@" depends "${metas[@]}" 2>/dev/null | awk -v list="${metas[*]}" '
		/^[^ ]/ { meta = $1 }
		/^ *Depends: linux-image-[0-9][^ ]*$/ && !(meta in k) { k[meta] = $2 }
		END { n = split(list, m, " "); for (i = 1; i <= n; i++) print k[m[i]] }'
}

# Fetched once: what is here is kept (as fetch.sh keeps the VM's kernel;
# rm -rf build/linux/images to fetch the packages apt names now).
if [ -s "$out/amd64-6.1/vmlinuz" ] && [ -s "$out/amd64-6.12/vmlinuz" ] && [ -s "$out/i386-6.1/vmlinuz" ]; then
	for n in amd64-6.1 amd64-6.12 i386-6.1; do echo "$n $out/$n"; done
	exit 0
fi
if ! command -v apt-get >/dev/null || ! command -v dpkg-deb >/dev/null; then
	say "apt-get/dpkg-deb not found: a Debian host is needed"
	exit 1
fi

{ read -r k61; read -r k612; } < <(depends linux-image-amd64 linux-image-6.12-amd64)
if { [ -z "$k61" ] || [ -z "$k612" ]; } && [ "$(id -u)" = 0 ]; then
	apt-get update -qq >/dev/null 2>&1 || true
	{ read -r k61; read -r k612; } < <(depends linux-image-amd64 linux-image-6.12-amd64)
fi

# 6.1: the Linux VM's kernel, when fetch.sh already has this package.
if [ -n "$k61" ] && [ -s build/linux/vmlinuz ] && grep -q "^kernel $k61 " build/linux/versions 2>/dev/null &&
	[ "$(cut -d' ' -f1 "$out/amd64-6.1/package" 2>/dev/null)" != "$k61" ]; then
	mkdir -p "$out/amd64-6.1"
	cp build/linux/vmlinuz "$out/amd64-6.1/vmlinuz"
	cp build/linux/config "$out/amd64-6.1/config" 2>/dev/null || true
	sed -n "s/^kernel //p" build/linux/versions >"$out/amd64-6.1/package"
fi
if [ -n "$k61" ]; then fetch amd64-6.1 "$k61" || status=1
else say "linux-image-amd64 is not known to apt here (run: apt-get update)"; status=1; fi
if [ -n "$k612" ]; then fetch amd64-6.12 "$k612" || status=1
else say "linux-image-6.12-amd64 is not known to apt here (bookworm-backports/security lists?)"; status=1; fi

# i386: apt with its own state (lists, cache) under build/, architecture
# i386 only; the host's dpkg and its lists are not touched.
a=$PWD/$out/apt-i386
mkdir -p "$a/lists/partial" "$a/cache/archives/partial" "$a/parts"
touch "$a/status"
cp /etc/apt/sources.list.d/*.sources "$a/parts/" 2>/dev/null
cp /etc/apt/sources.list "$a/parts/main.list" 2>/dev/null
opts=(-o "Dir::State=$a" -o "Dir::State::Lists=$a/lists" -o "Dir::State::status=$a/status"
	-o "Dir::Cache=$a/cache" -o "Dir::Etc::SourceList=/dev/null" -o "Dir::Etc::SourceParts=$a/parts"
	-o "APT::Architecture=i386" -o "APT::Architectures=i386" -o "Debug::NoLocking=1")
k686=$(depends linux-image-686 -- "${opts[@]}")
if [ -z "$k686" ]; then
	apt-get "${opts[@]}" update -qq >/dev/null 2>"$a/update.err" || true
	k686=$(depends linux-image-686 -- "${opts[@]}")
fi
if [ -n "$k686" ]; then fetch i386-6.1 "$k686" "${opts[@]}" || true
else say "linux-image-686 (i386) not known to apt with i386 lists: $(head -1 "$a/update.err" 2>/dev/null)"; fi
exit $status
