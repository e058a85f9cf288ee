# shellcheck shell=bash
# SPDX-License-Identifier: MIT
# apstart (Linux side): the reserved region where apstart's kernel leaves
# its records before a warm reset, for Linux's ramoops to read back.
#
# Layout (ADDR, SIZE = ZONE + 1 MiB):
#   [ADDR, ADDR+ZONE)        ramoops' console zone: the kernel's pstore=ADDR,ZONE
#                            (fs/pstore/ram_core.c's persistent-RAM buffer)
#   [ADDR+ZONE, +4 KiB)      the marker page: a nonce written before each run
#                            and looked for after it, which tells a warm reset
#                            that cleared RAM from a run that left nothing
#   the rest                 unused
# Linux keeps all of it out of its own use with memmap=SIZE$ADDR (E820
# reserved) and reads the zone with ramoops (mem_size = console_size = ZONE,
# no dump, ftrace or pmsg zones: Debian builds ramoops as a module, and
# ftrace_size has a non-zero default that would not fit).

readonly ZONE_DEFAULT=$((2 << 20))
readonly ZONE_MIN=$((64 << 10)) ZONE_MAX=$((64 << 20))
readonly MARK_OFFSET_PAD=$((1 << 20))
# The region goes at or above FLOOR (out of the way of the boot loader's
# and the kernel's low placements) and below 4 GiB (a 32-bit kernel reaches
# it; firmware puts its own run-time data at the top of that space, and
# GRUB its initrd as high as it can, so the lowest fit above the floor is
# the one least likely to be touched between the reset and Linux).
readonly REGION_FLOOR=$((256 << 20)) REGION_FLOOR_SMALL=$((64 << 20))
readonly REGION_CEILING=$((4 << 30)) REGION_ALIGN=$((2 << 20))

# The setup file's values (empty when there is no setup).
REGION_ADDR='' REGION_SIZE='' REGION_ZONE=''
region_load() {
	REGION_ADDR='' REGION_SIZE='' REGION_ZONE=''
	[ -f "$P_SETUP_CFG" ] || return 1
	# read by the shell, as sed -n 's/^KEY=\([0-9a-fA-Fx]*\)$/\1/p' would:
	# every such line's value (two make the value invalid), the others not
	local line v key
	local -A got=()
	while IFS= read -r line || [ -n "$line" ]; do
		[[ $line =~ ^(APSTART_REGION_ADDR|APSTART_REGION_SIZE|APSTART_ZONE_SIZE)=([0-9a-fA-Fx]*)$ ]] || continue
		got[${BASH_REMATCH[1]}]+=${BASH_REMATCH[2]}$'\n'
	done 2>/dev/null <"$P_SETUP_CFG"
	for key in APSTART_REGION_ADDR APSTART_REGION_SIZE APSTART_ZONE_SIZE; do
		v=${got[$key]-}
		while [[ $v == *$'\n' ]]; do v=${v%$'\n'}; done
		got[$key]=$v
	done
	REGION_ADDR=$(to_dec "${got[APSTART_REGION_ADDR]}")
	REGION_SIZE=$(to_dec "${got[APSTART_REGION_SIZE]}")
	REGION_ZONE=$(to_dec "${got[APSTART_ZONE_SIZE]}")
	if [ -z "$REGION_ADDR" ] || [ -z "$REGION_SIZE" ] || [ -z "$REGION_ZONE" ]; then
		warn "$P_SETUP_CFG does not say the region (APSTART_REGION_ADDR, _SIZE, APSTART_ZONE_SIZE): ignored"
		REGION_ADDR='' REGION_SIZE='' REGION_ZONE=''
		return 1
	fi
	return 0
}
region_mark_addr() { echo $((REGION_ADDR + REGION_ZONE)); }

# The words the setup puts on Linux's command line.
region_memmap_word() { printf 'memmap=%s$%s' "$(memmap_size "$REGION_SIZE")" "$(hex "$REGION_ADDR")"; }
region_ramoops_words() {
	printf 'pstore.backend=ramoops ramoops.mem_address=%s ramoops.mem_size=%s ramoops.console_size=%s ramoops.record_size=0 ramoops.ftrace_size=0 ramoops.pmsg_size=0' \
		"$(hex "$REGION_ADDR")" "$(hex "$REGION_ZONE")" "$(hex "$REGION_ZONE")"
}

# ram_ranges: "START END" (END exclusive, decimal) of the firmware's RAM,
# one a line: /sys/firmware/memmap (the firmware's own map, as it was
# before memmap= edited Linux's), else /proc/iomem's top-level System RAM.
ram_ranges() {
	local d s e t
	if [ -d "$P_SYS/firmware/memmap" ]; then
		for d in "$P_SYS"/firmware/memmap/*/; do
			[ -f "$d/type" ] || continue
			IFS= read -r t <"$d/type"
			[ "$t" = "System RAM" ] || continue
			IFS= read -r s <"$d/start"
			IFS= read -r e <"$d/end"
			s=$(to_dec "$s") e=$(to_dec "$e")
			[ -n "$s" ] && [ -n "$e" ] && echo "$s $((e + 1))"
		done | sort -n
		return
	fi
	sed -n 's/^\([0-9a-fA-F]*\)-\([0-9a-fA-F]*\) : System RAM$/\1 \2/p' "$P_PROC/iomem" 2>/dev/null |
		while read -r s e; do echo "$((16#$s)) $((16#$e + 1))"; done | sort -n
}

# busy_ranges: "START END NAME" (END exclusive) of what must not be chosen
# inside RAM (/proc/iomem): the running kernel (its code, rodata, data,
# bss: where Linux loads without KASLR at the next boot too), the crash
# kernel's reservation (crashkernel=), persistent memory, and any other
# reservation already there (a second setup, someone else's memmap=).
busy_ranges() {
	sed -n 's/^ *\([0-9a-fA-F]*\)-\([0-9a-fA-F]*\) : \(Kernel code\|Kernel rodata\|Kernel data\|Kernel bss\|Crash kernel\|Persistent Memory.*\|Reserved\|ramoops\)$/\1 \2 \3/p' \
		"$P_PROC/iomem" 2>/dev/null |
		while read -r s e n; do echo "$((16#$s)) $((16#$e + 1)) $n"; done
}

# map_entries: "START END TYPE" of every entry of the firmware's map
# (/sys/firmware/memmap), else of /proc/iomem's top level: what is where.
map_entries() {
	local d s e t
	if [ -d "$P_SYS/firmware/memmap" ]; then
		for d in "$P_SYS"/firmware/memmap/*/; do
			[ -f "$d/type" ] || continue
			IFS= read -r s <"$d/start"
			IFS= read -r e <"$d/end"
			IFS= read -r t <"$d/type"
			echo "$(to_dec "$s") $(($(to_dec "$e") + 1)) $t"
		done | sort -n
		return
	fi
	sed -n 's/^\([0-9a-fA-F]*\)-\([0-9a-fA-F]*\) : \(.*\)$/\1 \2 \3/p' "$P_PROC/iomem" 2>/dev/null |
		while read -r s e n; do echo "$((16#$s)) $((16#$e + 1)) $n"; done
}

# iomem_names ADDR END: what /proc/iomem names in ADDR..END (all levels),
# "0xS-0xE NAME" joined by "; ".
iomem_names() {
	local a=$1 z=$2 s e n t=''
	while read -r s e n; do
		[ -n "$s" ] || continue
		s=$((16#$s)) e=$((16#$e + 1))
		[ "$s" -lt "$z" ] && [ "$a" -lt "$e" ] && t+="${t:+; }$(hex "$s")-$(hex $((e - 1))) $n"
	done < <(sed -n 's/^ *\([0-9a-fA-F]*\)-\([0-9a-fA-F]*\) : \(.*\)$/\1 \2 \3/p' "$P_PROC/iomem" 2>/dev/null)
	echo "$t"
}

# kernels_elf64: both installed kernels are ELF64 (x86_64; EI_CLASS, the
# ELF header's byte 4, is 2), which map a zone above 4 GiB themselves
# (kernel/paging.c: 2 MiB pages); the i386 kernel's 32-bit paging stops at
# 4 GiB. Prints the first that is not, status 1.
kernels_elf64() {
	local w f
	for w in 0 1; do
		f=$P_BOOT/apstart-wbinvd$w.elf
		[ -f "$f" ] || continue
		if [ "$(head -c 5 "$f" 2>/dev/null | od -An -tx1 | tr -d ' \n')" != 7f454c4602 ]; then
			echo "$f"
			return 1
		fi
	done
	return 0
}

# region_problem ADDR SIZE [own]: why ADDR..ADDR+SIZE cannot hold the
# region, one line, status 0; status 1 when it can. own: it is the region
# this machine already reserves (its own reservation in /proc/iomem is no
# obstacle).
region_problem() {
	local a=$1 size=$2 own=${3:-} z=$(($1 + $2)) s e n k what=''
	if [ "$a" -lt $((1 << 20)) ]; then
		echo "it starts in the first MiB ($(hex "$a") < 0x100000), which Linux needs: a page of it for the real-mode trampoline that starts its own CPUs (reserve_real_mode(), arch/x86/realmode/init.c), the rest for the BIOS's data; memmap= there would take it"
		return 0
	fi
	if [ "$z" -gt $((4 << 30)) ] && ! k=$(kernels_elf64); then
		echo "it ends above 4 GiB, and $k is not an x86_64 (ELF64) kernel: the i386 kernel's 32-bit paging reaches only the first 4 GiB (kernel/paging.c), so it would refuse pstore= there and the records would be lost"
		return 0
	fi
	while read -r s e; do
		[ -n "$s" ] && [ "$s" -le "$a" ] && [ "$z" -le "$e" ] && what=ram
	done <<<"$(ram_ranges)"
	# without the firmware's own map, /proc/iomem shows the region this
	# machine reserves as Reserved (memmap=), not as RAM
	if [ "$what" != ram ] && [ -n "$own" ] && [ ! -d "$P_SYS/firmware/memmap" ] &&
		grep -qix "$(printf '%08x-%08x' "$a" $((z - 1))) : Reserved" "$P_PROC/iomem" 2>/dev/null; then
		what=ram
	fi
	if [ "$what" != ram ]; then
		while read -r s e n; do
			[ -n "$s" ] && [ "$s" -lt "$z" ] && [ "$a" -lt "$e" ] && [ "$n" != "System RAM" ] &&
				what+="${what:+, }$n $(hex "$s")-$(hex $((e - 1)))"
		done <<<"$(map_entries)"
		n=$(iomem_names "$a" "$z")
		[ -n "$what" ] || what="no entry: MMIO or a hole, as the local APIC page at 0xfee00000"
		[ -z "$n" ] || what+="; /proc/iomem: $n"
		k=/proc/iomem
		[ -d "$P_SYS/firmware/memmap" ] && k=/sys/firmware/memmap
		echo "$(hex "$a")-$(hex $((z - 1))) is not wholly RAM in the firmware's map ($k: $what); the firmware or a device uses it, and the records would not survive there (RAM map: $(ram_map_text))"
		return 0
	fi
	n=$(first_overlap "$a" "$z" "$own" <<<"$(busy_ranges)") || return 1
	echo "it overlaps $n (/proc/iomem)"
	return 0
}

# first_overlap ADDR END [inside-ok]: of the "START END NAME" lines on
# standard input, the first that overlaps ADDR..END, as "NAME at 0xS-0xE";
# status 1 when none does. inside-ok: lines wholly inside do not count.
first_overlap() {
	local a=$1 z=$2 inside_ok=${3:-} s e n
	while read -r s e n; do
		[ -n "$s" ] || continue
		[ -n "$inside_ok" ] && [ "$a" -le "$s" ] && [ "$e" -le "$z" ] && continue
		if [ "$s" -lt "$z" ] && [ "$a" -lt "$e" ]; then
			echo "$n at $(hex "$s")-$(hex $((e - 1)))"
			return 0
		fi
	done
	return 1
}

# ram_map_text: the RAM ranges as 0xSTART-0xEND, comma-separated.
ram_map_text() {
	local s e t=''
	while read -r s e; do [ -n "$s" ] && t+="${t:+, }$(hex "$s")-$(hex $((e - 1)))"; done <<<"$(ram_ranges)"
	echo "${t:-none found}"
}

# pick_region SIZE: the lowest REGION_ALIGN-aligned address at or above the
# floor where SIZE bytes of RAM are free, below 4 GiB; prints it, or
# nothing. The 256 MiB floor drops to 64 MiB on a machine too small.
pick_region() {
	local size=$1 floor a
	for floor in $REGION_FLOOR $REGION_FLOOR_SMALL; do
		a=$( { ram_ranges | sed 's/^/ram /'; busy_ranges | cut -d' ' -f1,2 | sed 's/^/busy /'; } |
			awk -v size="$size" -v floor="$floor" -v ceil="$REGION_CEILING" -v align="$REGION_ALIGN" '
			$1 == "ram" { n++; rs[n] = $2; re[n] = $3 }
			$1 == "busy" { m++; bs[m] = $2; be[m] = $3 }
			END {
				for (i = 1; i <= n; i++) {
					a = rs[i] < floor ? floor : rs[i]
					a = int((a + align - 1) / align) * align
					for (;;) {
						if (a + size > re[i] || a + size > ceil) break
						moved = 0
						for (j = 1; j <= m; j++)
							if (a < be[j] && bs[j] < a + size) {
								a = int((be[j] + align - 1) / align) * align
								moved = 1
							}
						if (!moved) { printf "%.0f\n", a; exit }
					}
				}
			}')
		[ -n "$a" ] && { echo "$a"; return 0; }
	done
	return 1
}

# region_in_use: Linux booted with the region reserved: the command line
# has the setup's memmap= and ramoops words, and /proc/iomem shows no
# System RAM inside it. Prints why not, status 1.
region_in_use() {
	local w c
	c=" $(cmdline) "
	for w in "$(region_memmap_word)" "ramoops.mem_address=$(hex "$REGION_ADDR")"; do
		if [[ $c != *" $w "* ]]; then
			echo "this boot started without it (/proc/cmdline has no $w)"
			return 1
		fi
	done
	local ram
	# top-level System RAM lines, read by the shell
	ram=$(while IFS= read -r line; do
		[[ $line =~ ^([0-9a-fA-F]*)-([0-9a-fA-F]*)\ :\ System\ RAM$ ]] &&
			echo "$((16#${BASH_REMATCH[1]})) $((16#${BASH_REMATCH[2]} + 1)) System RAM"
	done 2>/dev/null <"$P_PROC/iomem")
	ram=$(first_overlap "$REGION_ADDR" $((REGION_ADDR + REGION_SIZE)) <<<"$ram") || return 0
	echo "the command line asks for it, but /proc/iomem still shows $ram inside it"
	return 1
}

# refuse_no_region: the setup done and this boot started with it.
refuse_no_region() {
	if ! region_load; then
		refuse "no region of RAM is reserved for apstart's records ($P_SETUP_CFG: apstart setup has not been run)" \
			"apstart setup    (then reboot once, and run this again)"
	fi
	local why
	if ! why=$(region_in_use); then
		refuse "apstart setup reserved $(size_text "$REGION_SIZE") at $(hex "$REGION_ADDR"), but $why" \
			"reboot once (the reservation takes effect at the next boot), then run this again"
	fi
}
