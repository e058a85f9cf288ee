/* The real-mode trampoline: where it lives and what the AP reported.
 * Layout mirrors realmode/trampoline.inc. */
#ifndef APSTART_TRAMPOLINE_H
#define APSTART_TRAMPOLINE_H

#include <stdbool.h>
#include <stdint.h>

#define TRAMP_MAGIC   0x54535041u /* "APST" */
#define TRAMP_VERSION 1
#define TRAMP_HDR     0x40

enum tramp_stage {
	TRAMP_STAGE_NONE = 0,
	TRAMP_STAGE_REAL = 1,
	TRAMP_STAGE_PROTECTED = 2,
	TRAMP_STAGE_LONG = 3,
	TRAMP_STAGE_STACK = 4,
	TRAMP_STAGE_NO_SLOT = 0xE,
};

#define TRAMP_FLAG_WBINVD 1u
#define TRAMP_FLAG_SLOW   2u

struct tramp_header {
	uint32_t magic;
	uint16_t version;
	uint16_t size;
	uint32_t cr3;
	uint32_t slow_ticks;
	uint16_t gdt_limit;
	uint32_t gdt_base;
	uint16_t pad0;
	uint32_t far32_offset;
	uint16_t far32_selector;
	uint16_t pad1;
	uint32_t far64_offset;
	uint16_t far64_selector;
	uint16_t pad2;
	uint64_t entry64;
	uint64_t cpu_table;
	uint32_t cpu_count;
	volatile uint32_t stage;
	volatile uint32_t stage_apic;
	uint32_t flags;
	uint32_t off_code32;
	uint32_t off_code64;
	uint32_t off_code_end;
	uint32_t reserved;
	volatile uint64_t tsc_real;   /* AP's TSC in real mode, after cli/wbinvd */
	volatile uint64_t tsc_long;   /* AP's TSC on reaching long mode */
} __attribute__((packed));

_Static_assert(sizeof(struct tramp_header) == 0x68, "header layout");

/* One entry per CPU the trampoline may start: it looks itself up by APIC
 * ID to find its stack (never through a shared "next stack" variable). */
struct tramp_cpu {
	uint32_t apic_id;
	uint32_t index;
	uint64_t stack_top;
};

/* Copy the blob to page `phys` (below 1 MiB) and patch it. Returns false
 * (with a message) if the blob is not what this kernel expects. */
bool trampoline_install(uint64_t phys, const struct tramp_cpu *table,
			uint32_t count, uint32_t slow_ticks);
struct tramp_header *trampoline_header(void);
uint64_t trampoline_phys(void);
uint32_t trampoline_size(void);
const char *tramp_stage_name(uint32_t stage);

#endif
