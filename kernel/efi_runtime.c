/* SPDX-License-Identifier: MIT */
/* UEFI runtime services in physical mode (no SetVirtualAddressMap).
 *
 * What the UEFI spec asks of a caller that keeps physical addressing
 * (UEFI 2.10 §2.3.4.2 and §8): every EFI_MEMORY_RUNTIME region mapped
 * 1:1 (the boot code maps 0-4 GiB; regions above are added here, MMIO
 * uncached), the Microsoft x64 calling convention, a 16-byte
 * aligned stack, SSE usable, one caller at a time. kernel/efi_call.asm
 * makes the call. If the firmware takes an exception anyway, the fault
 * fixup reports it and returns EFI_STATUS_FAULTED to the caller: a
 * failed save must never end the run. After that no further call is
 * made (firmware state is unknown). */
#include "kernel/efi_runtime.h"

#include "kernel/console.h"
#include "kernel/cpu.h"
#include "kernel/efi_memmap.h"
#include "kernel/gdt.h"
#include "kernel/paging.h"
#include "kernel/trap.h"
#include "kernel/x86.h"
#include "lib/bytes.h"

/* EFI_TABLE_HEADER (UEFI 2.10 §4.2): Signature u64, Revision u32,
 * HeaderSize u32, CRC32 u32, Reserved u32. */
#define HDR_REVISION 8
#define HDR_SIZE     12
#define HDR_CRC32    16
#define HDR_LEN      24
#define SYSTEM_TABLE_SIGNATURE   0x5453595320494249ull /* "IBI SYST" */
#define RUNTIME_TABLE_SIGNATURE  0x56524553544E5552ull /* "RUNTSERV" */
/* EFI_SYSTEM_TABLE (§4.3): RuntimeServices at 88. */
#define ST_RUNTIME_SERVICES 88
#define ST_MIN_SIZE         120
/* EFI_RUNTIME_SERVICES (§4.5): function pointers after the header. */
#define RT_SET_VARIABLE        88
#define RT_RESET_SYSTEM        104
#define RT_QUERY_VARIABLE_INFO 128
#define RT_MIN_SIZE            112 /* through ResetSystem (UEFI 1.10) */
#define RT_SIZE_2_0            136 /* through QueryVariableInfo (UEFI 2.0) */
#define EFI_2_0 0x00020000u
/* A table header larger than this is not one. */
#define HDR_SIZE_MAX 4096

#define EFI_RESET_COLD 0
#define EFI_RESET_WARM 1
#define FOUR_GIB (4ull << 30)

static bool usable;
static uint32_t rt_revision, rt_size;

bool efi_runtime_usable(void)
{
	return usable;
}

#if defined(__i386__)
/* Multiboot2 hands the i386 kernel the same x86_64 firmware (GRUB's
 * x86_64-efi loads 32-bit kernels too): its runtime services are 64-bit
 * code with the Microsoft x64 convention, which protected mode cannot
 * call. No summary is kept in NVRAM and exit=reset uses the chipset. */
bool efi_runtime_init(const struct boot_info *bi, diag_fn diag, void *ctx)
{
	usable = false;
	(void)bi;
	diag_printf(diag, ctx, "efi: the i386 kernel does not call UEFI runtime services "
		    "(x86_64 firmware's are 64-bit code): not used");
	return false;
}

static efi_status call(const char *what, uint32_t offset, uint64_t a1, uint64_t a2,
		       uint64_t a3, uint64_t a4, uint64_t a5)
{
	(void)what, (void)offset, (void)a1, (void)a2, (void)a3, (void)a4, (void)a5;
	return EFI_ERROR_BIT | 3; /* EFI_UNSUPPORTED */
}
#else
uint64_t efi_call(const void *fn, uint64_t a1, uint64_t a2, uint64_t a3, uint64_t a4,
		  uint64_t a5);
extern const uint8_t efi_call_recover[];

static const uint8_t *rt;           /* EFI_RUNTIME_SERVICES */
static volatile bool in_call;
static uint32_t caller_apic;
static const char *current;         /* the service being called */

/* CRC-32 as UEFI uses it (the same section: IEEE 802.3, reflected 0xEDB88320),
 * over the header with its CRC field taken as zero. */
static uint32_t header_crc(const uint8_t *hdr, uint32_t size)
{
	uint32_t crc = 0xFFFFFFFFu;
	for (uint32_t i = 0; i < size; i++) {
		uint8_t b = i >= HDR_CRC32 && i < HDR_CRC32 + 4 ? 0 : hdr[i];
		crc ^= b;
		for (int k = 0; k < 8; k++)
			crc = crc >> 1 ^ (0xEDB88320u & -(crc & 1));
	}
	return ~crc;
}

/* Signature, a plausible size, the CRC (a mismatch is reported only:
 * some firmware leaves it stale after changing the table). */
static bool table_ok(const uint8_t *t, uint64_t signature, uint32_t min_size,
		     const char *what, diag_fn diag, void *ctx)
{
	uint32_t size = rd32(t + HDR_SIZE);
	if (rd64(t) != signature) {
		diag_printf(diag, ctx, "efi: %s at %p has no signature: runtime services not used",
			    what, (const void *)t);
		return false;
	}
	if (size < min_size || size > HDR_SIZE_MAX) {
		diag_printf(diag, ctx, "efi: %s header size %u implausible: runtime services not used",
			    what, size);
		return false;
	}
	if (header_crc(t, size) != rd32(t + HDR_CRC32))
		diag_printf(diag, ctx, "efi: %s CRC32 does not match (used anyway)", what);
	return true;
}

static bool map_runtime_regions(const struct boot_info *bi, diag_fn diag, void *ctx)
{
	uint32_t regions = 0;

	for (uint32_t off = 0; off + bi->efi_desc_size <= bi->efi_mmap_size;
	     off += bi->efi_desc_size) {
		const uint8_t *d = bi->efi_mmap + off;
		if (!(rd64(d + EFI_MD_ATTR) & EFI_MD_ATTR_RUNTIME))
			continue;
		uint32_t type = rd32(d + EFI_MD_TYPE);
		uint64_t base = rd64(d + EFI_MD_PHYS), pages = rd64(d + EFI_MD_PAGES);
		/* Below 4 GiB the boot map stays as it is: changing a 2 MiB page
		 * to uncached could take the kernel or the trampoline page with
		 * it (and the first 2 MiB are one unit in paging.c), while the
		 * MTRRs firmware set up already make its MMIO uncached. */
		bool mmio = (type == EFI_MT_MMIO || type == EFI_MT_MMIO_PORT) &&
			    base >= FOUR_GIB;
		if (!pages || pages > (1ull << 40) ||
		    !paging_map_phys(base, pages * EFI_MD_PAGE_SIZE, mmio ? MAP_UC : MAP_WB)) {
			diag_printf(diag, ctx,
				    "efi: cannot map runtime region 0x%llx (%llu pages): runtime services not used",
				    (unsigned long long)base, (unsigned long long)pages);
			return false;
		}
		regions++;
	}
	if (!regions) {
		diag_printf(diag, ctx, "efi: the memory map has no runtime regions: runtime services not used");
		return false;
	}
	diag_printf(diag, ctx, "efi: runtime services at %p, UEFI %u.%u, %u runtime regions mapped",
		    (const void *)rt, rt_revision >> 16, rt_revision & 0xFFFF, regions);
	return true;
}

static bool fault_fixup(struct trap_frame *f)
{
	if (!in_call || cpu_apic_id() != caller_apic)
		return false;
	kprintf("efi: the firmware took an exception in %s: vector %llu (%s) error=0x%llx "
		"rip=0x%llx cr2=0x%llx on CPU apic=%u; call abandoned, runtime services "
		"no longer used\n", current, (unsigned long long)f->vector,
		trap_exception_name(f->vector), (unsigned long long)f->error,
		(unsigned long long)f->rip, (unsigned long long)read_cr2(), caller_apic);
	usable = false;
	in_call = false;
	f->rip = (uint64_t)(uintptr_t)efi_call_recover;
	f->cs = SEL_CODE64;
	f->ss = SEL_DATA;
	f->rax = EFI_STATUS_FAULTED;
	f->rflags = 0x2; /* interrupts stay off until efi_call restores RFLAGS */
	return true;
}

bool efi_runtime_init(const struct boot_info *bi, diag_fn diag, void *ctx)
{
	if (usable)
		return true; /* mapped already (the summary, then exit=reset) */
	if (!bi->efi_system_table) {
		diag_printf(diag, ctx, "efi: no EFI system table from the boot loader");
		return false;
	}
	if (!bi->efi_mmap) {
		diag_printf(diag, ctx, "efi: no EFI memory map from the boot loader (runtime regions unknown)");
		return false;
	}
	const uint8_t *st = paging_map_phys(bi->efi_system_table, HDR_SIZE_MAX, MAP_WB);
	if (!st || !table_ok(st, SYSTEM_TABLE_SIGNATURE, ST_MIN_SIZE, "system table", diag, ctx))
		return false;
	uint64_t rt_phys = rd64(st + ST_RUNTIME_SERVICES);
	rt = rt_phys ? paging_map_phys(rt_phys, HDR_SIZE_MAX, MAP_WB) : 0;
	if (!rt || !table_ok(rt, RUNTIME_TABLE_SIGNATURE, RT_MIN_SIZE, "runtime services table",
			     diag, ctx))
		return false;
	rt_revision = rd32(rt + HDR_REVISION);
	rt_size = rd32(rt + HDR_SIZE);
	if (!map_runtime_regions(bi, diag, ctx))
		return false;
	trap_add_fault_fixup(fault_fixup);
	return usable = true;
}

static efi_status call(const char *what, uint32_t offset, uint64_t a1, uint64_t a2,
		       uint64_t a3, uint64_t a4, uint64_t a5)
{
	if (!usable)
		return EFI_ERROR_BIT | 3; /* EFI_UNSUPPORTED */
	const void *fn = (const void *)(uintptr_t)rd64(rt + offset);
	current = what;
	caller_apic = cpu_apic_id();
	in_call = true;
	efi_status st = efi_call(fn, a1, a2, a3, a4, a5);
	in_call = false;
	return st;
}
#endif

efi_status efi_set_variable(const uint16_t *name, const struct efi_guid *vendor,
			    uint32_t attrs, uint64_t size, const void *data)
{
	return call("SetVariable", RT_SET_VARIABLE, (uintptr_t)name, (uintptr_t)vendor, attrs,
		    size, (uintptr_t)data);
}

efi_status efi_query_variable_info(uint32_t attrs, uint64_t *max_storage,
				   uint64_t *remaining, uint64_t *max_variable)
{
	if (rt_revision < EFI_2_0 || rt_size < RT_SIZE_2_0)
		return EFI_ERROR_BIT | 3; /* EFI_UNSUPPORTED */
	return call("QueryVariableInfo", RT_QUERY_VARIABLE_INFO, attrs, (uintptr_t)max_storage,
		    (uintptr_t)remaining, (uintptr_t)max_variable, 0);
}

efi_status efi_reset_system(bool warm)
{
	return call("ResetSystem", RT_RESET_SYSTEM, warm ? EFI_RESET_WARM : EFI_RESET_COLD,
		    EFI_SUCCESS, 0, 0, 0);
}

const char *efi_status_name(efi_status st)
{
	/* UEFI 2.10 Appendix D. */
	static const char *const errors[] = {
		[1] = "EFI_LOAD_ERROR", [2] = "EFI_INVALID_PARAMETER",
		[3] = "EFI_UNSUPPORTED", [4] = "EFI_BAD_BUFFER_SIZE",
		[5] = "EFI_BUFFER_TOO_SMALL", [6] = "EFI_NOT_READY",
		[7] = "EFI_DEVICE_ERROR", [8] = "EFI_WRITE_PROTECTED",
		[9] = "EFI_OUT_OF_RESOURCES", [10] = "EFI_VOLUME_CORRUPTED",
		[11] = "EFI_VOLUME_FULL", [14] = "EFI_NOT_FOUND",
		[15] = "EFI_ACCESS_DENIED", [18] = "EFI_TIMEOUT",
		[21] = "EFI_ABORTED", [26] = "EFI_SECURITY_VIOLATION",
	};
	if (st == EFI_SUCCESS)
		return "EFI_SUCCESS";
	if (st == EFI_STATUS_FAULTED)
		return "EFI_STATUS_FAULTED (firmware exception)";
	uint64_t code = st & ~EFI_ERROR_BIT;
	if ((st & EFI_ERROR_BIT) && code < sizeof errors / sizeof errors[0] && errors[code])
		return errors[code];
	return "unknown status";
}
