/* SPDX-License-Identifier: MIT */
/* The trampoline's interface, defined once: the header the BSP patches,
 * and the per-CPU slots an AP finds by its APIC ID and reports through
 * (stack, stage, a TSC reading per phase), so that any number of APs can
 * run it at once. The assembly takes every offset and value below from
 * the generated realmode/asm_defs.inc. */
#ifndef APSTART_TRAMPOLINE_ABI_H
#define APSTART_TRAMPOLINE_ABI_H

#include <stddef.h>
#include <stdint.h>

#include "kernel/cpu.h"

#define TRAMP_MAGIC   0x54535041u /* "APST" */
#define TRAMP_VERSION 3
#define TRAMP_HDR     0x40        /* header offset in the page, after the entry code */

/* Stages the AP writes into its slot (smp/smp.h continues them in C).
 * REAL is written only once the slot is found, in protected mode: an AP
 * that stops in between is counted in the header's real_entries. */
enum tramp_stage {
	TRAMP_STAGE_NONE = 0,
	TRAMP_STAGE_REAL = 1,
	TRAMP_STAGE_PROTECTED = 2,
	TRAMP_STAGE_LONG = 3,
	TRAMP_STAGE_STACK = 4,
	TRAMP_STAGE_NO_SLOT = 0xE,
};

/* The AP's marks, in order: each slot keeps the AP's TSC on reaching
 * it (0: not reached). REAL is the first real-mode instruction after cli
 * [and wbinvd]; the trampoline writes the first three, ap_entry() the
 * rest (smp/ap_entry.c). */
enum ap_mark {
	AP_MARK_REAL,
	AP_MARK_PROTECTED,
	AP_MARK_LONG,
	AP_MARK_C_ENTRY,
	AP_MARK_TABLES,
	AP_MARK_LAPIC,
	AP_MARK_ONLINE,
	AP_MARKS
};

/* Header flags: the build knobs the blob was assembled with. */
#define TRAMP_FLAG_WBINVD 1u

/* The page's last dword: the TSC ticks the slowed build's spin takes
 * (make SLOW_TRAMP_NS=N: realmode/instrument.inc reads it, the BSP
 * writes it, smp/instrument.h), 0 in every other build; the blob ends
 * before it. */
#define TRAMP_SLOW_TICKS_AT 0xFFC

/* Packed to rule out padding the assembly does not know about; every
 * field is still at its natural alignment (asserted below), so each
 * load and store of one is a single access, atomic for the fields the
 * BSP reads while the AP writes them (SDM Vol. 3A §9.1.1). */
struct tramp_header {
	uint32_t magic;
	uint16_t version;
	uint16_t size;
	uint32_t cr3;                 /* kernel PML4, below 4 GiB */
	uint32_t flags;               /* TRAMP_FLAG_* */
	uint16_t gdt_limit;           /* lgdt operand: limit, then base */
	uint32_t gdt_base;
	uint16_t pad0;
	uint32_t far32_offset;        /* jmp far m16:32: offset, then selector */
	uint16_t far32_selector;
	uint16_t pad1;
	uint32_t far64_offset;        /* i386 (trampoline_32.asm): the real-mode */
	uint16_t far64_selector;      /* jmp far that reloads CS (IP, CS = P >> 4) */
	uint16_t pad2;
	uint64_t c_entry;             /* void ap_entry(apic_id, index) */
	uint64_t cpu_table;           /* struct tramp_cpu[cpu_count] */
	uint32_t cpu_count;
	volatile uint32_t real_entries; /* APs that entered real mode (lock inc) */
	volatile uint32_t no_slot_apic; /* last APIC ID not in the table */
	uint32_t off_code32;          /* where each mode's code starts, for */
	uint32_t off_code64;          /* the content test */
	uint32_t off_code_end;
} __attribute__((packed));

/* One slot per CPU the trampoline may start: it looks itself up by APIC
 * ID (never through a shared "next stack" variable) and writes only its
 * own slot's stage and timestamps. The BSP clears them before each start. */
struct tramp_cpu {
	uint32_t apic_id;
	uint32_t index;
	uint64_t stack_top;
	volatile uint32_t stage;            /* enum tramp_stage / ap_stage */
	uint32_t pad;
	volatile uint64_t tsc[AP_MARKS];   /* enum ap_mark: AP's TSC, 0 = not yet */
};

#define TRAMP_ALIGNED(type, member) \
	_Static_assert(offsetof(type, member) % sizeof(((type *)0)->member) == 0, \
		       #type "." #member " is not naturally aligned")
TRAMP_ALIGNED(struct tramp_header, magic);
TRAMP_ALIGNED(struct tramp_header, version);
TRAMP_ALIGNED(struct tramp_header, size);
TRAMP_ALIGNED(struct tramp_header, cr3);
TRAMP_ALIGNED(struct tramp_header, flags);
TRAMP_ALIGNED(struct tramp_header, gdt_limit);
TRAMP_ALIGNED(struct tramp_header, far32_offset);
TRAMP_ALIGNED(struct tramp_header, far32_selector);
TRAMP_ALIGNED(struct tramp_header, far64_offset);
TRAMP_ALIGNED(struct tramp_header, far64_selector);
TRAMP_ALIGNED(struct tramp_header, c_entry);
TRAMP_ALIGNED(struct tramp_header, cpu_table);
TRAMP_ALIGNED(struct tramp_header, cpu_count);
TRAMP_ALIGNED(struct tramp_header, real_entries);
TRAMP_ALIGNED(struct tramp_header, no_slot_apic);
TRAMP_ALIGNED(struct tramp_cpu, apic_id);
TRAMP_ALIGNED(struct tramp_cpu, stack_top);
TRAMP_ALIGNED(struct tramp_cpu, stage);
TRAMP_ALIGNED(struct tramp_cpu, tsc[0]);
/* Operand layouts the instructions dictate (SDM Vol. 2A, LGDT: 16-bit
 * limit then 32-bit base; JMP: m16:32 is the offset then the selector). */
_Static_assert(offsetof(struct tramp_header, gdt_base) ==
	       offsetof(struct tramp_header, gdt_limit) + 2, "lgdt operand");
_Static_assert(offsetof(struct tramp_header, far32_selector) ==
	       offsetof(struct tramp_header, far32_offset) + 4, "far32 pointer");
_Static_assert(offsetof(struct tramp_header, far64_selector) ==
	       offsetof(struct tramp_header, far64_offset) + 4, "far64 pointer");
/* Real mode addresses the header through CS with 16-bit offsets. */
_Static_assert(TRAMP_HDR + sizeof(struct tramp_header) < 0x1000, "header within the page");

#endif
