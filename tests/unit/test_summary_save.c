/* SPDX-License-Identifier: MIT */
/* app/summary_save.c on the host: what is kept from the console, how it
 * is cut to the cap, and what reaches SetVariable. The console and the
 * runtime services are stand-ins defined here. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/summary_save.h"
#include "check.h"
#include "kernel/console.h"
#include "kernel/efi_runtime.h"
#include "kernel/efi_vendor.h"

static void (*sink)(unsigned targets, const char *text);
static char said[512];              /* the last kprintf */
static bool rt_usable;
static uint64_t rt_max_var;         /* 0: QueryVariableInfo unsupported */
static efi_status set_result;
static int set_calls;
static uint32_t set_attrs;
static uint8_t set_data[APSTART_RESULTS_MAX + 1];
static uint64_t set_size;
static uint16_t set_name[32];
static struct efi_guid set_guid;

void console_set_sink(void (*fn)(unsigned targets, const char *text))
{
	sink = fn;
}

void kprintf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(said, sizeof said, fmt, ap);
	va_end(ap);
}

bool efi_runtime_usable(void)
{
	return rt_usable;
}

efi_status efi_query_variable_info(uint32_t attrs, uint64_t *max_storage,
				   uint64_t *remaining, uint64_t *max_variable)
{
	(void)attrs;
	if (!rt_max_var)
		return EFI_ERROR_BIT | 3;
	*max_storage = *remaining = 1 << 20;
	*max_variable = rt_max_var;
	return EFI_SUCCESS;
}

efi_status efi_set_variable(const uint16_t *name, const struct efi_guid *vendor,
			    uint32_t attrs, uint64_t size, const void *data)
{
	set_calls++;
	set_attrs = attrs;
	set_size = size;
	set_guid = *vendor;
	memcpy(set_name, name, sizeof(APSTART_RESULTS_VAR_NAME));
	if (size <= APSTART_RESULTS_MAX)
		memcpy(set_data, data, size);
	set_data[size <= APSTART_RESULTS_MAX ? size : 0] = 0;
	return set_result;
}

const char *efi_status_name(efi_status st)
{
	return st == EFI_SUCCESS ? "EFI_SUCCESS" : "EFI_OUT_OF_RESOURCES";
}

static void start_as(bool save, bool uefi, bool usable, uint64_t max_var, efi_status result)
{
	rt_usable = usable;
	rt_max_var = max_var;
	set_result = result;
	set_calls = 0;
	set_size = 0;
	said[0] = 0;
	summary_capture_begin(save, uefi);
}

static void start(bool save, bool usable, uint64_t max_var, efi_status result)
{
	start_as(save, true, usable, max_var, result);
}

static void serial(const char *text)
{
	sink(CON_SERIAL, text);
}

void summary_feed_serial(const char *text)
{
	sink(CON_SERIAL, text);
}

static unsigned count(const char *hay, const char *needle)
{
	unsigned n = 0;
	for (const char *p = hay; (p = strstr(p, needle)); p++)
		n++;
	return n;
}

static void test_small_run(void)
{
	start(true, true, 0x8400, EFI_SUCCESS);
	serial("cmdline: \"cycles=2\"\n");          /* not a record: not kept */
	serial("@boot kernel=apstart cpus=2\n");
	sink(CON_SCREEN, "@boot screen only\n");    /* serial is the record */
	serial("@env vendor=X loader=");            /* one line in pieces */
	serial("apstart.efi\n@cpu cpu=1 apic=1 state=online boot_ns=5\n");
	serial("@sample cpu=1 op=online ns=9\n");
	summary_capture_report();
	serial(" cpu   apic    mean\n   1      1   101.0\n");
	serial("@sample cpu=1 op=offline ns=9\n@cpu cpu=1 late\n");
	serial("@summary op=online cpus=1\n@end status=pass online=2 failed=0\n");
	summary_save();

	const char *want = "@boot kernel=apstart cpus=2\n"
			   "@env vendor=X loader=apstart.efi\n"
			   " cpu   apic    mean\n   1      1   101.0\n"
			   "@summary op=online cpus=1\n"
			   "@end status=pass online=2 failed=0\n";
	CHECK_EQ(set_calls, 1);
	CHECK_STREQ((const char *)set_data, want);
	CHECK_EQ(set_size, strlen(want));
	CHECK_EQ(set_attrs, 7);
	static const uint16_t name[] = APSTART_RESULTS_VAR_NAME;
	CHECK(memcmp(set_name, name, sizeof name) == 0);
	CHECK_EQ(set_guid.data1, 0xeffcee49);
	CHECK_EQ(set_guid.data4[7], 0xbd);
	CHECK(strstr(said, "ApstartResults-effcee49-e744-482d-8f24-37b608c11fbd") != NULL);
	CHECK(strstr(said, "kept in NVRAM") != NULL);

	/* Once per run: a second call (abort after finish) does nothing,
	 * and nothing printed about the save is kept. */
	serial("@end status=fail\n");
	summary_save();
	CHECK_EQ(set_calls, 1);
}

static void test_not_saved(void)
{
	start(false, true, 0x8400, EFI_SUCCESS);
	serial("@boot kernel=apstart\n@end status=pass\n");
	summary_save();
	CHECK_EQ(set_calls, 0);
	CHECK(strstr(said, "save=off") != NULL);

	start(true, false, 0x8400, EFI_SUCCESS);
	serial("@boot kernel=apstart\n@end status=pass\n");
	summary_save();
	CHECK_EQ(set_calls, 0);
	CHECK(strstr(said, "no usable UEFI runtime services") != NULL);

	start(true, true, 0x8400, EFI_ERROR_BIT | 9);
	serial("@boot kernel=apstart\n@end status=pass\n");
	summary_save();
	CHECK_EQ(set_calls, 1);
	CHECK(strstr(said, "failed: EFI_OUT_OF_RESOURCES") != NULL);

	/* Not booted through UEFI: nothing to do, nothing said. */
	start_as(true, false, false, 0, EFI_SUCCESS);
	serial("@boot kernel=apstart\n@end status=pass\n");
	summary_save();
	CHECK_EQ(set_calls, 0);
	CHECK_STREQ(said, "");
}

/* A big machine: more table rows than the cap holds. The beginning and
 * the end are kept, the note counts exactly the rows left out. */
static void big_run(unsigned rows, uint64_t max_var, size_t *limit)
{
	char row[96];

	start(true, true, max_var, EFI_SUCCESS);
	serial("@boot kernel=apstart cpus=480\n@env vendor=GenuineIntel\n");
	summary_capture_report();
	serial(" cpu   apic    mean  median     min     max |    mean  median     min     max\n");
	for (unsigned i = 1; i <= rows; i++) {
		snprintf(row, sizeof row,
			 "%4u %6u  100000.0  100000.0  100000.0  100000.0 |  84000.0  84000.0\n",
			 i, i * 2);
		serial(row);
	}
	serial("slowest online (median): apic 2 100000 us\n");
	serial("@summary op=offline cpus=479\n@summary op=online cpus=479\n");
	serial("Offline:    40.40 s\nOnline:     65.83 s\nTotal:     106.23 s\n");
	serial("@end status=pass online=480 failed=0\n");
	summary_save();
	*limit = max_var && max_var < APSTART_RESULTS_MAX + 200 ? 0 : APSTART_RESULTS_MAX;
}

static void check_big(unsigned rows, size_t limit)
{
	const char *d = (const char *)set_data;
	CHECK_EQ(set_calls, 1);
	CHECK(set_size <= (limit ? limit : APSTART_RESULTS_MAX));
	CHECK(strncmp(d, "@boot kernel=apstart cpus=480\n@env vendor=GenuineIntel\n", 54) == 0);
	const char *end = "@end status=pass online=480 failed=0\n";
	CHECK(set_size > strlen(end) && strcmp(d + set_size - strlen(end), end) == 0);
	CHECK_EQ(count(d, "@summary op="), 2);
	CHECK_EQ(count(d, "Total:     106.23 s\n"), 1);
	unsigned kept = count(d, " |  84000.0");
	const char *note = strstr(d, " lines left out here");
	CHECK(note != NULL);
	if (note) {
		while (note > d && note[-1] != '(')
			note--;
		CHECK_EQ(strtoul(note, NULL, 10) + kept, rows);
	}
}

static void test_cap(void)
{
	size_t limit;

	big_run(479, 0, &limit);      /* 37 KiB of rows: the 16 KiB cap */
	check_big(479, limit);
	CHECK_EQ(set_size > APSTART_RESULTS_MAX - 200, 1);

	big_run(3000, 0, &limit);     /* past the 64 KiB kept in order */
	check_big(3000, limit);

	big_run(479, 8192, &limit);   /* firmware allows less */
	check_big(479, limit);
	CHECK(set_size <= 8192 - (sizeof(APSTART_RESULTS_VAR_NAME) + 128));

	/* Exactly what fits is saved whole, without a note. */
	big_run(40, 0, &limit);
	CHECK(strstr((const char *)set_data, "left out") == NULL);
	CHECK_EQ(count((const char *)set_data, " |  84000.0"), 40);
}

/* A line longer than the console's is cut, not lost or overflowed. */
static void test_long_line(void)
{
	static char big[3000];

	start(true, true, 0, EFI_SUCCESS);
	memset(big, 'x', sizeof big - 2);
	memcpy(big, "@env ", 5);
	big[sizeof big - 2] = '\n';
	serial(big);
	serial("@end status=pass\n");
	summary_save();
	CHECK_EQ(set_calls, 1);
	CHECK(strncmp((const char *)set_data, "@env xxx", 8) == 0);
	CHECK(strstr((const char *)set_data, "x\n@end status=pass\n") != NULL);
	CHECK(set_size < 600);
}

void test_summary_save(void)
{
	RUN_CASE(test_small_run);
	RUN_CASE(test_not_saved);
	RUN_CASE(test_cap);
	RUN_CASE(test_long_line);
}
