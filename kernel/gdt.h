/* The kernel GDT lives in boot/start.asm (same selectors as the
 * trampoline's: 0x08 code32, 0x10 data, 0x18 code64). */
#ifndef APSTART_GDT_H
#define APSTART_GDT_H

void gdt_reload(void);

#endif
