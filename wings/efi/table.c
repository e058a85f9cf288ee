/* SPDX-License-Identifier: MIT */
/* A run is in the figures when its summary ends in @end status=pass and
 * has both @summary records, as aplog counts a complete run: Offline is
 * its settled_total_ns where the run has it (else total_ns), Online its
 * online total_ns, Total their sum (aplog's run_totals()). Failed and
 * interrupted runs are listed and counted, never averaged in. The
 * variants differ in WBINVD only, so under an emulator (QEMU TCG, a
 * hypervisor, QEMU's or Bochs' ACPI tables: aplog's test) the rows carry
 * "not measurable". */
#include "wings/efi/table.h"

#include <efilib.h>

#include "wings/efi/menu.h"
#include "wings/efi/page.h"
#include "wings/efi/records.h"
#include "wings/efi/efi_vendor.h"
#include "lib/format.h"
#include "tools/aplog/stats/verdict.h"

#define RUN_FILE_MAX (APSTART_RESULTS_PARTS * APSTART_RESULTS_MAX * 4)
#define TEXT_MAX (16 * 1024 + PLAN_RUNS_MAX * 160)
#define LINES_MAX 24           /* on the screen, above the QR code */

enum row { ROW_OFFLINE, ROW_ONLINE, ROW_TOTAL, ROWS };
static const char *const row_name[ROWS] = { "Offline", "Online", "Total" };

enum outcome { RUN_PASS, RUN_FAIL, RUN_INTERRUPTED, RUN_MISSING };

struct side {
	uint64_t v[ROWS][PLAN_K_MAX];
	size_t n;
	UINTN failed, interrupted, missing;
};

static char text[TEXT_MAX];
static UINTN text_len;

static void put(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void put(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = fmt_vsnprintf(text + text_len, TEXT_MAX - text_len, fmt, ap);
	va_end(ap);
	if (n > 0)
		text_len += (UINTN)n < TEXT_MAX - text_len ? (UINTN)n : TEXT_MAX - 1 - text_len;
}

static const char *emulator(const UINT8 *d, UINTN size)
{
	char v[64];
	if (rec_text(d, size, "@env ", "brand=", v, sizeof v) && CompareMem(v, "QEMU_TCG", 8) == 0)
		return "QEMU TCG";
	if (rec_text(d, size, "@env ", "hypervisor=", v, sizeof v) && v[0] == '1' && !v[1])
		return "a hypervisor";
	if (rec_text(d, size, "@env ", "acpi_oem=", v, sizeof v) &&
	    strcmpa((CHAR8 *)v, (CHAR8 *)"BOCHS") == 0)
		return "QEMU or Bochs";
	return NULL;
}

/* One run: its outcome and, when it passed, its row values; its line of
 * the table into line. */
static enum outcome read_run(struct volume *v, const struct plan *p, UINTN run, uint64_t val[ROWS],
			     char *line, UINTN line_len, char *machine, UINTN machine_len,
			     const char **emu)
{
	CHAR16 name[64], path[160];
	UINT8 *d;
	UINTN size;
	char wb = (char)('0' + plan_run_wbinvd(p, run));

	plan_run_name(p, run, name, 64);
	UnicodeSPrint(path, sizeof path, L"%s\\session-%04d\\%s.log", APSTART_RESULTS, p->number,
		      name);
	if (EFI_ERROR(volume_read_file(v, path, RUN_FILE_MAX, &d, &size))) {
		UnicodeSPrint(path, sizeof path, L"%s\\session-%04d\\%s.interrupted",
			      APSTART_RESULTS, p->number, name);
		BOOLEAN cut = volume_exists(v, path);
		fmt_snprintf(line, line_len, "run %03u %c WBINVD=%c %s", (unsigned)run,
			     p->order[run - 1], wb,
			     cut ? "INTERRUPTED: no results came back (power cut, hang or reset)"
				 : "MISSING: no run file");
		return cut ? RUN_INTERRUPTED : RUN_MISSING;
	}
	char status[16] = "none", online[16] = "?", failed[16] = "?";
	rec_text(d, size, "@end ", "status=", status, sizeof status);
	rec_text(d, size, "@end ", "online=", online, sizeof online);
	rec_text(d, size, "@end ", "failed=", failed, sizeof failed);
	uint64_t off = 0, off_settled = 0, on = 0;
	BOOLEAN have_off = rec_u64(d, size, "@summary op=offline ", "total_ns=", &off);
	BOOLEAN settled = rec_u64(d, size, "@summary op=offline ", "settled_total_ns=", &off_settled);
	BOOLEAN have_on = rec_u64(d, size, "@summary op=online ", "total_ns=", &on);
	if (!machine[0]) {
		char brand[64] = "unknown", cpus[16] = "?", fw[16] = "?";
		rec_text(d, size, "@env ", "brand=", brand, sizeof brand);
		rec_text(d, size, "@boot ", "cpus=", cpus, sizeof cpus);
		rec_text(d, size, "@boot ", "firmware=", fw, sizeof fw);
		fmt_snprintf(machine, machine_len, "%s, cpus=%s, firmware=%s", brand, cpus, fw);
	}
	if (!*emu)
		*emu = emulator(d, size);
	FreePool(d);
	if (strcmpa((CHAR8 *)status, (CHAR8 *)"pass") || !have_off || !have_on) {
		fmt_snprintf(line, line_len, "run %03u %c WBINVD=%c FAILED: @end status=%s online=%s "
			     "failed=%s%s", (unsigned)run, p->order[run - 1], wb, status, online,
			     failed, have_off && have_on ? "" : ", no @summary totals");
		return RUN_FAIL;
	}
	val[ROW_OFFLINE] = settled ? off_settled : off;
	val[ROW_ONLINE] = on;
	val[ROW_TOTAL] = val[ROW_OFFLINE] + on;
	char a[24], b[24], c[24];
	fmt_duration(a, sizeof a, val[ROW_OFFLINE]);
	fmt_duration(b, sizeof b, on);
	fmt_duration(c, sizeof c, val[ROW_TOTAL]);
	fmt_snprintf(line, line_len, "run %03u %c WBINVD=%c pass  offline %s%s  online %s  total %s",
		     (unsigned)run, p->order[run - 1], wb, a, settled ? " (settled)" : "", b, c);
	return RUN_PASS;
}

static void side_counts(const char *name, const struct side *s, UINTN k)
{
	put("%s: %u of %u runs in the figures", name, (unsigned)s->n, (unsigned)k);
	if (s->failed || s->interrupted || s->missing) {
		put(" (");
		const char *sep = "";
		if (s->failed) {
			put("%u failed", (unsigned)s->failed);
			sep = ", ";
		}
		if (s->interrupted) {
			put("%s%u interrupted", sep, (unsigned)s->interrupted);
			sep = ", ";
		}
		if (s->missing)
			put("%s%u missing", sep, (unsigned)s->missing);
		put(")");
	}
}

/* Screen lines: pointers into text, each line cut at its newline. */
static UINTN split_lines(char *t, UINTN len, const char **lines, UINTN max)
{
	UINTN n = 0;
	for (UINTN at = 0; at < len && n < max;) {
		lines[n++] = t + at;
		while (at < len && t[at] != '\n')
			at++;
		if (at < len)
			t[at++] = 0;
	}
	return n;
}

void table_make(struct volume *v, const struct plan *p)
{
	static struct side side[2];
	static char run_lines[PLAN_RUNS_MAX][160];
	char machine[160] = "";
	const char *emu = NULL;

	SetMem(side, sizeof side, 0);
	for (UINTN r = 1; r <= p->runs; r++) {
		struct side *s = &side[p->order[r - 1] == 'A' ? 0 : 1];
		uint64_t val[ROWS];
		switch (read_run(v, p, r, val, run_lines[r - 1], sizeof run_lines[0], machine,
				 sizeof machine, &emu)) {
		case RUN_PASS:
			for (int k = 0; k < ROWS; k++)
				s->v[k][s->n] = val[k];
			s->n++;
			break;
		case RUN_FAIL:
			s->failed++;
			break;
		case RUN_INTERRUPTED:
			s->interrupted++;
			break;
		case RUN_MISSING:
			s->missing++;
			break;
		}
	}
	struct verdict_row rows[ROWS];
	char row_text[ROWS][256];
	for (int k = 0; k < ROWS; k++) {
		verdict_compute(side[0].v[k], side[0].n, side[1].v[k], side[1].n, VERDICT_MIN_RUNS,
				emu == NULL, &rows[k]);
		verdict_format_row(row_text[k], sizeof row_text[k], row_name[k], &rows[k]);
	}

	text_len = 0;
	put("apstart A/B session-%04u: A = WBINVD=1 (Linux before the patch), B = WBINVD=0 "
	    "(patched)\n", (unsigned)p->number);
	put("machine: %s; every run \"%s\"\n", machine[0] ? machine : "no run came back",
	    (const char *)p->cmdline);
	side_counts("A", &side[0], p->k);
	put("; ");
	side_counts("B", &side[1], p->k);
	put("\n");
	UINTN short_start = text_len;
	for (int k = 0; k < ROWS; k++)
		put("%s\n", row_text[k]);
	if (emu)
		put("EMULATED: WBINVD costs nothing under %s; a difference between the variants "
		    "is the host's\n", emu);
	UINTN rows_end = text_len;
	put("order %s (randomised pairs); one observation per run; failed and interrupted "
	    "runs are not in the figures\n", (const char *)p->order);
	for (UINTN r = 0; r < p->runs; r++)
		put("%s\n", run_lines[r]);

	CHAR16 path[160];
	UnicodeSPrint(path, sizeof path, L"%s\\session-%04d\\table.txt", APSTART_RESULTS,
		      p->number);
	volume_delete_file(v, path); /* a table made before a power cut */
	EFI_STATUS st = volume_write_new_file(v, path, text, text_len);
	Print(L"---- session-%04d: the table ----\n", p->number);
	for (UINTN at = 0; at < text_len; at++)
		Print(L"%c", (CHAR16)(unsigned char)text[at]);
	Print(L"---- end of the table ----\n");
	if (EFI_ERROR(st))
		Print(L"table: cannot write %s: %r\n", path, st);
	else
		Print(L"table: written to %s\n", path);

	/* The QR code: the whole table, or its head and rows. */
	static char payload[TEXT_MAX], short_payload[2048];
	CopyMem(payload, text, text_len);
	UINTN head = short_start, rows_len = rows_end - short_start;
	if (head + rows_len > sizeof short_payload)
		rows_len = sizeof short_payload - head;
	CopyMem(short_payload, text, head);
	CopyMem(short_payload + head, text + short_start, rows_len);
	const char *lines[LINES_MAX + 1];
	UINTN shown = split_lines(text, rows_end, lines, LINES_MAX);
	lines[shown++] = "any key: back to apstart.efi's menu";
	const char *qr_text;
	BOOLEAN drawn = page_show(lines, shown, payload, text_len, short_payload,
				  head + rows_len, &qr_text);
	if (drawn) {
		/* Serial only: the page stays as drawn until a key. */
		char msg[160];
		fmt_snprintf(msg, sizeof msg, "table: on the screen, QR code of %s; any key goes "
			     "back to the menu", qr_text);
		page_serial_line(msg);
		menu_wait_any_key();
		uefi_call_wrapper(ST->ConOut->ClearScreen, 1, ST->ConOut);
	} else {
		Print(L"table: %a\n", qr_text);
	}
}
