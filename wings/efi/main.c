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
/* An LRM file: a realmode blob of at most 64 KiB and its tables
 * (wings/linux_trampoline/lrm_file.h's LRM_FILE_MAX, with room). */
#define LRM_FILE_READ_MAX (256u << 10)

/* gnu-efi's crt0 (_start) relocates the image and calls this with the
 * System V calling convention: not EFIAPI. */
EFI_STATUS efi_main(EFI_HANDLE image, EFI_SYSTEM_TABLE *systab);

/* Read once: the firmware's Secure Boot state (wings/efi/secureboot.c). */
static enum secure_boot secure_boot;

/* Loads and starts the entry's kernel; returns only if that failed
 * while boot services were still there. */
/* The entry's module (an LRM file), read and checked against the table
 * as its kernel is: under Secure Boot only the blob the image was signed
 * with is handed over. *data NULL: the entry has none. */
static EFI_STATUS read_module(struct volume *v, const struct boot_entry *e, UINT8 **data,
			      UINTN *size)
{
	*data = NULL;
	*size = 0;
	if (!e->module)
		return EFI_SUCCESS;
	EFI_STATUS st = volume_read_file(v, e->module, LRM_FILE_READ_MAX, data, size);
	if (EFI_ERROR(st)) {
		Print(L"cannot read %s: %r\n", e->module, st);
		return st;
	}
	st = kernel_hash_check(e->module, *data, *size, secure_boot);
	if (EFI_ERROR(st)) {
		FreePool(*data);
		*data = NULL;
	}
	return st;
}

/* The module's string for the kernel: its path, as ASCII. */
static void module_name(const CHAR16 *path, CHAR8 *out, UINTN cap)
{
	UINTN i = 0;
	for (; path && path[i] && i + 1 < cap; i++)
		out[i] = path[i] < 0x80 ? (CHAR8)path[i] : '?';
	out[i] = 0;
}

static void boot_entry(EFI_HANDLE image, struct volume *v, const struct boot_entry *e)
{
	const CHAR16 *path = e->wbinvd ? APSTART_KERNEL1 : APSTART_KERNEL0;
	UINT8 *file, *mod;
	UINTN size, mod_size;
	struct kernel_image k;
	CHAR8 mod_name[64];

	char shown[CMDLINE_MAX * 4 + 1]; /* each byte at most \xNN */
	fmt_escape(shown, sizeof shown, (const char *)e->cmdline);
	Print(L"loading %s, command line \"%a\"%s%s\n", path, shown,
	      e->module ? L", module " : L"", e->module ? e->module : L"");
	if (EFI_ERROR(read_module(v, e, &mod, &mod_size))) {
		Print(L"cannot start %s with %s\n", path, e->module);
		return;
	}
	module_name(e->module, mod_name, sizeof mod_name);
	EFI_STATUS st = volume_read_file(v, path, KERNEL_FILE_MAX, &file, &size);
	if (EFI_ERROR(st)) {
		Print(L"cannot read %s: %r\n", path, st);
		if (mod)
			FreePool(mod);
		return;
	}
	st = kernel_hash_check(path, file, size, secure_boot);
	if (!EFI_ERROR(st))
		st = kernel_parse(file, size, &k);
	if (!EFI_ERROR(st))
		st = handoff_boot(image, &k, e->cmdline, mod, mod_size, mod_name);
	Print(L"cannot start %s: %r\n", path, st);
	FreePool(file);
	if (mod)
		FreePool(mod);
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
	/* Linux's own trampoline: entries for the blobs the image was made
	 * with (make iso LINUX_IMAGE=...: their SHA-256 in apstart.efi). */
	static const CHAR16 *const lrms[] = { APSTART_LRM_SHIPPED, APSTART_LRM_TWIN };
	for (UINTN i = 0; i < 2; i++)
		if (kernel_hash_known(lrms[i]) && volume_exists(&vol, lrms[i]))
			menu_add_module(&menu, lrms[i], (const CHAR8 *)"trampoline=linux cycles=10");
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
