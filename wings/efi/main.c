/* SPDX-License-Identifier: MIT */
/* apstart.efi: a UEFI loader for the apstart kernels on the stick. It
 * first carries on an A/B session under way (wings/efi/session.c: file
 * the last run, boot the next) and moves other results the last run kept
 * in NVRAM to the stick (wings/efi/saved.c), then offers the menu and
 * boots the chosen kernel with the Multiboot2 information GRUB would give
 * (wings/efi/handoff.c). */
#include <efi.h>
#include <efilib.h>

#include "wings/efi/config.h"
#include "wings/efi/handoff.h"
#include "wings/efi/kernel.h"
#include "wings/efi/kernel_hash.h"
#include "wings/efi/menu.h"
#include "wings/efi/saved.h"
#include "wings/efi/secureboot.h"
#include "wings/efi/session.h"
#include "wings/efi/volume.h"
#include "lib/format.h"

#ifndef APSTART_VERSION
#define APSTART_VERSION "0.1"
#endif

#define KERNEL_FILE_MAX (64u << 20)

/* gnu-efi's crt0 (_start) relocates the image and calls this with the
 * System V calling convention: not EFIAPI. */
EFI_STATUS efi_main(EFI_HANDLE image, EFI_SYSTEM_TABLE *systab);

/* Read once: the firmware's Secure Boot state (wings/efi/secureboot.c). */
static enum secure_boot secure_boot;

/* Loads and starts the entry's kernel; returns only if that failed
 * while boot services were still there. */
static void boot_entry(EFI_HANDLE image, struct volume *v, const struct boot_entry *e)
{
	const CHAR16 *path = e->wbinvd ? APSTART_KERNEL1 : APSTART_KERNEL0;
	UINT8 *file;
	UINTN size;
	struct kernel_image k;

	char shown[CMDLINE_MAX * 4 + 1]; /* each byte at most \xNN */
	fmt_escape(shown, sizeof shown, (const char *)e->cmdline);
	Print(L"loading %s, command line \"%a\"\n", path, shown);
	EFI_STATUS st = volume_read_file(v, path, KERNEL_FILE_MAX, &file, &size);
	if (EFI_ERROR(st)) {
		Print(L"cannot read %s: %r\n", path, st);
		return;
	}
	st = kernel_hash_check(path, file, size, secure_boot);
	if (!EFI_ERROR(st))
		st = kernel_parse(file, size, &k);
	if (!EFI_ERROR(st))
		st = handoff_boot(image, &k, e->cmdline);
	Print(L"cannot start %s: %r\n", path, st);
	FreePool(file);
}

EFI_STATUS efi_main(EFI_HANDLE image, EFI_SYSTEM_TABLE *systab)
{
	struct volume vol;
	struct menu menu;
	struct loader_config cfg;

	InitializeLib(image, systab);
	/* The boot manager arms a 5-minute watchdog before starting a boot
	 * option (UEFI 2.10 §7.5.1, SetWatchdogTimer); a menu left open
	 * would reset the machine. */
	uefi_call_wrapper(BS->SetWatchdogTimer, 4, 0, 0, 0, NULL);
	Print(L"\napstart.efi %a (gnu-efi): UEFI %d.%d, firmware %s rev 0x%x\n",
	      APSTART_VERSION, ST->Hdr.Revision >> 16, ST->Hdr.Revision & 0xFFFF,
	      ST->FirmwareVendor, ST->FirmwareRevision);
	secure_boot = secure_boot_state();
	Print(L"apstart.efi: Secure Boot %s; kernels checked against the SHA-256 built into apstart.efi%s\n",
	      secure_boot_name(secure_boot),
	      secure_boot == SECURE_BOOT_OFF ? L" (a mismatch is only a warning)" : L"");

	EFI_STATUS st = volume_open(image, &vol);
	if (EFI_ERROR(st)) {
		Print(L"apstart.efi: nothing to boot; back to the firmware in 10 s\n");
		menu_wait_key(10);
		return st;
	}
	menu_init(&menu);
	config_load(&vol, &menu, &cfg);
	session_trust(&cfg.session, secure_boot == SECURE_BOOT_OFF);
	struct boot_entry run;
	if (session_on_boot(&vol, &cfg.session, &menu, &run)) {
		boot_entry(image, &vol, &run);
		session_boot_failed(&vol, &menu);
	}
	saved_collect(&vol, cfg.results_wait_s);

	for (;;) {
		INTN choice = menu_choose(&menu);
		if (choice == MENU_SESSION || choice == MENU_RESUME) {
			BOOLEAN go = choice == MENU_SESSION
					     ? session_start(&vol, &cfg.session, &menu, &run)
					     : session_resume(&vol, &cfg.session, &menu, &run);
			if (go) {
				boot_entry(image, &vol, &run);
				session_boot_failed(&vol, &menu);
			}
			menu.timeout_s = MENU_WAIT_FOREVER;
			continue;
		}
		if (choice < 0) {
			Print(L"apstart.efi: back to the firmware\n");
			return EFI_ABORTED;
		}
		boot_entry(image, &vol, &menu.entry[choice]);
		/* Still here: that entry failed. No countdown from now on, or a
		 * failing default entry would be retried for ever. */
		menu.timeout_s = MENU_WAIT_FOREVER;
	}
}
