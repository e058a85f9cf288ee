/* SPDX-License-Identifier: MIT */
/* The one check of the flushmodel host tests, and their last line, "N
 * passed, M failed", which tests/flushmodel/run.sh and
 * tests/flushprobe/run.sh read. Included by each test program once. */
#ifndef FLUSHMODEL_TEST_CHECK_H
#define FLUSHMODEL_TEST_CHECK_H

#include <stdio.h>

static int passed, failed;

static void check(int cond, const char *what)
{
	if (cond) {
		passed++;
	} else {
		failed++;
		printf("FAIL %s\n", what);
	}
}

/* The last line; the program's exit status. */
static int check_summary(void)
{
	printf("%d passed, %d failed\n", passed, failed);
	return failed != 0;
}

#endif
