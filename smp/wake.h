/* SPDX-License-Identifier: MIT */
/* How APs are woken and put back to sleep: the modes the command line
 * chooses (struct wake_config) and the figures of one start and one
 * offline. The starts themselves: smp/one_ap.h, smp/many_aps.h. */
#ifndef APSTART_WAKE_H
#define APSTART_WAKE_H

#include <stdbool.h>
#include <stdint.h>

#include "smp/smp.h"
#include "lib/keyword.h"

struct cpu;

/* park=: how an AP that was asked to go offline waits (smp/park.c). */
enum park_mode {
	PARK_LINUX,  /* Linux's path: mwait or hlt variant, WBINVD included */
	PARK_HLT,    /* cli; hlt, no flush */
	PARK_MWAIT,  /* MONITOR/MWAIT with Linux's hint, no flush */
	PARK_INIT,   /* cli; hlt, then the BSP sends INIT (wait-for-SIPI) */
};

/* bsp_wait=: enum bsp_wait, in smp/smp.h beside the AP side that reads it. */

/* Each mode's words, for the parser and for everything that prints the
 * mode (smp/modes.c). */
extern const struct keyword bsp_wait_words[], sipi_delay_words[], sipi_count_words[],
	bringup_words[], cycles_mode_words[];

/* The waits after each STARTUP IPI: Linux's (sipi_delays() in
 * smp/sipi.c), or one fixed delay of sipi_delay_us (experiments). */
enum sipi_delay { SIPI_DELAY_LINUX, SIPI_DELAY_FIXED };

/* sipi_count: 1 or 2 STARTUP IPIs, or this: up to 2, skipping the
 * second (and the rest of the first one's wait) once the AP has entered
 * the trampoline. */
#define SIPI_COUNT_AUTO 0

/* bringup=: how the APs are started. serial: one at a time, each waited
 * for (what apstart always did); parallel: Linux 6.5+'s order, every AP
 * sent its INIT and SIPIs first, then all waited for at once; broadcast:
 * INIT and SIPIs once, to all but self (smp/many_aps.c). */
enum bringup_mode { BRINGUP_SERIAL, BRINGUP_PARALLEL, BRINGUP_BROADCAST };
/* cycles_mode=: serial, each AP offline and online in turn; parallel,
 * every AP offline at once, then every AP online at once, per cycle. */
enum cycles_mode { CYCLES_SERIAL, CYCLES_PARALLEL };

/* Whom one wake-up goes to (its set: struct wake_set, smp/sipi.h). */
enum wake_target {
	/* cpus[0] alone (a serial start, a retry): the trampoline header's
	 * count of real-mode entries can only be its own. */
	WAKE_ONE,
	/* cpus[0..n), one IPI each (bringup=parallel, cycles_mode=parallel). */
	WAKE_MANY,
	/* cpus[0..n) by one IPI, the all-excluding-self shorthand: the
	 * caller has checked smp_broadcast_refused() and that the set is
	 * every AP. */
	WAKE_BROADCAST,
};

/* The wake configuration of the whole run: the options' own fields
 * (app/options.h embeds it; the parser writes it), then what kmain()
 * resolves before any AP starts. */
struct wake_config {
	uint32_t init_delay_us;  /* INIT_DELAY_AUTO until resolved by CPU family */
	enum sipi_delay sipi_delay;
	uint32_t sipi_delay_us;  /* sipi_delay=fixed only */
	uint32_t sipi_count;     /* 2 as the SDM and Linux, 1, or SIPI_COUNT_AUTO */
	uint32_t ap_timeout_ms;
	enum bsp_wait bsp_wait;
	enum park_mode park;
	uint32_t sipi_retry;     /* wake-ups sent again before giving up */
	enum bringup_mode bringup;      /* as asked (bringup=) */
	enum cycles_mode cycles_mode;
	/* Resolved once (smp_resolve_wake()): the mode used for a round of
	 * every AP; broadcast only if smp_broadcast_refused() is NULL. */
	enum bringup_mode bringup_used;
	bool icount_fence;       /* icount=on: see smp/instrument.h */
};

/* init_delay_us takes this value until resolved: pick by CPU family. */
#define INIT_DELAY_AUTO UINT32_MAX

/* One bring-up: total is the BSP's figure; the rest are signed TSC
 * differences, TICKS_NA when meaningless (ap and to_real cross CPUs: only
 * with TSCs the warp test found synchronised). */
struct start_times {
	uint64_t total;      /* BSP: first INIT -> saw the online mark */
	int64_t ap;          /* first INIT -> AP's own online mark */
	int64_t to_real;     /* first INIT -> AP in real mode after cli[/wbinvd] */
	int64_t to_long;     /* real mode -> long mode */
	int64_t to_online;   /* long mode -> online mark in C */
};

/* One offline, measured at the two points Linux's path has: the BSP's
 * wait ends when the AP reports dead; the AP flushes after that. */
struct offline_times {
	uint64_t total;      /* BSP: request -> saw the AP report dead */
	int64_t settled;     /* request -> AP flushed, about to halt (AP TSC) */
};

#endif
