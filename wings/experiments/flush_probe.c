/* SPDX-License-Identifier: MIT */
/* The flush probe (wings/experiments/flush_probe.h). Each timed window is one
 * instruction (or one pass of per-line flushes and its SFENCE) between
 * two fenced TSC reads, interrupts off; the SMI count and APERF/MPERF
 * are read just outside it (kernel/confound.h). Before the first repeat
 * of each point the CPU writes its caches back with an untimed WBINVD, so
 * that the dirty data a flush finds is the probe's own; each timed
 * WBINVD/WBNOINVD leaves them clean for the next repeat. */
#include "wings/experiments/flush_probe.h"

#include "wings/experiments/ap_call.h"
#include "wings/experiments/cache_ops.h"
#include "wings/experiments/victims.h"
#include "smp/selftest_points.h"
#include "smp/smp.h"
#include "kernel/bootmem.h"
#include "kernel/confound.h"
#include "kernel/console.h"
#include "kernel/cpu.h"
#include "kernel/tsc.h"
#include "kernel/x86.h"
#include "lib/format.h"
#include "lib/stats.h"

#define POINTS_MAX 32
#define REPS_MAX 50
#define FIRST_STEP_KIB 64
/* Without a CPUID cache leaf: a guess that covers most desktop L3s. */
#define LLC_GUESS_KIB 32768
/* An AP's sweep or round that takes longer has hung (the model's worst
 * flush is 10 s; real ones take well under a second). */
#define AP_SWEEP_TIMEOUT_US (900ull * 1000000)

enum probe_op { OP_WBINVD, OP_WBNOINVD, OP_CLFLUSHOPT, OP_CLWB, OPS };
static const char *const op_name[OPS] = { "wbinvd", "wbnoinvd", "clflushopt", "clwb" };

/* One window's figures. */
struct window {
	uint64_t t0, ticks;
	uint32_t smis;
	uint32_t khz;
};

struct plan {
	uint32_t llc_kib, max_kib, line, reps;
	uint32_t npoints;
	uint32_t kib[POINTS_MAX];
	bool op[OPS];
	uint8_t *buf;
	uint64_t buf_bytes;
	/* a sweep's results: [point][op][rep] */
	struct window *res;
};

static struct plan plan;

static struct window *slot(uint32_t p, uint32_t op, uint32_t r)
{
	return &plan.res[(p * OPS + op) * plan.reps + r];
}

/* One store per line: each makes its line dirty (write-allocate). */
static void dirty(uint8_t *buf, uint64_t bytes, uint32_t line)
{
	for (uint64_t off = 0; off < bytes; off += line)
		*(volatile uint64_t *)(void *)(buf + off) = off;
}

static void lines_flush(const uint8_t *buf, uint64_t bytes, uint32_t line, bool writeback_only)
{
	for (uint64_t off = 0; off < bytes; off += line) {
		if (writeback_only)
			cache_clwb(buf + off);
		else
			cache_clflushopt(buf + off);
	}
	cache_sfence();
}

static void timed(enum probe_op op, const uint8_t *buf, uint64_t bytes, struct window *w)
{
	struct confound_snap a, b;
	confound_read(&a);
	uint64_t t0 = rdtsc();
	selftest_at_bracket_open(); /* selftest=smi: the first window */
	switch (op) {
	case OP_WBINVD:
		wbinvd();
		break;
	case OP_WBNOINVD:
		cache_wbnoinvd();
		break;
	case OP_CLFLUSHOPT:
		lines_flush(buf, bytes, plan.line, false);
		break;
	case OP_CLWB:
		lines_flush(buf, bytes, plan.line, true);
		break;
	default:
		break;
	}
	uint64_t t1 = rdtsc();
	confound_read(&b);
	w->t0 = t0;
	w->ticks = t1 - t0;
	w->smis = confound_smis(&a, &b);
	w->khz = (uint32_t)confound_khz(&a, &b);
}


/* The sweep over every point and op, on whichever CPU runs it. */
static void sweep(struct cpu *c, void *arg)
{
	(void)c;
	(void)arg;
	for (uint32_t p = 0; p < plan.npoints; p++) {
		uint64_t bytes = (uint64_t)plan.kib[p] * 1024;
		for (uint32_t op = 0; op < OPS; op++) {
			if (!plan.op[op])
				continue;
			wbinvd(); /* start clean: untimed */
			for (uint32_t r = 0; r < plan.reps; r++) {
				dirty(plan.buf, bytes, plan.line);
				struct window *w = slot(p, op, r);
				timed((enum probe_op)op, plan.buf, bytes, w);
				/* The BSP reads the victims' stamps itself; an AP's
				 * sweep leaves them unread. */
				if (c->bsp && victims_running()) {
					char tags[64];
					fmt_snprintf(tags, sizeof tags, "op=%s dirty_kib=%u at_once=1 rep=%u",
						     op_name[op], plan.kib[p], r + 1);
					victims_window("flush", c->apic_id, tags, w->t0, w->t0 + w->ticks);
				}
			}
		}
	}
}

static uint32_t smi_windows, windows;

/* start: at once, when this CPU's window opened after the round's first
 * (ns, its TSC against the BSP's), "na" where the TSCs are not known to
 * agree; NULL in a sweep. */
static void flush_line(const struct cpu *c, const char *op, uint32_t kib, uint32_t at_once,
		       uint32_t rep, const struct window *w, const char *start)
{
	windows++;
	smi_windows += w->smis != 0;
	confound_note_khz(w->khz);
	cprintf(CON_SERIAL, "@flush apic=%u op=%s dirty_kib=%u at_once=%u rep=%u ns=%llu "
		"smi=%u khz=%u%s%s\n", c->apic_id, op, kib, at_once, rep + 1,
		(unsigned long long)tsc_ticks_to_ns(w->ticks), w->smis, w->khz,
		start ? " start_ns=" : "", start ? start : "");
}

static void sweep_records(const struct cpu *c)
{
	for (uint32_t p = 0; p < plan.npoints; p++)
		for (uint32_t op = 0; op < OPS; op++)
			if (plan.op[op])
				for (uint32_t r = 0; r < plan.reps; r++)
					flush_line(c, op_name[op], plan.kib[p], 1, r, slot(p, op, r),
						   0);
}

/* Median over the repeats of a window in ns, SMI-hit windows left out
 * (all of them if every one was hit). */
static uint64_t median_ns(uint32_t p, uint32_t op)
{
	uint64_t v[REPS_MAX];
	size_t n = 0;
	for (uint32_t r = 0; r < plan.reps; r++)
		if (!slot(p, op, r)->smis)
			v[n++] = slot(p, op, r)->ticks;
	if (!n)
		for (uint32_t r = 0; r < plan.reps; r++)
			v[n++] = slot(p, op, r)->ticks;
	struct stats s;
	stats_compute(v, n, &s);
	return tsc_ticks_to_ns(s.median);
}

/* ------------------------------------------------------------ N at once */

#define AT_ONCE_MAX APSTART_MAX_CPUS

struct round {
	uint32_t n;
	uint64_t bytes;          /* each participant's footprint */
	volatile uint32_t cleaned, dirtied, ready;
	struct window w[AT_ONCE_MAX];
};

/* Both from free RAM when the probe runs (the image stays small). */
static struct round *round;
static struct cpu **members;

static void meet(volatile uint32_t *count, uint32_t n)
{
	__atomic_add_fetch(count, 1, __ATOMIC_ACQ_REL);
	while (__atomic_load_n(count, __ATOMIC_ACQUIRE) < n)
		cpu_relax();
}

/* Participant k of the round: clean, wait for all; dirty its own part of
 * the buffer, wait for all (twice); flush at once. The first barrier
 * keeps one CPU's cleaning WBINVD from writing back another's dirty
 * lines. */
static void at_once_member(uint32_t k)
{
	struct round *rd = round;
	wbinvd();
	meet(&rd->cleaned, rd->n);
	dirty(plan.buf + k * rd->bytes, rd->bytes, plan.line);
	meet(&rd->dirtied, rd->n);
	/* Once more, all running: the CPU that waited long for the others
	 * above is the one a hypervisor or an emulator's host has most
	 * likely taken off its core; a second, short meeting starts them
	 * closer together. */
	meet(&rd->ready, rd->n);
	timed(OP_WBINVD, 0, 0, &rd->w[k]);
}

static void at_once_ap(struct cpu *c, void *arg)
{
	(void)c;
	at_once_member((uint32_t)(uintptr_t)arg);
}

/* One round of n CPUs (members[0] is the BSP). False if an AP did not
 * come back. */
static bool at_once_round(uint32_t n, uint64_t bytes)
{
	round->n = n;
	round->bytes = bytes;
	round->cleaned = round->dirtied = round->ready = 0;
	for (uint32_t k = 1; k < n; k++)
		if (!ap_call_start(members[k], at_once_ap, (void *)(uintptr_t)k))
			return false;
	at_once_member(0);
	bool ok = true;
	for (uint32_t k = 1; k < n; k++)
		if (!ap_call_wait(members[k], AP_SWEEP_TIMEOUT_US)) {
			kprintf("flush: APIC ID %u did not finish its at-once flush: left "
				"out from here on\n", members[k]->apic_id);
			members[k]->state = CPU_FAILED;
			ok = false;
		}
	return ok;
}

/* ------------------------------------------------------------ the plan */

static void add_point(uint32_t kib)
{
	for (uint32_t i = 0; i < plan.npoints; i++)
		if (plan.kib[i] == kib)
			return;
	if (plan.npoints == POINTS_MAX)
		return;
	uint32_t i = plan.npoints++;
	while (i > 0 && plan.kib[i - 1] > kib) {
		plan.kib[i] = plan.kib[i - 1];
		i--;
	}
	plan.kib[i] = kib;
}

#define PAGE_LINES 8
static char page_text[PAGE_LINES][100];
static const char *page_lines[PAGE_LINES];
static uint32_t page_n;

/* One line for the result page and the console. */
static void page_add(const char *text)
{
	kprintf("flush: %s\n", text);
	if (page_n == PAGE_LINES)
		return;
	fmt_snprintf(page_text[page_n], sizeof page_text[0], "%s", text);
	page_lines[page_n] = page_text[page_n];
	page_n++;
}

const char *const *flush_probe_page(uint32_t *n)
{
	*n = page_n;
	return page_lines;
}

/* The point "with its LLC dirty": the largest footprint not above it. */
static uint32_t llc_point(void)
{
	uint32_t best = 0;
	for (uint32_t p = 0; p < plan.npoints; p++)
		if (plan.kib[p] <= plan.llc_kib)
			best = p;
	return best;
}

static void key_points(void)
{
	uint32_t l = llc_point(), last = plan.npoints - 1;
	char t[100], a[16], b[16], c[16];

	fmt_duration(a, sizeof a, median_ns(0, OP_WBINVD));
	fmt_duration(b, sizeof b, median_ns(l, OP_WBINVD));
	fmt_duration(c, sizeof c, median_ns(last, OP_WBINVD));
	if (l == last)
		fmt_snprintf(t, sizeof t, "WBINVD here: %s clean, %s with %u KiB dirty", a, b,
			     plan.kib[l]);
	else
		fmt_snprintf(t, sizeof t, "WBINVD here: %s clean, %s with its LLC (%u KiB) "
			     "dirty, %s with %u KiB", a, b, plan.kib[l], c, plan.kib[last]);
	page_add(t);
	if (plan.op[OP_WBNOINVD]) {
		fmt_duration(a, sizeof a, median_ns(0, OP_WBNOINVD));
		fmt_duration(b, sizeof b, median_ns(l, OP_WBNOINVD));
		fmt_snprintf(t, sizeof t, "WBNOINVD: %s clean, %s with %u KiB dirty", a, b,
			     plan.kib[l]);
		page_add(t);
	}
	for (uint32_t op = OP_CLFLUSHOPT; op <= OP_CLWB; op++) {
		if (!plan.op[op])
			continue;
		fmt_duration(a, sizeof a, median_ns(l, op));
		fmt_duration(b, sizeof b, median_ns(last, op));
		if (l == last)
			fmt_snprintf(t, sizeof t, "%s over %u KiB: %s",
				     op == OP_CLWB ? "CLWB" : "CLFLUSHOPT", plan.kib[l], a);
		else
			fmt_snprintf(t, sizeof t, "%s over %u KiB: %s, over %u KiB: %s",
				     op == OP_CLWB ? "CLWB" : "CLFLUSHOPT", plan.kib[l], a,
				     plan.kib[last], b);
		page_add(t);
	}
}

static uint32_t package_of(uint32_t apic_id, struct cpu_topology t)
{
	return t.package_shift >= 32 ? 0 : apic_id >> t.package_shift;
}

static void at_once_rounds(const struct flush_probe_config *cfg, uint32_t footprint_kib)
{
	struct cpu_topology t = cpu_topology();
	struct cpu *bsp = 0;
	uint32_t socket = 0, all = 0;

	for (uint32_t i = 0; i < cpu_count; i++)
		if (cpus[i].bsp)
			bsp = &cpus[i];
	if (!bsp)
		return;
	/* The BSP first, then its socket's online APs, then the others. */
	members[all++] = bsp;
	for (int pass = 0; pass < 2; pass++)
		for (uint32_t i = 0; i < cpu_count && all < AT_ONCE_MAX; i++) {
			struct cpu *c = &cpus[i];
			bool same = package_of(c->apic_id, t) == package_of(bsp->apic_id, t);
			if (c->bsp || c->state != CPU_ONLINE || same != (pass == 0))
				continue;
			members[all++] = c;
		}
	for (uint32_t i = 0; i < all; i++)
		socket += package_of(members[i]->apic_id, t) == package_of(bsp->apic_id, t);
	uint32_t top = cfg->at_once == AT_ONCE_ALL ? all : socket;
	if (all > socket)
		kprintf("flush: %s beyond one socket (%u of %u CPUs): a dual-socket Westmere was "
			"reported to hang about half the time when all its CPUs ran WBINVD at "
			"once (LKML, \"[PATCH RFC] x86/cpu: fix intermittent lockup on poweroff\", "
			"Apr 2023)%s\n", cfg->at_once == AT_ONCE_ALL ? "flushing at once" : "not flushing at once",
			socket, all, cfg->at_once == AT_ONCE_ALL ? "" : "; flush_at_once=all to try it");

	uint64_t bytes = (uint64_t)footprint_kib * 1024;
	uint32_t sizes[40], nsizes = 0;
	for (uint32_t n = 1; n < top && nsizes < 38; n *= 2)
		sizes[nsizes++] = n;
	if (top > socket && nsizes && socket > sizes[nsizes - 1])
		sizes[nsizes++] = socket;
	sizes[nsizes++] = top;

	uint64_t slowest[40] = { 0 };
	for (uint32_t s = 0; s < nsizes; s++) {
		uint32_t n = sizes[s];
		for (uint32_t f = 0; f < 2; f++) {
			uint32_t kib = f ? footprint_kib : 0;
			uint64_t worst[REPS_MAX];
			for (uint32_t r = 0; r < cfg->reps; r++) {
				if (!at_once_round(n, f ? bytes : 0))
					return;
				if (victims_running()) {
					char tags[64];
					fmt_snprintf(tags, sizeof tags, "op=wbinvd dirty_kib=%u at_once=%u rep=%u",
						     kib, n, r + 1);
					uint64_t end = round->w[0].t0 + round->w[0].ticks;
					for (uint32_t k = 1; k < n; k++)
						if (round->w[k].t0 + round->w[k].ticks > end)
							end = round->w[k].t0 + round->w[k].ticks;
					victims_window("flush", members[0]->apic_id, tags, round->w[0].t0, end);
				}
				worst[r] = 0;
				uint64_t first = round->w[0].t0;
				bool synced = true;
				for (uint32_t k = 0; k < n; k++) {
					synced &= members[k]->bsp || members[k]->tsc_synced;
					if (round->w[k].t0 < first)
						first = round->w[k].t0;
				}
				for (uint32_t k = 0; k < n; k++) {
					const struct window *w = &round->w[k];
					char start[24] = "na";
					if (synced)
						fmt_snprintf(start, sizeof start, "%llu",
							     (unsigned long long)tsc_ticks_to_ns(w->t0 - first));
					flush_line(members[k], "wbinvd", kib, n, r, w, start);
					/* the round's makespan: first start to last end */
					uint64_t end = synced ? w->t0 - first + w->ticks : w->ticks;
					if (end > worst[r])
						worst[r] = end;
				}
			}
			if (f) {
				struct stats st;
				stats_compute(worst, cfg->reps, &st);
				slowest[s] = tsc_ticks_to_ns(st.median);
			}
		}
	}
	/* "1 at once: 6.3 ms, 2: 8.4 ms, 4: ..." as far as the line goes */
	char text[96];
	uint32_t o = (uint32_t)fmt_snprintf(text, sizeof text, "at once, %u KiB each (first start to last end):",
					    footprint_kib);
	for (uint32_t s = 0; s < nsizes && o < sizeof text - 20; s++) {
		char d[16];
		fmt_duration(d, sizeof d, slowest[s]);
		o += (uint32_t)fmt_snprintf(text + o, sizeof text - o, " %u: %s%s", sizes[s], d,
					    s + 1 < nsizes ? "," : "");
	}
	page_add(text);
}

bool flush_probe_run(const struct flush_probe_config *cfg)
{
	plan.llc_kib = cpu_llc_kib();
	bool guessed = !plan.llc_kib;
	if (guessed)
		plan.llc_kib = LLC_GUESS_KIB;
	plan.max_kib = cfg->max_kib ? cfg->max_kib : 2 * plan.llc_kib;
	plan.line = cpu_clflush_bytes();
	plan.reps = cfg->reps < REPS_MAX ? cfg->reps : REPS_MAX;
	plan.op[OP_WBINVD] = true;
	plan.op[OP_WBNOINVD] = cache_has_wbnoinvd();
	plan.op[OP_CLFLUSHOPT] = cache_has_clflushopt();
	plan.op[OP_CLWB] = cache_has_clwb();

	add_point(0);
	for (uint32_t k = FIRST_STEP_KIB; k < plan.max_kib; k *= 2)
		add_point(k);
	if (plan.llc_kib <= plan.max_kib)
		add_point(plan.llc_kib);
	add_point(plan.max_kib);

	uint32_t online = 0, socket_cpus;
	for (uint32_t i = 0; i < cpu_count; i++)
		online += cpus[i].bsp || cpus[i].state == CPU_ONLINE;
	/* Each at-once CPU dirties its share of one LLC (of the largest
	 * footprint, if that is smaller). */
	{
		struct cpu_topology t = cpu_topology();
		uint32_t bsp_pkg = package_of(cpu_apic_id(), t);
		socket_cpus = 0;
		for (uint32_t i = 0; i < cpu_count; i++)
			socket_cpus += (cpus[i].bsp || cpus[i].state == CPU_ONLINE) &&
				       package_of(cpus[i].apic_id, t) == bsp_pkg;
	}
	uint32_t share = plan.llc_kib < plan.max_kib ? plan.llc_kib : plan.max_kib;
	uint32_t each_kib = share / (socket_cpus ? socket_cpus : 1);
	uint32_t at_once_cpus = cfg->at_once == AT_ONCE_ALL ? online : socket_cpus;
	uint64_t need = (uint64_t)plan.max_kib * 1024;
	if ((uint64_t)each_kib * 1024 * at_once_cpus > need)
		need = (uint64_t)each_kib * 1024 * at_once_cpus;
	plan.buf = bootmem_try_alloc(need, 4096, "the flush probe's buffer");
	while (!plan.buf && plan.max_kib > 2 * FIRST_STEP_KIB) {
		/* Not that much free RAM below 4 GiB: a shorter curve. */
		plan.max_kib /= 2;
		need /= 2;
		each_kib /= 2;
		while (plan.npoints && plan.kib[plan.npoints - 1] > plan.max_kib)
			plan.npoints--;
		add_point(plan.max_kib);
		plan.buf = bootmem_try_alloc(need, 4096, "the flush probe's buffer");
	}
	if (!plan.buf) {
		kprintf("flush: no free RAM for the probe's buffer\n");
		return false;
	}
	plan.buf_bytes = need;
	plan.res = bootmem_alloc((uint64_t)POINTS_MAX * OPS * plan.reps * sizeof *plan.res, 64,
				 "the flush probe's results");
	round = bootmem_alloc(sizeof *round, 64, "the at-once round");
	members = bootmem_alloc((uint64_t)AT_ONCE_MAX * sizeof *members, 64, "the at-once CPUs");

	const struct confound_caps *cc = confound_caps();
	kprintf("flush probe: LLC %u KiB%s, footprints 0..%u KiB in %u points, %u repeats, "
		"line %u B; WBINVD%s%s%s; never INVD; SMI counter %s, APERF/MPERF %s\n",
		plan.llc_kib, guessed ? " (not reported by CPUID: a guess)" : "", plan.max_kib,
		plan.npoints, plan.reps, plan.line, plan.op[OP_WBNOINVD] ? ", WBNOINVD" : "",
		plan.op[OP_CLFLUSHOPT] ? ", CLFLUSHOPT" : "", plan.op[OP_CLWB] ? ", CLWB" : "",
		cc->smi ? "read" : "absent", cc->freq ? "read" : "absent");
	cprintf(CON_SERIAL, "@probe kind=flush llc_kib=%u llc_guessed=%d max_kib=%u points=%u "
		"reps=%u line=%u wbnoinvd=%d clflushopt=%d clwb=%d cpus=%u socket_cpus=%u "
		"at_once=%s at_once_kib=%u smi_counter=%d aperf=%d\n",
		plan.llc_kib, guessed, plan.max_kib, plan.npoints, plan.reps, plan.line,
		plan.op[OP_WBNOINVD], plan.op[OP_CLFLUSHOPT], plan.op[OP_CLWB], online,
		socket_cpus, cfg->at_once == AT_ONCE_ALL ? "all" :
		cfg->at_once == AT_ONCE_NONE ? "none" : "socket", each_kib, cc->smi, cc->freq);

	bool ok = true;
	uint32_t swept = 0, limit = cfg->cpus ? cfg->cpus : cpu_count;
	bool irq = (read_rflags() & 0x200) != 0;
	cli();
	for (uint32_t pass = 0; pass < 2; pass++) /* the BSP first */
		for (uint32_t i = 0; i < cpu_count && swept < limit; i++) {
			struct cpu *c = &cpus[i];
			if (c->bsp != (pass == 0) || (!c->bsp && c->state != CPU_ONLINE))
				continue;
			if (c->bsp) {
				sweep(c, 0);
			} else if (!ap_call_start(c, sweep, 0) ||
				   !ap_call_wait(c, AP_SWEEP_TIMEOUT_US)) {
				kprintf("flush: APIC ID %u did not finish its sweep: left out\n",
					c->apic_id);
				c->state = CPU_FAILED;
				ok = false;
				continue;
			}
			sweep_records(c);
			if (c->bsp)
				key_points();
			swept++;
		}
	if (cfg->at_once != AT_ONCE_NONE)
		at_once_rounds(cfg, each_kib);
	if (irq)
		sti();
	cprintf(CON_SERIAL, "@probe_end swept=%u windows=%u smi_windows=%u ok=%d\n", swept,
		windows, smi_windows, ok);
	confound_count_smi_windows(smi_windows);
	return ok;
}
