/* SPDX-License-Identifier: MIT */
/* What happens on a vector: CPU exceptions, NMIs, interrupts. */
#ifndef APSTART_TRAP_H
#define APSTART_TRAP_H

#include <stdbool.h>
#include <stdint.h>

#include "kernel/trap_frame.h"

/* The NMI's vector (SDM Vol. 3A §6.3, Table 6-1) and the interrupt
 * vectors in use besides the exceptions; every other vector from 32 up
 * is a stray (isr.asm has a stub for all 256). 0xFF for spurious: SDM
 * Vol. 3A §11.9 recommends the low nibble all ones for older APICs. */
#define VEC_NMI      2
#define VEC_WAKE     0xF0
#define VEC_WING     0xE0 /* a wing's (app/wing.h: .interrupt) */
#define VEC_TIMER    0xF1
#define VEC_SPURIOUS 0xFF

/* VEC_WAKE and VEC_TIMER are acknowledged through the interrupt
 * controller's end-of-interrupt, which its driver registers here. */
void trap_set_eoi(void (*eoi)(void));
/* An exception some code expects and takes back: an MSR a CPU may lack
 * (kernel/msr_safe.c, asked first), else the fixup app/wing.c set (a
 * wing's firmware call): true once it has pointed the frame where to
 * resume, false to leave the exception fatal. */
void trap_set_fault_fixup(bool (*fixup)(struct trap_frame *f));
/* VEC_NMI: handler() runs in NMI context (kernel/nmi.c registers it). */
void trap_set_nmi_handler(void (*handler)(void));
/* VEC_WING: acknowledged, then handler() runs (interrupts off) for as
 * long as it takes; set once at boot by the layer above (app/wing.c).
 * NULL: VEC_WING is a stray. */
void trap_set_wing_vector(void (*handler)(void));
/* A stray interrupt (any vector from 32 up but VEC_WAKE and VEC_TIMER,
 * VEC_SPURIOUS included) is counted and hook(vector) told, in interrupt
 * context (atomics only, no output); then the CPU carries on. */
void trap_set_stray_hook(void (*hook)(uint8_t vector));
/* Stray interrupts taken on any CPU since boot. */
uint32_t trap_stray_total(void);
/* "#GP general protection" and the like, for vectors 0..31. */
const char *trap_exception_name(uint64_t vector);

#endif
