/* SPDX-License-Identifier: MIT */
/* aplog victims: what the timed windows did to the CPUs that kept working
 * (victims=K; wings/experiments/victims.h). @victim records grouped by what the window
 * was (offline, online, a flush and its op and at-once count): windows,
 * the victims' rate against their quiet window (median, lowest), their
 * longest stall (median, largest) and that stall as a share of its
 * window (median). --csv: one row per record; --plot: stall against
 * window length. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/stats.h"
#include "tools/aplog/cmd/commands.h"
#include "tools/aplog/options.h"
#include "tools/aplog/out/gnuplot.h"
#include "tools/aplog/read/records.h"
#include "tools/aplog/stats/flush_predict.h"
#include "tools/aplog/util.h"

struct vrec {
	char group[48];
	int op;               /* enum flush_op of a flush window, else -1 */
	uint32_t dirty_kib, at_once;
	uint32_t victim;
	uint64_t window_ns, stall_ns, chunks;
	uint32_t rate_pct;
};

struct vlog {
	struct vrec *r;
	size_t n, cap;
	char model[128];
	size_t quiet;
};

static int load(struct vlog *l, const char *path)
{
	char *buf;
	size_t len, pos = 0, n, line = 0;
	if (read_all(path, &buf, &len))
		return -1;
	struct msgs m = { .file = path, .quiet = true }; /* other lines: not ours */
	static struct record r;
	while (pos < len) {
		const char *s = next_line(buf, len, &pos, &n);
		line++;
		if (!n || s[0] != '@' || !record_parse(&m, line, s, n, &r))
			continue;
		if (r.id == RW_host) {
			rec_copy(&r, RK_host_flush_model, l->model, sizeof l->model);
			continue;
		}
		if (r.id == RW_victim_quiet) {
			l->quiet++;
			continue;
		}
		if (r.id != RW_victim)
			continue;
		struct vrec v;
		char what[16], op[16], at[12];
		uint64_t victim, rate;
		rec_copy(&r, RK_victim_what, what, sizeof what);
		rec_copy(&r, RK_victim_op, op, sizeof op);
		rec_copy(&r, RK_victim_at_once, at, sizeof at);
		if (!what[0] || !rec_num(&r, RK_victim_victim, NS_MAX, &victim) ||
		    !rec_num(&r, RK_victim_window_ns, NS_MAX, &v.window_ns) ||
		    !rec_num(&r, RK_victim_stall_ns, NS_MAX, &v.stall_ns) ||
		    !rec_num(&r, RK_victim_chunks, NS_MAX, &v.chunks) ||
		    !rec_num(&r, RK_victim_rate_pct, NS_MAX, &rate))
			continue;
		v.victim = (uint32_t)victim;
		v.rate_pct = (uint32_t)rate;
		v.op = -1;
		uint64_t kib = 0, ao = 1;
		rec_num(&r, RK_victim_dirty_kib, NS_MAX, &kib);
		rec_num(&r, RK_victim_at_once, NS_MAX, &ao);
		v.dirty_kib = (uint32_t)kib;
		v.at_once = (uint32_t)ao;
		for (int k = 0; k < FOP_COUNT; k++)
			if (!strcmp(op, flush_op_names[k]))
				v.op = k;
		if (op[0])
			snprintf(v.group, sizeof v.group, "%s %s x%s", what, op, at[0] ? at : "1");
		else
			snprintf(v.group, sizeof v.group, "%s", what);
		grow((void **)&l->r, &l->cap, l->n + 1, sizeof *l->r);
		l->r[l->n++] = v;
	}
	free(buf);
	return 0;
}

static uint64_t med(uint64_t *v, size_t n)
{
	qsort(v, n, sizeof *v, cmp_u64);
	return median_sorted_u64(v, n);
}

static int plot(const struct vlog *l, const char *png)
{
	char *dat = gnuplot_data_name(png);
	FILE *f = gnuplot_data_open(dat);
	if (!f) {
		free(dat);
		return 1;
	}
	fprintf(f, "# aplog victims plot data: window_ms stall_ms rate_pct, one block per kind of window\n");
	char groups[32][48];
	int ng = 0;
	for (size_t i = 0; i < l->n && ng < 32; i++) {
		bool seen = false;
		for (int g = 0; g < ng; g++)
			seen |= !strcmp(groups[g], l->r[i].group);
		if (seen)
			continue;
		snprintf(groups[ng], sizeof groups[0], "%s", l->r[i].group);
		fprintf(f, "%s# %s\n", ng ? "\n\n" : "", groups[ng]);
		for (size_t j = i; j < l->n; j++)
			if (!strcmp(l->r[j].group, groups[ng]))
				fprintf(f, "%.4f %.4f %u\n", l->r[j].window_ns / 1e6, l->r[j].stall_ns / 1e6,
					l->r[j].rate_pct);
		ng++;
	}
	if (gnuplot_data_close(f, dat)) {
		free(dat);
		return 1;
	}
	char *script = NULL;
	size_t slen = 0;
	FILE *s = gnuplot_script_open(&script, &slen, png);
	fprintf(s, "set xlabel 'timed window (ms)'\nset ylabel 'victim: longest stall inside it (ms)'\n");
	gnuplot_title_modelled(s, l->model);
	fprintf(s, "plot x title 'stalled the whole window' with lines dashtype 2");
	for (int g = 0; g < ng; g++) {
		fprintf(s, ", ");
		gnuplot_quote(s, dat);
		fprintf(s, " index %d using 1:2 with points title ", g);
		gnuplot_quote(s, groups[g]);
	}
	fprintf(s, "\n");
	free(dat);
	return gnuplot_script_run(s, &script, &slen, png);
}

int cmd_victims(void)
{
	bool csv = cli.given & O_CSV;
	const char *png = cli.plot, *against = cli.against;
	const char *const *logs = cli.files[0];
	size_t nlogs = cli.nfiles[0];
	if (!nlogs)
		usage_error("victims needs at least one LOG");
	struct vlog l;
	memset(&l, 0, sizeof l);
	for (size_t i = 0; i < nlogs; i++)
		if (load(&l, logs[i])) {
			free(l.r);
			return 1;
		}
	if (!l.n) {
		fprintf(stderr, "aplog: no @victim records (a run with victims=K)\n");
		free(l.r);
		return 1;
	}
	struct flush_model m;
	if (against && model_from_spec(against, &m)) {
		free(l.r);
		return 1;
	}
	int rc = 0;
	if (csv) {
		printf("window,victim,window_ns,chunks,rate_pct,stall_ns\n");
		for (size_t i = 0; i < l.n; i++)
			printf("%s,%u,%llu,%llu,%u,%llu\n", l.r[i].group, l.r[i].victim,
			       (unsigned long long)l.r[i].window_ns, (unsigned long long)l.r[i].chunks,
			       l.r[i].rate_pct, (unsigned long long)l.r[i].stall_ns);
	} else {
		if (l.model[0])
			printf("MODELLED: flush_model=%s (a disturbance under QEMU is the model's "
			       "disturb=, not a measurement)\n", l.model);
		printf("victims: %zu windows; rate = chunks done against the quiet window; stall = "
		       "the longest gap inside the window\n", l.n);
		printf("window                 n  rate_med  rate_min  stall_med_ms  stall_max_ms  "
		       "stall/window_med%s\n", against ? "  stall/model_med" : "");
		uint64_t *a = xcalloc(l.n, sizeof *a), *b = xcalloc(l.n, sizeof *b),
			 *c = xcalloc(l.n, sizeof *c), *d = xcalloc(l.n, sizeof *d);
		for (size_t i = 0; i < l.n; i++) {
			bool first = true;
			for (size_t j = 0; j < i; j++)
				first &= strcmp(l.r[j].group, l.r[i].group) != 0;
			if (!first)
				continue;
			size_t n = 0, nd = 0;
			uint64_t rmin = UINT64_MAX, smax = 0;
			for (size_t j = i; j < l.n; j++) {
				if (strcmp(l.r[j].group, l.r[i].group))
					continue;
				a[n] = l.r[j].rate_pct;
				b[n] = l.r[j].stall_ns;
				c[n] = l.r[j].window_ns ? l.r[j].stall_ns * 1000 / l.r[j].window_ns : 0;
				if (against && l.r[j].op >= 0) {
					struct flush_point p = { .op = (enum flush_op)l.r[j].op,
								 .at_once = l.r[j].at_once,
								 .dirty_kib = l.r[j].dirty_kib };
					double want = predict(&m, &p, 0);
					if (want > 0)
						d[nd++] = (uint64_t)(l.r[j].stall_ns * 1000.0 / want);
				}
				rmin = a[n] < rmin ? a[n] : rmin;
				smax = b[n] > smax ? b[n] : smax;
				n++;
			}
			printf("%-20s %4zu %8llu%% %8llu%% %13.3f %13.3f %16.1f%%", l.r[i].group, n,
			       (unsigned long long)med(a, n), (unsigned long long)rmin,
			       med(b, n) / 1e6, smax / 1e6, med(c, n) / 10.0);
			if (nd)
				printf(" %16.1f%%", med(d, nd) / 10.0);
			printf("\n");
		}
		free(a);
		free(b);
		free(c);
		free(d);
	}
	if (png && plot(&l, png))
		rc = 1;
	free(l.r);
	return rc;
}
