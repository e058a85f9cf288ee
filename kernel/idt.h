/* SPDX-License-Identifier: MIT */
/* The interrupt descriptor table: built once, loaded on every CPU. */
#ifndef APSTART_IDT_H
#define APSTART_IDT_H

void idt_init(void);  /* once, on the BSP */
void idt_load(void);  /* on every CPU */

#endif
