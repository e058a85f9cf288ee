/* SPDX-License-Identifier: MIT */
#include "app/wing.h"

#include "smp/measure.h"
#include "smp/instrument.h"
#include "kernel/console.h"
#include "kernel/trap.h"
#include "lib/kstring.h"

/* The fan-outs: each hook point's call, to every wing that hangs on it. */
static void console_text(unsigned targets, const char *text)
{
	WINGS_STEP(console_text, targets, text);
}

static void progress(const struct smp_progress *p)
{
	WINGS_STEP(progress, p);
}

static void window_timed(const char *what, uint32_t apic, uint32_t cycle, uint64_t t0, uint64_t t1)
{
	WINGS_STEP(window_timed, what, apic, cycle, t0, t1);
}

void wings_connect(void)
{
	struct console_hooks con = { .tap = console_text };
	void (*vector)(void) = NULL;
	bool (*fixup)(struct trap_frame *f) = NULL;
	bool progress_wanted = false, windows_wanted = false;

	/* One wing each at most drives the screen, takes the vector, takes
	 * faults back, acts at the self-test points: the first in link order. */
	for_each_wing(w) {
		if (w->screen && !con.screen) {
			con.screen = w->screen->write;
			con.screen_kind = w->screen->kind;
		}
		if (w->interrupt && !vector)
			vector = w->interrupt;
		if (w->fault_fixup && !fixup)
			fixup = w->fault_fixup;
		if (w->selftest_points)
			INSTRUMENT_SELFTEST_HUNG(w->selftest_points);
		progress_wanted |= w->progress != NULL;
		windows_wanted |= w->window_timed != NULL;
	}
	console_set_hooks(&con);
	trap_set_wing_vector(vector);
	trap_set_fault_fixup(fixup);
	if (progress_wanted)
		smp_set_progress_hook(progress);
	if (windows_wanted)
		smp_set_window_observer(window_timed);
}

const char *wings_linked(void)
{
	static char names[96];
	size_t n = 0;

	for_each_wing(w) {
		size_t len = strlen(w->name);
		if (n + len + 2 > sizeof names)
			break;
		if (n)
			names[n++] = ',';
		memcpy(names + n, w->name, len);
		n += len;
	}
	names[n] = '\0';
	return n ? names : "none";
}

uint32_t wings_reserved(struct phys_range *out, uint32_t max)
{
	uint32_t n = 0;
	for_each_wing(w)
		if (w->reserved && n < max && w->reserved(&out[n]))
			n++;
	return n;
}

/* The options of the wings this kernel was built without, "NAME:WING ...":
 * the Makefile reads them from those wings' tables (app/wing.o only). */
#ifndef APSTART_ABSENT_OPTIONS
#define APSTART_ABSENT_OPTIONS ""
#endif

void wings_option_targets(struct option_targets *t, struct options *o)
{
	static struct option_table tables[WINGS_MAX];
	uint32_t n = 0;

	for_each_wing(w)
		if (w->options.count && n < WINGS_MAX)
			tables[n++] = w->options;
	*t = (struct option_targets){
		.core = o, .wings = tables, .wing_count = n, .absent = APSTART_ABSENT_OPTIONS,
	};
}
