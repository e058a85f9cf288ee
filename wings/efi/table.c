/* SPDX-License-Identifier: MIT */
/* The files of each run, read into the table (wings/efi/table_text.c),
 * which is then kept, printed and drawn. */
#include "wings/efi/table.h"

#include <efilib.h>

#include "wings/efi/menu.h"
#include "wings/efi/page.h"
#include "wings/efi/table_text.h"
#include "wings/efi/efi_vendor.h"
#include "lib/format.h"

#define RUN_FILE_MAX (APSTART_RESULTS_PARTS * APSTART_RESULTS_MAX * 4)
#define LINES_MAX 24           /* on the screen, above the QR code */

static struct table table;

/* Run run's file, or its absence, into the table. */
static void read_run(struct volume *v, const struct plan *p, UINTN run)
{
	CHAR16 name[64], path[160];
	UINT8 *d;
	UINTN size;

	plan_run_name(p, run, name, 64);
	UnicodeSPrint(path, sizeof path, L"%s\\session-%04d\\%s.log", APSTART_RESULTS, p->number,
		      name);
	if (EFI_ERROR(volume_read_file(v, path, RUN_FILE_MAX, &d, &size))) {
		UnicodeSPrint(path, sizeof path, L"%s\\session-%04d\\%s.interrupted",
			      APSTART_RESULTS, p->number, name);
		table_add_run(&table, run, NULL, 0, volume_exists(v, path));
		return;
	}
	table_add_run(&table, run, d, size, FALSE);
	FreePool(d);
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
	table_start(&table, p);
	for (UINTN r = 1; r <= p->runs && r <= PLAN_RUNS_MAX; r++)
		read_run(v, p, r);
	table_finish(&table);
	char *text = table.text;
	UINTN text_len = table.text_len, short_start = table.rows_start, rows_end = table.rows_end;

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
	static char payload[TABLE_TEXT_MAX], short_payload[2048];
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
