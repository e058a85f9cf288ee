/* SPDX-License-Identifier: MIT */
/* VGA mode 12h and back, by registers. Register values and the access
 * sequences follow the IBM VGA Technical Reference (1987), "Registers"
 * and the BIOS mode 12h parameter table; what each step is for is said
 * where it happens. */
#include "wings/screen/vga_gfx.h"

#include "kernel/bootmem.h"
#include "wings/screen/fbcon.h"
#include "kernel/x86.h"

#define MISC_WRITE 0x3C2
#define MISC_READ 0x3CC
#define SEQ_INDEX 0x3C4
#define SEQ_DATA 0x3C5
#define GC_INDEX 0x3CE
#define GC_DATA 0x3CF
#define CRTC_INDEX 0x3D4
#define CRTC_DATA 0x3D5
#define AC_INDEX 0x3C0 /* index and data writes alternate (flip-flop) */
#define AC_READ 0x3C1
#define INPUT_STATUS_1 0x3DA /* reading it resets the AC flip-flop */
#define DAC_READ_INDEX 0x3C7
#define DAC_WRITE_INDEX 0x3C8
#define DAC_DATA 0x3C9

#define SEQ_N 5
#define CRTC_N 25
#define GC_N 9
#define AC_N 21
#define AC_VIDEO_ON 0x20 /* index bit 5: the AC drives the screen again */
#define CRTC_PROTECT 0x11 /* bit 7 write-protects CRTC 0-7 */
#define GC_BIT_MASK 8
#define SEQ_MAP_MASK 2

#define PLANE_BYTES 0x10000u
#define VRAM ((volatile uint8_t *)(uintptr_t)0xA0000)
#define BYTES_PER_LINE (VGA_GFX_WIDTH / 8)

struct vga_regs {
	uint8_t misc, seq[SEQ_N], crtc[CRTC_N], gc[GC_N], ac[AC_N];
};

/* Mode 12h: 640x480, 16 colours in 4 planes, 8-dot characters, 25 MHz
 * dot clock, memory at 0xA0000 (64 KiB window). */
static const struct vga_regs mode12h = {
	.misc = 0xE3,
	.seq = { 0x03, 0x01, 0x0F, 0x00, 0x06 },
	.crtc = { 0x5F, 0x4F, 0x50, 0x82, 0x54, 0x80, 0x0B, 0x3E, 0x00, 0x40, 0x00,
		  0x00, 0x00, 0x00, 0x00, 0x00, 0xEA, 0x8C, 0xDF, 0x28, 0x00, 0xE7,
		  0x04, 0xE3, 0xFF },
	.gc = { 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x05, 0x0F, 0xFF },
	/* Palette: colour 0 -> DAC 0 (black), 15 -> DAC 0x3F (white). */
	.ac = { 0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x14, 0x07, 0x38, 0x39, 0x3A,
		0x3B, 0x3C, 0x3D, 0x3E, 0x3F, 0x01, 0x00, 0x0F, 0x00, 0x00 },
};
#define DAC_WHITE 0x3F

static struct vga_regs saved;
static uint8_t saved_dac[256 * 3];
static uint8_t *saved_plane2; /* the text mode's fonts, from bootmem */
static bool active;

static uint8_t rd(uint16_t index_port, uint8_t index)
{
	outb(index_port, index);
	return inb(index_port + 1);
}

static void wr(uint16_t index_port, uint8_t index, uint8_t v)
{
	outb(index_port, index);
	outb(index_port + 1, v);
}

static void read_regs(struct vga_regs *r)
{
	r->misc = inb(MISC_READ);
	for (uint8_t i = 0; i < SEQ_N; i++)
		r->seq[i] = rd(SEQ_INDEX, i);
	for (uint8_t i = 0; i < CRTC_N; i++)
		r->crtc[i] = rd(CRTC_INDEX, i);
	for (uint8_t i = 0; i < GC_N; i++)
		r->gc[i] = rd(GC_INDEX, i);
	for (uint8_t i = 0; i < AC_N; i++) {
		(void)inb(INPUT_STATUS_1);
		outb(AC_INDEX, i); /* bit 5 clear: screen blanked while read */
		r->ac[i] = inb(AC_READ);
	}
	(void)inb(INPUT_STATUS_1);
	outb(AC_INDEX, AC_VIDEO_ON);
}

static void write_regs(const struct vga_regs *r)
{
	/* Sequencer held in synchronous reset while the clock changes. */
	wr(SEQ_INDEX, 0, 0x01);
	outb(MISC_WRITE, r->misc);
	for (uint8_t i = 1; i < SEQ_N; i++)
		wr(SEQ_INDEX, i, r->seq[i]);
	wr(SEQ_INDEX, 0, r->seq[0]);
	/* CRTC 0-7 are write-protected by bit 7 of register 0x11: clear it
	 * first, write the others, then 0x11 itself. */
	wr(CRTC_INDEX, CRTC_PROTECT, rd(CRTC_INDEX, CRTC_PROTECT) & 0x7F);
	for (uint8_t i = 0; i < CRTC_N; i++)
		if (i != CRTC_PROTECT)
			wr(CRTC_INDEX, i, r->crtc[i]);
	wr(CRTC_INDEX, CRTC_PROTECT, r->crtc[CRTC_PROTECT]);
	for (uint8_t i = 0; i < GC_N; i++)
		wr(GC_INDEX, i, r->gc[i]);
	for (uint8_t i = 0; i < AC_N; i++) {
		(void)inb(INPUT_STATUS_1);
		outb(AC_INDEX, i);
		outb(AC_INDEX, r->ac[i]);
	}
	(void)inb(INPUT_STATUS_1);
	outb(AC_INDEX, AC_VIDEO_ON);
}

/* Plane 2 (where text modes keep their fonts) as plain memory at
 * 0xA0000: one plane, no odd/even, no chaining, write mode 0. */
static void plane2_access(void)
{
	wr(SEQ_INDEX, SEQ_MAP_MASK, 0x04);
	wr(SEQ_INDEX, 4, 0x06);
	wr(GC_INDEX, 1, 0x00); /* no set/reset */
	wr(GC_INDEX, 3, 0x00); /* no rotate, no logic function */
	wr(GC_INDEX, 4, 0x02); /* read map 2 */
	wr(GC_INDEX, 5, 0x00);
	wr(GC_INDEX, 6, 0x05); /* graphics, 0xA0000-0xAFFFF */
	wr(GC_INDEX, GC_BIT_MASK, 0xFF);
}

static void dac_rw(uint8_t *rgb, bool write)
{
	outb(write ? DAC_WRITE_INDEX : DAC_READ_INDEX, 0);
	for (uint32_t i = 0; i < sizeof saved_dac; i++) {
		if (write)
			outb(DAC_DATA, rgb[i]);
		else
			rgb[i] = inb(DAC_DATA);
	}
}

static void dac_set(uint8_t index, uint8_t level)
{
	outb(DAC_WRITE_INDEX, index);
	for (int i = 0; i < 3; i++)
		outb(DAC_DATA, level);
}

/* A VGA answers with what was written to its bit mask register and
 * keeps the colour I/O address bit (text at 0xB8000) in MISC. */
static bool vga_present(void)
{
	if (!(inb(MISC_READ) & 0x01))
		return false;
	uint8_t old = rd(GC_INDEX, GC_BIT_MASK);
	wr(GC_INDEX, GC_BIT_MASK, 0x5A);
	bool ok = rd(GC_INDEX, GC_BIT_MASK) == 0x5A;
	wr(GC_INDEX, GC_BIT_MASK, old);
	return ok;
}

bool vga_gfx_enter(void)
{
	if (active)
		return true;
	if (!vga_present())
		return false;
	/* 64 KiB the run does not need: taken only when this page is shown. */
	if (!saved_plane2)
		saved_plane2 = bootmem_try_alloc(PLANE_BYTES, 16, "the VGA text fonts' copy");
	if (!saved_plane2)
		return false;
	read_regs(&saved);
	dac_rw(saved_dac, false);
	plane2_access();
	for (uint32_t i = 0; i < PLANE_BYTES; i++)
		saved_plane2[i] = VRAM[i];
	write_regs(&mode12h);
	dac_set(0, 0);
	dac_set(DAC_WHITE, 0x3F);
	active = true;
	vga_gfx_fill(0, 0, VGA_GFX_WIDTH, VGA_GFX_HEIGHT, false);
	return true;
}

void vga_gfx_leave(void)
{
	if (!active)
		return;
	plane2_access();
	for (uint32_t i = 0; i < PLANE_BYTES; i++)
		VRAM[i] = saved_plane2[i];
	write_regs(&saved);
	dac_rw(saved_dac, true);
	active = false;
}

bool vga_gfx_active(void)
{
	return active;
}

/* Write mode 0 with all four planes enabled: a byte written sets its 8
 * pixels to colour 15 (bit 1) or 0 (bit 0). Pixels whose bit-mask bit
 * is clear keep the latched value, which the read before loads. */
static void put_byte(uint32_t offset, uint8_t mask, uint8_t bits)
{
	wr(GC_INDEX, GC_BIT_MASK, mask);
	(void)VRAM[offset];
	VRAM[offset] = bits;
}

void vga_gfx_fill(uint32_t x, uint32_t y, uint32_t w, uint32_t h, bool white)
{
	if (!active || x >= VGA_GFX_WIDTH || y >= VGA_GFX_HEIGHT)
		return;
	if (w > VGA_GFX_WIDTH - x)
		w = VGA_GFX_WIDTH - x;
	if (h > VGA_GFX_HEIGHT - y)
		h = VGA_GFX_HEIGHT - y;
	uint8_t bits = white ? 0xFF : 0x00;
	for (uint32_t yy = y; yy < y + h; yy++) {
		uint32_t xx = x, end = x + w;
		while (xx < end) {
			uint32_t in_byte = 8 - xx % 8;
			if (in_byte > end - xx)
				in_byte = end - xx;
			uint8_t mask = (uint8_t)((0xFFu >> (xx % 8)) &
						 ~(0xFFu >> (xx % 8 + in_byte)));
			put_byte(yy * BYTES_PER_LINE + xx / 8, mask, bits);
			xx += in_byte;
		}
	}
	wr(GC_INDEX, GC_BIT_MASK, 0xFF);
}

void vga_gfx_char(uint32_t col, uint32_t row, char c)
{
	unsigned char ch = (unsigned char)c;
	if (!active || col >= BYTES_PER_LINE || (row + 1) * FBCON_CELL_H > VGA_GFX_HEIGHT)
		return;
	if (ch < 32 || ch > 126)
		ch = '?';
	const uint8_t *glyph = fbcon_font8x16[ch - 32];
	wr(GC_INDEX, GC_BIT_MASK, 0xFF);
	for (uint32_t y = 0; y < FBCON_CELL_H; y++)
		VRAM[(row * FBCON_CELL_H + y) * BYTES_PER_LINE + col] = glyph[y];
}
