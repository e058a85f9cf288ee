/* SPDX-License-Identifier: MIT */
/* The pstore wing: the run's serial output, byte for byte, kept in a RAM
 * zone (pstore=ADDR,SIZE) in the format Linux's ramoops reads back as the
 * previous boot's console after a warm reset (exit=reboot): the way back
 * to a running Linux (docs/from-linux.md). */
#include "app/wing.h"
#include "wings/pstore/pstore.h"
#include "wings/pstore/pstore_option.h"
#include "wings/pstore/pstore_setup.h"

static void say_zone(const struct options *o, const struct boot_info *bi)
{
	(void)o;
	(void)bi;
	pstore_report();
}

static void keep_all(bool pass)
{
	(void)pass;
	pstore_flush();
}

WING(pstore) = {
	.name = "pstore",
	.options = WING_OPTIONS(pstore_option_rows, &pstore_options),
	.claim_memory = pstore_setup,
	.reserved = pstore_zone,
	.options_parsed = say_zone,
	.before_end = pstore_report_end,
	.run_ends = keep_all,
	.console_text = pstore_console_text,
};
