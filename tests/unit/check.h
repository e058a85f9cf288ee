/* SPDX-License-Identifier: MIT */
/* Tiny host test framework. Assertions (CHECK...) are grouped into named
 * cases; each case is one check of the test protocol, reported as
 * "ok   GROUP/NAME (N assertions)" or "FAIL GROUP/NAME: ...", after the
 * failed assertions (file:line, the expression, values where known). */
#ifndef UNIT_CHECK_H
#define UNIT_CHECK_H

#include <stdbool.h>
#include <stdint.h>

extern unsigned long check_passed, check_failed; /* assertions */

bool check_true(bool ok, const char *file, int line, const char *expr);
bool check_u64(uint64_t a, uint64_t b, const char *file, int line,
	       const char *ea, const char *eb);
bool check_str(const char *a, const char *b, const char *file, int line,
	       const char *ea, const char *eb);

#define CHECK(cond) check_true(!!(cond), __FILE__, __LINE__, #cond)
/* Integers compared as uint64_t (negative values compare by bit pattern). */
#define CHECK_EQ(a, b) \
	check_u64((uint64_t)(a), (uint64_t)(b), __FILE__, __LINE__, #a, #b)
#define CHECK_STREQ(a, b) check_str((a), (b), __FILE__, __LINE__, #a, #b)

/* Runs fn as one case named after it ("test_" dropped). */
void run_case(const char *name, void (*fn)(void));
#define RUN_CASE(fn) run_case(#fn, fn)

/* One entry point per test file, called from test_main.c; it runs its
 * cases with RUN_CASE (or is one case itself). */
void test_format(void);
void test_cmdline(void);
void test_stats(void);
void test_multiboot(void);
void test_acpi(void);
void test_memmap(void);
void test_summary_save(void);
void test_qr_records(void);
void test_firmware(void);
void test_persistent_ram(void);
void test_sha256(void);
void test_lrm(void);
void test_records_schema(void);
void test_efi_session(void);

#endif
