/* SPDX-License-Identifier: MIT */
/* Installing the trampoline blob (realmode/trampoline.asm) in low memory.
 * The blob is position independent; the only absolute addresses are
 * relocated here by adding the page's physical address. */
#include "smp/trampoline.h"

#include "smp/smp.h"
#include "smp/instrument.h"
#include "kernel/console.h"
#include "kernel/cpu.h"
#include "kernel/x86.h"
#include "lib/kstring.h"

extern const uint8_t trampoline_blob[], trampoline_blob_end[];

static uint64_t installed_at;
/* Another trampoline's stand-in header (trampoline_use_other()), NULL
 * while the core's runs. */
static struct tramp_header *other_header;

static uint32_t trampoline_size(void)
{
	return (uint32_t)(trampoline_blob_end - trampoline_blob);
}

struct tramp_header *trampoline_header(void)
{
	if (other_header)
		return other_header;
	return (struct tramp_header *)(uintptr_t)(installed_at + TRAMP_HDR);
}

uint64_t trampoline_phys(void)
{
	return installed_at;
}

/* What every trampoline's header holds for its AP's way into C: the
 * CPU table it finds its slot in, the kernel's page tables, the C entry;
 * false (with a message) where the AP could not reach them. */
static bool header_fill(struct tramp_header *h, void (*c_entry)(uint32_t, uint32_t))
{
	const struct tramp_cpu *table = tramp_cpus;
	uint32_t count = cpu_count;

	/* Protected mode searches the table with 32-bit addresses. */
	if ((uintptr_t)table + (uint64_t)count * sizeof *table > (1ull << 32)) {
		kprintf("trampoline: its CPU table is above 4 GiB\n");
		return false;
	}
	uint64_t cr3 = read_cr3();
	if (cr3 >= (1ull << 32)) {
		kprintf("trampoline: page tables at 0x%llx are above 4 GiB\n",
			(unsigned long long)cr3);
		return false;
	}
	h->cr3 = (uint32_t)cr3;
	h->c_entry = (uint64_t)(uintptr_t)c_entry;
	h->cpu_table = (uint64_t)(uintptr_t)table;
	h->cpu_count = count;
	h->real_entries = 0;
	h->no_slot_apic = APIC_ID_NONE;
	return true;
}

bool trampoline_use_other(uint64_t sipi_page, struct tramp_header *h,
			  void (*c_entry)(uint32_t apic_id, uint32_t index))
{
	if (!header_fill(h, c_entry))
		return false;
	installed_at = sipi_page;
	other_header = h;
	return true;
}

bool trampoline_install(uint64_t phys, void (*c_entry)(uint32_t apic_id, uint32_t index))
{
	uint32_t size = trampoline_size();
	const struct tramp_header *src = (const struct tramp_header *)(trampoline_blob + TRAMP_HDR);

	if (size > TRAMP_SLOW_TICKS_AT || size < TRAMP_HDR + sizeof *src ||
	    src->magic != TRAMP_MAGIC || src->version != TRAMP_VERSION ||
	    src->size != sizeof *src) {
		kprintf("trampoline: blob does not match this kernel (size %u)\n", size);
		return false;
	}
	/* The blob must be the variant this kernel announces at boot. */
	if (!!(src->flags & TRAMP_FLAG_WBINVD) != !!APSTART_WBINVD) {
		kprintf("trampoline: blob flags 0x%x do not match this build "
			"(WBINVD=%d)\n", src->flags, APSTART_WBINVD);
		return false;
	}

	uint8_t *page = (uint8_t *)(uintptr_t)phys;
	memset(page, 0, 4096);
	memcpy(page, trampoline_blob, size);
	struct tramp_header *h = (struct tramp_header *)(page + TRAMP_HDR);
	if (!header_fill(h, c_entry))
		return false;
	installed_at = phys;
	INSTRUMENT_TRAMPOLINE_INSTALLED(page);

	h->gdt_base += (uint32_t)phys;
	h->far32_offset += (uint32_t)phys;
#if defined(__i386__)
	/* realmode/trampoline_32.asm: the second far pointer is the real-mode
	 * jump that reloads CS: its offset is the label's, CS = P >> 4. */
	h->far64_selector = (uint16_t)(phys >> 4);
#else
	h->far64_offset += (uint32_t)phys;
#endif
	return true;
}

const char *tramp_stage_name(uint32_t stage)
{
	switch (stage) {
	case TRAMP_STAGE_NONE: return "not started (no SIPI taken)";
	case TRAMP_STAGE_REAL: return "trampoline real mode";
	case TRAMP_STAGE_PROTECTED: return "trampoline protected mode";
#if defined(__i386__)
	case TRAMP_STAGE_LONG: return "trampoline paging on";
#else
	case TRAMP_STAGE_LONG: return "trampoline long mode";
#endif
	case TRAMP_STAGE_STACK: return "trampoline found its stack";
	case TRAMP_STAGE_NO_SLOT: return "trampoline: APIC ID not in table";
	default: return "unknown";
	}
}
