/* SPDX-License-Identifier: MIT */
/* wings/screen/qr_records.c on the host: which records the QR code holds and in
 * what order, from a summary captured as wings/kept/kept_lines.c keeps it.
 * report_result() and report_cpusum_line() are stand-ins defined here. */
#include <stdio.h>
#include <string.h>

#include "wings/screen/qr_records.h"
#include "app/report.h"
#include "wings/kept/kept_lines.h"
#include "check.h"
#include "helpers.h"

static struct ap_result aps[4];
static struct run_result result;
static bool have_result;

const struct run_result *report_result(void)
{
	return have_result ? &result : NULL;
}

void report_cpusum_line(char *buf, uint32_t size, const struct ap_result *a)
{
	snprintf(buf, size, "@cpusum cpu=%u online_median_ns=%llu\n", a->cpu,
		 (unsigned long long)a->online_median);
}

/* A run of 4 APs whose online medians are 300, 100, 400, 200; the
 * per-phase table (two @phases records) between the @cpusum records and
 * @summary, as report.c prints them, when with_phases. */
static void captured_run_phases(bool with_summary, bool with_phases)
{
	static const uint64_t medians[4] = { 300, 100, 400, 200 };
	kept_lines_begin();
	summary_feed_serial("cmdline: \"\"\n@boot kernel=apstart cpus=5\n@env x=1\n");
	summary_feed_serial("@warn what=late_ap apic=2\n");
	kept_lines_report();
	summary_feed_serial(" cpu apic ...\n");
	for (uint32_t i = 0; i < 4; i++) {
		aps[i] = (struct ap_result){ .cpu = i + 1, .online_median = medians[i] };
		char rec[64];
		report_cpusum_line(rec, sizeof rec, &aps[i]);
		summary_feed_serial(rec); /* as report.c prints them */
	}
	if (with_phases)
		summary_feed_serial("@phase cpu=1 apic=1 cycle=1 phase=real ns=5\n"
				    "phases: where an online goes\n"
				    "@phases phase=real n=4 mean_ns=5\n"
				    "@phases phase=seen n=4 mean_ns=6\n");
	if (with_summary)
		summary_feed_serial("@summary op=offline\n@summary op=online\n");
	summary_feed_serial("Total: 1.00 ms\n@end status=pass\n");
	result = (struct run_result){ .n = 4, .ap = aps };
	have_result = true;
}

static void captured_run(bool with_summary)
{
	captured_run_phases(with_summary, false);
}

#define OTHERS "@boot kernel=apstart cpus=5\n@env x=1\n@warn what=late_ap apic=2\n"
#define END "@summary op=offline\n@summary op=online\n@end status=pass\n"
#define CPU(n, m) "@cpusum cpu=" #n " online_median_ns=" #m "\n"

static void test_all_fit(void)
{
	char out[1024];
	unsigned in = 99;
	captured_run(true);
	size_t n = qr_records(out, sizeof out, &in);
	out[n] = '\0';
	CHECK_STREQ(out, OTHERS CPU(1, 300) CPU(2, 100) CPU(3, 400) CPU(4, 200) END);
	CHECK_EQ(in, 4);
}

/* Room for two per-CPU records: the two slowest, in CPU order. */
static void test_slowest_first(void)
{
	char out[1024];
	unsigned in = 99;
	const char *want = OTHERS CPU(1, 300) CPU(3, 400) END;
	captured_run(true);
	size_t n = qr_records(out, strlen(want) + strlen(CPU(4, 200)) - 1, &in);
	out[n] = '\0';
	CHECK_STREQ(out, want);
	CHECK_EQ(in, 2);
	/* Exactly the other records: no per-CPU one. */
	n = qr_records(out, strlen(OTHERS END), &in);
	out[n] = '\0';
	CHECK_STREQ(out, OTHERS END);
	CHECK_EQ(in, 0);
}

static void test_too_small(void)
{
	char out[1024];
	unsigned in = 99;
	captured_run(true);
	CHECK_EQ(qr_records(out, strlen(OTHERS END) - 1, &in), 0);
	CHECK_EQ(in, 0);
}

/* A run that ended before its @summary: the per-CPU records where serial
 * had them; cut from the summary as well (a summary over its cap), last. */
static void test_no_summary(void)
{
	char out[1024];
	unsigned in = 99;
	captured_run(false);
	size_t n = qr_records(out, sizeof out, &in);
	out[n] = '\0';
	CHECK_STREQ(out, OTHERS CPU(1, 300) CPU(2, 100) CPU(3, 400) CPU(4, 200)
			 "@end status=pass\n");
	kept_lines_begin();
	summary_feed_serial("@boot kernel=apstart cpus=5\n");
	kept_lines_report();
	summary_feed_serial("@end status=fail\n");
	n = qr_records(out, sizeof out, &in);
	out[n] = '\0';
	CHECK_STREQ(out, "@boot kernel=apstart cpus=5\n@end status=fail\n" CPU(1, 300)
			 CPU(2, 100) CPU(3, 400) CPU(4, 200));
	/* No report at all: only the kept records. */
	captured_run(false);
	have_result = false;
	n = qr_records(out, sizeof out, &in);
	out[n] = '\0';
	CHECK_STREQ(out, OTHERS "@end status=pass\n");
	CHECK_EQ(in, 0);
}

#define PHASES "@phases phase=real n=4 mean_ns=5\n@phases phase=seen n=4 mean_ns=6\n"

/* The per-phase table comes before the per-CPU records, whole or not at
 * all; @phase (per start) is never kept. */
static void test_phases(void)
{
	char out[1024];
	unsigned in = 99;
	captured_run_phases(true, true);
	size_t n = qr_records(out, sizeof out, &in);
	out[n] = '\0';
	CHECK_STREQ(out, OTHERS CPU(1, 300) CPU(2, 100) CPU(3, 400) CPU(4, 200) PHASES END);
	/* Room for the table and one per-CPU record: the slowest. */
	const char *want = OTHERS CPU(3, 400) PHASES END;
	n = qr_records(out, strlen(want) + strlen(CPU(1, 300)) - 1, &in);
	out[n] = '\0';
	CHECK_STREQ(out, want);
	CHECK_EQ(in, 1);
	/* One byte short of the table: none of it, a per-CPU record instead. */
	want = OTHERS CPU(3, 400) END;
	n = qr_records(out, strlen(OTHERS END PHASES) - 1, &in);
	out[n] = '\0';
	CHECK_STREQ(out, want);
	CHECK_EQ(in, 1);
}

void test_qr_records(void)
{
	RUN_CASE(test_all_fit);
	RUN_CASE(test_slowest_first);
	RUN_CASE(test_too_small);
	RUN_CASE(test_no_summary);
	RUN_CASE(test_phases);
}
