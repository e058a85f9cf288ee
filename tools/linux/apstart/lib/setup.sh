# shellcheck shell=bash
# SPDX-License-Identifier: MIT
# apstart setup: reserve the region on the distribution's kernel command
# line (a file of its own in /etc/default/grub.d, which grub-mkconfig reads
# after /etc/default/grub), regenerate grub.cfg (with apstart's own menu
# entries from /etc/grub.d/90_apstart), enable the collecting unit, and
# say that one reboot is needed. --undo takes it all back;
# --secure-boot enrols apstart's certificate with mokutil (issue 34).

# The units the package installs (apstart-collect: files the records at
# boot; apstart-session: goes on with an A/B session after a boot).
UNITS="apstart-collect.service apstart-session.service"

have_systemd() { [ -d "$P_RUN_SYSTEMD" ]; }

write_setup_cfg() {
	mkdir -p "$P_GRUB_D_CFG" || return 1
	# \$: grub.cfg then holds memmap=3M\$0x..., which GRUB's parser turns
	# back into memmap=3M$0x... (a bare $ would start a GRUB variable).
	local memmap ramoops
	memmap=$(region_memmap_word | sed 's/\$/\\$/')
	ramoops=$(region_ramoops_words)
	[ "${REGION_WATCHDOG:-0}" = 1 ] && ramoops="$ramoops $WATCHDOG_WORD"
	write_file "$P_SETUP_CFG" <<EOF
# Written by apstart setup (apstart(8)); 'apstart setup --undo' removes it.
# It reserves $(size_text "$REGION_SIZE") of RAM at $(hex "$REGION_ADDR") (chosen from the firmware's RAM map)
# for the records apstart's kernel leaves there before a warm reset, and has
# Linux's ramoops read them back (/sys/fs/pstore/console-ramoops-0):
#   $(hex "$REGION_ADDR")  $(size_text "$REGION_ZONE") ramoops console zone (apstart's pstore=)
#   $(hex "$(region_mark_addr)")  marker page (a nonce per run: did RAM survive the reset?)
# pstore.backend=ramoops: pstore takes one back end, and systemd's
# efi_pstore would otherwise take it first.$( [ "${REGION_WATCHDOG:-0}" = 1 ] && printf '\n%s' \
"# watchdog.stop_on_reboot=0 (apstart setup --watchdog): Linux leaves a running" \
"# hardware watchdog running at kexec and reboot (apstart run --watchdog).")
APSTART_REGION_ADDR=$(hex "$REGION_ADDR")
APSTART_REGION_SIZE=$(hex "$REGION_SIZE")
APSTART_ZONE_SIZE=$(hex "$REGION_ZONE")
GRUB_CMDLINE_LINUX="\${GRUB_CMDLINE_LINUX:+\$GRUB_CMDLINE_LINUX }"'$memmap $ramoops'
EOF
}

unit_enabled() { systemctl is-enabled "$1" >/dev/null 2>&1; }

enable_units() {
	have_systemd || { say "systemd is not running here: collect the records after each boot with 'apstart collect'"; return 0; }
	local u
	for u in $UNITS; do
		if ! systemctl cat "$u" >/dev/null 2>&1; then
			warn "$u is not installed: the records are collected only when you run 'apstart collect'"
			continue
		fi
		unit_enabled "$u" && continue
		say "enabling $u"
		systemctl enable "$u" >/dev/null 2>&1 || warn "systemctl enable $u failed"
	done
}

# disable_units: both units off (--undo: nothing of apstart runs at boot).
disable_units() {
	local u
	command -v systemctl >/dev/null 2>&1 || return 0
	for u in $UNITS; do
		systemctl cat "$u" >/dev/null 2>&1 || continue
		if systemctl disable "$u" >/dev/null 2>&1; then
			say "disabled $u"
		else
			warn "systemctl disable $u failed"
		fi
	done
}

setup_main() {
	local undo=0 secure=0 cert='' addr='' zone=$ZONE_DEFAULT watchdog=0
	while [ $# -gt 0 ]; do
		case $1 in
		--undo) undo=1 ;;
		--secure-boot) secure=1 ;;
		--watchdog) watchdog=1 ;;
		--cert) [ $# -ge 2 ] || usage_error "--cert needs a file"; cert=$2; shift ;;
		--address) [ $# -ge 2 ] || usage_error "--address needs a value"
			addr=$(to_dec "$2"); [ -n "$addr" ] || usage_error "--address: not a number: '$2'"; shift ;;
		--size) [ $# -ge 2 ] || usage_error "--size needs a value"
			zone=$(parse_size "$2") || usage_error "--size: '$2' is not a size (e.g. 2M, 512K)"; shift ;;
		-h|--help) help_text setup; exit 0 ;;
		*) usage_error "unknown option '$1'" ;;
		esac
		shift
	done
	need_root
	if [ $secure = 1 ]; then secure_boot_setup "$cert"; return; fi
	[ -z "$cert" ] || usage_error "--cert goes with --secure-boot"
	if [ $undo = 1 ]; then setup_undo; return; fi

	if [ $((zone & (zone - 1))) != 0 ] || [ "$zone" -lt "$ZONE_MIN" ] || [ "$zone" -gt "$ZONE_MAX" ]; then
		usage_error "--size must be a power of two from 64K to 64M (ramoops rounds its zones down to one), not $(size_text "$zone")"
	fi
	refuse_cvm
	refuse_readonly_boot "update-grub writes /boot/grub/grub.cfg there"
	[ -d "$(dirname "$P_GRUB_CFG")" ] ||
		refuse "GRUB is not this machine's boot loader (no $(dirname "$P_GRUB_CFG")): apstart setup edits GRUB's command line and menu" \
			"boot apstart from its stick instead (docs/hardware.md)"
	[ -x "$P_GRUB_SCRIPT" ] ||
		refuse "apstart's GRUB script $P_GRUB_SCRIPT is not installed (or not executable): without it grub.cfg gets no apstart entries" \
			"install the apstart package (or make install), then run this again"
	need_tool update-grub grub2-common "it writes /boot/grub/grub.cfg"
	refuse_grub_default_clash

	local why
	if region_load; then
		if [ $watchdog = 1 ] && ! grep -q "$WATCHDOG_WORD" "$P_SETUP_CFG"; then
			REGION_WATCHDOG=1
			say "adding $WATCHDOG_WORD to $P_SETUP_CFG (Linux leaves the watchdog running at kexec and reboot: apstart run --watchdog)"
			write_setup_cfg || fail "cannot write $P_SETUP_CFG"
		fi
		# the map may have changed since (RAM, a crash kernel, a kernel
		# that grew): checked again, as a new one would be
		if why=$(region_problem "$REGION_ADDR" "$REGION_SIZE" own); then
			refuse "the region apstart setup reserved earlier, $(size_text "$REGION_SIZE") at $(hex "$REGION_ADDR") ($P_SETUP_CFG), cannot stay: $why" \
				"apstart setup --undo, then apstart setup (a region is chosen again)"
		fi
		say "already set up: $(size_text "$REGION_SIZE") at $(hex "$REGION_ADDR") ($P_SETUP_CFG), checked against the memory map again; writing grub.cfg again"
	else
		local size=$((zone + MARK_OFFSET_PAD))
		if [ -n "$addr" ]; then
			[ $((addr % 4096)) = 0 ] || usage_error "--address must be 4 KiB aligned"
			if why=$(region_problem "$addr" "$size"); then
				refuse "--address $(hex "$addr"): $(size_text "$size") there cannot hold the records: $why" \
					"leave --address out (apstart picks a region from the firmware's RAM map), or give one inside System RAM, above 1 MiB, clear of the kernel and the crash kernel"
			fi
			say "region: $(size_text "$size") at $(hex "$addr") (--address; RAM in the firmware's map, clear of the kernel and the crash kernel)"
		else
			say "reading the RAM map ($( [ -d "$P_SYS/firmware/memmap" ] && echo /sys/firmware/memmap || echo /proc/iomem)) for $(size_text "$size") of RAM below 4 GiB"
			addr=$(pick_region "$size") ||
				refuse "no RAM range below 4 GiB has $(size_text "$size") free above $(size_text "$REGION_FLOOR_SMALL") (RAM map: $(ram_map_text))" \
					"give one with --address ADDR (and a smaller --size)"
			say "region: $(size_text "$size") at $(hex "$addr"): $(size_text "$zone") for the records, then the marker page"
		fi
		REGION_ADDR=$addr REGION_SIZE=$size REGION_ZONE=$zone REGION_WATCHDOG=$watchdog
		say "writing $P_SETUP_CFG: $(region_memmap_word) and the ramoops options$( [ $watchdog = 1 ] && echo " and $WATCHDOG_WORD") on Linux's command line (GRUB_CMDLINE_LINUX)"
		write_setup_cfg || fail "cannot write $P_SETUP_CFG"
	fi
	if ! update_grub; then
		fail "update-grub failed (above); $P_SETUP_CFG stays: fix the cause and run 'apstart setup' again, or 'apstart setup --undo'"
	fi
	local ids
	ids=$(grub_entry_ids | tr '\n' ' ')
	if [ -n "$ids" ]; then
		say "GRUB menu entries: $ids(grub-reboot names them)"
	elif grub_disabled; then
		say "GRUB_DISABLE_APSTART=true: no apstart entries in the menu ('apstart run --via grub' needs them)"
	else
		warn "grub.cfg has no apstart entries (is $P_GRUB_SCRIPT executable, are the kernels in /boot?): 'apstart run --via grub' needs them"
	fi
	if why=$(grub_default_clash); then
		fail "after update-grub, $why: run 'apstart setup --undo' or set GRUB_DEFAULT to your system's entry now, before any reboot"
	fi
	enable_units
	say "while set up, Linux's pstore keeps no oops or panic dumps: pstore.backend=ramoops keeps efi-pstore (dumps in UEFI variables) from registering, and ramoops.record_size=0 gives ramoops no dump zone; 'apstart setup --undo' gives both back"
	mkdir -p "$P_STATE"
	if why=$(region_in_use); then
		say "done: this boot already has the region reserved; 'apstart run' or 'apstart ab' can start"
	else
		say "done. ONE REBOOT is needed before the first run: the region is reserved from the next boot on"
		more "(now: $why)"
		more "after it: 'apstart run' for one run, 'apstart ab' for the A/B session"
	fi
}

# parse_size 2M|512K|BYTES -> bytes
parse_size() {
	local v=$1 n
	case $v in
	*[kK]) n=$(to_dec "${v%?}") && [ -n "$n" ] && echo $((n << 10)) ;;
	*[mM]) n=$(to_dec "${v%?}") && [ -n "$n" ] && echo $((n << 20)) ;;
	*) n=$(to_dec "$v") && [ -n "$n" ] && echo "$n" ;;
	esac
}

setup_undo() {
	local changed=0
	if [ -f "$P_SETUP_CFG" ]; then
		region_load || true
		say "removing $P_SETUP_CFG (the reservation${REGION_ADDR:+ of $(size_text "$REGION_SIZE") at $(hex "$REGION_ADDR")} and the ramoops options)"
		rm -f "$P_SETUP_CFG" || fail "cannot remove $P_SETUP_CFG"
		changed=1
	else
		say "no reservation to remove ($P_SETUP_CFG is not there)"
	fi
	if [ -f "$P_SESSION_RUNNING" ]; then
		say "stopping the A/B session $(cat "$P_SESSION_RUNNING") (its runs stay in $P_STATE)"
		session_stop_quiet
	fi
	if [ -f "$P_PENDING" ]; then
		say "taking back the run in flight ($P_PENDING: $(pending_value run_id), via $(pending_value via))"
		# its kernel is loaded only when it was asked for in this boot
		if pending_this_boot; then disarm_run; else clear_pending; disarm_one_shot || true; fi
	else
		disarm_one_shot || true
	fi
	disable_units
	if [ "${APSTART_NO_UPDATE_GRUB:-0}" != 1 ] && [ -d "$(dirname "$P_GRUB_CFG")" ] && command -v update-grub >/dev/null 2>&1; then
		if [ $changed = 1 ] || [ -n "$(grub_entry_ids)" ]; then
			update_grub || fail "update-grub failed (above): grub.cfg may still hold the old command line"
		fi
	fi
	say "done: Linux's command line is back as it was from the next boot on; the results in $P_STATE stay"
	local why
	if [ $changed = 1 ] && region_load 2>/dev/null; then :; fi
	if cmdline | grep -q 'ramoops.mem_address='; then
		more "(this boot still has the region reserved; the next one will not)"
	fi
	true
}

# secure_boot_setup [CERT]: mokutil --import, after saying what will
# happen at the next boot (MokManager asks for the password given now).
secure_boot_setup() {
	local cert=${1:-} default=${APSTART_CERT:-$(sys_path /usr/share/apstart/apstart-mok.der)}
	[ "$(firmware)" = uefi ] ||
		refuse "this machine booted through BIOS: Secure Boot and MOK keys are UEFI's" "nothing to enrol"
	if [ -z "$cert" ]; then
		[ -f "$default" ] ||
			refuse "no certificate given and none installed ($default)" \
				"make keys (in apstart's source) makes one: apstart setup --secure-boot --cert build/keys/apstart-mok.der"
		cert=$default
	fi
	[ -f "$cert" ] || refuse "no such certificate: $cert" "give the DER file that make keys wrote (apstart-mok.der)"
	# A DER certificate is an ASN.1 SEQUENCE (0x30 0x82 ...); a PEM one
	# starts with text, which mokutil refuses with a less clear message.
	if [ "$(od -An -tx1 -N1 "$cert" | tr -d ' ')" != 30 ]; then
		refuse "$cert is not a DER certificate (PEM? convert it: openssl x509 -in CERT.pem -outform der -out CERT.der)"
	fi
	need_tool mokutil mokutil "it asks shim to enrol the key at the next boot"
	local sb
	sb=$(secure_boot)
	say "Secure Boot: ${sb%% *} (${sb#* })"
	local test_out
	test_out=$(mokutil --test-key "$cert" 2>&1)
	case $test_out in
	*"already enrolled"*)
		say "$cert is already enrolled (mokutil --test-key): nothing to do"
		return 0 ;;
	esac
	say "running mokutil --import $cert: it asks for a one-time password, twice"
	more "at the next boot shim's MokManager (a blue screen) asks to enrol it: Enroll MOK, Continue, Yes,"
	more "that password, Reboot. Someone must be at the console (or the BMC's remote console) for that."
	more "To take it back later: mokutil --delete $cert (MokManager asks again)."
	mokutil --import "$cert" || fail "mokutil --import $cert failed (above)"
	say "done: the key is queued; reboot and enrol it in MokManager (mokutil --list-new shows it queued)"
}
