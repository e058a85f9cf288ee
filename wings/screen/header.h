/* SPDX-License-Identifier: MIT */
/* The screen's header: what is being measured, on the top rows from boot
 * to the result page, so that a photo of the screen says what ran. The
 * rows below it scroll (printed text) down to the status line at the
 * bottom (wings/screen/progress.h). */
#ifndef APSTART_HEADER_H
#define APSTART_HEADER_H

#include <stdint.h>

#include "app/wing.h"

#define HEADER_ROWS 2

/* Filled by main as it learns them; empty strings and zeros are shown
 * as not yet known. */

/* Takes the facts (kept by pointer: main updates them and calls
 * header_draw), reserves the top rows and the status row, and draws. */
void header_init(const struct run_facts *facts);
void header_draw(void);
const struct run_facts *header_facts(void);

#endif
