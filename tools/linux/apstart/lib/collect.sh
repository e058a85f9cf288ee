# shellcheck shell=bash
# SPDX-License-Identifier: MIT
# apstart collect: the records a run left for Linux, filed under
# /var/lib/apstart/ and taken from their source only once the copy reads
# back identical:
#   pstore   /sys/fs/pstore/console-ramoops-N: the kernel's whole serial
#            stream, from the reserved region (ramoops reads it as the
#            previous boot's console); also where systemd-pstore moved one
#            (/var/lib/systemd/pstore) if it ran first
#   nvram    efivarfs ApstartResults-<guid> (+ ApstartResults1..7): the
#            kernel's summary, on UEFI through GRUB (app/summary_save.c)
# Run at boot by apstart-collect.service, and by hand.

# is_apstart_log FILE: the kernel's records, not some other console text.
is_apstart_log() { grep -aq '^@boot kernel=apstart' "$1" 2>/dev/null; }

pstore_mounted() { awk '$2 == "/sys/fs/pstore" && $3 == "pstore" { f = 1 } END { exit !f }' "$P_PROC/mounts" 2>/dev/null; }

# pstore_prepare: pstore mounted and ramoops loaded when the region is in
# use (Debian builds ramoops as a module; its options are on the command
# line, where modprobe finds them).
pstore_prepare() {
	if ! pstore_mounted; then
		mkdir -p "$P_PSTORE" 2>/dev/null
		if mount -t pstore pstore "$P_PSTORE" 2>/dev/null; then
			say "mounted pstore at /sys/fs/pstore"
		fi
	fi
	region_load >/dev/null 2>&1 || return 0
	region_in_use >/dev/null || return 0
	[ -d "$P_SYS/module/ramoops" ] && return 0
	local out
	if out=$(modprobe ramoops 2>&1); then
		say "loaded ramoops (the region at $(hex "$REGION_ADDR"), its options from /proc/cmdline)"
	else
		local backend note=
		backend=$(cat "$P_SYS/module/pstore/parameters/backend" 2>/dev/null)
		[ -n "$backend" ] && note=" (pstore's back end is $backend: pstore takes one, and pstore.backend=ramoops on the command line keeps it for ramoops)"
		warn "modprobe ramoops failed: ${out:-no message}$note"
	fi
}

# pstore_sources: files holding apstart's records, one path a line.
pstore_sources() {
	local f
	for f in "$P_PSTORE"/console-ramoops-*; do
		[ -f "$f" ] && is_apstart_log "$f" && echo "$f"
	done
	[ -d "$P_SYSTEMD_PSTORE" ] || return 0
	find "$P_SYSTEMD_PSTORE" -type f -name 'console-ramoops-*' 2>/dev/null | sort |
		while read -r f; do is_apstart_log "$f" && echo "$f"; done
}

nvram_var() { echo "ApstartResults${1#0}-$APSTART_GUID"; }

# nvram_read OUT: the summary's parts, concatenated, into OUT; status 1 if
# there is no part 0. Parts without a part 0 (a save cut short: the kernel
# writes part 0 last) are deleted, as apstart.efi does.
nvram_read() {
	local out=$1 i
	if [ ! -f "$P_EFIVARS/$(nvram_var 0)" ]; then
		local orphans=0
		for i in 1 2 3 4 5 6 7; do [ -f "$P_EFIVARS/$(nvram_var $i)" ] && orphans=1; done
		if [ $orphans = 1 ]; then
			say "NVRAM: parts of a summary without its first part (a save cut short): deleted"
			for i in 1 2 3 4 5 6 7; do efi_remove_var "$(nvram_var $i)"; done
		fi
		return 1
	fi
	: >"$out"
	for i in 0 1 2 3 4 5 6 7; do
		efi_read_var "$(nvram_var $i)" >>"$out" 2>/dev/null || break
	done
	return 0
}
nvram_remove() {
	local i
	for i in 0 1 2 3 4 5 6 7; do efi_remove_var "$(nvram_var $i)"; done
}

# file_copy SRC DEST: SRC copied to DEST, which must not exist (a name is
# never reused: a hard link of the flushed temporary file is created only
# if DEST is not there), then read back and compared with SRC.
file_copy() {
	local src=$1 dst=$2 tmp
	tmp=$(mktemp "$dst.tmp.XXXXXX") || return 1
	if ! cp "$src" "$tmp" || ! chmod 644 "$tmp" || ! sync_file "$tmp"; then rm -f "$tmp"; return 1; fi
	if ! ln "$tmp" "$dst" 2>/dev/null; then
		rm -f "$tmp"
		warn "$dst exists already: not overwritten"
		return 1
	fi
	rm -f "$tmp"
	sync_file "$(dirname "$dst")"
	# the page cache would answer a read of what was just written: drop it
	# for this file where the kernel allows, so the compare reads the disk
	dd if="$dst" iflag=nocache count=0 status=none 2>/dev/null
	cmp -s "$src" "$dst"
}

# show_rows FILE: the run's line and its Offline/Online/Total (aplog stats).
show_rows() {
	local file=$1 ap out
	grep -a '^@end ' "$file" | tail -1 | sed 's/^/  /'
	ap=$(aplog_cmd) || { more "(aplog is not installed: the rows are not shown)"; return 0; }
	if out=$("$ap" stats --allow-truncated "$file" 2>&1); then
		printf '%s\n' "$out" | grep -E '^(run |  *[0-9]+ |Online:|Offline:|Total:|EMULATED)' | sed 's/^/  /'
	else
		more "aplog stats could not read it:"
		printf '%s\n' "$out" | tail -n 3 | sed 's/^/  | /'
	fi
}

# boot_epoch: when this boot started (the wall clock minus the uptime).
boot_epoch() {
	local up
	up=$(cut -d. -f1 "$P_PROC/uptime" 2>/dev/null)
	echo $(( $(now_epoch) - ${up:-0} ))
}

# pending_already_filed: the pending run is a session's, and that run
# already has its records (run-NNN-X-wbinvdW.log) or its interruption.
pending_already_filed() {
	local sline base
	sline=$(pending_value session_run)
	[ -n "$(kv "$sline" session)" ] && [ -n "$(kv "$sline" run)" ] || return 1
	base=$(session_run_base "$sline")
	[ -f "$base.log" ] || [ -f "$base.interrupted" ]
}

# pending_this_boot: the pending run was written during this boot (it has
# not run yet: the kexec or reboot did not happen, or has not yet).
pending_this_boot() {
	local c
	c=$(pending_value clock)
	[ -n "$c" ] && [ "$c" -ge "$(boot_epoch)" ]
}

# mark_verdict: after a run that brought nothing back, what the marker page
# says about the reset: "kept" (RAM survived), "lost" or "unknown: WHY".
mark_verdict() {
	local nonce m
	nonce=$(pending_value nonce)
	case $(pending_value mark) in
	written) ;;
	*) echo "unknown: no marker was written before the run ($(pending_value mark))"; return ;;
	esac
	region_load >/dev/null 2>&1 || { echo "unknown: the setup is gone"; return; }
	m=$(mark_read)
	if [ "$m" = "$nonce" ]; then echo kept
	elif [ -z "$m" ] && ! [ -r "$P_DEVMEM" ]; then echo "unknown: /dev/mem cannot be read"
	else echo lost; fi
}

collect_main() {
	local at_boot=0
	while [ $# -gt 0 ]; do
		case $1 in
		--boot) at_boot=1 ;;
		-h|--help) help_text collect; exit 0 ;;
		*) usage_error "unknown option '$1'" ;;
		esac
		shift
	done
	need_root
	mkdir -p "$P_STATE" || fail "cannot create $P_STATE"
	pstore_prepare

	local pending=0 via='' sline=''
	if [ -f "$P_PENDING" ]; then
		if pending_this_boot; then
			say "a run is pending from this boot ($(pending_value started), via $(pending_value via)): it has not happened yet; nothing to file for it"
		elif pending_already_filed; then
			# A power cut soon after the last collect can bring back a
			# pending file that collect had removed: its run is filed.
			say "the pending record of $(kv "$(pending_value session_run)" session), run $(kv "$(pending_value session_run)" run) is stale (that run is filed): removed"
			clear_pending
		else
			pending=1 via=$(pending_value via) sline=$(pending_value session_run)
			say "the last boot started a run: WBINVD=$(pending_value wbinvd) via $via at $(pending_value started)"
		fi
	fi

	local srcs=() s
	while read -r s; do [ -n "$s" ] && srcs+=("$s"); done <<<"$(pstore_sources)"
	local nv
	nv=$(mktemp) || fail "cannot make a temporary file"
	local have_nv=0
	if nvram_read "$nv"; then
		if is_apstart_log "$nv"; then
			have_nv=1
		else
			say "NVRAM: ApstartResults holds no apstart records ($(wc -c <"$nv") bytes): left alone"
		fi
	fi

	local filed=0
	# The run in flight: its pstore record, and its NVRAM summary when it
	# went through GRUB (a kexec'd kernel has no UEFI runtime services).
	if [ $pending = 1 ]; then
		local primary='' second='' kind=pstore
		if [ ${#srcs[@]} -gt 0 ]; then primary=${srcs[0]}; srcs=("${srcs[@]:1}"); fi
		if [ $have_nv = 1 ] && [ "$via" = grub ]; then
			if [ -n "$primary" ]; then second=$nv; else primary=$nv kind=nvram; fi
			have_nv=0
		fi
		if [ -n "$primary" ]; then
			file_run "$kind" "$primary" "$second" "$sline" || fail "the run was not filed (above); its source is left in place"
			filed=$((filed + 1))
		else
			file_nothing "$sline"
		fi
		clear_pending
		clear_grub_options
	fi
	# Anything else: each its own run.
	for s in "${srcs[@]}"; do
		file_run pstore "$s" "" "" || fail "not filed (above); $s is left in place"
		filed=$((filed + 1))
	done
	if [ $have_nv = 1 ]; then
		file_run nvram "$nv" "" "" || fail "not filed (above); the NVRAM summary is left in place"
		filed=$((filed + 1))
	fi
	rm -f "$nv"
	[ $filed -gt 0 ] || [ $pending = 1 ] || say "no records to collect (pstore: $( pstore_mounted && echo mounted || echo 'not mounted'), NVRAM: $( [ "$(firmware)" = uefi ] && echo none || echo 'BIOS, none'))"
	if [ $at_boot = 1 ] && [ -f "$P_SESSION_RUNNING" ]; then
		say "an A/B session is under way ($(cat "$P_SESSION_RUNNING")): apstart-session.service goes on with it once the boot is done"
	fi
	return 0
}

# file_run KIND SRC SECOND SESSION-LINE: SRC (KIND pstore or nvram; SECOND,
# the same run's NVRAM summary, or nothing) filed; the sources removed after
# the copies read back.
file_run() {
	local kind=$1 src=$2 second=$3 sline=$4 dir name base
	if [ -n "$sline" ]; then
		dir=$P_STATE/$(kv "$sline" session)
		base=$(printf 'run-%s-%s-wbinvd%s' "$(kv "$sline" run)" "$(kv "$sline" variant)" "$(kv "$sline" wbinvd)")
		mkdir -p "$dir" || return 1
	else
		dir=$P_STATE
		base=run-$(next_number run) || return 1
	fi
	name=$dir/$base.log
	local bytes
	bytes=$(wc -c <"$src")
	if ! file_copy "$src" "$name"; then
		warn "the copy of $src in $name does not read back identical"
		return 1
	fi
	say "filed $name ($bytes bytes, from $( [ "$kind" = nvram ] && echo "NVRAM, efivarfs $(nvram_var 0)" || echo "pstore, $src"))"
	if [ -n "$second" ]; then
		if file_copy "$second" "$dir/$base.nvram.log"; then
			say "filed $dir/$base.nvram.log (the same run's NVRAM summary, $(wc -c <"$second") bytes)"
			nvram_remove
		else
			warn "the NVRAM summary was not filed; left in NVRAM"
		fi
	fi
	remove_source "$src" "$kind"
	[ -n "$sline" ] && session_filed "$sline" "$name"
	show_rows "$name"
	return 0
}

remove_source() {
	local src=$1 kind=$2
	if [ "$kind" = nvram ]; then
		nvram_remove
		say "removed the summary from NVRAM (read back identical)"
	else
		rm -f "$src" || warn "cannot remove $src"
		say "removed $src (read back identical)"
	fi
}

# file_nothing SESSION-LINE: the run in flight left no records; say why
# as far as the marker tells.
file_nothing() {
	local sline=$1 why verdict
	verdict=$(mark_verdict)
	case $verdict in
	kept) why="no records came back, but RAM survived the reset (the marker is there): the kernel did not get to write them (it hung, or was reset by hand or by a watchdog before its end); the serial console has what it printed" ;;
	lost) why="no records came back and the marker page is gone: this machine's reset did not keep RAM (firmware that clears or retrains memory on a warm reset, or a power cycle); the reserved region cannot bring records back here: use --via grub on UEFI (NVRAM), or read the serial console (docs/from-linux.md)" ;;
	*) why="no records came back (${verdict#unknown: }): a hang, a reset by hand, or RAM that did not survive the reset cannot be told apart" ;;
	esac
	say "the run WBINVD=$(pending_value wbinvd) via $(pending_value via) of $(pending_value started): $why"
	[ -n "$sline" ] && session_interrupted "$sline" "$why"
	return 0
}

clear_grub_options() {
	[ -f "$P_GRUBENV" ] && command -v grub-editenv >/dev/null 2>&1 || return 0
	grep -q '^apstart_options=' "$P_GRUBENV" 2>/dev/null || return 0
	grub-editenv "$P_GRUBENV" unset apstart_options 2>/dev/null || warn "grub-editenv unset apstart_options failed"
}

# kv "k1=v1 k2=v2" KEY: a value of a space-separated line.
kv() {
	local w
	for w in $1; do
		case $w in "$2="*) echo "${w#*=}"; return ;; esac
	done
}
