#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Crafted MADTs inside the VM: each case is a small ISO whose GRUB menu
# replaces QEMU's MADT with one made by tests/madt/mkmadt (`acpi --exclude=APIC`,
# GRUB's acpi module) and boots the kernel under SeaBIOS + TCG. Every case
# must end with the verdict it expects, never a hang (each boot has a
# timeout), and the log must show the named facts.
#   MKMADT=build/host/mkmadt KERNEL=build/wbinvd0/apstart.elf tests/madt/run.sh
set -uo pipefail
cd "$(dirname "$0")/../.."

mkmadt=${MKMADT:-build/host/mkmadt}
kernel=${KERNEL:-build/wbinvd0/apstart.elf}
out=build/test-logs/madt
work=build/madt-test
mkdir -p "$out" "$work"
pass=0 fail=0 skip=0

if ! [ -e /usr/lib/grub/i386-pc/acpi.mod ]; then
	echo "skip madt: GRUB's i386-pc acpi module is missing (grub-pc-bin)"
	echo "madt: 0 passed, 0 failed, 1 skipped"
	exit 0
fi

# run NAME EXPECT(pass|fail) "MKMADT ARGS (OUT for the file)" "KERNEL ARGS" REGEX...
run() {
	local name=$1 expect=$2 tables=$3 args=$4; shift 4
	local dir=$work/$name log=$out/$name.log t0=$SECONDS why=
	rm -rf "$dir"; mkdir -p "$dir/boot/grub"
	# The kernel without its debug sections (its loaded bytes the same),
	# which GRUB's multiboot2 would load too
	objcopy --strip-debug "$kernel" "$dir/boot/apstart.elf"
	# shellcheck disable=SC2086
	if ! "$mkmadt" ${tables/OUT/$dir/boot/madt.aml} >"$log" 2>&1; then
		fail=$((fail + 1)); echo "FAIL $name: mkmadt failed: $(cat "$log")"; return
	fi
	cat >"$dir/boot/grub/grub.cfg" <<-CFG
		set timeout=0
		set default=0
		serial --unit=0 --speed=115200
		terminal_input serial
		terminal_output serial
		menuentry "apstart on a crafted MADT: $name" {
			acpi --exclude=APIC /boot/madt.aml
			multiboot2 /boot/apstart.elf $args
			set gfxpayload=text
		}
	CFG
	# BIOS GRUB only, with the modules this menu needs: a 1 MB image, not
	# grub-mkrescue's 21 MB of both platforms' modules, fonts and locales
	if ! grub-mkrescue -d /usr/lib/grub/i386-pc --fonts= --locales= --themes= \
		--install-modules="multiboot2 serial terminal normal iso9660 biosdisk acpi" \
		-o "$dir.iso" "$dir" >"$dir.mkrescue.log" 2>&1; then
		fail=$((fail + 1)); echo "FAIL $name: grub-mkrescue failed ($dir.mkrescue.log)"; return
	fi
	tools/run/iso-run.sh --firmware bios --iso "$dir.iso" --accel tcg --smp 4 \
		--timeout 90 >"$log" 2>&1
	local st=$?
	case "$expect/$st" in
	pass/0 | fail/1) ;;
	*) why="exit status $st, want $([ "$expect" = pass ] && echo 0 || echo 1) (2 = no verdict)" ;;
	esac
	if [ -z "$why" ] && ! grep -aq "^acpi: MADT: 1 placeholder" "$log" &&
		! grep -aq "APIC at 0x.* bad checksum" "$log"; then
		why="the crafted MADT was not the one parsed (no placeholder line)"
	fi
	if [ -z "$why" ]; then
		why=$(tests/qemu/expect.sh "$@" "$log") && why=
	fi
	if [ -z "$why" ]; then
		pass=$((pass + 1)); echo "ok   $name ($((SECONDS - t0))s)"
	else
		fail=$((fail + 1)); echo "FAIL $name: $why (log: $log)"
		tr -d '\r' <"$log" | grep -a -E '^(acpi|smp|cpu|@|PANIC|lapic)' | tail -n 12 | sed 's/^/       | /'
	fi
}

# Every table carries one placeholder entry (LAPIC ID 0xFF, not enabled):
# its summary line proves the crafted table is the one the kernel read.
M=OUT  # replaced by the case's table file
P="lapic:0xFF:0"

for dir in "$work"/*/; do [ -d "$dir" ] && rm -rf "$dir"; done
run crafted-baseline pass "$M $P lapic:0 lapic:1 lapic:2 lapic:3" "cycles=1" \
	"@end status=pass online=4 failed=0 warnings=0"
# Bad checksum on sound entries: used, as Linux's ACPICA does (it warns
# "Incorrect checksum in table [APIC]" and goes on), one warning counted.
run bad-checksum pass "--bad-checksum $M $P lapic:0 lapic:1 lapic:2 lapic:3" "cycles=1" \
	"acpi: APIC at 0x[0-9a-f]+ incorrect checksum 0x[0-9a-f]{2}, should be 0x[0-9a-f]{2}: used" \
	"@warn what=acpi_bad_checksum count=1" "@boot .* cpus=4 " \
	"@end status=pass online=4 failed=0 warnings=1"
# Bad checksum and entries that do not hold together (the length cuts the
# last one in half): garbage, refused; with no MADT, a clean stop.
run bad-checksum-bad-structure fail "--bad-checksum --length $((44 + 8 + 8 + 8 + 4)) $M $P lapic:0 lapic:1 lapic:2" \
	"cycles=1" "acpi: APIC at 0x[0-9a-f]+ bad checksum \(0x[0-9a-f]{2}, should be 0x[0-9a-f]{2}\) and its structure does not hold, skipped" \
	"PANIC: no usable MADT" "@warn what=acpi_table_skipped count=1" "@end status=fail "
# A LAPIC entry 10 bytes long (skipped), then the table length cuts the
# last entry in half: CPUs 0-2 run, two warnings.
run bad-lengths pass "--length $((44 + 8 + 8 + 8 + 10 + 8 + 4)) $M $P lapic:0 lapic:1 raw:000A0509010000000000 lapic:2 lapic:3" \
	"cycles=1" "acpi: MADT entry type 0 at offset 68: length != 8, skipped" \
	"runs past the table end, stopping" "@warn what=madt_bad_entry count=1" \
	"@warn what=madt_truncated count=1 stop_offset=86" \
	"@end status=pass online=3 failed=0 warnings=2"
# A zero-length entry ends the walk: the CPUs behind it are not seen.
run zero-length-entry pass "$M $P lapic:0 lapic:1 raw:0000 lapic:2 lapic:3" "cycles=1" \
	"has length 0, stopping" "@warn what=madt_truncated count=1 stop_offset=68" \
	"@end status=pass online=2 failed=0 warnings=1"
# The same CPUs listed twice (type 0 again, type 9 for an ID < 255).
run duplicates pass "$M $P lapic:0 lapic:1 lapic:2 lapic:3 lapic:2 x2apic:3" "cycles=1" \
	"lists APIC ID 2 again" "lists APIC ID 3 again" "@warn what=madt_duplicate count=2" \
	"@boot .* cpus=4 " "@end status=pass online=4 failed=0 warnings=1"
# A CPU the machine does not have: it times out, is named, the run goes on.
run cpu-does-not-exist fail "$M $P lapic:0 lapic:1 lapic:9 lapic:2 lapic:3" "cycles=1 ap_timeout_ms=300" \
	"APIC ID 9 did not come online within 300 ms; last stage: 0 " \
	"@fail what=ap_timeout apic=9 stage=0" "@cpu cpu=4 apic=3 state=online" \
	"@sample cpu=4 apic=3 cycle=1 op=online" "@end status=fail online=4 failed=1"
# The BSP missing: counted as CPU 0 all the same, APs keep numbers 1-3.
run bsp-missing pass "$M $P lapic:1 lapic:2 lapic:3" "cycles=1" \
	"the boot CPU \(APIC ID 0\) is not in the MADT" "@warn what=bsp_not_in_madt apic=0" \
	"@boot .* cpus=4 " "@cpu cpu=1 apic=1 state=online" \
	"@end status=pass online=4 failed=0 warnings=1"
# x2APIC IDs 0xFF, 0x100, 0x101 under xAPIC (QEMU 7.2's TCG has no
# x2APIC): never sent an IPI (0x100 would be the BSP, 0xFF a broadcast,
# 0x101 AP 1), each skipped and named.
run x2apic-ids-under-xapic pass "$M $P lapic:0 lapic:1 lapic:2 lapic:3 x2apic:0xFF x2apic:0x100 x2apic:0x101" \
	"cycles=2" "which this CPU lacks: those CPUs are skipped" \
	"@cpu cpu=4 apic=255 state=skipped reason=x2apic_unsupported" \
	"@cpu cpu=5 apic=256 state=skipped reason=x2apic_unsupported" \
	"@cpu cpu=6 apic=257 state=skipped reason=x2apic_unsupported" \
	"@sample cpu=1 apic=1 cycle=2 op=online" \
	"@end status=pass online=4 failed=0 warnings=3"

echo "madt: $pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]
