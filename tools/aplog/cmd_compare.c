/* SPDX-License-Identifier: MIT */
/* Two sets of logs, A and B: compare (totals, median ratio with a
 * bootstrap CI, per-CPU medians), check --slower-than (the ratio's CI
 * against a bound), check --identical (two runs sample for sample). */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "options.h"
#include "output.h"
#include "sets.h"
#include "util.h"

static void print_boot(const char *name, const struct boot *b)
{
	printf("  %-8s ", name);
	if (!b->ok) {
		printf("n/a (A has %zu samples, B has %zu)\n", b->na, b->nb);
		return;
	}
	printf("%.3f [%.3f, %.3f]  %-6s", b->ratio, b->lo, b->hi, verdict(b));
	printf("  median ");
	put_us(b->med_a, 0);
	printf(" us (n=%zu) -> ", b->na);
	put_us(b->med_b, 0);
	printf(" us (n=%zu)\n", b->nb);
}

static void print_change(const char *name, const struct side s[2], double a,
			 double b)
{
	char lab[16];
	snprintf(lab, sizeof(lab), "%s:", name);
	printf("%-9s", lab);
	if (s[0].complete)
		printf("%6.2f s", a / 1e9);
	else
		printf("%6s  ", "n/a");
	if (s[1].complete)
		printf(" -> %.2f s", b / 1e9);
	else
		printf(" -> n/a");
	if (s[0].complete && s[1].complete && a > 0) {
		double pct = (b - a) / a * 100.0;
		if (fabs(pct) >= 0.05)
			printf(" (%+.1f%%)", pct);
	}
	/* Under an emulator the totals are far below 0.01 s: milliseconds
	 * too, as the kernel prints them. */
	if (s[0].complete && s[1].complete && (a < 10e9 || b < 10e9))
		printf("  [%.3f ms -> %.3f ms]", a / 1e6, b / 1e6);
	putchar('\n');
}

static void side_describe(const struct side *s, char letter)
{
	printf("%c: %s: %zu run%s", letter, s->label, s->usable,
	       s->usable == 1 ? "" : "s");
	if (s->complete != s->usable)
		printf(" (%zu complete)", s->complete);
	printf(", %zu APs, %zu online + %zu offline samples (offline: %s)\n",
	       s->t.nrows, s->t.npool[OP_ONLINE], s->t.npool[OP_OFFLINE],
	       s->offline_figure);
	print_flush_note(s, "   ");
	print_nmi_note(s, "   ");
}

/* Online medians side by side, rows matched by APIC ID. */
static void print_per_cpu(const struct side s[2])
{
	printf("\nPer-CPU online median (us), by APIC ID%s:\n",
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
			put_us(ma, 14);
		} else {
			printf("%14s", "-");
		}
		putchar(' ');
		if (hb) {
			mb = (double)median_of(rb->v[OP_ONLINE], rb->n[OP_ONLINE]);
			put_us(mb, 14);
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
	printf("Mean per-run totals (sum over all APs and cycles):\n");
	double a[OP_COUNT], b[OP_COUNT];
	for (int op = 0; op < OP_COUNT; op++) {
		a[op] = s[0].mean_total[op];
		b[op] = s[1].mean_total[op];
	}
	print_change("Offline", s, a[OP_OFFLINE], b[OP_OFFLINE]);
	print_change("Online", s, a[OP_ONLINE], b[OP_ONLINE]);
	print_change("Total", s, a[OP_ONLINE] + a[OP_OFFLINE],
		     b[OP_ONLINE] + b[OP_OFFLINE]);

	printf("\nMedian ratio B/A over all samples, 95%% bootstrap CI (%u "
	       "resamples, seed %" PRIu64 "):\n", cli.resamples, cli.seed);
	for (int op = 0; op < OP_COUNT; op++) {
		struct boot bt;
		bootstrap(s[0].t.pool[op], s[0].t.npool[op], s[1].t.pool[op],
			  s[1].t.npool[op], cli.resamples, cli.seed, &bt);
		char name[16];
		snprintf(name, sizeof(name), "%s:", op_name[op]);
		print_boot(name, &bt);
	}
	print_per_cpu(s);
out:
	side_free(&s[0]);
	side_free(&s[1]);
	return rc;
}

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
	struct boot bt;
	bootstrap(s[0].t.pool[cli.op], s[0].t.npool[cli.op], s[1].t.pool[cli.op],
		  s[1].t.npool[cli.op], cli.resamples, cli.seed, &bt);
	if (!bt.ok) {
		printf("FAIL op=%s: cannot check, A has %zu samples and B has %zu\n",
		       op_name[cli.op], bt.na, bt.nb);
		rc = 1;
		goto out;
	}
	rc = bt.lo > cli.max_ratio;
	printf("%s op=%s median B/A=%.3f 95%% CI [%.3f, %.3f] lower bound %s "
	       "max-ratio %.3f (A %s median_ns=%.0f n=%zu, B %s median_ns=%.0f "
	       "n=%zu)\n", rc ? "REGRESSION" : "OK", op_name[cli.op], bt.ratio,
	       bt.lo, bt.hi, rc ? ">" : "<=", cli.max_ratio, s[0].label, bt.med_a,
	       bt.na, s[1].label, bt.med_b, bt.nb);
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
