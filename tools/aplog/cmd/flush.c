/* SPDX-License-Identifier: MIT */
/* aplog flush: the probe's curve (table, --csv, --plot), against a flush
 * model (--against SPEC: the plugin's own arguments, parsed and costed by
 * the plugin's own code, tools/flushmodel/model.c) or another log's curve
 * (--against log:FILE). aplog fit: the model's parameters from a probe
 * run, written as a preset file for FLUSH=file:PATH.
 *
 * The figure of a point is its best (lowest) window: what disturbs a
 * flush window (a host preempting a vCPU thread, an SMI, an interrupt)
 * only ever adds time. The median is shown next to it. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/aplog/cmd/commands.h"
#include "tools/aplog/options.h"
#include "tools/aplog/out/gnuplot.h"
#include "tools/aplog/out/text.h"
#include "tools/aplog/read/flush_log.h"
#include "tools/aplog/stats/flush_predict.h"
#include "tools/aplog/util.h"
#include "tools/flushmodel/model.h"

struct flush_args {
	const char *const *logs;
	size_t nlogs;
	const char *against, *csv_out, *plot, *out;
	bool csv, smi_counted;
	bool ops[FOP_COUNT];    /* --ops: the points shown and compared */
	double tolerance_pct;
};

/* The command line (options.c has read it): flush and fit. */
static void args_from_cli(const char *cmd, struct flush_args *a)
{
	memset(a, 0, sizeof *a);
	a->logs = cli.files[0];
	a->nlogs = cli.nfiles[0];
	a->csv = cli.given & O_CSV;
	a->smi_counted = cli.given & O_SMICOUNTED;
	a->plot = cli.plot;
	a->against = cli.against;
	a->out = cli.out;
	a->tolerance_pct = cli.given & O_TOL ? cli.tolerance : 10;
	if (!(a->tolerance_pct > 0))
		usage_error("--tolerance %g: a percentage above 0", cli.tolerance);
	for (int k = 0; k < FOP_COUNT; k++)
		a->ops[k] = !cli.ops;
	if (cli.ops) {
		char list[128];
		snprintf(list, sizeof list, "%s", cli.ops);
		char *save = NULL;
		for (char *t = strtok_r(list, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
			int k = FOP_COUNT;
			for (int j = 0; j < FOP_COUNT; j++)
				if (!strcmp(t, flush_op_names[j]))
					k = j;
			if (k == FOP_COUNT)
				usage_error("--ops %s: expected a list of wbinvd, wbnoinvd, "
					    "clflushopt, clwb", cli.ops);
			a->ops[k] = true;
		}
	}
	if (!a->nlogs)
		usage_error("%s needs at least one LOG", cmd);
}

static int load(struct flush_log *l, const char *const *logs, size_t n, bool smi_counted)
{
	memset(l, 0, sizeof *l);
	for (size_t i = 0; i < n; i++)
		if (flush_log_load(l, logs[i]))
			return 1;
	if (!l->n) {
		fprintf(stderr, "aplog: no @flush records in %s%s (a probe=flush run)\n", logs[0],
			n > 1 ? " and the others" : "");
		return 1;
	}
	if (l->bad_lines)
		fprintf(stderr, "aplog: %zu malformed @flush lines ignored\n", l->bad_lines);
	flush_log_points(l, smi_counted);
	return 0;
}

/* ------------------------------------------------------------ flush */

static void ms(double ns, int width)
{
	printf(" %*.3f", width, ns / 1e6);
}

static int write_plot(const struct flush_log *l, const char *png)
{
	char *dat = gnuplot_data_name(png);
	FILE *f = gnuplot_data_open(dat);
	if (!f) {
		free(dat);
		return 1;
	}
	fprintf(f, "# aplog flush plot data: one block per op and at-once count\n"
		   "# dirty_mib (per CPU) best_ms median_ms\n");
	char titles[64][48];
	int blocks = 0;
	for (size_t i = 0; i < l->npt && blocks < 64;) {
		const struct flush_point *p = &l->pt[i];
		snprintf(titles[blocks], sizeof titles[0], "%s, %u at once", flush_op_names[p->op],
			 p->at_once);
		fprintf(f, "%s# %s\n", blocks ? "\n\n" : "", titles[blocks]);
		size_t j = i;
		for (; j < l->npt && l->pt[j].op == p->op && l->pt[j].at_once == p->at_once; j++)
			if (l->pt[j].n)
				fprintf(f, "%.4f %.4f %.4f\n", l->pt[j].dirty_kib / 1024.0,
					l->pt[j].best / 1e6, l->pt[j].median / 1e6);
		blocks++;
		i = j;
	}
	if (gnuplot_data_close(f, dat)) {
		free(dat);
		return 1;
	}
	char *script = NULL;
	size_t slen = 0;
	FILE *s = gnuplot_script_open(&script, &slen, png);
	fprintf(s, "set xlabel 'dirty data per CPU before the flush (MiB)'\n"
		   "set ylabel 'flush time, best window (ms)'\nset yrange [0:*]\n");
	gnuplot_title_modelled(s, l->model);
	fprintf(s, "plot ");
	for (int b = 0; b < blocks; b++) {
		fprintf(s, "%s", b ? ", " : "");
		gnuplot_quote(s, dat);
		fprintf(s, " index %d using 1:2 with linespoints title ", b);
		gnuplot_quote(s, titles[b]);
	}
	fprintf(s, "\n");
	free(dat);
	return gnuplot_script_run(s, &script, &slen, png);
}

int cmd_flush(void)
{
	struct flush_args a;
	args_from_cli("flush", &a);
	struct flush_log l, ref;
	if (load(&l, a.logs, a.nlogs, a.smi_counted))
		return 1;
	struct flush_model m;
	bool vs_model = false, vs_log = false;
	memset(&ref, 0, sizeof ref);
	if (a.against && !strncmp(a.against, "log:", 4)) {
		const char *path = a.against + 4;
		if (load(&ref, &path, 1, a.smi_counted)) {
			flush_log_free(&l);
			return 1;
		}
		vs_log = true;
	} else if (a.against) {
		if (model_from_spec(a.against, &m)) {
			flush_log_free(&l);
			return 1;
		}
		vs_model = true;
	}
	bool vs = vs_model || vs_log;
	if (a.csv) {
		printf("op,at_once,dirty_kib,n,smi_left_out,best_ns,median_ns,max_ns%s\n",
		       vs ? ",against_ns,err_pct" : "");
	} else {
		if (l.model[0])
			printf("MODELLED: flush_model=%s (the plugin's cost, not a measurement)\n",
			       l.model);
		printf("flush curve: %zu windows in %u run%s; best = the lowest window of a point"
		       "%s\n", l.n, l.runs, l.runs == 1 ? "" : "s",
		       vs_model ? "; against the model" : vs_log ? "; against the other log" : "");
		printf("op          at_once  dirty_kib    n   best_ms median_ms    max_ms%s\n",
		       vs ? "   vs_ms     err" : "");
	}
	double worst = 0;
	size_t compared = 0, outside = 0;
	const struct flush_point *wp = NULL;
	for (size_t i = 0; i < l.npt; i++) {
		const struct flush_point *p = &l.pt[i];
		if (!a.ops[p->op])
			continue;
		if (!p->n) {
			if (!a.csv && p->skewed_left_out)
				printf("%-10s %8u %10u    0  (all %zu rounds left out: not started at once)\n",
				       flush_op_names[p->op], p->at_once, p->dirty_kib, p->skewed_left_out);
			continue;
		}
		double want = -1;
		if (vs_model)
			want = predict(&m, p, l.socket_cpus);
		else if (vs_log) {
			const struct flush_point *q = flush_log_find(&ref, p->op, p->at_once,
								     p->dirty_kib);
			want = q ? (double)q->best : -1;
		}
		double err = want > 0 ? ((double)p->best - want) / want * 100 : 0;
		if (want > 0) {
			compared++;
			outside += fabs(err) > a.tolerance_pct;
			if (fabs(err) >= fabs(worst)) {
				worst = err;
				wp = p;
			}
		}
		if (a.csv) {
			printf("%s,%u,%u,%zu,%zu,%llu,%llu,%llu", flush_op_names[p->op], p->at_once,
			       p->dirty_kib, p->n, p->smi_left_out, (unsigned long long)p->best,
			       (unsigned long long)p->median, (unsigned long long)p->max);
			if (vs && want > 0)
				printf(",%.0f,%.2f", want, err);
			else if (vs)
				printf(",,");
			printf("\n");
			continue;
		}
		printf("%-10s %8u %10u %4zu", flush_op_names[p->op], p->at_once, p->dirty_kib, p->n);
		ms((double)p->best, 9);
		ms((double)p->median, 9);
		ms((double)p->max, 9);
		if (want > 0) {
			ms(want, 7);
			printf(" %+6.1f%%%s", err, fabs(err) > a.tolerance_pct ? " OUTSIDE" : "");
		}
		if (p->smi_left_out)
			printf("  (%zu left out: SMI)", p->smi_left_out);
		if (p->skewed_left_out)
			printf("  (%zu rounds left out: not started at once)", p->skewed_left_out);
		printf("\n");
	}
	int rc = 0;
	if (vs && !a.csv) {
		if (!compared) {
			printf("nothing to compare\n");
			rc = 1;
		} else {
			printf("%zu points compared: largest error %+.1f%% (%s, %u at once, %u KiB); "
			       "%zu outside +-%g%%\n", compared, worst, flush_op_names[wp->op],
			       wp->at_once, wp->dirty_kib, outside, a.tolerance_pct);
		}
	}
	if (vs && (outside || !compared))
		rc = 1;
	if (a.plot && write_plot(&l, a.plot))
		rc = 1;
	flush_log_free(&l);
	flush_log_free(&ref);
	return rc;
}

/* ------------------------------------------------------------ fit */

struct fitted {
	double a, b, llc;   /* ns, ns per byte, bytes */
	double err2, worst; /* sum of squared relative errors, largest |rel| */
};

/* y = a + b x by least squares with weights 1/y^2 (relative errors). */
static bool line_fit(const double *x, const double *y, size_t n, double *a, double *b)
{
	double sw = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
	for (size_t i = 0; i < n; i++) {
		double w = 1 / (y[i] * y[i]);
		sw += w;
		sx += w * x[i];
		sy += w * y[i];
		sxx += w * x[i] * x[i];
		sxy += w * x[i] * y[i];
	}
	double det = sw * sxx - sx * sx;
	if (n < 2 || fabs(det) < 1e-300) {
		*a = sy / sw;
		*b = 0;
		return n >= 1;
	}
	*b = (sw * sxy - sx * sy) / det;
	*a = (sy - *b * sx) / sw;
	return true;
}

static void score(struct fitted *f, const double *x, const double *y, size_t n)
{
	f->err2 = f->worst = 0;
	for (size_t i = 0; i < n; i++) {
		double m = f->a + f->b * (x[i] < f->llc ? x[i] : f->llc);
		double e = (m - y[i]) / y[i];
		f->err2 += e * e;
		if (fabs(e) > f->worst)
			f->worst = fabs(e);
	}
}

/* A line up to the knee, flat after it: every split of the points into
 * a rising part and a flat part, the best of them. */
static struct fitted fit_curve(const double *x, const double *y, size_t n, double llc_hint)
{
	struct fitted best = { 0, 0, 0, INFINITY, INFINITY };
	for (size_t s = 2; s <= n; s++) {
		struct fitted f;
		if (!line_fit(x, y, s, &f.a, &f.b))
			continue;
		if (f.b < 0)
			f.b = 0;
		if (s < n && f.b > 0) {
			double sw = 0, sy = 0;
			for (size_t i = s; i < n; i++) {
				sw += 1 / (y[i] * y[i]);
				sy += y[i] / (y[i] * y[i]);
			}
			double c = sy / sw;
			f.llc = (c - f.a) / f.b;
			if (f.llc < x[s - 1])
				f.llc = x[s - 1];
			if (f.llc > x[s])
				f.llc = x[s];
		} else {
			/* No flat part seen: the knee is beyond the points. */
			f.llc = llc_hint > x[n - 1] ? llc_hint : x[n - 1];
		}
		if (f.llc <= 0)
			continue;
		score(&f, x, y, n);
		if (f.err2 < best.err2)
			best = f;
	}
	return best;
}

int cmd_fit(void)
{
	struct flush_args a;
	args_from_cli("fit", &a);
	int rc;
	struct flush_log l;
	if (load(&l, a.logs, a.nlogs, a.smi_counted))
		return 1;
	double x[64], y[64];
	size_t n = 0;
	for (size_t i = 0; i < l.npt && n < 64; i++) {
		const struct flush_point *p = &l.pt[i];
		if (p->op == FOP_WBINVD && p->at_once == 1 && p->n && p->best) {
			x[n] = p->dirty_kib * 1024.0;
			y[n++] = (double)p->best;
		}
	}
	if (n < 3) {
		fprintf(stderr, "aplog: fit: %zu WBINVD points with windows (1 at once); need 3\n", n);
		flush_log_free(&l);
		return 1;
	}
	struct fitted f = fit_curve(x, y, n, l.llc_kib * 1024.0);
	/* The model's terms: a clean flush walks the LLC, the dirty part is
	 * written back; 1 byte per ns = 1 GB/s. */
	double llc_mb = f.llc / 1048576.0;
	double walk = f.a > 0 ? f.llc / f.a : 1e5;
	double wb = f.b > 0 ? 1 / f.b : 1e5;
	if (walk > 1e5)
		walk = 1e5;
	if (wb > 1e5)
		wb = 1e5;

	struct flush_model m;
	memset(&m, 0, sizeof m);
	m.llc_mb = llc_mb;
	m.walk_gbs = walk;
	m.wb_gbs = wb;
	m.dirty = 1;
	m.dirty_track = true;
	m.serialize = true;
	/* Serialised or not: whichever the at-once rounds are closer to. */
	const char *ser = "on", *ser_why = "no at-once rounds with dirty data: the plugin's default";
	char why[160];
	for (size_t i = 0; i < l.npt; i++) {
		const struct flush_point *p = &l.pt[i];
		if (p->op != FOP_WBINVD || p->at_once < 2 || !p->dirty_kib || !p->n ||
		    (l.socket_cpus && p->at_once > l.socket_cpus))
			continue;
		m.serialize = true;
		double on = predict(&m, p, l.socket_cpus);
		m.serialize = false;
		double off = predict(&m, p, l.socket_cpus);
		double eon = fabs((double)p->best - on) / on, eoff = fabs((double)p->best - off) / off;
		ser = eon <= eoff ? "on" : "off";
		snprintf(why, sizeof why, "%u at once took %.3f ms: serialised %.3f ms, "
			 "concurrent %.3f ms", p->at_once, p->best / 1e6, on / 1e6, off / 1e6);
		ser_why = why;
	}
	m.serialize = !strcmp(ser, "on");

	printf("%sfit of WBINVD = LLC/walk + min(dirty, LLC)/write-back to %zu points "
	       "(best windows):\n", l.model[0] ? "MODELLED log: " : "", n);
	printf("  llc_mb=%.4g walk_gbs=%.4g wb_gbs=%.4g serialize=%s (%s)\n", llc_mb, walk, wb,
	       ser, ser_why);
	printf("  dirty_kib   measured_ms   fitted_ms    err\n");
	for (size_t i = 0; i < n; i++) {
		double fm = f.a + f.b * (x[i] < f.llc ? x[i] : f.llc);
		printf("  %9.0f %13.3f %11.3f %+6.1f%%\n", x[i] / 1024, y[i] / 1e6, fm / 1e6,
		       (fm - y[i]) / y[i] * 100);
	}
	printf("  largest error of the fit: %.1f%%\n", f.worst * 100);
	rc = 0;
	if (a.out) {
		FILE *o = fopen(a.out, "w");
		if (!o) {
			fprintf(stderr, "aplog: fit: %s: %s\n", a.out, strerror(errno));
			flush_log_free(&l);
			return 1;
		}
		fprintf(o, "# flushmodel preset fitted by aplog fit from %s%s (%zu WBINVD points)\n",
			a.logs[0], a.nlogs > 1 ? " and others" : "", n);
		fprintf(o, "# machine: %s%s\n", l.brand[0] ? l.brand : "unknown",
			l.model[0] ? " (a MODELLED run: flush_model=" : "");
		if (l.model[0])
			fprintf(o, "#   %s)\n", l.model);
		fprintf(o, "# WBINVD = LLC/walk + min(dirty, LLC)/write-back; largest error %.1f%%\n"
			   "# serialize: %s\n", f.worst * 100, ser_why);
		fprintf(o, "llc_mb=%.6g\nwalk_gbs=%.6g\nwb_gbs=%.6g\ndirty=track\nserialize=%s\n",
			llc_mb, walk, wb, ser);
		if (l.cpus > l.socket_cpus && l.socket_cpus)
			fprintf(o, "per_socket=%u\n", l.socket_cpus);
		if (fclose(o)) {
			fprintf(stderr, "aplog: fit: %s: write error\n", a.out);
			rc = 1;
		} else {
			printf("preset: %s (make run FLUSH=file:%s)\n", a.out, a.out);
		}
	}
	flush_log_free(&l);
	return rc;
}
