/* SPDX-License-Identifier: MIT */
/* Synthetic realmode blobs (lrm_fixture.h). Offsets are those of Debian
 * 12's blobs (6.1.0-57-amd64, 6.12.117+deb12-amd64, 6.1.0-57-686). */
#include "lrm_fixture.h"

#include <string.h>

#include "wings/linux_trampoline/lrm_blob.h"

static void put16(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static void put32(uint8_t *p, uint32_t v)
{
	put16(p, v);
	put16(p + 2, v >> 16);
}

static size_t put_bytes(uint8_t *p, const uint8_t *b, size_t n)
{
	memcpy(p, b, n);
	return n;
}

/* The relocation tables from two sorted lists. */
static void put_relocs(struct fixture *fx, const uint32_t *seg, uint32_t nseg,
		       const uint32_t *lin, uint32_t nlin)
{
	uint8_t *r = fx->relocs;
	put32(r, nseg);
	for (uint32_t i = 0; i < nseg; i++)
		put32(r + 4 + 4 * i, seg[i]);
	r += 4 + 4 * nseg;
	put32(r, nlin);
	for (uint32_t i = 0; i < nlin; i++)
		put32(r + 4 + 4 * i, lin[i]);
	fx->relocs_size = 8 + 4 * (nseg + nlin);
}

/* [cli;] then the entry's wbinvd/ljmpw; returns where the ljmpw goes. */
static uint32_t put_entry(struct fixture *fx, uint32_t at, int cli, enum fixture_entry entry)
{
	uint8_t *b = fx->blob;
	if (cli)
		b[at++] = 0xfa;
	if (entry == FIXTURE_SHIPPED) {
		fx->wbinvd_at = at;
		b[at++] = 0x0f;
		b[at++] = 0x09;
	}
	fx->ljmp_at = at;
	/* Shipped and edited ljmpw go to the same label; the patched build's
	 * label is 2 bytes earlier (the code after it moved up). */
	uint32_t to = at + 5 + (entry == FIXTURE_EDITED ? 2 : 0);
	b[at] = 0xea;
	put16(b + at + 1, to);
	put16(b + at + 3, 0);
	if (entry == FIXTURE_EDITED)
		b[at + 5] = b[at + 6] = 0xcc;
	return to;
}

static void make64(struct fixture *fx, int lock, enum fixture_entry entry)
{
	uint8_t *b = fx->blob;
	const uint32_t ro_end = lock ? 0x215e : 0x20f4;
	const uint32_t words[11] = { 0x1000, ro_end, 0x1000, 0x5000, 0x1050,
				     lock ? 0x2100 : 0x20e0, 0x4000, 0x11f0, 0x3010, 0x2080, 0x08 };
	fx->blob_size = 0x6264;
	fx->th = 0x5000;
	fx->pgd = 0x4000;
	fx->stack_end = 0x6020;
	for (unsigned i = 0; i < 11; i++)
		put32(b + 4 * i, words[i]);
	uint32_t q = put_entry(fx, 0x1000, 1, entry);
	static const uint8_t moves[] = { 0x8c, 0xc8, 0x8e, 0xd8, 0x8e, 0xc0, 0x8e, 0xd0 };
	q += put_bytes(b + q, moves, sizeof moves);
	if (lock) {
		static const uint8_t loop[] = { 0x66, 0xf0, 0x0f, 0xba, 0x2e, 0x18, 0x50, 0x00,
						0x73, 0x04, 0xf3, 0x90, 0xeb, 0xf2 };
		q += put_bytes(b + q, loop, sizeof loop);
	}
	static const uint8_t stack[] = { 0x66, 0xbc, 0x20, 0x60, 0x00, 0x00, 0xe8, 0x57, 0x00 };
	put_bytes(b + q, stack, sizeof stack);
	/* Where startup_32 names tr_flags, tr_cr4, tr_efer (both words). */
	static const uint32_t named[][2] = { { 0x2003, 0x5014 }, { 0x201a, 0x5010 },
					     { 0x2041, 0x5008 }, { 0x2047, 0x500c } };
	for (unsigned i = 0; i < 4; i++)
		put32(b + named[i][0], named[i][1]);
	put32(b + 0x3010 + LRM_WAKEUP_SIGNATURE_AT, LRM_WAKEUP_SIGNATURE);
	put32(b + fx->blob_size - 4, LRM_END_SIGNATURE);
	const uint32_t seg[] = { fx->ljmp_at + 3, 0x1054, 0x11ce, 0x11f5, 0x1220 };
	const uint32_t lin[] = { 0x0, 0x4, 0x8, 0xc, 0x10, 0x14, 0x18, 0x1c, 0x20, 0x24,
				 0x32, 0x2003, 0x201a, 0x2041, 0x2047 };
	put_relocs(fx, seg, 5, lin, 15);
}

static void make32(struct fixture *fx, enum fixture_entry entry)
{
	uint8_t *b = fx->blob;
	const uint32_t words[7] = { 0x1000, 0x1ee7, 0x1000, 0x2100, 0x1080, 0x2010, 0x1ec4 };
	fx->blob_size = 0x3344;
	fx->th = 0x2100;
	for (unsigned i = 0; i < 7; i++)
		put32(b + 4 * i, words[i]);
	uint32_t q = put_entry(fx, 0x1000, 0, entry);
	/* mov %cs,%ax; mov %ax,%ds; cli; movl tr_start,%eax; lidtl tr_idt;
	 * lgdtl tr_gdt */
	const uint8_t code[] = { 0x8c, 0xc8, 0x8e, 0xd8, 0xfa, 0x66, 0xa1, 0x00, 0x21,
				 0x66, 0x0f, 0x01, 0x1e, 0x20, 0x00, 0x66, 0x0f, 0x01, 0x16, 0x06, 0x21 };
	put_bytes(b + q, code, sizeof code);
	put32(b + 0x2010 + LRM_WAKEUP_SIGNATURE_AT, LRM_WAKEUP_SIGNATURE);
	put32(b + fx->blob_size - 4, LRM_END_SIGNATURE);
	const uint32_t seg[] = { fx->ljmp_at + 3, 0x105e, 0x1085, 0x10b0 };
	const uint32_t lin[] = { 0x0, 0x4, 0x8, 0xc, 0x10, 0x14, 0x18, 0x42, 0x1024 };
	put_relocs(fx, seg, 4, lin, 9);
}

void fixture_make(struct fixture *fx, uint32_t layout, enum fixture_entry entry)
{
	memset(fx, 0, sizeof *fx);
	if (layout == LRM_LAYOUT_LINUX_6_1_I386)
		make32(fx, entry);
	else
		make64(fx, layout == LRM_LAYOUT_LINUX_6_12_X86_64, entry);
}
