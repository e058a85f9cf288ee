#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Write a hybrid ISO image to a whole USB disk, then read it back and compare.
#
#   tools/image/usb-write.sh IMAGE DEV      (make usb DEV=/dev/sdX [FORCE=1] [YES=1])
#
# Environment: FORCE=1 allows a non-removable disk or one over 256 GiB
# (USB SSDs often claim to be fixed disks); YES=1 skips the typed
# confirmation. USBW_SYSFS and USBW_PROC replace /sys and /proc so the
# tests can describe a fake disk.
#
# Exit status: 0 written and verified, 1 write or verification failed,
# 2 refused (nothing was written).
set -euo pipefail

SYSFS=${USBW_SYSFS:-/sys}
PROC=${USBW_PROC:-/proc}
FORCE=${FORCE:-0}
YES=${YES:-0}
MAX_BYTES=$((256 * 1024 * 1024 * 1024))
# Mount points whose disks make up the running system.
SYSTEM_MOUNTS=(/ /boot /boot/efi /usr)

refuse() {
	printf 'usb-write: refusing: %s\n' "$*" >&2
	exit 2
}

fail() {
	printf 'usb-write: FAILED: %s\n' "$*" >&2
	exit 1
}

note() {
	printf 'usb-write: %s\n' "$*" >&2
}

# Sysfs attribute (first line) or the empty string.
attr() {
	local v=''
	if [[ -r $1 ]]; then
		IFS= read -r v <"$1" || true
	fi
	printf '%s' "$v"
}

trim() {
	local s=$1
	s=${s#"${s%%[![:space:]]*}"}
	s=${s%"${s##*[![:space:]]}"}
	printf '%s' "$s"
}

human() {
	local b=$1
	printf '%d.%d GiB (%d bytes)' $((b / 1073741824)) $((b * 10 / 1073741824 % 10)) "$b"
}

# "MAJ:MIN" of a block device node.
majmin_of() {
	local hex
	hex=$(stat -L -c '%t %T' -- "$1")
	printf '%d:%d' "$((16#${hex% *}))" "$((16#${hex#* }))"
}

# Kernel name (sda, nvme0n1p2, dm-0) for a device path. Nodes are looked
# up by number, so /dev/disk/by-id links and /dev/mapper names resolve; a
# path that is not a node here falls back to its last component.
devname_of() {
	local path=$1 link
	if [[ -b $path ]]; then
		link=$(readlink -- "$SYSFS/dev/block/$(majmin_of "$path")" 2>/dev/null) || link=''
		if [[ -n $link ]]; then
			printf '%s' "${link##*/}"
			return
		fi
		path=$(readlink -f -- "$path")
	fi
	printf '%s' "${path##*/}"
}

# Whole disk holding a partition: its sysfs directory's parent.
parent_of() {
	local p
	p=$(readlink -f -- "$SYSFS/class/block/$1")
	p=${p%/*}
	printf '%s' "${p##*/}"
}

# Disks under a block device: device-mapper/RAID go through slaves/,
# partitions to their disk. Prints one name per line.
disks_of() {
	local n=$1 depth=${2:-0} s found=0
	((depth < 16)) || return 0
	for s in "$SYSFS/class/block/$n/slaves"/*; do
		[[ -e $s || -L $s ]] || continue
		found=1
		disks_of "${s##*/}" $((depth + 1))
	done
	if ((found)); then
		return 0
	fi
	if [[ -e $SYSFS/class/block/$n/partition ]]; then
		parent_of "$n"
		echo
	else
		printf '%s\n' "$n"
	fi
}

# Device number of the filesystem a path is on, as MAJ:MIN (Linux dev_t
# encoding); catches "/dev/root" and other sources that are no node.
fs_majmin() {
	local d
	d=$(stat -c '%d' -- "$1" 2>/dev/null) || return 0
	printf '%d:%d' $(((d >> 8 & 0xfff) | (d >> 32 & ~0xfff))) $(((d & 0xff) | (d >> 12 & ~0xff)))
}

# ---- arguments ----
IMAGE=${1:-}
DEV=${2:-}
if [[ $# -gt 2 ]]; then
	refuse "too many arguments (usage: usb-write.sh IMAGE DEV)"
fi
[[ -n $DEV ]] || refuse "no device given (usage: make usb DEV=/dev/sdX)"
[[ -n $IMAGE ]] || refuse "no image given"
[[ -f $IMAGE && -r $IMAGE ]] || refuse "image '$IMAGE' is missing or unreadable (build it first)"
IMAGE_BYTES=$(stat -L -c '%s' -- "$IMAGE")
((IMAGE_BYTES > 0)) || refuse "image '$IMAGE' is empty"

# ---- is it a whole disk? ----
if [[ ! -e $DEV && ! -L $DEV ]]; then
	refuse "$DEV does not exist"
fi
if [[ ! -b $DEV ]]; then
	if [[ -c $DEV ]]; then
		refuse "$DEV is a character device, not a block device (disk)"
	elif [[ -f $DEV ]]; then
		refuse "$DEV is a regular file, not a block device (disk)"
	else
		refuse "$DEV is not a block device (disk)"
	fi
fi
NAME=$(devname_of "$DEV")
[[ -n $NAME && -d $SYSFS/class/block/$NAME ]] ||
	refuse "$DEV ($NAME) is not known to the kernel under $SYSFS/class/block"
if [[ -e $SYSFS/class/block/$NAME/partition ]]; then
	refuse "$DEV is a partition ($NAME); give the whole disk, e.g. /dev/$(parent_of "$NAME")"
fi
DISK=$SYSFS/block/$NAME
[[ -d $DISK ]] || refuse "$DEV ($NAME) is not a whole disk (no $DISK)"

# The disk and its partitions, by kernel name.
declare -A OURS=([$NAME]=1)
for p in "$DISK/$NAME"*; do
	if [[ -e $p/partition ]]; then
		OURS[${p##*/}]=1
	fi
done

# ---- not the running system ----
MOUNTS=$PROC/self/mounts
[[ -r $MOUNTS ]] || refuse "cannot read $MOUNTS to check what is mounted"
declare -A SYSDISKS=()
while read -r src mnt _; do
	for m in "${SYSTEM_MOUNTS[@]}"; do
		[[ $mnt == "$m" && $src == /* ]] || continue
		while IFS= read -r d; do
			if [[ -n $d ]]; then
				SYSDISKS[$d]=${SYSDISKS[$d]:-$mnt}
			fi
		done < <(disks_of "$(devname_of "$src")")
	done
done <"$MOUNTS"
for m in "${SYSTEM_MOUNTS[@]}"; do
	mm=$(fs_majmin "$m")
	[[ -n $mm ]] || continue
	link=$(readlink -- "$SYSFS/dev/block/$mm" 2>/dev/null) || continue
	while IFS= read -r d; do
		if [[ -n $d ]]; then
			SYSDISKS[$d]=${SYSDISKS[$d]:-$m}
		fi
	done < <(disks_of "${link##*/}")
done
if [[ -n ${SYSDISKS[$NAME]:-} ]]; then
	refuse "$DEV holds the running system (${SYSDISKS[$NAME]} is on it)"
fi

# ---- nothing on it in use ----
for n in "${!OURS[@]}"; do
	for h in "$SYSFS/class/block/$n/holders"/*; do
		[[ -e $h || -L $h ]] || continue
		refuse "$DEV is in use: /dev/$n is held by ${h##*/} (device-mapper, LVM or RAID); close that first"
	done
done
while read -r src mnt _; do
	[[ $src == /* ]] || continue
	n=$(devname_of "$src")
	if [[ -n ${OURS[$n]:-} ]]; then
		refuse "$DEV is mounted: $src on $mnt; unmount it first"
	fi
done <"$MOUNTS"
if [[ -r $PROC/swaps ]]; then
	while read -r src _; do
		[[ $src == /* ]] || continue
		n=$(devname_of "$src")
		if [[ -n ${OURS[$n]:-} ]]; then
			refuse "$DEV is in use as swap ($src); swapoff it first"
		fi
	done <"$PROC/swaps"
fi

# ---- writable and the right size ----
RO=$(attr "$DISK/ro")
REMOVABLE=$(attr "$DISK/removable")
SECTORS=$(attr "$DISK/size")
[[ $RO =~ ^[01]$ && $REMOVABLE =~ ^[01]$ && $SECTORS =~ ^[0-9]+$ ]] ||
	refuse "cannot read ro/removable/size of $NAME under $DISK"
[[ $RO == 0 ]] || refuse "$DEV is read-only (write-protect switch?)"
BYTES=$((SECTORS * 512)) # sysfs size is always in 512-byte units
((BYTES > 0)) || refuse "$DEV has size 0 (no medium inserted?)"
if ((BYTES < IMAGE_BYTES)); then
	refuse "$DEV ($(human "$BYTES")) is smaller than the image ($(human "$IMAGE_BYTES"))"
fi
if [[ $REMOVABLE != 1 && $FORCE != 1 ]]; then
	refuse "$DEV is not a removable disk (internal disk?); FORCE=1 overrides, e.g. for USB SSDs that report themselves fixed"
fi
if ((BYTES > MAX_BYTES)) && [[ $FORCE != 1 ]]; then
	refuse "$DEV is larger than 256 GiB ($(human "$BYTES")), unusual for a USB stick; FORCE=1 overrides"
fi

# ---- confirm ----
VENDOR=$(trim "$(attr "$DISK/device/vendor")")
MODEL=$(trim "$(attr "$DISK/device/model")")
printf 'Device: %s (%s)\n' "$DEV" "$NAME"
printf 'Model:  %s\n' "$(trim "${VENDOR:-unknown vendor} ${MODEL:-unknown model}")"
printf 'Size:   %s%s\n' "$(human "$BYTES")" "$([[ $REMOVABLE == 1 ]] && echo ', removable' || echo ', NOT removable (FORCE=1)')"
printf 'Image:  %s, %s\n' "$IMAGE" "$(human "$IMAGE_BYTES")"
if [[ $YES == 1 ]]; then
	note "YES=1: not asking"
else
	printf 'Everything on %s will be lost. Type YES to overwrite %s: ' "$DEV" "$DEV"
	answer=''
	if ! IFS= read -r answer; then
		echo
		refuse "no confirmation (no input); nothing written"
	fi
	[[ $answer == YES ]] || refuse "not confirmed (got '$answer', need YES); nothing written"
fi

# ---- write ----
note "writing $IMAGE to $DEV"
if ! dd if="$IMAGE" of="$DEV" bs=4M conv=fsync oflag=direct status=progress; then
	note "dd with oflag=direct failed; retrying without it"
	dd if="$IMAGE" of="$DEV" bs=4M conv=fsync status=progress || fail "dd could not write $DEV"
fi
sync

# ---- verify ----
# Read the medium back and compare. O_DIRECT reads go to the device,
# never to the page cache: a buffered read after blockdev --flushbufs may
# still be served from pages that flush could not drop (it drops only
# pages no one else holds: udev's blkid probes a disk right after it is
# written), and such a page holds what was written, not what the medium
# kept. dd reads whole sectors (O_DIRECT needs them), cmp compares the
# image's length and stops there or at the first difference, so dd may
# die of SIGPIPE: cmp's status is the verdict, dd's error is said when
# the device read short. Where the device refuses O_DIRECT: flushed
# buffers and cmp, as the last resort, said.
read_back() { # cmp's words; its status: 0 same, 1 differ or short, 2 trouble
	dd if="$DEV" iflag=direct,count_bytes bs=4M count="$READ_BYTES" status=none 2>"$DD_ERR" |
		cmp -n "$IMAGE_BYTES" -- "$IMAGE" - 2>&1
	return "${PIPESTATUS[1]}"
}
note "verifying $IMAGE_BYTES bytes"
# Whole 4 KiB: O_DIRECT reads whole logical sectors (512 or 4096 bytes).
READ_BYTES=$(((IMAGE_BYTES + 4095) / 4096 * 4096))
DD_ERR=$(mktemp)
trap 'rm -f "$DD_ERR"' EXIT
rc=0 how="read back with O_DIRECT"
if probe=$(dd if="$DEV" iflag=direct bs=4096 count=1 status=none of=/dev/null 2>&1); then
	out=$(read_back) || rc=$?
else
	note "warning: $DEV refuses O_DIRECT reads (${probe:-no message}); verifying through the page cache"
	how="read back through the page cache"
	if command -v blockdev >/dev/null 2>&1; then
		blockdev --flushbufs "$DEV" || note "warning: could not flush buffers; verifying from cache"
	else
		note "warning: blockdev not found; verifying from cache"
	fi
	out=$(cmp -n "$IMAGE_BYTES" -- "$IMAGE" "$DEV" 2>&1) || rc=$?
fi
byte=$(sed -n 's/.* differ: .*byte \([0-9][0-9]*\).*/\1/p' <<<"$out")
case $rc in
0)
	note "verified: $DEV matches $IMAGE ($IMAGE_BYTES bytes, $how); safe to remove after eject"
	;;
1)
	if [[ -z $byte ]]; then # "EOF on - after byte N": the device read short
		fail "could not read back all $IMAGE_BYTES bytes of $DEV: $out $(head -c 300 "$DD_ERR")"
	fi
	fail "verification mismatch: first difference at byte $byte (offset $((byte - 1))): $out"
	;;
*)
	fail "could not read back $DEV: $out $(head -c 300 "$DD_ERR")"
	;;
esac
