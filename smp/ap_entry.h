/* SPDX-License-Identifier: MIT */
/* Where the trampoline lands in C. */
#ifndef APSTART_AP_ENTRY_H
#define APSTART_AP_ENTRY_H

#include <stdint.h>

void ap_entry(uint32_t apic_id, uint32_t index) __attribute__((noreturn));

#endif
