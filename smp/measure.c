/* SPDX-License-Identifier: MIT */
/* The measurement: first bring-up of every AP (a TSC warp test each),
 * then `cycles` rounds per AP of offline (-> reported dead, -> settled)
 * and online (first INIT -> seen online, -> the AP's own mark). A sample
 * whose window held an NMI on the BSP or its AP says nmi=1. */
#include "smp/measure.h"

#include "smp/events.h"
#include "smp/instrument.h"
#include "smp/many_aps.h"
#include "smp/one_ap.h"
#include "smp/phases.h"
#include "smp/sipi.h"
#include "smp/smp.h"
#include "smp/tsc_sync.h"
#include "kernel/abort.h"
#include "kernel/bootmem.h"
#include "kernel/confound.h"
#include "kernel/console.h"
#include "kernel/tsc.h"
#include "lib/format.h"

/* The sample store: cycles entries per AP that came online, in free RAM,
 * at most SMP_SAMPLES_MAX per pool (kmain() clamps cycles to fit). */
static uint64_t *online_pool, *offline_pool;
static int64_t *ap_pool, *settled_pool;

static void alloc_sample_store(uint32_t cycles)
{
	uint64_t n = 0;
	for (uint32_t i = 0; i < cpu_count; i++)
		n += !cpus[i].bsp && cpus[i].state == CPU_ONLINE;
	n *= cycles;
	if (n > SMP_SAMPLES_MAX)
		n = SMP_SAMPLES_MAX;
	if (n == 0 || online_pool)
		return;
	online_pool = bootmem_alloc(n * sizeof *online_pool, 4096, "the online samples");
	offline_pool = bootmem_alloc(n * sizeof *offline_pool, 4096, "the offline samples");
	ap_pool = bootmem_alloc(n * sizeof *ap_pool, 4096, "the AP-side samples");
	settled_pool = bootmem_alloc(n * sizeof *settled_pool, 4096, "the settled samples");
}

static void (*progress_hook)(const struct smp_progress *p);

void smp_set_progress_hook(void (*hook)(const struct smp_progress *p))
{
	progress_hook = hook;
}

/* Only ever between two timed windows. */
static void progress(const struct smp_progress *p)
{
	if (progress_hook)
		progress_hook(p);
}

uint32_t smp_max_cycles(uint32_t aps)
{
	return aps ? SMP_SAMPLES_MAX / aps : SMP_SAMPLES_MAX;
}

/* A cross-CPU figure in ns, or "na". */
static const char *ns_or_na(char buf[24], int64_t ticks)
{
	if (ticks == TICKS_NA)
		return "na";
	fmt_snprintf(buf, 24, "%llu", (unsigned long long)tsc_ticks_to_ns((uint64_t)ticks));
	return buf;
}

/* Records go to serial only: thousands of lines would bury the screen;
 * the summary goes to both. */
static void offline_line(const struct cpu *c, uint32_t cycle,
			 const struct offline_times *t, bool nmi, const struct confound_window *cw)
{
	char settled[24], cf[40];
	confound_fields(cf, sizeof cf, cw);
	cprintf(CON_SERIAL, "@sample cpu=%u apic=%u cycle=%u op=offline ns=%llu ticks=%llu "
		"settled_ns=%s nmi=%d%s\n",
		c->index, c->apic_id, cycle,
		(unsigned long long)tsc_ticks_to_ns(t->total),
		(unsigned long long)t->total, ns_or_na(settled, t->settled), nmi, cf);
}

static void online_line(const struct cpu *c, uint32_t cycle,
			const struct start_times *ph, bool nmi, const struct confound_window *cw)
{
	char ap[24], real[24], lng[24], onl[24], cf[40];
	confound_fields(cf, sizeof cf, cw);
	cprintf(CON_SERIAL, "@sample cpu=%u apic=%u cycle=%u op=online ns=%llu ticks=%llu "
		"ap_ns=%s to_real_ns=%s to_long_ns=%s to_online_ns=%s nmi=%d%s\n",
		c->index, c->apic_id, cycle,
		(unsigned long long)tsc_ticks_to_ns(ph->total),
		(unsigned long long)ph->total, ns_or_na(ap, ph->ap),
		ns_or_na(real, ph->to_real), ns_or_na(lng, ph->to_long),
		ns_or_na(onl, ph->to_online), nmi, cf);
}

/* The APs of a bring-up or a parallel round (cpu_count entries, from
 * free RAM in smp_bring_up(): the image stays small). */
static struct cpu **set;

/* A round of n APs: broadcast only when the rules allow it
 * (smp_broadcast_refused()) and every AP takes part (the shorthand
 * reaches them all); one IPI each otherwise. */
static enum wake_target round_target(const struct wake_config *w, uint32_t n, uint32_t aps)
{
	return w->bringup_used == BRINGUP_BROADCAST && n == aps ? WAKE_BROADCAST : WAKE_MANY;
}

void smp_resolve_wake(struct wake_config *w)
{
	if (w->init_delay_us == INIT_DELAY_AUTO)
		w->init_delay_us = smp_default_init_delay_us();
	w->bringup_used = w->bringup;
	if (w->bringup == BRINGUP_BROADCAST && smp_broadcast_refused()) {
		w->bringup_used = BRINGUP_PARALLEL;
		kprintf("bringup: broadcast refused (%s): parallel instead\n",
			smp_broadcast_refused());
	}
}

static void cpu_line(const struct cpu *c)
{
	cprintf(CON_SERIAL, "@cpu cpu=%u apic=%u state=online boot_ns=%llu "
		"tsc_skew_ns=%lld tsc_sync=%d retries=%u\n",
		c->index, c->apic_id,
		(unsigned long long)tsc_ticks_to_ns(c->boot_ticks),
		(long long)tsc_skew_ns(c), c->tsc_synced, c->retries);
}

static uint32_t aps_total;

static void (*window_observer)(const char *what, uint32_t apic, uint32_t cycle,
				uint64_t t0, uint64_t t1);

void smp_set_window_observer(void (*fn)(const char *what, uint32_t apic, uint32_t cycle,
					uint64_t t0, uint64_t t1))
{
	window_observer = fn;
}

/* After a timed window (outside it): whoever watches the windows. */
static void window_done(const char *what, uint32_t apic, uint32_t cycle,
			const struct confound_window *cw)
{
	if (window_observer)
		window_observer(what, apic, cycle, cw->open.tsc, cw->close_tsc);
}

/* set[i]'s NMI count (events_window_nmis()) into nmis[i]. */
static void window_open(uint32_t n, uint32_t *nmis)
{
	for (uint32_t i = 0; i < n; i++)
		nmis[i] = events_window_nmis(set[i]);
}

void smp_bring_up(const struct wake_config *w)
{
	INSTRUMENT_BRING_UP_BEGINS();
	smp_bsp_wait = w->bsp_wait; /* read by the APs */
	/* Firmware may leave APs running (OVMF's spin after
	 * ExitBootServices): put every one into wait-for-SIPI before
	 * anything is timed. */
	uint32_t n = 0;
	set = bootmem_alloc((uint64_t)cpu_count * sizeof *set, 64, "the bring-up set");
	for (uint32_t i = 0; i < cpu_count; i++)
		if (cpus[i].state == CPU_ABSENT) {
			ap_send_init(&cpus[i], w);
			set[n++] = &cpus[i];
		}
	aps_total = n;
	phases_store_init(n);
	uint32_t *nmis = bootmem_alloc((uint64_t)(n ? n : 1) * sizeof *nmis, 64,
				       "the bring-up's NMI counts");
	enum bringup_mode mode = w->bringup_used;

	uint64_t total = 0;
	uint32_t online = 0;
	progress(&(struct smp_progress){ .part = MEASURE_BRING_UP, .cpu = 1, .cpus = n,
					 .done = 0, .total = n });
	if (mode == BRINGUP_SERIAL) {
		for (uint32_t i = 0; i < n && !run_ended(); i++) {
			struct cpu *c = set[i];
			struct start_times ph;
			nmis[i] = events_window_nmis(c);
			bool started = ap_start(c, w, &ph);
			events_report();
			if (!started) {
				progress(&(struct smp_progress){ .part = MEASURE_BRING_UP, .cpu = i + 1,
						 .cpus = n, .done = i + 1, .total = n });
				continue;
			}
			c->boot_ticks = ph.total;
			total += ph.total;
			online++;
			/* Linux checks each CPU it brings up
			 * (check_tsc_sync_target() in start_secondary());
			 * here after the timed bring-up. */
			tsc_sync_check(c, w);
			cpu_line(c);
			phases_record(c, 0, events_window_nmis(c) != nmis[i]);
			progress(&(struct smp_progress){ .part = MEASURE_BRING_UP, .cpu = i + 1,
						 .cpus = n, .done = i + 1, .total = n });
		}
	} else {
		enum wake_target target = mode == BRINGUP_BROADCAST ? WAKE_BROADCAST : WAKE_MANY;
		window_open(n, nmis);
		online = n ? ap_start_many(set, n, w, target, &total) : 0;
		events_report();
		for (uint32_t i = 0; i < n && !run_ended(); i++) {
			struct cpu *c = set[i];
			if (c->state != CPU_ONLINE)
				continue;
			c->boot_ticks = c->marks.seen - c->marks.start;
			tsc_sync_check(c, w);
			cpu_line(c);
			phases_record(c, 0, events_window_nmis(c) != nmis[i]);
		}
		progress(&(struct smp_progress){ .part = MEASURE_BRING_UP, .cpu = n, .cpus = n,
						 .done = n, .total = n });
	}
	/* serial: the sum of the starts (the warp tests between them not
	 * counted); parallel, broadcast: first INIT -> last AP seen. */
	kprintf("bringup: %s, %u of %u APs online in %llu ns\n", keyword_word(bringup_words, mode),
		online, n, (unsigned long long)tsc_ticks_to_ns(total));
	cprintf(CON_SERIAL, "@bringup mode=%s aps=%u online=%u total_ns=%llu\n",
		keyword_word(bringup_words, mode), n, online, (unsigned long long)tsc_ticks_to_ns(total));
}

/* One AP's timed window in the serial cycles: the bracket around it (the
 * SMI and frequency counters, kernel/confound.h) and whether an NMI hit
 * the BSP or the AP meanwhile (smp/events.h). */
struct ap_window {
	struct cpu *c;
	uint32_t nmis;
	struct confound_window cw;
	bool nmi;
};

static void ap_window_open(struct ap_window *win, struct cpu *c)
{
	win->c = c;
	win->nmis = events_window_nmis(c);
	confound_open(&win->cw);
}

/* Closed right after the timed code; the events it saw are reported. */
static void ap_window_close(struct ap_window *win)
{
	confound_close(&win->cw);
	win->nmi = events_window_nmis(win->c) != win->nmis;
	events_report();
}

/* Cycle k's offline of c (park= decides how): timed, kept, printed,
 * shown to whoever watches the windows. False if c did not go. */
static bool timed_offline(struct cpu *c, const struct wake_config *w, uint32_t k)
{
	struct offline_times off;
	struct ap_window win;

	ap_window_open(&win, c);
	bool ok = ap_offline(c, w, &off);
	ap_window_close(&win);
	if (!ok)
		return false;
	c->offline_ticks[k] = off.total;
	c->settled_ticks[k] = off.settled;
	offline_line(c, k + 1, &off, win.nmi, &win.cw);
	window_done("offline", c->apic_id, k + 1, &win.cw);
	return true;
}

/* Cycle k's start of c: timed, kept with its phases, printed, shown.
 * False if c did not come back. */
static bool timed_online(struct cpu *c, const struct wake_config *w, uint32_t k)
{
	struct start_times ph;
	struct ap_window win;

	ap_window_open(&win, c);
	INSTRUMENT_BRACKET_OPEN();
	bool ok = ap_start(c, w, &ph);
	ap_window_close(&win);
	if (!ok)
		return false;
	c->online_ticks[k] = ph.total;
	c->ap_ticks[k] = ph.ap;
	c->cycles_done = k + 1;
	online_line(c, k + 1, &ph, win.nmi, &win.cw);
	window_done("online", c->apic_id, k + 1, &win.cw);
	phases_record(c, k + 1, win.nmi);
	return true;
}

/* Where the cycles are: cycle k (from 0) of the slot-th AP (1-based) done. */
static void cycles_progress(uint32_t slot, uint32_t aps, uint32_t k, uint32_t cycles)
{
	progress(&(struct smp_progress){
		.part = MEASURE_CYCLES, .cpu = slot, .cpus = aps, .cycle = k + 1,
		.cycles = cycles, .done = (slot - 1) * cycles + k + 1, .total = aps * cycles });
}

/* Each AP in turn, cycles times: offline, then online, each a timed
 * window; an AP that fails either is done. */
static void cycles_serial(const struct wake_config *w, uint32_t cycles, uint32_t aps)
{
	uint32_t slot = 0; /* the AP at work, 1-based */

	for (uint32_t i = 0; i < cpu_count && !run_ended(); i++) {
		struct cpu *c = &cpus[i];
		if (c->bsp || c->state != CPU_ONLINE)
			continue;
		slot++;
		for (uint32_t k = 0; k < cycles && !run_ended(); k++) {
			if (!timed_offline(c, w, k))
				break;
			INSTRUMENT_PARKED(c, w);
			if (!timed_online(c, w, k))
				break;
			cycles_progress(slot, aps, k, cycles);
		}
	}
}

/* Every AP offline at once, then every AP online at once, per cycle:
 * whether N flushes cost N times one. An AP that fails drops out. A
 * sample's window is its round's. */
static void cycles_parallel(const struct wake_config *w, uint32_t cycles, uint32_t aps)
{
	/* Per AP of a round, from free RAM before the first (10 KiB as
	 * static arrays for APSTART_MAX_CPUS). */
	struct offline_times *off = bootmem_alloc((uint64_t)cpu_count * sizeof *off, 64,
						  "the parallel offline figures");
	bool *ok = bootmem_alloc((uint64_t)cpu_count * sizeof *ok, 64, "the round's results");
	uint32_t *nmis = bootmem_alloc((uint64_t)cpu_count * sizeof *nmis, 64,
				       "the round's NMI counts");

	for (uint32_t k = 0; k < cycles && !run_ended(); k++) {
		uint32_t n = 0;
		for (uint32_t i = 0; i < cpu_count; i++)
			if (!cpus[i].bsp && cpus[i].state == CPU_ONLINE && cpus[i].cycles_done == k)
				set[n++] = &cpus[i];
		if (!n)
			break;
		uint64_t wall;
		struct confound_window cw;
		window_open(n, nmis);
		confound_open(&cw);
		ap_offline_many(set, n, w, off, ok, &wall);
		confound_close(&cw);
		events_report();
		cprintf(CON_SERIAL, "@round cycle=%u op=offline aps=%u ns=%llu\n", k + 1,
			n, (unsigned long long)tsc_ticks_to_ns(wall));
		window_done("offline", smp_bsp_apic, k + 1, &cw);
		uint32_t m = 0;
		for (uint32_t i = 0; i < n; i++) {
			struct cpu *c = set[i];
			if (!ok[i])
				continue;
			c->offline_ticks[k] = off[i].total;
			c->settled_ticks[k] = off[i].settled;
			offline_line(c, k + 1, &off[i], events_window_nmis(c) != nmis[i], &cw);
			set[m++] = c;
		}
		if (!m || run_ended())
			break;
		enum wake_target target = round_target(w, m, aps_total);
		window_open(m, nmis);
		confound_open(&cw);
		uint32_t up = ap_start_many(set, m, w, target, &wall);
		confound_close(&cw);
		events_report();
		cprintf(CON_SERIAL, "@round cycle=%u op=online aps=%u online=%u ns=%llu mode=%s\n",
			k + 1, m, up, (unsigned long long)tsc_ticks_to_ns(wall),
			keyword_word(bringup_words, target == WAKE_BROADCAST ? BRINGUP_BROADCAST
									     : BRINGUP_PARALLEL));
		window_done("online", smp_bsp_apic, k + 1, &cw);
		for (uint32_t i = 0; i < m; i++) {
			struct cpu *c = set[i];
			struct start_times ph;
			if (c->state != CPU_ONLINE)
				continue;
			ap_start_figures(c, &ph);
			c->online_ticks[k] = ph.total;
			c->ap_ticks[k] = ph.ap;
			c->cycles_done = k + 1;
			bool nmi = events_window_nmis(c) != nmis[i];
			online_line(c, k + 1, &ph, nmi, &cw);
			phases_record(c, k + 1, nmi);
		}
		progress(&(struct smp_progress){
			.part = MEASURE_CYCLES, .cpu = aps, .cpus = aps,
			.cycle = k + 1, .cycles = cycles,
			.done = (k + 1) * aps, .total = aps * cycles });
	}
}

void smp_run_cycles(const struct wake_config *w, uint32_t cycles)
{
	uint32_t slot = 0, aps = 0;

	alloc_sample_store(cycles);
	for (uint32_t i = 0; i < cpu_count; i++)
		aps += !cpus[i].bsp && cpus[i].state == CPU_ONLINE;
	phases_store_init(aps * cycles);
	for (uint32_t i = 0; i < cpu_count; i++) {
		struct cpu *c = &cpus[i];
		if (c->bsp || c->state != CPU_ONLINE)
			continue;
		c->online_ticks = &online_pool[slot * cycles];
		c->offline_ticks = &offline_pool[slot * cycles];
		c->ap_ticks = &ap_pool[slot * cycles];
		c->settled_ticks = &settled_pool[slot * cycles];
		slot++;
	}
	progress(&(struct smp_progress){ .part = MEASURE_CYCLES, .cpu = 1, .cpus = aps,
					 .cycles = cycles, .done = 0, .total = aps * cycles });
	if (w->cycles_mode == CYCLES_PARALLEL)
		cycles_parallel(w, cycles, aps);
	else
		cycles_serial(w, cycles, aps);
}

void smp_park_all(const struct wake_config *w)
{
	for (uint32_t i = 0; i < cpu_count; i++) {
		struct cpu *c = &cpus[i];
		if (!c->bsp && c->state == CPU_ONLINE)
			ap_halt(c, w);
	}
}
