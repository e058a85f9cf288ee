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
/* The AP given up on (timed out) gets INIT-SIPI-SIPI again, retry
 * number attempt of sipi_retry (smp/wakeup.c says when). */
void ap_wake_again(struct cpu *c, const struct wake_config *w, uint8_t vector,
		   uint32_t attempt);
/* INIT only: put the AP into wait-for-SIPI (firmware may leave APs
 * spinning, OVMF does). */
void ap_send_init(struct cpu *c, const struct wake_config *w);
/* The STARTUP IPIs of one bring-up (after the INIT). */
void ap_send_startup_ipis(struct cpu *c, const struct wake_config *w, uint8_t vector);
/* Ask an online AP to go offline (park= decides how); wait until it has
 * reported dead and then until it has settled. */
bool ap_offline(struct cpu *c, const struct wake_config *w, struct offline_times *t);
/* End of run: ask an online AP to halt without a flush; wait for it. */
bool ap_halt(struct cpu *c, const struct wake_config *w);

const char *ap_stage_name(uint32_t stage);

#endif
