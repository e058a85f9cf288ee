/* SPDX-License-Identifier: MIT */
/* Safety: every CPU goes back to the state it had when the tool started,
 * at the end, after an error, and after SIGINT/SIGTERM/SIGHUP/SIGQUIT. */
#ifndef LINUX_HOTPLUG_RESTORE_H
#define LINUX_HOTPLUG_RESTORE_H

#include "cpus.h"

/* Stop signals set a flag (checked between writes); SIGPIPE is ignored
 * so a closed output pipe cannot kill the tool with CPUs offline. */
void lh_signals_install(void);
/* The first stop signal received, or 0. */
int lh_stop_signal(void);
/* Held off while restoring: a second Ctrl-C must not cut it short. */
void lh_signals_block(void);

/* Puts every selected CPU back to online_at_start, verifying by reading
 * the state back, with a few retries. Returns the number of CPUs left in
 * another state (each named on stderr with the command that fixes it). */
unsigned lh_restore(const struct lh_cpus *cs);

#endif
