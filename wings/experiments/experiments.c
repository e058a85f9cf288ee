/* SPDX-License-Identifier: MIT */
/* The experiments wing: measurements beside the reference's, each asked
 * for by an option. probe=flush times the cache flush itself instead of
 * the cycles (flush_probe.c); victims=K keeps K APs busy and reports what
 * each timed window did to them (victims.c). */
#include "app/wing.h"
#include "smp/measure.h"
#include "smp/smp.h"
#include "wings/experiments/ap_call.h"
#include "wings/experiments/flush_probe.h"
#include "wings/experiments/victims.h"
#include "lib/format.h"

/* probe=flush: instead of the offline/online cycles, time the cache
 * flushes themselves (flush_probe.c). */
enum probe_mode { PROBE_NONE, PROBE_FLUSH };

/* The wing's options, as the command line set them. */
static struct experiments_options {
	enum probe_mode probe;   /* default none: the cycles */
	uint32_t flush_reps;     /* probe=flush: repeats per point, default 3 */
	uint32_t flush_max_kib;  /* largest dirty footprint; 0: twice the LLC */
	uint32_t flush_cpus;     /* CPUs swept one by one; 0: every one */
	enum flush_at_once flush_at_once; /* default socket */
	uint32_t victims;        /* APs that run a memory-bound loop (victims.h) */
} opt;

static const struct keyword probe_words[] = {
	{ "none", PROBE_NONE }, { "flush", PROBE_FLUSH }, { NULL, 0 },
};

static const struct keyword at_once_words[] = {
	{ "none", AT_ONCE_NONE }, { "socket", AT_ONCE_SOCKET }, { "all", AT_ONCE_ALL },
	{ NULL, 0 },
};

#define OPT(f, d, ...) OPTION_ROW(struct experiments_options, f, d, __VA_ARGS__)
static const struct option_row option_rows[] = {
	OPT(probe, PROBE_NONE, .keywords = probe_words),
	OPT(flush_reps, 3, .min = 1, .max = 50),
	OPT(flush_max_kib, 0, .min = 64, .max = 16777216, .def_name = "auto"),
	OPT(flush_cpus, 0, .min = 1, .max_is_cpus = true, .def_name = "all"),
	OPT(flush_at_once, AT_ONCE_SOCKET, .keywords = at_once_words),
	OPT(victims, 0, .min = 0, .max_is_cpus = true),
};

/* After each timed window of the cycles: what it did to the victims. */
static void window_seen(const char *what, uint32_t apic, uint32_t cycle, uint64_t t0,
			uint64_t t1)
{
	char tags[24];

	if (!victims_running())
		return;
	fmt_snprintf(tags, sizeof tags, "cycle=%u", cycle);
	victims_window(what, apic, tags, t0, t1);
}

static void start_victims(const struct options *o)
{
	(void)o;
	victims_start(opt.victims);
}

static bool probe_chosen(void)
{
	return opt.probe == PROBE_FLUSH;
}

static bool probe(const struct options *o)
{
	(void)o;
	struct flush_probe_config cfg = {
		.reps = opt.flush_reps,
		.max_kib = opt.flush_max_kib,
		.cpus = opt.flush_cpus,
		.at_once = opt.flush_at_once,
	};
	return flush_probe_run(&cfg);
}

static const struct wing_run flush_probe = {
	.name = "probe=flush",
	.title = "flush probe",
	.chosen = probe_chosen,
	.measure = probe,
	.summary = flush_probe_page,
};

/* The victims ran outside the report (CPU_SKIPPED); back to online for
 * the end-of-run halt. */
static void stop_victims(void)
{
	victims_stop();
}

WING(experiments) = {
	.name = "experiments",
	.options = WING_OPTIONS(option_rows, &opt),
	.after_bring_up = start_victims,
	.run = &flush_probe,
	.measured = stop_victims,
	.window_timed = window_seen,
	.interrupt = ap_call_interrupt,
};
