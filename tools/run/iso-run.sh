#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Boot the apstart ISO under QEMU through real firmware and GRUB, with the
# serial console on stdout.
#
#   iso-run.sh --firmware bios|uefi [--media cdrom|usb] [--smp N]
#              [--accel auto|kvm|tcg] [--machine pc|q35] [--timeout S]
#              [--iso FILE] [--kernels DIR] [--wbinvd 0|1|i386-0|i386-1] [--mem MB]
#              [--log FILE] [--screendump FILE.ppm] [--flush SPEC]
#              [--loader grub|gnu-efi] [--vars FILE] [--nvram flash|ram] [--disk FILE]
#              [--input FILE] [--screen-script FILE] [--cpu MODEL]
#              [--module FILE.lrm] -- [kernel args...]
#
# firmware  bios: SeaBIOS, machine pc. uefi: OVMF (OVMF_CODE_4M.fd read-only,
#           OVMF_VARS_4M.fd with snapshot=on so no run changes it), machine
#           q35. --machine overrides the machine type.
# media     cdrom: the image as a CD (-cdrom, read-only). usb: a copy of the
#           image as a USB stick on an xHCI controller (never the original).
# accel     auto: KVM only when /dev/kvm is backed by kvm_intel/kvm_amd, else
#           TCG. UEFI always uses TCG unless --accel kvm is given AND KVM is
#           hardware-backed (OVMF cannot run on the paravirtual KVM here).
# kernel args / --wbinvd
#           With kernel arguments, or --wbinvd 1, a per-run image is made from
#           --iso's kernels (--kernels DIR, default build/iso/kernels) whose
#           default menu entry boots that variant with those arguments
#           (tools/image/mkgrubcfg.sh; tools/image/mkimage.sh with build/esp/, ~1 s) and no
#           menu delay.
#           Otherwise the image is booted as it is (menu, then its default).
# screendump
#           Waits for the kernel's "@end" line, saves the screen as a PPM,
#           then quits QEMU through its monitor. The kernel must stay up
#           after @end: boot it with exit=halt. Verdict from the @end line.
# screen-script
#           The same, step by step, one a line: "wait REGEX" (until a
#           serial line matches, grep -E), "screendump FILE.ppm",
#           "sendkey KEY" (QEMU's key names, e.g. spc); QEMU quits after
#           the last step. A wait the run never satisfies fails the run
#           (exit status 2). Verdict from the last @end line.
# flush     charge every WBINVD/INVD a modelled cost (tools/flushmodel
#           plugin, e.g. us=2000 or xeon6985p): TCG only; the log starts
#           with "@host flush_model=SPEC". The firmware's own flushes are
#           charged too.
# loader    gnu-efi (UEFI only): firmware starts apstart.efi itself, no GRUB:
#           a per-run copy of the image whose \EFI\BOOT\BOOTX64.EFI is
#           apstart.efi (tools/image/esp-populate.sh --direct); kernel arguments
#           or --wbinvd go into its \apstart\loader.cfg (entry of its own,
#           no menu delay, no pause after saved results).
# vars      a writable copy of OVMF_VARS_4M.fd that keeps what the run
#           writes to NVRAM (default: the pristine file, snapshot=on).
# nvram     flash (default): OVMF_CODE_4M.fd and a variable store on
#           pflash, as above. ram: -bios OVMF.fd (Debian's 2 MiB build,
#           OVMF_FD), whose variables live in RAM: nothing a run writes
#           persists, and OVMF starts ~3 CPU-s sooner under TCG (no flash
#           writes, no pflash). For runs whose checks never read NVRAM
#           back after the run; not with --vars.
# disk      boot this image file as the USB stick, writable, in place (no
#           copy, no per-run image): results apstart.efi writes stay in it.
# module    an LRM file (Linux's realmode blob, docs/linux-trampoline.md):
#           the per-run image holds it as /boot/linux/run.lrm and its default
#           entry loads it with module2 (GRUB only); add trampoline=linux to
#           the kernel arguments to run it.
# cpu       another CPU model than the accelerator's default (max under
#           TCG, host under KVM), e.g. Skylake-Client or pentium3.
# input     what the serial console receives (keys for a menu; a FIFO the
#           caller writes to); default nothing.
#
# Exit status (as tools/run/qemu-run.sh): 0 = the kernel reported pass (its
# "@end status=pass" in the log and its pass byte), 1 = it reported fail,
# 2 = no verdict (timeout, QEMU refused to start or ended early: "iso-run:
# no verdict", then QEMU's own last message as the last line) or bad
# usage (one "iso-run: ..." line). A machine that resets (exit=reset; QEMU
# runs with -no-reboot) or powers off takes its verdict from the last @end
# line.
set -uo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
iso=$root/build/apstart.iso kernels=$root/build/iso/kernels esp_tree=$root/build/esp
firmware= media=cdrom smp=4 accel=auto machine= timeout_s=120 wbinvd=0 mem=512
log= shot= flush= loader=grub vars= nvram=flash disk= input=/dev/null script= cpu_model= module=
usage() { sed -n '3,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; }
die() { echo "iso-run: $*" >&2; exit 2; }
# need "$@": the option in $1 must have a value in $2 (a missing one used
# to leave "shift 2" failing and the loop spinning on the same option).
need() { [ $# -ge 2 ] || die "$1 needs a value (see --help)"; }
while [ $# -gt 0 ]; do
	case "$1" in
	--firmware) need "$@"; firmware=$2; shift 2 ;;
	--media) need "$@"; media=$2; shift 2 ;;
	--smp) need "$@"; smp=$2; shift 2 ;;
	--accel) need "$@"; accel=$2; shift 2 ;;
	--machine) need "$@"; machine=$2; shift 2 ;;
	--timeout) need "$@"; timeout_s=$2; shift 2 ;;
	--iso) need "$@"; iso=$2; shift 2 ;;
	--kernels) need "$@"; kernels=$2; shift 2 ;;
	--wbinvd) need "$@"; wbinvd=$2; shift 2 ;;
	--mem) need "$@"; mem=$2; shift 2 ;;
	--log) need "$@"; log=$2; shift 2 ;;
	--screendump) need "$@"; shot=$2; shift 2 ;;
	--flush) need "$@"; flush=$2; shift 2 ;;
	--loader) need "$@"; loader=$2; shift 2 ;;
	--vars) need "$@"; vars=$2; shift 2 ;;
	--nvram) need "$@"; nvram=$2; shift 2 ;;
	--disk) need "$@"; disk=$2; shift 2 ;;
	--input) need "$@"; input=$2; shift 2 ;;
	--screen-script) need "$@"; script=$2; shift 2 ;;
	--cpu) need "$@"; cpu_model=$2; shift 2 ;;
	--module) need "$@"; module=$2; shift 2 ;;
	-h|--help) usage; exit 0 ;;
	--) shift; break ;;
	*) usage >&2; die "unknown option '$1'" ;;
	esac
done
# Kernel arguments: one word each, or all in one word (make run passes
# ARGS quoted as a whole so the shell never interprets it); split on blanks.
args=()
[ $# -gt 0 ] && read -r -a args <<<"$*"

case "$firmware" in bios|uefi) ;; *) die "--firmware must be bios or uefi, not '$firmware'" ;; esac
case "$media" in cdrom|usb) ;; *) die "--media must be cdrom or usb, not '$media'" ;; esac
[ -n "$machine" ] || machine=$([ "$firmware" = bios ] && echo pc || echo q35)
case "$machine" in pc|q35) ;; *) die "--machine must be pc or q35" ;; esac
case "$nvram" in
flash) ;;
ram) [ "$firmware" = uefi ] || die "--nvram ram: OVMF's store, for --firmware uefi"
	[ -z "$vars" ] || die "--nvram ram keeps nothing: not with --vars" ;;
*) die "--nvram must be flash or ram, not '$nvram'" ;;
esac
# i386-0|i386-1: the 32-bit kernels (make ARCH=i386), GRUB only.
case "$wbinvd" in 0|1) ;; i386-0|i386-1) [ "$loader" = grub ] || die "--wbinvd $wbinvd: apstart.efi loads the x86_64 kernels only" ;;
*) die "--wbinvd must be 0, 1, i386-0 or i386-1" ;; esac
kfile=apstart-wbinvd$wbinvd.elf
[[ $wbinvd == i386-* ]] && kfile=apstart-i386-wbinvd${wbinvd#i386-}.elf
[[ $timeout_s =~ ^[1-9][0-9]*$ ]] || die "--timeout must be a positive number of seconds (never infinite)"
[[ $smp =~ ^[1-9][0-9]*(,.*)?$ ]] || die "--smp must be a CPU count (QEMU -smp syntax), not '$smp'"
[[ $mem =~ ^[1-9][0-9]*$ ]] || die "--mem must be a number of MiB, not '$mem'"
[ -f "$iso" ] || die "no image at '$iso' (run make iso first)"
case "$loader" in
grub) ;;
gnu-efi) [ "$firmware" = uefi ] || die "--loader gnu-efi needs --firmware uefi (apstart.efi is a UEFI program)" ;;
*) die "--loader must be grub or gnu-efi, not '$loader'" ;;
esac
[ -r "$input" ] || die "--input: cannot read '$input'"
if [ -n "$module" ]; then
	[ -r "$module" ] || die "--module: cannot read '$module'"
	[ "$loader" = grub ] || die "--module: apstart.efi takes only the blobs built into it (make iso LINUX_IMAGE=...; loader.cfg module=): use --loader grub"
	[ -z "$disk" ] || die "--module makes a per-run image: not with --disk"
fi
[ -z "$vars" ] || [ -w "$vars" ] || die "--vars: '$vars' is not a writable file (cp /usr/share/OVMF/OVMF_VARS_4M.fd FILE)"
if [ -n "$disk" ]; then
	[ -w "$disk" ] || die "--disk: '$disk' is not a writable file"
	[ "$media" = usb ] || die "--disk needs --media usb"
	[ ${#args[@]} -eq 0 ] && [ "$wbinvd" = 0 ] && [ "$loader" = grub ] ||
		die "--disk boots the image as it is: no kernel arguments, --wbinvd or --loader gnu-efi"
fi

OVMF_CODE=${OVMF_CODE:-/usr/share/OVMF/OVMF_CODE_4M.fd}
OVMF_VARS=${OVMF_VARS:-/usr/share/OVMF/OVMF_VARS_4M.fd}
OVMF_FD=${OVMF_FD:-/usr/share/ovmf/OVMF.fd}
if [ "$firmware" = uefi ] && [ "$nvram" = ram ]; then
	[ -r "$OVMF_FD" ] || die "OVMF not found ($OVMF_FD): apt-get install ovmf"
elif [ "$firmware" = uefi ]; then
	[ -r "$OVMF_CODE" ] && [ -r "$OVMF_VARS" ] ||
		die "OVMF not found ($OVMF_CODE, $OVMF_VARS): apt-get install ovmf"
fi

# kvm_usable: KVM with hardware virtualisation behind it (the paravirtual
# kvm_pvm module cannot run OVMF at all).
. "$(dirname "${BASH_SOURCE[0]}")/kvm-usable.sh"
if [ -n "$flush" ]; then
	. "$root/tools/flushmodel/flush-opts.sh"
	accel=$(flush_accel "$accel" 0) || exit 2
	flush_plugin "$root" "$flush" "${smp%%[!0-9]*}" || exit 2
fi
case "$accel" in
auto)
	if [ "$firmware" = uefi ]; then accel=tcg; why="UEFI: TCG unless ACCEL=kvm is given"
	elif kvm_usable; then accel=kvm; why="/dev/kvm with kvm_intel/kvm_amd"
	else accel=tcg; why="no hardware-backed KVM (/dev/kvm missing, not accessible, or not kvm_intel/kvm_amd)"; fi ;;
kvm)
	if kvm_usable; then why="forced"
	elif [ "$firmware" = uefi ]; then
		accel=tcg; why="ACCEL=kvm refused: OVMF cannot run without hardware-backed KVM (kvm_intel/kvm_amd)"
	else why="forced (no hardware-backed KVM: expect a very slow run)"; fi ;;
tcg) why="forced" ;;
*) die "--accel must be auto, kvm or tcg" ;;
esac
if [ "$accel" = kvm ]; then
	accel_opts=(-accel kvm -cpu host,-arch-capabilities)
else
	accel_opts=(-accel tcg -cpu max)
fi
[ -z "$cpu_model" ] || accel_opts[3]=$cpu_model
[ -n "$flush" ] && accel_opts+=(-plugin "$flush_arg") && why="the flush model is a TCG plugin"

case "$shot" in *[[:space:]]*) die "--screendump: the QEMU monitor cannot take a file name with blanks" ;; esac
[ -z "$shot" ] || [ -z "$script" ] || die "--screendump and --screen-script exclude each other"
steps=()
if [ -n "$shot" ]; then
	steps=("wait ^@end " "screendump $shot")
elif [ -n "$script" ]; then
	[ -r "$script" ] || die "--screen-script: cannot read '$script'"
	while IFS= read -r line || [ -n "$line" ]; do
		case "$line" in
		''|'#'*) continue ;;
		'wait '?*|'sendkey '?*) ;;
		'screendump '*[[:space:]]*) die "--screen-script: the QEMU monitor cannot take a file name with blanks: '$line'" ;;
		'screendump '?*) rm -f "${line#screendump }" ;;
		*) die "--screen-script: unknown step '$line' (wait REGEX, screendump FILE, sendkey KEY)" ;;
		esac
		steps+=("$line")
	done <"$script"
	[ ${#steps[@]} -gt 0 ] || die "--screen-script: no steps in '$script'"
fi
# QEMU option values: a comma is written as two.
q() { printf '%s' "${1//,/,,}"; }

tmp=$(mktemp -d "$root/build/iso-run.XXXXXX") || die "cannot make a temporary directory in $root/build"
qpid=
cleanup() {
	[ -n "$qpid" ] && kill "$qpid" 2>/dev/null
	[ -n "${catpid:-}" ] && kill "$catpid" 2>/dev/null
	[ -n "${errtee:-}" ] && kill "$errtee" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'echo "iso-run: interrupted" >&2; exit 2' INT TERM HUP

# Per-run image: the same kernels, a menu whose default entry has ARGS.
image=$iso
if [ "$loader" = gnu-efi ]; then
	image=$tmp/run.iso
	cp --sparse=always "$iso" "$image" || die "cannot copy the image"
	"$root/tools/image/esp-populate.sh" --direct "$image" || die "cannot make apstart.efi the boot program"
	if [ ${#args[@]} -gt 0 ] || [ "$wbinvd" != 0 ]; then
		for a in "${args[@]}"; do
			[[ $a =~ ^[A-Za-z0-9_.,:=+/@%-]+$ ]] ||
				die "kernel argument '$a' has characters other than [A-Za-z0-9_.,:=+/@%-]"
		done
		printf 'timeout=0\nresults_wait=0\nwbinvd=%s\ncmdline=%s\n' "$wbinvd" "${args[*]}" \
			>"$tmp/loader.cfg"
		"$root/tools/image/esp-populate.sh" --config "$tmp/loader.cfg" "$image" || die "cannot write loader.cfg"
	fi
	echo "iso-run: per-run image, firmware starts apstart.efi (no GRUB)${args:+, default entry: apstart-wbinvd$wbinvd.elf ${args[*]}}" >&2
elif [ ${#args[@]} -gt 0 ] || [ "$wbinvd" != 0 ] || [ -n "$module" ]; then
	for f in apstart-wbinvd0.elf apstart-wbinvd1.elf "$kfile"; do
		[ -f "$kernels/boot/$f" ] || die "no $kernels/boot/$f (run make iso first)"
	done
	mkdir -p "$tmp/menu/boot/grub"
	mod_opt=()
	if [ -n "$module" ]; then
		mkdir -p "$tmp/menu/boot/linux"
		cp "$module" "$tmp/menu/boot/linux/run.lrm" || die "cannot copy the module"
		mod_opt=(--module /boot/linux/run.lrm)
	fi
	"$root/tools/image/mkgrubcfg.sh" "${mod_opt[@]}" "$root/tools/image/grub.cfg.in" 0 "$wbinvd" "${args[@]}" \
		>"$tmp/menu/boot/grub/grub.cfg" || exit 2
	image=$tmp/run.iso
	[ -d "$esp_tree" ] || die "no $esp_tree (run make iso first)"
	"$root/tools/image/mkimage.sh" "$image" "$esp_tree" "$kernels" "$tmp/menu" || die "cannot make the per-run image"
	echo "iso-run: per-run image, default entry: $kfile ${args[*]:-(no arguments)}${module:+, module2 $module}" >&2
fi

if [ -n "$disk" ]; then
	media_opts=(-drive "if=none,id=stick,format=raw,file=$(q "$disk")"
		-device qemu-xhci,id=xhci -device usb-storage,bus=xhci.0,drive=stick,bootindex=0)
elif [ "$media" = usb ]; then
	cp --sparse=always "$image" "$tmp/stick.img" || die "cannot copy the image for the USB stick"
	media_opts=(-drive "if=none,id=stick,format=raw,file=$(q "$tmp/stick.img")"
		-device qemu-xhci,id=xhci -device usb-storage,bus=xhci.0,drive=stick,bootindex=0)
else
	# As -cdrom (IDE index 2: pc's secondary master, q35's AHCI port 2),
	# plus bootindex: OVMF with a kept --vars file would otherwise follow
	# the BootOrder of the previous boot (a stick that is gone, then its
	# UEFI shell) instead of the CD.
	[ "$machine" = pc ] && cd_bus=ide.1 || cd_bus=ide.2
	media_opts=(-drive "if=none,id=cd,media=cdrom,format=raw,readonly=on,file=$(q "$image")"
		-device "ide-cd,drive=cd,bus=$cd_bus,bootindex=0")
fi
fw_opts=()
if [ "$firmware" = uefi ] && [ "$nvram" = ram ]; then
	fw_opts=(-bios "$OVMF_FD")
elif [ "$firmware" = uefi ]; then
	vars_opt="snapshot=on,file=$(q "$OVMF_VARS")"
	[ -z "$vars" ] || vars_opt="file=$(q "$vars")"
	fw_opts=(-drive "if=pflash,format=raw,unit=0,readonly=on,file=$(q "$OVMF_CODE")"
		-drive "if=pflash,format=raw,unit=1,$vars_opt")
fi

serial_log=${log:-$tmp/serial.log}
: >"$serial_log" || die "cannot write the log '$serial_log'"
if [ -n "$flush" ]; then
	echo "iso-run: flush model $flush (TCG plugin): $flush_what" >&2
	echo "@host flush_model=$flush" | tee "$serial_log"
fi
mon_opts=(-monitor none)
if [ ${#steps[@]} -gt 0 ]; then
	mkfifo "$tmp/mon.in" "$tmp/mon.out" || die "mkfifo failed"
	mon_opts=(-chardev "pipe,id=mon,path=$(q "$tmp/mon")" -mon chardev=mon,mode=readline)
	[ -z "$shot" ] || rm -f "$shot"
fi

echo "iso-run: accel=$accel ($why) firmware=$firmware machine=$machine${cpu_model:+ cpu=$cpu_model} media=$media smp=$smp timeout=${timeout_s}s image=${disk:-${image#"$root/"}}${vars:+ vars=$vars}$([ "$nvram" = flash ] || echo " nvram=ram")" >&2

cmd=(qemu-system-x86_64 -machine "$machine" "${accel_opts[@]}" -smp "$smp" -m "$mem"
	"${fw_opts[@]}" "${media_opts[@]}" -nic none
	-display none -no-reboot -chardev "stdio,id=ser,logfile=$(q "$serial_log"),logappend=on" -serial chardev:ser
	"${mon_opts[@]}" -device isa-debug-exit,iobase=0xf4,iosize=4)
# QEMU's stderr to the terminal as it comes and to a file: a run without
# a verdict ends on QEMU's own message.
mkfifo "$tmp/stderr" || die "mkfifo failed"
tee "$tmp/qemu.err" <"$tmp/stderr" >&2 &
errtee=$!
timeout -k 5 "$timeout_s" "${cmd[@]}" <"$input" 2>"$tmp/stderr" &
qpid=$!

# --screendump / --screen-script: each step in turn, then quit. A monitor
# command is done when the "info status" after it has answered.
shot_state=
monitor() { # COMMAND: send it, wait for its answer
	local n
	n=$(grep -ac 'VM status' "$tmp/monitor.log")
	printf '%s\ninfo status\n' "$1" >&3
	for _ in $(seq 100); do
		[ "$(grep -ac 'VM status' "$tmp/monitor.log")" -gt "$n" ] && return 0
		kill -0 "$qpid" 2>/dev/null || return 1
		sleep 0.1
	done
	return 1
}
if [ ${#steps[@]} -gt 0 ]; then
	exec 3<>"$tmp/mon.in" 4<>"$tmp/mon.out"
	cat <&4 >"$tmp/monitor.log" &
	catpid=$!
	shot_state=taken
	for step in "${steps[@]}"; do
		arg=${step#* }
		case "$step" in
		'wait '*)
			until tr -d '\r' <"$serial_log" | grep -aE -- "$arg" >/dev/null; do
				kill -0 "$qpid" 2>/dev/null || { shot_state="failed: QEMU ended before a serial line matched /$arg/"; break; }
				sleep 0.1
			done ;;
		'screendump '*)
			monitor "screendump $arg" && [ -s "$arg" ] || shot_state="failed: screendump $arg" ;;
		'sendkey '*)
			monitor "sendkey $arg" || shot_state="failed: sendkey $arg" ;;
		esac
		[ "$shot_state" = taken ] || break
	done
	kill -0 "$qpid" 2>/dev/null && printf 'quit\n' >&3
fi

wait "$qpid"
status=$?
qpid=
wait "$errtee"
errtee=
[ -n "$flush" ] && flush_report_show

verdict_from_end() {
	end=$(tr -d '\r' <"$serial_log" | grep -a '^@end ' | tail -n 1)
	case "$end" in
	*'status=pass'*) return 0 ;;
	*'status=fail'*) return 1 ;;
	*) return 2 ;;
	esac
}
# no_verdict WHY: says so, then QEMU's own last message as the last line
# (not an "info:" follow-up, nor "terminating on signal": the timeout's).
no_verdict() {
	local said
	echo "iso-run: no verdict (exit 2): $1" >&2
	said=$(grep -av -e ': info: ' -e 'terminating on signal' "$tmp/qemu.err" | grep -a . | tail -n 1)
	[ -z "$said" ] || printf '%s\n' "$said" >&2
	exit 2
}

if [ ${#steps[@]} -gt 0 ]; then
	case "$shot_state" in
	taken)
		echo "iso-run: screen steps done${shot:+, screen saved to $shot}" >&2
		verdict_from_end
		st=$?
		[ $st != 2 ] || no_verdict "the screen steps are done, but the log has no @end from the kernel"
		exit $st ;;
	failed:*)
		echo "iso-run: ${shot_state#failed: } (monitor said: $(tr -d '\r' <"$tmp/monitor.log" | tail -c 300))" >&2
		case $status in
		1|3) echo "iso-run: the kernel exited QEMU before the steps were done (boot it with exit=halt)" >&2 ;;
		esac
		no_verdict "the screen steps were not done" ;;
	esac
fi
# The verdict: the kernel's last @end record and its exit byte through
# isa-debug-exit (QEMU exits 1 for pass, 3 for fail). QEMU also exits 1
# when it refuses to start (a bad -smp, CPU model or firmware file) or a
# plugin refuses: 1 is a pass only with @end status=pass.
verdict_from_end
from_end=$?
case $status in
0) echo "iso-run: the machine reset or powered off (QEMU ended normally)" >&2
	[ $from_end != 2 ] || no_verdict "QEMU ended normally before the kernel's @end"
	exit $from_end ;;
1) [ $from_end = 0 ] && exit 0
	[ $from_end = 2 ] && no_verdict "QEMU exited with status 1 before the kernel's @end"
	no_verdict "QEMU exited with status 1 (the pass byte), but the kernel's @end says status=fail" ;;
3) exit 1 ;;
124|137) no_verdict "TIMEOUT after ${timeout_s}s$([ $from_end = 2 ] || echo "; the kernel's @end came, but it never ended QEMU (exit=halt?)")" ;;
*) no_verdict "QEMU exited with status $status$([ $from_end = 2 ] && echo " before the kernel's @end")" ;;
esac
