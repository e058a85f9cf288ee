/* SPDX-License-Identifier: MIT */
/* What a Multiboot2 loader must check before it loads a kernel
 * (Multiboot2 §3.1), for the one format apstart uses: an ELF64
 * executable whose header asks for the i386 (32-bit) entry. Every read
 * is bounded by the file size; fields are read byte-wise. */
#include "wings/efi/kernel.h"

#include <efilib.h>

#include "lib/bytes.h"

#define MB2_HEADER_MAGIC 0xE85250D6u
#define MB2_SEARCH_LEN 32768          /* §3.1.1: within the first 32 KiB */
#define MB2_ARCH_I386 0
#define MB2_TAG_OPTIONAL 1u

/* Header tag types, §3.1.3-3.1.13. */
enum {
	HTAG_END = 0,
	HTAG_INFO_REQUEST = 1,
	HTAG_ADDRESS = 2,
	HTAG_ENTRY = 3,
	HTAG_CONSOLE = 4,
	HTAG_FRAMEBUFFER = 5,
	HTAG_MODULE_ALIGN = 6,
	HTAG_EFI_BS = 7,
	HTAG_EFI_I386_ENTRY = 8,
	HTAG_EFI_AMD64_ENTRY = 9,
	HTAG_RELOCATABLE = 10,
};

/* Boot information tag types this loader hands over (wings/efi/mb2info.c). */
static BOOLEAN info_provided(UINT32 type)
{
	switch (type) {
	case 1: case 2: case 6: case 8: case 12: case 14: case 15: case 17:
		return TRUE;
	default:
		return FALSE;
	}
}

static EFI_STATUS refuse(const CHAR16 *why, UINT64 value)
{
	Print(L"kernel: %s (0x%lx)\n", why, value);
	return EFI_UNSUPPORTED;
}

static EFI_STATUS parse_mb2_header(const UINT8 *file, UINTN size, struct kernel_image *k,
				   BOOLEAN *have_entry)
{
	UINTN limit = size < MB2_SEARCH_LEN ? size : MB2_SEARCH_LEN;
	const UINT8 *h = NULL;
	UINT32 hlen = 0;

	for (UINTN off = 0; off + 16 <= limit; off += 8) {
		const UINT8 *p = file + off;
		if (rd32(p) != MB2_HEADER_MAGIC)
			continue;
		UINT32 sum = rd32(p) + rd32(p + 4) + rd32(p + 8) + rd32(p + 12);
		if (sum != 0)
			continue;
		h = p;
		hlen = rd32(p + 8);
		if (hlen < 16 || hlen > size - off)
			return refuse(L"Multiboot2 header length out of the file", hlen);
		break;
	}
	if (!h)
		return refuse(L"no Multiboot2 header in the first 32 KiB", limit);
	if (rd32(h + 4) != MB2_ARCH_I386)
		return refuse(L"Multiboot2 architecture is not i386", rd32(h + 4));

	for (UINT32 off = 16; off + 8 <= hlen;) {
		const UINT8 *t = h + off;
		UINT16 type = rd16(t), flags = rd16(t + 2);
		UINT32 tsize = rd32(t + 4);
		if (tsize < 8 || tsize > hlen - off)
			return refuse(L"Multiboot2 header tag size out of the header", tsize);
		BOOLEAN optional = (flags & MB2_TAG_OPTIONAL) != 0;
		switch (type) {
		case HTAG_END:
			return EFI_SUCCESS;
		case HTAG_INFO_REQUEST:
			for (UINT32 i = 8; i + 4 <= tsize; i += 4)
				if (!optional && !info_provided(rd32(t + i)))
					return refuse(L"kernel requires a boot information tag this loader does not give",
						      rd32(t + i));
			break;
		case HTAG_ENTRY:
			if (tsize < 12)
				return refuse(L"entry address tag too small", tsize);
			k->entry = rd32(t + 8);
			*have_entry = TRUE;
			break;
		case HTAG_FRAMEBUFFER:
			k->wants_framebuffer = TRUE;
			break;
		case HTAG_CONSOLE:
		case HTAG_MODULE_ALIGN:      /* no modules are loaded */
		case HTAG_RELOCATABLE:       /* loaded where its ELF says */
		case HTAG_EFI_I386_ENTRY:    /* these two go with HTAG_EFI_BS */
		case HTAG_EFI_AMD64_ENTRY:
			break;
		case HTAG_ADDRESS:           /* a.out kludge: ELF only here */
		case HTAG_EFI_BS:            /* boot services are always exited */
		default:
			if (!optional)
				return refuse(L"kernel requires a Multiboot2 feature this loader lacks (header tag)",
					      type);
		}
		off += (tsize + 7) & ~7u;
	}
	return refuse(L"Multiboot2 header has no end tag", hlen);
}

/* ELF64 header and program headers (System V ABI, AMD64 supplement). */
static EFI_STATUS parse_elf(const UINT8 *f, UINTN size, struct kernel_image *k)
{
	if (size < 64 || f[0] != 0x7F || f[1] != 'E' || f[2] != 'L' || f[3] != 'F')
		return refuse(L"not an ELF file", size);
	if (f[4] != 2 || f[5] != 1 || rd16(f + 18) != 62)
		return refuse(L"not a little-endian ELF64 x86-64 file", rd16(f + 18));
	if (rd16(f + 16) != 2)
		return refuse(L"ELF file is not an executable", rd16(f + 16));
	UINT64 phoff = rd64(f + 32);
	UINT16 phentsize = rd16(f + 54), phnum = rd16(f + 56);
	if (phentsize < 56 || phoff > size || (UINT64)phnum * phentsize > size - phoff)
		return refuse(L"ELF program headers out of the file", phoff);

	k->lo = ~0ull;
	k->hi = 0;
	for (UINT16 i = 0; i < phnum; i++) {
		const UINT8 *ph = f + phoff + (UINTN)i * phentsize;
		if (rd32(ph) != 1 /* PT_LOAD */)
			continue;
		UINT64 off = rd64(ph + 8), paddr = rd64(ph + 24);
		UINT64 filesz = rd64(ph + 32), memsz = rd64(ph + 40);
		if (memsz == 0)
			continue;
		if (k->nseg == KERNEL_MAX_SEGMENTS)
			return refuse(L"too many ELF load segments", phnum);
		if (filesz > memsz || off > size || filesz > size - off)
			return refuse(L"ELF segment out of the file", off);
		/* The i386 entry runs with paging off: everything below 4 GiB. */
		if (paddr >= 0x100000000ull || memsz > 0x100000000ull - paddr)
			return refuse(L"ELF segment not below 4 GiB", paddr);
		for (UINTN j = 0; j < k->nseg; j++)
			if (paddr < (UINT64)k->seg[j].dst + k->seg[j].memsz &&
			    k->seg[j].dst < paddr + memsz)
				return refuse(L"ELF segments overlap", paddr);
		k->seg[k->nseg++] = (struct kernel_segment){
			.dst = (UINT32)paddr, .filesz = (UINT32)filesz,
			.memsz = (UINT32)memsz, .src = f + off,
		};
		UINT64 lo = paddr & ~0xFFFull, hi = (paddr + memsz + 0xFFF) & ~0xFFFull;
		if (lo < k->lo)
			k->lo = lo;
		if (hi > k->hi)
			k->hi = hi;
	}
	if (!k->nseg)
		return refuse(L"ELF file has nothing to load", phnum);
	return EFI_SUCCESS;
}

EFI_STATUS kernel_parse(const UINT8 *file, UINTN size, struct kernel_image *k)
{
	BOOLEAN have_entry = FALSE;

	ZeroMem(k, sizeof *k);
	EFI_STATUS st = parse_mb2_header(file, size, k, &have_entry);
	if (EFI_ERROR(st))
		return st;
	st = parse_elf(file, size, k);
	if (EFI_ERROR(st))
		return st;
	if (!have_entry) {
		UINT64 e = rd64(file + 24);
		if (e >= 0x100000000ull)
			return refuse(L"ELF entry point not below 4 GiB", e);
		k->entry = (UINT32)e;
	}
	BOOLEAN inside = FALSE;
	for (UINTN i = 0; i < k->nseg; i++)
		inside |= k->entry >= k->seg[i].dst &&
			  k->entry - k->seg[i].dst < k->seg[i].filesz;
	if (!inside)
		return refuse(L"entry point outside the loaded code", k->entry);
	return EFI_SUCCESS;
}
