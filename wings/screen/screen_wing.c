/* SPDX-License-Identifier: MIT */
/* The screen wing: for machines read without a serial line. The console
 * text on the monitor (VGA text or the loader's framebuffer), a header
 * that says what runs, a status line while it runs, then a result page
 * and a QR code of the records, in turn, until power-off. */
#include "app/wing.h"
#include "wings/screen/header.h"
#include "wings/screen/pager.h"
#include "wings/screen/progress.h"
#include "wings/screen/screen.h"

/* The wing's one option: the status line's refresh. */
static struct screen_options {
	uint32_t progress_ms; /* default 250; 0: after every timed window
			       * (progress.c) */
} opt;

static const struct option_row option_rows[] = {
	OPTION_ROW(struct screen_options, progress_ms, 250, .min = 0, .max = 60000),
};

static void start_screen(const struct boot_info *bi, const struct run_facts *facts)
{
	screen_init(bi);
	header_init(facts);
}

static void show_run(const struct options *o, const struct run_facts *facts)
{
	(void)o;
	header_draw();
	progress_init(opt.progress_ms, facts->cycles);
}

static void show_results(bool pass)
{
	pager_run(pass);
}

static const struct wing_screen console_screen = {
	.kind = screen_kind,
	.write = screen_stream_locked,
};

WING(screen) = {
	.name = "screen",
	.options = WING_OPTIONS(option_rows, &opt),
	.boot_info = start_screen,
	.run_starts = show_run,
	.halted = show_results,
	.screen = &console_screen,
	.progress = progress_show,
};
