/* SPDX-License-Identifier: MIT */
/* Where the trampoline lands in C. */
#ifndef APSTART_AP_ENTRY_H
#define APSTART_AP_ENTRY_H

#include <stdint.h>

void ap_entry(uint32_t apic_id, uint32_t index) __attribute__((noreturn));
/* AP: tell the BSP its state changed (in bsp_wait=hlt mode it sleeps
 * until an AP's VEC_WAKE IPI; otherwise it spins and this does nothing). */
void ap_notify_bsp(void);

#endif
