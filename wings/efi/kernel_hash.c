/* SPDX-License-Identifier: MIT */
/* apstart.efi carries the SHA-256 of each kernel on the stick, put into
 * it when it is built (wings/efi/mkhashes.sh). Signing apstart.efi signs
 * that table too, so under Secure Boot the chain firmware -> shim ->
 * apstart.efi -> kernel stays closed: a kernel changed after signing is
 * not started. Without Secure Boot nothing is enforced, as before: a
 * kernel copied onto the stick by hand still starts, with a warning
 * (there, anything on the stick, apstart.efi too, can be replaced, so a
 * refusal would protect nothing). The kernel itself checks nothing. */
#include "wings/efi/kernel_hash.h"

#include <efilib.h>

static void to_hex(const UINT8 d[SHA256_BYTES], CHAR16 out[2 * SHA256_BYTES + 1])
{
	static const CHAR16 digits[] = L"0123456789abcdef";

	for (UINTN i = 0; i < SHA256_BYTES; i++) {
		out[2 * i] = digits[d[i] >> 4];
		out[2 * i + 1] = digits[d[i] & 15];
	}
	out[2 * SHA256_BYTES] = 0;
}

/* A kernel, or an LRM file (\apstart\linux\*.lrm). */
static const CHAR16 *what(const CHAR16 *path)
{
	UINTN n = StrLen((CHAR16 *)path);
	return n > 4 && StrCmp((CHAR16 *)path + n - 4, L".lrm") == 0 ? L"Linux blob" : L"kernel";
}

static const struct kernel_hash *find(const CHAR16 *path)
{
	for (UINTN i = 0; i < kernel_hash_count; i++)
		if (StrCmp((CHAR16 *)kernel_hashes[i].path, (CHAR16 *)path) == 0)
			return &kernel_hashes[i];
	return NULL;
}

BOOLEAN kernel_hash_known(const CHAR16 *path)
{
	return find(path) != NULL;
}

EFI_STATUS kernel_hash_check(const CHAR16 *path, const UINT8 *file, UINTN size,
			     enum secure_boot sb)
{
	UINT8 digest[SHA256_BYTES];
	CHAR16 got[2 * SHA256_BYTES + 1], want[2 * SHA256_BYTES + 1] = L"(none)";
	const struct kernel_hash *k = find(path);

	sha256(file, size, digest);
	if (k && CompareMem(digest, k->sha256, SHA256_BYTES) == 0)
		return EFI_SUCCESS;
	to_hex(digest, got);
	if (k)
		to_hex(k->sha256, want);
	if (sb == SECURE_BOOT_OFF) {
		Print(L"apstart.efi: warning: %s is not the %s this apstart.efi was built with\n"
		      L"  (SHA-256 %s, built with %s).\n"
		      L"  Secure Boot is off, so it is started; with Secure Boot on it would be refused.\n",
		      path, what(path), got, want);
		return EFI_SUCCESS;
	}
	Print(L"apstart.efi: Secure Boot is %s and %s is not the %s this apstart.efi\n"
	      L"  was signed with: refused.\n"
	      L"  its SHA-256:      %s\n"
	      L"  signed SHA-256:   %s\n"
	      L"  Write the stick again from the build that was signed (make sign; make usb),\n"
	      L"  or turn Secure Boot off in the firmware settings.\n",
	      secure_boot_name(sb), path, what(path), got, want);
	return EFI_SECURITY_VIOLATION;
}
