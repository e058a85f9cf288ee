/* SPDX-License-Identifier: MIT */
/* 16550 UART on COM1, 115200 8N1, polled. */
#ifndef APSTART_SERIAL_H
#define APSTART_SERIAL_H

#include <stdbool.h>

bool serial_init(void);          /* false if no UART answers at COM1 */
void serial_putc(char c);
bool serial_present(void);

#endif
