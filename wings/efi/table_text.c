/* SPDX-License-Identifier: MIT */
/* A run is in the figures when its summary ends in @end status=pass and
 * has both @summary records, as aplog counts a complete run: Offline is
 * its settled_total_ns where the run has it (else total_ns), Online its
 * online total_ns, Total their sum (aplog's run_totals()). Failed and
 * interrupted runs are listed and counted, never averaged in. The
 * variants differ in WBINVD only, so under an emulator (QEMU TCG, a
 * hypervisor, QEMU's or Bochs' ACPI tables: aplog's test) the rows carry
 * "not measurable". */
#include "wings/efi/table_text.h"

#include <stdarg.h>

#include "wings/efi/records.h"
#include "lib/format.h"
#include "tools/aplog/stats/verdict.h"

enum row { ROW_OFFLINE, ROW_ONLINE, ROW_TOTAL };
static const char *const row_name[TABLE_ROWS] = { "Offline", "Online", "Total" };

enum outcome { RUN_PASS, RUN_FAIL, RUN_INTERRUPTED, RUN_MISSING };

static bool same_text(const char *a, const char *b)
{
	size_t i = 0;
	for (; a[i] && a[i] == b[i]; i++)
		;
	return a[i] == b[i];
}

static void put(struct table *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(struct table *t, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = fmt_vsnprintf(t->text + t->text_len, TABLE_TEXT_MAX - t->text_len, fmt, ap);
	va_end(ap);
	if (n > 0)
		t->text_len += (size_t)n < TABLE_TEXT_MAX - t->text_len ? (size_t)n
									 : TABLE_TEXT_MAX - 1 - t->text_len;
}

static bool starts(const char *s, const char *prefix)
{
	size_t i = 0;
	for (; prefix[i]; i++)
		if (s[i] != prefix[i])
			return false;
	return true;
}

static const char *emulator(const uint8_t *d, size_t size)
{
	char v[64];
	if (rec_text(d, size, RECORD_WORD(env), NULL, RECORD_KEY(env, brand), v, sizeof v) &&
	    starts(v, "QEMU_TCG"))
		return "QEMU TCG";
	if (rec_text(d, size, RECORD_WORD(env), NULL, RECORD_KEY(env, hypervisor), v, sizeof v) &&
	    v[0] == '1' && !v[1])
		return "a hypervisor";
	if (rec_text(d, size, RECORD_WORD(env), NULL, RECORD_KEY(env, acpi_oem), v, sizeof v) &&
	    same_text(v, "BOCHS"))
		return "QEMU or Bochs";
	return NULL;
}

/* One run's file: its outcome and, when it passed, its row values; its
 * line of the table into line. */
static enum outcome read_run(struct table *t, size_t run, const uint8_t *d, size_t size,
			     uint64_t val[TABLE_ROWS], char *line, size_t line_len)
{
	const struct plan *p = t->p;
	char wb = (char)('0' + plan_run_wbinvd(p, run));
	char status[16] = "none", online[16] = "?", failed[16] = "?";
	rec_text(d, size, RECORD_WORD(end), NULL, RECORD_KEY(end, status), status, sizeof status);
	rec_text(d, size, RECORD_WORD(end), NULL, RECORD_KEY(end, online), online, sizeof online);
	rec_text(d, size, RECORD_WORD(end), NULL, RECORD_KEY(end, failed), failed, sizeof failed);
	uint64_t off = 0, off_settled = 0, on = 0;
	const char *sum = RECORD_WORD(summary), *offline = RECORD_FIELD(summary, op, "offline");
	bool have_off = rec_u64(d, size, sum, offline, RECORD_KEY(summary, total_ns), &off);
	bool settled = rec_u64(d, size, sum, offline, RECORD_KEY(summary, settled_total_ns),
			       &off_settled);
	bool have_on = rec_u64(d, size, sum, RECORD_FIELD(summary, op, "online"),
			       RECORD_KEY(summary, total_ns), &on);
	if (!t->machine[0]) {
		char brand[64] = "unknown", cpus[16] = "?", fw[16] = "?";
		rec_text(d, size, RECORD_WORD(env), NULL, RECORD_KEY(env, brand), brand, sizeof brand);
		rec_text(d, size, RECORD_WORD(boot), NULL, RECORD_KEY(boot, cpus), cpus, sizeof cpus);
		rec_text(d, size, RECORD_WORD(boot), NULL, RECORD_KEY(boot, firmware), fw, sizeof fw);
		fmt_snprintf(t->machine, sizeof t->machine, "%s, cpus=%s, firmware=%s", brand, cpus,
			     fw);
	}
	if (!t->emu)
		t->emu = emulator(d, size);
	if (settled)
		off = off_settled;
	bool sane = off <= TABLE_NS_MAX && on <= TABLE_NS_MAX;
	if (!same_text(status, "pass") || !have_off || !have_on || !sane) {
		fmt_snprintf(line, line_len, "run %03u %c WBINVD=%c FAILED: @end status=%s online=%s "
			     "failed=%s%s", (unsigned)run, p->order[run - 1], wb, status, online,
			     failed, !have_off || !have_on ? ", no @summary totals"
			     : !sane ? ", @summary totals beyond 1e15 ns" : "");
		return RUN_FAIL;
	}
	val[ROW_OFFLINE] = off;
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

/* The runs a table has lines for: the plan's, at most PLAN_RUNS_MAX. */
static size_t runs_of(const struct plan *p)
{
	return p->runs < PLAN_RUNS_MAX ? p->runs : PLAN_RUNS_MAX;
}

void table_start(struct table *t, const struct plan *p)
{
	t->p = p;
	for (int s = 0; s < 2; s++)
		t->side[s] = (struct table_side){ .n = 0 };
	for (size_t r = 0; r < PLAN_RUNS_MAX; r++)
		t->run_line[r][0] = 0;
	t->machine[0] = 0;
	t->emu = NULL;
	t->text_len = t->rows_start = t->rows_end = 0;
}

void table_add_run(struct table *t, size_t run, const uint8_t *d, size_t size, bool interrupted)
{
	const struct plan *p = t->p;
	if (run < 1 || run > runs_of(p))
		return;
	struct table_side *s = &t->side[p->order[run - 1] == 'A' ? 0 : 1];
	char *line = t->run_line[run - 1];
	uint64_t val[TABLE_ROWS];
	size_t room = p->k < PLAN_K_MAX ? p->k : PLAN_K_MAX;

	if (!d) {
		fmt_snprintf(line, TABLE_LINE_MAX, "run %03u %c WBINVD=%c %s", (unsigned)run,
			     p->order[run - 1], (char)('0' + plan_run_wbinvd(p, run)),
			     interrupted ? "INTERRUPTED: no results came back (power cut, hang or reset)"
					 : "MISSING: no run file");
		if (interrupted)
			s->interrupted++;
		else
			s->missing++;
		return;
	}
	switch (read_run(t, run, d, size, val, line, TABLE_LINE_MAX)) {
	case RUN_PASS:
		if (s->n >= room) {
			s->over++;
			break;
		}
		for (int k = 0; k < TABLE_ROWS; k++)
			s->v[k][s->n] = val[k];
		s->n++;
		break;
	default:
		s->failed++;
		break;
	}
}

static void side_counts(struct table *t, const char *name, const struct table_side *s)
{
	put(t, "%s: %u of %u runs in the figures", name, (unsigned)s->n, (unsigned)t->p->k);
	if (s->failed || s->interrupted || s->missing || s->over) {
		put(t, " (");
		const char *sep = "";
		if (s->failed) {
			put(t, "%u failed", (unsigned)s->failed);
			sep = ", ";
		}
		if (s->interrupted) {
			put(t, "%s%u interrupted", sep, (unsigned)s->interrupted);
			sep = ", ";
		}
		if (s->missing) {
			put(t, "%s%u missing", sep, (unsigned)s->missing);
			sep = ", ";
		}
		if (s->over)
			put(t, "%s%u more than the plan has, not counted", sep, (unsigned)s->over);
		put(t, ")");
	}
}

void table_finish(struct table *t)
{
	const struct plan *p = t->p;
	struct verdict_row rows[TABLE_ROWS];
	char row_text[TABLE_ROWS][256];
	for (int k = 0; k < TABLE_ROWS; k++) {
		verdict_compute(t->side[0].v[k], t->side[0].n, t->side[1].v[k], t->side[1].n,
				VERDICT_MIN_RUNS, t->emu == NULL, &rows[k]);
		verdict_format_row(row_text[k], sizeof row_text[k], row_name[k], &rows[k]);
	}

	t->text_len = 0;
	put(t, "apstart A/B session-%04u: A = WBINVD=1 (Linux before the patch), B = WBINVD=0 "
	    "(patched)\n", (unsigned)p->number);
	put(t, "machine: %s; every run \"%s\"\n", t->machine[0] ? t->machine : "no run came back",
	    p->cmdline);
	side_counts(t, "A", &t->side[0]);
	put(t, "; ");
	side_counts(t, "B", &t->side[1]);
	put(t, "\n");
	t->rows_start = t->text_len;
	for (int k = 0; k < TABLE_ROWS; k++)
		put(t, "%s\n", row_text[k]);
	if (t->emu)
		put(t, "EMULATED: WBINVD costs nothing under %s; a difference between the variants "
		    "is the host's\n", t->emu);
	t->rows_end = t->text_len;
	put(t, "order %s (randomised pairs); one observation per run; failed and interrupted "
	    "runs are not in the figures\n", p->order);
	for (size_t r = 0; r < runs_of(p); r++)
		put(t, "%s\n", t->run_line[r]);
}
