/* SPDX-License-Identifier: MIT */
/* The run's records as a QR code on the screen, so that a phone camera
 * carries the exact numbers off a machine without a serial cable. The
 * scanned text is a log of records that aplog reads like a serial log. */
#ifndef APSTART_QR_PAGE_H
#define APSTART_QR_PAGE_H

#include <stdbool.h>
#include <stddef.h>

/* Switches the screen to pixels and draws the largest QR code it holds
 * at 3 pixels a module or more (level M), with a caption; the caption's
 * last lines are footer. False if the screen cannot show pixels or the
 * records do not fit. pass: the run's verdict, for the caption. */
bool qr_page_draw(bool pass, const char *const *footer, unsigned footer_lines);

/* After a successful qr_page_draw: what it shows, one line for serial. */
const char *qr_page_summary(void);

#endif
