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
#            kernel's summary, on UEFI through GRUB (wings/nvram)
# A record is filed as the run in flight only when its @boot and @end
# carry that run's run_id=; any other record of apstart's (another run's
# id, or none while a run is in flight) is kept aside in unmatched/ and
# said, never filed as a run. Run at boot by apstart-collect.service, and
# by hand.

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
# nvram_remove: every part deleted; status 1 (and says which) when a
# part is still there.
nvram_remove() {
	local i left=''
	for i in 0 1 2 3 4 5 6 7; do
		efi_remove_var "$(nvram_var $i)" || left+=" $(nvram_var $i)"
	done
	[ -z "$left" ] && return 0
	warn "NVRAM: could not delete${left}"
	return 1
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
# not run yet: the kexec or reboot did not happen, or has not yet). The
# boot is the kernel's boot_id, not the wall clock (a clock that is set
# back, or a next boot's RTC behind, would take a run that happened for
# one that has not); only a pending file without it (written by an older
# apstart) is judged by the clock.
pending_this_boot() {
	local b c
	b=$(pending_value boot_id)
	if [ -n "$b" ] && [ -n "$(boot_id)" ]; then
		[ "$b" = "$(boot_id)" ]
		return
	fi
	c=$(pending_value clock)
	[ -n "$c" ] && [ "$c" -ge "$(boot_epoch)" ]
}

# record_run_ids FILE: the run_id= values of its @boot and @end records,
# one a line ("none" where the kernel was given none; nothing from a
# kernel older than run_id=).
record_run_ids() {
	grep -a -E '^@(boot|end) ' "$1" 2>/dev/null | grep -a -o ' run_id=[A-Za-z0-9_-]*' | cut -d= -f2 | sort -u
}
# record_id_text FILE: its run id as said in messages.
record_id_text() {
	local ids
	ids=$(record_run_ids "$1" | tr '\n' ' ')
	case $ids in
	'' | 'none ') echo "no run_id" ;;
	*' '*' '*) echo "run_ids ${ids% } (more than one)" ;;
	*) echo "run_id=${ids% }" ;;
	esac
}
# record_is_run FILE ID: the record is that run's, and only that run's
# (ID none: a record whose kernel was given no run_id=, or knew none).
record_is_run() {
	local ids
	ids=$(record_run_ids "$1")
	[ "${ids:-none}" = "$2" ]
}

# run_history_add ID OUTCOME: what became of a run apstart asked for, one
# line in run-ids (a record that turns up later is said to be that run's).
run_history_add() {
	append_line "$P_STATE/run-ids" "run_id=$1 started=$(pending_value started) wbinvd=$(pending_value wbinvd) via=$(pending_value via): $2" 2>/dev/null || true
}
run_history_of() { grep -a "^run_id=$1 " "$P_STATE/run-ids" 2>/dev/null | tail -n 1 | cut -d' ' -f2-; }

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

	local pending=0 via='' sline='' want=''
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
			# a pending file of an older apstart names no run: its run's
			# kernel was given none either
			want=$(pending_value run_id)
			want=${want:-none}
			say "the last boot started a run: $want, WBINVD=$(pending_value wbinvd) via $via at $(pending_value started)"
		fi
	fi
	[ $pending = 1 ] || [ -f "$P_PENDING" ] || disarm_stale_one_shot

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

	local filed=0 aside=0 others=()
	# The run in flight: its pstore record, and its NVRAM summary when it
	# went through GRUB (a kexec'd kernel has no UEFI runtime services),
	# each only when it carries the run's id.
	if [ $pending = 1 ]; then
		local primary='' second='' kind=pstore
		for s in "${srcs[@]}"; do
			if [ -z "$primary" ] && record_is_run "$s" "$want"; then primary=$s; else others+=("$s"); fi
		done
		if [ $have_nv = 1 ] && [ "$via" = grub ] && record_is_run "$nv" "$want"; then
			if [ -n "$primary" ]; then second=$nv; else primary=$nv kind=nvram; fi
			have_nv=0
		fi
		if [ -n "$primary" ]; then
			file_run "$kind" "$primary" "$second" "$sline" || fail "the run was not filed (above); its source is left in place"
			run_history_add "$want" "filed as ${FILED_NAME#"$P_STATE"/}"
			[ -n "$(pending_value watchdog)" ] && [ -n "$(watchdog_last_reset)" ] &&
				say "the last reset was $(watchdog_last_reset), left running for this run ($(pending_value watchdog) s): the run did not end with its own reset (it hung after its records, or was given exit=halt)"
			filed=$((filed + 1))
		else
			file_nothing "$sline"
		fi
		clear_pending
		disarm_one_shot >/dev/null || true
	else
		others=(${srcs[@]+"${srcs[@]}"})
	fi
	# Anything else: a record of apstart's that is not the run in flight.
	# One without a run id while no run is in flight is a run started by
	# hand (GRUB's menu): filed as its own run. Any other is kept aside.
	for s in ${others[@]+"${others[@]}"}; do
		if file_other pstore "$s" $pending "$want"; then filed=$((filed + 1)); else aside=$((aside + 1)); fi
	done
	if [ $have_nv = 1 ]; then
		if file_other nvram "$nv" $pending "$want"; then filed=$((filed + 1)); else aside=$((aside + 1)); fi
	fi
	rm -f "$nv"
	[ $aside = 0 ] || say "$aside record(s) kept aside in $P_STATE/unmatched/, filed as no run (each with a .why file)"
	[ $filed -gt 0 ] || [ $aside -gt 0 ] || [ $pending = 1 ] || say "no records to collect (pstore: $( pstore_mounted && echo mounted || echo 'not mounted'), NVRAM: $( [ "$(firmware)" = uefi ] && echo none || echo 'BIOS, none'))"
	if [ $at_boot = 1 ] && [ -f "$P_SESSION_RUNNING" ]; then
		say "an A/B session is under way ($(cat "$P_SESSION_RUNNING")): apstart-session.service goes on with it once the boot is done"
	fi
	return 0
}

# file_other KIND SRC PENDING WANT: a record that is not the run in
# flight's: filed as a run of its own (status 0) when no run is in flight
# and it has no run id (a kernel started by hand from GRUB's menu), else
# kept aside (status 1). A copy that fails stops collect.
file_other() {
	local kind=$1 src=$2 what=$2
	[ "$kind" = nvram ] && what="the NVRAM summary"
	if [ "$3" = 0 ] && record_is_run "$src" none; then
		file_run "$kind" "$src" "" "" || fail "not filed (above); $what is left in place"
		return 0
	fi
	put_aside "$kind" "$src" "$4" || fail "not kept aside (above); $what is left in place"
	return 1
}

# disarm_stale_one_shot: no run in flight, yet grubenv still names an
# apstart entry for the next boot (a reboot that failed before this
# apstart took one-shots back): taken back now, before the next reboot.
disarm_stale_one_shot() {
	local next
	next=$(grubenv_value next_entry)
	[[ $next == apstart-* ]] || grep -q '^apstart_options=' "$P_GRUBENV" 2>/dev/null || return 0
	say "no run is in flight, but grubenv still arms one${next:+ (next_entry=$next)}: taken back"
	disarm_one_shot || true
}

# put_aside KIND SRC WANT: a record that is not the run in flight (WANT:
# its id, empty when none is in flight), copied to unmatched/record-NNNN.log
# with a .why beside it, said, and its source removed.
put_aside() {
	local kind=$1 src=$2 want=$3 dir=$P_STATE/unmatched name why ids earlier
	mkdir -p "$dir" || return 1
	name=$dir/record-$(next_number record).log || return 1
	ids=$(record_id_text "$src")
	if [ "$ids" = "run_id=$want" ]; then
		why="a second copy of the run in flight's record ($want), which is filed from another source"
	elif [ -n "$want" ]; then
		why="its $ids is not the run in flight's ($want)"
	else
		why="it has $ids, and no run is in flight"
	fi
	case $ids in
	run_id=*) earlier=$(run_history_of "${ids#run_id=}")
		[ -n "$earlier" ] && why="$why; that id is the run $earlier" ;;
	esac
	if ! file_copy "$src" "$name"; then
		warn "the copy of $src in $name does not read back identical"
		return 1
	fi
	printf 'from %s (%s)\n%s\n' "$src" "$kind" "$why" | write_file "${name%.log}.why" || true
	say "kept aside, not filed as a run: $(source_text "$kind" "$src") -> $name: $why"
	remove_source "$src" "$kind"
	return 0
}

source_text() { # KIND SRC
	if [ "$1" = nvram ]; then echo "the NVRAM summary (efivarfs $(nvram_var 0))"; else echo "pstore's $2"; fi
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
	FILED_NAME=$name
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
			remove_source "$second" nvram
		else
			warn "the NVRAM summary was not filed; left in NVRAM"
		fi
	fi
	remove_source "$src" "$kind"
	[ -n "$sline" ] && session_filed "$sline" "$name"
	show_rows "$name"
	return 0
}

# remove_source SRC KIND: the source of a copy that read back identical
# removed; "removed" said only when it is gone (a source left is found
# again by the next collect, which then keeps it aside by its run id).
remove_source() {
	local src=$1 kind=$2
	if [ "$kind" = nvram ]; then
		if nvram_remove; then
			say "removed the summary from NVRAM (read back identical)"
		else
			warn "the summary stays in NVRAM (copied and read back identical)"
		fi
	else
		rm -f "$src" 2>/dev/null
		if [ ! -e "$src" ]; then
			say "removed $src (read back identical)"
		else
			warn "cannot remove $src (copied and read back identical): it stays"
		fi
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
	local wd
	wd=$(watchdog_last_reset)
	[ -n "$wd" ] && why="$why; the last reset was $wd"
	[ -z "$wd" ] && [ -n "$(pending_value watchdog)" ] &&
		why="$why; a watchdog of $(pending_value watchdog) s was left running for it"
	say "the run WBINVD=$(pending_value wbinvd) via $(pending_value via) of $(pending_value started): $why"
	run_history_add "$(pending_value run_id)" "nothing came back (interrupted)"
	[ -n "$sline" ] && session_interrupted "$sline" "$why"
	return 0
}

# kv "k1=v1 k2=v2" KEY: a value of a space-separated line.
kv() {
	local w
	for w in $1; do
		case $w in "$2="*) echo "${w#*=}"; return ;; esac
	done
}
