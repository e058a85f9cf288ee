/* SPDX-License-Identifier: MIT */
/* Runs every unit test group, one protocol line per case, and prints the
 * summary "N passed, M failed, K skipped" (cases, not assertions). */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "check.h"

unsigned long check_passed, check_failed;

static const char *group_name;
static unsigned cases_passed, cases_failed, cases_in_group;
static unsigned long case_passed0, case_failed0; /* counters at case start */

static void case_begin(void)
{
	case_passed0 = check_passed;
	case_failed0 = check_failed;
}

static void case_end(const char *name)
{
	unsigned long ok = check_passed - case_passed0;
	unsigned long bad = check_failed - case_failed0;
	if (ok + bad == 0) {
		cases_failed++;
		printf("FAIL %s: no assertion ran\n", name);
	} else if (bad) {
		cases_failed++;
		printf("FAIL %s: %lu of %lu assertions failed (above)\n", name, bad,
		       ok + bad);
	} else {
		cases_passed++;
		printf("ok   %s (%lu assertion%s)\n", name, ok, ok == 1 ? "" : "s");
	}
}

void run_case(const char *name, void (*fn)(void))
{
	char full[128];
	if (!strncmp(name, "test_", 5))
		name += 5;
	snprintf(full, sizeof full, "%s/%s", group_name, name);
	case_begin();
	fn();
	case_end(full);
	cases_in_group++;
	case_begin(); /* assertions outside any case count apart */
}

/* A group whose function runs no cases is one case itself. */
static void run_group(const char *name, void (*fn)(void))
{
	group_name = name;
	cases_in_group = 0;
	case_begin();
	fn();
	if (!cases_in_group) {
		case_end(name);
	} else if (check_passed != case_passed0 || check_failed != case_failed0) {
		char full[128];
		snprintf(full, sizeof full, "%s (outside its cases)", name);
		case_end(full);
	}
}

bool check_true(bool ok, const char *file, int line, const char *expr)
{
	if (ok) {
		check_passed++;
	} else {
		check_failed++;
		printf("    %s:%d: %s\n", file, line, expr);
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
	printf("    %s:%d: %s == %s (0x%" PRIx64 " / %" PRIu64
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
	printf("    %s:%d: %s == %s (\"%s\" vs \"%s\")\n", file, line, ea, eb,
	       a ? a : "(null)", b ? b : "(null)");
	return false;
}

int main(void)
{
	run_group("format", test_format);
	run_group("cmdline", test_cmdline);
	run_group("stats", test_stats);
	run_group("multiboot", test_multiboot);
	run_group("acpi", test_acpi);
	run_group("memmap", test_memmap);
	run_group("summary_save", test_summary_save);
	run_group("qr_records", test_qr_records);
	run_group("firmware", test_firmware);
	run_group("persistent_ram", test_persistent_ram);
	run_group("sha256", test_sha256);
	run_group("lrm", test_lrm);
	run_group("records_schema", test_records_schema);
	run_group("efi_session", test_efi_session);
	printf("%u passed, %u failed, 0 skipped\n", cases_passed, cases_failed);
	return cases_failed ? 1 : 0;
}
