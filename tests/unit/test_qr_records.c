/* SPDX-License-Identifier: MIT */
/* app/qr_records.c on the host: which records the QR code holds and in
 * what order, from a summary captured as app/summary_save.c keeps it.
 * report_result() and report_cpusum_line() are stand-ins defined here. */
#include <stdio.h>
#include <string.h>

#include "app/qr_records.h"
#include "app/report.h"
#include "app/summary_save.h"
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

/* A run of 4 APs whose online medians are 300, 100, 400, 200. */
static void captured_run(bool with_summary)
{
	static const uint64_t medians[4] = { 300, 100, 400, 200 };
	summary_capture_begin(false, false);
	summary_feed_serial("cmdline: \"\"\n@boot kernel=apstart cpus=5\n@env x=1\n");
	summary_feed_serial("@warn what=late_ap apic=2\n");
	summary_capture_report();
	summary_feed_serial(" cpu apic ...\n");
	for (uint32_t i = 0; i < 4; i++) {
		aps[i] = (struct ap_result){ .cpu = i + 1, .online_median = medians[i] };
		char rec[64];
		report_cpusum_line(rec, sizeof rec, &aps[i]);
		summary_feed_serial(rec); /* as report.c prints them */
	}
	if (with_summary)
		summary_feed_serial("@summary op=offline\n@summary op=online\n");
	summary_feed_serial("Total: 1.00 ms\n@end status=pass\n");
	result = (struct run_result){ .n = 4, .ap = aps };
	have_result = true;
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

/* A run that ended before its @summary: the per-CPU records go last. */
static void test_no_summary(void)
{
	char out[1024];
	unsigned in = 99;
	captured_run(false);
	size_t n = qr_records(out, sizeof out, &in);
	out[n] = '\0';
	CHECK_STREQ(out, OTHERS "@end status=pass\n" CPU(1, 300) CPU(2, 100) CPU(3, 400)
			 CPU(4, 200));
	/* No report at all: only the kept records. */
	have_result = false;
	n = qr_records(out, sizeof out, &in);
	out[n] = '\0';
	CHECK_STREQ(out, OTHERS "@end status=pass\n");
	CHECK_EQ(in, 0);
}

void test_qr_records(void)
{
	RUN_CASE(test_all_fit);
	RUN_CASE(test_slowest_first);
	RUN_CASE(test_too_small);
	RUN_CASE(test_no_summary);
}
