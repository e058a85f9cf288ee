/* SPDX-License-Identifier: MIT */
/* 8042 keyboard controller, polled (no interrupt: the legacy PICs stay
 * masked). Ports and status bits: IBM PC/AT Technical Reference,
 * keyboard controller; scan codes of sets 1 and 2 alike: a release is a
 * byte with bit 7 set (set 1) or follows 0xF0 (set 2). */
#include "wings/screen/kbd.h"

#include <stdint.h>

#include "kernel/x86.h"

#define KBD_DATA 0x60
#define KBD_STATUS 0x64
#define STATUS_OUTPUT_FULL 0x01
#define STATUS_AUX_DATA 0x20 /* the byte is the mouse's */
#define SET2_RELEASE 0xF0
#define PREFIX_E0 0xE0
#define MAX_BYTES 32 /* per call: a stuck controller cannot hold us */

static bool after_release;

bool kbd_key_pressed(void)
{
	bool pressed = false;

	for (int i = 0; i < MAX_BYTES; i++) {
		uint8_t st = inb(KBD_STATUS);
		/* No controller: the bus floats to all ones. */
		if (st == 0xFF || !(st & STATUS_OUTPUT_FULL))
			break;
		uint8_t b = inb(KBD_DATA);
		if (st & STATUS_AUX_DATA)
			continue;
		if (b == SET2_RELEASE) {
			after_release = true;
			continue;
		}
		if (b == PREFIX_E0)
			continue;
		if (after_release) {
			after_release = false;
			continue;
		}
		/* Make codes are below 0x80; 0xFA (ack), 0xAA (self-test)
		 * and other controller replies are not keys. */
		if (b && b < 0x80)
			pressed = true;
	}
	return pressed;
}
