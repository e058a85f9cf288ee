/* SPDX-License-Identifier: MIT */
/* pstore= checked, started, reported (wings/pstore/pstore_setup.h). */
#include "wings/pstore/pstore_setup.h"

#include "kernel/console.h"
#include "kernel/paging.h"
#include "wings/pstore/pstore.h"
#include "wings/pstore/pstore_option.h"
#include "kernel/warn.h"
#include "lib/format.h"

static bool given;
static uint64_t addr, size;
static char problem[112]; /* why the zone was refused */
static const char *problem_code;

static bool overlaps(uint64_t a0, uint64_t a1, uint64_t b0, uint64_t b1)
{
	return a0 < b1 && b0 < a1;
}

void pstore_setup(const struct boot_info *boot, const struct options *o,
		  const struct busy_range *busy, uint32_t busy_count)
{
	(void)o;
	given = pstore_options.pstore.size != 0;
	if (!given) {
		pstore_early_end();
		return;
	}
	addr = pstore_options.pstore.addr;
	size = pstore_options.pstore.size;
	uint64_t end = addr + size;
	for (uint32_t i = 0; i < busy_count && !problem_code; i++)
		if (overlaps(addr, end, busy[i].r.start, busy[i].r.end)) {
			fmt_snprintf(problem, sizeof problem, "it overlaps %s (0x%llx-0x%llx)",
				     busy[i].what, (unsigned long long)busy[i].r.start,
				     (unsigned long long)busy[i].r.end);
			problem_code = "overlap";
		}
	if (!problem_code && !memmap_is_available(boot->mem, boot->mem_count, addr, end)) {
		fmt_snprintf(problem, sizeof problem, "it is not RAM in the memory map "
			     "the loader handed over (%s)", boot->mem_source);
		problem_code = "not_ram";
	}
	/* Below 4 GiB RAM is mapped write-back already; above, this maps it
	 * (x86_64) or cannot (i386: 32-bit paging). */
	if (!problem_code && !paging_map_phys(addr, size, MAP_WB)) {
		fmt_snprintf(problem, sizeof problem, "this kernel cannot map it (%s)",
			     sizeof(void *) == 4 ? "the i386 kernel reaches 4 GiB" : "above 128 TiB");
		problem_code = "unmapped";
	}
	if (!problem_code)
		pstore_start(addr, size);
	else
		pstore_early_end();
}

bool pstore_zone(struct phys_range *out)
{
	if (!pstore_status()->on)
		return false;
	*out = (struct phys_range){ addr, addr + size };
	return true;
}

void pstore_report(void)
{
	const struct pstore_status *st = pstore_status();

	if (!given)
		return;
	if (!st->on) {
		kprintf("pstore: 0x%llx-0x%llx not used: %s; running without pstore\n",
			(unsigned long long)addr, (unsigned long long)(addr + size), problem);
		warn_record("what=pstore problem=%s addr=0x%llx size=0x%llx", problem_code,
			    (unsigned long long)addr, (unsigned long long)size);
		return;
	}
	static const char *const found[] = {
		[PRAM_NEW] = "a new zone", [PRAM_INVALID] = "its header was invalid: emptied",
		[PRAM_EMPTY] = "empty", [PRAM_HELD] = "appended to the text held",
	};
	kprintf("pstore: the console also goes to Linux's ramoops console zone at "
		"0x%llx (%llu KiB, %llu bytes of text; %s%s): ramoops mem_address=0x%llx "
		"mem_size=0x%llx console_size=0x%llx record_size=0 ftrace_size=0 pmsg_size=0\n",
		(unsigned long long)addr, (unsigned long long)(size >> 10),
		(unsigned long long)(size - PRAM_HEADER), found[st->found],
		st->clflush ? "" : "; no CLFLUSH: WBINVD before the reset",
		(unsigned long long)addr, (unsigned long long)size, (unsigned long long)size);
	if (st->found == PRAM_HELD)
		kprintf("pstore: %u bytes were held from before (a run not collected, or "
			"Linux's console): kept ahead of this run\n", st->held);
}

void pstore_report_end(void)
{
	const struct pstore_status *st = pstore_status();
	uint64_t capacity = size - PRAM_HEADER;

	uint64_t printed = pstore_written(); /* up to here: both lines say the same */

	if (!st->on || printed <= capacity)
		return;
	kprintf("pstore: this run printed %llu bytes, the zone keeps the last %llu: its "
		"start is only on serial (give pstore= a larger SIZE)\n",
		(unsigned long long)printed, (unsigned long long)capacity);
	warn_record("what=pstore_wrapped printed=%llu kept=%llu", (unsigned long long)printed,
		    (unsigned long long)capacity);
}
