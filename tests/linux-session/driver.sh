#!/bin/bash
# SPDX-License-Identifier: MIT
# The long lane's driver, inside the Debian image (apstart-lane.service,
# after apstart-collect and apstart-session at every boot): one step per
# boot, as a user on SSH would type them, its output on the serial console
# for tests/linux-session/run.sh to read. The step number is on the disk
# (/root/lane-step), so a reset or a killed QEMU goes on where it was.
#   1  apstart setup, then reboot (the region is reserved from the next boot)
#   2  the command line and iomem show the region; apstart run --via grub
#      --wbinvd 1 (grub-reboot, the summary into NVRAM, the records into the
#      region)
#   3  what collect filed at this boot; apstart run --via kexec
#   4  what collect filed; apstart ab 2 (via kexec; unattended from here)
#   5  while the session runs: wait (apstart-session.service has it);
#      once it is done: the files, then power off
say() { echo "apstart-lane: $*"; }
step=$(cat /root/lane-step 2>/dev/null || echo 1)
next() { echo $((step + 1)) >/root/lane-step; sync; }
show_filed() {
	say "files in /var/lib/apstart:"
	(cd /var/lib/apstart && find . -type f | sort | while read -r f; do echo "apstart-lane:   $f $(wc -c <"$f")"; done)
}
say "boot at $(cut -d' ' -f1 /proc/uptime) s of uptime, step $step"
case $step in
1)
	next
	apstart setup
	say "setup exit $?; rebooting"
	systemctl reboot
	;;
2)
	say "cmdline: $(cat /proc/cmdline)"
	say "iomem: $(grep -i 'reserved' /proc/iomem | grep -v '^ ' | tr '\n' ';')"
	next
	apstart run --via grub --wbinvd 1 -- cycles=1
	say "run --via grub exit $?"
	;;
3)
	show_filed
	next
	apstart run --via kexec -- cycles=1
	say "run --via kexec exit $?"
	;;
4)
	show_filed
	next
	say "ab start at $(date -u +%s)"
	apstart ab 2 --wait 5 --cycles 1
	say "ab exit $?"
	;;
*)
	# the session unit goes on with it: either this boot ends with its next
	# run (and this unit is stopped) or the session ends in this boot
	while [ -f /var/lib/apstart/session-running ]; do sleep 5; done
	show_filed
	say "plan:"
	sed 's/^/apstart-lane:   /' /var/lib/apstart/session-0001/plan.txt
	say "done at $(date -u +%s)"
	sync
	systemctl poweroff
	;;
esac
