/* SPDX-License-Identifier: MIT */
/* pstore=ADDR,SIZE, the pstore wing's one option: the ramoops console
 * zone Linux reads back (docs/from-linux.md), read in the early pass over
 * the command line so that the zone is claimed before anything is
 * placed in memory (wings/pstore/pstore_setup.h). */
#ifndef APSTART_PSTORE_OPTION_H
#define APSTART_PSTORE_OPTION_H

#include <stdint.h>

#include "app/options.h"

/* SIZE a power of two in this range (ramoops rounds its console_size
 * down to one), ADDR a multiple of 4 (the header's 32-bit words). */
#define PSTORE_SIZE_MIN (4ull << 10)
#define PSTORE_SIZE_MAX (1ull << 30)

struct pstore_options {
	struct pstore_zone_option {
		uint64_t addr;
		uint64_t size; /* 0: none (the default) */
	} pstore;
};
extern struct pstore_options pstore_options;
extern const struct option_row pstore_option_rows[1];

#endif
