/* SPDX-License-Identifier: MIT */
/* Reference timers used to calibrate the TSC. Each measures how many TSC
 * ticks elapse over a known interval and returns the TSC rate in kHz, or 0
 * if the timer is unusable: the median of windows (1..3, else 3) of 10 ms. */
#ifndef APSTART_CLOCKSOURCE_H
#define APSTART_CLOCKSOURCE_H

#include <stdint.h>

uint64_t calibrate_hpet(uint64_t hpet_phys, int windows);
uint64_t calibrate_pm_timer(uint32_t port, int bits, int windows);
uint64_t calibrate_pit(int windows);

#endif
