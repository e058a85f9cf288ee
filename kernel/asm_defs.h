/* SPDX-License-Identifier: MIT */
/* How a layer hands C constants to its assembly, so that each has one
 * definition: the layer's asm_defs.c (compiled with -S only, never linked)
 * lists them with ASM_DEFINE, each leaving a "->NAME value" marker in the
 * compiler's output, and the Makefile turns the markers into
 * "%define NAME value" lines in build/<variant>/gen/<layer>/asm_defs.inc,
 * which the .asm files include as "<layer>/asm_defs.inc". */
#ifndef APSTART_ASM_DEFS_H
#define APSTART_ASM_DEFS_H

#define ASM_DEFINE(name, value) \
	__asm__ volatile("\n.ascii \"->" #name " %0\"" :: "i"((long long)(value)))

#endif
