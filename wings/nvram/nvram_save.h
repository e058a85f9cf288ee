/* SPDX-License-Identifier: MIT */
/* The nvram wing (wings/nvram/nvram_save.c): the run's summary kept in UEFI
 * variables for the next boot. Its two steps, as the wing table calls
 * them (and the host tests do). */
#ifndef APSTART_NVRAM_SAVE_H
#define APSTART_NVRAM_SAVE_H

#include <stdbool.h>

#include "kernel/multiboot.h"

/* save=on: keep the summary in a UEFI variable for the next boot; off:
 * never call the firmware for it. The wing's one option. */
enum save_mode { SAVE_ON, SAVE_OFF };
struct nvram_options {
	enum save_mode save; /* default on */
};

/* After the command line: save= and whether this boot came through UEFI
 * (elsewhere there is nowhere to keep it and nothing is said); with both,
 * the firmware's runtime services are mapped (kernel/efi_runtime.h). */
void nvram_save_options(const struct nvram_options *o, const struct boot_info *bi);
/* At the end of the run (finished or aborted), once: write the kept lines
 * (app/kept_lines.h) into the variables and say how it went. Never fatal. */
void nvram_save_summary(bool pass);

#endif
