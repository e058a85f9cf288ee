/* SPDX-License-Identifier: MIT */
/* 16550 UART, 8N1, polled: COM1 at 115200 from boot, another port or
 * speed on request. */
#ifndef APSTART_SERIAL_H
#define APSTART_SERIAL_H

#include <stdbool.h>
#include <stdint.h>

#define SERIAL_COM1  0x3F8
#define SERIAL_PORTS 4  /* ttyS0-ttyS3 = COM1-COM4 */

/* 16550 register offsets (PC16550D data sheet, Table 2) and the values
 * serial_init_port() sets; boot/cpu_floor.asm sets COM1 up the same way
 * (kernel/asm_defs.c). */
#define UART_THR 0   /* transmit holding (DLAB=0) */
#define UART_DLL 0   /* divisor latch low (DLAB=1) */
#define UART_IER 1
#define UART_DLM 1
#define UART_FCR 2
#define UART_LCR 3
#define UART_MCR 4
#define UART_LSR 5
#define UART_SCR 7
#define LCR_8N1  0x03
#define LCR_DLAB 0x80
#define LSR_THRE 0x20
#define FCR_ON   0xC7 /* enable + clear FIFOs, 14-byte level */
#define MCR_ON   0x03 /* DTR, RTS */

bool serial_init(void);          /* COM1 at 115200; false if no UART answers */
/* Switch output to the UART at I/O base at baud (a divisor of 115200);
 * false, and the current port kept, if none answers there. */
bool serial_init_port(uint16_t base, uint32_t baud);
/* I/O base of ttyS<n> (n < SERIAL_PORTS), else 0. */
uint16_t serial_std_port(uint32_t n);
/* A 16550's divisor latch makes 115200 / N baud (1.8432 MHz / 16 / N). */
#define SERIAL_MAX_BAUD 115200u
static inline bool serial_baud_valid(uint32_t baud)
{
	return baud && baud <= SERIAL_MAX_BAUD && SERIAL_MAX_BAUD % baud == 0;
}
void serial_putc(char c);
bool serial_present(void);

#endif
