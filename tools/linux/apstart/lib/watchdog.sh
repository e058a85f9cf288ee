# shellcheck shell=bash
# SPDX-License-Identifier: MIT
# apstart run --watchdog SECONDS: the machine's hardware watchdog left
# running across the kexec or reboot into apstart's kernel, so that a run
# that hangs is reset and comes back to Linux by itself.
#
# What holds (Linux 6.1, systemd 252; measured in QEMU, docs/from-linux.md):
# - apstart's kernel never touches a watchdog: it does not stop it, and
#   does not pet it either, so SECONDS must cover the whole time from here
#   until Linux's driver takes the watchdog back at the next boot (the
#   shutdown, the run, the firmware's start-up, Linux's boot), and be within
#   what the watchdog can count (its max_timeout).
# - systemd arms the watchdog for a kexec or a reboot (KExecWatchdogUSec,
#   RebootWatchdogUSec) and closes it without stopping it; but Linux's
#   watchdog core stops, at kexec and at reboot (the reboot notifier, on
#   SYS_RESTART), every driver that asks for it, and iTCO_wdt, i6300esb and
#   most do, unless Linux was booted with watchdog.stop_on_reboot=0
#   (apstart setup --watchdog puts it on the command line).
# - Without systemd, it is armed here: wdctl --settimeout, then the device
#   opened and closed without the magic 'V' (the core keeps it running).

P_WATCHDOG_SYS=$P_SYS/class/watchdog/watchdog0
P_WATCHDOG_DEV=$R/dev/watchdog0
P_WATCHDOG_STOP_ON_REBOOT=$P_SYS/module/watchdog/parameters/stop_on_reboot
readonly WATCHDOG_MIN=60
# WDIOF_CARDRESET (linux/watchdog.h): the last reset was the watchdog's.
readonly WDIOF_CARDRESET=32
WATCHDOG_WORD="watchdog.stop_on_reboot=0"

watchdog_name() { cat "$P_WATCHDOG_SYS/identity" 2>/dev/null || echo watchdog0; }

# refuse_no_watchdog SECONDS: a watchdog that can count SECONDS and that
# Linux will not stop on the way out.
refuse_no_watchdog() {
	local s=$1 max sor
	[[ $s =~ ^[0-9]+$ ]] && [ "$s" -ge $WATCHDOG_MIN ] ||
		usage_error "--watchdog needs seconds, at least $WATCHDOG_MIN (the shutdown, the run, the firmware's start-up and Linux's boot), not '$s'"
	[ -d "$P_WATCHDOG_SYS" ] ||
		refuse "this machine has no hardware watchdog that Linux drives (/sys/class/watchdog/watchdog0: no iTCO_wdt, sp5100_tco, ipmi_watchdog, i6300esb...): a run that hangs stays hung until the machine is power-cycled" \
			"run without --watchdog, and keep the BMC's power control at hand (ipmitool chassis power cycle), or load the watchdog's driver"
	max=$(cat "$P_WATCHDOG_SYS/max_timeout" 2>/dev/null)
	if [[ $max =~ ^[0-9]+$ ]] && [ "$max" -gt 0 ] && [ "$s" -gt "$max" ]; then
		refuse "the watchdog $(watchdog_name) counts at most $max s, not $s: apstart's kernel does not pet it, so a run must end (and Linux be back) within one timeout" \
			"--watchdog $max or less, and fewer cycles; or no watchdog"
	fi
	sor=$(cat "$P_WATCHDOG_STOP_ON_REBOOT" 2>/dev/null)
	if [ "$sor" != 0 ]; then
		refuse "Linux would stop the watchdog $(watchdog_name) on the way out: its watchdog core stops a driver that asks for it (iTCO_wdt, i6300esb and most do) at kexec and reboot, unless booted with $WATCHDOG_WORD (/sys/module/watchdog/parameters/stop_on_reboot is ${sor:-missing})" \
			"apstart setup --watchdog (puts $WATCHDOG_WORD on Linux's command line), then reboot once"
	fi
}

# watchdog_arm SECONDS HOW (kexec|reboot): through systemd (for its
# shutdown; WATCHDOG_SAVED keeps the value to give back), else here.
WATCHDOG_SAVED=
watchdog_arm() {
	local s=$1 how=$2 prop
	if have_systemd; then
		need_tool busctl systemd "it tells systemd to leave the watchdog running"
		prop=RebootWatchdogUSec
		[ "$how" = kexec ] && prop=KExecWatchdogUSec
		WATCHDOG_SAVED="$prop $(busctl get-property org.freedesktop.systemd1 /org/freedesktop/systemd1 \
			org.freedesktop.systemd1.Manager "$prop" 2>/dev/null | sed -n 's/^t //p')"
		busctl set-property org.freedesktop.systemd1 /org/freedesktop/systemd1 org.freedesktop.systemd1.Manager \
			"$prop" t $((s * 1000000)) || { warn "busctl set-property $prop failed"; return 1; }
		say "watchdog: systemd's $prop=${s}s: systemd arms $(watchdog_name) for the $how and leaves it running ($WATCHDOG_WORD: Linux does not stop it)"
		return 0
	fi
	need_tool wdctl util-linux "it sets the watchdog's timeout"
	wdctl -s "$s" "$P_WATCHDOG_DEV" >/dev/null || { warn "wdctl -s $s $P_WATCHDOG_DEV failed"; return 1; }
	# opened, pinged, closed without 'V': the watchdog core keeps it running
	printf '1' >"$P_WATCHDOG_DEV" 2>/dev/null || { warn "cannot open $P_WATCHDOG_DEV"; return 1; }
	say "watchdog: $(watchdog_name) running, $s s from now (nothing pets it until Linux's driver takes it back)"
}

# watchdog_disarm: the run did not leave Linux: systemd's setting given
# back, or the watchdog stopped (the magic close).
watchdog_disarm() {
	if [ -n "$WATCHDOG_SAVED" ]; then
		local prop=${WATCHDOG_SAVED%% *} v=${WATCHDOG_SAVED#* }
		busctl set-property org.freedesktop.systemd1 /org/freedesktop/systemd1 org.freedesktop.systemd1.Manager \
			"$prop" t "${v:-0}" 2>/dev/null && say "watchdog: systemd's $prop back to ${v:-0} us" ||
			warn "busctl set-property $prop ${v:-0} failed: systemd arms the watchdog at the next $prop"
		WATCHDOG_SAVED=
	elif [ "$(cat "$P_WATCHDOG_SYS/state" 2>/dev/null)" = active ]; then
		if printf 'V' >"$P_WATCHDOG_DEV" 2>/dev/null && [ "$(cat "$P_WATCHDOG_SYS/state" 2>/dev/null)" != active ]; then
			say "watchdog: $(watchdog_name) stopped"
		else
			warn "the watchdog $(watchdog_name) is still running (nowayout?): the machine resets when it expires"
		fi
	fi
}

# watchdog_last_reset: "the watchdog's" when the driver says the last
# reset was its (bootstatus WDIOF_CARDRESET; known once it is loaded).
watchdog_last_reset() {
	local b
	b=$(cat "$P_WATCHDOG_SYS/bootstatus" 2>/dev/null)
	[[ $b =~ ^[0-9]+$ ]] && [ $((b & WDIOF_CARDRESET)) != 0 ] && echo "the hardware watchdog's ($(watchdog_name), bootstatus $b)"
}
