/* SPDX-License-Identifier: MIT */
/* The screen's header: what is being measured, on the top rows from boot
 * to the result page, so that a photo of the screen says what ran. The
 * rows below it scroll (printed text) down to the status line at the
 * bottom (wings/screen/progress.h). */
#ifndef APSTART_HEADER_H
#define APSTART_HEADER_H

#include <stdint.h>

#define HEADER_ROWS 2

/* Filled by main as it learns them; empty strings and zeros are shown
 * as not yet known. */
struct run_facts {
	int wbinvd;              /* the trampoline variant */
	uint32_t slow_tramp_ns;  /* test-only spin, 0 normally */
	const char *version;
	const char *park;        /* how an offline AP parks, e.g. "hlt" */
	const char *bringup;     /* the bring-up's mode as used: a refused
				  * broadcast shows its fallback, parallel */
	const char *firmware;    /* "BIOS", "UEFI" */
	const char *loader;      /* as the loader names itself */
	char cpu_model[49];      /* brand string, or vendor family model */
	uint32_t cpus;           /* taking part, BSP included; 0: not known */
	uint32_t cycles;
};

/* Takes the facts (kept by pointer: main updates them and calls
 * header_draw), reserves the top rows and the status row, and draws. */
void header_init(const struct run_facts *facts);
void header_draw(void);
const struct run_facts *header_facts(void);

#endif
