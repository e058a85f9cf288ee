/* SPDX-License-Identifier: MIT */
/* Resetting the machine at the end of a run (exit=reset). */
#ifndef APSTART_RESET_H
#define APSTART_RESET_H

/* Does not return: the machine resets, or, if nothing works, halts. */
void machine_reset(void) __attribute__((noreturn));

#endif
