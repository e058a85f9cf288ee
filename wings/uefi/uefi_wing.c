/* SPDX-License-Identifier: MIT */
/* The uefi wing: the firmware's runtime services where the loader handed
 * them over (GRUB or apstart.efi on UEFI; never after kexec), called at
 * their physical addresses (efi_runtime.c): ResetSystem, the first way
 * out for exit=reset and the warm exit=reboot, and the variables the
 * nvram wing keeps the summary in. A fault inside the firmware is taken
 * back, never fatal. */
#include "app/wing.h"
#include "wings/uefi/efi_runtime.h"
#include "kernel/console.h"

static void say(void *ctx, const char *msg)
{
	(void)ctx;
	kprintf("%s\n", msg);
}

/* exit=reset or reboot: the regions are mapped now, while no AP runs. */
static void map_for_reset(const struct options *o, const struct boot_info *bi)
{
	if (bi->efi_system_table && (o->exit == EXIT_RESET || o->exit == EXIT_REBOOT))
		efi_runtime_init(bi, say, NULL);
}

static void reset(bool warm)
{
	if (!efi_runtime_usable())
		return;
	if (warm)
		kprintf("reset: warm, through UEFI ResetSystem(EfiResetWarm)\n");
	efi_status st = efi_reset_system(warm);
	kprintf("reset: ResetSystem returned %s\n", efi_status_name(st));
}

WING(uefi) = {
	.name = "uefi",
	.options_parsed = map_for_reset,
	.reset = reset,
	.fault_fixup = efi_runtime_fault,
};
