/* SPDX-License-Identifier: MIT */
/* verify: is one log one complete run that ended as expected? What the
 * QEMU tests assert about every boot: the @end verdict and counts, the
 * @boot settings, every AP with the expected number of samples per op,
 * no zero time, and cross-CPU figures that follow the warp test. A log
 * of records only (the QR code's, the saved summary's) is checked through
 * its @summary and @cpusum records. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/aplog/cmd/commands.h"
#include "tools/aplog/options.h"
#include "tools/aplog/read/records.h"
#include "tools/aplog/util.h"

static size_t problems;

static void problem(const char *file, size_t line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void problem(const char *file, size_t line, const char *fmt, ...)
{
	va_list ap;
	printf("verify: %s:%zu: ", file, line);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	problems++;
}

static int cmp_apic_op(const void *a, const void *b)
{
	const struct sample *x = a, *y = b;
	if (x->apic != y->apic)
		return x->apic < y->apic ? -1 : 1;
	return x->op < y->op ? -1 : x->op > y->op;
}

/* Samples per AP and op: each AP's count of each op must be cycles. */
static size_t check_per_ap(const struct run *r, long cycles)
{
	struct sample *s = xrealloc_array(NULL, r->ns, sizeof(*s));
	if (r->ns)
		memcpy(s, r->s, r->ns * sizeof(*s));
	qsort(s, r->ns, sizeof(*s), cmp_apic_op);
	size_t aps = 0;
	for (size_t i = 0; i < r->ns;) {
		uint32_t apic = s[i].apic;
		size_t n[OP_COUNT] = { 0, 0 };
		for (; i < r->ns && s[i].apic == apic; i++)
			n[s[i].op]++;
		aps++;
		if (cycles >= 0 && (n[OP_ONLINE] != (size_t)cycles ||
				    n[OP_OFFLINE] != (size_t)cycles))
			problem(r->file, r->boot_line, "apic %" PRIu32 ": %zu online / "
				"%zu offline samples, want %ld each", apic,
				n[OP_ONLINE], n[OP_OFFLINE], cycles);
	}
	free(s);
	return aps;
}

/* What is wrong with a cross-CPU figure for an AP whose @cpu says
 * tsc_sync=sync (-1: no such record), or NULL. */
static const char *cross_cpu_problem(int sync, int x)
{
	if (sync == 1 && x != X_NUM)
		return x == X_NA ? "is na for an AP with tsc_sync=1"
				 : "is missing (the AP has tsc_sync=1)";
	if (sync == 0 && x != X_NA)
		return "is not na for an AP with tsc_sync=0";
	return NULL;
}

/* Does the run's trampoline take a real-mode mark? apstart's does; Linux's
 * blob (@trampoline kind=linux) runs unchanged to its long-mode jump and
 * takes none, so its to_real_ns is na whatever the TSCs. */
static bool marks_real_mode(const struct run *r)
{
	size_t n = 0;
	const char *kind = run_tramp_field(r, RK_trampoline_kind, &n);
	return !kind || (n == 7 && memcmp(kind, "apstart", 7) == 0);
}

/* Where an AP's @cpu says tsc_sync=1, its cross-CPU figures (ap_ns and
 * to_real_ns, settled_ns) are numbers and ap_ns <= ns (the AP's own online
 * mark comes before the BSP sees it); where it says tsc_sync=0, na. A
 * trampoline without a real-mode mark: to_real_ns na always. */
static void check_cross_cpu(const struct run *r)
{
	size_t reported = 0;
	bool real_mark = marks_real_mode(r);
	for (size_t i = 0; i < r->ns; i++) {
		const struct sample *s = &r->s[i];
		int sync = run_tsc_sync(r, s->apic);
		const char *key = s->op == OP_ONLINE ? "ap_ns" : "settled_ns";
		const char *bad = cross_cpu_problem(sync, s->x);
		if (!bad && s->op == OP_ONLINE) {
			bad = real_mark ? cross_cpu_problem(sync, s->x_real)
			      : s->x_real != X_NA ? "is not na, but this trampoline takes "
						    "no real-mode mark" : NULL;
			if (bad)
				key = "to_real_ns";
			else if (s->x == X_NUM && s->xns > s->ns)
				bad = "is above ns";
		}
		if (bad && reported++ < 3)
			problem(r->file, s->line, "%s %s", key, bad);
	}
	if (reported > 3)
		problem(r->file, r->boot_line, "%zu samples in all with such "
			"cross-CPU figures", reported);
}

/* A summary-only run: both @summary agree with each other and the
 * options, every @cpusum has the cycles, no more @cpusum than APs.
 * Returns the APs @summary counts. */
static size_t check_summary_only(const struct run *r, long cycles)
{
	uint32_t aps = r->sum[OP_ONLINE].cpus;
	if (r->sum[OP_OFFLINE].cpus != aps || r->sum[OP_OFFLINE].cycles !=
	    r->sum[OP_ONLINE].cycles)
		problem(r->file, r->sum[OP_OFFLINE].line, "@summary op=offline cpus=%" PRIu32
			" cycles=%" PRIu32 " but op=online has cpus=%" PRIu32 " cycles=%" PRIu32,
			r->sum[OP_OFFLINE].cpus, r->sum[OP_OFFLINE].cycles, aps,
			r->sum[OP_ONLINE].cycles);
	if (cycles >= 0 && r->sum[OP_ONLINE].cycles != (uint32_t)cycles)
		problem(r->file, r->sum[OP_ONLINE].line, "@summary cycles=%" PRIu32
			", want %ld", r->sum[OP_ONLINE].cycles, cycles);
	if (r->ncs > aps)
		problem(r->file, r->cs[aps].line, "%zu @cpusum records for %" PRIu32
			" APs", r->ncs, aps);
	uint32_t want = cycles >= 0 ? (uint32_t)cycles : r->sum[OP_ONLINE].cycles;
	for (size_t i = 0; i < r->ncs; i++)
		if (r->cs[i].cycles != want)
			problem(r->file, r->cs[i].line, "apic %" PRIu32 ": @cpusum "
				"cycles=%" PRIu32 ", want %" PRIu32, r->cs[i].apic,
				r->cs[i].cycles, want);
	return aps;
}

static void check_boot(const struct run *r)
{
	if (r->bad_boot)
		return; /* already reported by the parser */
	if (cli.wbinvd >= 0 && r->wbinvd != (unsigned)cli.wbinvd)
		problem(r->file, r->boot_line, "@boot wbinvd=%u, want %ld",
			r->wbinvd, cli.wbinvd);
	if (cli.cpus >= 0 && r->cpus != (uint32_t)cli.cpus)
		problem(r->file, r->boot_line, "@boot cpus=%" PRIu32 ", want %ld",
			r->cpus, cli.cpus);
	if (cli.cycles >= 0 && r->cycles != (uint32_t)cli.cycles)
		problem(r->file, r->boot_line, "@boot cycles=%" PRIu32 ", want %ld",
			r->cycles, cli.cycles);
	for (size_t i = 0; i < cli.nboot_expect; i++) {
		const char *want = cli.boot_expect[i], *eq = strchr(want, '=');
		char key[64], b[256];
		snprintf(key, sizeof(key), "%.*s", (int)(eq - want), want);
		size_t len;
		/* a key of @boot's in the schema: parse_cli() made sure */
		const char *got = run_boot_field(r, record_key_find(RW_boot, key, strlen(key)),
						 &len);
		if (!got)
			problem(r->file, r->boot_line, "@boot has no %s, want %s", key,
				want);
		else if (len != strlen(eq + 1) || memcmp(got, eq + 1, len))
			problem(r->file, r->boot_line, "@boot %s=%s, want %s", key,
				show(b, sizeof(b), got, len), want);
	}
}

static void check_end(const struct run *r)
{
	const char *want = cli.status ? "fail" : "pass";
	if (r->passed != (cli.status == 0))
		problem(r->file, r->end_line, "@end status=%s, want %s",
			r->passed ? "pass" : "fail", want);
	/* A passing run has every CPU it started online and none failed. */
	long online = cli.online, failed = cli.failed;
	if (online < 0 && cli.status == 0 && cli.cpus >= 0)
		online = cli.cpus;
	if (failed < 0 && cli.status == 0)
		failed = 0;
	if (online >= 0 && r->end_online != (uint32_t)online)
		problem(r->file, r->end_line, "@end online=%" PRIu32 ", want %ld",
			r->end_online, online);
	if (failed >= 0 && r->end_failed != (uint32_t)failed)
		problem(r->file, r->end_line, "@end failed=%" PRIu32 ", want %ld",
			r->end_failed, failed);
	/* A passing run that says how many warnings it had must have none,
	 * unless the caller expects some (@warn records, kernel/warn.h).
	 * Events (NMIs, stray interrupts, SIPI retries) are warnings a run
	 * survives and reports; they are not counted against it. */
	long warnings = cli.warnings;
	if (warnings < 0 && cli.status == 0)
		warnings = 0;
	int64_t other = r->end_warnings - (int64_t)r->warn_events;
	if (warnings >= 0 && r->end_warnings >= 0 && other != warnings) {
		if (r->warn_events)
			problem(r->file, r->end_line, "@end warnings=%" PRId64 " (%zu "
				"of them events: nmi, stray_irq, sipi_retry), want %ld "
				"besides the events", r->end_warnings, r->warn_events,
				warnings);
		else
			problem(r->file, r->end_line, "@end warnings=%" PRId64
				", want %ld", r->end_warnings, warnings);
	}
	if (warnings >= 0 && cli.warnings >= 0 && r->end_warnings < 0)
		problem(r->file, r->end_line, "@end has no warnings=, want %ld",
			warnings);
	if (cli.status == 0 && r->nfail)
		problem(r->file, r->fail_line, "@fail record (%zu in all), want "
			"none", r->nfail);
}

int cmd_verify(void)
{
	if (cli.nfiles[0] != 1)
		usage_error("verify needs exactly one LOG");
	struct set set = { 0 };
	problems = 0;
	if (load_file(&set, cli.files[0][0], cli.given & O_TRUNC)) {
		set_free(&set);
		printf("FAIL: %s could not be read as an apstart log (see above)\n",
		       cli.files[0][0]);
		return 1;
	}
	const struct run *r = &set.runs[0];
	if (set.n != 1)
		problem(r->file, set.runs[1].boot_line, "%zu runs (@boot records) in "
			"this log, want one", set.n);
	check_boot(r);
	if (!r->ended)
		problem(r->file, r->boot_line, "the run has no @end");
	else
		check_end(r);
	size_t zero = 0, aps;
	for (size_t i = 0; i < r->ns; i++)
		if (r->s[i].ns == 0 && zero++ < 3)
			problem(r->file, r->s[i].line, "@sample with ns=0");
	check_cross_cpu(r);
	if (r->summary_only)
		aps = check_summary_only(r, cli.cycles);
	else
		aps = check_per_ap(r, cli.cycles);
	if (cli.status == 0 && cli.cpus >= 0 && aps != (size_t)cli.cpus - 1)
		problem(r->file, r->boot_line, "%zu APs with %s, want %ld", aps,
			r->summary_only ? "cycles (@summary cpus=)" : "samples", cli.cpus - 1);

	if (problems)
		printf("FAIL: %zu problem%s in %s\n", problems,
		       problems == 1 ? "" : "s", r->file);
	else if (r->summary_only)
		printf("OK: %s: status=%s, %" PRIu32 " CPU%s online, %zu AP%s, records "
		       "only (no samples): both @summary, %zu @cpusum\n", r->file,
		       r->passed ? "pass" : "fail", r->end_online,
		       r->end_online == 1 ? "" : "s", aps, aps == 1 ? "" : "s", r->ncs);
	else
		printf("OK: %s: status=%s, %" PRIu32 " CPU%s online, %zu AP%s, %zu "
		       "samples, none zero\n", r->file, r->passed ? "pass" : "fail",
		       r->end_online, r->end_online == 1 ? "" : "s", aps,
		       aps == 1 ? "" : "s", r->ns);
	set_free(&set);
	return problems ? 1 : 0;
}
