/* SPDX-License-Identifier: MIT */
/* The project's own UEFI vendor GUID and the one variable kept under it:
 * the summary of the last run (kernel: wings/nvram/summary_save.c writes it
 * through the runtime services; wings/efi/ reads it on the next boot,
 * writes it to the stick and deletes it). The only definition of the
 * name and GUID: tools and tests take them from here (tests/efi/). */
#ifndef APSTART_EFI_VENDOR_H
#define APSTART_EFI_VENDOR_H

/* effcee49-e744-482d-8f24-37b608c11fbd, generated for apstart. Written
 * as EFI_GUID's fields (UEFI 2.10 Appendix A: Data1 u32, Data2 u16,
 * Data3 u16, Data4 u8[8]), so either side can put it in its own type. */
#define APSTART_VENDOR_GUID_INIT \
	{ 0xeffcee49, 0xe744, 0x482d, { 0x8f, 0x24, 0x37, 0xb6, 0x08, 0xc1, 0x1f, 0xbd } }

/* Linux shows it in efivarfs as
 * /sys/firmware/efi/efivars/ApstartResults-effcee49-e744-482d-8f24-37b608c11fbd
 * The UCS-2 form is what GetVariable/SetVariable take. */
#define APSTART_RESULTS_VAR_NAME_ASCII "ApstartResults"
#define APSTART_RESULTS_VAR_NAME u"" APSTART_RESULTS_VAR_NAME_ASCII

/* Non-volatile, reachable from boot services (the loader) and at run time
 * (the kernel, after ExitBootServices): EFI_VARIABLE_NON_VOLATILE |
 * EFI_VARIABLE_BOOTSERVICE_ACCESS | EFI_VARIABLE_RUNTIME_ACCESS
 * (UEFI 2.10 §8.2.1). */
#define APSTART_RESULTS_VAR_ATTRS 0x7u

/* At most this much data per variable: small enough for any firmware's
 * limit (the kernel also asks QueryVariableInfo and stays below it). */
#define APSTART_RESULTS_MAX 16384u

/* A summary larger than one variable is split over up to this many:
 * part 0 is ApstartResults, part i > 0 is ApstartResults<i> (one digit),
 * same GUID and attributes. The parts concatenated are the summary. The
 * kernel writes part 0 last: without it the other parts are leftovers of
 * an interrupted save. */
#define APSTART_RESULTS_PARTS 8u
#define APSTART_RESULTS_TOTAL_MAX (APSTART_RESULTS_PARTS * APSTART_RESULTS_MAX)
/* Never more than this fraction of the free NVRAM (1/N): firmware that
 * finds its store full may fail to boot. */
#define APSTART_RESULTS_FREE_SHARE 2u

#endif
