/* SPDX-License-Identifier: MIT */
/* The run's console kept in RAM for the next boot (pstore=): every byte
 * sent to the serial port also goes into Linux's ramoops console zone
 * (wings/pstore/persistent_ram.h), which Linux reads after a warm reset as
 * /sys/fs/pstore/console-ramoops-0. Each store is pushed out of the cache
 * at once (CLFLUSH, SDM Vol. 2A: written back from every cache of the
 * coherence domain), so that a reset at any point, or a crash followed by
 * a BMC's reset, finds in RAM what the serial port had printed. */
#ifndef APSTART_PSTORE_H
#define APSTART_PSTORE_H

#include <stdbool.h>
#include <stdint.h>

#include "wings/pstore/persistent_ram.h"

struct pstore_status {
	bool on;
	uint64_t addr, size;   /* the zone, header included */
	enum pram_found found; /* what it held when opened */
	uint32_t held;         /* bytes held from before (appended to) */
	bool clflush;          /* stores pushed out line by line; else one
				  WBINVD in pstore_flush() */
};

/* Opens the zone (checked by the caller: RAM, mapped write-back, clear of
 * the kernel); the bytes sent to serial so far go first. */
void pstore_start(uint64_t addr, uint64_t size);
/* No zone will be opened: what was kept for it is let go. */
void pstore_early_end(void);
/* The wing's console hook point (app/wing.h): every printed piece; what
 * went to serial goes into the zone, byte for byte as sent. */
void pstore_console_text(unsigned targets, const char *text);
const struct pstore_status *pstore_status(void);
/* Bytes this run sent into the zone. */
uint64_t pstore_written(void);
/* Before a reset: every store is in RAM (a fence, or WBINVD where the
 * CPU has no CLFLUSH). */
void pstore_flush(void);

#endif
