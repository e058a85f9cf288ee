/* SPDX-License-Identifier: MIT */
/* Human table and machine-readable records of a finished run. */
#ifndef APSTART_REPORT_H
#define APSTART_REPORT_H

#include <stdbool.h>
#include <stdint.h>

/* Prints the per-CPU table, totals and @summary records; returns true if
 * every AP that was started completed all its cycles. */
bool report_results(uint32_t cycles);

/* "12.34" seconds / "123.4" microseconds from nanoseconds, no FPU. */
void format_seconds(char *buf, uint32_t size, uint64_t ns);
void format_us(char *buf, uint32_t size, uint64_t ns);

#endif
