/* SPDX-License-Identifier: MIT */
/* A page of its own on the firmware's graphics output (GOP): lines of
 * ASCII text in the kernel's 8x16 font (wings/screen/fbcon.h), white on black,
 * from the top left on an 8x16 grid (so tests/iso/screentext reads it off
 * a screenshot), and a QR code of a payload below them. */
#ifndef APSTART_EFI_PAGE_H
#define APSTART_EFI_PAGE_H

#include <efi.h>

/* payload, else (it does not fit) short_payload goes into the code.
 * FALSE, with nothing drawn, if there is no GOP; *qr_text says what the
 * code holds ("the whole table", "the rows only", "no QR code: ..."). */
BOOLEAN page_show(const char *const *lines, UINTN nlines, const char *payload, UINTN len,
		  const char *short_payload, UINTN short_len, const char **qr_text);

/* A line to the serial port only (EFI_SERIAL_IO_PROTOCOL), so that a
 * drawn page stays as it is; nothing if there is no serial port. */
void page_serial_line(const char *s);

#endif
