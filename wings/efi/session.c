/* SPDX-License-Identifier: MIT */
/* The A/B session's steps on each boot (session.h). The session's state
 * lives on the stick, never in memory across boots: plan.txt (the plan
 * and its last state= line) and the run files beside it:
 *
 *   run-NNN-X-wbinvdW.started      written just before run NNN is booted
 *   run-NNN-X-wbinvdW.log          its kept summary, byte for byte
 *   run-NNN-X-wbinvdW.interrupted  it was started and nothing came back
 *
 * so a boot after a power cut or a hang finds a .started file and no
 * summary in NVRAM: that run is recorded as interrupted and the session
 * goes on with the next. The next run is the first without .log or
 * .interrupted. */
#include "wings/efi/session.h"

#include <efilib.h>

#include "wings/efi/plan.h"
#include "wings/efi/records.h"
#include "wings/efi/saved.h"
#include "wings/efi/table.h"
#include "wings/efi/efi_vendor.h"
#include "lib/format.h"

/* What one run keeps, to check NVRAM and the stick before a session
 * starts (measured: docs/session.md "Bytes kept per run"). */
#define RUN_BYTES_BASE 3300u
#define RUN_BYTES_PER_CPU 210u
#define STICK_RESERVE (64u * 1024)
/* A guess for the menu until runs are timed: firmware start-up plus a
 * WBINVD=1 online and offline of every CPU on a big-cache server
 * (the reference: 137 + 84 ms per CPU). */
#define GUESS_FIRMWARE_S 60u
#define GUESS_MS_PER_CPU_CYCLE 250u
#define RUN_FILE_MAX (APSTART_RESULTS_PARTS * APSTART_RESULTS_MAX * 4)

/* EFI_MP_SERVICES_PROTOCOL (PI 1.7 Vol. 2 §13.4): only its first
 * function, to count the CPUs for the estimates. */
#define MP_SERVICES_GUID \
	{ 0x3fdda605, 0xa76e, 0x4f46, { 0xad, 0x29, 0x12, 0xf4, 0x53, 0x1b, 0x3d, 0x08 } }
struct mp_services {
	EFI_STATUS (EFIAPI *GetNumberOfProcessors)(struct mp_services *self, UINTN *all,
						   UINTN *enabled);
};

static struct plan cur;          /* the session on the stick, if loaded */
static BOOLEAN have_cur;

/* The mark GRUB looks for (volume.h): set while the session runs. */
static void mark(struct volume *v, BOOLEAN running)
{
	if (!running) {
		volume_delete_file(v, APSTART_SESSION_MARK);
		return;
	}
	char text[32];
	int n = fmt_snprintf(text, sizeof text, "session-%04u\n", (unsigned)cur.number);
	if (!volume_exists(v, APSTART_SESSION_MARK) &&
	    EFI_ERROR(volume_write_new_file(v, APSTART_SESSION_MARK, text, (UINTN)n)))
		Print(L"session: cannot write %s: after a reset GRUB's menu will not start "
		      L"apstart.efi by itself\n", APSTART_SESSION_MARK);
}

void session_config_defaults(struct session_config *c)
{
	c->k = 0;
	c->k_menu = SESSION_K_DEFAULT;
	c->cycles = SESSION_CYCLES_DEFAULT;
	c->options[0] = 0;
	c->wait_s = SESSION_WAIT_DEFAULT;
	c->seed = 0;
	c->test_fail_run = 0;
}

void session_trust(struct session_config *c, BOOLEAN secure_boot_off)
{
	if (!c->k || secure_boot_off)
		return;
	Print(L"loader.cfg: session=%d does not start a session by itself with Secure Boot on: "
	      L"'s' in the menu starts it (%d runs per variant)\n", c->k, c->k);
	c->k_menu = c->k;
	c->k = 0;
}

static UINTN cpu_count(void)
{
	static EFI_GUID guid = MP_SERVICES_GUID;
	struct mp_services *mp;
	UINTN all = 0, enabled = 0;

	if (EFI_ERROR(uefi_call_wrapper(BS->LocateProtocol, 3, &guid, NULL, (VOID **)&mp)))
		return 0;
	if (EFI_ERROR(uefi_call_wrapper(mp->GetNumberOfProcessors, 3, mp, &all, &enabled)))
		return 0;
	return enabled;
}

static UINTN run_bytes(UINTN cpus)
{
	return RUN_BYTES_BASE + RUN_BYTES_PER_CPU * (cpus ? cpus : 1);
}

/* ---------------------------------------------------------------- files */

static void run_path(const struct plan *p, UINTN run, const CHAR16 *ext, CHAR16 *buf, UINTN len)
{
	CHAR16 name[64];
	plan_run_name(p, run, name, 64);
	UnicodeSPrint(buf, len * sizeof(CHAR16), L"%s\\session-%04d\\%s.%s", APSTART_RESULTS,
		      p->number, name, ext);
}

static BOOLEAN run_has(struct volume *v, const struct plan *p, UINTN run, const CHAR16 *ext)
{
	CHAR16 path[160];
	run_path(p, run, ext, path, 160);
	return volume_exists(v, path);
}

/* The first run still to do; 0 when every run is filed or interrupted. */
static UINTN next_run(struct volume *v, const struct plan *p)
{
	for (UINTN r = 1; r <= p->runs; r++)
		if (!run_has(v, p, r, L"log") && !run_has(v, p, r, L"interrupted"))
			return r;
	return 0;
}

static UINTN in_flight(struct volume *v, const struct plan *p)
{
	for (UINTN r = 1; r <= p->runs; r++)
		if (run_has(v, p, r, L"started"))
			return r;
	return 0;
}

struct latest {
	UINTN number;
};

static void find_latest(void *ctx, const CHAR16 *name, BOOLEAN dir)
{
	struct latest *l = ctx;
	static const CHAR16 prefix[] = L"session-";
	if (!dir || StrLen((CHAR16 *)name) != 12)
		return;
	for (int i = 0; i < 8; i++)
		if ((name[i] | 0x20) != (prefix[i] | 0x20) && name[i] != prefix[i])
			return;
	UINTN n = 0;
	for (int i = 8; i < 12; i++) {
		if (name[i] < L'0' || name[i] > L'9')
			return;
		n = n * 10 + (name[i] - L'0');
	}
	if (n > l->number)
		l->number = n;
}

/* The highest session-NNNN on the stick (0: none). */
static UINTN latest_session(struct volume *v)
{
	struct latest l = { 0 };
	volume_list_dir(v, APSTART_RESULTS, find_latest, &l);
	return l.number;
}

static void note(struct volume *v, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(struct volume *v, const char *fmt, ...)
{
	char line[320];
	va_list ap;
	va_start(ap, fmt);
	fmt_vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	plan_note(v, &cur, (const CHAR8 *)line);
}

static const CHAR16 *variant_text(const struct plan *p, UINTN run)
{
	return plan_run_wbinvd(p, run) ? L"WBINVD=1 (Linux before the patch)"
				       : L"WBINVD=0 (patched)";
}

/* ---------------------------------------------------------------- a run's records */

/* NVRAM's summary into the session as run's .log; TRUE once it is on
 * the stick, read back identical, and NVRAM is cleared. */
static BOOLEAN file_run(struct volume *v, UINTN run, const UINT8 *data, UINTN size, UINTN parts)
{
	CHAR16 path[160], name[64];
	run_path(&cur, run, L"log", path, 160);
	plan_run_name(&cur, run, name, 64);
	EFI_STATUS st = EFI_SUCCESS;
	if (!volume_exists(v, path))
		st = volume_write_new_file(v, path, data, size);
	UINT8 *back = NULL;
	UINTN back_size = 0;
	if (!EFI_ERROR(st))
		st = volume_read_file(v, path, RUN_FILE_MAX, &back, &back_size);
	if (!EFI_ERROR(st)) {
		if (back_size != size || CompareMem(back, data, size))
			st = EFI_CRC_ERROR;
		FreePool(back);
	}
	if (EFI_ERROR(st)) {
		Print(L"session: cannot file run %d as %s: %r; the results stay in NVRAM and the "
		      L"session stops\n", run, path, st);
		return FALSE;
	}
	saved_delete();
	char status[16] = "none", online[16] = "?", failed[16] = "?", wb[8] = "?";
	rec_text(data, size, RECORD_WORD(end), NULL, RECORD_KEY(end, status), status, sizeof status);
	rec_text(data, size, RECORD_WORD(end), NULL, RECORD_KEY(end, online), online, sizeof online);
	rec_text(data, size, RECORD_WORD(end), NULL, RECORD_KEY(end, failed), failed, sizeof failed);
	rec_text(data, size, RECORD_WORD(boot), NULL, RECORD_KEY(boot, wbinvd), wb, sizeof wb);
	BOOLEAN pass = strcmpa((CHAR8 *)status, (CHAR8 *)"pass") == 0;
	note(v, "run=%03u variant=%c filed run-%03u-%c-wbinvd%u.log bytes=%u parts=%u status=%s "
	     "online=%s failed=%s", (unsigned)run, cur.order[run - 1], (unsigned)run,
	     cur.order[run - 1], (unsigned)plan_run_wbinvd(&cur, run), (unsigned)size,
	     (unsigned)parts, status, online, failed);
	Print(L"session: run %d of %d (%c, %s) filed as %s.log, %d bytes\n", run, cur.runs,
	      (CHAR16)cur.order[run - 1], variant_text(&cur, run), name, size);
	if (!pass)
		Print(L"session: run %d FAILED (@end status=%a online=%a failed=%a): kept, counted "
		      L"and shown in the table; the session goes on\n", run, status, online, failed);
	if (wb[0] != (char)('0' + plan_run_wbinvd(&cur, run)) || wb[1]) {
		Print(L"session: warning: run %d's @boot says wbinvd=%a, the plan %d\n", run, wb,
		      plan_run_wbinvd(&cur, run));
		note(v, "run=%03u warning: @boot wbinvd=%s, planned %u", (unsigned)run, wb,
		     (unsigned)plan_run_wbinvd(&cur, run));
	}
	return TRUE;
}

/* The run in flight came back (NVRAM) or not (interrupted). FALSE if the
 * session cannot go on (the stick refuses the results). */
static BOOLEAN collect(struct volume *v)
{
	UINTN run = in_flight(v, &cur);
	if (!run)
		return TRUE;
	UINT8 *data;
	UINTN size, parts;
	EFI_STATUS st = saved_read(&data, &size, &parts);
	CHAR16 started[160];
	run_path(&cur, run, L"started", started, 160);
	if (st == EFI_SUCCESS) {
		BOOLEAN ok = file_run(v, run, data, size, parts);
		FreePool(data);
		if (!ok)
			return FALSE;
	} else {
		CHAR16 path[160];
		char text[256];
		CHAR8 when[32];
		plan_time_text(when, sizeof when);
		int n = fmt_snprintf(text, sizeof text,
				     "run %u (%c) was started and no results came back: a power cut, "
				     "a hang, a reset before the kernel kept them, or NVRAM refused "
				     "them (seen %s)\n",
				     (unsigned)run, cur.order[run - 1], (const char *)when);
		run_path(&cur, run, L"interrupted", path, 160);
		if (!volume_exists(v, path))
			volume_write_new_file(v, path, text, (UINTN)n);
		note(v, "run=%03u variant=%c interrupted: no results came back (power cut, hang "
		     "or reset)", (unsigned)run, cur.order[run - 1]);
		Print(L"session: run %d of %d (%c) was INTERRUPTED: no results came back (a power "
		      L"cut, a hang or a reset); recorded as such, the session goes on\n", run,
		      cur.runs, (CHAR16)cur.order[run - 1]);
	}
	volume_delete_file(v, started);
	return TRUE;
}

/* ---------------------------------------------------------------- menu lines */

static void minutes_text(CHAR16 *buf, UINTN len, UINT64 s)
{
	if (s < 120)
		UnicodeSPrint(buf, len * sizeof(CHAR16), L"%d s", s);
	else if (s < 3 * 3600)
		UnicodeSPrint(buf, len * sizeof(CHAR16), L"%d min", (s + 30) / 60);
	else
		UnicodeSPrint(buf, len * sizeof(CHAR16), L"%d h %d min", s / 3600, (s % 3600 + 30) / 60);
}

/* Seconds per run: measured from the runs started so far, else guessed. */
static UINT64 per_run_s(const struct plan *p, UINTN cpus, UINTN cycles, BOOLEAN *measured)
{
	if (p && p->started >= 2 && p->last_start_s > p->first_start_s) {
		*measured = TRUE;
		return (p->last_start_s - p->first_start_s) / (p->started - 1);
	}
	*measured = FALSE;
	return GUESS_FIRMWARE_S + (UINT64)(cpus ? cpus : 1) * cycles * GUESS_MS_PER_CPU_CYCLE / 1000;
}

static void set_menu_lines(struct volume *v, const struct session_config *c, struct menu *m)
{
	CHAR16 t[32];
	BOOLEAN measured;
	UINTN cpus = cpu_count();
	UINT64 s = per_run_s(NULL, cpus, c->cycles, &measured);
	minutes_text(t, 32, 2 * c->k_menu * s);
	UnicodeSPrint(m->session_line, sizeof m->session_line,
		      L"A/B session: both variants, %d runs each, interleaved, cycles=%d, "
		      L"unattended: about %s (guess: %d s a run)", c->k_menu, c->cycles, t, s);
	m->resume_line[0] = 0;
	if (have_cur && cur.state == PLAN_STOPPED) {
		UINTN next = next_run(v, &cur);
		if (next)
			UnicodeSPrint(m->resume_line, sizeof m->resume_line,
				      L"resume session-%04d at run %d of %d", cur.number, next,
				      cur.runs);
	}
}

/* ---------------------------------------------------------------- the steps */

static void fill_entry(UINTN run, struct boot_entry *e)
{
	e->wbinvd = plan_run_wbinvd(&cur, run);
	e->module = NULL;
	e->from_config = FALSE;
	const char *test = "";
#if APSTART_EFI_TEST_HOOKS
	/* 200 ms, not the 1000 ms default twice (with its retry): the
	 * BSP spins that long under TCG, a CPU-second each. */
	if (cur.test_fail_run == run)
		test = " selftest=ap-hang ap_timeout_ms=200";
#endif
	fmt_snprintf((char *)e->cmdline, sizeof e->cmdline, "%s exit=reset%s",
		     (const char *)cur.cmdline, test);
}

/* The session stops before run next; why goes into plan.txt. */
static void stop_here(struct volume *v, UINTN next, const char *why)
{
	CHAR8 when[32];
	plan_time_text(when, sizeof when);
	note(v, "state=stopped next=%03u (%s) at=%s", (unsigned)next, why, (const char *)when);
	cur.state = PLAN_STOPPED;
	mark(v, FALSE);
}

static BOOLEAN stop(struct volume *v, const struct session_config *c, struct menu *m,
		    UINTN next)
{
	stop_here(v, next, "a key during the countdown");
	Print(L"session-%04d: STOPPED before run %d of %d (plan.txt says so); 'r' in the menu "
	      L"resumes it\n", cur.number, next, cur.runs);
	set_menu_lines(v, c, m);
	return FALSE;
}

static void finish(struct volume *v, const struct session_config *c, struct menu *m)
{
	CHAR8 when[32];
	plan_time_text(when, sizeof when);
	note(v, "state=done at=%s", (const char *)when);
	cur.state = PLAN_DONE;
	mark(v, FALSE);
	Print(L"session-%04d: all %d runs done\n", cur.number, cur.runs);
	table_make(v, &cur);
	set_menu_lines(v, c, m);
}

/* From the session's next run on: the end, a stop, or the next kernel. */
static BOOLEAN go_on(struct volume *v, const struct session_config *c, struct menu *m,
		     struct boot_entry *run, BOOLEAN countdown)
{
	UINTN next = next_run(v, &cur);
	if (!next) {
		finish(v, c, m);
		return FALSE;
	}
	UINTN done = 0, interrupted = 0;
	for (UINTN r = 1; r <= cur.runs; r++) {
		done += run_has(v, &cur, r, L"log");
		interrupted += run_has(v, &cur, r, L"interrupted");
	}
	BOOLEAN measured;
	UINT64 s = per_run_s(&cur, cpu_count(), c->cycles, &measured);
	CHAR16 left[32];
	minutes_text(left, 32, (cur.runs - next + 1) * s);
	Print(L"session-%04d: run %d of %d: %c = %s, kernel options \"%a exit=reset\"\n"
	      L"session-%04d: %d filed, %d interrupted; the rest takes about %s (%d s a run, %s)\n",
	      cur.number, next, cur.runs, (CHAR16)cur.order[next - 1], variant_text(&cur, next),
	      cur.cmdline, cur.number, done, interrupted, left, s,
	      measured ? L"measured" : L"a guess");
	if (countdown && menu_countdown(c->wait_s, L"session: any key stops it; next run in"))
		return stop(v, c, m, next);
	CHAR16 path[160];
	char text[160];
	CHAR8 when[32];
	plan_time_text(when, sizeof when);
	UINT64 clock = plan_now();
	int n = fmt_snprintf(text, sizeof text, "run %u (%c) started at %s\n", (unsigned)next,
			     cur.order[next - 1], (const char *)when);
	run_path(&cur, next, L"started", path, 160);
	EFI_STATUS st = volume_exists(v, path) ? EFI_SUCCESS
					      : volume_write_new_file(v, path, text, (UINTN)n);
	if (EFI_ERROR(st)) {
		Print(L"session: cannot write %s: %r; the session stops\n", path, st);
		return stop(v, c, m, next);
	}
	note(v, "run=%03u variant=%c wbinvd=%u started clock=%llu at=%s", (unsigned)next,
	     cur.order[next - 1], (unsigned)plan_run_wbinvd(&cur, next),
	     (unsigned long long)clock, (const char *)when);
	fill_entry(next, run);
	return TRUE;
}

/* Everything a session needs, said before it starts; FALSE if one is
 * missing. */
static BOOLEAN can_start(struct volume *v, UINTN k)
{
	BOOLEAN ok = TRUE;
	UINTN cpus = cpu_count(), need = run_bytes(cpus);

	if (v->read_only) {
		Print(L"session: this medium is read-only (a CD?): a session keeps its runs on "
		      L"the medium; write the image to a USB stick (make usb DEV=...)\n");
		ok = FALSE;
	}
	if (!volume_exists(v, APSTART_KERNEL0) || !volume_exists(v, APSTART_KERNEL1)) {
		Print(L"session: both kernels must be on the stick (%s, %s)\n", APSTART_KERNEL0,
		      APSTART_KERNEL1);
		ok = FALSE;
	}
	UINT64 max_storage, remaining, max_var;
	EFI_STATUS st = EFI_UNSUPPORTED;
	if (ST->Hdr.Revision >= (2u << 16)) /* QueryVariableInfo: UEFI 2.0 on */
		st = uefi_call_wrapper(RT->QueryVariableInfo, 4, APSTART_RESULTS_VAR_ATTRS,
				       &max_storage, &remaining, &max_var);
	if (EFI_ERROR(st)) {
		Print(L"session: the firmware does not say how much NVRAM is free (%r): runs "
		      L"may find it full\n", st);
	} else {
		Print(L"session: NVRAM %ld bytes, %ld free, at most %ld per variable; a run on "
		      L"these %d CPUs keeps about %d bytes\n", max_storage, remaining, max_var,
		      cpus, need);
		if (remaining / APSTART_RESULTS_FREE_SHARE < need) {
			Print(L"session: NVRAM is too full: a run may take at most half the free "
			      L"space (%ld bytes) and needs about %d; delete variables you do not "
			      L"need (efibootmgr, the firmware's setup)\n",
			      remaining / APSTART_RESULTS_FREE_SHARE, need);
			ok = FALSE;
		}
	}
	UINT64 free = volume_free_space(v), want = 2 * k * need + STICK_RESERVE;
	if (free && free < want) {
		Print(L"session: the stick has %ld bytes free, the session needs about %ld\n", free,
		      want);
		ok = FALSE;
	}
	if (!ok)
		Print(L"session: not started\n");
	return ok;
}

BOOLEAN session_start(struct volume *v, const struct session_config *c, struct menu *m,
		      struct boot_entry *run)
{
	UINTN k = c->k ? c->k : c->k_menu;
	if (!can_start(v, k)) {
		set_menu_lines(v, c, m);
		return FALSE;
	}
	UINTN number = latest_session(v) + 1;
	if (number > PLAN_NUMBER_MAX) {
		Print(L"session: %s already has session-%04d\n", APSTART_RESULTS, PLAN_NUMBER_MAX);
		return FALSE;
	}
	SetMem(&cur, sizeof cur, 0);
	cur.number = number;
	cur.k = k;
	cur.seed = c->seed ? c->seed : plan_now() * 1000 + number;
#if APSTART_EFI_TEST_HOOKS
	cur.test_fail_run = c->test_fail_run;
#endif
	plan_make_order(&cur);
	fmt_snprintf((char *)cur.cmdline, sizeof cur.cmdline, "cycles=%u%s%s", (unsigned)c->cycles,
		     c->options[0] ? " " : "", (const char *)c->options);
	EFI_STATUS st = plan_create(v, &cur);
	if (EFI_ERROR(st)) {
		Print(L"session: cannot write the plan of session-%04d: %r\n", number, st);
		have_cur = FALSE;
		return FALSE;
	}
	have_cur = TRUE;
	mark(v, TRUE);
	Print(L"session-%04d: started: %d runs of each variant, order %a (randomised pairs), "
	      L"plan in %s\\session-%04d\\plan.txt\n", number, k, cur.order, APSTART_RESULTS,
	      number);
	return go_on(v, c, m, run, c->k != 0);
}

BOOLEAN session_resume(struct volume *v, const struct session_config *c, struct menu *m,
		       struct boot_entry *run)
{
	if (!have_cur || cur.state != PLAN_STOPPED)
		return FALSE;
	CHAR8 when[32];
	plan_time_text(when, sizeof when);
	note(v, "state=running (resumed) at=%s", (const char *)when);
	cur.state = PLAN_RUNNING;
	mark(v, TRUE);
	m->resume_line[0] = 0;
	return go_on(v, c, m, run, FALSE);
}

BOOLEAN session_on_boot(struct volume *v, const struct session_config *c, struct menu *m,
			struct boot_entry *run)
{
	UINTN latest = v->read_only ? 0 : latest_session(v);
	have_cur = latest && plan_load(v, latest, &cur);
	if (have_cur && cur.state == PLAN_RUNNING) {
		if (!in_flight(v, &cur))
			saved_collect(v, 0); /* a summary of a boot outside the session */
		if (!collect(v)) {
			stop(v, c, m, next_run(v, &cur));
			return FALSE;
		}
		if (!have_cur)
			return FALSE;
		return go_on(v, c, m, run, TRUE);
	}
	if (!v->read_only && volume_exists(v, APSTART_SESSION_MARK)) {
		Print(L"session: no session under way: %s removed\n", APSTART_SESSION_MARK);
		mark(v, FALSE);
	}
	set_menu_lines(v, c, m);
	if (have_cur && cur.state == PLAN_STOPPED) {
		Print(L"session-%04d was stopped before run %d of %d: 'r' in the menu resumes it, "
		      L"'s' starts a new one\n", cur.number, next_run(v, &cur), cur.runs);
		return FALSE;
	}
	if (c->k)
		return session_start(v, c, m, run);
	return FALSE;
}

void session_boot_failed(struct volume *v, struct menu *m)
{
	if (!have_cur || cur.state != PLAN_RUNNING)
		return;
	UINTN run = in_flight(v, &cur);
	if (run) {
		CHAR16 path[160];
		run_path(&cur, run, L"started", path, 160);
		volume_delete_file(v, path);
	}
	stop_here(v, run, "its kernel could not be started");
	Print(L"session-%04d: STOPPED: run %d's kernel could not be started\n", cur.number, run);
	m->resume_line[0] = 0;
}
