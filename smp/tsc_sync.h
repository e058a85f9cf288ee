/* SPDX-License-Identifier: MIT */
/* Is an AP's TSC synchronised with the BSP's? A warp test at bring-up,
 * and the rule every cross-CPU figure follows. */
#ifndef APSTART_TSC_SYNC_H
#define APSTART_TSC_SYNC_H

#include <stdbool.h>
#include <stdint.h>

struct cpu;
struct wake_config;

/* BSP: run the warp test with online AP c; sets c->tsc_synced and
 * c->tsc_skew. False if the AP did not take part in time. */
bool tsc_sync_check(struct cpu *c, const struct wake_config *w);
/* AP c: its side of the test, asked for with REQ_TSC_CHECK. */
void tsc_sync_ap(const struct cpu *c);

/* c->tsc_skew in ns, signed (0: synchronised, or not tested). */
int64_t tsc_skew_ns(const struct cpu *c);

#endif
