/* SPDX-License-Identifier: MIT */
/* The FAT volume apstart.efi reads its kernels from and writes results
 * to, and whole-file reads and writes on it. */
#ifndef APSTART_EFI_VOLUME_H
#define APSTART_EFI_VOLUME_H

#include <efi.h>

/* Every path apstart.efi uses on its volume. */
#define APSTART_DIR        L"\\apstart"
#define APSTART_KERNEL0    L"\\apstart\\apstart-wbinvd0.elf"
#define APSTART_KERNEL1    L"\\apstart\\apstart-wbinvd1.elf"
#define APSTART_CONFIG     L"\\apstart\\loader.cfg"
/* Linux's own trampoline (make iso LINUX_IMAGE=...): a kernel's realmode
 * blob as shipped and its patched twin, LRM files (docs/linux-trampoline.md). */
#define APSTART_LRM_SHIPPED L"\\apstart\\linux\\shipped.lrm"
#define APSTART_LRM_TWIN    L"\\apstart\\linux\\twin.lrm"
#define APSTART_RESULTS    L"\\apstart\\results"
/* There while an A/B session is under way: GRUB's menu then starts
 * apstart.efi at once (tools/image/grub.cfg.in), so each reset comes back here. */
#define APSTART_SESSION_MARK L"\\apstart\\session-running"

struct volume {
	EFI_FILE_HANDLE root;
	CHAR16 *where;       /* device path as text, for messages */
	BOOLEAN read_only;   /* the file system says so (CD, El Torito) */
};

/* Finds the volume that holds the kernels: the one apstart.efi was
 * loaded from, else another partition of the same device, else any.
 * Prints what it found or why nothing. */
EFI_STATUS volume_open(EFI_HANDLE image, struct volume *v);

/* Reads a whole file of at most max bytes into a new pool buffer, with
 * one NUL byte after the data (for text files). */
EFI_STATUS volume_read_file(struct volume *v, const CHAR16 *path, UINTN max,
			    UINT8 **data, UINTN *size);

/* Creates path (which must not exist), writes size bytes, flushes.
 * On failure nothing is left behind. */
EFI_STATUS volume_write_new_file(struct volume *v, const CHAR16 *path,
				 const VOID *data, UINTN size);

/* Adds size bytes at the end of an existing file (or creates it), flushes. */
EFI_STATUS volume_append_file(struct volume *v, const CHAR16 *path,
			      const VOID *data, UINTN size);

/* Deletes a file; EFI_NOT_FOUND if it is not there. */
EFI_STATUS volume_delete_file(struct volume *v, const CHAR16 *path);

/* Whether path exists (file or directory). */
BOOLEAN volume_exists(struct volume *v, const CHAR16 *path);

/* Bytes free on the volume; 0 if the firmware does not say. */
UINT64 volume_free_space(struct volume *v);

/* Calls fn for every entry of a directory but . and .. (name, whether
 * it is a directory). */
EFI_STATUS volume_list_dir(struct volume *v, const CHAR16 *path,
			   void (*fn)(void *ctx, const CHAR16 *name, BOOLEAN dir),
			   void *ctx);

/* Opens (creating it if needed) a directory for reading its entries. */
EFI_STATUS volume_open_dir(struct volume *v, const CHAR16 *path,
			   BOOLEAN create, EFI_FILE_HANDLE *dir);

#endif
