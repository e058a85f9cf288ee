/* SPDX-License-Identifier: MIT */
/* The result page: what a person at the console reads (and photographs)
 * at the end of a run, on VGA text or the framebuffer. */
#ifndef APSTART_RESULT_PAGE_H
#define APSTART_RESULT_PAGE_H

#include <stdbool.h>

/* Clears the screen and draws the page: the header (wings/screen/header.h), the
 * verdict, the totals in the reference's three rows, the per-CPU table or,
 * when the APs do not fit, a summary per socket and SMT thread plus the
 * slowest CPUs, then warnings and failures in one block. footer: the
 * bottom row's text (the pager's hint). */
void result_page_draw(bool pass, const char *footer);

#endif
