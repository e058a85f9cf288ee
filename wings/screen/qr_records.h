/* SPDX-License-Identifier: MIT */
/* The text of the QR code (wings/screen/qr_page.h): the run's records, which a
 * scan gives back as a log aplog reads like a serial one. */
#ifndef APSTART_QR_RECORDS_H
#define APSTART_QR_RECORDS_H

#include <stddef.h>

/* The kept records (wings/kept/kept_lines.h) in print order: every one that
 * is not per-CPU or per-phase; then the @phases records (the per-phase
 * table), if all of them fit in cap bytes; then as many @cpusum records
 * (app/report.h) as fit: the slowest online medians first, placed where
 * serial prints them (at the first @cpusum kept, else before the first
 * @summary), in CPU order. Whole lines only. Returns the length, 0 when
 * even the first records do not fit; *cpusums_in counts the @cpusum
 * records included. */
size_t qr_records(char *out, size_t cap, unsigned *cpusums_in);

#endif
