/* SPDX-License-Identifier: MIT */
/* Where the kernels and results live. Normally the FAT volume apstart.efi
 * was started from (the stick's EFI system partition). GRUB on a CD
 * chainloads apstart.efi from the ISO 9660 file system, which firmware
 * cannot read: the loaded image's device then has no file system and the
 * kernels are found on a partition of the same device (the CD's El Torito
 * FAT image). */
#include "wings/efi/volume.h"

#include <efilib.h>

static EFI_FILE_HANDLE open_root(EFI_HANDLE handle)
{
	EFI_SIMPLE_FILE_SYSTEM_PROTOCOL *fs;
	EFI_FILE_HANDLE root;

	if (EFI_ERROR(uefi_call_wrapper(BS->HandleProtocol, 3, handle,
					&gEfiSimpleFileSystemProtocolGuid, (VOID **)&fs)))
		return NULL;
	if (EFI_ERROR(uefi_call_wrapper(fs->OpenVolume, 2, fs, &root)))
		return NULL;
	return root;
}

static BOOLEAN has_file(EFI_FILE_HANDLE root, const CHAR16 *path)
{
	EFI_FILE_HANDLE f;

	if (EFI_ERROR(uefi_call_wrapper(root->Open, 5, root, &f, (CHAR16 *)path,
					EFI_FILE_MODE_READ, 0)))
		return FALSE;
	uefi_call_wrapper(f->Close, 1, f);
	return TRUE;
}

/* A device path without its end node is a prefix of its children's. */
static BOOLEAN is_child_of(EFI_DEVICE_PATH *child, EFI_DEVICE_PATH *parent)
{
	if (!child || !parent)
		return FALSE;
	UINTN plen = DevicePathSize(parent) - END_DEVICE_PATH_LENGTH;
	return DevicePathSize(child) > plen + END_DEVICE_PATH_LENGTH &&
	       CompareMem(child, parent, plen) == 0;
}

static EFI_STATUS use(struct volume *v, EFI_HANDLE handle, EFI_FILE_HANDLE root)
{
	EFI_FILE_SYSTEM_INFO *info = LibFileSystemInfo(root);

	v->root = root;
	v->where = DevicePathToStr(DevicePathFromHandle(handle));
	v->read_only = info ? info->ReadOnly : FALSE;
	if (info)
		FreePool(info);
	Print(L"apstart.efi: files on %s%s\n", v->where ? v->where : L"(unnamed volume)",
	      v->read_only ? L" (read-only)" : L"");
	return EFI_SUCCESS;
}

EFI_STATUS volume_open(EFI_HANDLE image, struct volume *v)
{
	EFI_LOADED_IMAGE *li;
	EFI_STATUS st = uefi_call_wrapper(BS->HandleProtocol, 3, image,
					  &gEfiLoadedImageProtocolGuid, (VOID **)&li);
	if (EFI_ERROR(st)) {
		Print(L"apstart.efi: no loaded-image protocol on our own image: %r\n", st);
		return st;
	}
	EFI_FILE_HANDLE root = open_root(li->DeviceHandle);
	if (root && has_file(root, APSTART_KERNEL0))
		return use(v, li->DeviceHandle, root);
	if (root)
		uefi_call_wrapper(root->Close, 1, root);

	UINTN n = 0;
	EFI_HANDLE *handles = NULL;
	st = uefi_call_wrapper(BS->LocateHandleBuffer, 5, ByProtocol,
			       &gEfiSimpleFileSystemProtocolGuid, NULL, &n, &handles);
	if (EFI_ERROR(st))
		n = 0;
	EFI_DEVICE_PATH *ours = DevicePathFromHandle(li->DeviceHandle);
	/* Pass 0: partitions of the device we were loaded from; pass 1: any. */
	for (int pass = 0; pass < 2; pass++) {
		for (UINTN i = 0; i < n; i++) {
			if (handles[i] == li->DeviceHandle)
				continue;
			if (pass == 0 && !is_child_of(DevicePathFromHandle(handles[i]), ours))
				continue;
			root = open_root(handles[i]);
			if (!root)
				continue;
			if (has_file(root, APSTART_KERNEL0)) {
				st = use(v, handles[i], root);
				FreePool(handles);
				return st;
			}
			uefi_call_wrapper(root->Close, 1, root);
		}
	}
	if (handles)
		FreePool(handles);
	Print(L"apstart.efi: no volume has %s (the loader was started from %s)\n",
	      APSTART_KERNEL0, ours ? DevicePathToStr(ours) : L"an unknown device");
	return EFI_NOT_FOUND;
}

EFI_STATUS volume_read_file(struct volume *v, const CHAR16 *path, UINTN max,
			    UINT8 **data, UINTN *size)
{
	EFI_FILE_HANDLE f;
	EFI_STATUS st = uefi_call_wrapper(v->root->Open, 5, v->root, &f,
					  (CHAR16 *)path, EFI_FILE_MODE_READ, 0);
	if (EFI_ERROR(st))
		return st;
	EFI_FILE_INFO *info = LibFileInfo(f);
	if (!info) {
		uefi_call_wrapper(f->Close, 1, f);
		return EFI_DEVICE_ERROR;
	}
	UINT64 len = info->FileSize;
	FreePool(info);
	if (len > max) {
		uefi_call_wrapper(f->Close, 1, f);
		return EFI_BAD_BUFFER_SIZE;
	}
	UINT8 *buf = AllocatePool(len + 1);
	if (!buf) {
		uefi_call_wrapper(f->Close, 1, f);
		return EFI_OUT_OF_RESOURCES;
	}
	UINTN got = len;
	st = uefi_call_wrapper(f->Read, 3, f, &got, buf);
	uefi_call_wrapper(f->Close, 1, f);
	if (!EFI_ERROR(st) && got != len)
		st = EFI_END_OF_FILE;
	if (EFI_ERROR(st)) {
		FreePool(buf);
		return st;
	}
	buf[len] = 0;
	*data = buf;
	*size = len;
	return EFI_SUCCESS;
}

/* Opens path for writing, creating it if it is not there. */
static EFI_STATUS open_write(struct volume *v, const CHAR16 *path, EFI_FILE_HANDLE *f)
{
	return uefi_call_wrapper(v->root->Open, 5, v->root, f, (CHAR16 *)path,
				 EFI_FILE_MODE_READ | EFI_FILE_MODE_WRITE | EFI_FILE_MODE_CREATE, 0);
}

EFI_STATUS volume_write_new_file(struct volume *v, const CHAR16 *path,
				 const VOID *data, UINTN size)
{
	EFI_FILE_HANDLE f;

	if (has_file(v->root, path))
		return EFI_ACCESS_DENIED;
	EFI_STATUS st = open_write(v, path, &f);
	if (EFI_ERROR(st))
		return st;
	UINTN put = size;
	st = uefi_call_wrapper(f->Write, 3, f, &put, (VOID *)data);
	if (!EFI_ERROR(st) && put != size)
		st = EFI_VOLUME_FULL;
	if (!EFI_ERROR(st))
		st = uefi_call_wrapper(f->Flush, 1, f);
	if (EFI_ERROR(st)) {
		uefi_call_wrapper(f->Delete, 1, f); /* closes it too */
		return st;
	}
	return uefi_call_wrapper(f->Close, 1, f);
}

EFI_STATUS volume_open_dir(struct volume *v, const CHAR16 *path, BOOLEAN create,
			   EFI_FILE_HANDLE *dir)
{
	UINT64 mode = EFI_FILE_MODE_READ;

	if (create)
		mode |= EFI_FILE_MODE_WRITE | EFI_FILE_MODE_CREATE;
	return uefi_call_wrapper(v->root->Open, 5, v->root, dir, (CHAR16 *)path, mode,
				 create ? EFI_FILE_DIRECTORY : 0);
}

EFI_STATUS volume_append_file(struct volume *v, const CHAR16 *path, const VOID *data,
			      UINTN size)
{
	EFI_FILE_HANDLE f;
	EFI_STATUS st = open_write(v, path, &f);
	if (EFI_ERROR(st))
		return st;
	/* UEFI 2.10 §13.5.13: this position means the end of the file. */
	st = uefi_call_wrapper(f->SetPosition, 2, f, 0xFFFFFFFFFFFFFFFFull);
	UINTN put = size;
	if (!EFI_ERROR(st))
		st = uefi_call_wrapper(f->Write, 3, f, &put, (VOID *)data);
	if (!EFI_ERROR(st) && put != size)
		st = EFI_VOLUME_FULL;
	if (!EFI_ERROR(st))
		st = uefi_call_wrapper(f->Flush, 1, f);
	EFI_STATUS cl = uefi_call_wrapper(f->Close, 1, f);
	return EFI_ERROR(st) ? st : cl;
}

EFI_STATUS volume_delete_file(struct volume *v, const CHAR16 *path)
{
	EFI_FILE_HANDLE f;
	EFI_STATUS st = uefi_call_wrapper(v->root->Open, 5, v->root, &f, (CHAR16 *)path,
					  EFI_FILE_MODE_READ | EFI_FILE_MODE_WRITE, 0);
	if (EFI_ERROR(st))
		return st;
	/* Delete closes the handle; a warning status means it could not. */
	st = uefi_call_wrapper(f->Delete, 1, f);
	return st == EFI_SUCCESS ? st : EFI_ACCESS_DENIED;
}

BOOLEAN volume_exists(struct volume *v, const CHAR16 *path)
{
	return has_file(v->root, path);
}

UINT64 volume_free_space(struct volume *v)
{
	EFI_FILE_SYSTEM_INFO *info = LibFileSystemInfo(v->root);
	if (!info)
		return 0;
	UINT64 free = info->FreeSpace;
	FreePool(info);
	return free;
}

EFI_STATUS volume_list_dir(struct volume *v, const CHAR16 *path,
			   void (*fn)(void *ctx, const CHAR16 *name, BOOLEAN dir), void *ctx)
{
	EFI_FILE_HANDLE dir;
	UINT8 buf[SIZE_OF_EFI_FILE_INFO + 512 * sizeof(CHAR16)];

	EFI_STATUS st = volume_open_dir(v, path, FALSE, &dir);
	if (EFI_ERROR(st))
		return st;
	for (;;) {
		UINTN size = sizeof buf;
		st = uefi_call_wrapper(dir->Read, 3, dir, &size, buf);
		if (EFI_ERROR(st) || size == 0)
			break; /* a name too long for buf is none of ours */
		EFI_FILE_INFO *info = (EFI_FILE_INFO *)buf;
		if (StrCmp(info->FileName, L".") == 0 || StrCmp(info->FileName, L"..") == 0)
			continue;
		fn(ctx, info->FileName, (info->Attribute & EFI_FILE_DIRECTORY) != 0);
	}
	uefi_call_wrapper(dir->Close, 1, dir);
	return EFI_SUCCESS;
}
