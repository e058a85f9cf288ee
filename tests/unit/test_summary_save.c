/* SPDX-License-Identifier: MIT */
/* app/kept_lines.c and wings/nvram/nvram_save.c on the host: what is kept
 * from the console, how it is cut to the cap, and what reaches SetVariable. The console and the
 * runtime services are stand-ins defined here. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/kept_lines.h"
#include "wings/nvram/nvram_save.h"
#include "check.h"
#include "kernel/bootmem.h"
#include "kernel/console.h"
#include "kernel/efi_runtime.h"
#include "wings/efi/efi_vendor.h"

/* The console's tap, as app/wing.c hangs it on the console. */
static void (*const sink)(unsigned targets, const char *text) = kept_lines_tap;
static char said[512];              /* the last kprintf */
static bool rt_usable;
static uint64_t rt_max_var;         /* 0: QueryVariableInfo unsupported */
static uint64_t rt_remaining = 1 << 20;
static efi_status set_result;
static int set_calls;               /* writes (size > 0) */
static uint32_t set_attrs;
/* The variables as the firmware would hold them: part i of the summary,
 * and (set_data) all parts concatenated after each write. */
static uint8_t part_data[APSTART_RESULTS_PARTS][APSTART_RESULTS_MAX + 1];
static uint64_t part_size[APSTART_RESULTS_PARTS];
static bool part_live[APSTART_RESULTS_PARTS];
static unsigned part0_writes_last;  /* writes after part 0's (must be 0) */
static uint8_t set_data[APSTART_RESULTS_TOTAL_MAX + 1];
static uint64_t set_size;
static struct efi_guid set_guid;

/* kernel/bootmem.c's allocator: free RAM enough (bootmem_room = false:
 * none, as on a machine with a couple of MiB). */
static bool bootmem_room = true;
void *bootmem_try_alloc(uint64_t size, uint64_t align, const char *what)
{
	(void)align;
	(void)what;
	return bootmem_room ? calloc(1, size) : NULL;
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

/* The wing maps the runtime services itself, only when it will save. */
static unsigned runtime_inits;
bool efi_runtime_init(const struct boot_info *bi, diag_fn diag, void *ctx)
{
	(void)bi, (void)diag, (void)ctx;
	runtime_inits++;
	return rt_usable;
}

efi_status efi_query_variable_info(uint32_t attrs, uint64_t *max_storage,
				   uint64_t *remaining, uint64_t *max_variable)
{
	(void)attrs;
	if (!rt_max_var)
		return EFI_ERROR_BIT | 3;
	*max_storage = 1 << 20;
	*remaining = rt_remaining;
	*max_variable = rt_max_var;
	return EFI_SUCCESS;
}

/* Which part a name is: ApstartResults -> 0, ApstartResults<d> -> d;
 * anything else fails the test. */
static unsigned part_of(const uint16_t *name)
{
	static const uint16_t base[] = APSTART_RESULTS_VAR_NAME;
	size_t n = sizeof base / sizeof base[0] - 1;
	CHECK(memcmp(name, base, n * sizeof base[0]) == 0);
	if (!name[n])
		return 0;
	CHECK(name[n] >= '1' && name[n] < '0' + APSTART_RESULTS_PARTS && !name[n + 1]);
	return name[n] - '0';
}

efi_status efi_set_variable(const uint16_t *name, const struct efi_guid *vendor,
			    uint32_t attrs, uint64_t size, const void *data)
{
	unsigned part = part_of(name);
	set_guid = *vendor;
	if (size == 0) {             /* delete */
		bool was = part_live[part];
		part_live[part] = false;
		return was ? EFI_SUCCESS : (EFI_ERROR_BIT | 14); /* EFI_NOT_FOUND */
	}
	set_calls++;
	set_attrs = attrs;
	if (set_result != EFI_SUCCESS)
		return set_result;
	CHECK(size <= APSTART_RESULTS_MAX);
	if (size > APSTART_RESULTS_MAX)
		return EFI_ERROR_BIT | 2;
	if (part_live[0])
		part0_writes_last++;
	memcpy(part_data[part], data, size);
	part_size[part] = size;
	part_live[part] = true;
	/* The summary as apstart.efi reads it: part 0, 1, ... while there. */
	set_size = 0;
	for (unsigned i = 0; i < APSTART_RESULTS_PARTS && part_live[i]; i++) {
		memcpy(set_data + set_size, part_data[i], part_size[i]);
		set_size += part_size[i];
	}
	set_data[set_size] = 0;
	return EFI_SUCCESS;
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
	set_data[0] = 0;
	part0_writes_last = 0;
	for (unsigned i = 0; i < APSTART_RESULTS_PARTS; i++)
		part_live[i] = false;
	said[0] = 0;
	runtime_inits = 0;
	kept_lines_begin();
	struct nvram_options o = { .save = save ? SAVE_ON : SAVE_OFF };
	struct boot_info bi = { .firmware = uefi ? FIRMWARE_UEFI : FIRMWARE_BIOS,
				.efi_system_table = uefi ? 0x7f000000 : 0 };
	nvram_save_options(&o, &bi);
}

/* The end of a run, as app/run.c ends it. */
static void summary_save(void)
{
	kept_lines_end();
	nvram_save_summary(true);
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
	kept_lines_report();
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
	CHECK(part_live[0] && !part_live[1]);
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
	CHECK_EQ(runtime_inits, 0);
	serial("@boot kernel=apstart\n@end status=pass\n");
	summary_save();
	CHECK_EQ(set_calls, 0);
	CHECK(strstr(said, "save=off") != NULL);

	start(true, false, 0x8400, EFI_SUCCESS);
	CHECK_EQ(runtime_inits, 1);
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
	CHECK_EQ(runtime_inits, 0);
	serial("@boot kernel=apstart\n@end status=pass\n");
	summary_save();
	CHECK_EQ(set_calls, 0);
	CHECK_STREQ(said, "");
}

/* A big machine: a table row and an @cpusum record per CPU (cpusum:
 * with them), remaining bytes of NVRAM free. */
static void big_run(unsigned rows, bool cpusum, uint64_t max_var, uint64_t remaining)
{
	char row[160];

	rt_remaining = remaining;
	start(true, true, max_var, EFI_SUCCESS);
	serial("@boot kernel=apstart cpus=480\n@env vendor=GenuineIntel\n");
	kept_lines_report();
	serial(" cpu   apic    mean  median     min     max |    mean  median     min     max\n");
	for (unsigned i = 1; i <= rows; i++) {
		snprintf(row, sizeof row,
			 "%4u %6u  100000.0  100000.0  100000.0  100000.0 |  84000.0  84000.0\n",
			 i, i * 2);
		serial(row);
	}
	for (unsigned i = 1; cpusum && i <= rows; i++) {
		snprintf(row, sizeof row,
			 "@cpusum cpu=%u apic=%u cycles=10 online_median_ns=100000000 "
			 "online_max_ns=100000000 offline_median_ns=84000000 offline_max_ns=84000000\n",
			 i, i * 2);
		serial(row);
	}
	serial("slowest online (median): apic 2 100000 us\n");
	serial("@summary op=offline cpus=479\n@summary op=online cpus=479\n");
	serial("Offline:    40.40 s\nOnline:     65.83 s\nTotal:     106.23 s\n");
	serial("@end status=pass online=480 failed=0\n");
	summary_save();
	rt_remaining = 1 << 20;
}

/* What any cut keeps: the start, the end, both @summary records; the
 * note counts exactly the lines left out (rows, and records when
 * all_records is false). part_max: the most a part may hold. */
static void check_big(unsigned rows, bool cpusum, bool all_records, size_t cap,
		      size_t part_max)
{
	const char *d = (const char *)set_data;
	CHECK(set_calls >= 1);
	CHECK_EQ(part0_writes_last, 0);
	CHECK(set_size <= cap);

	for (unsigned i = 0; i < APSTART_RESULTS_PARTS; i++)
		CHECK(!part_live[i] || part_size[i] <= part_max);
	CHECK(strncmp(d, "@boot kernel=apstart cpus=480\n@env vendor=GenuineIntel\n", 54) == 0);
	const char *end = "@end status=pass online=480 failed=0\n";
	CHECK(set_size > strlen(end) && strcmp(d + set_size - strlen(end), end) == 0);
	CHECK_EQ(count(d, "@summary op="), 2);
	CHECK_EQ(count(d, "Total:     106.23 s\n"), 1);
	unsigned kept = count(d, " |  84000.0"), kept_rec = count(d, "@cpusum ");
	if (all_records)
		CHECK_EQ(kept_rec, cpusum ? rows : 0);
	const char *note = strstr(d, " lines left out here");
	CHECK(note != NULL);
	if (note) {
		while (note > d && note[-1] != '(')
			note--;
		CHECK_EQ(strtoul(note, NULL, 10) + kept + kept_rec, rows + (cpusum ? rows : 0));
	}
}

static void test_cap(void)
{
	/* 479 CPUs, 98 KiB: whole, in 7 parts, part 0 written last. */
	big_run(479, true, 0, 1 << 20);
	CHECK(strstr((const char *)set_data, "left out") == NULL);
	CHECK_EQ(count((const char *)set_data, " |  84000.0"), 479);
	CHECK_EQ(count((const char *)set_data, "@cpusum "), 479);
	CHECK(part_live[6] && !part_live[7]);
	CHECK_EQ(part0_writes_last, 0);
	CHECK(strstr(said, "as ApstartResults-effcee49") && strstr(said, "1..6 (7 parts"));

	/* Half of 160 KiB free: every record, the table rows while room. */
	big_run(479, true, 0x8400, 160 * 1024);
	check_big(479, true, true, 80 * 1024, APSTART_RESULTS_MAX);

	/* Past the 192 KiB kept in order: the 128 KiB cap. */
	big_run(3000, false, 0, 1 << 20);
	check_big(3000, false, true, APSTART_RESULTS_TOTAL_MAX, APSTART_RESULTS_MAX);

	/* Firmware allows smaller variables: smaller parts, 8 of them. */
	big_run(360, true, 8192, 1 << 20);
	size_t part = 8192 - (sizeof(APSTART_RESULTS_VAR_NAME) + 128);
	check_big(360, true, true, 8 * part, part);
	CHECK(part_live[7]);

	CHECK(strstr((const char *)set_data, "and keeps every @ record") != NULL);

	/* More records than room (20 KiB): the end (a quarter: the totals
	 * and the last records), then the records of the first CPUs in
	 * order, no table rows; the note says records went. */
	big_run(479, true, 0x8400, 40 * 1024);
	check_big(479, true, false, 20 * 1024, APSTART_RESULTS_MAX);
	const char *d = (const char *)set_data;
	unsigned recs = count(d, "@cpusum ");
	CHECK(recs > 50 && recs < 479);
	CHECK(strstr(d, "@cpusum cpu=1 apic=2 ") != NULL);
	CHECK_EQ(count(d, " |  84000.0"), 0);
	CHECK(strstr(d, "keeps every @ record") == NULL);
	CHECK(strstr(d, "@cpusum cpu=50 apic=100 ") != NULL); /* the first CPUs in order */
	CHECK(strstr(d, "@cpusum cpu=479 apic=958 ") != NULL); /* the end's last ones */

	/* Exactly what fits is saved whole, without a note. */
	big_run(40, false, 0, 1 << 20);
	CHECK(strstr((const char *)set_data, "left out") == NULL);
	CHECK_EQ(count((const char *)set_data, " |  84000.0"), 40);
	CHECK(part_live[0] && !part_live[1]);
}

/* A part that fails: nothing is left behind, the failure is said. */
static void test_part_fails(void)
{
	big_run(479, true, 0, 1 << 20);
	CHECK(part_live[0]);
	start(true, true, 0, EFI_ERROR_BIT | 9);
	kept_lines_report();
	for (unsigned i = 0; i < 600; i++)
		serial("@cpusum cpu=1 apic=1 cycles=10 online_median_ns=1 online_max_ns=1 "
		       "offline_median_ns=1 offline_max_ns=1 and a long tail of text\n");
	serial("@end status=pass\n");
	summary_save();
	for (unsigned i = 0; i < APSTART_RESULTS_PARTS; i++)
		CHECK(!part_live[i]);
	CHECK(strstr(said, "part 1 of") != NULL);
	CHECK(strstr(said, "not kept") != NULL);
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
	RUN_CASE(test_part_fails);
	RUN_CASE(test_long_line);
}
