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
	const CHAR16 *module;          /* an LRM file (volume.h) handed over as the
					* kernel's Multiboot2 module, or NULL */
	CHAR8 cmdline[CMDLINE_MAX + 1];
	BOOLEAN from_config;           /* defined in \apstart\loader.cfg */
};

struct menu {
	struct boot_entry entry[MENU_MAX_ENTRIES];
	UINTN count;
	UINTN def;                     /* index of the default entry */
	UINTN timeout_s;               /* 0: boot the default at once */
#define MENU_WAIT_FOREVER ((UINTN)-1)  /* no countdown: wait for a key */
	/* The A/B session's lines (wings/efi/session.h); empty: not offered. */
	CHAR16 session_line[200];      /* 's' starts one */
	CHAR16 resume_line[120];       /* 'r' resumes a stopped one */
};

/* menu_choose's answers besides an entry's index. */
#define MENU_FIRMWARE (-1)
#define MENU_SESSION (-2)
#define MENU_RESUME (-3)

/* The entries every stick has, like the GRUB menu's first four. */
void menu_init(struct menu *m);

/* One more entry: kernel variant 0 with module (an LRM file on the
 * volume) and cmdline; nothing if the menu is full. */
void menu_add_module(struct menu *m, const CHAR16 *module, const CHAR8 *cmdline);

/* Shows the menu until an entry is chosen (its command line possibly
 * edited in place) or the countdown runs out. Returns the entry's index,
 * MENU_SESSION or MENU_RESUME ('s', 'r'), or MENU_FIRMWARE when the user
 * asked to return to the firmware. */
INTN menu_choose(struct menu *m);

/* Waits up to seconds (0: not at all) for any key; true if one came. */
BOOLEAN menu_wait_key(UINTN seconds);
/* The same with a prompt of one's own ("prompt N s"); the key is read. */
BOOLEAN menu_countdown(UINTN seconds, const CHAR16 *prompt);
/* Waits for a key, however long it takes. */
void menu_wait_any_key(void);

#endif
