/* SPDX-License-Identifier: MIT */
/* The one GDT layout, for the kernel (kernel/gdt.asm) and the AP
 * trampoline (realmode/trampoline.asm), both laid out by GDT_TABLE in
 * kernel/gdt.inc from these values: flat segments, base 0, limit 4 GiB
 * (SDM Vol. 3A §3.4.5, segment descriptors; §5.2.1, L bit). */
#ifndef APSTART_GDT_H
#define APSTART_GDT_H

#define SEL_CODE32 0x08
#define SEL_DATA   0x10
#define SEL_CODE64 0x18

#define GDT_DESC_CODE32 0x00CF9A000000FFFFull /* G, D=1; present, DPL 0, code exec/read */
#define GDT_DESC_DATA   0x00CF92000000FFFFull /* G, B=1; present, DPL 0, data read/write */
#define GDT_DESC_CODE64 0x00AF9A000000FFFFull /* G, L=1; present, DPL 0, code exec/read */

/* GDT_TABLE writes null, code32, data, code64, in this order. */
_Static_assert(SEL_CODE32 == 1 * 8 && SEL_DATA == 2 * 8 && SEL_CODE64 == 3 * 8,
	       "kernel/gdt.inc lays the descriptors out in selector order");

/* Load the kernel GDT and reload every segment register (APs, to leave
 * the trampoline's copy). */
void gdt_reload(void);

#endif
