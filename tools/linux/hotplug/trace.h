/* SPDX-License-Identifier: MIT */
/* --trace: Linux's own cpuhp tracepoints (include/trace/events/cpuhp.h:
 * cpuhp_enter, cpuhp_multi_enter, cpuhp_exit) around each sysfs write,
 * turned into one @cpuhp record per state callback that ran.
 *
 * The tool traces in a tracefs instance of its own
 * (instances/linux-hotplug.PID): its own buffer, clock, events and
 * tracing_on, so that whatever else is being traced on the machine is
 * left alone, and switching it all off is one rmdir. The instance's clock
 * is "mono" (CLOCK_MONOTONIC), the clock the writes are timed with, so
 * each callback is placed inside its write.
 *
 * What the tracepoints cannot show: they fire only on CPUs in
 * cpu_online_mask (DECLARE_TRACE's condition), so the STARTING/DYING
 * states, which run on the AP with interrupts off before it is marked
 * online or after it is marked offline, are never traced; their time
 * stays inside the control CPU's cpu:bringup / cpu:teardown callback. */
#ifndef LINUX_HOTPLUG_TRACE_H
#define LINUX_HOTPLUG_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cpus.h"

/* The highest cpuhp state number read from hotplug/states (6.1: 236). */
#define LH_MAX_STATES 1024

enum lh_ev_kind { LH_EV_ENTER, LH_EV_MULTI, LH_EV_EXIT };

/* One tracepoint hit as trace_pipe prints it. */
struct lh_ev {
	enum lh_ev_kind kind;
	long pid;          /* the task that ran it (TASK-PID) */
	unsigned on;       /* the CPU it ran on ([NNN]) */
	uint64_t t_ns;     /* trace clock (mono), ns */
	unsigned cpu;      /* the CPU being brought up or down */
	int step;          /* the state whose callback this is */
	int ret;           /* exit: the callback's return value */
	char fn[64];       /* enter: the callback (%ps), record-safe */
};

struct lh_trace {
	char root[4096];        /* tracefs mount */
	char dir[4200];         /* our instance */
	int pipe_fd;            /* dir/trace_pipe, non-blocking */
	bool created;           /* dir was made by us: remove it */
	char *names[LH_MAX_STATES]; /* hotplug/states, record-safe; NULL unknown */
	size_t nnames;
	struct lh_ev *ev;       /* events of the write being traced */
	size_t nev, cap;
	char line[1024];        /* a line split across reads */
	size_t linelen;
	size_t malformed;       /* lines that are not cpuhp events */
	uint64_t base_ns;       /* the first traced write's start */
	bool have_base;
	size_t lost;            /* events the kernel said it lost ([LOST N
				   EVENTS]) or that found no room here */
};

/* Where tracefs is: tracefs_root if given, else <sysfs_root>/kernel/tracing,
 * else <sysfs_root>/kernel/debug/tracing (so a fake sysfs tree brings its
 * own). Checks that it has instances/ and the cpuhp events; reads the
 * state names. Changes nothing. Returns 0, or -1 with the reason in err. */
int lh_trace_probe(struct lh_trace *t, const char *tracefs_root,
		   const char *sysfs_root, char *err, size_t errlen);

/* Makes the instance, sets its clock to mono, enables the cpuhp events
 * there with tracing_on still 0, and opens its trace_pipe. On failure
 * undoes what it did. Returns 0, or -1 with the reason in err. */
int lh_trace_start(struct lh_trace *t, char *err, size_t errlen);

/* Around one timed write: begin drops whatever the pipe holds and sets
 * tracing_on; end clears it and reads the write's events. Return 0, or
 * an errno (the write goes on untraced; the caller says so). */
int lh_trace_begin(struct lh_trace *t);
int lh_trace_end(struct lh_trace *t);

/* Pairs the events read by lh_trace_end (per task: an enter and the next
 * exit of the same step for the same CPU) and prints one @cpuhp record per
 * callback of cpu's write, then one @cpuhp_write for the write. start_ns
 * and ns: the write's start (CLOCK_MONOTONIC) and duration. */
void lh_trace_report(struct lh_trace *t, const struct lh_cpu *c,
		     uint32_t cycle, const char *op, uint64_t start_ns,
		     uint64_t ns);

/* Tracing off and the instance gone: events disabled, tracing_on 0, pipe
 * closed, rmdir. Safe to call twice and after a failed start. Returns
 * false (and says on stderr what is left, with the command) on failure. */
bool lh_trace_stop(struct lh_trace *t);

void lh_trace_free(struct lh_trace *t);

/* Parses one trace_pipe line into e. Exposed for tests; false when the
 * line is not a cpuhp event. */
bool lh_trace_parse_line(const char *line, struct lh_ev *e);

#endif
