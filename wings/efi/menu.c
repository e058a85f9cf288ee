/* SPDX-License-Identifier: MIT */
/* Boot menu on ConIn/ConOut. Under OVMF (and most firmware with a serial
 * console) ConOut and ConIn are the console splitter: the same text goes
 * to the screen and the serial port, keys come from either (serial
 * escape sequences arrive as scan codes). Nothing here positions the
 * cursor: a serial log stays readable. */
#include "wings/efi/menu.h"

#include <efilib.h>

#include "wings/efi/volume.h"

static const CHAR16 *variant_name(UINTN wbinvd)
{
	return wbinvd ? L"WBINVD=1 (Linux before the patch)" : L"WBINVD=0 (patched)";
}

static void add(struct menu *m, UINTN wbinvd, const CHAR8 *cmdline)
{
	struct boot_entry *e = &m->entry[m->count++];

	e->wbinvd = wbinvd;
	e->module = NULL;
	e->from_config = FALSE;
	UINTN i = 0;
	for (; cmdline[i] && i < CMDLINE_MAX; i++)
		e->cmdline[i] = cmdline[i];
	e->cmdline[i] = 0;
}

void menu_add_module(struct menu *m, const CHAR16 *module, const CHAR8 *cmdline)
{
	if (m->count == MENU_MAX_ENTRIES)
		return;
	add(m, 0, cmdline);
	m->entry[m->count - 1].module = module;
}

void menu_init(struct menu *m)
{
	m->session_line[0] = m->resume_line[0] = 0;
	m->count = 0;
	m->def = 0;
	m->timeout_s = 5;
	add(m, 0, (const CHAR8 *)"cycles=10");
	add(m, 1, (const CHAR8 *)"cycles=10");
	add(m, 0, (const CHAR8 *)"cycles=1");
	add(m, 1, (const CHAR8 *)"cycles=1");
}

static void show(const struct menu *m, UINTN sel)
{
	Print(L"\napstart.efi boot menu (kernels in %s)\n", APSTART_DIR);
	for (UINTN i = 0; i < m->count; i++) {
		const struct boot_entry *e = &m->entry[i];
		Print(L" %c %d) %s%s%s, %a%s%s\n", i == sel ? L'>' : L' ', i + 1,
		      variant_name(e->wbinvd), e->module ? L", Linux's trampoline " : L"",
		      e->module ? e->module : L"",
		      e->cmdline[0] ? e->cmdline : (CHAR8 *)"no options",
		      e->from_config ? L" (loader.cfg)" : L"",
		      i == m->def ? L" [default]" : L"");
	}
	if (m->session_line[0])
		Print(L" s) %s\n", m->session_line);
	if (m->resume_line[0])
		Print(L" r) %s\n", m->resume_line);
	Print(L" 1-%d: boot that entry   Up/Down + Enter: boot the marked one\n"
	      L" e: edit the marked entry's kernel command line   Esc: back to the firmware\n",
	      m->count);
}

static BOOLEAN read_key(EFI_INPUT_KEY *key)
{
	return !EFI_ERROR(uefi_call_wrapper(ST->ConIn->ReadKeyStroke, 2, ST->ConIn, key));
}

/* Waits for a key for at most the given seconds (0: forever), printing
 * the countdown with prompt; true if a key came. */
static BOOLEAN wait_key(UINTN seconds, const CHAR16 *prompt)
{
	EFI_EVENT timer, events[2];
	UINTN which;

	if (!seconds) {
		uefi_call_wrapper(BS->WaitForEvent, 3, 1, &ST->ConIn->WaitForKey, &which);
		return TRUE;
	}
	if (EFI_ERROR(uefi_call_wrapper(BS->CreateEvent, 5, EVT_TIMER, 0, NULL, NULL, &timer)))
		return FALSE;
	/* Periodic 1 s (units of 100 ns). */
	uefi_call_wrapper(BS->SetTimer, 3, timer, TimerPeriodic, 10000000);
	events[0] = ST->ConIn->WaitForKey;
	events[1] = timer;
	BOOLEAN got = FALSE;
	for (UINTN left = seconds; left > 0; left--) {
		if (prompt)
			Print(L"\r%s %d s ", prompt, left);
		if (EFI_ERROR(uefi_call_wrapper(BS->WaitForEvent, 3, 2, events, &which)))
			break;
		if (which == 0) {
			got = TRUE;
			break;
		}
	}
	uefi_call_wrapper(BS->CloseEvent, 1, timer);
	if (prompt)
		Print(L"\n");
	return got;
}

BOOLEAN menu_countdown(UINTN seconds, const CHAR16 *prompt)
{
	EFI_INPUT_KEY key;

	if (!seconds)
		return FALSE;
	BOOLEAN got = wait_key(seconds, prompt);
	if (got)
		read_key(&key);
	return got;
}

BOOLEAN menu_wait_key(UINTN seconds)
{
	return menu_countdown(seconds, L"press a key to go on, or wait");
}

void menu_wait_any_key(void)
{
	EFI_INPUT_KEY key;

	wait_key(0, NULL);
	read_key(&key);
}

/* Line editor for a command line: printable ASCII, Backspace, Enter
 * accepts, Esc cancels (the entry keeps its old line). */
static BOOLEAN edit(CHAR8 *line)
{
	CHAR8 buf[CMDLINE_MAX + 1];
	UINTN n = 0;
	EFI_INPUT_KEY key;

	while (line[n] && n < CMDLINE_MAX) {
		buf[n] = line[n];
		n++;
	}
	buf[n] = 0;
	Print(L"kernel command line (Enter: boot, Esc: cancel):\n%a", buf);
	for (;;) {
		UINTN which;
		uefi_call_wrapper(BS->WaitForEvent, 3, 1, &ST->ConIn->WaitForKey, &which);
		if (!read_key(&key))
			continue;
		if (key.ScanCode == SCAN_ESC) {
			Print(L"\n(cancelled)\n");
			return FALSE;
		}
		if (key.UnicodeChar == CHAR_CARRIAGE_RETURN || key.UnicodeChar == CHAR_LINEFEED) {
			Print(L"\n");
			for (UINTN i = 0; i <= n; i++)
				line[i] = buf[i];
			return TRUE;
		}
		if (key.UnicodeChar == CHAR_BACKSPACE || key.UnicodeChar == 0x7F) {
			if (n) {
				buf[--n] = 0;
				Print(L"\b \b");
			}
			continue;
		}
		if (key.UnicodeChar >= 0x20 && key.UnicodeChar < 0x7F && n < CMDLINE_MAX) {
			buf[n++] = (CHAR8)key.UnicodeChar;
			buf[n] = 0;
			Print(L"%c", key.UnicodeChar);
		}
	}
}

INTN menu_choose(struct menu *m)
{
	UINTN sel = m->def;
	EFI_INPUT_KEY key;

	show(m, sel);
	if (!m->timeout_s) {
		Print(L"booting entry %d (timeout 0)\n", m->def + 1);
		return (INTN)m->def;
	}
	if (m->timeout_s == MENU_WAIT_FOREVER)
		wait_key(0, NULL);
	else if (!wait_key(m->timeout_s, L"default entry in"))
		return (INTN)m->def;
	/* A key stopped the countdown: from here on, wait for a choice. */
	for (;;) {
		if (!read_key(&key)) {
			wait_key(0, NULL);
			continue;
		}
		if (key.ScanCode == SCAN_ESC)
			return MENU_FIRMWARE;
		if (key.ScanCode == SCAN_UP || key.ScanCode == SCAN_DOWN) {
			sel = (sel + (key.ScanCode == SCAN_UP ? m->count - 1 : 1)) % m->count;
			show(m, sel);
			continue;
		}
		CHAR16 c = key.UnicodeChar;
		if (c == CHAR_CARRIAGE_RETURN || c == CHAR_LINEFEED)
			return (INTN)sel;
		if (c >= L'1' && c < L'1' + m->count)
			return c - L'1';
		if ((c == L'e' || c == L'E') && edit(m->entry[sel].cmdline))
			return (INTN)sel;
		if ((c == L's' || c == L'S') && m->session_line[0])
			return MENU_SESSION;
		if ((c == L'r' || c == L'R') && m->resume_line[0])
			return MENU_RESUME;
		if (c)
			show(m, sel);
	}
}
