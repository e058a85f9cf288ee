/* SPDX-License-Identifier: MIT */
/* victims=K: what a flush does to the CPUs that keep working. K online
 * APs (the last ones started) leave the measurement and run a memory-
 * bound loop for the rest of the run: each chunk is a streaming read of
 * 16 KiB of a buffer sized to the CPU's share of the LLC, then a chase of
 * dependent loads through the same buffer (latency), and ends with a TSC
 * stamp. After each timed window the BSP reads the stamps that fall in
 * it: the chunks done (throughput against a quiet window measured
 * before any timed one) and the longest gap between two stamps that
 * overlaps the window (the longest stall). One @victim record per victim
 * and window. Stamps are compared with the BSP's TSC: victims whose TSC
 * did not pass the warp test are reported as such and not used. */
#ifndef APSTART_VICTIMS_H
#define APSTART_VICTIMS_H

#include <stdbool.h>
#include <stdint.h>

struct cpu;

/* BSP, after the bring-up, before any timed window: start up to k
 * victims and measure the quiet reference. Returns how many run. */
uint32_t victims_start(uint32_t k);
uint32_t victims_running(void);
/* BSP, right after a timed window [t0, t1] of its TSC: what: "online",
 * "offline", "flush"; apic: the window's CPU; tags: more key=value words
 * for the record ("cycle=3"). */
void victims_window(const char *what, uint32_t apic, const char *tags, uint64_t t0,
		    uint64_t t1);
/* BSP, at the end: stop the loops (the victims go back to CPU_ONLINE)
 * and print each victim's summary. */
void victims_stop(void);

#endif
