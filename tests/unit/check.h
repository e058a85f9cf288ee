/* SPDX-License-Identifier: MIT */
/* Tiny host test framework: every CHECK counts as one pass or one failure;
 * failures print file:line and the expression (and values where known). */
#ifndef UNIT_CHECK_H
#define UNIT_CHECK_H

#include <stdbool.h>
#include <stdint.h>

extern unsigned long check_passed, check_failed;

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

/* One entry point per test file, called from test_main.c. */
void test_format(void);
void test_cmdline(void);
void test_stats(void);
void test_multiboot(void);
void test_acpi(void);
void test_memmap(void);

#endif
