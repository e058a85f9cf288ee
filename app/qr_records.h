/* SPDX-License-Identifier: MIT */
/* The text of the QR code (app/qr_page.h): the run's records, which a
 * scan gives back as a log aplog reads like a serial one. */
#ifndef APSTART_QR_RECORDS_H
#define APSTART_QR_RECORDS_H

#include <stddef.h>

/* The kept records (app/summary_save.h) that are not per-CPU, in print
 * order, with as many @cpusum records (app/report.h) as fit in cap
 * bytes: the slowest online medians first, placed where serial prints
 * them (before the first @summary), in CPU order. Whole lines only.
 * Returns the length, 0 when even the other records do not fit;
 * *cpusums_in counts the @cpusum records included. */
size_t qr_records(char *out, size_t cap, unsigned *cpusums_in);

#endif
