/* SPDX-License-Identifier: MIT */
/* plot: each CPU's distribution (a box: quartiles, median, min and max),
 * the CPUs as categories labelled by APIC ID, one panel per op with the
 * sets side by side on one y scale; and where the logs have @phase
 * records, one panel per set of stacked bars, a bar per CPU made of its
 * median per phase, every set on the same y scale (serial vs parallel
 * rounds, WBINVD=1 vs 0). Colour-blind-safe colours, the legend outside
 * the data. The data file is always written, the PNG when gnuplot can be
 * started. */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "tools/aplog/cmd/commands.h"
#include "tools/aplog/options.h"
#include "tools/aplog/out/gnuplot.h"
#include "tools/aplog/stats/phases.h"
#include "tools/aplog/stats/sets.h"
#include "tools/aplog/util.h"

/* A growing string, for the gnuplot script. */
struct sbuf {
	char *s;
	size_t len, cap;
};

static void sb_printf(struct sbuf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void sb_printf(struct sbuf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		oom();
	grow((void **)&b->s, &b->cap, b->len + (size_t)n + 1, 1);
	va_start(ap, fmt);
	vsnprintf(b->s + b->len, b->cap - b->len, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

/* gnuplot single-quoted string: nothing is special inside except the
 * quote itself, written twice. Callers reject newlines beforehand. */
static void sb_gpquote(struct sbuf *b, const char *s)
{
	sb_printf(b, "'");
	for (; *s; s++)
		sb_printf(b, *s == '\'' ? "''" : "%c", *s);
	sb_printf(b, "'");
}

/* The CPUs on the x axis: every APIC ID of either set, in order, each a
 * category at x = 1, 2, ... (never APIC IDs as numbers: they have gaps). */
struct axis {
	uint32_t *apic;
	size_t n;
};

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

static void axis_build(struct axis *ax, const struct side *s, int nsides)
{
	size_t cap = 0;
	for (int i = 0; i < nsides; i++)
		cap += s[i].t.nrows;
	ax->apic = xrealloc_array(NULL, cap ? cap : 1, sizeof(*ax->apic));
	ax->n = 0;
	for (int i = 0; i < nsides; i++)
		for (size_t k = 0; k < s[i].t.nrows; k++)
			ax->apic[ax->n++] = s[i].t.rows[k].apic;
	qsort(ax->apic, ax->n, sizeof(*ax->apic), cmp_u32);
	size_t u = 0;
	for (size_t k = 0; k < ax->n; k++)
		if (!u || ax->apic[u - 1] != ax->apic[k])
			ax->apic[u++] = ax->apic[k];
	ax->n = u;
}

static size_t axis_x(const struct axis *ax, uint32_t apic)
{
	for (size_t k = 0; k < ax->n; k++)
		if (ax->apic[k] == apic)
			return k + 1;
	return 0;
}

/* The five figures of a box: min, first quartile, median, third quartile,
 * max (nearest rank), in microseconds. */
static void five(const uint64_t *v, size_t n, double out[5])
{
	uint64_t *c = xrealloc_array(NULL, n, sizeof(*c));
	memcpy(c, v, n * sizeof(*c));
	qsort(c, n, sizeof(*c), cmp_u64);
	out[0] = (double)c[0] / 1000;
	out[1] = (double)c[(n - 1) / 4] / 1000;
	out[2] = (double)median_of(v, n) / 1000;
	out[3] = (double)c[(3 * (n - 1) + 3) / 4] / 1000;
	out[4] = (double)c[n - 1] / 1000;
	free(c);
}

/* Sum of a CPU's phase medians (its stacked bar), in microseconds. */
static double phase_stack(const struct side *sd, uint32_t apic, double *col)
{
	struct phase_pool p;
	double sum = 0;
	phase_pool_build(sd, (long)apic, &p);
	for (int ph = 0; ph < PHASE_CHAIN; ph++) {
		double v = p.n[ph] ? (double)median_of(p.v[ph], p.n[ph]) / 1000 : 0;
		if (col)
			col[ph] = v;
		sum += v;
	}
	phase_pool_free(&p);
	return sum;
}

static int write_data(const char *dat, const struct side *s, int nsides,
		      const struct axis *ax)
{
	FILE *f = gnuplot_data_open(dat);
	if (!f)
		return 1;
	fprintf(f, "# aplog plot data, microseconds. One block per set; a row per\n"
		   "# CPU: x (its place on the axis), APIC ID, then the min, first\n"
		   "# quartile, median, third quartile and max of its samples,\n"
		   "# online then offline ('?' = no samples)\n");
	for (int i = 0; i < nsides; i++) {
		char b[128];
		fprintf(f, "%s# set %c: %s\n# x apic on_min on_q1 on_median on_q3 on_max "
			"off_min off_q1 off_median off_q3 off_max\n", i ? "\n\n" : "",
			'A' + i, show(b, sizeof(b), s[i].label, strlen(s[i].label)));
		for (size_t k = 0; k < s[i].t.nrows; k++) {
			const struct cpu_row *r = &s[i].t.rows[k];
			fprintf(f, "%zu %" PRIu32, axis_x(ax, r->apic), r->apic);
			for (int op = 0; op < OP_COUNT; op++) {
				double q[5];
				if (!r->n[op]) {
					fprintf(f, " ? ? ? ? ?");
					continue;
				}
				five(r->v[op], r->n[op], q);
				fprintf(f, " %.3f %.3f %.3f %.3f %.3f", q[0], q[1], q[2], q[3], q[4]);
			}
			fputc('\n', f);
		}
		if (!s[i].t.nrows) /* keep the block: gnuplot needs a point */
			fprintf(f, "? ? ? ? ? ? ? ? ? ? ? ?\n");
	}
	/* Blocks nsides.. : per set with phases, median per phase per CPU. */
	for (int i = 0; i < nsides; i++) {
		if (!side_has_phases(&s[i]))
			continue;
		fprintf(f, "\n\n# set %c phases: x apic", 'A' + i);
		for (int k = 0; k < PHASE_CHAIN; k++)
			fprintf(f, " %s_us", phase_names[k]);
		fputc('\n', f);
		for (size_t k = 0; k < s[i].t.nrows; k++) {
			double col[PHASE_CHAIN];
			uint32_t apic = s[i].t.rows[k].apic;
			phase_stack(&s[i], apic, col);
			fprintf(f, "%zu %" PRIu32, axis_x(ax, apic), apic);
			for (int ph = 0; ph < PHASE_CHAIN; ph++)
				fprintf(f, " %.3f", col[ph]);
			fputc('\n', f);
		}
	}
	if (gnuplot_data_close(f, dat))
		return 1;
	for (int i = 0; i < nsides; i++) {
		print_flush_note(&s[i], i ? "B: " : "A: ");
		print_nmi_note(&s[i], i ? "B: " : "A: ");
	}
	return 0;
}

/* The x axis: the CPUs as categories, labelled by APIC ID (with many,
 * every step-th). */
static void sb_xtics(struct sbuf *sc, const struct axis *ax)
{
	size_t step = ax->n > 32 ? (ax->n + 31) / 32 : 1;
	sb_printf(sc, "set xrange [0.4:%zu.6]\nset xtics (", ax->n);
	for (size_t k = 0; k < ax->n; k += step)
		sb_printf(sc, "%s'%" PRIu32 "' %zu", k ? ", " : "", ax->apic[k], k + 1);
	sb_printf(sc, ")%s\n", ax->n > 32 ? " rotate by -90 font ',8'" : "");
}

/* Colour-blind safe: the sets in Okabe and Ito's blue and orange, the
 * phases in Paul Tol's muted scheme plus pale grey and black (no two
 * alike, whatever the colour vision). */
static const char *const set_colour[2] = { "#0072b2", "#e69f00" };
static const char *const phase_colour[PHASE_CHAIN] = { "#332288", "#88ccee",
	"#44aa99", "#117733", "#999933", "#ddcc77", "#cc6677", "#882255",
	"#aa4499", "#dddddd", "#000000" };

/* gnuplot rejects a plot without points: draw only what has data. */
static void script(struct sbuf *sc, const char *dat, const struct side *s,
		   int nsides, bool has[2][OP_COUNT], int panels,
		   const struct axis *ax)
{
	int height = 400 * (panels > 2 ? panels : 2);
	sb_printf(sc, "if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) "
		      "{ set terminal pngcairo size 1200,%d } "
		      "else { set terminal png size 1200,%d }\n", height, height);
	sb_printf(sc, ""
		      "set termoption noenhanced\nset output ");
	sb_gpquote(sc, cli.out);
	/* The legend outside, right of the panels: never over a box. */
	sb_printf(sc, "\nset datafile missing '?'\nset grid ytics\n"
		      "set key outside right top box samplen 1 font ',9'\n"
		      "set xlabel 'CPU (APIC ID)%s'\nset yrange [0:*]\n"
		      "set lmargin at screen 0.10\nset rmargin at screen 0.74\n"
		      "set multiplot layout %d,1\n",
		  s[0].modelled || (nsides > 1 && s[1].modelled) ?
		  "  -  MODELLED flush cost (QEMU plugin), not hardware" : "", panels);
	sb_xtics(sc, ax);
	/* Two sets: A left of each CPU's place, B right of it. */
	double off[2] = { nsides > 1 ? -0.18 : 0, 0.18 };
	sb_printf(sc, "set boxwidth %s\nset style fill solid 0.35 border\n",
		  nsides > 1 ? "0.3" : "0.5");
	for (int op = 0; op < OP_COUNT; op++) {
		if (!has[0][op] && !has[1][op])
			continue;
		sb_printf(sc, "set ylabel '%s time (us)'\n", op_name[op]);
		sb_printf(sc, "set title 'AP %s per CPU: box = quartiles, line = median, "
			  "whiskers = min and max'\nplot ", op_name[op]);
		int c = 3 + 5 * op; /* min, q1, median, q3, max */
		for (int i = 0, first = 1; i < nsides; i++) {
			if (!has[i][op])
				continue;
			sb_printf(sc, "%s", first ? "" : ", ");
			first = 0;
			sb_gpquote(sc, dat);
			sb_printf(sc, " index %d using ($1%+.2f):%d:%d:%d:%d with candlesticks "
				  "whiskerbars 0.5 lc rgb '%s' lw 1.5 title ", i, off[i],
				  c + 1, c, c + 4, c + 3, set_colour[i]);
			sb_gpquote(sc, s[i].label);
			sb_printf(sc, ", ");
			sb_gpquote(sc, dat);
			sb_printf(sc, " index %d using ($1%+.2f):%d:%d:%d:%d with candlesticks "
				  "lc rgb '%s' lw 3 notitle", i, off[i], c + 2, c + 2,
				  c + 2, c + 2, set_colour[i]);
		}
		sb_printf(sc, "\n");
	}
	/* Stacked bars, one panel per set with phases (data blocks after
	 * the sets' own, in set order), all on one y scale so that the
	 * sets compare at a glance. */
	double ymax = 0;
	for (int i = 0; i < nsides; i++)
		if (side_has_phases(&s[i]))
			for (size_t k = 0; k < s[i].t.nrows; k++) {
				double v = phase_stack(&s[i], s[i].t.rows[k].apic, NULL);
				ymax = v > ymax ? v : ymax;
			}
	int block = nsides;
	for (int i = 0; i < nsides; i++) {
		if (!side_has_phases(&s[i]))
			continue;
		sb_printf(sc, "set style data histograms\nset style histogram rowstacked\n"
			      "set style fill solid 0.9 border -1\nset boxwidth 0.8\n"
			      "set xrange [*:*]\nset yrange [0:%.3f]\nset xtics auto\n"
			      "set ylabel 'median per phase (us)'\nset title ",
			  ymax > 0 ? ymax * 1.05 : 1);
		char title[200];
		snprintf(title, sizeof(title), "%s: where an online goes "
			 "(median per phase; one y scale for every set)", s[i].label);
		sb_gpquote(sc, title);
		sb_printf(sc, "\nplot ");
		for (int ph = 0; ph < PHASE_CHAIN; ph++) {
			sb_printf(sc, "%s", ph ? ", " : "");
			sb_gpquote(sc, dat);
			/* Beyond 32 CPUs a label on every 10th bar only. */
			const char *xtic = ph ? "" : s[i].t.nrows > 32
				? ":xtic(int($0) % 10 == 0 ? stringcolumn(2) : '')" : ":xtic(2)";
			sb_printf(sc, " index %d using %d%s lc rgb '%s' title ", block,
				  3 + ph, xtic, phase_colour[ph]);
			sb_gpquote(sc, phase_names[ph]);
		}
		sb_printf(sc, "\n");
		block++;
	}
	sb_printf(sc, "unset multiplot\nset output\n");
}

int cmd_plot(void)
{
	if (!cli.out)
		usage_error("plot needs --out FILE.png");
	if (!cli.nfiles[0] || (cli.sep && !cli.nfiles[1]))
		usage_error("plot needs A.log... [-- B.log...]");
	if (has_newline(cli.out))
		usage_error("--out: no newlines please");

	int nsides = cli.sep ? 2 : 1, rc = 0;
	struct side s[2];
	memset(s, 0, sizeof(s));
	for (int i = 0; i < nsides; i++)
		if (side_load(&s[i], cli.files[i], cli.nfiles[i],
			      i ? "set B" : "set A", "the plot"))
			rc = 1;
	char *dat = NULL, *gp = NULL;
	struct sbuf sc = { 0 };
	struct axis ax = { NULL, 0 };
	if (rc)
		goto out;
	if (nsides == 2)
		side_labels(s);
	else
		side_label_one(&s[0]);

	dat = gnuplot_file_name(cli.out, ".dat");
	gp = gnuplot_file_name(cli.out, ".gp");
	for (int i = 0; i < nsides; i++)
		for (size_t k = 0; k < cli.nfiles[i]; k++)
			if (!strcmp(cli.files[i][k], dat) || !strcmp(cli.files[i][k], gp) ||
			    !strcmp(cli.files[i][k], cli.out)) {
				fprintf(stderr, "aplog: %s is an input log; pick another "
					"--out\n", cli.files[i][k]);
				rc = 1;
				goto out;
			}
	axis_build(&ax, s, nsides);
	rc = write_data(dat, s, nsides, &ax);
	if (rc)
		goto out;

	bool has[2][OP_COUNT] = { { false } };
	int panels = 0;
	for (int op = 0; op < OP_COUNT; op++) {
		for (int i = 0; i < nsides; i++)
			for (size_t k = 0; k < s[i].t.nrows; k++)
				has[i][op] |= s[i].t.rows[k].n[op] > 0;
		panels += has[0][op] || has[1][op];
	}
	for (int i = 0; i < nsides; i++)
		panels += side_has_phases(&s[i]);
	if (!panels) {
		printf("no AP samples: nothing to plot\n");
		goto out;
	}
	script(&sc, dat, s, nsides, has, panels, &ax);
	rc = gnuplot_script_save(gp, sc.s, sc.len);
	if (rc)
		goto out;
	int st = gnuplot_run(sc.s, sc.len);
	struct stat pst;
	if (st == 127) {
		printf("gnuplot is not on PATH: no plot written (the data file is "
		       "above)\n");
	} else if (st != 0 || stat(cli.out, &pst) != 0 || pst.st_size == 0) {
		fprintf(stderr, "aplog: gnuplot failed (status %d); no plot in %s\n",
			st, cli.out);
		rc = 1;
	} else {
		printf("plot: %s\n", cli.out);
	}
out:
	free(sc.s);
	free(dat);
	free(gp);
	free(ax.apic);
	for (int i = 0; i < 2; i++)
		side_free(&s[i]);
	return rc;
}
