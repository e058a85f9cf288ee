/* SPDX-License-Identifier: MIT */
/* The live status line on the screen's bottom row while the APs are
 * brought up and cycled: phase, CPU k of N, cycle j of K, elapsed time,
 * an estimate of the time left. Screen only: serial has the records. */
#ifndef APSTART_PROGRESS_H
#define APSTART_PROGRESS_H

#include <stdint.h>

#include "smp/measure.h"

/* The line is on from here when there is a screen. It is redrawn at most
 * every interval_ms (0: after every timed window), judged on the TSC, and
 * always at the start and end of a phase. cycles: per AP, for the
 * estimate made during the bring-up. */
void progress_init(uint32_t interval_ms, uint32_t cycles);
/* The measurement's progress (the wing's hook point, app/wing.h). */
void progress_show(const struct smp_progress *p);

#endif
