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

uint32_t trampoline_size(void)
{
	return (uint32_t)(trampoline_blob_end - trampoline_blob);
}

struct tramp_header *trampoline_header(void)
{
	return (struct tramp_header *)(uintptr_t)(installed_at + TRAMP_HDR);
}

uint64_t trampoline_phys(void)
{
	return installed_at;
}

bool trampoline_install(uint64_t phys, void (*c_entry)(uint32_t apic_id, uint32_t index))
{
	const struct tramp_cpu *table = tramp_cpus;
	uint32_t count = cpu_count;
	uint32_t size = trampoline_size();
	const struct tramp_header *src =
		(const struct tramp_header *)(trampoline_blob + TRAMP_HDR);

	if (size > TRAMP_SLOW_TICKS_AT || size < TRAMP_HDR + sizeof *src ||
	    src->magic != TRAMP_MAGIC || src->version != TRAMP_VERSION ||
	    src->size != sizeof *src) {
		kprintf("trampoline: blob does not match this kernel (size %u)\n",
			size);
		return false;
	}
	/* The blob must be the variant this kernel announces at boot. */
	if (!!(src->flags & TRAMP_FLAG_WBINVD) != !!APSTART_WBINVD) {
		kprintf("trampoline: blob flags 0x%x do not match this build "
			"(WBINVD=%d)\n", src->flags, APSTART_WBINVD);
		return false;
	}
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

	uint8_t *page = (uint8_t *)(uintptr_t)phys;
	memset(page, 0, 4096);
	memcpy(page, trampoline_blob, size);
	installed_at = phys;
	INSTRUMENT_TRAMPOLINE_INSTALLED(page);

	struct tramp_header *h = trampoline_header();
	h->cr3 = (uint32_t)cr3;
	h->gdt_base += (uint32_t)phys;
	h->far32_offset += (uint32_t)phys;
#if defined(__i386__)
	/* realmode/trampoline_32.asm: the second far pointer is the real-mode
	 * jump that reloads CS: its offset is the label's, CS = P >> 4. */
	h->far64_selector = (uint16_t)(phys >> 4);
#else
	h->far64_offset += (uint32_t)phys;
#endif
	h->c_entry = (uint64_t)(uintptr_t)c_entry;
	h->cpu_table = (uint64_t)(uintptr_t)table;
	h->cpu_count = count;
	h->real_entries = 0;
	h->no_slot_apic = APIC_ID_NONE;
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
