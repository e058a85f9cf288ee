/* SPDX-License-Identifier: MIT */
/* Results that survive a reset: a server's screen scrolls away and often
 * nobody has a serial cable. At the end of a run booted through UEFI, the
 * kept record lines (app/kept_lines.h) go into non-volatile UEFI variables
 * through the runtime services (kernel/efi_runtime.h): ApstartResults, and
 * ApstartResults1.. when it needs more than one (wings/efi/efi_vendor.h), capped
 * at APSTART_RESULTS_TOTAL_MAX, at half the free NVRAM and at what the
 * firmware says a variable may hold. apstart.efi writes it to the stick on
 * the next boot (wings/efi/saved.c). save=off: no firmware call at all. */
#include <stdbool.h>
#include <stdint.h>

#include "app/kept_lines.h"
#include "app/wing.h"
#include "wings/nvram/nvram_save.h"
#include "kernel/bootmem.h"
#include "kernel/console.h"
#include "kernel/efi_runtime.h"
#include "wings/efi/efi_vendor.h"
#include "lib/format.h"
#include "lib/kstring.h"

/* Room SetVariable needs besides the data, for the firmware's limit:
 * the name and a header (EDK II's authenticated header is 60 bytes). */
#define VAR_OVERHEAD (sizeof(APSTART_RESULTS_VAR_NAME) + 128)
#define SMALL_MAX (16 * 1024) /* where bootmem had no room */

static bool save_on, uefi_boot, saved;

static void say(void *ctx, const char *msg)
{
	(void)ctx;
	kprintf("%s\n", msg);
}
/* out comes from bootmem, once, while free RAM is plentiful. */
static char out_small[SMALL_MAX];
static char *out = out_small;
static size_t out_cap = SMALL_MAX;

static struct nvram_options opt;

static const struct keyword save_words[] = {
	{ "on", SAVE_ON }, { "off", SAVE_OFF }, { NULL, 0 },
};

static const struct option_row option_rows[] = {
	OPTION_ROW(struct nvram_options, save, SAVE_ON, .keywords = save_words),
};

void nvram_save_options(const struct nvram_options *o, const struct boot_info *bi)
{
	saved = false;
	save_on = o->save == SAVE_ON;
	/* Where the firmware's runtime services were handed over (GRUB or
	 * apstart.efi on UEFI; not after kexec). */
	uefi_boot = bi->efi_system_table != 0;
	if (!save_on || !uefi_boot)
		return;
	if (out == out_small) {
		char *b = bootmem_try_alloc(APSTART_RESULTS_TOTAL_MAX, 64, "the saved summary");
		if (b) {
			out = b;
			out_cap = APSTART_RESULTS_TOTAL_MAX;
		}
	}
	efi_runtime_init(bi, say, NULL);
}

static void guid_text(char *buf, size_t size, const struct efi_guid *g)
{
	fmt_snprintf(buf, size, "%08x-%04x-%04x-%02x%02x-%02x%02x%02x%02x%02x%02x",
		     g->data1, g->data2, g->data3, g->data4[0], g->data4[1], g->data4[2],
		     g->data4[3], g->data4[4], g->data4[5], g->data4[6], g->data4[7]);
}

/* ApstartResults, ApstartResults1, ... (wings/efi/efi_vendor.h). */
static void part_name(uint16_t name[24], unsigned part)
{
	static const uint16_t base[] = APSTART_RESULTS_VAR_NAME;
	size_t n = sizeof base / sizeof base[0] - 1;
	memcpy(name, base, n * sizeof base[0]);
	if (part)
		name[n++] = (uint16_t)('0' + part);
	name[n] = 0;
}

static efi_status set_part(unsigned part, const void *data, size_t len)
{
	static const struct efi_guid vendor = APSTART_VENDOR_GUID_INIT;
	uint16_t name[24];
	part_name(name, part);
	return efi_set_variable(name, &vendor, APSTART_RESULTS_VAR_ATTRS, len, data);
}

/* Deleting a variable that is not there is not an error. */
static void delete_part(unsigned part)
{
	(void)set_part(part, NULL, 0);
}

/* The run ends: keep what the run printed, if this boot can. */
void nvram_save_summary(bool pass)
{
	static const struct efi_guid vendor = APSTART_VENDOR_GUID_INIT;
	char guid[40];

	(void)pass;
	if (saved || !uefi_boot)
		return;
	saved = true;
	if (!save_on) {
		kprintf("save: off (save=off): nothing written to NVRAM\n");
		return;
	}
	if (!efi_runtime_usable()) {
		kprintf("save: no usable UEFI runtime services: the summary is not kept "
			"(read it from the screen or serial)\n");
		return;
	}
	size_t part_cap = APSTART_RESULTS_MAX, cap = APSTART_RESULTS_TOTAL_MAX;
	uint64_t max_storage, remaining, max_var;
	efi_status st = efi_query_variable_info(APSTART_RESULTS_VAR_ATTRS, &max_storage,
						&remaining, &max_var);
	if (st == EFI_SUCCESS) {
		kprintf("save: firmware NVRAM: %llu bytes, %llu free, at most %llu per variable\n",
			(unsigned long long)max_storage, (unsigned long long)remaining,
			(unsigned long long)max_var);
		if (max_var < part_cap + VAR_OVERHEAD)
			part_cap = max_var > VAR_OVERHEAD + 1024 ? (size_t)(max_var - VAR_OVERHEAD)
								 : 1024;
		cap = part_cap * APSTART_RESULTS_PARTS;
		uint64_t share = remaining / APSTART_RESULTS_FREE_SHARE;
		if (share < cap)
			cap = share > 1024 ? (size_t)share : 1024;
	}
	if (cap > out_cap)
		cap = out_cap;
	size_t len = kept_lines_render(out, cap);
	size_t parts = len ? (len + part_cap - 1) / part_cap : 1;
	guid_text(guid, sizeof guid, &vendor);
	/* Part 0 last: a save cut short leaves no summary, never a torn one
	 * (the loader deletes parts without a part 0). */
	delete_part(0);
	st = EFI_SUCCESS;
	unsigned part = 1;
	for (; part < parts && st == EFI_SUCCESS; part++) {
		size_t at = part * part_cap, n = len - at < part_cap ? len - at : part_cap;
		st = set_part(part, out + at, n);
	}
	if (st == EFI_SUCCESS) {
		for (unsigned i = (unsigned)parts; i < APSTART_RESULTS_PARTS; i++)
			delete_part(i); /* a bigger summary's leftovers */
		part = 0;
		st = set_part(0, out, len < part_cap ? len : part_cap);
	} else {
		part--; /* the one that failed */
	}
	if (st == EFI_SUCCESS) {
		char more[96] = "";
		if (parts > 1)
			fmt_snprintf(more, sizeof more, " and %s1..%u (%u parts of at most %u bytes)",
				     APSTART_RESULTS_VAR_NAME_ASCII, (unsigned)parts - 1,
				     (unsigned)parts, (unsigned)part_cap);
		kprintf("save: summary kept in NVRAM, %u bytes, as %s-%s%s: apstart.efi writes "
			"it to the stick on the next boot\n", (unsigned)len,
			APSTART_RESULTS_VAR_NAME_ASCII, guid, more);
		return;
	}
	for (unsigned i = 1; i < parts; i++)
		delete_part(i); /* no part 0: the rest is of no use */
	char which[4] = { 0 };
	if (part)
		which[0] = (char)('0' + part);
	kprintf("save: SetVariable(%s%s-%s, part %u of %u, %u bytes in all) failed: %s "
		"(0x%llx): the summary is not kept\n", APSTART_RESULTS_VAR_NAME_ASCII, which,
		guid, part, (unsigned)parts, (unsigned)len, efi_status_name(st),
		(unsigned long long)st);
}

static void options_parsed(const struct options *o, const struct boot_info *bi)
{
	(void)o;
	nvram_save_options(&opt, bi);
}

WING(nvram) = {
	.name = "nvram",
	.options = WING_OPTIONS(option_rows, &opt),
	.options_parsed = options_parsed,
	.run_ends = nvram_save_summary,
};
