/* SPDX-License-Identifier: MIT */
/* wings/linux_trampoline/: the realmode blob check (lrm_blob.c) and the
 * LRM file (lrm_file.c) on synthetic blobs of each verified layout, as
 * shipped, as the reference patch builds it and as the twin edit leaves
 * it; then every refusal, planted one at a time, and the header made to
 * lie in each of its bytes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "lrm_fixture.h"
#include "wings/linux_trampoline/lrm_file.h"

static const uint32_t layouts[] = { LRM_LAYOUT_LINUX_6_1_X86_64, LRM_LAYOUT_LINUX_6_12_X86_64,
				    LRM_LAYOUT_LINUX_6_1_I386 };
static const enum fixture_entry entries[] = { FIXTURE_SHIPPED, FIXTURE_PATCHED, FIXTURE_EDITED };
static struct fixture fx;
static _Alignas(8) uint8_t file[LRM_FILE_MAX];
static char why[LRM_WHY_SIZE];

static void put32(uint8_t *p, uint32_t v)
{
	memcpy(p, &v, 4);
}

/* A refusal: 0 returned, why one non-empty line holding want. */
static void check_refused(int rc, const char *want, const char *what)
{
	int ok = rc == 0 && why[0] && !strchr(why, '\n') && strstr(why, want);
	if (!ok)
		printf("    %s: rc %d, why \"%s\" (wanted \"%s\")\n", what, rc, why, want);
	CHECK(ok);
}

static uint32_t origin_for(enum fixture_entry e)
{
	return LRM_FROM_IMAGE | (e == FIXTURE_SHIPPED ? 0 : LRM_PATCHED);
}

/* fx as a file in file[]; returns its length. */
static size_t make_file(struct lrm_header *h, enum fixture_entry e)
{
	uint8_t shipped[SHA256_BYTES];
	memset(shipped, 0x5a, sizeof shipped);
	why[0] = 0;
	if (!lrm_build(h, fx.blob, fx.blob_size, fx.relocs, fx.relocs_size, origin_for(e),
		       e == FIXTURE_EDITED ? shipped : NULL, "Linux version 6.1.0-57-amd64 (test)", why)) {
		printf("    lrm_build: %s\n", why);
		return 0;
	}
	return lrm_write(h, fx.blob, fx.relocs, file, sizeof file);
}

static void test_blob_layouts(void)
{
	for (unsigned i = 0; i < 3; i++) {
		for (unsigned j = 0; j < 3; j++) {
			struct lrm_blob_info in;
			fixture_make(&fx, layouts[i], entries[j]);
			why[0] = 0;
			int ok = lrm_blob_check(fx.blob, fx.blob_size, fx.relocs, fx.relocs_size, &in, why);
			if (!CHECK(ok)) {
				printf("    layout %u entry %u: %s\n", (unsigned)layouts[i], j, why);
				continue;
			}
			CHECK_EQ(in.layout->id, layouts[i]);
			CHECK_EQ(in.trampoline_start, 0x1000);
			CHECK_EQ(in.trampoline_header, fx.th);
			CHECK_EQ(in.trampoline_pgd, fx.pgd);
			CHECK_EQ(in.tr_start, fx.th);
			CHECK_EQ(in.ljmp_at, fx.ljmp_at);
			CHECK_EQ(in.wbinvd_at, fx.wbinvd_at);
			CHECK_EQ(in.rm_stack_end, fx.stack_end);
			CHECK_EQ(!!(in.flags & LRM_WBINVD), entries[j] == FIXTURE_SHIPPED);
			CHECK_EQ(!!(in.flags & LRM_EDITED), entries[j] == FIXTURE_EDITED);
			int i386 = layouts[i] == LRM_LAYOUT_LINUX_6_1_I386;
			CHECK_EQ(!!(in.flags & LRM_32BIT), i386);
			CHECK_EQ(in.tr_efer, i386 ? 0 : fx.th + 8);
			CHECK_EQ(in.tr_cr4, i386 ? 0 : fx.th + 16);
			CHECK_EQ(in.tr_flags, i386 ? 0 : fx.th + 20);
			CHECK_EQ(in.tr_gdt, i386 ? fx.th + 6 : 0);
			CHECK_EQ(in.tr_lock, layouts[i] == LRM_LAYOUT_LINUX_6_12_X86_64 ? fx.th + 24 : 0);
		}
	}
	CHECK(lrm_layout_by_id(LRM_LAYOUT_NONE) == NULL);
	for (unsigned i = 0; i < lrm_layout_count; i++)
		CHECK(strlen(lrm_layouts[i].name) < LRM_LAYOUT_NAME_SIZE);
}

static void test_file_roundtrip(void)
{
	for (unsigned i = 0; i < 3; i++) {
		for (unsigned j = 0; j < 3; j++) {
			struct lrm_header h, got;
			struct lrm_blob_info in;
			fixture_make(&fx, layouts[i], entries[j]);
			size_t len = make_file(&h, entries[j]);
			if (!CHECK(len == lrm_file_size(&h) && len))
				continue;
			why[0] = 0;
			if (!CHECK(lrm_check(file, len, &got, &in, why))) {
				printf("    layout %u entry %u: %s\n", (unsigned)layouts[i], j, why);
				continue;
			}
			CHECK(!memcmp(&h, &got, sizeof h));
			CHECK_EQ(got.blob_offset % 8, 0);
			CHECK_EQ(got.relocs_offset % 8, 0);
			CHECK(!memcmp(file + got.blob_offset, fx.blob, fx.blob_size));
			CHECK(!memcmp(file + got.relocs_offset, fx.relocs, fx.relocs_size));
			CHECK_STREQ(got.layout_name, in.layout->name);
			CHECK_STREQ(got.kernel_version, "Linux version 6.1.0-57-amd64 (test)");
			CHECK_EQ(!!(got.flags & LRM_PATCHED), entries[j] != FIXTURE_SHIPPED);
			CHECK_EQ(!!memcmp(got.shipped_blob_sha256, got.blob_sha256, SHA256_BYTES),
				 entries[j] == FIXTURE_EDITED);
		}
	}
	/* Too small a buffer: nothing written. */
	struct lrm_header h;
	fixture_make(&fx, LRM_LAYOUT_LINUX_6_1_X86_64, FIXTURE_SHIPPED);
	CHECK(make_file(&h, FIXTURE_SHIPPED));
	CHECK_EQ(lrm_write(&h, fx.blob, fx.relocs, file, lrm_file_size(&h) - 1), 0);
}

/* Every length short of the whole file is refused. */
static void test_every_truncation(void)
{
	struct lrm_header h;
	fixture_make(&fx, LRM_LAYOUT_LINUX_6_1_I386, FIXTURE_SHIPPED);
	size_t len = make_file(&h, FIXTURE_SHIPPED);
	unsigned accepted = 0;
	for (size_t n = 0; n < len; n++)
		accepted += (unsigned)lrm_check(file, n, NULL, NULL, why);
	CHECK_EQ(accepted, 0);
	CHECK(lrm_check(file, len, NULL, NULL, why));
}

/* A change to any byte of the header is refused, but to the two things
 * the blob cannot show: the banner's text (a printable byte for another)
 * and, in a twin, the SHA-256 of the blob as shipped. */
static int free_byte(const struct lrm_header *h, size_t at, unsigned bit)
{
	size_t kv = offsetof(struct lrm_header, kernel_version);
	size_t sh = offsetof(struct lrm_header, shipped_blob_sha256);
	if (at >= kv && at < kv + strlen(h->kernel_version) && bit != 7)
		return 1;
	return (h->flags & LRM_EDITED) && at >= sh && at < sh + SHA256_BYTES;
}

static void test_header_flips(void)
{
	for (unsigned k = 0; k < 6; k++) {
		struct lrm_header h;
		enum fixture_entry e = k < 3 ? FIXTURE_SHIPPED : FIXTURE_EDITED;
		fixture_make(&fx, layouts[k % 3], e);
		size_t len = make_file(&h, e);
		unsigned accepted = 0;
		for (size_t at = 0; at < LRM_HEADER_SIZE; at++) {
			for (unsigned bit = 0; bit < 8; bit += 7) {
				if (free_byte(&h, at, bit))
					continue;
				file[at] ^= (uint8_t)(1u << bit);
				why[0] = 0;
				if (lrm_check(file, len, NULL, NULL, why)) {
					accepted++;
					printf("    byte 0x%zx bit %u accepted\n", at, bit);
				} else if (!why[0] || strchr(why, '\n')) {
					accepted++;
					printf("    byte 0x%zx bit %u: no one-line why\n", at, bit);
				}
				file[at] ^= (uint8_t)(1u << bit);
			}
		}
		CHECK_EQ(accepted, 0);
		CHECK(lrm_check(file, len, NULL, NULL, why));
	}
}

/* Linear relocation i of fx left out. */
static void drop_linear(unsigned i)
{
	uint32_t nseg, nlin;
	memcpy(&nseg, fx.relocs, 4);
	uint8_t *lin = fx.relocs + 4 + 4 * nseg;
	memcpy(&nlin, lin, 4);
	memmove(lin + 4 + 4 * i, lin + 8 + 4 * i, 4 * (nlin - i - 1));
	put32(lin, nlin - 1);
	fx.relocs_size -= 4;
}

/* fx's 6.1 header without sev_es_trampoline_start (a kernel without
 * CONFIG_AMD_MEM_ENCRYPT): 10 words, 9 of them relocated. */
static void drop_sev_es_word(void)
{
	memmove(fx.blob + 16, fx.blob + 20, 24);
	put32(fx.blob + 40, 0);
	drop_linear(9);
}

/* The blob's own refusals, each planted into a good blob. */
static void test_blob_refusals(void)
{
	struct lrm_blob_info in;
	uint8_t *b = fx.blob;
#define PLANT(layout, entry, fault, want) \
	do { \
		fixture_make(&fx, (layout), (entry)); \
		fault; \
		why[0] = 0; \
		check_refused(lrm_blob_check(fx.blob, fx.blob_size, fx.relocs, fx.relocs_size, &in, why), \
			      (want), #fault); \
	} while (0)
	const uint32_t L61 = LRM_LAYOUT_LINUX_6_1_X86_64, L612 = LRM_LAYOUT_LINUX_6_12_X86_64,
		       L32 = LRM_LAYOUT_LINUX_6_1_I386;
	const enum fixture_entry S = FIXTURE_SHIPPED;
	PLANT(L61, S, fx.blob_size = 0x1000, "a blob of 4096 bytes");
	PLANT(L61, S, fx.blob_size = 0x10004, "a blob of");
	PLANT(L61, S, fx.blob_size -= 2, "a blob of");
	PLANT(L61, S, b[fx.blob_size - 1] ^= 1, "realmode signature");
	PLANT(L61, S, fx.relocs_size = 4, "fewer than the two counts");
	PLANT(L61, S, fx.relocs_size -= 4, "need");
	PLANT(L61, S, fx.relocs_size += 4, "after the tables' end");
	PLANT(L61, S, put32(fx.relocs, 0xffffffff), "segment entries for a blob");
	PLANT(L61, S, put32(fx.relocs + 24, 0xffffffff), "linear entries for a blob");
	PLANT(L61, S, put32(fx.relocs + 8, 0x6263), "segment relocation 1 at 0x6263: outside the blob");
	PLANT(L61, S, put32(fx.relocs + 24 + 4 * 15, 0x6261), "linear relocation 14 at 0x6261: outside");
	PLANT(L61, S, put32(fx.relocs + 8, 0x1000), "segment relocation 1 at 0x1000: not after");
	PLANT(L61, S, put32(fx.relocs + 32, 0x1), "linear relocation 1 at 0x1: not after");
	PLANT(L61, S, b[0x1054] = 1, "realmode.bin holds 0");
	/* Layout faults: each leaves no verified layout, and names what. */
	PLANT(L61, S, put32(b + 4, 0x7000), "unknown realmode layout (header 1000 7000 1000");
	PLANT(L61, S, put32(b + 8, 0x1001), "trampoline_start 0x1001 is not text_start");
	PLANT(L61, S, put32(b + 12, 0x5004), "trampoline_header 0x5004");
	PLANT(L61, S, b[0x5003] = 1, "trampoline_header 0x5000 is not 24 zero bytes");
	PLANT(L61, S, b[0x4010] = 1, "trampoline_pgd 0x4000");
	PLANT(L61, S, put32(b + 16, 0x2200), "sev_es_trampoline_start 0x2200 is not code");
	PLANT(L61, S, b[0x3010 + 56] ^= 1, "wakeup_header 0x3010 has no signature");
	PLANT(L61, S, put32(b + 40, 0x10), "machine_real_restart_seg 0x10");
	PLANT(L61, S, b[0x1000] = 0x90, "does not begin with cli");
	PLANT(L61, S, b[0x1003] = 0xe9, "no ljmpw");
	PLANT(L61, S, b[0x1004] = 0x0a, "goes to 0x100a, not to the next instruction");
	PLANT(L61, S, b[0x1008] = 0x90, "segment moves");
	PLANT(L61, S, b[0x1013] = 0x70, "real-mode stack's top 0x7020");
	PLANT(L61, S, b[0x1016] = 0x90, "no movl $rm_stack_end");
	PLANT(L61, S, put32(b + 0x2041, 0x5000), "names trampoline_header 0x5000 + 8");
	PLANT(L612, S, b[0x1015] = 0x1c, "locks 0x501c, not tr_lock");
	PLANT(L612, S, b[0x1018] = 0x72, "unknown realmode layout");
	PLANT(L32, S, b[0x100e] = 0x04, "tr_start/tr_gdt at 0x2104/0x2106");
	PLANT(L32, S, b[0x1007] = 0x90, "not trampoline_32.S's code");
	PLANT(L61, FIXTURE_EDITED, fx.blob[0x1007] = 0x90, "goes to 0x1008");
	/* The ljmpw's segment word left out of the segment relocations. */
	PLANT(L61, S, put32(fx.relocs + 4, 0x1030), "segment word 0x1006 is not relocated");
	/* A header word dropped from the linear relocations. */
	PLANT(L61, S, drop_linear(9), "header word 9 (machine_real_restart_asm) is not in the linear");
	PLANT(L61, S, put32(fx.relocs + 24 + 4 * 11, 0x28), "go on past the header");
	/* A header of 10 words (a kernel without CONFIG_AMD_MEM_ENCRYPT). */
	PLANT(L61, S, drop_sev_es_word(),
	      "unknown realmode layout (header 1000 20f4 1000 5000 20e0 4000 11f0 3010 2080 8; 9 words relocated)");
#undef PLANT
}

/* The file's own refusals: planted into a good file's header. */
static void test_file_refusals(void)
{
	struct lrm_header h, *fh = (struct lrm_header *)file;
	size_t len;
#define PLANT(entry, fault, want) \
	do { \
		fixture_make(&fx, LRM_LAYOUT_LINUX_6_1_X86_64, (entry)); \
		len = make_file(&h, (entry)); \
		fault; \
		why[0] = 0; \
		check_refused(lrm_check(file, len, NULL, NULL, why), (want), #fault); \
	} while (0)
	const enum fixture_entry S = FIXTURE_SHIPPED, E = FIXTURE_EDITED;
	PLANT(S, len = 16, "shorter than an LRM header");
	PLANT(S, fh->magic[0] = 'X', "not an LRM file");
	PLANT(S, fh->version = 2, "LRM version 2");
	PLANT(S, fh->blob_offset = 0x100, "blob at 0x100");
	PLANT(S, fh->blob_offset = 0x144, "blob at 0x144");
	PLANT(S, fh->blob_size = 0xffffff00, "blob at 0x140");
	PLANT(S, fh->relocs_offset -= 8, "relocations at");
	PLANT(S, len += 8, "relocations at");
	PLANT(S, fh->flags |= 0x100, "unknown bits 0x100");
	PLANT(S, fh->flags |= LRM_FROM_SOURCE, "not exactly one of");
	PLANT(S, fh->flags &= ~LRM_FROM_IMAGE, "not exactly one of");
	PLANT(S, fh->flags |= LRM_PATCHED, "patched, yet trampoline_start executes WBINVD");
	PLANT(E, fh->flags &= ~LRM_PATCHED, "the twin edit, not marked patched");
	PLANT(S, fh->flags &= ~LRM_WBINVD, "flags 0x8 recorded, the blob says 0x9");
	PLANT(S, fh->layout = LRM_LAYOUT_LINUX_6_12_X86_64, "layout 0x2 recorded, the blob says 0x1");
	PLANT(S, fh->trampoline_header = 0x5008, "trampoline_header 0x5008 recorded");
	PLANT(S, fh->tr_cr4 = 0, "tr_cr4 0x0 recorded, the blob says 0x5010");
	PLANT(S, fh->wbinvd_at = 0, "wbinvd_at 0x0 recorded");
	PLANT(S, fh->linear_relocs = 14, "linear_relocs 0xe recorded");
	PLANT(S, file[fh->blob_offset + 0x1800] = 1, "the blob's SHA-256");
	PLANT(S, file[fh->relocs_offset + 20] = 0x22, "the relocations' SHA-256");
	PLANT(S, fh->shipped_blob_sha256[5] ^= 1, "records another blob's SHA-256 as shipped");
	PLANT(E, memcpy(fh->shipped_blob_sha256, fh->blob_sha256, SHA256_BYTES), "records its own SHA-256");
	PLANT(S, memset(fh->kernel_version, 'x', LRM_KERNEL_VERSION_SIZE), "kernel_version");
	PLANT(S, fh->kernel_version[3] = '\n', "kernel_version");
	PLANT(S, fh->kernel_version[90] = 'x', "zeros after");
	PLANT(S, memcpy(fh->layout_name, "linux-6.12-x86_64", 18), "layout_name is not linux-6.1-x86_64");
	/* The blob's checks run on a file too. */
	PLANT(S, file[fh->blob_offset + 0x1000] = 0x90, "does not begin with cli");
#undef PLANT

	/* lrm_build refuses what would make a file lrm_check refuses. */
	fixture_make(&fx, LRM_LAYOUT_LINUX_6_1_X86_64, FIXTURE_EDITED);
	check_refused(lrm_build(&h, fx.blob, fx.blob_size, fx.relocs, fx.relocs_size,
				LRM_FROM_IMAGE | LRM_PATCHED, NULL, "v", why),
		      "needs the SHA-256 of the blob as shipped", "edited, no shipped SHA-256");
	check_refused(lrm_build(&h, fx.blob, fx.blob_size, fx.relocs, fx.relocs_size,
				LRM_FROM_IMAGE, (const uint8_t *)"0123456789abcdef0123456789abcdef", "v", why),
		      "not marked patched", "edited, not patched");
	fixture_make(&fx, LRM_LAYOUT_LINUX_6_1_X86_64, FIXTURE_SHIPPED);
	check_refused(lrm_build(&h, fx.blob, fx.blob_size, fx.relocs, fx.relocs_size,
				LRM_FROM_IMAGE | LRM_32BIT, NULL, "v", why),
		      "origin 0x18", "origin with a derived flag");
	check_refused(lrm_build(&h, fx.blob, fx.blob_size, fx.relocs, fx.relocs_size,
				LRM_FROM_IMAGE | LRM_PATCHED, NULL, "v", why),
		      "patched, yet", "shipped blob called patched");
	check_refused(lrm_build(&h, fx.blob, fx.blob_size, fx.relocs, fx.relocs_size,
				LRM_FROM_IMAGE, (const uint8_t *)"0123456789abcdef0123456789abcdef", "v", why),
		      "its SHA-256 is its own", "shipped blob with another SHA-256");
	/* A banner longer than the field is cut, unprintable bytes shown as '?'. */
	char banner[200];
	memset(banner, 'L', sizeof banner - 1);
	banner[sizeof banner - 1] = 0;
	banner[1] = '\t';
	CHECK(lrm_build(&h, fx.blob, fx.blob_size, fx.relocs, fx.relocs_size, LRM_FROM_SOURCE, NULL, banner, why));
	CHECK_EQ(strlen(h.kernel_version), LRM_KERNEL_VERSION_SIZE - 1);
	CHECK_EQ(h.kernel_version[1], '?');
	len = lrm_write(&h, fx.blob, fx.relocs, file, sizeof file);
	CHECK(lrm_check(file, len, NULL, NULL, why));
}

void test_lrm(void)
{
	RUN_CASE(test_blob_layouts);
	RUN_CASE(test_file_roundtrip);
	RUN_CASE(test_every_truncation);
	RUN_CASE(test_header_flips);
	RUN_CASE(test_blob_refusals);
	RUN_CASE(test_file_refusals);
}
