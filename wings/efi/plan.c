/* SPDX-License-Identifier: MIT */
/* plan.txt on the stick: its folder, creating it, adding a line, reading
 * it back (the text itself: wings/efi/plan_text.c); the firmware clock
 * for the lines' times. */
#include "wings/efi/plan.h"

#include <efilib.h>

#include "lib/format.h"

#define PLAN_FILE_MAX (256 * 1024) /* 200 runs write ~50 KB of lines */

void plan_dir(const struct plan *p, CHAR16 *buf, UINTN len)
{
	UnicodeSPrint(buf, len * sizeof(CHAR16), L"%s\\session-%04d", APSTART_RESULTS, p->number);
}

void plan_file(const struct plan *p, const CHAR16 *name, CHAR16 *buf, UINTN len)
{
	UnicodeSPrint(buf, len * sizeof(CHAR16), L"%s\\session-%04d\\%s", APSTART_RESULTS,
		      p->number, name);
}

void plan_run_name(const struct plan *p, UINTN run, CHAR16 *buf, UINTN len)
{
	UnicodeSPrint(buf, len * sizeof(CHAR16), L"run-%03d-%c-wbinvd%d", run,
		      (CHAR16)p->order[run - 1], (UINTN)plan_run_wbinvd(p, run));
}

/* Days since 1970-01-01 of a Gregorian date (Howard Hinnant's
 * days_from_civil). */
static INT64 days_from_civil(INT64 y, UINTN m, UINTN d)
{
	y -= m <= 2;
	INT64 era = (y >= 0 ? y : y - 399) / 400;
	UINT64 yoe = (UINT64)(y - era * 400);
	UINT64 doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	UINT64 doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + (INT64)doe - 719468;
}

UINT64 plan_now(void)
{
	EFI_TIME t;
	if (EFI_ERROR(uefi_call_wrapper(RT->GetTime, 2, &t, NULL)))
		return 0;
	INT64 days = days_from_civil(t.Year, t.Month, t.Day);
	return days < 0 ? 0 : (UINT64)days * 86400 + t.Hour * 3600u + t.Minute * 60u + t.Second;
}

void plan_time_text(CHAR8 *buf, UINTN len)
{
	EFI_TIME t;
	if (EFI_ERROR(uefi_call_wrapper(RT->GetTime, 2, &t, NULL))) {
		fmt_snprintf((char *)buf, len, "unknown");
		return;
	}
	fmt_snprintf((char *)buf, len, "%04u-%02u-%02uT%02u:%02u:%02u", t.Year, t.Month, t.Day,
		     t.Hour, t.Minute, t.Second);
}

EFI_STATUS plan_create(struct volume *v, struct plan *p)
{
	CHAR16 path[128];
	EFI_FILE_HANDLE dir;
	static char text[1024 + PLAN_RUNS_MAX + CMDLINE_MAX];
	CHAR8 when[32];

	plan_dir(p, path, 128);
	EFI_STATUS st = volume_open_dir(v, path, TRUE, &dir);
	if (EFI_ERROR(st))
		return st;
	uefi_call_wrapper(dir->Close, 1, dir);
	plan_time_text(when, sizeof when);
	int n = plan_format(p, (const char *)when, text, sizeof text);
	if (n < 0)
		return EFI_BUFFER_TOO_SMALL;
	plan_file(p, L"plan.txt", path, 128);
	p->state = PLAN_RUNNING;
	p->started = 0;
	p->first_start_s = p->last_start_s = 0;
	return volume_write_new_file(v, path, text, (UINTN)n);
}

void plan_note(struct volume *v, const struct plan *p, const CHAR8 *line)
{
	CHAR16 path[128];
	UINTN n = strlena((CHAR8 *)line);

	plan_file(p, L"plan.txt", path, 128);
	EFI_STATUS st = volume_append_file(v, path, line, n);
	if (!EFI_ERROR(st))
		st = volume_append_file(v, path, "\n", 1);
	if (EFI_ERROR(st))
		Print(L"session: cannot add to %s: %r\n", path, st);
}

BOOLEAN plan_load(struct volume *v, UINTN number, struct plan *p)
{
	CHAR16 path[128];
	UINT8 *text;
	UINTN size;
	char why[PLAN_WHY_MAX];

	SetMem(p, sizeof *p, 0);
	p->number = number;
	plan_file(p, L"plan.txt", path, 128);
	EFI_STATUS st = volume_read_file(v, path, PLAN_FILE_MAX, &text, &size);
	if (EFI_ERROR(st)) {
		Print(L"session: cannot read %s: %r\n", path, st);
		return FALSE;
	}
	BOOLEAN ok = plan_parse(text, size, p, why, sizeof why);
	FreePool(text);
	if (!ok)
		Print(L"session: %s is %a (left alone)\n", path, why);
	return ok;
}
