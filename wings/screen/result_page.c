/* SPDX-License-Identifier: MIT */
/* Layout, top to bottom (80x25 shown; taller screens get more table):
 *
 *    header (2 rows)                                   wings/screen/header.c
 *
 *    PASS  7 APs x 10 cycles, all completed
 *    Offline:    3.64 ms   per AP: median 190.8 us   max 3.12 ms
 *    Online:     1.96 ms   per AP: median 171.3 us   max 817.9 us
 *    Total:      5.60 ms
 *
 *    table: one row per AP, or per socket/thread group, + slowest
 *
 *    Warnings and failures: none | the @warn/@fail records, cut
 *    footer (1 row)
 *
 * Everything is computed by app/report.c (report_result()); the
 * warnings come from the kept summary (wings/kept/kept_lines.h), so the page,
 * the saved results and the QR code say the same. */
#include "wings/screen/result_page.h"

#include <stddef.h>
#include <stdint.h>

#include "wings/screen/header.h"
#include "app/report.h"
#include "wings/kept/kept_lines.h"
#include "app/run.h"
#include "app/wing.h"
#include "smp/smp.h"
#include "kernel/cpu.h"
#include "wings/screen/screen.h"
#include "lib/format.h"
#include "lib/kstring.h"
#include "lib/records_schema.h"
#include "wings/screen/warn_events.h"

#define WARN_LINES_MAX 6
#define SLOWEST_MAX 5
#define GROUPS_MAX 64

struct page {
	uint32_t cols, rows;
	uint32_t row;       /* next row to draw */
	uint32_t last;      /* rows below this one are reserved */
};

static void line(struct page *p, enum screen_style st, const char *text)
{
	if (p->row < p->last)
		screen_text(1, p->row, st, text);
	p->row++;
}

/* A pass with warnings (a bad option, a CPU it could not reach) did not
 * measure what was asked: the verdict line says how many, in the warning
 * colour, as make run and aplog verify count them (wings/screen/warn_events.h). */
static void count_warning(void *ctx, const char *l, size_t len)
{
	uint32_t *n = ctx;
	if (record_line_is(l, len, RECORD_WORD(warn)) && !warn_is_event(l, len))
		(*n)++;
}

static void verdict(struct page *p, bool pass, const struct run_result *r)
{
	char t[120], warned[40] = "";
	uint32_t warnings = 0;
	kept_lines_for_each(count_warning, &warnings);
	if (pass && warnings)
		fmt_snprintf(warned, sizeof warned, "; %u warning%s (below)", warnings,
			     warnings == 1 ? "" : "s");
	fmt_snprintf(t, sizeof t, "%s  %u AP%s x %u cycle%s, %s%s", pass ? "PASS" : "FAIL", r->aps,
		     r->aps == 1 ? "" : "s", r->cycles, r->cycles == 1 ? "" : "s",
		     r->complete == r->aps ? "every cycle completed"
					   : "some APs did not complete their cycles", warned);
	line(p, !pass ? SCREEN_BAD : warnings ? SCREEN_WARN : SCREEN_GOOD, t);
}

/* Under an emulator or hypervisor WBINVD costs nothing (QEMU TCG runs it
 * as a no-op; KVM exits and skips it without non-coherent DMA), so a
 * WBINVD=0/1 difference seen here is the host's: say so, as aplog does
 * (docs/verdicts.md). A flush model (FLUSH=) is the host's to say. */
static void emulated(struct page *p)
{
	char brand[49];
	cpu_brand(brand);
	bool tcg = memcmp(brand, "QEMU TCG", 8) == 0;
	if (!tcg && !cpu_has_hypervisor())
		return;
	line(p, SCREEN_WARN, tcg ? "EMULATED: WBINVD costs nothing here (QEMU TCG); a difference "
				   "is the host's"
				 : "EMULATED: WBINVD costs nothing here (a hypervisor); a difference "
				   "is the host's");
}

/* The reference's form ("Online: 65.83 s"), each row in its own unit. */
static void totals(struct page *p, const struct run_result *r)
{
	char t[120], tot[24], med[24], max[24];
	const struct stats *s[2] = { &r->offline, &r->online };
	static const char *const name[2] = { "Offline:", "Online: " };

	for (int i = 0; i < 2; i++) {
		fmt_duration(tot, sizeof tot, s[i]->sum);
		fmt_duration(med, sizeof med, s[i]->median);
		fmt_duration(max, sizeof max, s[i]->max);
		fmt_snprintf(t, sizeof t, "%s %10s   per AP: median %s, max %s%s", name[i], tot,
			     med, max, i == 0 && r->offline_settled ? "  (until settled)" : "");
		line(p, SCREEN_BRIGHT, t);
	}
	fmt_duration(tot, sizeof tot, r->offline.sum + r->online.sum);
	fmt_snprintf(t, sizeof t, "Total:   %10s", tot);
	line(p, SCREEN_BRIGHT, t);
}

static void cell(char *buf, uint32_t size, uint64_t ns)
{
	fmt_duration(buf, size, ns);
}

#define TABLE_ROW "%4s %7s %15s %10s %10s %16s %10s"

static void ap_table(struct page *p, const struct run_result *r)
{
	char t[120], a[24], b[24], c[24], d[24], e[24];
	fmt_snprintf(t, sizeof t, TABLE_ROW, "cpu", "apic", "online median", "min", "max",
		     "offline median", "max");
	line(p, SCREEN_DIM, t);
	for (uint32_t k = 0; k < r->n; k++) {
		const struct ap_result *x = &r->ap[k];
		cell(a, sizeof a, x->online_median);
		cell(b, sizeof b, x->online_min);
		cell(c, sizeof c, x->online_max);
		cell(d, sizeof d, x->offline_median);
		cell(e, sizeof e, x->offline_max);
		char n1[12], n2[12];
		fmt_snprintf(n1, sizeof n1, "%u", x->cpu);
		fmt_snprintf(n2, sizeof n2, "%u", cpus[x->cpu].apic_id);
		fmt_snprintf(t, sizeof t, TABLE_ROW, n1, n2, a, b, c, d, e);
		line(p, x->cycles < r->cycles ? SCREEN_WARN : SCREEN_NORMAL, t);
	}
}

/* Medians of per-AP medians, per group of APs sharing a socket and an
 * SMT thread number: on a big machine the row that stands out says
 * where to look. */
struct group {
	uint32_t package, thread, count;
	uint64_t online_max, offline_max; /* slowest AP's median */
};

static uint64_t group_scratch[APSTART_MAX_CPUS];

static uint64_t median_of(const struct run_result *r, const struct group *g,
			  struct cpu_topology t, bool online)
{
	uint32_t n = 0;
	for (uint32_t k = 0; k < r->n; k++) {
		uint32_t id = cpus[r->ap[k].cpu].apic_id;
		if (id >> t.package_shift == g->package &&
		    (id & ((1u << t.smt_bits) - 1)) == g->thread)
			group_scratch[n++] = online ? r->ap[k].online_median
						    : r->ap[k].offline_median;
	}
	struct stats s;
	stats_compute(group_scratch, n, &s);
	return s.median;
}

#define GROUP_ROW "%6s %6s %5s %15s %10s %16s %10s"

static void group_table(struct page *p, const struct run_result *r, uint32_t room)
{
	static struct group g[GROUPS_MAX];
	struct cpu_topology t = cpu_topology();
	uint32_t ng = 0, lost = 0;
	char s[120], a[24], b[24], c[24], d[24];

	for (uint32_t k = 0; k < r->n; k++) {
		const struct ap_result *x = &r->ap[k];
		uint32_t id = cpus[x->cpu].apic_id;
		uint32_t pkg = id >> t.package_shift, thr = id & ((1u << t.smt_bits) - 1);
		uint32_t i = 0;
		while (i < ng && (g[i].package != pkg || g[i].thread != thr))
			i++;
		if (i == ng) {
			if (ng == GROUPS_MAX) {
				lost++;
				continue;
			}
			g[ng++] = (struct group){ .package = pkg, .thread = thr };
		}
		g[i].count++;
		if (x->online_median > g[i].online_max)
			g[i].online_max = x->online_median;
		if (x->offline_median > g[i].offline_max)
			g[i].offline_max = x->offline_median;
	}
	/* By socket, then thread: insertion sort of a few rows. */
	for (uint32_t i = 1; i < ng; i++)
		for (uint32_t j = i; j > 0 && (g[j - 1].package > g[j].package ||
					       (g[j - 1].package == g[j].package &&
						g[j - 1].thread > g[j].thread)); j--) {
			struct group tmp = g[j];
			g[j] = g[j - 1];
			g[j - 1] = tmp;
		}
	fmt_snprintf(s, sizeof s, "%u APs by socket and SMT thread, medians of AP medians "
		     "(each AP: serial)", r->n);
	line(p, SCREEN_NORMAL, s);
	fmt_snprintf(s, sizeof s, GROUP_ROW, "socket", "thread", "APs", "online median",
		     "slowest", "offline median", "slowest");
	line(p, SCREEN_DIM, s);
	for (uint32_t i = 0; i < ng; i++) {
		if (room < 3 || i + 2 > room - 1) {
			fmt_snprintf(s, sizeof s, "  ... %u more groups", ng - i);
			line(p, SCREEN_DIM, s);
			break;
		}
		cell(a, sizeof a, median_of(r, &g[i], t, true));
		cell(b, sizeof b, g[i].online_max);
		cell(c, sizeof c, median_of(r, &g[i], t, false));
		cell(d, sizeof d, g[i].offline_max);
		char n1[12], n2[12], n3[12];
		fmt_snprintf(n1, sizeof n1, "%u", g[i].package);
		fmt_snprintf(n2, sizeof n2, "%u", g[i].thread);
		fmt_snprintf(n3, sizeof n3, "%u", g[i].count);
		fmt_snprintf(s, sizeof s, GROUP_ROW, n1, n2, n3, a, b, c, d);
		line(p, SCREEN_NORMAL, s);
	}
	if (lost) {
		fmt_snprintf(s, sizeof s, "  (%u APs in further groups not shown)", lost);
		line(p, SCREEN_DIM, s);
	}
}

/* The slowest APs by online median, on as many rows as it takes. */
static void slowest(struct page *p, const struct run_result *r)
{
	uint32_t idx[SLOWEST_MAX], have = 0;
	for (uint32_t k = 0; k < r->n; k++) {
		uint32_t pos = have;
		while (pos > 0 && r->ap[idx[pos - 1]].online_median < r->ap[k].online_median)
			pos--;
		if (pos >= SLOWEST_MAX)
			continue;
		for (uint32_t j = have < SLOWEST_MAX ? have : SLOWEST_MAX - 1; j > pos; j--)
			idx[j] = idx[j - 1];
		idx[pos] = k;
		if (have < SLOWEST_MAX)
			have++;
	}
	char t[160];
	size_t len = (size_t)fmt_snprintf(t, sizeof t, "Slowest online (median):");
	for (uint32_t k = 0; k < have; k++) {
		char d[24], item[48];
		fmt_duration(d, sizeof d, r->ap[idx[k]].online_median);
		int n = fmt_snprintf(item, sizeof item, " apic %u %s%s",
				     cpus[r->ap[idx[k]].cpu].apic_id, d, k + 1 < have ? "," : "");
		if (len + (size_t)n + 2 > p->cols) {
			line(p, SCREEN_NORMAL, t);
			len = (size_t)fmt_snprintf(t, sizeof t, "  ");
		}
		fmt_snprintf(t + len, sizeof t - len, "%s", item);
		len += (size_t)n;
	}
	line(p, SCREEN_NORMAL, t);
}

/* Warnings and failures: the run's @warn and @fail records, as kept. */
struct warnings {
	struct page *p;
	uint32_t count, shown, room;
};

static void warning_line(void *ctx, const char *l, size_t len)
{
	struct warnings *w = ctx;
	bool fail = record_line_is(l, len, RECORD_WORD(fail));
	if (!fail && !record_line_is(l, len, RECORD_WORD(warn)))
		return;
	w->count++;
	if (w->shown >= w->room)
		return;
	char rec[120], t[128];
	size_t n = len - 6 < sizeof rec - 1 ? len - 6 : sizeof rec - 1;
	memcpy(rec, l + 6, n);
	while (n && (rec[n - 1] == '\n' || rec[n - 1] == '\r'))
		n--;
	rec[n] = '\0';
	fmt_snprintf(t, sizeof t, "  %s %s", fail ? "FAIL" : "warn", rec);
	line(w->p, fail ? SCREEN_BAD : SCREEN_WARN, t);
	w->shown++;
}

static void warnings(struct page *p, const struct run_result *r)
{
	struct page count_only = *p;
	struct warnings w = { &count_only, 0, 0, 0 };
	kept_lines_for_each(warning_line, &w);
	uint32_t incomplete = r->aps - r->complete;
	char t[120];
	if (!w.count && !incomplete) {
		line(p, SCREEN_GOOD, "Warnings and failures: none");
		return;
	}
	fmt_snprintf(t, sizeof t, "Warnings and failures: %u record%s%s", w.count,
		     w.count == 1 ? "" : "s", w.count > WARN_LINES_MAX ? " (all on serial)" : "");
	line(p, w.count ? SCREEN_WARN : SCREEN_BAD, t);
	if (incomplete) {
		fmt_snprintf(t, sizeof t, "  %u AP%s did not complete %u cycle%s%s", incomplete,
			     incomplete == 1 ? "" : "s", r->cycles, r->cycles == 1 ? "" : "s",
			     r->n > r->complete ? " (partial rows in yellow)" : "");
		line(p, SCREEN_BAD, t);
	}
	w = (struct warnings){ p, 0, 0, WARN_LINES_MAX };
	kept_lines_for_each(warning_line, &w);
}

static uint32_t warnings_rows(const struct run_result *r)
{
	struct page none = { 0, 0, 0, 0 };
	struct warnings w = { &none, 0, 0, 0 };
	kept_lines_for_each(warning_line, &w);
	uint32_t n = w.count < WARN_LINES_MAX ? w.count : WARN_LINES_MAX;
	return 1 + n + (r->aps != r->complete);
}

void result_page_draw(bool pass, const char *footer)
{
	const struct run_result *r = report_result();
	struct page p = { screen_columns(), screen_rows(), HEADER_ROWS + 1, 0 };

	if (p.rows < HEADER_ROWS + 8 || p.cols < 40)
		return;
	p.last = p.rows - 1;
	screen_clear_rows(0, p.rows);
	header_draw();
	/* A wing's measurement instead of the cycles: its own lines. */
	const struct wing_run *run = run_chosen();
	uint32_t wing_lines = 0;
	const char *const *lines = run && run->summary ? run->summary(&wing_lines) : NULL;
	const char *title = run ? run->title : NULL;
	if (lines && wing_lines) {
		char head[96];
		fmt_snprintf(head, sizeof head, "%s  %s (records on serial)",
			     pass ? "PASS" : "FAIL", title ? title : "result");
		line(&p, pass ? SCREEN_GOOD : SCREEN_BAD, head);
		emulated(&p);
		p.row++;
		for (uint32_t i = 0; i < wing_lines; i++)
			line(&p, SCREEN_NORMAL, lines[i]);
	} else if (!r) {
		line(&p, SCREEN_BAD, "No results: the run ended before the report.");
	} else {
		verdict(&p, pass, r);
		emulated(&p);
		totals(&p, r);
		p.row++;
		/* What the table may use: all but the slowest and warnings. */
		uint32_t below = 2 + warnings_rows(r);
		uint32_t room = p.last > p.row + below ? p.last - p.row - below : 0;
		if (r->n + 1 <= room) {
			ap_table(&p, r);
		} else {
			group_table(&p, r, room);
		}
		if (r->n > 1)
			slowest(&p, r);
		p.row++;
		warnings(&p, r);
	}
	screen_blank(0, p.rows - 1, 0, SCREEN_BAR);
	screen_text(0, p.rows - 1, SCREEN_BAR, footer);
}
