/* SPDX-License-Identifier: MIT */
/* stats: per-run totals, per-CPU order statistics, mean totals.
 * medians: each run's median time for one op, and the lowest of them. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "lib/format.h"
#include "tools/aplog/cmd/commands.h"
#include "tools/aplog/options.h"
#include "tools/aplog/out/phase_tables.h"
#include "tools/aplog/out/text.h"
#include "tools/aplog/stats/sets.h"
#include "tools/aplog/util.h"

static void put_cell_group(const uint64_t *v, size_t n)
{
	struct stats d;
	if (!n) {
		printf(" %4s %11s %11s %11s %11s %11s", "0", "-", "-", "-", "-", "-");
		return;
	}
	describe(v, n, &d);
	printf(" %4zu", n);
	put_us_stats(&d, 11);
	putchar(' ');
	put_us((double)d.p95, 11);
}

static void print_runs(const struct side *sd)
{
	printf("run wbinvd   cpus cycles samples     online ms    offline ms"
	       "      total ms  status   source\n");
	for (size_t i = 0; i < sd->set.n; i++) {
		const struct run *r = &sd->set.runs[i];
		double tot[OP_COUNT];
		run_totals(r, tot);
		enum use u = run_use(r);
		printf("%3zu %6u %6" PRIu32 " %6" PRIu32 " %7zu", i + 1, r->wbinvd,
		       r->cpus, r->cycles, r->ns);
		if (u == USE_SAMPLES)
			printf(" %13s %13s %13s", "-", "-", "-");
		else
			printf(" %13.3f %13.3f %13.3f", tot[OP_ONLINE] / 1e6,
			       tot[OP_OFFLINE] / 1e6,
			       (tot[OP_ONLINE] + tot[OP_OFFLINE]) / 1e6);
		printf("  %-8s %s:%zu\n",
		       u == USE_FULL ? "pass" : u == USE_NONE ? "FAIL" : "truncated",
		       r->file, r->boot_line);
	}
	for (size_t i = 0; i < sd->set.n; i++) {
		const struct run *r = &sd->set.runs[i];
		if (run_use(r) == USE_NONE)
			printf("run %zu failed: %s (%s:%zu)\n", i + 1,
			       r->nfail ? r->fail_text : "@end status=fail, no @fail record",
			       r->file, r->nfail ? r->fail_line : r->end_line);
	}
	if (!sd->usable) {
		printf("\nNo statistics: every run failed (online=%" PRIu32 " failed=%"
		       PRIu32 " in the last one).\n", sd->set.runs[sd->set.n - 1].end_online,
		       sd->set.runs[sd->set.n - 1].end_failed);
		return;
	}
	if (sd->usable != sd->set.n)
		printf("(FAIL runs are left out of everything below; truncated runs "
		       "give samples but no totals)\n");
	print_flush_note(sd, "");
	print_nmi_note(sd, "");
	printf("Offline figures: %s (settled_ns: request -> the AP flushed and is "
	       "about to halt; ns: -> it reported dead)\n", sd->offline_figure);
}

static void print_cpus(const struct side *sd)
{
	if (sd->t.nrows == 0) {
		printf("No AP samples: %s\n",
		       sd->cpus == 1 ? "only the BSP was present (cpus=1)"
				     : "the runs recorded no @sample lines");
		return;
	}
	printf("Per CPU, microseconds (n = samples, p95 = nearest-rank 95th "
	       "percentile):\n");
	if (sd->t.from_cpusum)
		printf("(records only, e.g. a scanned QR code: each of those APs' values "
		       "is a run's @cpusum median, n counts runs)\n");
	printf("%11s |%-66s|%s\n", "", " online", " offline");
	printf(" cpu   apic |");
	for (int op = 0; op < OP_COUNT; op++)
		printf(" %4s %11s %11s %11s %11s %11s%s", "n", "mean", "median",
		       "min", "max", "p95", op == OP_ONLINE ? " |" : "\n");
	for (size_t i = 0; i < sd->t.nrows; i++) {
		const struct cpu_row *row = &sd->t.rows[i];
		if (row->cpu < 0)
			printf("%4s", "-");
		else
			printf("%4ld", row->cpu);
		printf(" %6" PRIu32 " |", row->apic);
		put_cell_group(row->v[OP_ONLINE], row->n[OP_ONLINE]);
		printf(" |");
		put_cell_group(row->v[OP_OFFLINE], row->n[OP_OFFLINE]);
		putchar('\n');
	}
	printf("%11s |", "all");
	put_cell_group(sd->t.pool[OP_ONLINE], sd->t.npool[OP_ONLINE]);
	printf(" |");
	put_cell_group(sd->t.pool[OP_OFFLINE], sd->t.npool[OP_OFFLINE]);
	putchar('\n');
}

int cmd_stats(void)
{
	if (!cli.nfiles[0])
		usage_error("stats needs at least one LOG");
	struct side sd;
	if (side_load(&sd, cli.files[0], cli.nfiles[0], "logs", "statistics")) {
		/* Every run failed: that is the result, shown as such. */
		if (!sd.load_errors && sd.set.n)
			print_runs(&sd);
		side_free(&sd);
		return 1;
	}
	print_runs(&sd);
	putchar('\n');
	print_cpus(&sd);
	print_phases(&sd);
	print_rounds(&sd);
	putchar('\n');
	if (!sd.complete) {
		printf("Totals: n/a (no complete run)\n");
	} else {
		if (sd.complete > 1)
			printf("Mean of %zu runs:\n", sd.complete);
		/* In the unit that fits, as the kernel prints them: QEMU's
		 * totals are far below the 0.01 s that "%.2f s" can show. */
		uint64_t on = (uint64_t)(sd.mean_total[OP_ONLINE] + 0.5);
		uint64_t off = (uint64_t)(sd.mean_total[OP_OFFLINE] + 0.5);
		char b_on[32], b_off[32], b_all[32];
		fmt_duration(b_on, sizeof b_on, on);
		fmt_duration(b_off, sizeof b_off, off);
		fmt_duration(b_all, sizeof b_all, on + off);
		printf("Online: %s\nOffline: %s\nTotal: %s\n", b_on, b_off, b_all);
	}
	side_free(&sd);
	return 0;
}

/* The figure of the wall-clock A/B (tests/timing/run.sh): host noise only
 * ever adds time, so the least disturbed run is the one with the lowest
 * median. */
int cmd_medians(void)
{
	if (!cli.nfiles[0])
		usage_error("medians needs at least one LOG");
	struct side sd;
	if (side_load(&sd, cli.files[0], cli.nfiles[0], "logs", "the medians")) {
		side_free(&sd);
		return 1;
	}
	bool have = false;
	uint64_t lowest = 0;
	for (size_t i = 0; i < sd.set.n; i++) {
		const struct run *r = &sd.set.runs[i];
		if (run_use(r) == USE_NONE)
			continue;
		uint64_t *v = xrealloc_array(NULL, r->ns, sizeof(*v));
		size_t n = 0;
		for (size_t j = 0; j < r->ns; j++)
			if (r->s[j].op == cli.op && sample_counted(&r->s[j]))
				v[n++] = sample_figure(r, &r->s[j]);
		printf("%s:%zu: %s", r->file, r->boot_line, op_name[cli.op]);
		if (n) {
			uint64_t m = median_of(v, n);
			printf(" median_ns=%" PRIu64 " n=%zu\n", m, n);
			if (!have || m < lowest)
				lowest = m;
			have = true;
		} else {
			printf(" no samples\n");
		}
		free(v);
	}
	side_free(&sd);
	if (!have) {
		fprintf(stderr, "aplog: no %s samples in any run\n", op_name[cli.op]);
		return 1;
	}
	printf("lowest: %" PRIu64 "\n", lowest);
	return 0;
}
