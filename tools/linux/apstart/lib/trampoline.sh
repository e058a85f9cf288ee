# shellcheck shell=bash
# SPDX-License-Identifier: MIT
# apstart run/ab --trampoline running|FILE: the run's APs start in Linux's
# own trampoline, the realmode blob of this machine's kernel (running:
# /boot/vmlinuz-$(uname -r)) or of FILE (a kernel image, vmlinux, build
# tree or LRM file), made into an LRM file by aprealmode (docs/
# linux-trampoline.md) and handed to apstart's kernel as its Multiboot2
# module (kexec --module) with trampoline=linux. --wbinvd 1 runs the blob
# as shipped, --wbinvd 0 (the default) its patched twin: the same two
# variants as apstart's own kernels, so a session's A/B is "as shipped vs
# with the patch" of the kernel this machine runs.

KOPT_TRAMPOLINE="trampoline=linux"

# The aprealmode that came with apstart (APREALMODE= overrides: the tests).
aprealmode_cmd() {
	if [ -n "${APREALMODE:-}" ]; then echo "$APREALMODE"
	elif command -v aprealmode >/dev/null 2>&1; then command -v aprealmode
	elif [ -x "${APSTART_BINDIR:-/usr/bin}/aprealmode" ]; then echo "${APSTART_BINDIR:-/usr/bin}/aprealmode"
	else return 1; fi
}

# trampoline_source SPEC: the file or tree SPEC names.
trampoline_source() {
	case $1 in
	running) echo "$P_BOOT/vmlinuz-$(uname -r)" ;;
	*) echo "$1" ;;
	esac
}

# trampoline_prepare SPEC: the LRM files of SPEC's blob, as shipped and its
# twin, in $P_STATE/trampoline/ (made again when the input is newer); sets
# TRAMP_SHIPPED, TRAMP_TWIN (empty: an LRM file given as it is has no twin
# at hand) and TRAMP_WHAT. Refuses (status 3) with aprealmode's line.
trampoline_prepare() {
	local spec=$1 src tool name dir out
	src=$(trampoline_source "$spec")
	tool=$(aprealmode_cmd) ||
		refuse "aprealmode is not installed: it takes the realmode blob out of a kernel image" \
			"install the apstart package again (it carries /usr/bin/aprealmode)"
	[ -e "$src" ] || refuse "--trampoline $spec: no $src" \
		"$( [ "$spec" = running ] && echo "the running kernel's image is not in /boot: name it with --trampoline FILE" || echo "name a kernel image, vmlinux, build tree or LRM file")"
	dir=$P_STATE/trampoline
	mkdir -p "$dir" || fail "cannot create $dir"
	if [ -f "$src" ] && cmp -s -n 5 <(printf APLRM) "$src"; then
		out=$("$tool" --check "$src" 2>&1) || refuse "--trampoline $spec: $(tail -n1 <<<"$out")"
		TRAMP_SHIPPED=$src TRAMP_TWIN=
	else
		name=$(basename "$src")
		name=${name//[^A-Za-z0-9._+-]/_}
		TRAMP_SHIPPED=$dir/$name.lrm TRAMP_TWIN=$dir/$name-twin.lrm
		if [ ! -s "$TRAMP_SHIPPED" ] || [ ! -s "$TRAMP_TWIN" ] || [ "$src" -nt "$TRAMP_SHIPPED" ]; then
			rm -f "$TRAMP_SHIPPED" "$TRAMP_TWIN"
			if ! out=$("$tool" -o "$TRAMP_SHIPPED" --twin "$TRAMP_TWIN" "$src" 2>&1); then
				rm -f "$TRAMP_SHIPPED" "$TRAMP_TWIN"
				refuse "--trampoline $spec: $(tail -n1 <<<"$out")"
			fi
		fi
		out=$("$tool" --check "$TRAMP_SHIPPED" 2>&1)
	fi
	TRAMP_WHAT=$(sed -n 's/^kernel: *\(Linux version [^ ]*\).*/\1/p' <<<"$out")
	[ -n "$TRAMP_WHAT" ] || TRAMP_WHAT=$src
}

# trampoline_pick W: TRAMP_FILE, the LRM file of variant W (1 as shipped,
# 0 the twin); refuses the twin of an LRM file given as it is.
trampoline_pick() {
	if [ "$1" = 1 ]; then
		TRAMP_FILE=$TRAMP_SHIPPED
	elif [ -n "$TRAMP_TWIN" ]; then
		TRAMP_FILE=$TRAMP_TWIN
	else
		refuse "--wbinvd 0 with an LRM file: its patched twin comes from the image or tree it was made from" \
			"--trampoline KERNEL-IMAGE (aprealmode makes both), or --wbinvd 1"
	fi
}
