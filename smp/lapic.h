/* SPDX-License-Identifier: MIT */
/* Local APIC access in xAPIC (MMIO) or x2APIC (MSR) mode, chosen once on
 * the BSP and applied on every AP. */
#ifndef APSTART_LAPIC_H
#define APSTART_LAPIC_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/keyword.h"

struct lapic_status {
	bool x2apic;            /* mode in use */
	bool x2apic_supported;  /* CPUID.1:ECX[21] */
	bool firmware_x2apic;   /* found enabled at hand-over */
	uint64_t mmio_phys;     /* xAPIC base from IA32_APIC_BASE */
};

/* x2apic=auto|on|off: auto keeps the firmware's mode and switches to
 * x2APIC only when an APIC ID needs it. */
enum x2apic_pref { X2APIC_AUTO, X2APIC_ON, X2APIC_OFF };
extern const struct keyword x2apic_words[]; /* x2apic=: smp/modes.c */

/* need_x2apic: some CPU has an APIC ID above 254. Returns false if the
 * LAPIC cannot be used at all. Registers lapic_eoi() with the IDT. */
bool lapic_init_bsp(enum x2apic_pref pref, bool need_x2apic);
void lapic_init_ap(void);  /* same mode as the BSP, software-enable */

/* extnmi= (Linux's apic_extnmi=): which CPUs take the platform's NMIs
 * on LINT1. */
enum extnmi { EXTNMI_BSP, EXTNMI_ALL, EXTNMI_NONE };
extern const struct keyword extnmi_words[];
/* BSP, before any AP starts: route LINT1 on this CPU. */
void lapic_set_extnmi(enum extnmi mode);
/* AP, once online: route LINT1 if extnmi=all. */
void lapic_extnmi_ap(void);
const struct lapic_status *lapic_status(void);

uint32_t lapic_id(void);
/* Highest xAPIC physical destination: 0xFF is the broadcast (SDM Vol. 3A
 * §11.6.1, destination field 8 bits; §11.6.2.1). */
#define XAPIC_MAX_ID 0xFEu
/* Can an IPI reach APIC ID dest in the mode in use? (xAPIC: 8-bit
 * destinations up to XAPIC_MAX_ID only.) */
bool lapic_reachable(uint32_t dest);
void lapic_eoi(void);

/* ICR low-dword fields (SDM Vol. 3A Figure 11-12). */
#define ICR_FIXED        (0u << 8)
#define ICR_INIT         (5u << 8)
#define ICR_NMI          (4u << 8)
#define ICR_STARTUP      (6u << 8)
#define ICR_BUSY         (1u << 12)
#define ICR_LEVEL_ASSERT (1u << 14)
#define ICR_TRIGGER_LEVEL (1u << 15)
#define ICR_ALL_BUT_SELF (3u << 18)  /* destination shorthand 11b */

/* Send one IPI to a physical destination. Waits (bounded) for the ICR to
 * go idle before and after in xAPIC mode; false if it never did. */
bool lapic_send_ipi(uint32_t dest, uint32_t icr_low);
/* The same, running after_write right behind the ICR write, before the
 * wait for it to go idle (or instead of the write when the ICR stayed
 * busy): the point the icount fence needs (smp/instrument.h). */
bool lapic_send_ipi_then(uint32_t dest, uint32_t icr_low, void (*after_write)(void));
/* The two halves of lapic_send_ipi_then(), for a caller that does
 * something between the ICR write and the wait for it to go idle (Linux's
 * STARTUP IPIs: smp/sipi.c). In x2APIC mode there is no wait. */
bool lapic_write_icr(uint32_t dest, uint32_t icr_low, void (*after_write)(void));
bool lapic_wait_icr_idle(void);
/* The same IPI to every APIC but this one, by the all-excluding-self
 * destination shorthand (the ICR's, above; in x2APIC mode the ICR MSR
 * keeps the field, SDM Vol. 3A §11.12.9). Only for INIT and STARTUP at
 * bring-up: smp/many_aps.c and smp/smp.c say when it may be used. */
bool lapic_send_ipi_all_but_self(uint32_t icr_low);
/* Clear, then read the Error Status Register: the write arms it (SDM Vol.
 * 3A §11.5.3: "write before read"). */
uint32_t lapic_read_esr(void);
void lapic_clear_esr(void);

/* LAPIC timer, calibrated against the TSC (its input clock is
 * model-specific: SDM Vol. 3A §11.5.4). Used as the BSP's safety-net
 * wake-up while it halts waiting for an AP. */
void lapic_timer_calibrate(void);
uint32_t lapic_timer_khz(void);
void lapic_timer_periodic_us(uint32_t us);
/* Periodic, `ticks` timer input clocks per period (0 is taken as 1). */
void lapic_timer_periodic_ticks(uint32_t ticks);
void lapic_timer_stop(void);

#endif
