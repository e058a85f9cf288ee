/* SPDX-License-Identifier: MIT */
/* Text output shared by the commands: times in microseconds, CSV. */
#ifndef APLOG_TEXT_H
#define APLOG_TEXT_H

#include "lib/stats.h"

/* ns as microseconds with 3, 2 or 1 decimals as the value grows. */
void put_us(double ns, int width);
/* " mean median min max", each with put_us(). */
void put_us_stats(const struct stats *d, int width);
/* One CSV field, quoted when it needs to be. */
void csv_field(const char *s);

#endif
