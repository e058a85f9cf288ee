# shellcheck shell=bash
# SPDX-License-Identifier: MIT
# apstart (Linux side): what every part uses. Sourced by tools/linux/apstart/apstart.
#
# Every system path goes through sys_path(), under $APSTART_ROOT (empty on a
# real machine; a fake tree in the tests), and every tool is called by its
# name through PATH (the tests put recording fakes first and nothing else
# that could change the machine). One place says each path.

R=${APSTART_ROOT:-}
R=${R%/}

# Exit statuses (apstart(8)): 0 done; 1 a step failed; 2 usage; 3 refused
# (something on this machine stands in the way, and the message says what).
readonly EX_FAILED=1 EX_USAGE=2 EX_REFUSED=3

APSTART_GUID=effcee49-e744-482d-8f24-37b608c11fbd      # kernel/efi_vendor.h
EFI_GLOBAL_GUID=8be4df61-93ca-11d2-aa0d-00e098032b8c   # UEFI 2.10 §3.3

sys_path() { printf '%s%s' "$R" "$1"; }

# The places apstart reads and writes; the installed kernels' folder can be
# moved for make install tests (APSTART_BOOT_DIR). Written as $R/PATH, what
# sys_path prints, without its subshell: this runs at every start (a
# dozen forks, on a slow machine or under TCG a good part of a second).
P_BOOT=$R${APSTART_BOOT_DIR:-/boot}
P_GRUB_CFG=$P_BOOT/grub/grub.cfg
P_GRUBENV=$P_BOOT/grub/grubenv
P_DEFAULT_GRUB=$R/etc/default/grub
P_GRUB_D_CFG=$R/etc/default/grub.d
P_SETUP_CFG=$P_GRUB_D_CFG/apstart.cfg
P_GRUB_SCRIPT=$R/etc/grub.d/90_apstart
P_STATE=$R${APSTART_STATE_DIR:-/var/lib/apstart}
P_PENDING=$P_STATE/pending
P_SESSION_RUNNING=$P_STATE/session-running
P_PROC=$R/proc
P_SYS=$R/sys
P_EFIVARS=$P_SYS/firmware/efi/efivars
P_PSTORE=$P_SYS/fs/pstore
P_DEVMEM=$R/dev/mem
P_SYSTEMD_PSTORE=$R/var/lib/systemd/pstore
P_RUN_SYSTEMD=$R/run/systemd/system
P_BOOT_ID=$P_PROC/sys/kernel/random/boot_id

# say TEXT: one step, what it does or found (stdout).
say() { printf 'apstart: %s\n' "$*"; }
# more TEXT: a continuation line of the step above.
more() { printf '  %s\n' "$*"; }
warn() { printf 'apstart: warning: %s\n' "$*" >&2; }
# refuse WHY [WHAT-TO-DO...]: stops with status 3. The first line names the
# command and the reason; each further argument is a line of what to do.
refuse() {
	local why=$1
	shift
	printf 'apstart%s: refused: %s\n' "${APSTART_CMD:+ $APSTART_CMD}" "$why" >&2
	local l
	for l in "$@"; do printf '  %s\n' "$l" >&2; done
	exit $EX_REFUSED
}
# fail WHY: a step that was tried and did not work (status 1).
fail() {
	printf 'apstart%s: failed: %s\n' "${APSTART_CMD:+ $APSTART_CMD}" "$*" >&2
	exit $EX_FAILED
}
usage_error() {
	printf 'apstart%s: %s (apstart --help)\n' "${APSTART_CMD:+ $APSTART_CMD}" "$*" >&2
	exit $EX_USAGE
}

need_root() {
	[ "$(id -u)" = 0 ] ||
		refuse "must run as root: it reads /dev/mem and efivarfs, loads a kernel and changes the boot configuration" \
			"sudo apstart $APSTART_CMD ..."
}

# need_tool NAME PACKAGE [WHAT-FOR]
need_tool() {
	command -v "$1" >/dev/null 2>&1 ||
		refuse "$1 is not installed (package $2)${3:+: $3}" "apt-get install $2"
}

# to_dec NUMBER: 0x... or decimal, to decimal; empty on anything else.
to_dec() {
	case $1 in
	0[xX][0-9a-fA-F]*) [[ ${1:2} =~ ^[0-9a-fA-F]{1,16}$ ]] && printf '%d' "$1" ;;
	[0-9]*) [[ $1 =~ ^[0-9]{1,19}$ ]] && printf '%d' "$((10#$1))" ;;
	esac
}
hex() { printf '0x%x' "$1"; }

# file_value FILE KEY: the value of FILE's first KEY= line; nothing when
# there is none or no FILE. Read by the shell (it was sed | head: two
# processes, and the pending run's values are read at every command).
file_value() {
	local line
	while IFS= read -r line || [ -n "$line" ]; do
		[[ $line == "$2="* ]] && { printf '%s\n' "${line#"$2="}"; break; }
	done 2>/dev/null <"$1"
	return 0
}

# size_text BYTES: 3 MiB, 512 KiB or the bytes.
size_text() {
	local b=$1
	if [ $((b % 1048576)) = 0 ]; then echo "$((b / 1048576)) MiB"
	elif [ $((b % 1024)) = 0 ]; then echo "$((b / 1024)) KiB"
	else echo "$b bytes"; fi
}
# memmap_size BYTES: Linux's memparse spelling (3M, 512K).
memmap_size() {
	local b=$1
	if [ $((b % 1048576)) = 0 ]; then echo "$((b / 1048576))M"
	elif [ $((b % 1024)) = 0 ]; then echo "$((b / 1024))K"
	else echo "$b"; fi
}

# write_file PATH: standard input to PATH through a temporary file in the
# same folder, flushed to disk before the rename (a power cut leaves the
# old file or the new one, never half of one).
write_file() {
	local dst=$1 tmp
	tmp=$(mktemp "$dst.XXXXXX") || return 1
	chmod 644 "$tmp" # mktemp's 0600: the results are for anyone to read
	if cat >"$tmp" && sync_file "$tmp" && mv -f "$tmp" "$dst"; then
		sync_file "$(dirname "$dst")"
		return 0
	fi
	rm -f "$tmp"
	return 1
}
# append_line PATH TEXT: one line, flushed.
append_line() {
	printf '%s\n' "$2" >>"$1" && sync_file "$1"
}
# sync_file PATH: its data (or a folder's entries) on disk.
sync_file() { sync "$1" 2>/dev/null || sync; }

# now_text: the wall clock, as plan lines and file names show it.
now_text() { date -u +%Y-%m-%dT%H:%M:%SZ; }
now_epoch() { date -u +%s; }

# next_number KIND: for run-NNNN.log and session-NNNN, the next number as
# four digits: one above the highest ever given (a counter file,
# last-KIND-number, that only grows, and the names there), so that a
# number is never reused, even after the files are deleted.
next_number() {
	local kind=$1 n=0 f c
	c=$(cat "$P_STATE/last-$kind-number" 2>/dev/null)
	[[ $c =~ ^[0-9]+$ ]] && n=$((10#$c))
	for f in "$P_STATE/$kind"-[0-9][0-9][0-9][0-9]*; do
		[ -e "$f" ] || continue
		f=${f##*/"$kind"-}
		f=${f%%[!0-9]*}
		[ $((10#$f)) -gt $n ] && n=$((10#$f))
	done
	n=$((n + 1))
	printf '%d\n' "$n" | write_file "$P_STATE/last-$kind-number" || return 1
	printf '%04d' "$n"
}

# efi_read_var NAME-GUID: the variable's data (efivarfs: 4 bytes of
# attributes, then the data) to standard output; status 1 if absent.
# Read as a stream (cat, then a pipe): tail given the file itself trusts
# its size and seeks, and read an efivarfs file as empty on Debian's 6.1.
efi_read_var() {
	local f=$P_EFIVARS/$1
	[ -f "$f" ] || return 1
	cat "$f" | tail -c +5
}
# efi_remove_var NAME-GUID: efivarfs marks variables immutable; status 1
# when it is still there.
efi_remove_var() {
	local f=$P_EFIVARS/$1
	[ -e "$f" ] || return 0
	chattr -i "$f" 2>/dev/null
	rm -f "$f" 2>/dev/null
	[ ! -e "$f" ]
}

# The aplog that came with apstart (APLOG= overrides: the tests).
aplog_cmd() {
	if [ -n "${APLOG:-}" ]; then echo "$APLOG"
	elif command -v aplog >/dev/null 2>&1; then command -v aplog
	elif [ -x "${APSTART_BINDIR:-/usr/bin}/aplog" ]; then echo "${APSTART_BINDIR:-/usr/bin}/aplog"
	else return 1; fi
}
