/* SPDX-License-Identifier: MIT */
/* 16550 UART driver: polled output only, every wait bounded so that a
 * missing or stuck UART can never hang the kernel. COM1 at 115200 until
 * the command line picks another port (console=ttyS<n>,<baud>). */
#include "kernel/serial.h"

#include <stdint.h>

#include "kernel/x86.h"

static bool present;
static uint16_t port = SERIAL_COM1;

/* Linux's fixed legacy addresses for ttyS0-3 (arch/x86/include/asm/
 * serial.h, SERIAL_PORT_DFNS), the PC/AT standard for COM1-COM4. */
uint16_t serial_std_port(uint32_t n)
{
	static const uint16_t ports[SERIAL_PORTS] = { 0x3F8, 0x2F8, 0x3E8, 0x2E8 };
	return n < SERIAL_PORTS ? ports[n] : 0;
}

bool serial_init_port(uint16_t base, uint32_t baud)
{
	if (!serial_baud_valid(baud))
		return false;
	/* Scratch register round trip: absent on machines without a UART. */
	outb(base + UART_SCR, 0x5A);
	if (inb(base + UART_SCR) != 0x5A)
		return false;
	uint32_t divisor = SERIAL_MAX_BAUD / baud;
	outb(base + UART_IER, 0x00);
	outb(base + UART_LCR, LCR_DLAB);
	outb(base + UART_DLL, divisor & 0xFF);
	outb(base + UART_DLM, (divisor >> 8) & 0xFF);
	outb(base + UART_LCR, LCR_8N1);
	outb(base + UART_FCR, FCR_ON);
	outb(base + UART_MCR, MCR_ON);
	port = base;
	return present = true;
}

bool serial_init(void)
{
	return serial_init_port(SERIAL_COM1, 115200);
}

bool serial_present(void)
{
	return present;
}

void serial_putc(char c)
{
	if (!present)
		return;
	/* At 1200 baud a byte takes ~8 ms; 1M polls of ~1 us are longer. */
	for (uint32_t spins = 0; spins < 1000000; spins++)
		if (inb(port + UART_LSR) & LSR_THRE)
			break;
	outb(port + UART_THR, (uint8_t)c);
}
