/* SPDX-License-Identifier: MIT */
/* The victims' loops and the BSP's reading of their stamps (victims.h). */
#include "wings/experiments/victims.h"

#include "wings/experiments/ap_call.h"
#include "smp/lapic.h"
#include "smp/smp.h"
#include "kernel/bootmem.h"
#include "kernel/console.h"
#include "kernel/cpu.h"
#include "kernel/tsc.h"
#include "kernel/x86.h"
#include "lib/format.h"

#define VICTIMS_MAX 64
#define RING (1u << 16)          /* stamps kept: ~0.1-1 s of chunks */
#define CHUNK_BYTES 1024         /* streamed per chunk */
#define CHASE_STEPS 16           /* dependent loads per chunk */
#define LINE 64
#define QUIET_US 20000           /* the quiet reference window */
#define BUF_MIN (256u * 1024)
#define BUF_MAX (64u << 20)
#define STOP_TIMEOUT_US 1000000

struct victim {
	struct cpu *c;
	uint8_t *buf;
	uint64_t bytes;
	uint64_t *stamps;            /* RING of them */
	volatile uint64_t count;     /* chunks done */
	volatile uint32_t stop;
	volatile uint64_t sink;
	bool synced;
	/* the quiet reference */
	uint64_t quiet_chunks, quiet_ticks, quiet_stall;
	/* over the run */
	uint32_t windows;
	uint64_t stall_max;
	uint32_t rate_min_pct;
} __attribute__((aligned(64)));

static struct victim *victims;
static uint32_t nvictims;

uint32_t victims_running(void)
{
	return nvictims;
}

/* One chunk: a streaming read, a chase, a stamp. Reads only, but for the
 * stamp: a victim dirties one line per 8 chunks of its own. */
static void victim_loop(struct cpu *c, void *arg)
{
	(void)c;
	struct victim *v = arg;
	uint64_t pos = 0, sum = 0;
	uint32_t idx = 0;
	while (!__atomic_load_n(&v->stop, __ATOMIC_ACQUIRE)) {
		const volatile uint64_t *p = (const volatile uint64_t *)(const void *)(v->buf + pos);
		for (uint32_t i = 0; i < CHUNK_BYTES / 8; i++)
			sum += p[i];
		pos += CHUNK_BYTES;
		if (pos + CHUNK_BYTES > v->bytes)
			pos = 0;
		for (uint32_t j = 0; j < CHASE_STEPS; j++)
			idx = *(const volatile uint32_t *)(const void *)(v->buf + (uint64_t)idx * LINE);
		uint64_t n = v->count;
		v->stamps[n % RING] = rdtsc();
		__atomic_store_n(&v->count, n + 1, __ATOMIC_RELEASE);
	}
	v->sink = sum + idx;
}

/* Each line's first word names the next line of one pseudo-random cycle
 * through all of them: x -> (a x + c) mod 2^k has full period when c is
 * odd and a = 1 mod 4 (Hull-Dobell), so the chase visits every line
 * before it repeats and no prefetcher can guess the next one. */
static void build_chase(struct victim *v)
{
	uint32_t lines = (uint32_t)(v->bytes / LINE);
	for (uint32_t i = 0; i < lines; i++)
		*(uint32_t *)(void *)(v->buf + (uint64_t)i * LINE) =
			(i * 1664525u + 1013904223u) & (lines - 1);
}

/* Chunks with a stamp in (t0, t1], and the longest gap between two
 * consecutive stamps, the part of it inside [t0, t1]. */
static void read_window(const struct victim *v, uint64_t t0, uint64_t t1, uint64_t *chunks,
			uint64_t *stall)
{
	uint64_t n = __atomic_load_n(&v->count, __ATOMIC_ACQUIRE);
	uint64_t lo = n > RING ? n - RING : 0, later = UINT64_MAX;
	*chunks = *stall = 0;
	for (uint64_t i = n; i-- > lo;) {
		uint64_t s = v->stamps[i % RING];
		if (s > t0 && s <= t1)
			++*chunks;
		if (later != UINT64_MAX && later > t0 && s < t1) {
			uint64_t a = s > t0 ? s : t0, b = later < t1 ? later : t1;
			if (b - a > *stall)
				*stall = b - a;
		}
		later = s;
		if (s < t0)
			break;
	}
	/* No stamp after the window yet (still stalled when we gave up
	 * waiting): the gap open at its end counts up to its end. */
	uint64_t newest = n ? v->stamps[(n - 1) % RING] : 0;
	if (newest < t1) {
		uint64_t from = newest > t0 ? newest : t0;
		if (t1 - from > *stall)
			*stall = t1 - from;
	}
}

/* Halted for us (a 1 ms timer wakes it), interrupts as they were. */
static void wait_us(uint64_t us)
{
	bool irq = (read_rflags() & 0x200) != 0;
	uint64_t deadline = tsc_deadline_us(us);
	lapic_timer_periodic_us(1000);
	while (!tsc_passed(deadline))
		sti_hlt();
	cli();
	lapic_timer_stop();
	if (irq)
		sti();
}

static uint32_t llc_share_bytes(uint32_t online)
{
	uint64_t llc = (uint64_t)cpu_llc_kib() * 1024;
	uint64_t b = online ? llc / online : llc;
	if (b < BUF_MIN)
		b = BUF_MIN;
	if (b > BUF_MAX)
		b = BUF_MAX;
	uint64_t p = BUF_MIN; /* a power of two: the chase needs it */
	while (p * 2 <= b)
		p *= 2;
	return (uint32_t)p;
}

uint32_t victims_start(uint32_t k)
{
	if (!k)
		return 0;
	uint32_t online = 0;
	for (uint32_t i = 0; i < cpu_count; i++)
		online += cpus[i].bsp || cpus[i].state == CPU_ONLINE;
	if (k > VICTIMS_MAX)
		k = VICTIMS_MAX;
	if (k + 1 > online) {
		kprintf("victims: %u asked, %u APs online: none left to measure; victims=%u\n", k,
			online - 1, online > 2 ? online - 2 : 0);
		k = online > 2 ? online - 2 : 0;
		if (!k)
			return 0;
	}
	victims = bootmem_alloc((uint64_t)k * sizeof *victims, 64, "the victims");
	uint32_t bytes = llc_share_bytes(online);
	/* the last k online APs */
	for (uint32_t i = cpu_count; i-- > 0 && nvictims < k;) {
		struct cpu *c = &cpus[i];
		if (c->bsp || c->state != CPU_ONLINE)
			continue;
		struct victim *v = &victims[nvictims];
		v->c = c;
		v->bytes = bytes;
		v->buf = bootmem_alloc(bytes, 4096, "a victim's buffer");
		v->stamps = bootmem_alloc((uint64_t)RING * sizeof *v->stamps, 64, "a victim's stamps");
		v->synced = c->tsc_synced;
		v->rate_min_pct = UINT32_MAX;
		build_chase(v);
		for (uint32_t s = 0; s < RING; s++)
			v->stamps[s] = 0;
		c->state = CPU_SKIPPED; /* out of the measurement, not halted */
		c->skip_reason = "victim: runs a memory-bound loop (victims=)";
		c->skip_code = "victim";
		nvictims++;
	}
	for (uint32_t i = 0; i < nvictims; i++)
		ap_call_start(victims[i].c, victim_loop, &victims[i]);
	/* Running before the quiet window opens: a halted vCPU can take
	 * milliseconds to be scheduled under emulation. */
	uint64_t deadline = tsc_deadline_us(STOP_TIMEOUT_US);
	for (uint32_t i = 0; i < nvictims; i++)
		while (__atomic_load_n(&victims[i].count, __ATOMIC_ACQUIRE) < 16 &&
		       !tsc_passed(deadline))
			cpu_relax();
	/* The quiet reference: nothing else runs, the BSP halts. */
	uint64_t t0 = rdtsc();
	wait_us(QUIET_US);
	uint64_t t1 = rdtsc();
	for (uint32_t i = 0; i < nvictims; i++) {
		struct victim *v = &victims[i];
		read_window(v, t0, t1, &v->quiet_chunks, &v->quiet_stall);
		v->quiet_ticks = t1 - t0;
		uint64_t chunk_ns = v->quiet_chunks ? tsc_ticks_to_ns(v->quiet_ticks) / v->quiet_chunks : 0;
		kprintf("victims: APIC ID %u streams %u KiB (its LLC share) + %u dependent loads per "
			"%u KiB chunk: %llu ns per chunk quiet%s\n", v->c->apic_id, bytes / 1024,
			CHASE_STEPS, CHUNK_BYTES / 1024, (unsigned long long)chunk_ns,
			v->synced ? "" : "; its TSC is not synchronised: not evaluated");
		cprintf(CON_SERIAL, "@victim_quiet victim=%u buf_kib=%u window_ns=%llu chunks=%llu "
			"chunk_ns=%llu stall_ns=%llu tsc_sync=%d\n", v->c->apic_id, bytes / 1024,
			(unsigned long long)tsc_ticks_to_ns(v->quiet_ticks),
			(unsigned long long)v->quiet_chunks, (unsigned long long)chunk_ns,
			(unsigned long long)tsc_ticks_to_ns(v->quiet_stall), v->synced);
	}
	return nvictims;
}

void victims_window(const char *what, uint32_t apic, const char *tags, uint64_t t0, uint64_t t1)
{
	for (uint32_t i = 0; i < nvictims; i++) {
		struct victim *v = &victims[i];
		if (!v->synced || !v->quiet_chunks || t1 <= t0)
			continue;
		/* The victim's first stamp after the window closes the gap
		 * that was open at its end (a stall lasts until then). */
		uint64_t deadline = tsc_deadline_us(2000);
		while (v->stamps[(v->count + RING - 1) % RING] <= t1 && !tsc_passed(deadline))
			cpu_relax();
		uint64_t chunks, stall;
		read_window(v, t0, t1, &chunks, &stall);
		/* rate against quiet, percent: (chunks / window) / (quiet / its window) */
		uint64_t want = v->quiet_chunks * (t1 - t0) / v->quiet_ticks;
		uint32_t pct = want ? (uint32_t)(chunks * 100 / want) : 0;
		v->windows++;
		if (stall > v->stall_max)
			v->stall_max = stall;
		if (pct < v->rate_min_pct)
			v->rate_min_pct = pct;
		cprintf(CON_SERIAL, "@victim what=%s apic=%u %s victim=%u window_ns=%llu chunks=%llu "
			"rate_pct=%u stall_ns=%llu\n", what, apic, tags, v->c->apic_id,
			(unsigned long long)tsc_ticks_to_ns(t1 - t0), (unsigned long long)chunks, pct,
			(unsigned long long)tsc_ticks_to_ns(stall));
	}
}

void victims_stop(void)
{
	for (uint32_t i = 0; i < nvictims; i++)
		__atomic_store_n(&victims[i].stop, 1, __ATOMIC_RELEASE);
	for (uint32_t i = 0; i < nvictims; i++) {
		struct victim *v = &victims[i];
		bool back = ap_call_wait(v->c, STOP_TIMEOUT_US);
		v->c->state = back ? CPU_ONLINE : CPU_FAILED;
		char stall[16];
		fmt_duration(stall, sizeof stall, tsc_ticks_to_ns(v->stall_max));
		kprintf("victims: APIC ID %u: %u windows, longest stall %s, lowest rate %u%% of quiet%s\n",
			v->c->apic_id, v->windows, stall, v->windows ? v->rate_min_pct : 0,
			back ? "" : "; it did not stop its loop");
		cprintf(CON_SERIAL, "@victim_end victim=%u windows=%u stall_max_ns=%llu rate_min_pct=%u "
			"stopped=%d\n", v->c->apic_id, v->windows,
			(unsigned long long)tsc_ticks_to_ns(v->stall_max),
			v->windows ? v->rate_min_pct : 0, back);
	}
	nvictims = 0;
}
