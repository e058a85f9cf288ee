/* SPDX-License-Identifier: MIT */
/* The run's records as a QR code on the screen, so that a phone camera
 * carries the exact numbers off a machine without a serial cable. The
 * scanned text is a log of records that aplog reads like a serial log. */
#ifndef APSTART_QR_PAGE_H
#define APSTART_QR_PAGE_H

#include <stdbool.h>
#include <stddef.h>

/* The payload: the kept records (app/summary_save.h) that are not
 * per-CPU, in print order, with as many @cpusum records (slowest online
 * median first, placed where serial has them) as fit in cap bytes; whole
 * lines only. Returns the length; *cpusums_in counts those included. */
size_t qr_page_payload(char *out, size_t cap, unsigned *cpusums_in);

/* Switches the screen to pixels and draws the largest QR code it holds
 * at 3 pixels a module or more (level M), with a caption; the caption's
 * last lines are footer. False if the screen cannot show pixels or the
 * records do not fit. */
bool qr_page_draw(const char *const *footer, unsigned footer_lines);

/* After a successful qr_page_draw: what it shows, one line for serial. */
const char *qr_page_summary(void);

#endif
