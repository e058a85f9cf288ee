#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Tests for the developer tools: the QEMU runners' command-line contract
# (bad usage exits 2 with a message, never 1, which means "the kernel
# reported fail", and never hangs; --help works).
#   tests/tools/run.sh
set -uo pipefail
cd "$(dirname "$0")/../.."
# shellcheck source=tests/protocol.sh
. tests/protocol.sh

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
T=20 # seconds for any one command: a hang is a failure, not a stuck test

# expect_usage NAME STATUS REGEX CMD...: CMD exits with STATUS within T
# seconds and its output matches REGEX.
expect_usage() {
	local name=$1 want=$2 re=$3 out st
	shift 3
	out=$(timeout "$T" "$@" 2>&1 </dev/null)
	st=$?
	if [ "$st" = 124 ]; then
		fail "$name" "did not finish within ${T}s"
	else
		check_status "$name" "$want" "$re" "$st" "$out"
	fi
}

# A kernel file for the runners to accept (they only check that it exists
# before QEMU would start; --dry-run stops there).
kernel=$tmp/kernel.elf
: >"$kernel"

for opt in --kernel --smp --accel --machine --timeout --cpu --log --mem --initrd --flush --gdb; do
	expect_usage "qemu-run.sh $opt without a value: exit 2" 2 "^qemu-run: $opt needs a value" \
		tools/run/qemu-run.sh --kernel "$kernel" "$opt"
done
expect_usage "qemu-run.sh without --kernel: exit 2" 2 "--kernel ELF is required" tools/run/qemu-run.sh
expect_usage "qemu-run.sh unknown option: exit 2" 2 "unknown option '--frobnicate'" \
	tools/run/qemu-run.sh --frobnicate
expect_usage "qemu-run.sh --smp x: exit 2" 2 "--smp must be a CPU count" \
	tools/run/qemu-run.sh --kernel "$kernel" --smp x
expect_usage "qemu-run.sh --timeout 0: exit 2" 2 "--timeout must be a positive number" \
	tools/run/qemu-run.sh --kernel "$kernel" --timeout 0
expect_usage "qemu-run.sh --gdb 70000: exit 2" 2 "--gdb must be a TCP port" \
	tools/run/qemu-run.sh --kernel "$kernel" --gdb 70000
expect_usage "qemu-run.sh --accel warp: exit 2" 2 "--accel must be auto, kvm or tcg" \
	tools/run/qemu-run.sh --kernel "$kernel" --accel warp
expect_usage "qemu-run.sh missing kernel file: exit 2" 2 "no kernel at" \
	tools/run/qemu-run.sh --kernel "$tmp/none.elf"
expect_usage "qemu-run.sh --help: exit 0, usage" 0 "qemu-run.sh --kernel ELF" tools/run/qemu-run.sh --help
expect_usage "qemu-run.sh --dry-run: command line with the kernel arguments" 0 \
	"qemu-system-x86_64 .*-kernel $kernel -append cycles=1" \
	tools/run/qemu-run.sh --kernel "$kernel" --dry-run -- cycles=1
expect_usage "qemu-run.sh --gdb: paused with a gdb server" 0 "-kernel [^ ]* -S -gdb tcp::4321" \
	tools/run/qemu-run.sh --kernel "$kernel" --gdb 4321 --dry-run
expect_usage "qemu-run.sh --gdb: auto accel is TCG" 0 "accel=tcg \(gdb server: TCG\)" \
	tools/run/qemu-run.sh --kernel "$kernel" --gdb 4321 --dry-run

for opt in --firmware --media --smp --accel --machine --timeout --iso --kernels \
	--wbinvd --mem --log --screendump --flush --screen-script --nvram; do
	expect_usage "iso-run.sh $opt without a value: exit 2" 2 "^iso-run: $opt needs a value" \
		tools/run/iso-run.sh --firmware bios "$opt"
done
expect_usage "iso-run.sh unknown option: exit 2" 2 "unknown option '--frobnicate'" \
	tools/run/iso-run.sh --frobnicate
expect_usage "iso-run.sh --firmware efi: exit 2" 2 "--firmware must be bios or uefi" \
	tools/run/iso-run.sh --firmware efi
expect_usage "iso-run.sh --mem x: exit 2" 2 "--mem must be a number" \
	tools/run/iso-run.sh --firmware bios --mem x
expect_usage "iso-run.sh --nvram rom: exit 2" 2 "--nvram must be flash or ram" \
	tools/run/iso-run.sh --firmware uefi --nvram rom
expect_usage "iso-run.sh --nvram ram --vars: exit 2 (RAM keeps nothing)" 2 "--nvram ram keeps nothing: not with --vars" \
	tools/run/iso-run.sh --firmware uefi --nvram ram --vars /dev/null
expect_usage "iso-run.sh --nvram ram --firmware bios: exit 2" 2 "--nvram ram: OVMF's store, for --firmware uefi" \
	tools/run/iso-run.sh --firmware bios --nvram ram
expect_usage "iso-run.sh --help: exit 0, usage" 0 "iso-run.sh --firmware bios\|uefi" tools/run/iso-run.sh --help

# ---- dependencies: one list, make only checks, deps.sh says what and how
listed=$(awk '!/^#/ && NF { print $1 }' tools/build/packages.list | sort | tr '\n' ' ')
got=$(tools/build/deps.sh --list build test optional ci | sort | tr '\n' ' ')
if [ "$listed" = "$got" ]; then
	ok "deps.sh --list: every package of tools/build/packages.list"
else
	fail "deps.sh --list: every package of tools/build/packages.list" "got '$got', the list has '$listed'"
fi
if grep -q 'apt-get install .*\$(tools/build/deps.sh --list build test optional ci)' .ci/run &&
	! grep -Eq 'apt-get install[^$]*\b(nasm|qemu|grub|ovmf)' .ci/run; then
	ok ".ci/run installs the list, and names no package itself"
else
	fail ".ci/run installs the list, and names no package itself" "see .ci/run"
fi
# A PATH with only what deps.sh itself runs: the build tools are missing.
mkdir -p "$tmp/bin"
for c in dirname id sed; do ln -s "$(command -v $c)" "$tmp/bin/$c"; done
expect_usage "deps.sh --check build names the missing packages and how, exit 1" 1 \
	"missing packages: build-essential binutils nasm grub-common$" \
	env PATH="$tmp/bin" "$(command -v bash)" tools/build/deps.sh --check build
expect_usage "deps.sh --check build: the install command, sudo on each apt-get" 1 \
	"install them with: sudo apt-get update && sudo apt-get install -y build-essential binutils nasm grub-common$" \
	env PATH="$tmp/bin" "$(command -v bash)" tools/build/deps.sh --check build
# Not root: deps.sh (what make run and make test call) prints the command
# and stops; every apt-get in it has its sudo, so it works as printed.
if command -v unshare >/dev/null && unshare -r true 2>/dev/null; then
	out=$(unshare -r --map-user=1000 env PATH="$tmp/bin" "$(command -v bash)" tools/build/deps.sh build run 2>&1)
	st=$?
	cmdline=$(sed -n 's/^deps: install them with: //p' <<<"$out")
	if [ $st = 1 ] && [ -n "$cmdline" ] &&
		[ "$(grep -o 'apt-get' <<<"$cmdline" | wc -l)" = "$(grep -o 'sudo apt-get' <<<"$cmdline" | wc -l)" ] &&
		grep -q 'qemu-system-x86' <<<"$cmdline" && ! grep -q 'ovmf\|bochs\|clang' <<<"$cmdline"; then
		ok "deps.sh not root: exit 1, the command with sudo on each apt-get, only what was asked"
	else
		fail "deps.sh not root: exit 1, the command with sudo on each apt-get, only what was asked" \
			"exit $st" "$out"
	fi
else
	skip "deps.sh not root" "unshare -r (a user namespace) is not allowed here"
fi
# make run checks only what that run needs; make test the rest.
for c in ":build run" "FIRMWARE=bios:build run iso" "FIRMWARE=uefi:build run iso uefi" \
	"FLUSH=us=2000:build run"; do
	var=${c%%:*} want=${c#*:}
	steps=$(make -n run ${var:+"$var"} 2>/dev/null | grep -E '^tools/build/deps\.sh' | tr '\n' ';')
	if [ "$steps" = "tools/build/deps.sh $want;" ]; then
		ok "make run ${var:-(plain)} checks only: $want"
	else
		fail "make run ${var:-(plain)} checks only: $want" "make -n run runs: $steps"
	fi
done
steps=$(make -n test 2>/dev/null | grep -E '^tools/build/deps\.sh' | tr '\n' ';')
if [ "$steps" = "tools/build/deps.sh;" ]; then
	ok "make test checks every package (tools/build/deps.sh: build test optional)"
else
	fail "make test checks every package" "make -n test runs: $steps"
fi
expect_usage "deps.sh: unknown need is a usage error" 2 "unknown need 'everything'" \
	tools/build/deps.sh --check everything
# make (all) builds only: the one package step it runs is the check.
steps=$(make -n all 2>/dev/null | grep -E 'deps\.sh|apt-get' | tr '\n' ';')
if [ "$steps" = "tools/build/deps.sh --check build;" ]; then
	ok "make (all) only checks packages, installs none"
else
	fail "make (all) only checks packages, installs none" "make -n all runs: $steps"
fi

# ---- make help: every target and every variable one can set, one line each
make --no-print-directory help >"$tmp/help" 2>&1
make -pq 2>/dev/null >"$tmp/db"
targets=$(sed -n 's/^\.PHONY: //p' "$tmp/db" | tr ' ' '\n' | grep . | sort -u)
# What make help names: the first word of each line ("  WORD  what it
# does", "  NAME=VALUE  ..."), and the variables (before the '=').
help_words=$(sed -n 's/^  \([^ ]\{1,\}\).*/\1/p' "$tmp/help" | sort -u)
help_vars=$(sed -n 's/^  \([^ =]\{1,\}\)=.*/\1/p' "$tmp/help" | sort -u)
missing=$(comm -23 <(echo "$targets") <(echo "$help_words") | xargs)
if [ -z "$missing" ]; then
	ok "make help names every target ($(wc -w <<<"$targets"))"
else
	fail "make help names every target" "missing: $missing"
fi
# Variables: every '?=' in every makefile make reads (its MAKEFILE_LIST,
# not a list of folders that may miss one), the knobs of the table
# (tools/build/knobs.mk), and the command-line-only ones.
makefiles=$(sed -n 's/^MAKEFILE_LIST := //p' "$tmp/db" | tr ' ' '\n' | grep -v '\.d$' | sort -u)
knobs=$(sed -n 's/^KNOBS :\{0,1\}= //p' "$tmp/db")
# shellcheck disable=SC2086 # the makefiles: paths without blanks
vars="$(grep -h '^[A-Z0-9_]* *?=' $makefiles | sed 's/ *?=.*//' | sort -u) $knobs V FIRMWARE MEDIA DEV FORCE YES"
missing=$(comm -23 <(tr ' ' '\n' <<<"$vars" | grep . | sort -u) <(echo "$help_vars") | xargs)
if [ -z "$missing" ] && [ "$(wc -w <<<"$knobs")" -ge 10 ] && [ "$(wc -l <<<"$makefiles")" -ge 30 ]; then
	ok "make help names every variable ($(wc -w <<<"$vars"): $(wc -l <<<"$makefiles") makefiles, $(wc -w <<<"$knobs") knobs)"
else
	fail "make help names every variable" "missing: $missing (makefiles: $(wc -l <<<"$makefiles"), knobs: $knobs)"
fi
stale=$(comm -23 <(sed -n 's/^  \([a-z][a-z_.-]*\)  .*/\1/p' "$tmp/help" | sort -u) <(echo "$targets") | xargs)
# A variable exists when a makefile sets or reads it, or (the environment
# of the test scripts) a script under tests/ reads it.
# shellcheck disable=SC2086 # the makefiles: paths without blanks
known=$({ tr ' ' '\n' <<<"$vars"
	grep -ohP '[$][({]\K[A-Z][A-Z0-9_]*(?=[):])' $makefiles
	grep -rhoP '[$][{]?\K[A-Z][A-Z0-9_]*(?![A-Za-z0-9_])' tests --include='*.sh'; } | grep . | sort -u)
stale="$stale $(comm -23 <(sed -n 's/^  \([A-Z][A-Z0-9_]*\)=.*/\1/p' "$tmp/help" | sort -u) <(echo "$known") | xargs)"
stale=$(xargs <<<"$stale")
if [ -z "$stale" ]; then
	ok "make help names no target or variable that does not exist"
else
	fail "make help names no target or variable that does not exist" "unknown: $stale"
fi
twice=$(sed -n 's/^  \([A-Za-z][A-Za-z0-9_.-]*\)[= ].*/\1/p' "$tmp/help" | sort | uniq -d | tr '\n' ' ')
if [ -z "$twice" ]; then
	ok "make help names each target and variable once"
else
	fail "make help names each target and variable once" "twice: $twice"
fi

# ---- make compile_commands.json: every C file, with the flags of its build
if make --no-print-directory compile_commands.json >"$tmp/compdb.out" 2>&1; then
	ok "make compile_commands.json"
	db=compile_commands.json
	files=$(sed -n 's/.*"file": "\([^"]*\)".*/\1/p' "$db" | sort)
	want=$(ls app/*.c kernel/*.c lib/*.c smp/*.c realmode/*.c tools/aplog/*.c tools/aplog/*/*.c tools/build/mkfont.c \
		tools/linux/hotplug/*.c tools/flushmodel/*.c tests/unit/*.c tests/fbcon/*.c tests/iso/ppmcheck.c tests/qr/*.c \
		tests/linux-hotplug/failwrite.c wings/efi/*.c tests/efi/*.c 2>/dev/null | sort)
	missing=$(comm -13 <(echo "$files") <(echo "$want") | tr '\n' ' ')
	if [ -z "$missing" ]; then
		ok "compile_commands.json has every C file ($(wc -l <<<"$files") entries)"
	else
		fail "compile_commands.json has every C file" "missing: $missing"
	fi
	kflags=$(grep -A1 '"file": "kernel/acpi.c"' "$db" | tail -n 1)
	hflags=$(grep -A1 '"file": "tools/aplog/main.c"' "$db" | tail -n 1)
	if grep -q -- '-ffreestanding' <<<"$kflags" && grep -q -- '-c kernel/acpi.c"' <<<"$kflags" &&
		! grep -q -- '-ffreestanding' <<<"$hflags"; then
		ok "compile_commands.json: kernel files with the kernel's flags, host files with the host's"
	else
		fail "compile_commands.json: kernel files with the kernel's flags, host files with the host's" \
			"kernel/acpi.c: $kflags; tools/aplog/main.c: $hflags"
	fi
	if command -v python3 >/dev/null; then
		if why=$(python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$db" 2>&1); then
			ok "compile_commands.json is valid JSON"
		else
			fail "compile_commands.json is valid JSON" "$why"
		fi
	else
		skip "compile_commands.json is valid JSON" "python3 is not installed"
	fi
	if command -v clangd >/dev/null; then
		if timeout 120 clangd --check=smp/one_ap.c >"$tmp/clangd" 2>&1 &&
			grep -q 'All checks completed, 0 errors' "$tmp/clangd"; then
			ok "clangd reads smp/one_ap.c through it with no error"
		else
			fail "clangd reads smp/one_ap.c through it with no error" "$(grep -E 'E\[|error' "$tmp/clangd" | head -n 5)"
		fi
	else
		skip "clangd reads smp/one_ap.c through it with no error" "clangd is not installed"
	fi
else
	fail "make compile_commands.json" "it failed" "$(tail -n 5 "$tmp/compdb.out")"
fi

# ---- make debug: the blob's symbols at its run-time address, in gdb
if ! command -v gdb >/dev/null; then
	skip "make debug: a gdb session in the trampoline" "gdb is not installed (package gdb)"
else
	timeout 300 make --no-print-directory debug WBINVD=0 SLOW_TRAMP_NS=0 MAX_CPUS=512 \
		DEBUG_SMP=2 DEBUG_TIMEOUT=120 DEBUG_PORT=$((20000 + $$ % 10000)) \
		DEBUG_BATCH=tests/tools/debug-session.gdb ARGS=cycles=1 >"$tmp/debug.out" 2>&1
	tramp=$(sed -n 's/^test: tramp=\(0x[0-9a-f]*\)$/\1/p' "$tmp/debug.out")
	if grep -q "^apstart: trampoline installed at $tramp, its symbols loaded there" "$tmp/debug.out" &&
		[ -n "$tramp" ]; then
		ok "make debug: gdb loads the blob's symbols where the kernel installs it ($tramp)"
	else
		fail "make debug: gdb loads the blob's symbols where the kernel installs it" "no such message" \
			"$(tail -n 20 "$tmp/debug.out")"
	fi
	if grep -q '^real_mode_entry in section .text of .*/trampoline.elf$' "$tmp/debug.out"; then
		ok "make debug: a breakpoint by symbol in the 16-bit code; tramp-where names it"
	else
		fail "make debug: a breakpoint by symbol in the 16-bit code; tramp-where names it" "not seen" \
			"$(tail -n 20 "$tmp/debug.out")"
	fi
	if grep -q 'hit Breakpoint 3, long_mode_entry () at realmode/trampoline.asm:' "$tmp/debug.out" &&
		grep -q '^test: stopped in long_mode_entry in section .text' "$tmp/debug.out"; then
		ok "make debug: tramp-continue leaves real mode; the 64-bit breakpoint has its source line"
	else
		fail "make debug: tramp-continue leaves real mode; the 64-bit breakpoint has its source line" "not seen" \
			"$(tail -n 20 "$tmp/debug.out")"
	fi
	# The address gdb used is the one the kernel reports, and the run ended
	# normally once the breakpoints were gone.
	if [ -n "$tramp" ] && why=$(build/host/aplog verify --cpus 2 --cycles 1 --boot "tramp=$tramp" \
		build/debug/serial.log 2>&1); then
		ok "make debug: the run under gdb completes, @boot tramp=$tramp"
	else
		fail "make debug: the run under gdb completes, @boot tramp=$tramp" "${why:-no address}"
	fi
fi

# ---- exit codes of make run and the runners; what make run shows
# shellcheck source=tests/tools/exit-codes.sh
. tests/tools/exit-codes.sh
# ---- no pass without a run, no log lost, statuses through make, builds
# that follow their variables
# shellcheck source=tests/tools/refusals.sh
. tests/tools/refusals.sh
# ---- the kernel's build knobs: one table, checked values, the recipe
# shellcheck source=tests/tools/knobs.sh
. tests/tools/knobs.sh

summary tools
