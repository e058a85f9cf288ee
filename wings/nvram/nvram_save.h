/* SPDX-License-Identifier: MIT */
/* The nvram wing (wings/nvram/nvram_save.c): the run's summary kept in UEFI
 * variables for the next boot. Its two steps, as the wing table calls
 * them (and the host tests do). */
#ifndef APSTART_NVRAM_SAVE_H
#define APSTART_NVRAM_SAVE_H

#include <stdbool.h>

#include "app/options.h"
#include "kernel/multiboot.h"

/* After the command line: save= and whether this boot came through UEFI
 * (elsewhere there is nowhere to keep it and nothing is said). */
void nvram_save_options(const struct options *o, const struct boot_info *bi);
/* At the end of the run (finished or aborted), once: write the kept lines
 * (app/kept_lines.h) into the variables and say how it went. Never fatal. */
void nvram_save_summary(bool pass);

#endif
