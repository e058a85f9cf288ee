/* SPDX-License-Identifier: MIT */
/* plan.txt: key=value lines, '#' comments. Written at the start:
 *
 *   session=0001
 *   runs_per_variant=10
 *   order=ABBABAAB...          one letter per run
 *   seed=0x...                 of the order (randomised pairs)
 *   cmdline=cycles=1           every run's kernel options
 *   state=running
 *
 * then one line per step, e.g.
 *
 *   run=003 variant=B wbinvd=0 started clock=1796123456 at=2026-12-01T09:40:05
 *   run=003 variant=B filed run-003-B-wbinvd0.log bytes=4060 status=pass
 *   run=004 variant=A interrupted: no results came back (power cut, hang or reset)
 *   state=stopped next=005 (a key during the countdown)
 *   state=running (resumed)
 *   state=done
 */
#include "wings/efi/plan.h"

#include <efilib.h>

#include "lib/format.h"

#define PLAN_FILE_MAX (256 * 1024) /* 200 runs write ~50 KB of lines */

static UINT64 next_random(UINT64 *s)
{
	/* xorshift64* (Vigna 2016): plenty for a coin per pair. */
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545F4914F6CDD1Dull;
}

/* splitmix64's finaliser (Steele, Lea, Flood 2014): every seed, even 1,
 * gives a well-mixed state. */
static UINT64 mix(UINT64 z)
{
	z += 0x9E3779B97F4A7C15ull;
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	z ^= z >> 31;
	return z ? z : 1;
}

void plan_make_order(struct plan *p)
{
	UINT64 s = mix(p->seed);
	p->runs = 2 * p->k;
	for (UINTN i = 0; i < p->k; i++) {
		BOOLEAN a_first = (next_random(&s) >> 63) != 0;
		p->order[2 * i] = a_first ? 'A' : 'B';
		p->order[2 * i + 1] = a_first ? 'B' : 'A';
	}
	p->order[p->runs] = 0;
}

void plan_dir(const struct plan *p, CHAR16 *buf, UINTN len)
{
	UnicodeSPrint(buf, len * sizeof(CHAR16), L"%s\\session-%04d", APSTART_RESULTS, p->number);
}

void plan_file(const struct plan *p, const CHAR16 *name, CHAR16 *buf, UINTN len)
{
	UnicodeSPrint(buf, len * sizeof(CHAR16), L"%s\\session-%04d\\%s", APSTART_RESULTS,
		      p->number, name);
}

UINTN plan_run_wbinvd(const struct plan *p, UINTN run)
{
	return p->order[run - 1] == 'A' ? PLAN_WBINVD_A : PLAN_WBINVD_B;
}

void plan_run_name(const struct plan *p, UINTN run, CHAR16 *buf, UINTN len)
{
	UnicodeSPrint(buf, len * sizeof(CHAR16), L"run-%03d-%c-wbinvd%d", run,
		      (CHAR16)p->order[run - 1], plan_run_wbinvd(p, run));
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
	char test_line[32] = "";
	if (p->test_fail_run) /* tests only: this run gets selftest=ap-hang */
		fmt_snprintf(test_line, sizeof test_line, "test_fail_run=%03u\n",
			     (unsigned)p->test_fail_run);
	int n = fmt_snprintf(text, sizeof text,
			     "# apstart A/B session, written by apstart.efi: the plan, then a line\n"
			     "# per step. A = WBINVD=1 (Linux before the patch), B = WBINVD=0\n"
			     "# (patched). Order: randomised pairs (each pair AB or BA by a coin\n"
			     "# from seed), so neither variant always runs first. The last state=\n"
			     "# line is where the session stands.\n"
			     "session=%04u\nruns_per_variant=%u\norder=%s\nseed=0x%llx\n"
			     "cmdline=%s\ncreated=%s\n%sstate=running\n",
			     (unsigned)p->number, (unsigned)p->k, (const char *)p->order,
			     (unsigned long long)p->seed, (const char *)p->cmdline, (const char *)when,
			     test_line);
	if (n < 0 || (UINTN)n >= sizeof text)
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

static BOOLEAN starts_with(const CHAR8 *s, UINTN len, const char *prefix)
{
	UINTN i = 0;
	for (; prefix[i]; i++)
		if (i >= len || s[i] != (CHAR8)prefix[i])
			return FALSE;
	return TRUE;
}

/* Decimal or 0x hex at s (len bytes); stops at the first other byte. */
static UINT64 number_at(const CHAR8 *s, UINTN len)
{
	UINT64 v = 0;
	UINTN i = 0;
	if (len > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		for (i = 2; i < len; i++) {
			CHAR8 c = s[i];
			UINTN d = c >= '0' && c <= '9' ? (UINTN)(c - '0') :
				  c >= 'a' && c <= 'f' ? (UINTN)(c - 'a' + 10) :
				  c >= 'A' && c <= 'F' ? (UINTN)(c - 'A' + 10) : 16;
			if (d == 16)
				break;
			v = v * 16 + d;
		}
		return v;
	}
	for (; i < len && s[i] >= '0' && s[i] <= '9'; i++)
		v = v * 10 + (s[i] - '0');
	return v;
}

/* The value of key=VALUE within a line ("clock=" inside a run line). */
static BOOLEAN field(const CHAR8 *s, UINTN len, const char *key, UINT64 *out)
{
	UINTN kl = strlena((CHAR8 *)key);
	for (UINTN i = 0; i + kl <= len; i++) {
		if ((i == 0 || s[i - 1] == ' ') && starts_with(s + i, len - i, key)) {
			*out = number_at(s + i + kl, len - i - kl);
			return TRUE;
		}
	}
	return FALSE;
}

BOOLEAN plan_load(struct volume *v, UINTN number, struct plan *p)
{
	CHAR16 path[128];
	UINT8 *text;
	UINTN size;

	SetMem(p, sizeof *p, 0);
	p->number = number;
	plan_file(p, L"plan.txt", path, 128);
	EFI_STATUS st = volume_read_file(v, path, PLAN_FILE_MAX, &text, &size);
	if (EFI_ERROR(st)) {
		Print(L"session: cannot read %s: %r\n", path, st);
		return FALSE;
	}
	BOOLEAN have_state = FALSE;
	for (UINTN pos = 0; pos < size;) {
		const CHAR8 *l = text + pos;
		UINTN len = 0;
		while (pos + len < size && l[len] != '\n')
			len++;
		pos += len + 1;
		while (len && (l[len - 1] == '\r' || l[len - 1] == ' '))
			len--;
		UINT64 clock;
		if (starts_with(l, len, "runs_per_variant=")) {
			p->k = number_at(l + 17, len - 17);
		} else if (starts_with(l, len, "order=")) {
			UINTN n = len - 6 < PLAN_RUNS_MAX ? len - 6 : PLAN_RUNS_MAX;
			CopyMem(p->order, l + 6, n);
			p->order[n] = 0;
		} else if (starts_with(l, len, "seed=")) {
			p->seed = number_at(l + 5, len - 5);
		} else if (starts_with(l, len, "cmdline=")) {
			/* The stick is anyone's to edit: a control byte becomes a
			 * blank, as in loader.cfg (config.c). */
			UINTN n = len - 8 < CMDLINE_MAX ? len - 8 : CMDLINE_MAX;
			for (UINTN i = 0; i < n; i++)
				p->cmdline[i] = l[8 + i] >= 0x20 && l[8 + i] < 0x7F ? l[8 + i] : ' ';
			p->cmdline[n] = 0;
		} else if (starts_with(l, len, "test_fail_run=")) {
			p->test_fail_run = number_at(l + 14, len - 14);
		} else if (starts_with(l, len, "state=")) {
			have_state = TRUE;
			p->state = starts_with(l, len, "state=running") ? PLAN_RUNNING :
				   starts_with(l, len, "state=stopped") ? PLAN_STOPPED : PLAN_DONE;
		} else if (starts_with(l, len, "run=") && field(l, len, "clock=", &clock)) {
			if (!p->started++)
				p->first_start_s = clock;
			p->last_start_s = clock;
		}
	}
	FreePool(text);
	p->runs = 2 * p->k;
	BOOLEAN ok = have_state && p->k >= 1 && p->k <= PLAN_K_MAX &&
		     strlena(p->order) == p->runs;
	for (UINTN i = 0; ok && i < p->runs; i++)
		ok = p->order[i] == 'A' || p->order[i] == 'B';
	if (!ok)
		Print(L"session: %s is not a plan apstart.efi wrote (left alone)\n", path);
	return ok;
}
