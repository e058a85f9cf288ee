/* SPDX-License-Identifier: MIT */
/* Runs every unit test group and prints the one-line summary. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "check.h"

unsigned long check_passed, check_failed;

bool check_true(bool ok, const char *file, int line, const char *expr)
{
	if (ok) {
		check_passed++;
	} else {
		check_failed++;
		printf("FAIL %s:%d: %s\n", file, line, expr);
	}
	return ok;
}

bool check_u64(uint64_t a, uint64_t b, const char *file, int line,
	       const char *ea, const char *eb)
{
	if (a == b) {
		check_passed++;
		return true;
	}
	check_failed++;
	printf("FAIL %s:%d: %s == %s (0x%" PRIx64 " / %" PRIu64
	       " vs 0x%" PRIx64 " / %" PRIu64 ")\n",
	       file, line, ea, eb, a, a, b, b);
	return false;
}

bool check_str(const char *a, const char *b, const char *file, int line,
	       const char *ea, const char *eb)
{
	if (a && b && strcmp(a, b) == 0) {
		check_passed++;
		return true;
	}
	check_failed++;
	printf("FAIL %s:%d: %s == %s (\"%s\" vs \"%s\")\n", file, line, ea, eb,
	       a ? a : "(null)", b ? b : "(null)");
	return false;
}

int main(void)
{
	test_format();
	test_cmdline();
	test_stats();
	test_multiboot();
	test_acpi();
	test_memmap();
	printf("%lu passed, %lu failed\n", check_passed, check_failed);
	return check_failed ? 1 : 0;
}
