/* SPDX-License-Identifier: MIT */
/* TSC calibration against the HPET, the ACPI PM timer or the PIT. Each
 * takes the median of up to three 10 ms windows, so one window disturbed
 * by an SMI or a host preemption does not set the frequency. */
#include "kernel/clocksource.h"

#include <stdbool.h>

#include "kernel/paging.h"
#include "kernel/x86.h"
#include "lib/stats.h"

#define WINDOW_NS 10000000ull /* 10 ms */
#define WINDOWS 3 /* at most */

/* HPET registers (IA-PC HPET Specification 1.0a, §2.3). */
#define HPET_CAP      0x000  /* [63:32] counter period in femtoseconds */
#define HPET_CONFIG   0x010
#define HPET_COUNTER  0x0F0
#define HPET_ENABLE   1u
#define HPET_MAX_PERIOD_FS 100000000ull /* spec: at most 100 ns */

/* ACPI PM timer: 3.579545 MHz (ACPI 6.5 §4.8.3.3). */
#define PM_TIMER_HZ 3579545ull

/* PIT: 1.193182 MHz input clock (Intel 8254 data sheet). */
#define PIT_HZ 1193182ull

static uint64_t median(uint64_t v[WINDOWS], int n)
{
	sort_u64(v, (size_t)n);
	return v[n / 2];
}

/* The windows asked for, 1..WINDOWS; anything else gets all of them. */
static int window_count(int windows)
{
	return windows >= 1 && windows <= WINDOWS ? windows : WINDOWS;
}

static uint64_t khz_from(uint64_t tsc_ticks, uint64_t ns)
{
	return ns ? tsc_ticks * 1000000ull / ns : 0;
}

uint64_t calibrate_hpet(uint64_t hpet_phys, int windows)
{
	int n = window_count(windows);
	volatile uint8_t *regs = paging_map_phys(hpet_phys, 1024, MAP_UC);
	if (!regs)
		return 0;
	volatile uint64_t *cap = (volatile uint64_t *)(regs + HPET_CAP);
	volatile uint64_t *cfg = (volatile uint64_t *)(regs + HPET_CONFIG);
	volatile uint64_t *counter = (volatile uint64_t *)(regs + HPET_COUNTER);

	uint64_t period_fs = *cap >> 32;
	if (period_fs == 0 || period_fs > HPET_MAX_PERIOD_FS)
		return 0;
	*cfg |= HPET_ENABLE;

	uint64_t window_ticks = WINDOW_NS * 1000000ull / period_fs;
	uint64_t khz[WINDOWS];
	for (int w = 0; w < n; w++) {
		uint64_t h0 = *counter;
		uint64_t t0 = rdtsc();
		uint64_t h1;
		/* A stopped counter would spin forever: bound by TSC too
		 * (1e10 ticks is > 1 s at any plausible rate). */
		do {
			h1 = *counter;
			if (rdtsc() - t0 > 10000000000ull)
				return 0;
		} while (h1 - h0 < window_ticks);
		uint64_t t1 = rdtsc();
		khz[w] = khz_from(t1 - t0, (h1 - h0) * period_fs / 1000000ull);
	}
	return median(khz, n);
}

uint64_t calibrate_pm_timer(uint32_t port, int bits, int windows)
{
	int n = window_count(windows);
	uint32_t mask = bits == 32 ? 0xFFFFFFFFu : 0x00FFFFFFu;
	uint64_t window_ticks = WINDOW_NS * PM_TIMER_HZ / 1000000000ull;
	uint64_t khz[WINDOWS];

	for (int w = 0; w < n; w++) {
		uint32_t p0 = inl((uint16_t)port) & mask;
		uint64_t t0 = rdtsc();
		uint64_t elapsed;
		do {
			uint32_t p1 = inl((uint16_t)port) & mask;
			elapsed = (p1 - p0) & mask;
			if (rdtsc() - t0 > 10000000000ull)
				return 0;
		} while (elapsed < window_ticks);
		uint64_t t1 = rdtsc();
		khz[w] = khz_from(t1 - t0, elapsed * 1000000000ull / PM_TIMER_HZ);
	}
	return median(khz, n);
}

uint64_t calibrate_pit(int windows)
{
	int n = window_count(windows);
	/* Channel 2, gated by port 0x61 bit 0, mode 0 (interrupt on terminal
	 * count): OUT2 (port 0x61 bit 5) rises when the count reaches zero. */
	uint16_t count = (uint16_t)(WINDOW_NS * PIT_HZ / 1000000000ull);
	uint64_t khz[WINDOWS];

	for (int w = 0; w < n; w++) {
		outb(0x61, (uint8_t)((inb(0x61) & ~0x02) | 0x01)); /* gate on, speaker off */
		outb(0x43, 0xB0);            /* channel 2, lobyte/hibyte, mode 0 */
		outb(0x42, count & 0xFF);
		outb(0x42, count >> 8);
		uint64_t t0 = rdtsc();
		while (!(inb(0x61) & 0x20)) {
			if (rdtsc() - t0 > 10000000000ull)
				return 0;
		}
		uint64_t t1 = rdtsc();
		khz[w] = khz_from(t1 - t0, (uint64_t)count * 1000000000ull / PIT_HZ);
	}
	return median(khz, n);
}
