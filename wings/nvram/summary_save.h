/* SPDX-License-Identifier: MIT */
/* The run's summary kept for the next boot: collected from the console
 * as it is printed, saved at the end in the project's UEFI variable
 * (lib/efi_vendor.h), which apstart.efi moves to the stick. */
#ifndef APSTART_SUMMARY_SAVE_H
#define APSTART_SUMMARY_SAVE_H

#include <stdbool.h>
#include <stddef.h>

/* From here on, @boot, @env, @warn, @fail and @end records are kept. save is
 * the save= option (off: no firmware call at all); uefi: booted through
 * UEFI (otherwise there is nowhere to keep it and nothing is said). */
void summary_capture_begin(bool save, bool uefi);
/* save= once the command line is parsed: the capture starts before it,
 * so that the command line's own @warn records are kept. */
void summary_capture_set_save(bool save);
/* From here on (the results), every line that goes to serial is kept,
 * except the per-sample and per-CPU bring-up records. */
void summary_capture_report(void);
/* Once, at the end of the run (finished or aborted): write what was kept
 * into the variable and print the outcome. Never fatal. */
void summary_save(void);

/* What is saved, at most cap bytes: the kept lines, or when they do not
 * fit, the first ones, a line saying how many were left out, and the last
 * ones (the totals, @summary, @end). Returns the length. */
size_t summary_render(char *out, size_t cap);

/* Every kept line in order (newline included, not NUL-terminated), as
 * the saved summary holds them when nothing is left out: the result page
 * takes its warnings and the QR code its records from here, so all three
 * show the same lines. */
void summary_for_each_line(void (*fn)(void *ctx, const char *line, size_t len), void *ctx);

#endif
