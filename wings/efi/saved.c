/* SPDX-License-Identifier: MIT */
/* Results that survive a reset: the kernel keeps its summary in UEFI
 * variables (ApstartResults and, for a big one, ApstartResults1..:
 * wings/efi/efi_vendor.h); this moves it to a file on the stick,
 * \apstart\results\NNNN.log, numbered after the highest one there (or,
 * in an A/B session, into the session's folder: wings/efi/session.c). The
 * variables are deleted only after the file has been read back
 * identical, so a failed write never loses a result. */
#include "wings/efi/saved.h"

#include <efilib.h>

#include "wings/efi/menu.h"
#include "wings/efi/efi_vendor.h"

/* The kernel writes at most APSTART_RESULTS_MAX per part; anything much
 * larger under our name is not ours to handle. */
#define READ_MAX (4 * APSTART_RESULTS_MAX)
#define NUMBER_MAX 9999

static EFI_GUID vendor = APSTART_VENDOR_GUID_INIT;
static CHAR16 var_name[] = APSTART_RESULTS_VAR_NAME;

static void part_name(CHAR16 name[24], UINTN part)
{
	UINTN n = 0;
	for (; var_name[n]; n++)
		name[n] = var_name[n];
	if (part)
		name[n++] = (CHAR16)(L'0' + part);
	name[n] = 0;
}

/* One part into a new pool buffer: EFI_NOT_FOUND if it is not there. */
static EFI_STATUS read_part(UINTN part, UINT8 **data, UINTN *size)
{
	CHAR16 name[24];
	UINT32 attrs;
	UINTN len = 0;

	part_name(name, part);
	EFI_STATUS st = uefi_call_wrapper(RT->GetVariable, 5, name, &vendor, &attrs, &len, NULL);
	if (st != EFI_BUFFER_TOO_SMALL)
		return st == EFI_SUCCESS ? EFI_VOLUME_CORRUPTED : st; /* 0 bytes: not ours */
	if (len > READ_MAX) {
		Print(L"results: %s has %d bytes: not a summary, left alone\n", name, len);
		return EFI_BAD_BUFFER_SIZE;
	}
	UINT8 *buf = AllocatePool(len + 1);
	if (!buf)
		return EFI_OUT_OF_RESOURCES;
	st = uefi_call_wrapper(RT->GetVariable, 5, name, &vendor, &attrs, &len, buf);
	if (EFI_ERROR(st)) {
		FreePool(buf);
		return st;
	}
	*data = buf;
	*size = len;
	return EFI_SUCCESS;
}

void saved_delete(void)
{
	CHAR16 name[24];
	for (UINTN i = 0; i < APSTART_RESULTS_PARTS; i++) {
		part_name(name, i);
		uefi_call_wrapper(RT->SetVariable, 5, name, &vendor, 0, 0, NULL);
	}
}

EFI_STATUS saved_read(UINT8 **data, UINTN *size, UINTN *parts)
{
	UINT8 *part;
	UINTN len;
	EFI_STATUS st = read_part(0, &part, &len);
	if (st == EFI_NOT_FOUND) {
		/* Parts without part 0: a save cut short (the kernel writes
		 * part 0 last). */
		BOOLEAN orphans = FALSE;
		for (UINTN i = 1; i < APSTART_RESULTS_PARTS; i++) {
			UINT8 *junk;
			if (read_part(i, &junk, &len) == EFI_SUCCESS) {
				FreePool(junk);
				orphans = TRUE;
			}
		}
		if (orphans) {
			Print(L"results: parts of a summary without its first part (a save cut "
			      L"short): deleted\n");
			saved_delete();
		}
		return EFI_NOT_FOUND;
	}
	if (EFI_ERROR(st))
		return st;
	UINT8 *all = AllocatePool(APSTART_RESULTS_PARTS * READ_MAX + 1);
	if (!all) {
		FreePool(part);
		return EFI_OUT_OF_RESOURCES;
	}
	UINTN total = 0, n = 0;
	for (;;) {
		CopyMem(all + total, part, len);
		total += len;
		FreePool(part);
		n++;
		if (n == APSTART_RESULTS_PARTS || read_part(n, &part, &len) != EFI_SUCCESS)
			break;
	}
	all[total] = 0;
	*data = all;
	*size = total;
	*parts = n;
	return EFI_SUCCESS;
}

static BOOLEAN is_digit(CHAR16 c)
{
	return c >= L'0' && c <= L'9';
}

/* NNNN.log, case-insensitive extension: its number, else 0. */
static UINTN result_number(const CHAR16 *name)
{
	if (StrLen((CHAR16 *)name) != 8 || name[4] != L'.')
		return 0;
	UINTN n = 0;
	for (int i = 0; i < 4; i++) {
		if (!is_digit(name[i]))
			return 0;
		n = n * 10 + (name[i] - L'0');
	}
	return StriCmp((CHAR16 *)name + 5, L"log") == 0 ? n : 0;
}

/* One more than the highest NNNN.log in dir; 0 if that would pass 9999. */
static UINTN next_number(EFI_FILE_HANDLE dir)
{
	UINT8 buf[SIZE_OF_EFI_FILE_INFO + 512 * sizeof(CHAR16)];
	UINTN highest = 0;

	for (;;) {
		UINTN size = sizeof buf;
		EFI_STATUS st = uefi_call_wrapper(dir->Read, 3, dir, &size, buf);
		if (EFI_ERROR(st) || size == 0)
			break; /* a name too long for buf is not NNNN.log anyway */
		UINTN n = result_number(((EFI_FILE_INFO *)buf)->FileName);
		if (n > highest)
			highest = n;
	}
	return highest < NUMBER_MAX ? highest + 1 : 0;
}

/* On the console as a quote: every line behind "| ", so that a serial log
 * of this boot never holds the last run's records as if they were this
 * one's (aplog reads records from column 0). The file keeps the bytes. */
void saved_show(const UINT8 *data, UINTN size, const CHAR16 *title)
{
	CHAR16 line[1024];
	UINTN n = 0;

	Print(L"---- %s ----\n", title);
	for (UINTN i = 0; i <= size; i++) {
		BOOLEAN end = i == size || data[i] == '\n';
		if (end && n == 0 && i == size)
			break;
		if (n == 0) {
			line[n++] = L'|';
			line[n++] = L' ';
		}
		if (!end) {
			UINT8 c = data[i];
			line[n++] = c >= 0x20 && c < 0x7F ? c : L'?';
		}
		if (end || n == 1021) {
			line[n++] = L'\r';
			line[n++] = L'\n';
			line[n] = 0;
			uefi_call_wrapper(ST->ConOut->OutputString, 2, ST->ConOut, line);
			n = 0;
		}
	}
	Print(L"---- end of results ----\n");
}

/* Writes the data to the next NNNN.log; fills path with its name. */
static EFI_STATUS save_file(struct volume *v, const UINT8 *data, UINTN size,
			    CHAR16 *path, UINTN path_len)
{
	EFI_FILE_HANDLE dir;
	EFI_STATUS st = volume_open_dir(v, APSTART_RESULTS, TRUE, &dir);
	if (EFI_ERROR(st))
		return st;
	UINTN number = next_number(dir);
	uefi_call_wrapper(dir->Close, 1, dir);
	if (!number) {
		Print(L"results: %s already has %04d.log\n", APSTART_RESULTS, NUMBER_MAX);
		return EFI_VOLUME_FULL;
	}
	UnicodeSPrint(path, path_len * sizeof(CHAR16), L"%s\\%04d.log", APSTART_RESULTS,
		      number);
	st = volume_write_new_file(v, path, data, size);
	if (EFI_ERROR(st))
		return st;

	UINT8 *back;
	UINTN back_size;
	st = volume_read_file(v, path, size, &back, &back_size);
	if (EFI_ERROR(st))
		return st;
	BOOLEAN same = back_size == size && CompareMem(back, data, size) == 0;
	FreePool(back);
	return same ? EFI_SUCCESS : EFI_CRC_ERROR;
}

void saved_collect(struct volume *v, UINTN wait_s)
{
	UINT8 *data;
	UINTN size, parts;
	EFI_STATUS st = saved_read(&data, &size, &parts);
	if (st == EFI_NOT_FOUND) {
		Print(L"results: none saved in NVRAM (%s)\n", var_name);
		return;
	}
	if (EFI_ERROR(st)) {
		Print(L"results: reading %s failed: %r\n", var_name, st);
		return;
	}
	Print(L"results: the last run saved %d bytes in NVRAM (%s", size, var_name);
	if (parts > 1)
		Print(L" and %s1..%d", var_name, parts - 1);
	Print(L")\n");

	CHAR16 path[64];
	if (v->read_only) {
		st = EFI_WRITE_PROTECTED;
	} else {
		st = save_file(v, data, size, path, sizeof path / sizeof path[0]);
	}
	saved_show(data, size, L"results of the last run");
	if (st == EFI_WRITE_PROTECTED || st == EFI_ACCESS_DENIED) {
		Print(L"results: this medium is read-only (a CD?): they cannot be saved here and\n"
		      L"stay in NVRAM until apstart.efi runs from a writable stick (%r)\n", st);
	} else if (EFI_ERROR(st)) {
		Print(L"results: saving them to %s failed: %r; they stay in NVRAM\n",
		      APSTART_RESULTS, st);
	} else {
		Print(L"results: saved to %s\n", path);
		saved_delete();
		Print(L"results: deleted %s from NVRAM\n", var_name);
	}
	FreePool(data);
	menu_wait_key(wait_s);
}
