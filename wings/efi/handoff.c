/* SPDX-License-Identifier: MIT */
/* From the chosen kernel to running it.
 *
 * Entry: the kernel's existing 32-bit Multiboot2 entry (_start32), not a
 * new 64-bit one. GRUB enters it that way on UEFI too (the kernel's
 * header asks for i386), so every loader (QEMU -kernel, GRUB on BIOS and
 * UEFI, apstart.efi) reaches kmain through the same code, which builds its
 * own page tables from a known state. A 64-bit entry would inherit the
 * firmware's page tables (1 GiB pages, read-only and no-execute regions
 * under memory protection, tables anywhere in memory) that kernel/paging.c
 * does not expect, and would be a second start path to keep working.
 *
 * Order: reserve the kernel's load range, stage its segments, allocate
 * the boot information with room for the final memory map, then
 * GetMemoryMap + ExitBootServices, retried while the map key changes
 * (UEFI 2.10 §7.4.6: firmware may change the map until the call
 * succeeds; between a failed try and the next only GetMemoryMap and
 * ExitBootServices may be called). wings/efi/handoff_stub.asm does the rest. */
#include "wings/efi/handoff.h"

#include <efilib.h>

#include "wings/efi/lowmem.h"
#include "wings/efi/mb2info.h"
#include "kernel/efi_memmap.h"
#include "kernel/serial.h"
#include "lib/format.h"

#define EBS_TRIES 8
/* Descriptors' worth of room for allocations made after sizing the map
 * (the boot information, the map buffer itself, the stub): plenty. */
#define MAP_HEADROOM_DESCS 64

/* One record per segment, as wings/efi/handoff_stub.asm reads them (SEG_*). */
struct handoff_segment {
	UINT32 dst, src, filesz, memsz;
};
_Static_assert(sizeof(struct handoff_segment) == 16, "handoff_stub.asm: SEG_SIZE");

#if APSTART_EFI_TEST_HOOKS
BOOLEAN handoff_test_stale_key;
#endif

extern UINT8 handoff_start[], handoff_end[];
extern UINT8 handoff_entry[], handoff_info[], handoff_nseg[], handoff_segs[];

/* A field of the stub, at its offset in the copy at page. */
static VOID *stub_field(UINT8 *page, UINT8 *field)
{
	return page + (field - handoff_start);
}

/* Whether the kernel may be copied over [lo, hi) once boot services are
 * gone. Memory of the loaders and boot services is free then. The
 * kernel's image and .bss stay below 4 MiB (linker.ld asserts it; its big
 * buffers come from free RAM at run time, kernel/bootmem.h), clear of the
 * ACPI NVS that OVMF with S3 keeps at 0x806000 and 0x810000-0x900000.
 * Firmware that keeps NVS or reserved RAM lower still: GRUB loads over it
 * without a word (its relocator retries without collision checks), and
 * apstart never suspends, so such memory is overwritten with a warning.
 * Refused: runtime services' memory (the kernel calls them), ACPI tables
 * (it reads them), MMIO, bad or persistent memory, anything unknown. */
static BOOLEAN load_range_usable(UINT64 lo, UINT64 hi)
{
	UINTN n, key, dsize;
	UINT32 dver;
	EFI_MEMORY_DESCRIPTOR *map = LibMemoryMap(&n, &key, &dsize, &dver);
	BOOLEAN ok = map != NULL;

	for (UINTN i = 0; ok && i < n; i++) {
		EFI_MEMORY_DESCRIPTOR *d = (EFI_MEMORY_DESCRIPTOR *)((UINT8 *)map + i * dsize);
		UINT64 s = d->PhysicalStart, e = s + d->NumberOfPages * EFI_PAGE_SIZE;
		if (e <= lo || s >= hi)
			continue;
		switch (d->Type) {
		case EfiLoaderCode:
		case EfiLoaderData:
		case EfiBootServicesCode:
		case EfiBootServicesData:
		case EfiConventionalMemory:
			break;
		case EfiACPIMemoryNVS:
		case EfiReservedMemoryType:
			Print(L"kernel: WARNING: its memory 0x%lx-0x%lx covers firmware %s 0x%lx-0x%lx: "
			      L"overwritten, as GRUB does (lost: S3 resume state)\n", lo, hi,
			      d->Type == EfiACPIMemoryNVS ? L"ACPI NVS" : L"reserved memory", s, e);
			break;
		default:
			Print(L"kernel: its memory 0x%lx-0x%lx covers firmware memory 0x%lx-0x%lx of "
			      L"type %d, which must survive: not loaded\n", lo, hi, s, e, d->Type);
			ok = FALSE;
		}
	}
	if (map)
		FreePool(map);
	return ok;
}

static EFI_STATUS reserve_load_range(const struct kernel_image *k)
{
	EFI_PHYSICAL_ADDRESS a = k->lo;
	UINTN pages = (k->hi - k->lo) / EFI_PAGE_SIZE;

	lowmem_avoid(0, 0);
	if (!load_range_usable(k->lo, k->hi))
		return EFI_OUT_OF_RESOURCES;
	if (!EFI_ERROR(uefi_call_wrapper(BS->AllocatePages, 4, AllocateAddress,
					 EfiLoaderData, pages, &a)))
		return EFI_SUCCESS;
	/* Not all of it is free now: the kernel is copied there after
	 * ExitBootServices, and nothing of ours may be put there. */
	lowmem_avoid(k->lo, k->hi);
	return EFI_SUCCESS;
}

static void serial_line(const char *s)
{
	for (; *s; s++) {
		if (*s == '\n')
			serial_putc('\r');
		serial_putc(*s);
	}
}

/* No way back once boot services are gone: say so on COM1 and stop. */
static void stuck(const char *what, EFI_STATUS st) __attribute__((noreturn));
static void stuck(const char *what, EFI_STATUS st)
{
	char line[128];

	fmt_snprintf(line, sizeof line, "apstart.efi: %s (status 0x%llx): stopped\n", what,
		     (unsigned long long)st);
	serial_line(line);
	for (;;)
		__asm__ volatile("cli; hlt");
}

EFI_STATUS handoff_boot(EFI_HANDLE image, const struct kernel_image *k,
			const CHAR8 *cmdline)
{
	EFI_STATUS st = reserve_load_range(k);
	if (EFI_ERROR(st))
		return st;

	UINTN stub_size = handoff_end - handoff_start;
	UINT8 *stub = lowmem_alloc(stub_size, EfiLoaderCode);
	if (!stub)
		return EFI_OUT_OF_RESOURCES;
	CopyMem(stub, handoff_start, stub_size);
	struct handoff_segment *segs = stub_field(stub, handoff_segs);
	for (UINTN i = 0; i < k->nseg; i++) {
		const struct kernel_segment *s = &k->seg[i];
		UINT8 *copy = NULL;
		if (s->filesz) {
			copy = lowmem_alloc(s->filesz, EfiLoaderData);
			if (!copy)
				return EFI_OUT_OF_RESOURCES;
			CopyMem(copy, (VOID *)s->src, s->filesz);
		}
		segs[i] = (struct handoff_segment){
			.dst = s->dst, .src = (UINT32)(UINTN)copy,
			.filesz = s->filesz, .memsz = s->memsz,
		};
	}
	*(UINT32 *)stub_field(stub, handoff_nseg) = k->nseg;
	*(UINT32 *)stub_field(stub, handoff_entry) = k->entry;

	/* Size the map, then allocate everything it must describe. */
	UINTN map_size = 0, key, dsize = 0;
	UINT32 dver;
	st = uefi_call_wrapper(BS->GetMemoryMap, 5, &map_size, NULL, &key, &dsize, &dver);
	if (st != EFI_BUFFER_TOO_SMALL || dsize < EFI_MD_MIN_SIZE) {
		Print(L"handoff: GetMemoryMap gave %r, descriptor size %d\n", st, dsize);
		return EFI_DEVICE_ERROR;
	}
	UINTN map_cap = map_size + MAP_HEADROOM_DESCS * dsize;
	UINT8 *map = lowmem_alloc(map_cap, EfiLoaderData);
	struct mb2info info;
	if (!map || EFI_ERROR(mb2_begin(&info, cmdline, k->wants_framebuffer, map_cap, dsize)))
		return EFI_OUT_OF_RESOURCES;
	*(UINT32 *)stub_field(stub, handoff_info) = (UINT32)(UINTN)info.buf;

	Print(L"handoff: entering the kernel at 0x%x (ExitBootServices now; the kernel "
	      L"speaks next)\n", k->entry);
	UINTN tries = 0;
	for (;;) {
		tries++;
		map_size = map_cap;
		st = uefi_call_wrapper(BS->GetMemoryMap, 5, &map_size, (EFI_MEMORY_DESCRIPTOR *)map,
				       &key, &dsize, &dver);
		if (EFI_ERROR(st)) {
			if (tries == 1) {
				Print(L"handoff: GetMemoryMap failed: %r\n", st);
				return st;
			}
			stuck("GetMemoryMap failed after a failed ExitBootServices", st);
		}
#if APSTART_EFI_TEST_HOOKS
		if (tries == 1 && handoff_test_stale_key) {
			EFI_PHYSICAL_ADDRESS page;
			uefi_call_wrapper(BS->AllocatePages, 4, AllocateAnyPages, EfiLoaderData, 1,
					  &page);
		}
#endif
		st = uefi_call_wrapper(BS->ExitBootServices, 2, image, key);
		if (!EFI_ERROR(st))
			break;
		if (st != EFI_INVALID_PARAMETER) {
			if (tries == 1) {
				Print(L"handoff: ExitBootServices failed: %r\n", st);
				return st;
			}
			stuck("ExitBootServices failed", st);
		}
		if (tries == EBS_TRIES)
			stuck("ExitBootServices kept refusing the memory map key", st);
	}
	__asm__ volatile("cli");
	mb2_finish(&info, map, map_size, dsize, dver);

	char line[160];
	serial_init();
	fmt_snprintf(line, sizeof line,
		     "apstart.efi: ExitBootServices done (%u %s, %u memory map entries); "
		     "kernel entry 0x%x\n", (unsigned)tries, tries == 1 ? "try" : "tries",
		     (unsigned)(map_size / dsize), (unsigned)k->entry);
	serial_line(line);
	((void (*)(void))stub)();
	stuck("the hand-over code returned", 0);
}
