/* SPDX-License-Identifier: MIT */
/* Writes a synthetic realmode.bin and realmode.relocs (tests/unit/
 * lrm_fixture.c: the shape of Debian 12's blobs, not Linux's code) for
 * the realmode lane's images and trees:
 *   mkfixture 6.1|6.12|i386 shipped|patched OUTDIR */
#include <stdio.h>
#include <string.h>

#include "tests/unit/lrm_fixture.h"
#include "wings/linux_trampoline/lrm_blob.h"

static int write_file(const char *dir, const char *name, const void *p, size_t n)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	FILE *f = fopen(path, "wb");
	if (!f || fwrite(p, 1, n, f) != n || fclose(f) != 0) {
		fprintf(stderr, "mkfixture: cannot write %s\n", path);
		return 0;
	}
	return 1;
}

int main(int argc, char **argv)
{
	static struct fixture fx;
	if (argc != 4) {
		fprintf(stderr, "usage: mkfixture 6.1|6.12|i386 shipped|patched OUTDIR\n");
		return 2;
	}
	uint32_t layout = !strcmp(argv[1], "6.1")    ? LRM_LAYOUT_LINUX_6_1_X86_64
			  : !strcmp(argv[1], "6.12") ? LRM_LAYOUT_LINUX_6_12_X86_64
			  : !strcmp(argv[1], "i386") ? LRM_LAYOUT_LINUX_6_1_I386
						     : 0;
	int patched = !strcmp(argv[2], "patched");
	if (!layout || (!patched && strcmp(argv[2], "shipped"))) {
		fprintf(stderr, "mkfixture: unknown layout or state: %s %s\n", argv[1], argv[2]);
		return 2;
	}
	fixture_make(&fx, layout, patched ? FIXTURE_PATCHED : FIXTURE_SHIPPED);
	return write_file(argv[3], "realmode.bin", fx.blob, fx.blob_size) &&
			       write_file(argv[3], "realmode.relocs", fx.relocs, fx.relocs_size)
		       ? 0 : 1;
}
