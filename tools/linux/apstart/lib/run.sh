# shellcheck shell=bash
# SPDX-License-Identifier: MIT
# apstart run: one run of apstart's kernel from the running Linux, and the
# way back: either kexec straight into it (kexec_load, --type
# multiboot2-x86), or a one-shot GRUB entry (grub-reboot) and a reboot.
# The kernel leaves its records in the reserved region (pstore=) and, on
# UEFI through GRUB, its summary in NVRAM; then it resets the machine
# (exit=reboot, a warm reset) and Linux files them at boot (apstart collect).
#
# Before leaving, the run is written down in $P_PENDING (what, how, when,
# the nonce), so that the next boot knows what it is looking for.

# The kernel's options for a run from Linux (docs/from-linux.md, the kernel
# side): where the records go, how the run ends, and what kexec's
# multiboot2 information lacks (the RSDP; whether the firmware is UEFI).
KOPT_PSTORE=pstore
KOPT_EXIT="exit=reboot"
KOPT_RSDP=acpi_rsdp
KOPT_FIRMWARE=firmware

kernel_file() { echo "$P_BOOT/apstart-wbinvd$1.elf"; }

# rsdp_addr: the ACPI RSDP address Linux was given by UEFI
# (/sys/firmware/efi/systab: ACPI20= for ACPI 2.0+, else ACPI=).
rsdp_addr() {
	local f=$P_SYS/firmware/efi/systab a
	[ -r "$f" ] || return 1
	a=$(sed -n 's/^ACPI20=\(0x[0-9a-fA-F]*\)$/\1/p' "$f" | head -1)
	[ -n "$a" ] || a=$(sed -n 's/^ACPI=\(0x[0-9a-fA-F]*\)$/\1/p' "$f" | head -1)
	[ -n "$a" ] && echo "$a"
}

# linux_serial_console: console=ttySn[,baud] from Linux's own command line
# (the port a BMC's serial-over-LAN shows), so that apstart prints there too.
linux_serial_console() {
	local w c=
	for w in $(cmdline); do
		case $w in console=ttyS[0-9]*) c=${w#console=} ;; esac
	done
	[ -n "$c" ] && echo "console=${c%%n8*}"
}

# check_kernel_options TEXT: only what the kernel's parser can take, and
# nothing GRUB's script or a shell would read as syntax; run_id= is
# apstart's own.
check_kernel_options() {
	[[ $1 =~ ^[A-Za-z0-9_.,:=/+\ -]*$ ]] ||
		usage_error "kernel options may hold letters, digits and _ . , : = / + - only: '$1'"
	[[ " $1" != *" run_id="* ]] ||
		usage_error "run_id= is apstart's to give: one per run, made when the run is asked for (its records are filed by it)"
}

# new_run_id: the run's name, made when it is asked for: UTC time and 32
# random bits, in the kernel's run_id= alphabet (letters, digits, - _;
# at most 32), e.g. r20250314T093000-9f3a61c2. The kernel prints it in
# @boot and @end; collect files a record under a run only by it.
new_run_id() {
	printf 'r%s-%s' "$(date -u +%Y%m%dT%H%M%S)" "$(od -An -tx1 -N4 /dev/urandom | tr -d ' \n')"
}

# boot_id: this boot, as the kernel names it (a random UUID per boot):
# what tells "written during this boot" from "written before the last
# reboot", which the wall clock cannot (a clock set back, a skewed RTC).
boot_id() { tr -d '\n' <"$P_BOOT_ID" 2>/dev/null; }

new_nonce() {
	od -An -tx1 -N16 /dev/urandom | tr -d ' \n'
}

# mark_write NONCE: the marker page gets "apstart-mark NONCE"; prints
# "written" or "unavailable: WHY". Through /dev/mem: the region is E820
# reserved (not System RAM) and the marker page is outside the zone
# ramoops claims, so CONFIG_STRICT_DEVMEM lets root write it.
MARK_MAGIC="apstart-mark"
mark_write() {
	local nonce=$1 page text back
	page=$(( $(region_mark_addr) / 4096 ))
	text="$MARK_MAGIC $nonce"
	if ! printf '%s\n' "$text" | dd of="$P_DEVMEM" bs=4096 seek="$page" conv=notrunc status=none 2>/dev/null; then
		echo "unavailable: cannot write /dev/mem at $(hex $((page * 4096)))"
		return
	fi
	back=$(mark_read)
	if [ "$back" = "$nonce" ]; then
		echo written
	else
		echo "unavailable: /dev/mem at $(hex $((page * 4096))) did not read back what was written"
	fi
}
# mark_read: the nonce in the marker page, or nothing.
mark_read() {
	local page
	page=$(( $(region_mark_addr) / 4096 ))
	dd if="$P_DEVMEM" bs=4096 skip="$page" count=1 status=none 2>/dev/null | head -c 64 | tr -d '\0' |
		sed -n "1s/^$MARK_MAGIC \([0-9a-f]\{32\}\)$/\1/p"
}

# write_pending KEY=VALUE...: the run in flight, on disk before leaving.
write_pending() {
	mkdir -p "$P_STATE" || fail "cannot create $P_STATE"
	printf '%s\n' "$@" | write_file "$P_PENDING" || fail "cannot write $P_PENDING"
}
pending_value() { file_value "$P_PENDING" "$1"; }
# clear_pending: the run in flight forgotten, on disk before going on: a
# power cut must not bring the file back (the next collect would take it
# for a run that brought nothing back).
clear_pending() { rm -f "$P_PENDING" && sync_file "$P_STATE"; }

# leave_linux HOW: hand over to the loaded kernel (kexec) or reboot.
# Returns (status 1, having said why) when the machine did not go: the
# command failed, or, through systemd, Linux was still here
# APSTART_LEAVE_WAIT seconds (default 300) after the request (a shutdown
# kills this process long before; 0: no wait, the tests).
leave_linux() {
	local how=$1 wait=${APSTART_LEAVE_WAIT:-300}
	sync
	if have_systemd; then
		say "systemctl $how: Linux shuts down cleanly first"
		systemctl --no-block "$how" || { warn "systemctl $how failed"; return 1; }
	elif [ "$how" = kexec ]; then
		say "kexec -e (no systemd here)"
		kexec -e || { warn "kexec -e failed"; return 1; }
	else
		say "reboot"
		reboot || { warn "reboot failed"; return 1; }
	fi
	[ "$wait" -gt 0 ] 2>/dev/null || return 0
	sleep "$wait"
	warn "Linux is still running $wait s after the $how was asked for"
	return 1
}

# unload_kexec: the kernel kexec -l loaded for a run, unloaded (kexec -u):
# left loaded, systemd >= 255 would start it at the next plain reboot.
unload_kexec() {
	[ "$(cat "$P_SYS/kernel/kexec_loaded" 2>/dev/null)" = 0 ] && return 0
	command -v kexec >/dev/null 2>&1 || return 0
	if kexec -u 2>/dev/null && [ "$(cat "$P_SYS/kernel/kexec_loaded" 2>/dev/null)" != 1 ]; then
		say "kexec -u: the kernel loaded for the run is unloaded (a reboot now starts Linux, not apstart)"
	else
		warn "kexec -u failed: a kernel stays loaded, and systemd >= 255 starts it at the next reboot"
	fi
}

# disarm_run: a run asked for and not started taken back, all of it: the
# pending file, grubenv's one-shot (next_entry, apstart_options), the
# kernel loaded for kexec. The routine reboot that comes next is Linux's.
disarm_run() {
	local via id
	via=$(pending_value via) id=$(pending_value run_id)
	[ -n "$id" ] && run_history_add "$id" "taken back: the machine did not leave Linux"
	[ -n "$(pending_value watchdog)" ] && watchdog_disarm
	clear_pending
	disarm_one_shot
	[ "$via" = kexec ] && unload_kexec
	return 0
}

# run_prepare VIA WBINVD: every check for a run that way, refusing with the
# reason; sets RUN_KERNEL and RUN_ARGS (the options apstart adds).
run_prepare() {
	local via=$1 w=$2 fw
	need_root
	refuse_cvm
	RUN_KERNEL=$(kernel_file "$w")
	[ -f "$RUN_KERNEL" ] ||
		refuse "apstart's kernel $RUN_KERNEL is not installed" "install the apstart package (or make install)"
	fw=$(firmware)
	RUN_ARGS=()
	case $via in
	kexec)
		refuse_secure_boot kexec
		refuse_no_kexec
		refuse_no_region
		RUN_ARGS+=("$KOPT_PSTORE=$(hex "$REGION_ADDR"),$(hex "$REGION_ZONE")" "$KOPT_EXIT")
		if [ "$fw" = uefi ]; then
			local rsdp
			rsdp=$(rsdp_addr) ||
				refuse "UEFI machine, but /sys/firmware/efi/systab has no ACPI20= or ACPI= line: kexec's multiboot2 information has no RSDP, and apstart could not find the CPUs" \
					"use --via grub (GRUB hands the kernel the RSDP)"
			RUN_ARGS+=("$KOPT_RSDP=$rsdp" "$KOPT_FIRMWARE=uefi")
		else
			RUN_ARGS+=("$KOPT_FIRMWARE=bios")
		fi
		;;
	grub)
		refuse_secure_boot grub
		refuse_readonly_boot "grub-reboot writes /boot/grub/grubenv"
		need_tool grub-reboot grub2-common "it picks the entry for the next boot only"
		need_tool grub-editenv grub-common "it hands the run's options to the entry"
		local id="apstart-wbinvd$w"
		if ! grep -q -- "--id $id " "$P_GRUB_CFG" 2>/dev/null; then
			local why=''
			if grub_disabled; then why=GRUB_DISABLE_APSTART=true
			elif why=$(grub_default_clash); then why="$why, so 90_apstart writes none"
			fi
			refuse "grub.cfg has no menu entry '$id'${why:+ ($why)}" \
				"apstart setup   (runs update-grub, and says what stands in the way: GRUB_DISABLE_APSTART, GRUB_DEFAULT)"
		fi
		refuse_grubenv_unwritable
		if region_load && region_in_use >/dev/null; then
			# the entries carry pstore= since setup's update-grub
			grub_entry_line "$id" | grep -q " $KOPT_PSTORE=" ||
				RUN_ARGS+=("$KOPT_PSTORE=$(hex "$REGION_ADDR"),$(hex "$REGION_ZONE")")
		elif [ "$fw" = bios ]; then
			refuse_no_region
		fi
		RUN_ARGS+=("$KOPT_EXIT")
		;;
	*) usage_error "--via must be kexec or grub, not '$via'" ;;
	esac
	local c
	c=$(linux_serial_console) && RUN_ARGS+=("$c")
	return 0
}

# warn_watchdog: a hardware watchdog that is running now may keep counting
# while apstart's kernel runs (nothing pets it there), and reset the
# machine when it expires: where Linux does not stop it on the way out
# (watchdog.stop_on_reboot=0, a driver that does not ask to be stopped, a
# BMC's), or when it cannot be stopped ("watchdog did not stop!").
# apstart run --watchdog makes that the point (lib/watchdog.sh).
warn_watchdog() {
	local d st t
	for d in "$P_SYS"/class/watchdog/watchdog*; do
		[ -r "$d/state" ] || continue
		st=$(cat "$d/state" 2>/dev/null)
		[ "$st" = active ] || continue
		t=$(cat "$d/timeout" 2>/dev/null)
		warn "the hardware watchdog ${d##*/} ($(cat "$d/identity" 2>/dev/null)) is running${t:+ (timeout $t s)}: it resets the machine if apstart's run takes longer, and such a run comes back interrupted"
	done
}

# warn_zone_size OPTIONS...: a run prints about 250 bytes per AP and cycle
# (docs/from-linux.md, the kernel's measure); a zone smaller than that
# keeps only the run's end (@summary, @end: the rows, not every sample).
warn_zone_size() {
	[ -n "${REGION_ZONE:-}" ] || return 0
	local w cycles=10 cpus need
	for w in "$@"; do case $w in cycles=[0-9]*) cycles=${w#cycles=} ;; esac; done
	cpus=$(grep -c '^processor' "$P_PROC/cpuinfo" 2>/dev/null)
	[[ $cpus =~ ^[0-9]+$ ]] && [[ $cycles =~ ^[0-9]+$ ]] || return 0
	need=$((cpus * cycles * 250 + 16384))
	[ "$need" -le "$REGION_ZONE" ] && return 0
	warn "this run prints about $(size_text $(((need + 1023) / 1024 * 1024))) ($cpus CPUs, cycles=$cycles) and the zone holds $(size_text "$REGION_ZONE"): only its end comes back through pstore (the rows, not every sample); apstart setup --undo, then apstart setup --size 8M, for all of it"
}

# refuse_grubenv_unwritable: GRUB clears next_entry with save_env, which
# writes the grubenv file's sectors in place; on LVM, RAID or encrypted
# disks, and on btrfs and ZFS, it cannot, and the one-shot entry would be
# booted again and again.
refuse_grubenv_unwritable() {
	command -v grub-probe >/dev/null 2>&1 || return 0
	local dir abs fs
	dir=$(dirname "$P_GRUBENV")
	abs=$(grub-probe --target=abstraction "$dir" 2>/dev/null | tr '\n' ' ')
	fs=$(grub-probe --target=fs "$dir" 2>/dev/null)
	if [ -n "${abs// /}" ] || [ "$fs" = btrfs ] || [ "$fs" = zfs ]; then
		refuse "GRUB cannot write its environment block on /boot ($fs${abs:+ on $abs}): its one-shot entry (grub-reboot) would stay the default and every boot would start apstart" \
			"use --via kexec (apstart setup, one reboot), or put /boot on a plain partition"
	fi
}

run_main() {
	local via=kexec w=0 opts=() session_line='' wd='' tramp=''
	while [ $# -gt 0 ]; do
		case $1 in
		--wbinvd) [ $# -ge 2 ] || usage_error "--wbinvd needs 0 or 1"; w=$2; shift ;;
		--watchdog) [ $# -ge 2 ] || usage_error "--watchdog needs seconds"; wd=$2; shift ;;
		--trampoline) [ $# -ge 2 ] || usage_error "--trampoline needs running or a file"; tramp=$2; shift ;;
		--via) [ $# -ge 2 ] || usage_error "--via needs kexec or grub"; via=$2; shift ;;
		--session-run) session_line=$2; shift ;; # from apstart ab
		-h|--help) help_text run; exit 0 ;;
		--) shift; opts=("$@"); break ;;
		*) usage_error "unknown option '$1' (kernel options go after --)" ;;
		esac
		shift
	done
	case $w in 0|1) ;; *) usage_error "--wbinvd must be 0 or 1, not '$w'" ;; esac
	case $via in kexec|grub) ;; *) usage_error "--via must be kexec or grub, not '$via'" ;; esac
	check_kernel_options "${opts[*]}"
	[ -n "$session_line" ] || refuse_session_running

	[ -z "$tramp" ] || [ "$via" = kexec ] ||
		refuse "--trampoline goes via kexec only (kexec --module hands the blob over; the GRUB entries load none)" \
			"apstart run --via kexec --trampoline $tramp"
	run_prepare "$via" "$w"
	[ -z "$wd" ] || refuse_no_watchdog "$wd"
	local module=()
	if [ -n "$tramp" ]; then
		trampoline_prepare "$tramp"
		trampoline_pick "$w"
		module=("--module=$TRAMP_FILE")
		RUN_ARGS+=("$KOPT_TRAMPOLINE")
	fi
	RUN_ID=$(new_run_id)
	local args="${RUN_ARGS[*]} run_id=$RUN_ID${opts[*]:+ ${opts[*]}}"
	if [ -n "$tramp" ]; then
		say "run $RUN_ID: $RUN_KERNEL through $TRAMP_WHAT's own trampoline, $( [ "$w" = 1 ] && echo "as shipped (WITH WBINVD)" || echo "patched (its twin: no WBINVD)"), via $via"
		more "the blob: ${module[0]#--module=}"
	else
		say "run $RUN_ID: $RUN_KERNEL ($( [ "$w" = 1 ] && echo "WITH WBINVD: Linux before the patch" || echo "without WBINVD: patched")), via $via"
	fi
	more "kernel options: $args"
	warn_zone_size "${opts[@]}"
	[ -n "$wd" ] || warn_watchdog
	pending_start "$via" "$w" "$args" "$session_line" "$wd" "${TRAMP_FILE:-}"
	case $via in
	kexec)
		say "kexec -l $RUN_KERNEL --type multiboot2-x86${module[*]:+ ${module[*]}} --command-line=\"$args\""
		local out
		if ! out=$(kexec -l "$RUN_KERNEL" --type multiboot2-x86 "${module[@]}" --command-line="$args" 2>&1); then
			clear_pending
			printf '%s\n' "$out" | sed 's/^/  | /' >&2
			case $out in
			*"Operation not permitted"*)
				refuse "kexec_load was refused (Operation not permitted): kernel lockdown or a security module blocks it" ;;
			*) fail "kexec -l failed (above)" ;;
			esac
		fi
		[ -z "$wd" ] || watchdog_arm "$wd" kexec || { disarm_run; fail "the watchdog could not be armed (above): the run $RUN_ID was taken back"; }
		say "the machine leaves Linux now; the run's records come back at the next boot (apstart collect)"
		leave_linux kexec || { disarm_run; fail "the machine did not leave Linux: the run $RUN_ID was taken back (above)"; }
		;;
	grub)
		say "grub-editenv: apstart_options=\"$args\" (the entry reads it; cleared when the run is filed)"
		grub-editenv "$P_GRUBENV" set "apstart_options=$args" || { disarm_run; fail "grub-editenv failed"; }
		say "grub-reboot apstart-wbinvd$w (the next boot only)"
		grub-reboot "apstart-wbinvd$w" || { disarm_run; fail "grub-reboot failed"; }
		[ -z "$wd" ] || watchdog_arm "$wd" reboot || { disarm_run; fail "the watchdog could not be armed (above): the run $RUN_ID was taken back"; }
		say "rebooting; the run's records come back at the next boot (apstart collect)"
		leave_linux reboot || { disarm_run; fail "the machine did not reboot: the run $RUN_ID was taken back (above)"; }
		;;
	esac
}

# pending_start VIA WBINVD ARGS [SESSION-LINE [WATCHDOG [LRM-FILE]]]: the nonce in
# the marker page (when the region is in use) and the pending file.
pending_start() {
	local via=$1 w=$2 args=$3 sline=$4 wd=${5:-} tfile=${6:-} nonce mark="unavailable: no region in use"
	nonce=$(new_nonce)
	if [ -n "$REGION_ADDR" ] && region_in_use >/dev/null; then
		mark=$(mark_write "$nonce")
		case $mark in
		written) say "marker: nonce $nonce written at $(hex "$(region_mark_addr)") (found again after the reset = RAM survived it)" ;;
		*) warn "marker $mark: a run that brings nothing back will not tell a cleared RAM from a hang" ;;
		esac
	fi
	# shellcheck disable=SC2046
	write_pending "run_id=$RUN_ID" "nonce=$nonce" "via=$via" "wbinvd=$w" "kernel=$RUN_KERNEL" "cmdline=$args" \
		"firmware=$(firmware)" "mark=$mark" "started=$(now_text)" "clock=$(now_epoch)" "boot_id=$(boot_id)" \
		${REGION_ADDR:+"region=$(hex "$REGION_ADDR"),$(hex "$REGION_ZONE")"} \
		${sline:+"session_run=$sline"} ${wd:+"watchdog=$wd"} ${tfile:+"trampoline=$tfile"}
}
