/* SPDX-License-Identifier: MIT */
/* One AP: its start (INIT-SIPI-SIPI through smp/sipi.h, waited for) and
 * its offline request, each timed on the BSP's TSC. */
#ifndef APSTART_ONE_AP_H
#define APSTART_ONE_AP_H

#include <stdbool.h>
#include <stdint.h>

#include "smp/wake.h"

struct cpu;

/* INIT, then STARTUP IPIs, then wait for the AP to report online; after
 * a timeout the failure path of ap_give_up(). */
bool ap_start(struct cpu *c, const struct wake_config *w, struct start_times *ph);
/* The figures of c's start from its marks and slot (t0 = marks.start). */
void ap_start_figures(const struct cpu *c, struct start_times *ph);

/* Ask an online AP to go offline (park= decides how); wait until it has
 * reported dead and then until it has settled. */
bool ap_offline(struct cpu *c, const struct wake_config *w, struct offline_times *t);
/* The halves of ap_offline(), for smp/many_aps.c: ask (no wait), and on
 * a timeout: report c failed, INIT it (false). */
void ap_request_park(struct cpu *c, uint32_t req);
bool ap_offline_failed(struct cpu *c, const struct wake_config *w, const char *what);
/* End of run: ask an online AP to halt without a flush; wait for it. */
bool ap_halt(struct cpu *c, const struct wake_config *w);

#endif
