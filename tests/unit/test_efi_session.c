/* SPDX-License-Identifier: MIT */
/* apstart.efi's A/B session files, read as the signed loader reads them
 * from a stick anyone may write: plan.txt (wings/efi/plan_text.c) and the
 * run files the table is made from (wings/efi/table_text.c). Every count
 * in them is checked against its bound: a crafted plan (k=100, order= of
 * 200 A's, 200 passing run files) is refused, and the table builder
 * never writes past an array whatever plan and files it is given. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "wings/efi/plan_text.h"
#include "wings/efi/records.h"
#include "wings/efi/table_text.h"

static bool parse(const char *text, struct plan *p, char *why)
{
	memset(p, 0x5a, sizeof *p); /* whatever was there before */
	p->number = 7;
	return plan_parse((const uint8_t *)text, strlen(text), p, why, PLAN_WHY_MAX);
}

/* plan.txt with runs_per_variant=k and order=order. */
static char *plan_text(const char *k, const char *order)
{
	static char buf[4096];
	snprintf(buf, sizeof buf, "# a comment\nsession=0007\nruns_per_variant=%s\norder=%s\n"
		 "seed=0x2a\ncmdline=cycles=1\ncreated=2026-01-01T00:00:00\nstate=running\n", k, order);
	return buf;
}

static void test_round_trip(void)
{
	struct plan p = { .number = 12, .k = 10, .seed = 12345 };
	strcpy(p.cmdline, "cycles=1 bringup=parallel");
	plan_make_order(&p);
	CHECK_EQ(p.runs, 20);
	size_t a = 0;
	for (size_t i = 0; i < p.runs; i += 2) {
		CHECK(p.order[i] != p.order[i + 1]);
		a += (p.order[i] == 'A') + (p.order[i + 1] == 'A');
	}
	CHECK_EQ(a, 10);
	char text[2048], why[PLAN_WHY_MAX] = "";
	int n = plan_format(&p, "2026-12-01T09:40:05", text, sizeof text);
	CHECK(n > 0);
	CHECK_EQ(plan_format(&p, "x", text, 40), (uint64_t)-1); /* does not fit */
	n = plan_format(&p, "2026-12-01T09:40:05", text, sizeof text);
	strcat(text, "run=001 variant=A wbinvd=1 started clock=1000 at=x\n"
		     "run=002 variant=B wbinvd=0 started clock=1600 at=x\n"
		     "state=stopped next=003 (a key during the countdown)\n");
	struct plan q;
	CHECK(parse(text, &q, why));
	CHECK_STREQ(why, "");
	CHECK_EQ(q.number, 7);
	CHECK_EQ(q.k, 10);
	CHECK_EQ(q.runs, 20);
	CHECK_STREQ(q.order, p.order);
	CHECK_EQ(q.seed, 12345);
	CHECK_STREQ(q.cmdline, p.cmdline);
	CHECK_EQ(q.state, PLAN_STOPPED);
	CHECK_EQ(q.started, 2);
	CHECK_EQ(q.first_start_s, 1000);
	CHECK_EQ(q.last_start_s, 1600);
	CHECK_EQ(plan_run_wbinvd(&q, 1), p.order[0] == 'A');
}

/* Refused, with a reason that contains want. */
static void refused(const char *text, const char *want)
{
	struct plan p;
	char why[PLAN_WHY_MAX] = "";
	CHECK(!parse(text, &p, why));
	if (!CHECK(strstr(why, want) != NULL))
		printf("    why: \"%s\", want \"%s\"\n", why, want);
}

static void test_crafted_plans_refused(void)
{
	char a200[PLAN_RUNS_MAX + 1];
	memset(a200, 'A', PLAN_RUNS_MAX);
	a200[PLAN_RUNS_MAX] = 0;
	/* Issue 38: the length and the letters are right, the count is not. */
	refused(plan_text("100", a200), "200 runs of A and 0 of B");
	refused(plan_text("2", "AAAB"), "3 runs of A and 1 of B");
	refused(plan_text("2", "ABA"), "order= has 3 runs");
	refused(plan_text("2", "ABAX"), "a letter other than A or B");
	refused(plan_text("0", ""), "runs_per_variant=");
	refused(plan_text("101", a200), "runs_per_variant=");
	/* 2^64 + 1: a number that wraps to 1 must not read as 1. */
	refused(plan_text("18446744073709551617", "AB"), "runs_per_variant=");
	refused(plan_text("1x", "AB"), "runs_per_variant=");
	char long_order[PLAN_RUNS_MAX + 3];
	memset(long_order, 'A', sizeof long_order - 1);
	long_order[sizeof long_order - 1] = 0;
	refused(plan_text("100", long_order), "order= has 202 runs");
	refused("session=0001\nruns_per_variant=1\norder=AB\n", "no state= line");
	refused("state=running\norder=AB\n", "runs_per_variant=");
	/* A plan whose order is not in pairs but has k of each is one
	 * apstart.efi can carry on: every count still within its bounds. */
	struct plan p;
	char why[PLAN_WHY_MAX];
	CHECK(parse(plan_text("2", "AABB"), &p, why));
}

/* A kept summary of a run that passed: offline and online totals in ns. */
static int run_file(char *buf, size_t len, uint64_t off, uint64_t on, const char *status)
{
	return snprintf(buf, len,
			"@boot cpus=4 firmware=uefi wbinvd=1\n@env brand=Test_CPU acpi_oem=TEST\n"
			"@summary op=offline cpus=3 total_ns=%llu settled_total_ns=%llu\n"
			"@summary op=online cpus=3 total_ns=%llu\n@end status=%s online=4 failed=0\n",
			(unsigned long long)off, (unsigned long long)off, (unsigned long long)on,
			status);
}

static struct table t; /* 70 KB */

static void test_table_of_a_session(void)
{
	struct plan p = { .number = 3, .k = 3, .runs = 6 };
	strcpy(p.order, "ABBAAB");
	strcpy(p.cmdline, "cycles=1");
	table_start(&t, &p);
	char f[512];
	for (size_t r = 1; r <= 6; r++) {
		bool a = p.order[r - 1] == 'A';
		int n = run_file(f, sizeof f, a ? 40000000 : 39000000, a ? 60000000 + r : 10000000 + r,
				 r == 6 ? "fail" : "pass");
		table_add_run(&t, r, (const uint8_t *)f, (size_t)n, false);
	}
	table_finish(&t);
	CHECK(t.text_len > 0 && t.text_len < TABLE_TEXT_MAX);
	CHECK(strstr(t.text, "A: 3 of 3 runs in the figures; B: 2 of 3 runs in the figures "
		      "(1 failed)\n") != NULL);
	CHECK(strstr(t.text, "run 006 B WBINVD=0 FAILED: @end status=fail") != NULL);
	CHECK(strstr(t.text, "machine: Test_CPU, cpus=4, firmware=uefi") != NULL);
	CHECK(t.rows_start < t.rows_end && t.rows_end < t.text_len);
	CHECK(strncmp(t.text + t.rows_start, "Offline", 7) == 0);
}

/* The table builder on its own, given a plan plan_parse would refuse:
 * k=100 and 200 A's, 200 passing runs. It must keep within side A's
 * arrays (UBSan's bounds check in the ASan build, the counts here). */
static void test_table_bounds_whatever_the_plan(void)
{
	static struct plan p = { .number = 1, .k = PLAN_K_MAX, .runs = PLAN_RUNS_MAX };
	memset(p.order, 'A', PLAN_RUNS_MAX);
	p.order[PLAN_RUNS_MAX] = 0;
	table_start(&t, &p);
	char f[512];
	int n = run_file(f, sizeof f, 40000000, 60000000, "pass");
	for (size_t r = 1; r <= PLAN_RUNS_MAX; r++)
		table_add_run(&t, r, (const uint8_t *)f, (size_t)n, false);
	/* Runs the plan does not have: ignored. */
	table_add_run(&t, 0, (const uint8_t *)f, (size_t)n, false);
	table_add_run(&t, PLAN_RUNS_MAX + 1, (const uint8_t *)f, (size_t)n, false);
	CHECK_EQ(t.side[0].n, PLAN_K_MAX);
	CHECK_EQ(t.side[1].n, 0);
	CHECK_EQ(t.side[1].failed + t.side[1].interrupted + t.side[1].missing, 0);
	table_finish(&t);
	CHECK(strstr(t.text, "A: 100 of 100 runs in the figures (100 more than the plan has, "
		      "not counted)") != NULL);
	/* A plan that claims more runs than any plan has. */
	p.k = 1000;
	p.runs = 2000;
	table_start(&t, &p);
	table_add_run(&t, 1500, (const uint8_t *)f, (size_t)n, false);
	table_finish(&t);
	CHECK_EQ(t.side[0].n, 0);
	CHECK(t.text_len < TABLE_TEXT_MAX);
}

static void test_record_numbers(void)
{
	const char *d = "@summary op=online cpus=3 total_ns=18446744073709551616\n"
			"@summary op=offline total_ns=1000000000000001 settled_total_ns=12\n"
			"@end status=pass\n";
	uint64_t v = 0;
	/* 2^64 does not fit: not a number (it would wrap to 0). */
	CHECK(!rec_u64((const uint8_t *)d, strlen(d), RECORD_WORD(summary),
		       RECORD_FIELD(summary, op, "online"), RECORD_KEY(summary, total_ns), &v));
	CHECK(rec_u64((const uint8_t *)d, strlen(d), RECORD_WORD(summary),
		      RECORD_FIELD(summary, op, "offline"), RECORD_KEY(summary, settled_total_ns), &v));
	CHECK_EQ(v, 12);
	char s[8];
	CHECK(rec_text((const uint8_t *)d, strlen(d), RECORD_WORD(end), NULL, RECORD_KEY(end, status),
		       s, sizeof s));
	CHECK_STREQ(s, "pass");
	/* A field asked for anywhere in the record, whole; keys whole. */
	const char *e = "@summary cpus=2 op=offline total_ns=5 settled_total_ns=6\n"
			"@summary op=offlinex total_ns=7\n@summaryx op=offline total_ns=8\n";
	CHECK(rec_u64((const uint8_t *)e, strlen(e), RECORD_WORD(summary),
		      RECORD_FIELD(summary, op, "offline"), RECORD_KEY(summary, total_ns), &v));
	CHECK_EQ(v, 5);
	/* A run whose totals are beyond any run (1e15 ns, as aplog's NS_MAX):
	 * listed as failed, never averaged in. */
	struct plan p = { .number = 1, .k = 1, .runs = 2 };
	strcpy(p.order, "AB");
	table_start(&t, &p);
	char f[512];
	int n = run_file(f, sizeof f, 1000000000000001ull, 5, "pass");
	table_add_run(&t, 1, (const uint8_t *)f, (size_t)n, false);
	CHECK_EQ(t.side[0].n, 0);
	CHECK_EQ(t.side[0].failed, 1);
}

void test_efi_session(void)
{
	RUN_CASE(test_round_trip);
	RUN_CASE(test_crafted_plans_refused);
	RUN_CASE(test_table_of_a_session);
	RUN_CASE(test_table_bounds_whatever_the_plan);
	RUN_CASE(test_record_numbers);
}
