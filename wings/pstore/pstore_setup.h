/* SPDX-License-Identifier: MIT */
/* pstore=ADDR,SIZE from the command line to the running zone
 * (wings/pstore/pstore.h): checked against the loader's memory map and what the
 * kernel occupies, started before anything is allocated (so that the
 * allocator and the trampoline keep clear of it), said once the command
 * line has been read, and its end told before @end. */
#ifndef APSTART_PSTORE_SETUP_H
#define APSTART_PSTORE_SETUP_H

#include <stdbool.h>
#include <stdint.h>

#include "app/options.h"
#include "kernel/memmap.h"
#include "kernel/multiboot.h"

/* From the early pass over the options (pstore_options): checks the zone
 * and starts it if it is usable; a problem is kept for pstore_report(). */
void pstore_setup(const struct boot_info *boot, const struct options *o,
		  const struct busy_range *busy, uint32_t busy_count);
/* The zone in use, for the allocator and the trampoline to avoid. */
bool pstore_zone(struct phys_range *out);
/* Once the command line is read: one line (and a @warn when the zone is
 * refused); nothing when pstore= was not given. */
void pstore_report(void);
/* Before @end: when this run printed more than the zone holds, what is
 * kept (its end) and what is lost (its start), and a @warn. */
void pstore_report_end(void);

#endif
