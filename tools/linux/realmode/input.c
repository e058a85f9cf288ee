/* SPDX-License-Identifier: MIT */
/* What aprealmode reads (input.h). */
#define _POSIX_C_SOURCE 200809L
#include "tools/linux/realmode/input.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lib/bytes.h"
#include "tools/linux/realmode/decompress.h"
#include "tools/linux/realmode/kernel_image.h"
#include "tools/linux/realmode/scan.h"

/* The whole of a regular file, malloc'd (one byte more, zero). */
static int read_file(const char *path, uint8_t **out, size_t *len, char *why)
{
	struct stat st;
	*out = NULL;
	FILE *f = fopen(path, "rb");
	if (!f)
		return lrm_why(why, "cannot read %s: %s", path, strerror(errno));
	if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode)) {
		fclose(f);
		return lrm_why(why, "%s is not a regular file", path);
	}
	if ((uint64_t)st.st_size > INPUT_FILE_MAX) {
		fclose(f);
		return lrm_why(why, "%s is %lld bytes: more than a kernel", path, (long long)st.st_size);
	}
	size_t n = (size_t)st.st_size;
	uint8_t *buf = malloc(n + 1);
	if (!buf || fread(buf, 1, n, f) != n) {
		lrm_why(why, "cannot read %s: %s", path, buf ? strerror(errno) : "out of memory");
		free(buf);
		fclose(f);
		return 0;
	}
	fclose(f);
	buf[n] = 0;
	*out = buf;
	*len = n;
	return 1;
}

static int is_dir(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static int exists(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0;
}

/* The blob found in a vmlinux (buf), copied out. */
static int from_vmlinux(struct input *in, const uint8_t *buf, size_t len, char *why)
{
	struct scan_result r;
	scan_banner(buf, len, in->banner, sizeof in->banner);
	if (!scan_for_blob(buf, len, &r)) {
		if (r.shapes)
			return lrm_why(why, "no valid realmode blob in the kernel: the nearest, at 0x%zx: %s",
				       r.nearest_at, r.why);
		return lrm_why(why, "no realmode blob in the kernel (no page-aligned real_mode_header "
				    "ending in the signature 0x%x with relocation tables after it)",
			       LRM_END_SIGNATURE);
	}
	if (r.found > 1)
		return lrm_why(why, "%u realmode blobs in the kernel (at 0x%zx and 0x%zx): which one runs is not known",
			       r.found, r.blob_at, r.second_at);
	if (in->elf_bits && in->elf_bits != r.info.layout->bits)
		return lrm_why(why, "a %d-bit vmlinux holding a %u-bit realmode blob (%s)",
			       in->elf_bits, r.info.layout->bits, r.info.layout->name);
	in->blob = malloc(r.blob_size);
	in->relocs = malloc(r.relocs_size);
	if (!in->blob || !in->relocs)
		return lrm_why(why, "out of memory");
	memcpy(in->blob, buf + r.blob_at, r.blob_size);
	memcpy(in->relocs, buf + r.blob_at + r.blob_size, r.relocs_size);
	in->blob_size = r.blob_size;
	in->relocs_size = r.relocs_size;
	in->blob_in_kernel = 1;
	in->blob_at = r.blob_at;
	in->info = r.info;
	return 1;
}

/* A bzImage: its payload decompressed by the system's tool, then as a
 * vmlinux. */
static int from_bzimage(struct input *in, const char *path, const uint8_t *img,
			size_t at, size_t size, unsigned protocol, char *why)
{
	const struct payload_format *fmt = payload_format_of(img + at, size);
	if (!fmt)
		return lrm_why(why, "%s: a bzImage whose payload is in no format known here (it begins %02x %02x %02x %02x)",
			       path, img[at], size > 1 ? img[at + 1] : 0, size > 2 ? img[at + 2] : 0,
			       size > 3 ? img[at + 3] : 0);
	uint8_t *vm;
	size_t vm_len;
	char dwhy[LRM_WHY_SIZE];
	if (!decompress(fmt, img + at, size, &vm, &vm_len, dwhy))
		return lrm_why(why, "%s: %s", path, dwhy);
	int bits = elf_x86_bits(vm, vm_len, dwhy);
	int ok = 0;
	if (bits < 0)
		lrm_why(why, "%s: the payload decompressed to %zu bytes that are not a vmlinux (no ELF header)",
			path, vm_len);
	else if (bits == 0)
		lrm_why(why, "%s: the payload is %s", path, dwhy);
	else {
		in->elf_bits = bits;
		ok = from_vmlinux(in, vm, vm_len, dwhy);
		if (!ok)
			lrm_why(why, "%s: %s", path, dwhy);
		else
			snprintf(in->what, sizeof in->what,
				 "bzImage (boot protocol %u.%02u), payload %s %zu bytes -> vmlinux %zu bytes (ELF %s), blob at 0x%zx",
				 protocol >> 8, protocol & 0xff, fmt->name, size, vm_len,
				 bits == 64 ? "x86_64" : "i386", in->blob_at);
	}
	free(vm);
	return ok;
}

/* A release from a build tree: include/config/kernel.release at root. */
static void tree_release(const char *root, char *out, size_t size)
{
	char path[4096], rel[128] = "";
	snprintf(path, sizeof path, "%s/include/config/kernel.release", root);
	FILE *f = fopen(path, "r");
	if (f) {
		if (!fgets(rel, sizeof rel, f))
			rel[0] = 0;
		fclose(f);
	}
	rel[strcspn(rel, "\n")] = 0;
	if (rel[0])
		snprintf(out, size, "Linux version %s (build tree)", rel);
	else
		snprintf(out, size, "Linux (build tree without include/config/kernel.release)");
}

/* realmode.bin + realmode.relocs, as the tree's build left them. */
static int from_blob_files(struct input *in, const char *bin, const char *relocs,
			   const char *root, char *why)
{
	char rwhy[LRM_WHY_SIZE];
	if (!read_file(bin, &in->blob, &in->blob_size, why))
		return 0;
	if (!read_file(relocs, &in->relocs, &in->relocs_size, rwhy))
		return lrm_why(why, "%s needs its relocations: %s", bin, rwhy);
	if (!lrm_blob_check(in->blob, in->blob_size, in->relocs, in->relocs_size, &in->info, rwhy))
		return lrm_why(why, "%s: %s", bin, rwhy);
	in->origin = LRM_FROM_SOURCE;
	tree_release(root, in->banner, sizeof in->banner);
	snprintf(in->what, sizeof in->what, "%s + %s", bin, relocs);
	return 1;
}

/* The folder of a file path ("." if none), into out. */
static void dir_of(const char *path, char *out, size_t size)
{
	const char *slash = strrchr(path, '/');
	if (!slash)
		snprintf(out, size, ".");
	else
		snprintf(out, size, "%.*s", (int)(slash - path), path);
}

int input_read(const char *path, const char *relocs_path, struct input *in,
	       char why[LRM_WHY_SIZE])
{
	char bin[4096 + 64], rel[4096 + 64], dir[4096];
	memset(in, 0, sizeof *in);
	in->origin = LRM_FROM_IMAGE;

	if (is_dir(path)) {
		snprintf(bin, sizeof bin, "%s/arch/x86/realmode/rm/realmode.bin", path);
		if (!exists(bin))
			return lrm_why(why, "%s: a folder without arch/x86/realmode/rm/realmode.bin "
					    "(build it: make arch/x86/realmode/)", path);
		snprintf(rel, sizeof rel, "%s/arch/x86/realmode/rm/realmode.relocs", path);
		return from_blob_files(in, bin, relocs_path ? relocs_path : rel, path, why);
	}

	uint8_t *img;
	size_t len, at, size;
	unsigned protocol;
	char iwhy[LRM_WHY_SIZE];
	if (!read_file(path, &img, &len, why))
		return 0;
	int ok = 0, kind;
	if ((kind = bzimage_payload(img, len, &at, &size, &protocol, iwhy)) >= 0) {
		ok = kind && from_bzimage(in, path, img, at, size, protocol, why);
		if (!kind)
			lrm_why(why, "%s: %s", path, iwhy);
	} else if ((kind = elf_x86_bits(img, len, iwhy)) >= 0) {
		if (!kind) {
			lrm_why(why, "%s: %s", path, iwhy);
		} else {
			in->elf_bits = kind;
			ok = from_vmlinux(in, img, len, iwhy);
			if (!ok)
				lrm_why(why, "%s: %s", path, iwhy);
			else
				snprintf(in->what, sizeof in->what, "vmlinux (ELF %s, %zu bytes), blob at 0x%zx",
					 kind == 64 ? "x86_64" : "i386", len, in->blob_at);
		}
	} else if (len >= 4 && rd32(img + len - 4) == LRM_END_SIGNATURE) {
		/* A realmode.bin: its relocations beside it, or named. */
		dir_of(path, dir, sizeof dir);
		snprintf(rel, sizeof rel, "%s/realmode.relocs", dir);
		char root[4096 + 16];
		snprintf(root, sizeof root, "%s/../../../..", dir);
		free(img);
		return from_blob_files(in, path, relocs_path ? relocs_path : rel, root, why);
	} else if (not_x86_kernel(img, len, iwhy)) {
		lrm_why(why, "%s: %s", path, iwhy);
	} else if (len && payload_format_of(img, len)) {
		lrm_why(why, "%s: a %s file, not a kernel image (a vmlinux compressed alone? decompress it first)",
			path, payload_format_of(img, len)->name);
	} else {
		lrm_why(why, "%s: not a kernel image, vmlinux, realmode.bin or build tree "
			     "(no x86 boot header \"HdrS\" at 0x202, no ELF header, no realmode end signature)",
			path);
	}
	free(img);
	return ok;
}

void input_free(struct input *in)
{
	free(in->blob);
	free(in->relocs);
	in->blob = in->relocs = NULL;
}
