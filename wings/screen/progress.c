/* SPDX-License-Identifier: MIT */
/* smp/measure.c calls progress_show() between two timed windows, never
 * inside one, so drawing costs the figures nothing; the rate limit keeps even
 * that time short (one TSC read per window otherwise). */
#include "wings/screen/progress.h"

#include <stdbool.h>

#include "smp/measure.h"
#include "smp/smp.h"
#include "wings/screen/screen.h"
#include "kernel/tsc.h"
#include "kernel/x86.h"
#include "lib/format.h"

static bool on;
static uint64_t interval_ticks, next_draw, run_start;
static uint64_t part_start[2];
static bool part_seen[2];
static uint32_t cycles_planned;

/* "m:ss" or "h:mm:ss" */
static void clock_text(char *buf, uint32_t size, uint64_t ticks)
{
	uint64_t s = tsc_ticks_to_ns(ticks) / 1000000000u;
	if (s >= 3600)
		fmt_snprintf(buf, size, "%llu:%02llu:%02llu", (unsigned long long)(s / 3600),
			     (unsigned long long)(s / 60 % 60), (unsigned long long)(s % 60));
	else
		fmt_snprintf(buf, size, "%llu:%02llu", (unsigned long long)(s / 60),
			     (unsigned long long)(s % 60));
}

/* Ticks left: the part's own pace so far; during the bring-up the
 * cycles are guessed at two bring-ups each (an offline and an online),
 * until they run and show their own pace. */
static bool ticks_left(const struct smp_progress *p, uint64_t now, uint64_t *left)
{
	uint64_t spent = now - part_start[p->part];
	if (!p->done)
		return false;
	uint64_t each = spent / p->done;
	*left = each * (p->total - p->done);
	if (p->part == MEASURE_BRING_UP) {
		*left += 2 * each * (uint64_t)p->total * cycles_planned;
	}
	return true;
}

static void draw(const struct smp_progress *p, uint64_t now)
{
	char line[160], where[48], elapsed[16], left[16] = "--";
	uint64_t t;

	bool known = ticks_left(p, now, &t);
	if (known)
		clock_text(left, sizeof left, t);
	clock_text(elapsed, sizeof elapsed, now - run_start);
	if (p->part == MEASURE_BRING_UP)
		fmt_snprintf(where, sizeof where, "bring-up  CPU %u of %u", p->cpu, p->cpus);
	else
		fmt_snprintf(where, sizeof where, "cycles  CPU %u of %u  cycle %u of %u",
			     p->cpu, p->cpus, p->cycle, p->cycles);
	int n = fmt_snprintf(line, sizeof line, " %s   elapsed %s   left %s%s", where, elapsed,
			     known && t ? "~" : "", left);
	/* Padded to the edge and drawn once, each cell over the old one: no
	 * moment where the row is blank (a photo or screendump then). */
	uint32_t cols = screen_columns();
	for (uint32_t i = n > 0 ? (uint32_t)n : 0; i < cols && i < sizeof line - 1; i++)
		line[i] = ' ';
	line[cols < sizeof line - 1 ? cols : sizeof line - 1] = '\0';
	screen_text(0, screen_rows() - 1, SCREEN_BAR, line);
}

void progress_show(const struct smp_progress *p)
{
	if (!on)
		return;
	uint64_t now = rdtsc();
	if (!run_start)
		run_start = now;
	if (!part_seen[p->part]) {
		part_seen[p->part] = true;
		part_start[p->part] = now;
	} else if (p->done && p->done < p->total && now < next_draw) {
		return;
	}
	next_draw = now + interval_ticks;
	draw(p, now);
}

void progress_init(uint32_t interval_ms, uint32_t cycles)
{
	if (screen_rows() < 4)
		return;
	cycles_planned = cycles;
	interval_ticks = tsc_info()->khz * interval_ms;
	on = true;
}
