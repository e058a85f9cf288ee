// SPDX-License-Identifier: MIT
/* Signals and the restore pass. */
#define _GNU_SOURCE
#include "restore.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

static volatile sig_atomic_t stop_signal;

static const int stop_signals[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };
#define N_STOP (sizeof(stop_signals) / sizeof(stop_signals[0]))

static void on_stop(int sig)
{
	if (!stop_signal)
		stop_signal = sig;
}

void lh_signals_install(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop;
	sigemptyset(&sa.sa_mask);
	/* SA_RESTART: a write already inside the kernel completes (Linux's
	 * lock_device_hotplug_sysfs() restarts the call itself anyway); the
	 * flag is looked at before the next one. */
	sa.sa_flags = SA_RESTART;
	for (size_t i = 0; i < N_STOP; i++)
		sigaction(stop_signals[i], &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

int lh_stop_signal(void)
{
	return stop_signal;
}

void lh_signals_block(void)
{
	sigset_t set;
	sigemptyset(&set);
	for (size_t i = 0; i < N_STOP; i++)
		sigaddset(&set, stop_signals[i]);
	sigprocmask(SIG_BLOCK, &set, NULL);
}

static void pause_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

/* Retries: a transient EBUSY (another hotplug operation, the device
 * hotplug lock) clears within milliseconds. */
enum { RESTORE_TRIES = 5, RESTORE_PAUSE_MS = 200 };

unsigned lh_restore(const struct lh_cpus *cs)
{
	unsigned left = 0;
	for (size_t i = 0; i < cs->n; i++) {
		const struct lh_cpu *c = &cs->cpu[i];
		if (!c->selected)
			continue;
		bool want = c->online_at_start;
		int state = -1, err = 0;
		bool wrote = false;
		for (int t = 0; t < RESTORE_TRIES; t++) {
			state = lh_read_online(cs, c->id);
			if (state == (int)want)
				break;
			uint64_t ns;
			err = lh_write_online(cs, c->id, want, &ns, NULL);
			wrote |= !err;
			if (!err)
				continue; /* read back at the top */
			fprintf(stderr, "linux-hotplug: cpu%u: restoring it %s: %s%s\n",
				c->id, want ? "online" : "offline", strerror(err),
				t + 1 < RESTORE_TRIES ? ", trying again" : "");
			pause_ms(RESTORE_PAUSE_MS);
		}
		if (state != (int)want)
			state = lh_read_online(cs, c->id);
		if (state == (int)want) {
			if (wrote)
				fprintf(stderr, "linux-hotplug: cpu%u put back %s\n", c->id,
					want ? "online" : "offline");
			continue;
		}
		char path[4200];
		lh_online_path(cs, c->id, path, sizeof(path));
		fprintf(stderr, "linux-hotplug: ERROR: cpu%u is %s, not %s as it was at the "
			"start; restore it by hand: echo %d > %s\n", c->id,
			state < 0 ? "in an unknown state" : state ? "online" : "offline",
			want ? "online" : "offline", want, path);
		left++;
	}
	return left;
}
