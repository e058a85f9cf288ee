/* SPDX-License-Identifier: MIT */
/* Host unit test of the flushmodel free=/only= address ranges (where.h):
 * every accepted form, every refusal, which addresses are charged, and
 * that the other arguments are left for the cost model in their order.
 * Last line: "N passed, M failed". Built with ASan/UBSan. */
#include <stdio.h>
#include <string.h>

#include "where.h"
#include "test_check.h"

/* Split "a,b,c" into argv as QEMU passes it; returns argc. */
static int split(char *buf, char **argv)
{
	int argc = 0;
	for (char *p = buf; *p && argc < 16;) {
		argv[argc++] = p;
		char *c = strchr(p, ',');
		if (!c)
			break;
		*c = '\0';
		p = c + 1;
	}
	return argc;
}

static int take(struct flush_where *w, const char *args, int *argc, char **argv,
		char *err)
{
	static char buf[512];
	snprintf(buf, sizeof(buf), "%s", args);
	*argc = split(buf, argv);
	return where_take(w, argc, argv, err, 200);
}

static void refuses(const char *args, const char *why)
{
	struct flush_where w;
	char *argv[16], err[200] = "", what[300];
	int argc;
	int r = take(&w, args, &argc, argv, err);
	snprintf(what, sizeof(what), "refuses '%s' saying '%s' (said '%s')", args, why, err);
	check(r == -1 && strstr(err, why) != NULL, what);
}

int main(void)
{
	struct flush_where w;
	char *argv[16], err[200], d[256];
	int argc;

	/* Nothing given: every flush charged, arguments untouched. */
	check(take(&w, "us=5,serialize=off", &argc, argv, err) == 0, "no ranges parses");
	check(!w.set && argc == 2 && !strcmp(argv[0], "us=5") && !strcmp(argv[1], "serialize=off"),
	      "no ranges: both arguments left, in order");
	check(where_charged(&w, 0x9a000) && where_charged(&w, 0xffffffff81000000ull),
	      "no ranges: every address charged");
	where_describe(&w, d, sizeof(d));
	check(d[0] == '\0', "no ranges: no description");

	/* free=low1m: the real-mode trampoline free, kernel text charged. */
	check(take(&w, "preset=xeon6985p,free=low1m,seed=3", &argc, argv, err) == 0, "free=low1m parses");
	check(w.set && !w.only && w.n == 1 && w.r[0].lo == 0 && w.r[0].hi == 0xfffff, "low1m is 0x0-0xfffff");
	check(argc == 2 && !strcmp(argv[0], "preset=xeon6985p") && !strcmp(argv[1], "seed=3"),
	      "free= taken out, the rest left in order");
	check(!where_charged(&w, 0) && !where_charged(&w, 0x9a000) && !where_charged(&w, 0xfffff),
	      "free=low1m: 0, 0x9a000, 0xfffff free");
	check(where_charged(&w, 0x100000) && where_charged(&w, 0xffffffff81000000ull),
	      "free=low1m: 1 MiB and kernel text charged");
	where_describe(&w, d, sizeof(d));
	check(strstr(d, "free at 0x0-0xfffff") != NULL, "free=low1m described");

	/* only=: the inverse; several ranges. */
	check(take(&w, "only=0x1000-0x1fff+0xffffffff81000000-0xffffffff81ffffff,us=1", &argc, argv, err) == 0,
	      "only= with two ranges parses");
	check(w.only && w.n == 2 && argc == 1, "only=: two ranges, one argument left");
	check(where_charged(&w, 0x1000) && where_charged(&w, 0x1fff) && !where_charged(&w, 0x2000) &&
	      !where_charged(&w, 0xfff) && where_charged(&w, 0xffffffff81234567ull) &&
	      !where_charged(&w, 0xffffffff82000000ull), "only=: inside charged, outside free, bounds inclusive");
	where_describe(&w, d, sizeof(d));
	check(strstr(d, "charged only at 0x1000-0x1fff+0xffffffff81000000-0xffffffff81ffffff") != NULL,
	      "only= described");
	check(take(&w, "free=0X9A000-0X9AFFF,us=1", &argc, argv, err) == 0 && w.r[0].lo == 0x9a000 &&
	      w.r[0].hi == 0x9afff, "upper-case hex");

	refuses("free=low1m,only=low1m", "give one free= or one only=");
	refuses("free=low1m,free=low1m", "give one free= or one only=");
	refuses("free=", "no range given");
	refuses("free=1000-2000", "is not low1m or 0xSTART-0xEND");
	refuses("free=0x2000-0x1000", "ends before it starts");
	refuses("free=0x1000", "is not low1m or 0xSTART-0xEND");
	refuses("free=0x1000-0x2000+", "ends with '+'");
	refuses("free=0x1000-0xg000", "is not low1m or 0xSTART-0xEND");
	refuses("free=0x11112222333344445-0x2", "is not low1m or 0xSTART-0xEND");
	refuses("only=low1m+low1m+low1m+low1m+low1m+low1m+low1m+low1m+low1m", "more than 8 ranges");
	refuses("free=low2m", "is not low1m or 0xSTART-0xEND");

	return check_summary();
}
