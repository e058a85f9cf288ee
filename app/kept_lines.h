/* SPDX-License-Identifier: MIT */
/* The run's records kept in memory as printed (app/kept_lines.c), for
 * whatever keeps or shows them after the run: the result page, the QR
 * code, the summary in NVRAM, a RAM zone for Linux. */
#ifndef APSTART_KEPT_LINES_H
#define APSTART_KEPT_LINES_H

#include <stdbool.h>
#include <stddef.h>

/* From here on, @boot, @env, @warn, @fail and @end records are kept
 * (before the command line is parsed, so that its @warn records are). */
void kept_lines_begin(void);
/* The console's tap (kernel/console.h): every printed piece, with the
 * targets it went to, under the console lock, in print order. */
void kept_lines_tap(unsigned targets, const char *text);
/* From here on (the results), every line that goes to serial is kept,
 * except the per-sample and per-CPU bring-up records. */
void kept_lines_report(void);
/* The run is over: what is printed from here on (about keeping the
 * results) is not kept. */
void kept_lines_end(void);
bool kept_lines_ended(void);

/* What fits in cap bytes: the kept lines, or when they do not fit, the
 * first ones, a line saying how many were left out, and the last ones
 * (the totals, @summary, @end). Returns the length. */
size_t kept_lines_render(char *out, size_t cap);

/* Every kept line in order (newline included, not NUL-terminated), as
 * kept_lines_render() gives them when nothing is left out. */
void kept_lines_for_each(void (*fn)(void *ctx, const char *line, size_t len), void *ctx);

#endif
