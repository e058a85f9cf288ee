/* SPDX-License-Identifier: MIT */
/* Two rows, white on blue:
 *   apstart 0.1  WBINVD=0 (patched)  park=linux  bring-up=serial
 *   QEMU TCG CPU version 2.5+  8 CPUs  10 cycles  BIOS via GRUB 2.06
 * Each row is cut at the screen's right edge; the first row puts the
 * variant first because a photo of a result must say it. */
#include "wings/screen/header.h"

#include "wings/screen/screen.h"
#include "kernel/cpu.h"
#include "lib/format.h"

static const struct run_facts *facts;

const struct run_facts *header_facts(void)
{
	return facts;
}

static const char *or_dash(const char *s)
{
	return s && s[0] ? s : "-";
}

/* The CPU: the brand string without its padding, or vendor, family and
 * model when the CPU has none. */
static void cpu_model_text(char out[49])
{
	char brand[49], vendor[13];
	cpu_brand(brand);
	const char *b = brand;
	while (*b == ' ')
		b++;
	if (*b) {
		fmt_snprintf(out, 49, "%s", b);
		return;
	}
	cpu_vendor(vendor);
	fmt_snprintf(out, 49, "%s family 0x%x model 0x%x", vendor, cpu_family(), cpu_model());
}

void header_draw(void)
{
	char row[160];
	uint32_t cols = screen_columns(), rows = screen_rows();

	if (!facts || cols < 20 || rows < HEADER_ROWS + 2)
		return;
	/* The GRUB menu's words for the two variants. */
	fmt_snprintf(row, sizeof row, " apstart %s  WBINVD=%d (%s%s)  park=%s  bring-up=%s",
		     or_dash(facts->version), facts->wbinvd,
		     facts->wbinvd ? "Linux before the patch" : "patched",
		     facts->slow_tramp_ns ? ", test-only slow spin" : "",
		     or_dash(facts->park), or_dash(facts->bringup));
	screen_blank(0, 0, 0, SCREEN_BAR);
	screen_text(0, 0, SCREEN_BAR, row);

	char cpus[24] = "CPUs: -", cycles[24] = "", model[49];
	if (facts->cpus)
		fmt_snprintf(cpus, sizeof cpus, "%u CPU%s", facts->cpus,
			     facts->cpus == 1 ? "" : "s");
	if (facts->cycles)
		fmt_snprintf(cycles, sizeof cycles, "  %u cycle%s", facts->cycles,
			     facts->cycles == 1 ? "" : "s");
	/* Least important last: a long brand string cuts off the loader. */
	cpu_model_text(model);
	fmt_snprintf(row, sizeof row, " %s  %s%s  %s via %s", or_dash(model), cpus,
		     cycles, or_dash(facts->firmware), or_dash(facts->loader));
	screen_blank(0, 1, 0, SCREEN_BAR);
	screen_text(0, 1, SCREEN_BAR, row);
}

void header_init(const struct run_facts *f)
{
	uint32_t rows = screen_rows();

	facts = f;
	if (rows < HEADER_ROWS + 4)
		return; /* too small to keep anything fixed */
	screen_clear_rows(0, rows);
	screen_set_scroll_rows(HEADER_ROWS, rows - 1);
	header_draw();
}
