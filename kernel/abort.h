/* SPDX-License-Identifier: MIT */
/* Ending the run from anywhere: an exception on any CPU, a panic, or the
 * normal finish. The platform keeps only the fact that the run has ended
 * and lets the first CPU to get there act; what ending means (print the
 * verdict, leave QEMU) belongs to the application, which registers it. */
#ifndef APSTART_ABORT_H
#define APSTART_ABORT_H

#include <stdbool.h>

/* Called once, by the first CPU to abort; it must not return. */
typedef void (*abort_handler)(const char *why);

void abort_set_handler(abort_handler handler);
/* Safe from any CPU and from exception context: the first caller runs
 * the handler (none registered: it halts), every later one halts. */
void abort_run(const char *why) __attribute__((noreturn));
/* Claim the end of the run: true for the first caller only. */
bool run_claim_end(void);
/* Another CPU has ended the run: stop without printing or touching
 * other CPUs. */
bool run_ended(void);
void halt_forever(void) __attribute__((noreturn));

#endif
