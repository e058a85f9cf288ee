/* SPDX-License-Identifier: MIT */
/* lib/format.c against hand-written expectations and, for the
 * conversions both support identically, against the host's snprintf. */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "lib/format.h"

/* Same format and arguments through both; output and return must match. */
#define SAME_AS_LIBC(...)                                                 \
	do {                                                              \
		char got_[128], want_[128];                               \
		int gr_ = fmt_snprintf(got_, sizeof(got_), __VA_ARGS__);  \
		int wr_ = snprintf(want_, sizeof(want_), __VA_ARGS__);    \
		CHECK_STREQ(got_, want_);                                 \
		CHECK_EQ(gr_, wr_);                                       \
	} while (0)

static void test_against_libc(void)
{
	SAME_AS_LIBC("%d", 0);
	SAME_AS_LIBC("%d", 42);
	SAME_AS_LIBC("%d", -42);
	SAME_AS_LIBC("%d", INT_MAX);
	SAME_AS_LIBC("%d", INT_MIN);
	SAME_AS_LIBC("%i", -7);
	SAME_AS_LIBC("%u", 4000000000u);
	SAME_AS_LIBC("%x", 0xdeadbeefu);
	SAME_AS_LIBC("%X", 0xdeadbeefu);
	SAME_AS_LIBC("%x", (unsigned)-1);
	SAME_AS_LIBC("%lld", LLONG_MIN);
	SAME_AS_LIBC("%lld", LLONG_MAX);
	SAME_AS_LIBC("%llu", ULLONG_MAX);
	SAME_AS_LIBC("%llx", 0x123456789abcdef0ull);
	SAME_AS_LIBC("%ld", -1234567890123L);
	SAME_AS_LIBC("%lu", 1234567890123UL);
	SAME_AS_LIBC("%zu", (size_t)987654321);
	SAME_AS_LIBC("%zx", (size_t)0xabcdef);
	SAME_AS_LIBC("[%5d]", 42);
	SAME_AS_LIBC("[%-5d]", 42);
	SAME_AS_LIBC("[%05d]", 42);
	SAME_AS_LIBC("[%05d]", -42);
	SAME_AS_LIBC("[%5d]", -42);
	SAME_AS_LIBC("[%-5d]", -42);
	SAME_AS_LIBC("[%2d]", 12345);  /* width smaller than the number */
	SAME_AS_LIBC("[%08x]", 0xbeefu);
	SAME_AS_LIBC("[%-8X]", 0xbeefu);
	SAME_AS_LIBC("[%016llx]", 0xfee00000ull);
	SAME_AS_LIBC("[%s]", "hello");
	SAME_AS_LIBC("[%8s]", "abc");
	SAME_AS_LIBC("[%-8s]", "abc");
	SAME_AS_LIBC("[%.2s]", "abcdef");
	SAME_AS_LIBC("[%6.2s]", "abcdef");
	SAME_AS_LIBC("[%.10s]", "abc");
	SAME_AS_LIBC("[%s]", "");
	SAME_AS_LIBC("[%c]", 'x');
	SAME_AS_LIBC("[%3c]", 'x');
	SAME_AS_LIBC("[%-3c]", 'x');
	SAME_AS_LIBC("100%%");
	SAME_AS_LIBC("%s=%u (%d) %x%c", "cycles", 10u, -1, 255u, '!');
	SAME_AS_LIBC("no conversions at all");
}

static void test_pointer(void)
{
	char buf[64];

	/* '-' overrides '0' (C11 7.21.6.1p6); a literal would draw a
	 * -Wformat warning, hence the variable. */
	const char *left_zero = "[%-05d]";
	CHECK_EQ(fmt_snprintf(buf, sizeof(buf), left_zero, -42), 7);
	CHECK_STREQ(buf, "[-42  ]");

	/* glibc prints "(nil)" for NULL; the kernel's %p is always hex. */
	CHECK_EQ(fmt_snprintf(buf, sizeof(buf), "%p", (void *)0xb8000), 7);
	CHECK_STREQ(buf, "0xb8000");
	fmt_snprintf(buf, sizeof(buf), "%p", (void *)0);
	CHECK_STREQ(buf, "0x0");
	fmt_snprintf(buf, sizeof(buf), "%p", (void *)0xffffffff80000000ull);
	CHECK_STREQ(buf, "0xffffffff80000000");
}

static void test_truncation(void)
{
	char buf[16];

	memset(buf, 'Z', sizeof(buf));
	CHECK_EQ(fmt_snprintf(buf, 5, "hello world"), 11);
	CHECK_STREQ(buf, "hell");
	CHECK_EQ(buf[5], 'Z'); /* nothing written past size */

	memset(buf, 'Z', sizeof(buf));
	CHECK_EQ(fmt_snprintf(buf, 1, "abc"), 3);
	CHECK_EQ(buf[0], '\0');
	CHECK_EQ(buf[1], 'Z');

	memset(buf, 'Z', sizeof(buf));
	CHECK_EQ(fmt_snprintf(buf, 0, "abc%d", 12345), 8);
	CHECK_EQ(buf[0], 'Z'); /* size 0: buffer untouched */
	CHECK_EQ(fmt_snprintf(NULL, 0, "%s", "length only"), 11);

	/* Truncation inside a number and inside padding. */
	memset(buf, 'Z', sizeof(buf));
	CHECK_EQ(fmt_snprintf(buf, 4, "%d", -123456), 7);
	CHECK_STREQ(buf, "-12");
	CHECK_EQ(fmt_snprintf(buf, 6, "[%8d]", 7), 10);
	CHECK_STREQ(buf, "[    ");

	/* Exactly fitting output. */
	CHECK_EQ(fmt_snprintf(buf, 4, "abc"), 3);
	CHECK_STREQ(buf, "abc");
}

#define DURATION(ns, want)                                                \
	do {                                                              \
		char d_[32];                                              \
		fmt_duration(d_, sizeof(d_), (ns));                       \
		CHECK_STREQ(d_, want);                                    \
	} while (0)

/* The unit fits the size; every boundary rounds into the larger unit. */
static void test_escape(void)
{
	char b[32];

	fmt_escape(b, sizeof b, "cycles=2 park=hlt");
	CHECK_STREQ(b, "cycles=2 park=hlt");
	fmt_escape(b, sizeof b, "a\x1b[2J\tb\x7f\xc3\xa9");
	CHECK_STREQ(b, "a\\x1b[2J\\x09b\\x7f\\xc3\\xa9");
	fmt_escape(b, sizeof b, "say \"hi\" \\o/");
	CHECK_STREQ(b, "say \\\"hi\\\" \\\\o/");
	/* Cut at a whole character: "ab" and not half of "\x01". */
	fmt_escape(b, 6, "ab\x01" "cd");
	CHECK_STREQ(b, "ab");
	fmt_escape(b, 7, "ab\x01" "cd");
	CHECK_STREQ(b, "ab\\x01");
	fmt_escape(b, 1, "abc");
	CHECK_STREQ(b, "");
}

static void test_duration(void)
{
	DURATION(0, "0 ns");
	DURATION(999, "999 ns");
	DURATION(1000, "1.0 us");
	DURATION(1049, "1.0 us");
	DURATION(1050, "1.1 us");
	DURATION(171349, "171.3 us");
	DURATION(999949, "999.9 us");
	DURATION(999950, "1.00 ms");
	DURATION(984000, "984.0 us"); /* the "0.00 s (0.984 ms)" */
	DURATION(1958000, "1.96 ms");
	DURATION(999994999, "999.99 ms");
	DURATION(999995000, "1.00 s");
	DURATION(65830000000ull, "65.83 s");
	DURATION(106234999999ull, "106.23 s");
	DURATION(18446744073709551615ull, "18446744073.71 s");
}

void test_format(void)
{
	RUN_CASE(test_duration);
	RUN_CASE(test_escape);
	RUN_CASE(test_against_libc);
	RUN_CASE(test_pointer);
	RUN_CASE(test_truncation);
}
