/* SPDX-License-Identifier: MIT */
/* Two sets of logs, A and B: compare (the reference's rows and their
 * verdicts, runs as the observations: tools/aplog/stats/verdict.c; per-CPU medians and
 * phases as descriptions), check --slower-than (the per-run medians'
 * interval against a bound), check --identical (two runs sample for
 * sample). */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/format.h"
#include "tools/aplog/stats/verdict.h"
#include "tools/aplog/cmd/commands.h"
#include "tools/aplog/options.h"
#include "tools/aplog/out/phase_tables.h"
#include "tools/aplog/out/text.h"
#include "tools/aplog/stats/phases.h"
#include "tools/aplog/stats/sets.h"
#include "tools/aplog/util.h"

/* One row through tools/aplog/stats/verdict.c, printed as every program prints it. */
static void verdict_line(const char *indent, const char *name,
			 const uint64_t *a, size_t na, const uint64_t *b,
			 size_t nb, bool measurable, struct verdict_row *out)
{
	char buf[256];
	verdict_compute(a, na, b, nb, cli.min_runs, measurable, out);
	verdict_format_row(buf, sizeof(buf), name, out);
	printf("%s%s\n", indent, buf);
}

/* The verdict of the whole comparison, from the rows' words only. */
static void print_verdict(const struct side s[2],
			  const struct verdict_row rows[ROW_COUNT])
{
	char pct[24];
	bool any_ci = false, any_change = false;
	for (int k = 0; k < ROW_COUNT; k++) {
		any_ci |= rows[k].has_ci;
		any_change |= rows[k].word == VERDICT_FASTER ||
			      rows[k].word == VERDICT_SLOWER;
	}
	if (rows[0].word == VERDICT_NOT_MEASURABLE) {
		printf("Verdict: not measurable here: the two builds differ in WBINVD "
		       "only, and WBINVD costs nothing under %s (model its cost with "
		       "FLUSH=, or run on hardware)\n",
		       s[0].emulated ? s[0].emulated : s[1].emulated);
		return;
	}
	if (!any_ci) {
		size_t a = s[0].nrow_value, b = s[1].nrow_value;
		if (a == b)
			printf("Verdict: none: %zu complete run%s per side cannot tell "
			       "the change from run-to-run noise (at least %zu per side "
			       "needed)\n", a, a == 1 ? "" : "s", cli.min_runs);
		else
			printf("Verdict: none: %zu and %zu complete runs cannot tell the "
			       "change from run-to-run noise (at least %zu per side "
			       "needed)\n", a, b, cli.min_runs);
		return;
	}
	if (!any_change) {
		printf("Verdict: no difference in any row (each 95%% CI holds 0)\n");
		return;
	}
	printf("Verdict:");
	const char *sep = " ";
	for (int pass = 0; pass < 2; pass++)
		for (int k = 0; k < ROW_COUNT; k++) {
			bool changed = rows[k].word == VERDICT_FASTER ||
				       rows[k].word == VERDICT_SLOWER;
			if (changed != (pass == 0))
				continue;
			verdict_format_pct(pct, sizeof(pct), rows[k].change_ppm);
			if (changed)
				printf("%s%s %s (%s)", sep, row_name[k],
				       verdict_word_text(rows[k].word), pct);
			else
				printf("%s%s %s", sep, row_name[k],
				       verdict_word_text(rows[k].word));
			sep = pass == 0 ? ", " : "; ";
			if (pass == 0 && k == ROW_COUNT - 1)
				sep = "; ";
		}
	putchar('\n');
}

static void side_describe(const struct side *s, char letter)
{
	printf("%c: %s: %zu run%s", letter, s->label, s->usable,
	       s->usable == 1 ? "" : "s");
	if (s->complete != s->usable)
		printf(" (%zu complete)", s->complete);
	printf(", %zu AP%s, %zu online + %zu offline sample%s (offline: %s)\n",
	       s->t.nrows, s->t.nrows == 1 ? "" : "s", s->t.npool[OP_ONLINE],
	       s->t.npool[OP_OFFLINE], s->t.npool[OP_OFFLINE] == 1 ? "" : "s",
	       s->offline_figure);
	print_flush_note(s, "   ");
	print_nmi_note(s, "   ");
}

static void put_duration(double ns, int width)
{
	char b[24];
	fmt_duration(b, sizeof(b), (uint64_t)(ns + 0.5));
	printf("%*s", width, b);
}

/* Online medians side by side, rows matched by APIC ID. */
static void print_per_cpu(const struct side s[2])
{
	printf("\nPer-CPU online median, by APIC ID (all runs' samples pooled: a "
	       "description, not a verdict)%s:\n",
	       s[0].t.from_cpusum || s[1].t.from_cpusum
		       ? " (records-only runs: their @cpusum medians)" : "");
	printf("%8s %14s %14s %8s\n", "apic", s[0].label, s[1].label, "B/A");
	size_t i = 0, j = 0;
	const struct table *ta = &s[0].t, *tb = &s[1].t;
	while (i < ta->nrows || j < tb->nrows) {
		const struct cpu_row *ra = i < ta->nrows ? &ta->rows[i] : NULL;
		const struct cpu_row *rb = j < tb->nrows ? &tb->rows[j] : NULL;
		if (ra && rb && ra->apic != rb->apic) {
			if (ra->apic < rb->apic)
				rb = NULL;
			else
				ra = NULL;
		}
		uint32_t apic = ra ? ra->apic : rb->apic;
		double ma = 0, mb = 0;
		bool ha = ra && ra->n[OP_ONLINE], hb = rb && rb->n[OP_ONLINE];
		printf("%8" PRIu32 " ", apic);
		if (ha) {
			ma = (double)median_of(ra->v[OP_ONLINE], ra->n[OP_ONLINE]);
			put_duration(ma, 14);
		} else {
			printf("%14s", "-");
		}
		putchar(' ');
		if (hb) {
			mb = (double)median_of(rb->v[OP_ONLINE], rb->n[OP_ONLINE]);
			put_duration(mb, 14);
		} else {
			printf("%14s", "-");
		}
		if (ha && hb)
			printf(" %8.3f\n", ratio_of(mb, ma));
		else
			printf(" %8s\n", "-");
		i += ra != NULL;
		j += rb != NULL;
	}
	if (!ta->nrows && !tb->nrows)
		printf("  (no AP samples on either side)\n");
}

int cmd_compare(void)
{
	struct side s[2];
	int rc = load_two(s, "the comparison");
	if (rc)
		goto out;

	side_describe(&s[0], 'A');
	side_describe(&s[1], 'B');
	print_emulated_note(s, "");
	bool measurable = sides_measurable(s);
	printf("Each row: the mean per run of the run's total over all APs and "
	       "cycles; each run is one observation (Welch 95%% CI of the change, "
	       "docs/verdicts.md):\n");
	struct verdict_row rows[ROW_COUNT];
	for (int k = 0; k < ROW_COUNT; k++)
		verdict_line("", row_name[k], s[0].row_value[k], s[0].nrow_value,
			     s[1].row_value[k], s[1].nrow_value, measurable, &rows[k]);
	print_verdict(s, rows);

	printf("\nEach run's median AP start, one value per run:\n");
	for (int op = 0; op < OP_COUNT; op++) {
		struct verdict_row r;
		char name[24];
		snprintf(name, sizeof(name), "%s median", op_name[op]);
		verdict_line("  ", name, s[0].run_median[op], s[0].nrun_median[op],
			     s[1].run_median[op], s[1].nrun_median[op], measurable, &r);
	}
	print_per_cpu(s);
	print_phase_compare(s);
	for (int i = 0; i < 2; i++)
		if (side_has_rounds(&s[i])) {
			printf("\nSet %c (%s):", 'A' + i, s[i].label);
			print_rounds(&s[i]);
		}
out:
	side_free(&s[0]);
	side_free(&s[1]);
	return rc;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* P(X <= k) for X ~ Binomial(n, 1/2), in log space (n up to thousands). */
static double binom_half_cdf(size_t k, size_t n)
{
	double sum = 0, lc = 0; /* log C(n, i) */
	for (size_t i = 0; i <= k && i <= n; i++) {
		if (i)
			lc += log((double)(n - i + 1)) - log((double)i);
		sum += exp(lc - (double)n * log(2.0));
	}
	return sum;
}

/* --paired: the i-th run of A with the i-th run of B (rounds of an
 * interleaved set), their ratio B/A one observation per pair, and the
 * sign test's distribution-free 95% interval of the median ratio: the
 * k-th smallest and largest ratios, k the largest with P(X < k) <= 2.5%.
 * A host that slows a whole round slows both runs of its pair; one that
 * slows one run now and then moves one ratio of many. */
static int check_slower_paired(const struct side s[2], int op)
{
	size_t n = s[0].nrun_median[op];
	if (n != s[1].nrun_median[op]) {
		fprintf(stderr, "aplog: --paired needs as many runs on each side: A has "
			"%zu with %s samples, B has %zu\n", n, op_name[op],
			s[1].nrun_median[op]);
		return 2;
	}
	size_t k = 0;
	while (k < n && binom_half_cdf(k, n) <= 0.025)
		k++;
	if (k == 0) { /* even the extremes are not a 95% interval */
		printf("NO VERDICT op=%s: %zu pair%s of runs; the sign test needs 6 "
		       "for a 95%% interval\n", op_name[op], n, n == 1 ? "" : "s");
		return 2;
	}
	double *r = xrealloc_array(NULL, n, sizeof(*r));
	for (size_t i = 0; i < n; i++)
		r[i] = ratio_of((double)s[1].run_median[op][i],
				(double)s[0].run_median[op][i]);
	qsort(r, n, sizeof(*r), cmp_double);
	double med = n % 2 ? r[n / 2] : (r[n / 2 - 1] + r[n / 2]) / 2;
	double lo = r[k - 1], hi = r[n - k];
	int rc = lo > cli.max_ratio;
	printf("%s op=%s paired: median of %zu per-pair ratios B/A=%.3f 95%% CI "
	       "[%.3f, %.3f] (sign test) lower bound %s max-ratio %.3f (A %s, B %s)\n",
	       rc ? "REGRESSION" : "OK", op_name[op], n, med, lo, hi, rc ? ">" : "<=",
	       cli.max_ratio, s[0].label, s[1].label);
	free(r);
	return rc;
}

/* B's per-run medians against A's: a regression when the whole 95%
 * interval of the change lies above max-ratio - 1. */
int cmd_check_slower(void)
{
	struct side s[2];
	int rc = load_two(s, "the check");
	if (rc)
		goto out;
	print_flush_note(&s[0], "A: ");
	print_nmi_note(&s[0], "A: ");
	print_flush_note(&s[1], "B: ");
	print_nmi_note(&s[1], "B: ");
	print_emulated_note(s, "");
	struct verdict_row r;
	const int op = cli.op;
	if (cli.given & O_PAIRED) {
		rc = check_slower_paired(s, op);
		goto out;
	}
	verdict_compute(s[0].run_median[op], s[0].nrun_median[op],
			s[1].run_median[op], s[1].nrun_median[op], cli.min_runs,
			true, &r);
	if (!r.has_ci) {
		printf("NO VERDICT op=%s: A has %zu run%s with samples, B has %zu; "
		       "a run is one observation and a verdict needs %zu per side\n",
		       op_name[op], r.na, r.na == 1 ? "" : "s", r.nb, cli.min_runs);
		rc = 2;
		goto out;
	}
	double lo = 1 + (double)r.lo_ppm / 1e6, hi = 1 + (double)r.hi_ppm / 1e6;
	rc = lo > cli.max_ratio;
	printf("%s op=%s per-run median B/A=%.3f 95%% CI [%.3f, %.3f] lower bound "
	       "%s max-ratio %.3f (A %s: mean of %zu runs' medians %" PRIu64 " ns, "
	       "B %s: %zu runs, %" PRIu64 " ns)\n", rc ? "REGRESSION" : "OK",
	       op_name[op], 1 + (double)r.change_ppm / 1e6, lo, hi, rc ? ">" : "<=",
	       cli.max_ratio, s[0].label, r.na, r.mean_a, s[1].label, r.nb, r.mean_b);
out:
	side_free(&s[0]);
	side_free(&s[1]);
	return rc;
}

static int cmp_key(const void *a, const void *b)
{
	const struct sample *x = a, *y = b;
	if (x->cpu != y->cpu)
		return x->cpu < y->cpu ? -1 : 1;
	if (x->op != y->op)
		return x->op < y->op ? -1 : 1;
	return x->cycle < y->cycle ? -1 : x->cycle > y->cycle;
}

/* The one run of a set, its samples sorted by (cpu, op, cycle). */
static struct sample *only_run(struct side *sd, char letter, size_t *n)
{
	if (sd->set.n != 1) {
		fprintf(stderr, "aplog: set %c holds %zu runs; check --identical "
			"compares one run with one run\n", letter, sd->set.n);
		return NULL;
	}
	const struct run *r = &sd->set.runs[0];
	struct sample *s = xrealloc_array(NULL, r->ns, sizeof(*s));
	if (r->ns)
		memcpy(s, r->s, r->ns * sizeof(*s));
	qsort(s, r->ns, sizeof(*s), cmp_key);
	*n = r->ns;
	return s;
}

/* Deterministic mode (QEMU -icount): two runs of one build must give the
 * same records, figure for figure. */
int cmd_check_identical(void)
{
	struct side s[2];
	struct sample *a = NULL, *b = NULL;
	size_t na = 0, nb = 0, shown = 0, bad = 0;
	int rc = load_two(s, "the check");
	if (rc)
		goto out;
	a = only_run(&s[0], 'A', &na);
	b = only_run(&s[1], 'B', &nb);
	if (!a || !b) {
		rc = 1;
		goto out;
	}
	for (size_t i = 0, j = 0; i < na || j < nb;) {
		int c = i == na ? 1 : j == nb ? -1 : cmp_key(&a[i], &b[j]);
		const struct sample *x = c <= 0 ? &a[i] : &b[j];
		bool differ = c != 0 || a[i].text_hash != b[j].text_hash;
		if (differ && shown++ < 10) {
			printf("DIFFERENT cpu=%" PRIu32 " op=%s cycle=%" PRIu32 ": ",
			       x->cpu, op_name[x->op], x->cycle);
			if (c < 0)
				printf("only in A (line %zu)\n", x->line);
			else if (c > 0)
				printf("only in B (line %zu)\n", x->line);
			else
				printf("ns=%" PRIu64 " ticks=%" PRIu64 " (A line %zu) vs "
				       "ns=%" PRIu64 " ticks=%" PRIu64 " (B line %zu)%s\n",
				       a[i].ns, a[i].ticks, a[i].line, b[j].ns,
				       b[j].ticks, b[j].line,
				       a[i].ns == b[j].ns && a[i].ticks == b[j].ticks ?
				       ", other fields differ" : "");
		}
		bad += differ;
		i += c <= 0;
		j += c >= 0;
	}
	if (bad) {
		if (shown > 10)
			printf("... and %zu more\n", shown - 10);
		printf("FAIL: %zu of %zu samples differ between %s and %s\n", bad,
		       na > nb ? na : nb, s[0].set.runs[0].file,
		       s[1].set.runs[0].file);
		rc = 1;
	} else if (!na) {
		printf("FAIL: no samples to compare in %s and %s\n",
		       s[0].set.runs[0].file, s[1].set.runs[0].file);
		rc = 1;
	} else {
		printf("OK: %zu samples identical, record for record\n", na);
	}
out:
	free(a);
	free(b);
	side_free(&s[0]);
	side_free(&s[1]);
	return rc;
}
