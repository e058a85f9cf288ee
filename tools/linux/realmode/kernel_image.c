/* SPDX-License-Identifier: MIT */
/* A kernel image's headers (kernel_image.h). The setup header's fields
 * are those of Linux's Documentation/arch/x86/boot.rst ("The real-mode
 * kernel header"); the other machines' marks are their Image headers'
 * (Documentation/arch/arm64/booting.rst, riscv/boot-image-header.rst) and
 * the ELF header's e_machine values. */
#include "tools/linux/realmode/kernel_image.h"

#include <string.h>

#include "lib/bytes.h"

#define SETUP_SECTS 0x1f1    /* u8: 512-byte sectors of setup after the boot sector; 0 means 4 */
#define BOOT_FLAG 0x1fe      /* u16 0xAA55 */
#define HEADER_MAGIC 0x202   /* "HdrS" */
#define PROTOCOL 0x206       /* u16 boot protocol version */
#define PAYLOAD_OFFSET 0x248 /* u32, from the protected-mode code's start (protocol 2.08+) */
#define PAYLOAD_LENGTH 0x24c /* u32 */
#define SETUP_HEADER_END 0x250

int bzimage_payload(const uint8_t *img, size_t len, size_t *at, size_t *size,
		    unsigned *protocol, char why[LRM_WHY_SIZE])
{
	if (len < HEADER_MAGIC + 4 || rd16(img + BOOT_FLAG) != 0xaa55 ||
	    memcmp(img + HEADER_MAGIC, "HdrS", 4))
		return -1;
	if (len < SETUP_HEADER_END)
		return lrm_why(why, "a bzImage cut short: %zu bytes, its setup header alone is %u",
			       len, SETUP_HEADER_END);
	*protocol = rd16(img + PROTOCOL);
	if (*protocol < 0x208)
		return lrm_why(why, "a bzImage of boot protocol %u.%02u: the payload's place is known from 2.08 on",
			       *protocol >> 8, *protocol & 0xff);
	unsigned sects = img[SETUP_SECTS] ? img[SETUP_SECTS] : 4;
	uint64_t start = (uint64_t)(sects + 1) * 512 + rd32(img + PAYLOAD_OFFSET);
	uint64_t n = rd32(img + PAYLOAD_LENGTH);
	if (!n)
		return lrm_why(why, "a bzImage whose setup header says its payload is empty");
	if (start + n > len)
		return lrm_why(why, "a bzImage cut short: its payload ends at 0x%llx, the file at 0x%zx",
			       (unsigned long long)(start + n), len);
	*at = (size_t)start;
	*size = (size_t)n;
	return 1;
}

static const struct {
	unsigned machine;
	const char *name;
} machines[] = {
	{ 40, "32-bit Arm" }, { 183, "arm64 (AArch64)" }, { 243, "RISC-V" }, { 21, "ppc64" },
	{ 22, "s390" }, { 258, "LoongArch" }, { 8, "MIPS" }, { 2, "SPARC" }, { 43, "SPARC64" },
};

int elf_x86_bits(const uint8_t *img, size_t len, char why[LRM_WHY_SIZE])
{
	if (len < 4 || memcmp(img, "\x7f" "ELF", 4))
		return -1;
	if (len < 0x14)
		return lrm_why(why, "an ELF file cut short: %zu bytes", len);
	unsigned cls = img[4], data = img[5], machine = rd16(img + 0x12);
	if (data == 1 && machine == 62 && cls == 2)
		return 64;
	if (data == 1 && machine == 3 && cls == 1)
		return 32;
	for (size_t i = 0; i < sizeof machines / sizeof machines[0]; i++)
		if (machines[i].machine == machine)
			return lrm_why(why, "an ELF file for %s (e_machine %u): not an x86 kernel",
				       machines[i].name, machine);
	return lrm_why(why, "an ELF file for machine %u, class %u, data %u: not an x86 kernel",
		       machine, cls, data);
}

int not_x86_kernel(const uint8_t *img, size_t len, char why[LRM_WHY_SIZE])
{
	if (len >= 0x40 && rd32(img + 0x38) == 0x644d5241) /* "ARM\x64" */
		return lrm_why(why, "an arm64 kernel Image (\"ARM\\x64\" at 0x38): not an x86 kernel"), 1;
	if (len >= 0x40 && rd32(img + 0x38) == 0x05435352) /* "RSC\x05" */
		return lrm_why(why, "a RISC-V kernel Image (\"RSC\\x05\" at 0x38): not an x86 kernel"), 1;
	if (len >= 8 && !memcmp(img, "MZ", 2) && !memcmp(img + 4, "zimg", 4))
		return lrm_why(why, "an EFI zboot image (\"zimg\" at 4, arm64/RISC-V/LoongArch): not an x86 bzImage"), 1;
	if (len >= 4 && rd32(img) == 0x56190527)
		return lrm_why(why, "a U-Boot uImage: not an x86 kernel"), 1;
	if (len >= 2 && !memcmp(img, "MZ", 2))
		return lrm_why(why, "a PE/EFI program without the x86 boot header (\"HdrS\" at 0x202): not an x86 bzImage"), 1;
	return 0;
}
