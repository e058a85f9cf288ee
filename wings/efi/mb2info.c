/* SPDX-License-Identifier: MIT */
/* Multiboot2 boot information (Multiboot2 §3.6): total_size u32,
 * reserved u32, then tags, each 8-byte aligned: type u32, size u32,
 * payload. What GRUB 2.06 gives a Multiboot2 kernel on UEFI, less the
 * basic meminfo tag (the kernel uses the memory map); a module only with
 * Linux's blob. */
#include "wings/efi/mb2info.h"

#include <efilib.h>

#include "wings/efi/lowmem.h"
#include "kernel/efi_memmap.h"

#define LOADER_NAME "apstart.efi"
/* Fixed tags: command line (<= 256), name, framebuffer (38), system
 * table (16), two RSDP copies (<= 8 + 20, 8 + RSDP_MAX), with padding. */
#define RSDP_MAX 256
#define FIXED_TAGS_MAX 1024

enum {
	TAG_END = 0,
	TAG_CMDLINE = 1,
	TAG_LOADER_NAME = 2,
	TAG_MODULE = 3,
	TAG_MMAP = 6,
	TAG_FRAMEBUFFER = 8,
	TAG_EFI64 = 12,
	TAG_ACPI_OLD = 14,
	TAG_ACPI_NEW = 15,
	TAG_EFI_MMAP = 17,
};

static UINT8 *tag(struct mb2info *m, UINT32 type, UINT32 size)
{
	UINT8 *t = m->buf + m->len;
	UINTN room = (size + 7) & ~7u;

	ZeroMem(t, room);
	((UINT32 *)t)[0] = type;
	((UINT32 *)t)[1] = size;
	m->len += room;
	return t;
}

static UINTN strlen8(const CHAR8 *s)
{
	UINTN n = 0;
	while (s[n])
		n++;
	return n;
}

static void string_tag(struct mb2info *m, UINT32 type, const CHAR8 *s)
{
	UINTN n = strlen8(s);
	CopyMem(tag(m, type, 8 + n + 1) + 8, (VOID *)s, n); /* NUL from ZeroMem */
}

/* GOP's mode as a Multiboot2 RGB framebuffer (GRUB's layout: common part
 * of 32 bytes, reserved u16 at 30, then red/green/blue position, size). */
static void mask_field(UINT32 mask, UINT8 *pos, UINT8 *size)
{
	*pos = *size = 0;
	if (!mask)
		return;
	while (!(mask & 1)) {
		mask >>= 1;
		(*pos)++;
	}
	while (mask & 1) {
		mask >>= 1;
		(*size)++;
	}
}

static void framebuffer_tag(struct mb2info *m)
{
	EFI_GRAPHICS_OUTPUT_PROTOCOL *gop;
	if (EFI_ERROR(uefi_call_wrapper(BS->LocateProtocol, 3, &gEfiGraphicsOutputProtocolGuid,
					NULL, (VOID **)&gop)) || !gop->Mode || !gop->Mode->Info) {
		Print(L"framebuffer: no graphics output protocol: the kernel gets none\n");
		return;
	}
	EFI_GRAPHICS_OUTPUT_MODE_INFORMATION *info = gop->Mode->Info;
	UINT8 rp, rs, gp, gs, bp, bs, bpp = 32;
	switch (info->PixelFormat) {
	case PixelRedGreenBlueReserved8BitPerColor:
		rp = 0; gp = 8; bp = 16; rs = gs = bs = 8;
		break;
	case PixelBlueGreenRedReserved8BitPerColor:
		rp = 16; gp = 8; bp = 0; rs = gs = bs = 8;
		break;
	case PixelBitMask: {
		EFI_PIXEL_BITMASK *mk = &info->PixelInformation;
		UINT32 all = mk->RedMask | mk->GreenMask | mk->BlueMask | mk->ReservedMask;
		mask_field(mk->RedMask, &rp, &rs);
		mask_field(mk->GreenMask, &gp, &gs);
		mask_field(mk->BlueMask, &bp, &bs);
		for (bpp = 32; bpp > 8 && !(all >> (bpp - 1)); bpp--)
			;
		bpp = (bpp + 7) & ~7;
		break;
	}
	default:
		Print(L"framebuffer: GOP mode has no linear framebuffer (blt only): the kernel gets none\n");
		return;
	}
	UINT8 *t = tag(m, TAG_FRAMEBUFFER, 38);
	*(UINT64 *)(t + 8) = gop->Mode->FrameBufferBase;
	*(UINT32 *)(t + 16) = info->PixelsPerScanLine * (bpp / 8);
	*(UINT32 *)(t + 20) = info->HorizontalResolution;
	*(UINT32 *)(t + 24) = info->VerticalResolution;
	t[28] = bpp;
	t[29] = 1; /* RGB */
	t[32] = rp; t[33] = rs; t[34] = gp; t[35] = gs; t[36] = bp; t[37] = bs;
	Print(L"framebuffer: %dx%d, %d bpp at 0x%lx\n", info->HorizontalResolution,
	      info->VerticalResolution, bpp, gop->Mode->FrameBufferBase);
}

static BOOLEAN checksum_ok(const UINT8 *p, UINTN n)
{
	UINT8 sum = 0;
	for (UINTN i = 0; i < n; i++)
		sum += p[i];
	return sum == 0;
}

/* ACPI 6.5 §5.2.5.3: "RSD PTR ", checksum over the first 20 bytes;
 * revision >= 2 adds length @20 and an extended checksum over it. */
static UINTN rsdp_len(const UINT8 *r)
{
	if (!r || CompareMem((VOID *)r, "RSD PTR ", 8) != 0 || !checksum_ok(r, 20))
		return 0;
	if (r[15] < 2)
		return 20;
	UINT32 len = *(const UINT32 *)(r + 20);
	return len >= 36 && len <= RSDP_MAX && checksum_ok(r, len) ? len : 20;
}

static const UINT8 *config_table(EFI_GUID *guid)
{
	for (UINTN i = 0; i < ST->NumberOfTableEntries; i++)
		if (CompareGuid(&ST->ConfigurationTable[i].VendorGuid, guid) == 0)
			return ST->ConfigurationTable[i].VendorTable;
	return NULL;
}

static void acpi_tags(struct mb2info *m)
{
	static EFI_GUID acpi20 = ACPI_20_TABLE_GUID;
	const UINT8 *v2 = config_table(&acpi20), *v1 = config_table(&AcpiTableGuid);
	UINTN len2 = rsdp_len(v2), len1 = rsdp_len(v1);

	if (!len1 && len2) {
		v1 = v2; /* its first 20 bytes are the ACPI 1.0 structure */
		len1 = 20;
	}
	if (len1)
		CopyMem(tag(m, TAG_ACPI_OLD, 8 + 20) + 8, (VOID *)v1, 20);
	if (len2 > 20)
		CopyMem(tag(m, TAG_ACPI_NEW, 8 + len2) + 8, (VOID *)v2, len2);
	if (!len1 && !len2)
		Print(L"acpi: no valid RSDP in the configuration table: the kernel will scan\n");
}

EFI_STATUS mb2_begin(struct mb2info *m, const CHAR8 *cmdline, BOOLEAN want_fb,
		     UINTN map_cap, UINTN desc_size)
{
	UINTN entries = desc_size ? map_cap / desc_size : 0;
	m->cap = 8 + FIXED_TAGS_MAX + (16 + entries * 24) + (16 + map_cap) + 8 + 64;
	m->buf = lowmem_alloc(m->cap, EfiLoaderData);
	if (!m->buf)
		return EFI_OUT_OF_RESOURCES;
	m->len = 8;
	string_tag(m, TAG_CMDLINE, cmdline);
	string_tag(m, TAG_LOADER_NAME, (const CHAR8 *)LOADER_NAME);
	if (want_fb)
		framebuffer_tag(m);
	*(UINT64 *)(tag(m, TAG_EFI64, 16) + 8) = (UINT64)(UINTN)ST;
	acpi_tags(m);
	return EFI_SUCCESS;
}

/* Tag 3 (Multiboot2 §3.6.6): mod_start, mod_end, the string. Its room is
 * in FIXED_TAGS_MAX (16 + a short path). */
void mb2_module(struct mb2info *m, UINT32 start, UINT32 end, const CHAR8 *string)
{
	UINTN n = strlen8(string);
	UINT8 *t = tag(m, TAG_MODULE, 16 + n + 1);
	*(UINT32 *)(t + 8) = start;
	*(UINT32 *)(t + 12) = end;
	CopyMem(t + 16, (VOID *)string, n);
}

void mb2_finish(struct mb2info *m, const UINT8 *map, UINTN map_size, UINTN desc_size,
		UINT32 desc_version)
{
	UINTN n = map_size / desc_size;

	/* Tag 6: entry_size 24, version 0; base u64, length u64, type u32,
	 * reserved u32. Neighbours of one type merge, as GRUB does. */
	UINT8 *t = tag(m, TAG_MMAP, 16);
	*(UINT32 *)(t + 8) = 24;
	UINT8 *e = NULL;
	for (UINTN i = 0; i < n; i++) {
		const UINT8 *d = map + i * desc_size;
		UINT64 base = *(const UINT64 *)(d + EFI_MD_PHYS);
		UINT64 len = *(const UINT64 *)(d + EFI_MD_PAGES) * EFI_MD_PAGE_SIZE;
		UINT32 type = efi_mem_to_multiboot(*(const UINT32 *)(d + EFI_MD_TYPE));
		if (e && *(UINT32 *)(e + 16) == type &&
		    *(UINT64 *)e + *(UINT64 *)(e + 8) == base) {
			*(UINT64 *)(e + 8) += len;
			continue;
		}
		e = m->buf + m->len;
		*(UINT64 *)e = base;
		*(UINT64 *)(e + 8) = len;
		*(UINT32 *)(e + 16) = type;
		*(UINT32 *)(e + 20) = 0;
		m->len += 24;
		*(UINT32 *)(t + 4) += 24;
	}
	m->len = (m->len + 7) & ~7u;

	/* Tag 17: descriptor size and version, then the map as it is. */
	t = tag(m, TAG_EFI_MMAP, 16 + map_size);
	*(UINT32 *)(t + 8) = desc_size;
	*(UINT32 *)(t + 12) = desc_version;
	CopyMem(t + 16, (VOID *)map, map_size);

	tag(m, TAG_END, 8);
	*(UINT32 *)m->buf = m->len;
	*(UINT32 *)(m->buf + 4) = 0;
}
