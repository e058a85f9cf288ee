#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Tests for tools/image/usb-write.sh that never touch a real disk: the disks it
# is shown are device nodes made in a temporary directory (a major number
# reserved for local use, so no driver answers) described by a fake sysfs
# and proc tree, and every refusal runs with a dd that only records that it
# was called. The one real write goes to a loop device over a temporary
# file, if this machine has loop devices.
set -uo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
WRITER=$HERE/../../tools/image/usb-write.sh
T=60 # seconds for each run of the writer
# shellcheck source=tests/protocol.sh
. "$HERE/../protocol.sh"
LOOPDEV=''
TMP=$(mktemp -d "${TMPDIR:-/tmp}/usb-tests.XXXXXX") || exit 1

cleanup() {
	if [[ -n $LOOPDEV ]]; then
		timeout 20 losetup -d "$LOOPDEV" || echo "warning: could not detach $LOOPDEV"
	fi
	rm -rf -- "$TMP"
}
trap cleanup EXIT

REALDD=$(command -v dd)

# dd stand-in for every case that must not write: records and fails.
mkdir -p "$TMP/nodd" "$TMP/dev"
cat >"$TMP/nodd/dd" <<EOF
#!/bin/sh
echo "dd \$*" >>"$TMP/dd-called"
exit 99
EOF
chmod +x "$TMP/nodd/dd"

IMAGE=$TMP/image.iso
head -c $((1024 * 1024 + 2048)) /dev/urandom >"$IMAGE"
IMAGE_SECTORS=$((($(stat -c %s "$IMAGE") + 511) / 512))

# expect NAME STATUS REGEX CMD...: runs CMD (which applies a timeout) with stdin from $STDIN (default
# /dev/null) and the recording dd; checks the exit status, that the output
# matches REGEX (and $ALSO, if set) but not $NOT, and that dd ran only if
# $DD_EXPECTED=1.
expect() {
	local name=$1 want=$2 re=$3
	shift 3
	local out rc=0
	if [[ -n ${SKIP_WHY:-} ]]; then
		skip "$name" "$SKIP_WHY"
		return
	fi
	rm -f -- "$TMP/dd-called"
	out=$(PATH="$TMP/nodd:$PATH" "$@" <"${STDIN:-/dev/null}" 2>&1) || rc=$?
	local ran=0
	[[ -e $TMP/dd-called ]] && ran=1
	if [[ $rc != "$want" ]]; then
		fail "$name" "exit status $rc, expected $want" "$out"
	elif ! grep -Eq -- "$re" <<<"$out"; then
		fail "$name" "output lacks /$re/" "$out"
	elif [[ -n ${ALSO:-} ]] && ! grep -Eq -- "$ALSO" <<<"$out"; then
		fail "$name" "output lacks /$ALSO/" "$out"
	elif [[ -n ${NOT:-} ]] && grep -Eq -- "$NOT" <<<"$out"; then
		fail "$name" "output has /$NOT/" "$out"
	elif [[ $ran != "${DD_EXPECTED:-0}" ]]; then
		fail "$name" "dd ran: $ran, expected $((1 - ran))" "$out"
	else
		ok "$name"
	fi
}

# ---- without any fake tree ----
# plain IMAGE DEV: the writer with the real /sys and /proc.
plain() {
	timeout "$T" "$WRITER" "$@"
}

echo "hello" >"$TMP/regular"
expect "no device given" 2 "no device given" plain "$IMAGE" ""
expect "nonexistent device" 2 "does not exist" plain "$IMAGE" "$TMP/no-such-disk"
expect "regular file" 2 "regular file, not a block device" plain "$IMAGE" "$TMP/regular"
expect "/dev/null (char device)" 2 "character device, not a block device" plain "$IMAGE" /dev/null
expect "missing image" 2 "missing or unreadable" plain "$TMP/no-image.iso" /dev/null

# ---- fake disks ----
# A block major no driver in this kernel has registered, from the ranges
# reserved for local/experimental use.
MAJOR=''
for m in 60 61 62 63 120 121 122 123 124 125 126 127; do
	if ! sed -n '/^Block devices:/,$p' /proc/devices | grep -E "^ *$m " >/dev/null; then
		MAJOR=$m
		break
	fi
done
NODES=0
if [[ -n $MAJOR ]] &&
	mknod "$TMP/dev/usbwfake" b "$MAJOR" 4242 2>/dev/null &&
	mknod "$TMP/dev/usbwfake1" b "$MAJOR" 4243 2>/dev/null &&
	mknod "$TMP/dev/dm-77" b "$MAJOR" 4250 2>/dev/null; then
	NODES=1
	mkdir -p "$TMP/dev/mapper"
	ln -s ../dm-77 "$TMP/dev/mapper/vg-root"
fi
DISKDEV=$TMP/dev/usbwfake
PARTDEV=$TMP/dev/usbwfake1

# fake: new sys/proc tree for disk usbwfake (partition usbwfake1) and a
# system disk sysdisk (sysdisk2 mounted on /). Attributes from REM, RO and
# SECTORS. Sets F to the tree's directory.
N=0
fake() {
	N=$((N + 1))
	local dir=$TMP/fake$N
	local sys=$dir/sys proc=$dir/proc d
	mkdir -p "$sys/class/block" "$sys/dev/block" "$proc/self"
	for d in usbwfake sysdisk; do
		local p=${d}1
		[[ $d == sysdisk ]] && p=sysdisk2
		mkdir -p "$sys/block/$d/$p/holders" "$sys/block/$d/holders" \
			"$sys/block/$d/slaves" "$sys/block/$d/device"
		echo 1 >"$sys/block/$d/$p/partition"
		ln -s "../../block/$d" "$sys/class/block/$d"
		ln -s "../../block/$d/$p" "$sys/class/block/$p"
	done
	echo "${REM:-1}" >"$sys/block/usbwfake/removable"
	echo "${RO:-0}" >"$sys/block/usbwfake/ro"
	echo "${SECTORS:-15663104}" >"$sys/block/usbwfake/size" # 7.5 GiB
	echo "Fakeco  " >"$sys/block/usbwfake/device/vendor"
	echo "Test Stick      " >"$sys/block/usbwfake/device/model"
	echo 0 >"$sys/block/sysdisk/removable"
	echo 0 >"$sys/block/sysdisk/ro"
	echo 500118192 >"$sys/block/sysdisk/size"
	ln -s ../../block/usbwfake "$sys/dev/block/$MAJOR:4242"
	ln -s ../../block/usbwfake/usbwfake1 "$sys/dev/block/$MAJOR:4243"
	cat >"$proc/self/mounts" <<-'EOF'
		sysfs /sys sysfs rw,nosuid,nodev,noexec,relatime 0 0
		/dev/sysdisk2 / ext4 rw,relatime 0 0
		tmpfs /tmp tmpfs rw,nosuid,nodev 0 0
	EOF
	printf 'Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n' >"$proc/swaps"
	F=$dir
}

# wr DEV [VAR=VALUE...]: the writer on DEV against the fake tree $F.
wr() {
	local dev=$1
	shift
	timeout "$T" env USBW_SYSFS="$F/sys" USBW_PROC="$F/proc" "$@" "$WRITER" "$IMAGE" "$dev"
}

ASK="Type YES to overwrite"
SKIP_WHY=''
if [[ $NODES == 0 ]]; then
	SKIP_WHY="cannot make device nodes here (mknod failed; not root?)"
fi

fake
ALSO="no confirmation" expect "fake disk passes the checks, no input: abort" 2 \
	"$ASK $DISKDEV" wr "$DISKDEV"
ALSO="Size: +7\.4 GiB \(8019509248 bytes\), removable" \
	expect "shows model, vendor and size" 2 "Model: +Fakeco Test Stick" wr "$DISKDEV"
printf 'yes\n' >"$TMP/answer-yes"
STDIN=$TMP/answer-yes expect "lowercase yes is not confirmation" 2 "not confirmed" \
	wr "$DISKDEV"
printf 'YES\n' >"$TMP/answer-YES"
STDIN=$TMP/answer-YES DD_EXPECTED=1 expect "typed YES goes on to dd" 1 \
	"dd could not write" wr "$DISKDEV"
DD_EXPECTED=1 expect "YES=1 goes on to dd without asking" 1 "dd could not write" \
	wr "$DISKDEV" YES=1

expect "partition refused" 2 "is a partition \(usbwfake1\).*/dev/usbwfake" \
	wr "$PARTDEV" YES=1

fake
echo "/dev/usbwfake1 /media/stick vfat rw 0 0" >>"$F/proc/self/mounts"
expect "mounted partition refused" 2 "is mounted: /dev/usbwfake1 on /media/stick" \
	wr "$DISKDEV" YES=1 FORCE=1
fake
echo "$PARTDEV /mnt/x vfat rw 0 0" >>"$F/proc/self/mounts"
expect "mounted partition refused (by device number)" 2 "is mounted" \
	wr "$DISKDEV" YES=1
fake
echo "/dev/usbwfake /mnt/raw iso9660 ro 0 0" >>"$F/proc/self/mounts"
expect "mounted whole disk refused" 2 "is mounted: /dev/usbwfake on /mnt/raw" \
	wr "$DISKDEV" YES=1

fake
printf '/dev/usbwfake1\tpartition\t1048572\t0\t-2\n' >>"$F/proc/swaps"
expect "swap partition refused" 2 "in use as swap" wr "$DISKDEV" YES=1

fake
mkdir "$F/sys/block/usbwfake/usbwfake1/holders/dm-3"
expect "partition held by device-mapper refused" 2 "held by dm-3" \
	wr "$DISKDEV" YES=1

fake
echo "/dev/usbwfake1 / ext4 rw 0 0" >>"$F/proc/self/mounts"
expect "disk under / refused" 2 "holds the running system \(/ is on it\)" \
	wr "$DISKDEV" YES=1 FORCE=1
fake
echo "/dev/usbwfake1 /boot vfat rw 0 0" >>"$F/proc/self/mounts"
expect "disk under /boot refused" 2 "holds the running system \(/boot is on it\)" \
	wr "$DISKDEV" YES=1
fake
echo "/dev/usbwfake1 /boot/efi vfat rw 0 0" >>"$F/proc/self/mounts"
expect "disk under /boot/efi refused (the machine's EFI partition)" 2 \
	"holds the running system \(/boot/efi is on it\)" wr "$DISKDEV" YES=1 FORCE=1
# /usr on LVM: /dev/mapper/vg-root -> dm-77, whose slave is usbwfake1.
fake
mkdir -p "$F/sys/block/dm-77/slaves"
ln -s ../../block/dm-77 "$F/sys/class/block/dm-77"
ln -s ../../block/dm-77 "$F/sys/dev/block/$MAJOR:4250"
ln -s ../../usbwfake/usbwfake1 "$F/sys/block/dm-77/slaves/usbwfake1"
echo "$TMP/dev/mapper/vg-root /usr ext4 rw 0 0" >>"$F/proc/self/mounts"
expect "disk under /usr via device-mapper refused" 2 "running system \(/usr is on it\)" \
	wr "$DISKDEV" YES=1

REM=0 fake
expect "non-removable refused" 2 "not a removable disk.*FORCE=1" wr "$DISKDEV" YES=1
NOT="not a removable" ALSO="no confirmation" expect \
	"non-removable with FORCE=1 gets to the question" 2 "$ASK" wr "$DISKDEV" FORCE=1

SECTORS=$((300 * 1024 * 1024 * 2)) fake # 300 GiB
expect "larger than 256 GiB refused" 2 "larger than 256 GiB" wr "$DISKDEV" YES=1
NOT="larger than" ALSO="no confirmation" expect \
	"larger than 256 GiB with FORCE=1 gets to the question" 2 "$ASK" wr "$DISKDEV" FORCE=1
SECTORS=$((256 * 1024 * 1024 * 2)) fake # exactly 256 GiB is fine
expect "exactly 256 GiB allowed" 2 "$ASK" wr "$DISKDEV"

SECTORS=$((IMAGE_SECTORS - 1)) fake
expect "smaller than the image refused, even with FORCE=1" 2 "smaller than the image" \
	wr "$DISKDEV" YES=1 FORCE=1
SECTORS=$IMAGE_SECTORS fake
expect "just large enough allowed" 2 "$ASK" wr "$DISKDEV"

RO=1 fake
expect "read-only refused, even with FORCE=1" 2 "read-only" \
	wr "$DISKDEV" YES=1 FORCE=1
SECTORS=0 fake
expect "no medium refused" 2 "size 0" wr "$DISKDEV" YES=1
SKIP_WHY=''

# ---- one real write, to a loop device ----
loop_case() {
	local name=$1
	shift
	if [[ -z $LOOPDEV ]]; then
		skip "$name" "$LOOP_WHY"
		return 1
	fi
}
LOOP_WHY=''
if ! command -v losetup >/dev/null 2>&1; then
	LOOP_WHY="losetup not installed"
else
	truncate -s 8M "$TMP/backing.img"
	if ! LOOPDEV=$(timeout 20 losetup -f --show "$TMP/backing.img" 2>"$TMP/losetup.err"); then
		LOOPDEV=''
		LOOP_WHY="loop devices not available ($(head -1 "$TMP/losetup.err"))"
	elif [[ ! -b $LOOPDEV ]]; then
		LOOP_WHY="losetup gave $LOOPDEV, which is no block device"
		LOOPDEV=''
	fi
fi

# Fake tree for the loop device: same kernel name and number, but
# removable, since a loop device says it is not.
if [[ -n $LOOPDEV ]]; then
	LN=${LOOPDEV##*/}
	hex=$(stat -L -c '%t %T' "$LOOPDEV")
	LMM=$((16#${hex% *})):$((16#${hex#* }))
	LF=$TMP/loopfake
	mkdir -p "$LF/sys/block/$LN/holders" "$LF/sys/block/$LN/device" \
		"$LF/sys/class/block" "$LF/sys/dev/block" "$LF/proc/self"
	ln -s "../../block/$LN" "$LF/sys/class/block/$LN"
	ln -s "../../block/$LN" "$LF/sys/dev/block/$LMM"
	echo 1 >"$LF/sys/block/$LN/removable"
	echo 0 >"$LF/sys/block/$LN/ro"
	echo $((8 * 1024 * 1024 / 512)) >"$LF/sys/block/$LN/size"
	echo "loop" >"$LF/sys/block/$LN/device/model"
	echo "proc /proc proc rw 0 0" >"$LF/proc/self/mounts"
	printf 'Filename\tType\tSize\tUsed\tPriority\n' >"$LF/proc/swaps"
fi

# real_write NAME IMAGE SHIMDIR STATUS REGEX: writes IMAGE to the loop
# device (dd from SHIMDIR first in PATH, if given) and checks the result;
# on success the backing file must hold IMAGE.
real_write() {
	local name=$1 img=$2 shim=$3 want=$4 re=$5 out rc=0
	loop_case "$name" || return 0
	out=$(env PATH="${shim:+$shim:}$PATH" USBW_SYSFS="$LF/sys" USBW_PROC="$LF/proc" YES=1 \
		timeout 120 "$WRITER" "$img" "$LOOPDEV" </dev/null 2>&1) || rc=$?
	if [[ $rc != "$want" ]]; then
		fail "$name" "exit status $rc, expected $want" "$out"
	elif ! grep -Eq -- "$re" <<<"$out"; then
		fail "$name" "output lacks /$re/" "$out"
	elif [[ -n ${ALSO:-} ]] && ! grep -Eq -- "$ALSO" <<<"$out"; then
		fail "$name" "output lacks /$ALSO/" "$out"
	elif [[ $want == 0 ]] && ! cmp -s -n "$(stat -c %s "$img")" "$img" "$TMP/backing.img"; then
		fail "$name" "backing file does not hold the image" "$out"
	else
		ok "$name"
	fi
}

# Each write uses fresh random data, so an earlier write cannot make a
# later verification pass.
IMG1=$TMP/img1.iso IMG2=$TMP/img2.iso IMG3=$TMP/img3.iso
head -c $((3 * 1024 * 1024)) /dev/urandom >"$IMG1"
head -c $((2 * 1024 * 1024 + 512)) /dev/urandom >"$IMG2"
head -c 1000 /dev/zero >"$IMG3"
head -c $((1024 * 1024)) /dev/urandom >>"$IMG3" # byte 1001 is 0x00

real_write "loop device: write and verify" "$IMG1" "" 0 "verified: "

mkdir -p "$TMP/nodirect" "$TMP/corrupt" "$TMP/noread"
cat >"$TMP/nodirect/dd" <<EOF
#!/bin/sh
case "\$*" in *oflag=direct*) echo "shim: O_DIRECT not supported" >&2; exit 1;; esac
exec "$REALDD" "\$@"
EOF
# A device that does not keep what it is given: it gets the image with
# byte 1001 (offset 1000) spoiled, in one write and one fsync, as dd was
# asked (only when dd writes to a block device: the writer's reads go
# through this dd too). The spoil used to be a second write of one byte
# after the first: that test flaked once ("verified" where 1001 was
# spoiled). Measured here (kernel 6.18, loop over a file on ext4 or
# tmpfs, with a second process reading the device): 1 in ~200-300 runs
# the second write was not seen by the writer's read-back, by buffered
# and by O_DIRECT reads alike, while the backing file held it before and
# after the read, and in some runs it was gone from the backing file
# too. Without the concurrent reader: 0 in 100. The writer reads the
# device as it should (now with O_DIRECT, which no page of the cache can
# stand in for); what was not faithful was the test's device given two
# writes to one sector in a row. One write of the spoiled image makes
# the device hold exactly what the test means it to. (dd's oflag=direct
# writes an image smaller than its 4 MiB block buffered: it turns O_DIRECT
# off for a short last block; conv=fsync makes it durable.)
cat >"$TMP/corrupt/dd" <<EOF
#!/bin/sh
dev= img=
for a in "\$@"; do case "\$a" in of=*) dev="\${a#of=}";; if=*) img="\${a#if=}";; esac; done
[ -b "\$dev" ] && [ -f "\$img" ] || exec "$REALDD" "\$@"
cp "\$img" "$TMP/spoiled" && printf 'Z' | "$REALDD" of="$TMP/spoiled" bs=1 seek=1000 conv=notrunc status=none || exit 97
for a in "\$@"; do
	case "\$a" in if=*) set -- "\$@" "if=$TMP/spoiled";; *) set -- "\$@" "\$a";; esac
	shift
done
exec "$REALDD" "\$@"
EOF
# A device that refuses O_DIRECT reads (some USB card readers).
cat >"$TMP/noread/dd" <<EOF
#!/bin/sh
case "\$*" in *iflag=direct*) echo "shim: O_DIRECT reads not supported" >&2; exit 1;; esac
exec "$REALDD" "\$@"
EOF
chmod +x "$TMP/nodirect/dd" "$TMP/corrupt/dd" "$TMP/noread/dd"

real_write "loop device: falls back without oflag=direct" "$IMG2" "$TMP/nodirect" 0 \
	"retrying without it"
real_write "loop device: mismatch reported" "$IMG3" "$TMP/corrupt" 1 \
	"mismatch: first difference at byte 1001 \(offset 1000\)"
IMG4=$TMP/img4.iso
head -c $((1024 * 1024 + 4096)) /dev/urandom >"$IMG4"
ALSO="verified: .*read back through the page cache" real_write \
	"loop device: no O_DIRECT reads: verified through the page cache, said" "$IMG4" \
	"$TMP/noread" 0 "refuses O_DIRECT reads \(shim: O_DIRECT reads not supported\)"

summary usb
