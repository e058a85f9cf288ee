/* SPDX-License-Identifier: MIT */
/* COM1 16550 driver: polled output only, every wait bounded so that a
 * missing or stuck UART can never hang the kernel. */
#include "kernel/serial.h"

#include <stdint.h>

#include "kernel/x86.h"

#define COM1 0x3F8
/* 16550 register offsets (PC16550D data sheet, Table 2). */
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
#define BAUD_DIVISOR 1 /* 115200 = 1.8432 MHz / 16 / 1 */

static bool present;

bool serial_init(void)
{
	/* Scratch register round trip: absent on machines without a UART. */
	outb(COM1 + UART_SCR, 0x5A);
	if (inb(COM1 + UART_SCR) != 0x5A)
		return present = false;
	outb(COM1 + UART_IER, 0x00);
	outb(COM1 + UART_LCR, LCR_DLAB);
	outb(COM1 + UART_DLL, BAUD_DIVISOR & 0xFF);
	outb(COM1 + UART_DLM, BAUD_DIVISOR >> 8);
	outb(COM1 + UART_LCR, LCR_8N1);
	outb(COM1 + UART_FCR, 0xC7); /* enable + clear FIFOs, 14-byte level */
	outb(COM1 + UART_MCR, 0x03); /* DTR, RTS */
	return present = true;
}

bool serial_present(void)
{
	return present;
}

void serial_putc(char c)
{
	if (!present)
		return;
	/* At 115200 baud a byte takes ~87 us; 1M polls is far longer. */
	for (uint32_t spins = 0; spins < 1000000; spins++)
		if (inb(COM1 + UART_LSR) & LSR_THRE)
			break;
	outb(COM1 + UART_THR, (uint8_t)c);
}
