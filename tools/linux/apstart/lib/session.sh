# shellcheck shell=bash
# SPDX-License-Identifier: MIT
# apstart ab: the reference's A/B session from Linux. K runs of each
# variant (A = WBINVD=1, Linux before the patch; B = WBINVD=0, patched) in
# randomised pairs, one run per reboot, then aplog compare's three rows and
# verdict (tools/aplog/stats/verdict.c), printed and written beside the runs.
#
# Everything is in files under /var/lib/apstart/session-NNNN/, in the
# layout apstart.efi's sessions use (docs/session.md), so that aplog
# compare reads either folder alike:
#   plan.txt                    session=, runs_per_variant=, order=, seed=,
#                               via=, cmdline=, then one line per step; the
#                               last state= line says where it stands
#   run-NNN-X-wbinvdW.started   just before run NNN leaves Linux
#   run-NNN-X-wbinvdW.log       its records (pstore, else the NVRAM summary)
#   run-NNN-X-wbinvdW.nvram.log its NVRAM summary too, when both came back
#   run-NNN-X-wbinvdW.interrupted  nothing came back, and why
#   table.txt, compare.txt      at the end
# and /var/lib/apstart/session-running (the session's name) while it runs.
# Only whole new files and appended lines are written: a power cut costs at
# most the line or file being written, and which run is next is always the
# first without a .log or .interrupted.

readonly SESSION_K_DEFAULT=10 SESSION_K_MAX=100 SESSION_WAIT_DEFAULT=30

session_dir_of() { echo "$P_STATE/$1"; }
plan_of() { echo "$P_STATE/$1/plan.txt"; }
plan_value() { file_value "$P_STATE/$1/plan.txt" "$2"; }
plan_state() { sed -n 's/^state=\([a-z]*\).*/\1/p' "$(plan_of "$1")" 2>/dev/null | tail -1; }
plan_line() { append_line "$(plan_of "$1")" "$2"; }

# The order: K pairs, each AB or BA by a coin; the same generator as
# apstart.efi (boot/efi/plan.c: splitmix64's finaliser on the seed, then
# xorshift64*, the top bit), so that one seed gives one order everywhere.
# bash's integers are signed 64-bit and wrap: right shifts are masked to
# make them logical.
shr() { echo $(( ($1 >> $2) & ((1 << (64 - $2)) - 1) )); }
session_order() {
	local k=$1 seed=$2 z s i out=
	z=$((seed + 0x9E3779B97F4A7C15))
	z=$(( (z ^ $(shr $z 30)) * 0xBF58476D1CE4E5B9 ))
	z=$(( (z ^ $(shr $z 27)) * 0x94D049BB133111EB ))
	z=$(( z ^ $(shr $z 31) ))
	[ $z = 0 ] && z=1
	s=$z
	for ((i = 0; i < k; i++)); do
		s=$(( s ^ $(shr $s 12) ))
		s=$(( s ^ (s << 25) ))
		s=$(( s ^ $(shr $s 27) ))
		if [ $(( (s * 0x2545F4914F6CDD1D) < 0 )) = 1 ]; then out+=AB; else out+=BA; fi
	done
	echo "$out"
}

variant_wbinvd() { [ "$1" = A ] && echo 1 || echo 0; }

# session_runs NAME: "NNN X W STATE" per run, STATE log|interrupted|started|todo.
session_runs() {
	local name=$1 order dir i x w base st
	order=$(plan_value "$name" order)
	dir=$(session_dir_of "$name")
	for ((i = 1; i <= ${#order}; i++)); do
		x=${order:i-1:1} w=$(variant_wbinvd "$x")
		base=$(printf '%s/run-%03d-%s-wbinvd%s' "$dir" "$i" "$x" "$w")
		if [ -f "$base.log" ]; then st=log
		elif [ -f "$base.interrupted" ]; then st=interrupted
		elif [ -f "$base.started" ]; then st=started
		else st=todo; fi
		printf '%03d %s %s %s\n' "$i" "$x" "$w" "$st"
	done
}

# session_next NAME: the first run without a .log or .interrupted.
session_next() { session_runs "$1" | awk '$4 != "log" && $4 != "interrupted" { print; exit }'; }

new_session_name() { printf 'session-%s' "$(next_number session)"; }

latest_session() {
	local d
	d=$(ls -d "$P_STATE"/session-[0-9][0-9][0-9][0-9] 2>/dev/null | sort | tail -1)
	[ -n "$d" ] && basename "$d"
}

refuse_session_running() {
	[ -f "$P_SESSION_RUNNING" ] || return 0
	refuse "the A/B session $(cat "$P_SESSION_RUNNING") is under way: a run now would come between its runs" \
		"apstart ab --status, or stop it first: apstart ab --stop"
}

# seconds_per_run NAME: the mean measured time from one run leaving Linux to
# the next boot filing it (plan lines "... seconds=N"), or nothing.
seconds_per_run() {
	sed -n 's/.* seconds=\([0-9]*\).*/\1/p' "$(plan_of "$1")" 2>/dev/null |
		awk '{ s += $1; n++ } END { if (n) printf "%d\n", s / n }'
}

duration_text() {
	local s=$1
	if [ "$s" -ge 3600 ]; then printf '%d h %02d min' $((s / 3600)) $((s % 3600 / 60))
	elif [ "$s" -ge 120 ]; then printf '%d min' $(((s + 30) / 60))
	else printf '%d s' "$s"; fi
}

# linux_boot_seconds: how long this Linux took from its kernel's start to
# user space being up (systemd-analyze), or nothing.
linux_boot_seconds() {
	command -v systemd-analyze >/dev/null 2>&1 || return 1
	systemd-analyze time 2>/dev/null | sed -n 's/.*= *\([0-9.]*\)s$/\1/p; s/.*= *\([0-9]*\)min \([0-9.]*\)s$/\1 \2/p' |
		head -1 | awk 'NF == 2 { printf "%d\n", $1 * 60 + $2; exit } NF == 1 { printf "%d\n", $1 + 0.5 }'
}

# time_estimate NAME RUNS-LEFT WAIT: one line saying how long the rest takes.
time_estimate() {
	local name=$1 left=$2 wait=$3 per boot
	per=$(seconds_per_run "$name")
	if [ -n "$per" ]; then
		echo "about $(duration_text $((left * per))) for $left run(s) left (measured: $(duration_text "$per") per run, countdown included)"
		return
	fi
	boot=$(linux_boot_seconds)
	echo "$left reboot(s), each: the run itself, the firmware's start-up (which Linux cannot see: seconds on a VM, often minutes on a server), GRUB and Linux's boot${boot:+ (${boot} s here this time)} and the ${wait} s countdown; at least $(duration_text $((left * (${boot:-0} + wait))))). From the second run on, each countdown shows the measured time per run"
}

session_main() {
	local k='' via='' wait=$SESSION_WAIT_DEFAULT seed='' opts=() action=start cycles=1 wd='' tramp=''
	while [ $# -gt 0 ]; do
		case $1 in
		--resume) action=resume ;;
		--stop) action=stop ;;
		--status) action=status ;;
		--continue) action="continue" ;; # apstart-session.service, at boot
		--via) [ $# -ge 2 ] || usage_error "--via needs kexec or grub"; via=$2; shift ;;
		--wait) [ $# -ge 2 ] || usage_error "--wait needs seconds"; wait=$2; shift ;;
		--seed) [ $# -ge 2 ] || usage_error "--seed needs a number"; seed=$(to_dec "$2"); [ -n "$seed" ] || usage_error "--seed: not a number: '$2'"; shift ;;
		--cycles) [ $# -ge 2 ] || usage_error "--cycles needs a number"; cycles=$2; shift ;;
		--watchdog) [ $# -ge 2 ] || usage_error "--watchdog needs seconds"; wd=$2; shift ;;
		--trampoline) [ $# -ge 2 ] || usage_error "--trampoline needs running or a file"; tramp=$2; shift ;;
		-h|--help) help_text ab; exit 0 ;;
		--) shift; opts=("$@"); break ;;
		[0-9]*) k=$1 ;;
		*) usage_error "unknown option '$1' (kernel options go after --)" ;;
		esac
		shift
	done
	[[ $wait =~ ^[0-9]+$ ]] && [ "$wait" -le 3600 ] || usage_error "--wait must be 0..3600 seconds, not '$wait'"
	[[ $cycles =~ ^[1-9][0-9]*$ ]] && [ "$cycles" -le 100000 ] || usage_error "--cycles must be 1..100000, not '$cycles'"
	case $action in
	stop) need_root; session_stop; return ;;
	status) session_status; return ;;
	resume) need_root; session_resume "$wait"; return ;;
	continue) need_root; session_continue; return ;;
	esac
	[ -n "$k" ] || k=$SESSION_K_DEFAULT
	[[ $k =~ ^[0-9]+$ ]] && [ "$k" -ge 1 ] && [ "$k" -le $SESSION_K_MAX ] || usage_error "K must be 1..$SESSION_K_MAX runs per variant, not '$k'"
	check_kernel_options "${opts[*]}"
	need_root
	refuse_session_running
	# Linux's own trampoline: both blobs made now, from the file "running"
	# names now (every run of the session takes that one: a kernel booted
	# meanwhile changes nothing); kexec only.
	if [ -n "$tramp" ]; then
		[ -z "$via" ] || [ "$via" = kexec ] ||
			refuse "--trampoline goes via kexec only" "apstart ab --via kexec --trampoline $tramp"
		via=kexec
		trampoline_prepare "$tramp"
		[ -n "$TRAMP_TWIN" ] || refuse "--trampoline $tramp: an LRM file has no patched twin at hand for side B" \
			"--trampoline KERNEL-IMAGE (aprealmode makes both)"
		tramp=$(trampoline_source "$tramp")
	fi
	# The way for every run: kexec where it can go (its refusals say why
	# not), else GRUB; --via fixes it.
	if [ -z "$via" ]; then
		if (run_prepare kexec 0 >/dev/null 2>&1); then via=kexec; else via=grub; fi
		say "runs go via $via$( [ $via = grub ] && echo " (kexec cannot here: apstart run --via kexec says why)")"
	fi
	run_prepare "$via" 0 >/dev/null
	run_prepare "$via" 1 >/dev/null
	[ -z "$wd" ] || refuse_no_watchdog "$wd"
	[ -n "$seed" ] || seed=$(od -An -tu4 -N4 /dev/urandom | tr -d ' ')
	local name order
	mkdir -p "$P_STATE" || fail "cannot create $P_STATE"
	name=$(new_session_name) || fail "cannot number a new session in $P_STATE"
	order=$(session_order "$k" "$seed")
	mkdir -p "$(session_dir_of "$name")" || fail "cannot create $(session_dir_of "$name")"
	# cycles= among the kernel options wins over --cycles
	local cmd="${opts[*]}"
	[[ " $cmd " == *" cycles="* ]] || cmd="cycles=$cycles${cmd:+ $cmd}"
	printf '%s\n' "session=${name#session-}" "runs_per_variant=$k" "order=$order" "seed=$(hex "$seed")" \
		"via=$via" "wait=$wait" "cmdline=$cmd" ${wd:+"watchdog=$wd"} ${tramp:+"trampoline=$tramp"} "started=$(now_text)" "state=running" |
		write_file "$(plan_of "$name")" || fail "cannot write $(plan_of "$name")"
	echo "$name" | write_file "$P_SESSION_RUNNING" || fail "cannot write $P_SESSION_RUNNING"
	if [ -n "$tramp" ]; then
		say "A/B $name: $k runs of each variant through $TRAMP_WHAT's own trampoline, A = as shipped (WBINVD), B = its patched twin"
	else
		say "A/B $name: $k runs of each variant, A = WBINVD=1 (Linux before the patch), B = WBINVD=0 (patched)"
	fi
	more "order $order (randomised pairs, seed $(hex "$seed")), every run \"$cmd\", via $via, one run per reboot"
	more "how long: $(time_estimate "$name" $((2 * k)) "$wait")"
	more "to stop it: 'apstart ab --stop' (over SSH, any time: the run under way is still filed); 'apstart ab --resume' goes on"
	more "the state: $(session_dir_of "$name")/ (plan.txt); at the end the rows go to table.txt there"
	session_continue
}

# session_continue: from apstart-session.service after each boot (collect
# has filed the last run by then), or right after the start: the next run
# after a countdown, or the table.
session_continue() {
	[ -f "$P_SESSION_RUNNING" ] || return 0
	local name
	name=$(cat "$P_SESSION_RUNNING")
	[ -f "$(plan_of "$name")" ] || { warn "$P_SESSION_RUNNING names $name, which has no plan.txt: removed"; rm -f "$P_SESSION_RUNNING"; return 0; }
	[ "$(plan_state "$name")" = running ] || { rm -f "$P_SESSION_RUNNING"; return 0; }
	if [ -f "$P_PENDING" ] && [ -n "$(pending_value session_run)" ]; then
		if pending_this_boot; then
			say "$name: a run already left for this boot's end; nothing to start"
			return 0
		fi
		say "$name: the last run has not been filed yet: apstart collect"
		collect_main
	fi
	local next num x w st left total via wait
	via=$(plan_value "$name" via)
	wait=$(plan_value "$name" wait)
	# a run written down as started but never left Linux (no pending file,
	# no result): the machine went down before it; it is run again
	while read -r num x w st; do
		[ "$st" = started ] || continue
		rm -f "$(session_dir_of "$name")/run-$num-$x-wbinvd$w.started"
		plan_line "$name" "run=$num variant=$x not run (the machine went down before it left Linux): run again"
	done <<<"$(session_runs "$name")"
	next=$(session_next "$name")
	if [ -z "$next" ]; then
		session_finish "$name"
		return
	fi
	read -r num x w st <<<"$next"
	total=$(plan_value "$name" runs_per_variant)
	total=$((2 * total))
	left=$((total - 10#$num + 1))
	say "$name: run $((10#$num)) of $total: $x (WBINVD=$w) via $via; $(time_estimate "$name" "$left" "$wait")"
	if ! session_countdown "$name" "$wait"; then
		say "$name: stopped; 'apstart ab --resume' goes on with run $((10#$num))"
		return 0
	fi
	local sline="session=$name run=$num variant=$x wbinvd=$w"
	append_line "$(session_dir_of "$name")/run-$num-$x-wbinvd$w.started" "started at=$(now_text) clock=$(now_epoch)" ||
		fail "cannot write the run's .started file"
	plan_line "$name" "run=$num variant=$x wbinvd=$w started clock=$(now_epoch) at=$(now_text)"
	local cmd wd per tramp topt=()
	cmd=$(plan_value "$name" cmdline)
	tramp=$(plan_value "$name" trampoline)
	[ -z "$tramp" ] || topt=(--trampoline "$tramp")
	wd=$(plan_value "$name" watchdog)
	per=$(seconds_per_run "$name")
	[ -z "$wd" ] || [ -z "$per" ] || [ "$per" -le "$wd" ] ||
		warn "$name: a run takes $per s here (measured, from leaving Linux to being filed), more than the watchdog's $wd s: it may reset a run that has not hung"
	# shellcheck disable=SC2086
	APSTART_CMD=run run_main --via "$via" --wbinvd "$w" "${topt[@]}" --session-run "$sline" ${wd:+--watchdog "$wd"} -- $cmd
}

# session_countdown NAME SECONDS: 0 when the time ran out, 1 if the session
# was stopped meanwhile.
session_countdown() {
	local name=$1 s=$2
	while [ "$s" -gt 0 ]; do
		[ -f "$P_SESSION_RUNNING" ] && [ "$(plan_state "$name")" = running ] || return 1
		if [ $((s % 10)) = 0 ] || [ "$s" -le 5 ]; then
			say "$name: next run in $s s (stop: apstart ab --stop)"
		fi
		sleep 1
		s=$((s - 1))
	done
	[ -f "$P_SESSION_RUNNING" ] && [ "$(plan_state "$name")" = running ]
}

# session_run_base SESSION-LINE: the run's files without their extension
# (session-NNNN/run-NNN-X-wbinvdW), from "session= run= variant= wbinvd=".
session_run_base() {
	echo "$(session_dir_of "$(kv "$1" session)")/run-$(kv "$1" run)-$(kv "$1" variant)-wbinvd$(kv "$1" wbinvd)"
}

# session_filed SESSION-LINE FILE: from collect, the run's records filed.
session_filed() {
	local name num x file=$2 seconds='' c st
	name=$(kv "$1" session) num=$(kv "$1" run) x=$(kv "$1" variant)
	c=$(pending_value clock)
	[ -n "$c" ] && seconds=$(( $(now_epoch) - c ))
	st=$(sed -n 's/^@end status=\([a-z]*\).*/\1/p' "$file" | tail -1)
	rm -f "$(session_run_base "$1").started"
	plan_line "$name" "run=$num variant=$x filed ${file##*/} bytes=$(wc -c <"$file") status=${st:-none}${seconds:+ seconds=$seconds}"
}

# session_interrupted SESSION-LINE WHY
session_interrupted() {
	local name num x base c seconds=
	name=$(kv "$1" session) num=$(kv "$1" run) x=$(kv "$1" variant)
	base=$(session_run_base "$1")
	c=$(pending_value clock)
	[ -n "$c" ] && seconds=$(( $(now_epoch) - c ))
	printf '%s\n' "$2" | write_file "$base.interrupted"
	rm -f "$base.started"
	plan_line "$name" "run=$num variant=$x interrupted: $2${seconds:+ seconds=$seconds}"
}

session_stop_quiet() {
	local name
	name=$(cat "$P_SESSION_RUNNING" 2>/dev/null)
	[ -n "$name" ] && [ -f "$(plan_of "$name")" ] &&
		plan_line "$name" "state=stopped next=$(session_next "$name" | cut -d' ' -f1) (apstart ab --stop)"
	rm -f "$P_SESSION_RUNNING"
}

session_stop() {
	if [ ! -f "$P_SESSION_RUNNING" ]; then
		say "no A/B session is under way"
		return 0
	fi
	local name
	name=$(cat "$P_SESSION_RUNNING")
	session_stop_quiet
	say "$name stopped: no further run starts; a run already under way is still filed at the next boot"
	more "'apstart ab --resume' goes on with it"
}

session_resume() {
	local wait=$1 name
	if [ -f "$P_SESSION_RUNNING" ]; then
		name=$(cat "$P_SESSION_RUNNING")
		say "$name is under way; going on with it"
	else
		name=$(latest_session) || refuse "there is no A/B session to resume in $P_STATE" "apstart ab K starts one"
		case $(plan_state "$name") in
		done) refuse "$name is done (its table: $(session_dir_of "$name")/table.txt)" "apstart ab K starts a new one" ;;
		esac
		refuse_session_running
		plan_line "$name" "state=running (resumed)"
		echo "$name" | write_file "$P_SESSION_RUNNING" || fail "cannot write $P_SESSION_RUNNING"
		say "$name resumed"
	fi
	local via
	via=$(plan_value "$name" via)
	run_prepare "$via" 0 >/dev/null
	session_continue
}

session_status() {
	local name
	if [ -f "$P_SESSION_RUNNING" ]; then name=$(cat "$P_SESSION_RUNNING")
	else name=$(latest_session) || { say "no A/B session in $P_STATE"; return 0; }; fi
	say "$name: state $(plan_state "$name"); order $(plan_value "$name" order), via $(plan_value "$name" via), \"$(plan_value "$name" cmdline)\""
	session_runs "$name" | while read -r num x w st; do more "run $num $x WBINVD=$w: $st"; done
	[ -f "$(session_dir_of "$name")/table.txt" ] && more "table: $(session_dir_of "$name")/table.txt"
	return 0
}

# session_finish NAME: the table (aplog compare on the folder) printed and
# written beside the runs; the session done.
session_finish() {
	local name=$1 dir ap out st
	dir=$(session_dir_of "$name")
	ap=$(aplog_cmd) || { warn "aplog is not installed: no table (the runs are in $dir)"; }
	local n_log n_int
	n_log=$(session_runs "$name" | grep -c ' log$')
	n_int=$(session_runs "$name" | grep -c ' interrupted$')
	{
		echo "apstart A/B $name: A = WBINVD=1 (Linux before the patch), B = WBINVD=0 (patched)"
		echo "machine: $(grep -ah '^@env ' "$dir"/run-*.log 2>/dev/null | head -1 | cut -c6-)"
		echo "every run \"$(plan_value "$name" cmdline)\" via $(plan_value "$name" via), from Linux; order $(plan_value "$name" order) (randomised pairs); one observation per run"
		echo "runs with records: $n_log; interrupted: $n_int"
		if [ -n "$ap" ] && [ "$n_log" -gt 0 ]; then
			if out=$("$ap" compare "$dir" 2>&1); then st=0; else st=$?; fi
			printf '%s\n' "$out" | sed -n '/^aplog: session folder/d; 1,/^Verdict:/p'
			# aplog says EMULATED before the rows, and again after them
			printf '%s\n' "$out" | sed -n '/^Verdict:/,$p' | grep '^EMULATED' | head -1 || true
			printf '%s\n' "$out" >"$dir/compare.txt"
			[ "$st" = 0 ] || echo "(aplog compare exit status $st)"
		fi
		session_runs "$name" | while read -r num x w rst; do
			local f="$dir/run-$num-$x-wbinvd$w"
			case $rst in
			log) printf 'run %s %s WBINVD=%s %s\n' "$num" "$x" "$w" "$(grep -a '^@end ' "$f.log" | tail -1 | cut -c6-)" ;;
			interrupted) printf 'run %s %s WBINVD=%s INTERRUPTED: %s\n' "$num" "$x" "$w" "$(head -1 "$f.interrupted")" ;;
			esac
		done
	} | write_file "$dir/table.txt" || fail "cannot write $dir/table.txt"
	plan_line "$name" "state=done"
	rm -f "$P_SESSION_RUNNING"
	say "$name done: the table ($dir/table.txt; aplog compare's whole output: compare.txt)"
	sed 's/^/  /' "$dir/table.txt"
}
