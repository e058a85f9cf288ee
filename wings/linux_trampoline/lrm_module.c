/* SPDX-License-Identifier: MIT */
#include "wings/linux_trampoline/lrm_module.h"

#include "kernel/console.h"
#include "kernel/paging.h"
#include "lib/format.h"

static struct boot_module module;
static uint32_t modules;

void lrm_module_claim(const struct boot_info *bi)
{
	modules = bi->module_count;
	if (!modules)
		return;
	module = bi->modules[0];
	/* An MB1 string lives outside the boot information, where the
	 * allocator may write: it is not kept. */
	kprintf("linux_trampoline: module 1 of %u at 0x%llx-0x%llx (%llu bytes)%s%s%s\n",
		modules, (unsigned long long)module.start, (unsigned long long)module.end,
		(unsigned long long)(module.end - module.start),
		module.string[0] ? ": \"" : "", module.string, module.string[0] ? "\"" : "");
	module.string = "";
	if (modules > 1)
		kprintf("linux_trampoline: %u more modules ignored: the first is the "
			"LRM file\n", modules - 1);
}

bool lrm_module_reserved(struct phys_range *out)
{
	if (!modules)
		return false;
	*out = (struct phys_range){ module.start, module.end };
	return true;
}

bool lrm_module_load(const uint8_t **file, struct lrm_header *hdr,
		     struct lrm_blob_info *info, char *why)
{
	if (!modules) {
		fmt_snprintf(why, LRM_WHY_SIZE, "no boot module");
		return false;
	}
	uint64_t len = module.end - module.start;
	if (len > LRM_FILE_MAX) {
		fmt_snprintf(why, LRM_WHY_SIZE, "the module is %llu bytes, more than an "
			     "LRM file can be (%u): not an LRM file",
			     (unsigned long long)len, (unsigned)LRM_FILE_MAX);
		return false;
	}
	const uint8_t *p = paging_map_phys(module.start, len, MAP_WB);
	if (!p) {
		fmt_snprintf(why, LRM_WHY_SIZE, "the module at 0x%llx is beyond what "
			     "this kernel maps", (unsigned long long)module.start);
		return false;
	}
	if (!lrm_check(p, (size_t)len, hdr, info, why))
		return false;
	*file = p;
	return true;
}
