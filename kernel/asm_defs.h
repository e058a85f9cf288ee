/* SPDX-License-Identifier: MIT */
/* C constants for a layer's assembly, defined once: <layer>/asm_defs.c
 * (compiled with -S, never linked) lists them with ASM_DEFINE, and the
 * Makefile turns the markers it leaves into "%define NAME value" lines
 * in build/<variant>/gen/<layer>/asm_defs.inc. */
#ifndef APSTART_ASM_DEFS_H
#define APSTART_ASM_DEFS_H

#define ASM_DEFINE(name, value) \
	__asm__ volatile("\n.ascii \"->" #name " %0\"" :: "i"((long long)(value)))

#endif
