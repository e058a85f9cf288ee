/* SPDX-License-Identifier: MIT */
/* The keyboard, polled through the 8042 controller (or the USB legacy
 * emulation firmware provides at its ports), for "any key". */
#ifndef APSTART_KBD_H
#define APSTART_KBD_H

#include <stdbool.h>

/* Drains what the controller holds; true if a key went down since the
 * last call. False when there is no controller. */
bool kbd_key_pressed(void);

#endif
