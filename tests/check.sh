#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# make check: the inner loop. The lanes a change needs, not all of make
# test: for the files given, or else for the working tree's change against
# HEAD (git diff, and new files git does not ignore). Each file names the
# parts it touches (docs/layout.md's table), each part the lanes that test
# it; host lanes run beside the QEMU ones. The exact icount gate is the
# timing lane's deterministic core (tests/timing/exact.sh): every phase of
# every AP as in tests/baselines/, on both arches and variants.
#
#   check.sh [--dry-run] [FILE...]
#
# Same protocol as make test (tests/protocol.sh); the last line sums the
# lanes. make test stays the gate before a commit lands.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2

dry=0
[ "${1:-}" = --dry-run ] && { dry=1; shift; }
if [ $# -gt 0 ]; then
	files=("$@")
else
	mapfile -t files < <({ git diff --name-only HEAD; git ls-files -o --exclude-standard; } | sort -u)
fi
if [ ${#files[@]} = 0 ]; then
	echo "check: nothing changed against HEAD (name files to check them)"
	echo "check: 0 passed, 0 failed, 0 skipped"
	exit 0
fi

# lane -> 1 when needed; the order below is the order they run in.
declare -A need
want() { local l; for l in "$@"; do need[$l]=1; done; }
for f in "${files[@]}"; do
	case $f in
	realmode/*) want build layers trampoline qemu exact lane:linux-trampoline ;;
	boot/*.asm | linker.ld) want build layers qemu exact ;;
	smp/* | app/main.c | app/run.c | app/wing.[ch] | kernel/*.asm)
		want build layers qemu exact lane:linux-trampoline ;;
	app/options.[ch] | kernel/multiboot.c | kernel/acpi.c | kernel/memmap.c | kernel/firmware.c)
		want build layers unit fuzz qemu exact ;;
	app/* | kernel/*) want build layers unit qemu exact ;;
	lib/*) want build layers unit aplog qemu exact ;;
	wings/screen/*) want build layers iso ;;
	wings/nvram/* | wings/efi/*) want build layers unit efi ;;
	wings/pstore/*) want build layers unit qemu lane:linux-vm ;;
	wings/experiments/*) want build layers flushprobe ;;
	wings/selftest/*) want build layers qemu ;;
	wings/linux_trampoline/*) want build layers unit fuzz lane:realmode lane:linux-trampoline ;;
	tools/linux/realmode/*) want layers fuzz docs lane:realmode ;;
	tools/aplog/* | tools/flushmodel/*) want aplog layers docs ;;
	tests/baselines/*-linux-*) want lane:linux-trampoline ;;
	tests/baselines/*) want exact ;;
	tests/*/*)
		lane=${f#tests/}
		lane=${lane%%/*}
		want "lane:$lane" ;;
	README.md | docs/* | CONTRIBUTING.md) want docs ;;
	# the kernel's knobs and how its variants are built: the build,
	# the exact gate (a flag that moves the code moves it), make help
	Makefile | tools/build/knob* | tools/build/plain-objects.mk) want build tools exact ;;
	tools/*.mk | tools/*.sh) want tools ;;
	*) ;;
	esac
done

# lane -> the command that runs it, and whether it boots QEMU.
cmd_of() {
	case $1 in
	build) echo "make --no-print-directory -s && make --no-print-directory -s ARCH=i386" ;;
	layers) echo "make --no-print-directory layers-tests" ;;
	unit) echo "make --no-print-directory unit-tests" ;;
	fuzz) echo "make --no-print-directory fuzz-tests" ;;
	aplog) echo "make --no-print-directory aplog-tests" ;;
	docs) echo "make --no-print-directory docs-tests" ;;
	tools) echo "make --no-print-directory tools-tests" ;;
	trampoline) echo "make --no-print-directory trampoline-tests" ;;
	qemu) echo "make --no-print-directory qemu-tests" ;;
	exact) echo "make --no-print-directory exact-tests" ;;
	iso) echo "make --no-print-directory iso-tests" ;;
	efi) echo "make --no-print-directory efi-tests" ;;
	flushprobe) echo "make --no-print-directory flushprobe-tests" ;;
	lane:*) echo "make --no-print-directory ${1#lane:}-tests" ;;
	esac
}
is_host() { case $1 in layers | unit | fuzz | aplog | docs | tools | trampoline) return 0 ;; esac; return 1; }

order=(build layers unit fuzz aplog docs tools trampoline qemu exact iso efi flushprobe)
for k in "${!need[@]}"; do case $k in lane:*) order+=("$k") ;; esac; done
todo=()
for l in "${order[@]}"; do [ -n "${need[$l]:-}" ] && todo+=("$l"); done
echo "check: ${#files[@]} file(s) changed: ${todo[*]}"
if [ $dry = 1 ]; then
	for l in "${todo[@]}"; do echo "  $l: $(cmd_of "$l")"; done
	exit 0
fi

t_all=$SECONDS total_p=0 total_f=0 total_s=0
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
summ='^(.+): ([0-9]+) passed, ([0-9]+) failed(, ([0-9]+) skipped)?$'
report() { # lane log status seconds
	local p=0 f=0 s=0 lanes=0 line
	echo "=== $1 ($4 s): $(cmd_of "$1")"
	grep -a -E '^(ok   |FAIL |skip )|^     \| |passed, [0-9]+ failed' "$2" | tail -n 400
	while IFS= read -r line; do
		[[ $line =~ $summ ]] || continue
		p=$((p + BASH_REMATCH[2])) f=$((f + BASH_REMATCH[3])) s=$((s + ${BASH_REMATCH[5]:-0}))
		lanes=$((lanes + 1))
	done < <(tr -d '\r' <"$2")
	if [ "$3" -ne 0 ] && [ $f = 0 ]; then
		f=1
		echo "FAIL $1: exit status $3 without a failed check"
		tail -n 15 "$2" | sed 's/^/     | /'
	fi
	total_p=$((total_p + p)) total_f=$((total_f + f)) total_s=$((total_s + s))
}
run_lane() { # lane -> out/lane.log, out/lane.st
	local t0=$SECONDS st
	bash -c "$(cmd_of "$1")" >"$out/$1.log" 2>&1
	st=$?
	echo "$st $((SECONDS - t0))" >"$out/$1.st"
}

# The build first (every later lane uses it); then the host lanes one
# after another beside the QEMU lanes, one after another.
host=() qemu=()
for l in "${todo[@]}"; do
	[ "$l" = build ] && continue
	if is_host "$l"; then host+=("$l"); else qemu+=("$l"); fi
done
if [ -n "${need[build]:-}" ]; then
	run_lane build
	read -r st dt <"$out/build.st"
	if [ "$st" != 0 ]; then
		echo "=== build ($dt s)"
		tail -n 30 "$out/build.log"
		echo "FAIL build: the kernels do not build"
		echo "check: 0 passed, 1 failed, 0 skipped"
		exit 1
	fi
	echo "ok   build: x86_64 and i386 kernels ($dt s)"
	total_p=$((total_p + 1))
fi
( for l in "${host[@]}"; do run_lane "$l"; done ) &
bg=$!
for l in "${qemu[@]}"; do run_lane "$l"; done
wait $bg
for l in "${host[@]}" "${qemu[@]}"; do
	read -r st dt <"$out/$l.st"
	report "$l" "$out/$l.log" "$st" "$dt"
done
echo "check: $((SECONDS - t_all)) s for ${#files[@]} changed file(s); make test before it lands"
echo "check: $total_p passed, $total_f failed, $total_s skipped"
[ $total_f = 0 ]
