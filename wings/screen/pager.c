/* SPDX-License-Identifier: MIT */
#include "wings/screen/pager.h"

#include <stdint.h>

#include "wings/screen/qr_page.h"
#include "wings/screen/result_page.h"
#include "kernel/abort.h"
#include "kernel/console.h"
#include "wings/screen/kbd.h"
#include "wings/screen/screen.h"
#include "kernel/tsc.h"
#include "kernel/x86.h"
#include "lib/format.h"
#include "smp/lapic.h"

/* True when a key was pressed before the page's time was up. Halted
 * between looks at the keyboard, woken by a 10 ms LAPIC timer: a machine
 * that shows its results for hours should not spin (under emulation a
 * spinning CPU takes a host core). Spins only where the run ended before
 * the timer was calibrated. */
static bool wait_page(void)
{
	uint64_t deadline = tsc_deadline_us((uint64_t)PAGER_SECONDS * 1000000u);
	bool halt = lapic_timer_khz() != 0, pressed = false;
	bool irq = (read_rflags() & 0x200) != 0;
	if (halt)
		lapic_timer_periodic_us(10000);
	while (!tsc_passed(deadline)) {
		if (kbd_key_pressed()) {
			pressed = true;
			break;
		}
		if (halt) {
			sti_hlt();
			cli();
		} else {
			for (int i = 0; i < 1000; i++)
				cpu_relax();
		}
	}
	if (halt)
		lapic_timer_stop();
	if (irq)
		sti();
	return pressed;
}

void pager_run(bool pass)
{
	static const char *const qr_footer[] = {
		"Results page:",
		"in 20 s or on any key",
	};
	char results_footer[96];
	bool said_results = false, said_qr = false, have_qr = true;

	if (!screen_rows())
		halt_forever();
	fmt_snprintf(results_footer, sizeof results_footer,
		     " Next page: these results as a QR code, in %u s or on any key",
		     PAGER_SECONDS);
	kbd_key_pressed(); /* whatever was typed during the run */
	for (;;) {
		result_page_draw(pass, results_footer);
		if (!said_results) {
			cprintf(CON_SERIAL, "screen: result page\n");
			said_results = true;
		}
		if (!have_qr)
			halt_forever();
		wait_page();
		have_qr = qr_page_draw(pass, qr_footer, 2);
		if (!have_qr) {
			screen_picture_end();
			cprintf(CON_SERIAL, "screen: no QR code page: this screen cannot show pixels, or the "
				"records do not fit\n");
			fmt_snprintf(results_footer, sizeof results_footer,
				     " Serial has every record.");
			continue;
		}
		if (!said_qr) {
			cprintf(CON_SERIAL, "screen: QR code page: %s\n", qr_page_summary());
			said_qr = true;
		}
		wait_page();
		screen_picture_end();
	}
}
