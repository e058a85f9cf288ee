/* SPDX-License-Identifier: MIT */
/* The kept wing: the run's records kept in memory as they are printed
 * (kept_lines.c), for the wings that show or keep them after the run:
 * the screen's result page and QR code, the nvram wing's summary. It
 * comes first in link order (wings/wings.list): it stops keeping before
 * the others keep what it kept. */
#include "app/wing.h"
#include "wings/kept/kept_lines.h"

static void begin(const struct boot_info *bi, const struct run_facts *facts)
{
	(void)bi;
	(void)facts;
	kept_lines_begin();
}

static void end(bool pass)
{
	(void)pass;
	kept_lines_end();
}

WING(kept) = {
	.name = "kept",
	.boot_info = begin,
	.results = kept_lines_report,
	.run_ends = end,
	.console_text = kept_lines_tap,
};
