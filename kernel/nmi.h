/* SPDX-License-Identifier: MIT */
/* NMIs are events, not faults: kernel/trap.c hands vector 2 here. The
 * handler reads the platform's reason the way Linux reads the legacy
 * sources, counts the NMI, tells the registered hook (smp/events.c counts
 * it against the CPU it hit) and returns to whatever the CPU was doing. It
 * never prints: an NMI can arrive while its own CPU holds the console
 * lock. The BSP reports the counts later, from ordinary code. Why an AP
 * in the trampoline cannot take one, and why the trampoline keeps a
 * zero-limit IDT as Linux's does: docs/hardware.md, "Where an NMI
 * cannot be survived". */
#ifndef APSTART_NMI_H
#define APSTART_NMI_H

#include <stdint.h>

/* System control port B, as Linux's arch/x86/include/asm/mach_traps.h
 * names its bits (the PC/AT port 0x61; read: bit 7 a PCI SERR#/parity
 * error, bit 6 an I/O channel check (IOCHK#); write: bit 2 clears and
 * disables SERR#, bit 3 clears and disables IOCHK#). */
#define NMI_REASON_PORT        0x61
#define NMI_REASON_SERR        0x80
#define NMI_REASON_IOCHK       0x40
#define NMI_REASON_MASK        (NMI_REASON_SERR | NMI_REASON_IOCHK)
#define NMI_REASON_CLEAR_SERR  0x04
#define NMI_REASON_CLEAR_IOCHK 0x08
#define NMI_REASON_CLEAR_MASK  0x0F

/* Once, on the BSP, with the IDT: NMIs are counted (and attributed) from
 * here on. Its handler runs from trap_dispatch() for vector 2, with NMIs
 * blocked until its IRET (SDM Vol. 3A §6.7, "Nonmaskable Interrupt"). */
void nmi_init(void);

/* hook(reason): the port B value this NMI was attributed to. Runs in NMI
 * context: atomics only, no locks, no output. */
void nmi_set_hook(void (*hook)(uint8_t reason));

/* The CPU with this APIC ID was just sent INIT: whatever it was doing
 * ended, its NMI handler included, so a port B lock it held is free. */
void nmi_cpu_reset(uint32_t apic_id);

/* Every NMI taken on any CPU since boot. */
uint32_t nmi_total(void);

/* "serr", "iochk" or "unknown" for a port B value. */
const char *nmi_reason_name(uint8_t reason);

#endif
