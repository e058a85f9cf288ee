/* SPDX-License-Identifier: MIT */
/* The @warn records of events a passing run may have and survives (NMIs,
 * stray interrupts, a wake-up sent again: smp/events.c, smp/sipi.c). Every
 * other warning means the run is not the one asked for (an option ignored,
 * a CPU not reached, a firmware table not fully used), so it is not a clean
 * pass: the kernel's result page, aplog verify and make run's closing lines
 * tell the two kinds apart with this one list. */
#ifndef APSTART_WARN_EVENTS_H
#define APSTART_WARN_EVENTS_H

#include <stdbool.h>
#include <stddef.h>

/* line: a whole "@warn what=KIND ..." record, len bytes. */
bool warn_is_event(const char *line, size_t len);

#endif
