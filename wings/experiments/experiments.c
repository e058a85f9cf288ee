/* SPDX-License-Identifier: MIT */
/* The experiments wing: measurements beside the reference's, each asked
 * for by an option. probe=flush times the cache flush itself instead of
 * the cycles (flush_probe.c); victims=K keeps K APs busy and reports what
 * each timed window did to them (victims.c). */
#include "app/wing.h"
#include "smp/measure.h"
#include "wings/experiments/flush_probe.h"
#include "wings/experiments/victims.h"
#include "lib/format.h"

static void window_seen(const char *what, uint32_t apic, uint32_t cycle, uint64_t t0,
			uint64_t t1)
{
	char tags[24];
	fmt_snprintf(tags, sizeof tags, "cycle=%u", cycle);
	victims_window(what, apic, tags, t0, t1);
}

static void start_victims(const struct options *o)
{
	if (victims_start(o->victims))
		smp_set_window_observer(window_seen);
}

static bool probe(const struct options *o, bool *complete)
{
	if (o->probe != PROBE_FLUSH)
		return false;
	struct flush_probe_config cfg = {
		.reps = o->flush_reps,
		.max_kib = o->flush_max_kib,
		.cpus = o->flush_cpus,
		.at_once = o->flush_at_once,
		.raise_smi = o->selftest == SELFTEST_SMI,
	};
	*complete = flush_probe_run(&cfg);
	return true;
}

/* The victims ran outside the report (CPU_SKIPPED); back to online for
 * the end-of-run halt. */
static void stop_victims(void)
{
	smp_set_window_observer(NULL);
	victims_stop();
}

WING(experiments) = {
	.name = "experiments",
	.after_bring_up = start_victims,
	.measure = probe,
	.measured = stop_victims,
	.result_title = "flush probe",
	.result_lines = flush_probe_page,
};
