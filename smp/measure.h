/* SPDX-License-Identifier: MIT */
/* The measurement (smp/measure.c): every AP brought up once, then the
 * offline/online cycles, each sample kept in its struct cpu. */
#ifndef APSTART_MEASURE_H
#define APSTART_MEASURE_H

#include <stdint.h>

#include "smp/wake.h"

/* Bring every usable AP online once (timed as its boot); its wake
 * configuration holds for the whole run. */
void smp_bring_up(const struct wake_config *w);
/* Once, before any AP starts: init_delay_us=auto by CPU family, and the
 * bring-up mode used (parallel where broadcast is refused, said here). */
void smp_resolve_wake(struct wake_config *w);
void smp_run_cycles(const struct wake_config *w, uint32_t cycles);
/* Where the bring-up and the cycles are, for a live display. The hook is
 * called on the BSP between two timed windows, never inside one: at the
 * start of each part (done = 0) and after every bring-up or cycle. */
enum measure_part { MEASURE_BRING_UP, MEASURE_CYCLES };
struct smp_progress {
	enum measure_part part;
	uint32_t cpu, cpus;     /* the AP at work (1-based) of the part's APs */
	uint32_t cycle, cycles; /* cycles part: its cycle just done */
	uint32_t done, total;   /* bring-ups or cycles finished, of all */
};
void smp_set_progress_hook(void (*hook)(const struct smp_progress *p));

/* fn(what, apic, cycle, t0, t1) after each timed window of the cycles,
 * outside it: what is "online" or "offline", [t0, t1] the window's
 * bracket on the BSP's TSC (wings/experiments/victims.c watches them). */
void smp_set_window_observer(void (*fn)(const char *what, uint32_t apic, uint32_t cycle,
					uint64_t t0, uint64_t t1));

/* Halt every online AP (end of run): not timed, no flush, whatever
 * park= says (480 WBINVDs would add 40 s to the end of a big run). */
void smp_park_all(const struct wake_config *w);
/* Samples kept per figure (online, offline, ap, settled) for all APs and
 * cycles together: 1000 cycles of 1000 APs. The store is allocated at its
 * used size from free RAM (kernel/bootmem.h): 5 x 8 MiB at most. */
#define SMP_SAMPLES_MAX (1u << 20)
/* Cycles that fit the sample pool for this many APs. */
uint32_t smp_max_cycles(uint32_t aps);

#endif
