/* SPDX-License-Identifier: MIT */
/* The boot menu: on the screen and, through the firmware's console
 * multiplexer, on the serial console; keys from either. */
#ifndef APSTART_EFI_MENU_H
#define APSTART_EFI_MENU_H

#include <efi.h>

#define CMDLINE_MAX 255
#define MENU_MAX_ENTRIES 8

struct boot_entry {
	UINTN wbinvd;                  /* kernel variant: 0 or 1 */
	CHAR8 cmdline[CMDLINE_MAX + 1];
	BOOLEAN from_config;           /* defined in \apstart\loader.cfg */
};

struct menu {
	struct boot_entry entry[MENU_MAX_ENTRIES];
	UINTN count;
	UINTN def;                     /* index of the default entry */
	UINTN timeout_s;               /* 0: boot the default at once */
#define MENU_WAIT_FOREVER ((UINTN)-1)  /* no countdown: wait for a key */
};

/* The entries every stick has, like the GRUB menu's first four. */
void menu_init(struct menu *m);

/* Shows the menu until an entry is chosen (its command line possibly
 * edited in place) or the countdown runs out. Returns the entry's index,
 * or -1 when the user asked to return to the firmware. */
INTN menu_choose(struct menu *m);

/* Waits up to seconds (0: not at all) for any key; true if one came. */
BOOLEAN menu_wait_key(UINTN seconds);

#endif
