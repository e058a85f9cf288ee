/* SPDX-License-Identifier: MIT */
/* Waking one AP and putting it back to sleep: INIT-SIPI-SIPI and the
 * offline request, each timed on the BSP's TSC. */
#ifndef APSTART_WAKEUP_H
#define APSTART_WAKEUP_H

#include <stdbool.h>
#include <stdint.h>

#include "smp/park.h"

struct cpu;

/* How the BSP waits for an AP: spinning on its state (default), or halted
 * until the AP's IPI, which lets an instruction-counting emulator run the
 * AP at once (deterministic timing mode). */
enum bsp_wait { BSP_WAIT_SPIN, BSP_WAIT_HLT };

/* The waits after each STARTUP IPI: Linux's (ap_send_startup_ipis() in
 * smp/wakeup.c), or one fixed delay of sipi_delay_us (experiments). */
enum sipi_delay { SIPI_DELAY_LINUX, SIPI_DELAY_FIXED };

/* sipi_count: 1 or 2 STARTUP IPIs, or this: up to 2, skipping the
 * second (and the rest of the first one's wait) once the AP has entered
 * the trampoline. */
#define SIPI_COUNT_AUTO 0

/* bringup=: how the APs are started. serial: one at a time, each waited
 * for (what apstart always did); parallel: Linux 6.5+'s order, every AP
 * sent its INIT and SIPIs first, then all waited for at once; broadcast:
 * INIT and SIPIs once, to all but self (smp/bringup.c). */
enum bringup_mode { BRINGUP_SERIAL, BRINGUP_PARALLEL, BRINGUP_BROADCAST };
/* cycles_mode=: serial, each AP offline and online in turn; parallel,
 * every AP offline at once, then every AP online at once, per cycle. */
enum cycles_mode { CYCLES_SERIAL, CYCLES_PARALLEL };

struct wake_config {
	uint32_t init_delay_us;
	enum sipi_delay sipi_delay;
	uint32_t sipi_delay_us; /* sipi_delay=fixed only */
	uint32_t sipi_count;    /* 2 as the SDM and Linux, 1, or SIPI_COUNT_AUTO */
	uint32_t ap_timeout_ms;
	enum bsp_wait bsp_wait;
	enum park_mode park;
	uint32_t sipi_retry;    /* wake-ups sent again before giving up */
	bool icount_fence;      /* icount=on: see smp/test_hooks.h */
	enum bringup_mode bringup; /* broadcast only if smp_broadcast_refused() is NULL */
	enum cycles_mode cycles_mode;
};

/* One bring-up. total is the BSP's own figure; the rest are differences
 * of TSC readings, signed, TICKS_NA when meaningless: ap and to_real
 * subtract the BSP's TSC from the AP's (meaningful only when the warp
 * test found the two synchronised), to_long and to_online are the AP's
 * own. */
struct start_phases {
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

/* Send one IPI to c; an ICR that stays busy is reported. after_write
 * (NULL for none): see lapic_send_ipi_then(). */
bool ap_send_ipi(struct cpu *c, uint32_t icr, const char *what,
		 void (*after_write)(void));
/* INIT, then STARTUP IPIs, then wait for the AP to report online. */
bool ap_start(struct cpu *c, const struct wake_config *w, struct start_phases *ph);

/* The parts of a start, for smp/bringup.c's many at once: */
/* Clear c's slot and marks, mark it STARTING (before the start's TSC). */
void ap_prepare(struct cpu *c);
/* Has c entered the trampoline? (its slot, or in a serial start the
 * header's count of real-mode entries) */
bool ap_entered(const struct cpu *c, bool serial);
/* Waiting ended without c online: give up on it by compare-and-exchange
 * (false: it made it after all, seen now), then wake it again up to
 * sipi_retry times (ap_wake_again(); false as soon as it comes online);
 * after the last, report its last stage and put it back into
 * wait-for-SIPI (true). in_real: c is known to have entered real mode
 * (counted, no slot written yet). */
bool ap_give_up(struct cpu *c, const struct wake_config *w, bool in_real);
/* The AP given up on (timed out) gets INIT-SIPI-SIPI again, retry
 * number attempt of sipi_retry; in_real as for ap_give_up(), for the
 * stage it reports. */
void ap_wake_again(struct cpu *c, const struct wake_config *w, uint8_t vector,
		   uint32_t attempt, bool in_real);
/* The figures of c's start from its marks and slot (t0 = marks.start). */
void ap_start_figures(const struct cpu *c, struct start_phases *ph);
/* The last stage c reached: its slot's, or real mode (1) when in_real
 * and the slot has none yet. */
uint32_t ap_last_stage(const struct cpu *c, bool in_real);
/* INIT only: put the AP into wait-for-SIPI (firmware may leave APs
 * spinning, OVMF does). */
void ap_send_init(struct cpu *c, const struct wake_config *w);
/* The STARTUP IPIs of one bring-up (after the INIT). */
void ap_send_startup_ipis(struct cpu *c, const struct wake_config *w, uint8_t vector);
/* Ask an online AP to go offline (park= decides how); wait until it has
 * reported dead and then until it has settled. */
bool ap_offline(struct cpu *c, const struct wake_config *w, struct offline_times *t);
/* The halves of ap_offline(), for smp/bringup.c: ask (no wait), and on
 * a timeout: report c failed, INIT it (false). */
void ap_request_park(struct cpu *c, uint32_t req);
bool ap_offline_failed(struct cpu *c, const struct wake_config *w, const char *what);
/* End of run: ask an online AP to halt without a flush; wait for it. */
bool ap_halt(struct cpu *c, const struct wake_config *w);

const char *ap_stage_name(uint32_t stage);

#endif
