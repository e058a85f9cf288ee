/* SPDX-License-Identifier: MIT */
/* The RSDP found (kernel/rsdp.h). */
#include "kernel/rsdp.h"

#include "kernel/acpi.h"
#include "kernel/console.h"
#include "kernel/memmap.h"
#include "kernel/paging.h"
#include "kernel/warn.h"
#include "kernel/x86.h"
#include "lib/bytes.h"

/* acpi_rsdp=: the address, and its length if an RSDP is there, else why
 * not. */
static uint64_t option_addr;
static size_t option_len;
static const char *option_problem;

static const void *identity_map(void *ctx, uint64_t phys, size_t len)
{
	(void)ctx;
	return paging_map_phys(phys, len, MAP_WB);
}

uint64_t rsdp_bios_ebda(void)
{
	uint64_t ebda = (uint64_t)phys_read16(BDA_EBDA_SEGMENT) << 4;
	/* Only trust a value in the range the EBDA can occupy. */
	return ebda >= 0x80000 && ebda < LEGACY_HOLE_START ? ebda : 0;
}

/* 20 bytes, 36 for revision 2, or the length it gives (at most 4 KiB). */
uint64_t rsdp_check_option(uint64_t addr)
{
	const uint8_t *p = addr ? identity_map(0, addr, 36) : NULL;

	option_addr = addr;
	option_len = 0;
	if (!addr)
		return 0;
	if (!p) {
		option_problem = "beyond what this kernel maps";
		return 0;
	}
	size_t len = 36;
	if (p[15] >= 2 && rd32(p + 20) > 36 && rd32(p + 20) <= 4096 &&
	    identity_map(0, addr, rd32(p + 20)))
		len = rd32(p + 20);
	option_problem = acpi_rsdp_problem(p, len);
	if (!option_problem)
		option_len = len;
	return option_len ? addr : 0;
}

bool rsdp_find(const struct boot_info *bi, struct rsdp_found *out)
{
	*out = (struct rsdp_found){ bi->rsdp, bi->rsdp_len, 0 };
	if (out->rsdp && acpi_rsdp_valid(out->rsdp, out->len)) {
		if (option_addr)
			kprintf("acpi: acpi_rsdp=0x%llx not used: the loader handed over the "
				"RSDP (tag %d)\n", (unsigned long long)option_addr, bi->rsdp_tag);
		return true;
	}
	if (out->rsdp)
		kprintf("acpi: boot loader's RSDP copy is invalid; %s\n",
			option_addr ? "trying acpi_rsdp=" : "scanning");
	if (option_len) {
		*out = (struct rsdp_found){ (const void *)(uintptr_t)option_addr, option_len,
					    option_addr };
		kprintf("acpi: RSDP at 0x%llx from acpi_rsdp=\n", (unsigned long long)option_addr);
		return true;
	}
	if (option_addr) {
		kprintf("acpi: acpi_rsdp=0x%llx: no RSDP there (%s); scanning the BIOS areas\n",
			(unsigned long long)option_addr, option_problem);
		/* A record's value is one word: "bad signature" as
		 * bad_signature (lib/records.def). */
		char word[40];
		size_t n;
		for (n = 0; n + 1 < sizeof word && option_problem[n]; n++)
			word[n] = option_problem[n] == ' ' ? '_' : option_problem[n];
		word[n] = '\0';
		warn_record("what=acpi_rsdp addr=0x%llx problem=%s",
			    (unsigned long long)option_addr, word);
	}
	uint64_t phys = acpi_scan_rsdp(identity_map, 0,
				       bi->firmware != FIRMWARE_UEFI ? rsdp_bios_ebda() : 0);
	if (!phys) {
		if (bi->firmware != FIRMWARE_BIOS)
			kprintf("acpi: no RSDP in the BIOS areas; under UEFI give its address: "
				"acpi_rsdp= (Linux: ACPI20= in /sys/firmware/efi/systab)\n");
		return false;
	}
	/* The scan found it valid within the BIOS area, which ends at 1 MiB:
	 * that bounds every read of it. */
	*out = (struct rsdp_found){ (const void *)(uintptr_t)phys,
				    (size_t)(LOW_MEMORY_LIMIT - phys), phys };
	return true;
}
