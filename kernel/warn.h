/* SPDX-License-Identifier: MIT */
/* Warnings: something was wrong but the run goes on. Each is one "@warn
 * what=<kind> key=value..." record on serial beside its caller's human
 * line, counted in @end warnings=N, so a run that passed with fewer CPUs
 * than the machine has never looks clean. */
#ifndef APSTART_WARN_H
#define APSTART_WARN_H

#include <stdint.h>

/* fmt: "what=<kind> ..." without the "@warn " and the newline. */
void warn_record(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
uint32_t warn_count(void);

#endif
