/* SPDX-License-Identifier: MIT */
/* kernel/multiboot.c: Multiboot2 tag lists and Multiboot1 structures
 * built in memory, valid and broken. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "helpers.h"
#include "kernel/multiboot.h"

static struct diag_log dlog;
static struct boot_info bi;

/* ---- Multiboot2 builder --------------------------------------------- */

struct mb2 {
	uint8_t buf[65536];
	size_t len;
};

static void mb2_begin(struct mb2 *b)
{
	memset(b->buf, 0, sizeof(b->buf));
	b->len = 8;
}

/* Appends a tag header; returns the tag for filling its payload. */
static uint8_t *mb2_tag(struct mb2 *b, uint32_t type, uint32_t size)
{
	uint8_t *t = b->buf + b->len;
	put32(t, type);
	put32(t + 4, size);
	b->len += (size + 7) & ~7u;
	return t;
}

static uint8_t *mb2_string_tag(struct mb2 *b, uint32_t type, const char *s)
{
	uint32_t n = (uint32_t)strlen(s) + 1;
	uint8_t *t = mb2_tag(b, type, 8 + n);
	memcpy(t + 8, s, n);
	return t;
}

static void mb2_finish(struct mb2 *b, bool end_tag)
{
	if (end_tag)
		mb2_tag(b, 0, 8);
	put32(b->buf, (uint32_t)b->len);
}

/* Parse a copy of exactly max_len bytes, so reads past it trip ASan. The
 * copy must outlive bi (pointers into it), hence *keep. */
static int mb2_parse(const struct mb2 *b, size_t max_len, uint8_t **keep)
{
	uint8_t *copy = malloc(max_len ? max_len : 1);
	size_t n = max_len < b->len ? max_len : b->len;
	memcpy(copy, b->buf, n);
	if (n < max_len)
		memset(copy + n, 0xCC, max_len - n);
	diag_reset(&dlog);
	int r = multiboot_parse(MB2_BOOT_MAGIC, copy, max_len, 0x10000, NULL,
				NULL, &bi, diag_record, &dlog);
	*keep = copy;
	return r;
}

static void mmap_entry(uint8_t *e, uint64_t base, uint64_t len, uint32_t type)
{
	put64(e, base);
	put64(e + 8, len);
	put32(e + 16, type);
	put32(e + 20, 0);
}

static void efi_desc(uint8_t *d, uint32_t type, uint64_t start, uint64_t pages)
{
	put32(d, type);
	put64(d + 8, start);
	put64(d + 16, 0);
	put64(d + 24, pages);
	put64(d + 32, 0xF);
}

static bool range_is(unsigned i, uint64_t base, uint64_t len, uint32_t type)
{
	return i < bi.mem_count && bi.mem[i].base == base &&
	       bi.mem[i].length == len && bi.mem[i].type == type;
}

static void fill_rsdp(uint8_t *p, uint8_t rev)
{
	memcpy(p, "RSD PTR ", 8);
	memcpy(p + 9, "MBTEST", 6);
	p[15] = rev;
}

static void test_mb2_everything(void)
{
	static struct mb2 b;
	uint8_t *keep;

	mb2_begin(&b);
	mb2_string_tag(&b, 1, "/boot/apstart.elf cycles=3");
	mb2_string_tag(&b, 2, "GRUB 2.06");
	uint8_t *t = mb2_tag(&b, 4, 16);
	put32(t + 8, 639);
	put32(t + 12, 523264);
	t = mb2_tag(&b, 21, 12); /* load base address: not used, skipped */
	put32(t + 8, 0x200000);

	t = mb2_tag(&b, 6, 16 + 5 * 24);
	put32(t + 8, 24);
	put32(t + 12, 0);
	mmap_entry(t + 16, 0x100000, 0x7ee0000, 1);
	mmap_entry(t + 40, 0, 0x9fc00, 1);
	mmap_entry(t + 64, 0xfffc0000, 0x40000, 2);
	mmap_entry(t + 88, 0x9fc00, 0x400, 7);  /* unknown type: reserved */
	mmap_entry(t + 112, 0x500000, 0, 1);    /* empty: dropped */

	t = mb2_tag(&b, 8, 38);
	put64(t + 8, 0xfd000000);
	put32(t + 16, 4096);
	put32(t + 20, 1024);
	put32(t + 24, 768);
	t[28] = 32;
	t[29] = 1;
	const uint8_t colors[6] = { 16, 8, 8, 8, 0, 8 };
	memcpy(t + 32, colors, 6);

	t = mb2_tag(&b, 12, 16);
	put64(t + 8, 0x7fe8f018);
	t = mb2_tag(&b, 14, 8 + 20);
	fill_rsdp(t + 8, 0);
	uint8_t *t15 = mb2_tag(&b, 15, 8 + 36);
	fill_rsdp(t15 + 8, 2);
	t = mb2_tag(&b, 17, 16 + 40); /* ignored: tag 6 has priority */
	put32(t + 8, 40);
	put32(t + 12, 1);
	efi_desc(t + 16, 7, 0x40000000, 16);
	size_t t17_off = (size_t)(t - b.buf);
	mb2_finish(&b, true);
	size_t t15_off = (size_t)(t15 - b.buf);

	CHECK_EQ(mb2_parse(&b, b.len, &keep), 0);
	CHECK_EQ(dlog.count, 0);
	CHECK_EQ(bi.protocol, 2);
	CHECK_STREQ(bi.cmdline, "/boot/apstart.elf cycles=3");
	CHECK_STREQ(bi.loader_name, "GRUB 2.06");
	CHECK_EQ(bi.info_start, 0x10000);
	CHECK_EQ(bi.info_end, 0x10000 + b.len);
	CHECK_EQ(bi.firmware, FIRMWARE_UEFI);
	CHECK_EQ(bi.efi_system_table, 0x7fe8f018);

	CHECK_STREQ(bi.mem_source, "mb2-mmap");
	CHECK_EQ(bi.mem_count, 4);
	CHECK(!bi.mem_truncated);
	CHECK(range_is(0, 0, 0x9fc00, MEM_AVAILABLE));
	CHECK(range_is(1, 0x9fc00, 0x400, MEM_RESERVED));
	CHECK(range_is(2, 0x100000, 0x7ee0000, MEM_AVAILABLE));
	CHECK(range_is(3, 0xfffc0000, 0x40000, MEM_RESERVED));

	CHECK(bi.fb.present);
	CHECK_EQ(bi.fb.addr, 0xfd000000);
	CHECK_EQ(bi.fb.pitch, 4096);
	CHECK_EQ(bi.fb.width, 1024);
	CHECK_EQ(bi.fb.height, 768);
	CHECK_EQ(bi.fb.bpp, 32);
	CHECK_EQ(bi.fb.type, 1);
	CHECK(bi.fb.red_pos == 16 && bi.fb.red_size == 8 &&
	      bi.fb.green_pos == 8 && bi.fb.green_size == 8 &&
	      bi.fb.blue_pos == 0 && bi.fb.blue_size == 8);

	/* Tag 15 preferred; the pointer is into the info block itself. */
	CHECK_EQ(bi.rsdp_tag, 15);
	CHECK_EQ(bi.rsdp_len, 36);
	CHECK(bi.rsdp == keep + t15_off + 8);
	/* The EFI map is kept as given (runtime regions) even though tag 6
	 * describes memory. */
	CHECK(bi.efi_mmap == keep + t17_off + 16);
	CHECK_EQ(bi.efi_mmap_size, 40);
	CHECK_EQ(bi.efi_desc_size, 40);
	free(keep);
}

static void test_mb2_efi_mmap(void)
{
	static struct mb2 b;
	uint8_t *keep;

	mb2_begin(&b);
	uint8_t *t = mb2_tag(&b, 11, 12);
	put32(t + 8, 0x7f000000);
	t = mb2_tag(&b, 4, 16); /* lower priority than tag 17 */
	put32(t + 8, 1);
	put32(t + 12, 1);
	const uint32_t dsize = 48; /* a stride larger than the 40-byte struct */
	t = mb2_tag(&b, 17, 16 + 10 * dsize);
	put32(t + 8, dsize);
	put32(t + 12, 1);
	uint8_t *d = t + 16;
	efi_desc(d + 0 * dsize, 3, 0, 1);                /* BS code */
	efi_desc(d + 1 * dsize, 7, 0x1000, 0x9e);        /* merges */
	efi_desc(d + 2 * dsize, 0, 0x9f000, 1);          /* reserved */
	efi_desc(d + 3 * dsize, 2, 0x300000, 0x100);     /* loader data */
	efi_desc(d + 4 * dsize, 9, 0x100000, 16);        /* ACPI reclaim */
	efi_desc(d + 5 * dsize, 10, 0x110000, 4);        /* ACPI NVS */
	efi_desc(d + 6 * dsize, 8, 0x200000, 1);         /* unusable */
	efi_desc(d + 7 * dsize, 11, 0xfec00000, 1);      /* MMIO */
	efi_desc(d + 8 * dsize, 7, 0x400000, 1ull << 60); /* absurd */
	efi_desc(d + 9 * dsize, 4, 0x400000, 2);         /* BS data */
	mb2_finish(&b, true);

	CHECK_EQ(mb2_parse(&b, b.len + 64, &keep), 0);
	CHECK_EQ(bi.firmware, FIRMWARE_UEFI);
	CHECK_EQ(bi.efi_system_table, 0x7f000000);
	CHECK_STREQ(bi.mem_source, "mb2-efi-mmap");
	CHECK_EQ(bi.efi_mmap_size, 10 * dsize);
	CHECK_EQ(bi.efi_desc_size, dsize);
	CHECK_EQ(bi.mem_count, 8);
	CHECK(range_is(0, 0, 0x9f000, MEM_AVAILABLE));
	CHECK(range_is(1, 0x9f000, 0x1000, MEM_RESERVED));
	CHECK(range_is(2, 0x100000, 0x10000, MEM_ACPI_RECLAIMABLE));
	CHECK(range_is(3, 0x110000, 0x4000, MEM_ACPI_NVS));
	CHECK(range_is(4, 0x200000, 0x1000, MEM_BAD));
	CHECK(range_is(5, 0x300000, 0x100000, MEM_AVAILABLE));
	CHECK(range_is(6, 0x400000, 0x2000, MEM_AVAILABLE));
	CHECK(range_is(7, 0xfec00000, 0x1000, MEM_RESERVED));
	CHECK_EQ(dlog.count, 1);
	CHECK_EQ(diag_count_with(&dlog, "pages"), 1);
	CHECK_EQ(bi.rsdp, NULL);
	CHECK_EQ(bi.rsdp_tag, 0);
	CHECK(!bi.fb.present);
	free(keep);

	/* A long fragmented EFI map merges below the range limit. */
	mb2_begin(&b);
	t = mb2_tag(&b, 17, 16 + 300 * 40);
	put32(t + 8, 40);
	static const uint32_t avail_types[] = { 1, 2, 3, 4, 7 };
	for (uint32_t i = 0; i < 300; i++)
		efi_desc(t + 16 + i * 40, avail_types[i % 5],
			 0x100000 + (uint64_t)i * 0x1000, 1);
	mb2_finish(&b, true);
	CHECK_EQ(mb2_parse(&b, b.len, &keep), 0);
	CHECK_EQ(bi.mem_count, 1);
	CHECK(range_is(0, 0x100000, 300 * 0x1000, MEM_AVAILABLE));
	CHECK(!bi.mem_truncated);
	CHECK_EQ(bi.firmware, FIRMWARE_UEFI); /* no tag 11/12, but the EFI map (17) */
	free(keep);

	/* descriptor_size below the UEFI struct: fall back to tag 4. */
	mb2_begin(&b);
	t = mb2_tag(&b, 17, 16 + 32);
	put32(t + 8, 32);
	t = mb2_tag(&b, 4, 16);
	put32(t + 8, 640);
	put32(t + 12, 1024);
	mb2_finish(&b, true);
	CHECK_EQ(mb2_parse(&b, b.len, &keep), 0);
	CHECK_STREQ(bi.mem_source, "basic");
	CHECK(range_is(0, 0, 640 * 1024, MEM_AVAILABLE));
	CHECK(range_is(1, 0x100000, 1024 * 1024, MEM_AVAILABLE));
	CHECK_EQ(diag_count_with(&dlog, "descriptor_size 32"), 1);
	CHECK_EQ(bi.efi_mmap, NULL); /* not kept either */
	CHECK_EQ(bi.efi_mmap_size, 0);
	free(keep);
}

static void test_mb2_sources(void)
{
	static struct mb2 b;
	uint8_t *keep;

	/* Bad mmap entry_size falls back to the basic sizes. */
	mb2_begin(&b);
	uint8_t *t = mb2_tag(&b, 6, 16 + 32);
	put32(t + 8, 16);
	t = mb2_tag(&b, 4, 16);
	put32(t + 8, 600);
	put32(t + 12, 2048);
	mb2_finish(&b, true);
	CHECK_EQ(mb2_parse(&b, b.len, &keep), 0);
	CHECK_STREQ(bi.mem_source, "basic");
	CHECK_EQ(bi.mem_count, 2);
	CHECK(range_is(1, 0x100000, 2048 * 1024, MEM_AVAILABLE));
	CHECK_EQ(diag_count_with(&dlog, "entry_size 16"), 1);
	free(keep);

	/* mmap entries not filling the tag exactly: whole ones are used. */
	mb2_begin(&b);
	t = mb2_tag(&b, 6, 16 + 2 * 32 + 8);
	put32(t + 8, 32); /* larger stride than the 24-byte entry */
	mmap_entry(t + 16, 0x1000, 0x1000, 1);
	mmap_entry(t + 48, 0x3000, 0x1000, 3);
	mb2_finish(&b, true);
	CHECK_EQ(mb2_parse(&b, b.len, &keep), 0);
	CHECK_EQ(bi.mem_count, 2);
	CHECK(range_is(1, 0x3000, 0x1000, MEM_ACPI_RECLAIMABLE));
	CHECK_EQ(diag_count_with(&dlog, "trailing"), 1);
	free(keep);

	/* No memory information at all. */
	mb2_begin(&b);
	mb2_finish(&b, true);
	CHECK_EQ(mb2_parse(&b, b.len, &keep), 0);
	CHECK_EQ(bi.mem_count, 0);
	CHECK_STREQ(bi.mem_source, "none");
	CHECK_STREQ(bi.cmdline, "");
	CHECK_STREQ(bi.loader_name, "");
	CHECK_EQ(dlog.count, 0);
	free(keep);

	/* Too many ranges: the first 128 are kept, then sorted. */
	mb2_begin(&b);
	t = mb2_tag(&b, 6, 16 + 200 * 24);
	put32(t + 8, 24);
	for (uint32_t i = 0; i < 200; i++)
		mmap_entry(t + 16 + i * 24, (uint64_t)(200 - i) * 0x1000, 0x1000,
			   1);
	mb2_finish(&b, true);
	CHECK_EQ(mb2_parse(&b, b.len, &keep), 0);
	CHECK_EQ(bi.mem_count, APSTART_MAX_MEM_RANGES);
	CHECK(bi.mem_truncated);
	CHECK(range_is(0, 73 * 0x1000, 0x1000, MEM_AVAILABLE));
	CHECK(range_is(127, 200 * 0x1000, 0x1000, MEM_AVAILABLE));
	bool sorted = true;
	for (unsigned i = 1; i < bi.mem_count; i++)
		sorted &= bi.mem[i - 1].base < bi.mem[i].base;
	CHECK(sorted);
	CHECK_EQ(dlog.count, 1);
	CHECK_EQ(diag_count_with(&dlog, "72 more ranges"), 1);
	free(keep);

	/* A range wrapping past 2^64 is dropped. */
	mb2_begin(&b);
	t = mb2_tag(&b, 6, 16 + 2 * 24);
	put32(t + 8, 24);
	mmap_entry(t + 16, 0xfffffffffffff000ull, 0x2000, 2);
	mmap_entry(t + 40, 0, 0x1000, 1);
	mb2_finish(&b, true);
	CHECK_EQ(mb2_parse(&b, b.len, &keep), 0);
	CHECK_EQ(bi.mem_count, 1);
	CHECK_EQ(diag_count_with(&dlog, "wraps"), 1);
	free(keep);
}

static void test_mb2_tags_content(void)
{
	static struct mb2 b;
	uint8_t *keep;

	/* Unterminated strings are replaced by "". */
	mb2_begin(&b);
	uint8_t *t = mb2_tag(&b, 1, 8 + 5);
	memcpy(t + 8, "abcde", 5);
	t = mb2_tag(&b, 2, 8 + 3);
	memcpy(t + 8, "xyz", 3);
	mb2_finish(&b, true);
	CHECK_EQ(mb2_parse(&b, b.len, &keep), 0);
	CHECK_STREQ(bi.cmdline, "");
	CHECK_STREQ(bi.loader_name, "");
	CHECK_EQ(dlog.count, 2);
	CHECK_EQ(diag_count_with(&dlog, "cmdline tag not NUL-terminated"), 1);
	free(keep);

	/* Empty cmdline tag (just the NUL) and a zero-payload tag. */
	mb2_begin(&b);
	t = mb2_tag(&b, 1, 9);
	t[8] = '\0';
	mb2_tag(&b, 2, 8);
	mb2_finish(&b, true);
	CHECK_EQ(mb2_parse(&b, b.len, &keep), 0);
	CHECK_STREQ(bi.cmdline, "");
	CHECK_EQ(dlog.count, 1); /* the name tag has no NUL */
	free(keep);

	/* Framebuffer tags: too small, and indexed (no RGB fields). */
	mb2_begin(&b);
	t = mb2_tag(&b, 8, 30);
	mb2_finish(&b, true);
	CHECK_EQ(mb2_parse(&b, b.len, &keep), 0);
	CHECK(!bi.fb.present);
	CHECK_EQ(diag_count_with(&dlog, "framebuffer"), 1);
	free(keep);
	mb2_begin(&b);
	t = mb2_tag(&b, 8, 32); /* RGB type needs 38 bytes */
	t[29] = 1;
	mb2_finish(&b, true);
	CHECK_EQ(mb2_parse(&b, b.len, &keep), 0);
	CHECK(!bi.fb.present);
	free(keep);
	mb2_begin(&b);
	t = mb2_tag(&b, 8, 34);
	put64(t + 8, 0xb8000);
	put32(t + 20, 80);
	put32(t + 24, 25);
	t[28] = 16;
	t[29] = 2; /* EGA text */
	mb2_finish(&b, true);
	CHECK_EQ(mb2_parse(&b, b.len, &keep), 0);
	CHECK(bi.fb.present && bi.fb.type == 2 && bi.fb.addr == 0xb8000 &&
	      bi.fb.width == 80 && bi.fb.height == 25 && bi.fb.red_size == 0);
	free(keep);

	/* ACPI: only the old RSDP; and a too-short new one falls back. */
	mb2_begin(&b);
	uint8_t *t14 = mb2_tag(&b, 14, 28);
	fill_rsdp(t14 + 8, 0);
	mb2_tag(&b, 15, 8 + 12);
	mb2_finish(&b, true);
	CHECK_EQ(mb2_parse(&b, b.len, &keep), 0);
	CHECK_EQ(bi.rsdp_tag, 14);
	CHECK_EQ(bi.rsdp_len, 20);
	CHECK(bi.rsdp == keep + (t14 - b.buf) + 8);
	CHECK_EQ(diag_count_with(&dlog, "ACPI tag 15"), 1);
	CHECK_EQ(bi.firmware, FIRMWARE_UNKNOWN); /* no EFI tag: not known here */
	free(keep);

	/* EFI64 tag too short: still UEFI, no table address. */
	mb2_begin(&b);
	mb2_tag(&b, 12, 12);
	mb2_finish(&b, true);
	CHECK_EQ(mb2_parse(&b, b.len, &keep), 0);
	CHECK_EQ(bi.firmware, FIRMWARE_UEFI);
	CHECK_EQ(bi.efi_system_table, 0);
	CHECK_EQ(dlog.count, 1);
	free(keep);

	/* Tags after the end tag are not read. */
	mb2_begin(&b);
	mb2_tag(&b, 0, 8);
	mb2_string_tag(&b, 1, "cycles=1");
	put32(b.buf, (uint32_t)b.len);
	CHECK_EQ(mb2_parse(&b, b.len, &keep), 0);
	CHECK_STREQ(bi.cmdline, "");
	free(keep);
}

static void test_mb2_malformed(void)
{
	static struct mb2 b;
	uint8_t *keep;

	/* total_size beyond what may be read. */
	mb2_begin(&b);
	mb2_string_tag(&b, 1, "x");
	mb2_finish(&b, true);
	CHECK_EQ(mb2_parse(&b, b.len - 1, &keep), -1);
	CHECK_EQ(diag_count_with(&dlog, "total_size"), 1);
	free(keep);

	/* total_size too small, and a block shorter than its header. */
	put32(b.buf, 4);
	CHECK_EQ(mb2_parse(&b, b.len, &keep), -1);
	free(keep);
	CHECK_EQ(mb2_parse(&b, 7, &keep), -1);
	free(keep);
	CHECK_EQ(multiboot_parse(MB2_BOOT_MAGIC, NULL, 100, 0, NULL, NULL, &bi,
				 diag_record, &dlog),
		 -1);
	CHECK_STREQ(bi.cmdline, "");

	/* Just a header: no end tag. */
	put32(b.buf, 8);
	CHECK_EQ(mb2_parse(&b, 8, &keep), -1);
	CHECK_EQ(diag_count_with(&dlog, "no end tag"), 1);
	free(keep);

	/* Missing end tag after valid tags: earlier tags are kept. */
	mb2_begin(&b);
	mb2_string_tag(&b, 1, "cycles=2");
	mb2_finish(&b, false);
	CHECK_EQ(mb2_parse(&b, b.len, &keep), -1);
	CHECK_STREQ(bi.cmdline, "cycles=2");
	CHECK_EQ(diag_count_with(&dlog, "no end tag"), 1);
	free(keep);

	/* A tag running past total_size. */
	mb2_begin(&b);
	mb2_string_tag(&b, 2, "loader");
	uint8_t *t = mb2_tag(&b, 1, 8 + 4);
	memcpy(t + 8, "abc", 4);
	put32(t + 4, 400); /* claims more than the block holds */
	mb2_finish(&b, true);
	CHECK_EQ(mb2_parse(&b, b.len, &keep), -1);
	CHECK_STREQ(bi.loader_name, "loader");
	CHECK_STREQ(bi.cmdline, "");
	CHECK_EQ(diag_count_with(&dlog, "stopping"), 1);
	free(keep);

	/* Tag sizes 0 and 7 must stop the walk, not loop on it. */
	for (uint32_t bad = 0; bad < 8; bad += 7) {
		mb2_begin(&b);
		t = mb2_tag(&b, 1, 16);
		put32(t + 4, bad);
		mb2_finish(&b, true);
		CHECK_EQ(mb2_parse(&b, b.len, &keep), -1);
		CHECK_EQ(dlog.count, 1);
		free(keep);
	}

	/* A tag header cut by total_size (fewer than 8 bytes left). */
	mb2_begin(&b);
	mb2_string_tag(&b, 1, "ok");
	put32(b.buf, (uint32_t)b.len + 4);
	CHECK_EQ(mb2_parse(&b, b.len + 4, &keep), -1);
	CHECK_STREQ(bi.cmdline, "ok");
	free(keep);

	/* End tag with a wrong size is reported but ends the list. */
	mb2_begin(&b);
	mb2_string_tag(&b, 1, "cycles=9");
	mb2_tag(&b, 0, 16);
	put32(b.buf, (uint32_t)b.len);
	CHECK_EQ(mb2_parse(&b, b.len, &keep), 0);
	CHECK_STREQ(bi.cmdline, "cycles=9");
	CHECK_EQ(diag_count_with(&dlog, "end tag size 16"), 1);
	free(keep);

	/* Unknown magic. */
	diag_reset(&dlog);
	CHECK_EQ(multiboot_parse(0x12345678, b.buf, b.len, 0, NULL, NULL, &bi,
				 diag_record, &dlog),
		 -1);
	CHECK_EQ(bi.protocol, 0);
	CHECK_EQ(diag_count_with(&dlog, "unknown boot magic 0x12345678"), 1);
	/* diag may be NULL. */
	CHECK_EQ(multiboot_parse(0, b.buf, b.len, 0, NULL, NULL, &bi, NULL,
				 NULL),
		 -1);
}

/* ---- Multiboot1 ------------------------------------------------------ */

#define MB1_INFO 0x9000u

static uint8_t *mb1_info(struct fake_mem *m, uint32_t flags)
{
	uint8_t *info = fake_at(m, MB1_INFO);
	memset(info, 0, 116);
	put32(info, flags);
	return info;
}

static int mb1_parse(struct fake_mem *m, size_t max_len)
{
	const void *info = fake_map(m, MB1_INFO, max_len);
	diag_reset(&dlog);
	return multiboot_parse(MB1_BOOT_MAGIC, info, max_len, MB1_INFO,
			       fake_map, m, &bi, diag_record, &dlog);
}

static void mb1_entry(uint8_t *e, uint32_t size, uint64_t base, uint64_t len,
		      uint32_t type)
{
	put32(e, size);
	put64(e + 4, base);
	put64(e + 12, len);
	put32(e + 20, type);
}

static void test_mb1_full(void)
{
	struct fake_mem m;
	fake_mem_init(&m, 0, 0x100000);

	uint8_t *info = mb1_info(&m, 1u << 0 | 1u << 2 | 1u << 6 | 1u << 9 |
				     1u << 12);
	put32(info + 4, 639);
	put32(info + 8, 130048);
	put32(info + 16, 0x10000);
	strcpy((char *)fake_at(&m, 0x10000), "/tmp/apstart.elf cycles=2");
	put32(info + 64, 0x10100);
	strcpy((char *)fake_at(&m, 0x10100), "qemu");
	uint8_t *mm = fake_at(&m, 0x11000);
	mb1_entry(mm, 20, 0, 0x9fc00, 1);
	mb1_entry(mm + 24, 20, 0xf0000, 0x10000, 2);
	mb1_entry(mm + 48, 24, 0x100000, 0x7ee0000, 1); /* 4 extra bytes */
	mb1_entry(mm + 76, 20, 0x9fc00, 0x400, 2);
	put32(info + 44, 100);
	put32(info + 48, 0x11000);
	put64(info + 88, 0xfd000000);
	put32(info + 96, 3200);
	put32(info + 100, 800);
	put32(info + 104, 600);
	info[108] = 32;
	info[109] = 1;
	const uint8_t colors[6] = { 16, 8, 8, 8, 0, 8 };
	memcpy(info + 110, colors, 6);

	CHECK_EQ(mb1_parse(&m, 116), 0);
	CHECK_EQ(dlog.count, 0);
	CHECK_EQ(bi.protocol, 1);
	CHECK_EQ(bi.firmware, FIRMWARE_UNKNOWN); /* kernel/firmware.c decides */
	CHECK_STREQ(bi.cmdline, "/tmp/apstart.elf cycles=2");
	CHECK_STREQ(bi.loader_name, "qemu");
	CHECK_EQ(bi.info_start, MB1_INFO);
	CHECK_EQ(bi.info_end, MB1_INFO + 116);
	CHECK_STREQ(bi.mem_source, "mb1-mmap");
	CHECK_EQ(bi.mem_count, 4);
	CHECK(range_is(0, 0, 0x9fc00, MEM_AVAILABLE));
	CHECK(range_is(1, 0x9fc00, 0x400, MEM_RESERVED));
	CHECK(range_is(2, 0xf0000, 0x10000, MEM_RESERVED));
	CHECK(range_is(3, 0x100000, 0x7ee0000, MEM_AVAILABLE));
	CHECK(bi.fb.present && bi.fb.addr == 0xfd000000 && bi.fb.pitch == 3200 &&
	      bi.fb.width == 800 && bi.fb.height == 600 && bi.fb.bpp == 32 &&
	      bi.fb.type == 1 && bi.fb.red_pos == 16 && bi.fb.blue_size == 8);
	CHECK_EQ(bi.rsdp, NULL);

	/* A broken entry stops the walk; earlier entries stay. */
	put32(mm + 48, 8);
	CHECK_EQ(mb1_parse(&m, 116), 0);
	CHECK_EQ(bi.mem_count, 2);
	CHECK_EQ(diag_count_with(&dlog, "offset 48 has size 8"), 1);
	/* An entry whose size runs past mmap_length. */
	put32(mm + 48, 200);
	CHECK_EQ(mb1_parse(&m, 116), 0);
	CHECK_EQ(bi.mem_count, 2);
	put32(mm + 48, 24);
	/* Length cutting an entry's size field. */
	put32(info + 44, 102);
	CHECK_EQ(mb1_parse(&m, 116), 0);
	CHECK_EQ(bi.mem_count, 4);
	CHECK_EQ(diag_count_with(&dlog, "2 trailing bytes"), 1);

	/* mmap unusable: the basic sizes are used instead. */
	put32(info + 44, 0);
	CHECK_EQ(mb1_parse(&m, 116), 0);
	CHECK_STREQ(bi.mem_source, "basic");
	CHECK(range_is(0, 0, 639 * 1024, MEM_AVAILABLE));
	CHECK(range_is(1, 0x100000, 130048ull * 1024, MEM_AVAILABLE));
	put32(info + 44, 100);
	put32(info + 48, 0xfffff0); /* outside memory */
	CHECK_EQ(mb1_parse(&m, 116), 0);
	CHECK_STREQ(bi.mem_source, "basic");
	CHECK_EQ(diag_count_with(&dlog, "unreadable"), 1);
	put32(info + 44, 0x7fffffff);
	CHECK_EQ(mb1_parse(&m, 116), 0);
	CHECK_STREQ(bi.mem_source, "basic");

	/* No flags: nothing read beyond the flags word. */
	mb1_info(&m, 0);
	CHECK_EQ(mb1_parse(&m, 116), 0);
	CHECK_EQ(dlog.count, 0);
	CHECK_STREQ(bi.mem_source, "none");
	CHECK_STREQ(bi.cmdline, "");
	CHECK(!bi.fb.present);

	/* Structure shorter than 116 bytes cannot be MB1 info. */
	CHECK_EQ(mb1_parse(&m, 100), -1);
	fake_mem_free(&m);
}

static void test_mb1_strings(void)
{
	struct fake_mem m;
	fake_mem_init(&m, 0, 0x100000);
	uint8_t *info = mb1_info(&m, 1u << 2 | 1u << 9);

	/* String crossing a page boundary. */
	put32(info + 16, 0x10ffe);
	strcpy((char *)fake_at(&m, 0x10ffe), "cycles=5 exit=halt");
	/* String ending at the very end of memory. */
	put32(info + 64, 0xffffc);
	strcpy((char *)fake_at(&m, 0xffffc), "ldr");
	CHECK_EQ(mb1_parse(&m, 116), 0);
	CHECK_STREQ(bi.cmdline, "cycles=5 exit=halt");
	CHECK_STREQ(bi.loader_name, "ldr");
	CHECK_EQ(dlog.count, 0);

	/* Long command lines are taken whole, as in Multiboot2 (4096
	 * characters and more used to be dropped). */
	memset(fake_at(&m, 0x20000), 'a', 70000);
	fake_at(&m, 0x20000)[4095] = '\0';
	put32(info + 16, 0x20000);
	CHECK_EQ(mb1_parse(&m, 116), 0);
	CHECK_EQ(strlen(bi.cmdline), 4095);
	fake_at(&m, 0x20000)[4095] = 'a';
	fake_at(&m, 0x20000)[4096] = '\0';
	CHECK_EQ(mb1_parse(&m, 116), 0);
	CHECK_EQ(strlen(bi.cmdline), 4096);
	fake_at(&m, 0x20000)[4096] = 'a';
	fake_at(&m, 0x20000)[69999] = '\0';
	CHECK_EQ(mb1_parse(&m, 116), 0);
	CHECK_EQ(strlen(bi.cmdline), 69999);
	CHECK_EQ(dlog.count, 0);

	/* Runs off the end of memory, or starts outside it (the fill
	 * below overwrites the loader name, so stop asking for it). */
	put32(info, 1u << 2);
	memset(fake_at(&m, 0xfff00), 'b', 0x100);
	put32(info + 16, 0xfff00);
	CHECK_EQ(mb1_parse(&m, 116), 0);
	CHECK_STREQ(bi.cmdline, "");
	CHECK_EQ(diag_count_with(&dlog, "cmdline at 0xfff00 unreadable"), 1);
	put32(info + 16, 0x200000);
	CHECK_EQ(mb1_parse(&m, 116), 0);
	CHECK_STREQ(bi.cmdline, "");
	CHECK_EQ(diag_count_with(&dlog, "unreadable"), 1);
	put32(info + 16, 0xffffffff);
	CHECK_EQ(mb1_parse(&m, 116), 0);
	CHECK_STREQ(bi.cmdline, "");
	fake_mem_free(&m);
}

/* A string with no NUL within the 1 MiB bound. */
static void test_mb1_string_bound(void)
{
	struct fake_mem m;
	fake_mem_init(&m, 0, 0x300000);
	uint8_t *info = mb1_info(&m, 1u << 2);
	memset(fake_at(&m, 0x100000), 'c', 0x180000);
	put32(info + 16, 0x100000);
	CHECK_EQ(mb1_parse(&m, 116), 0);
	CHECK_STREQ(bi.cmdline, "");
	CHECK_EQ(diag_count_with(&dlog, "not NUL-terminated within 1048576 bytes"), 1);
	fake_at(&m, 0x100000)[0xFFFFF] = '\0';
	CHECK_EQ(mb1_parse(&m, 116), 0);
	CHECK_EQ(strlen(bi.cmdline), 0xFFFFF);
	fake_mem_free(&m);
}

/* Modules: MB2 tags 3, one per module, all kept in order (GRUB's
 * module2, kexec's --module); a tag too small, an empty module, a string
 * without its NUL. */
static void test_mb2_modules(void)
{
	static struct mb2 b;
	uint8_t *keep;

	mb2_begin(&b);
	uint8_t *t = mb2_tag(&b, 3, 16 + 9);
	put32(t + 8, 0x200000);
	put32(t + 12, 0x207000);
	memcpy(t + 16, "blob.lrm", 9);
	t = mb2_tag(&b, 3, 16 + 1);
	put32(t + 8, 0x300000);
	put32(t + 12, 0x300100);
	t = mb2_tag(&b, 3, 12); /* too small */
	t = mb2_tag(&b, 3, 16 + 1); /* empty */
	put32(t + 8, 0x400000);
	put32(t + 12, 0x400000);
	t = mb2_tag(&b, 3, 16 + 3); /* no NUL: the module, without a string */
	put32(t + 8, 0x500000);
	put32(t + 12, 0x500010);
	memcpy(t + 16, "abc", 3);
	mb2_finish(&b, true);
	CHECK_EQ(mb2_parse(&b, b.len, &keep), 0);
	CHECK_EQ(bi.module_count, 3);
	CHECK(bi.modules[0].start == 0x200000 && bi.modules[0].end == 0x207000);
	CHECK_STREQ(bi.modules[0].string, "blob.lrm");
	CHECK(bi.modules[1].start == 0x300000 && bi.modules[1].end == 0x300100);
	CHECK_STREQ(bi.modules[1].string, "");
	CHECK(bi.modules[2].start == 0x500000 && bi.modules[2].end == 0x500010);
	CHECK_STREQ(bi.modules[2].string, "");
	CHECK_EQ(diag_count_with(&dlog, "module tag size 12 too small"), 1);
	CHECK_EQ(diag_count_with(&dlog, "empty or reversed"), 1);
	free(keep);

	/* More than APSTART_MAX_MODULES: the first kept, the rest counted. */
	mb2_begin(&b);
	for (uint32_t i = 0; i < APSTART_MAX_MODULES + 2; i++) {
		t = mb2_tag(&b, 3, 17);
		put32(t + 8, 0x200000 + i * 0x1000);
		put32(t + 12, 0x200800 + i * 0x1000);
	}
	mb2_finish(&b, true);
	CHECK_EQ(mb2_parse(&b, b.len, &keep), 0);
	CHECK_EQ(bi.module_count, APSTART_MAX_MODULES);
	CHECK_EQ(bi.modules_dropped, 2);
	CHECK_EQ(diag_count_with(&dlog, "2 more modules"), 1);
	free(keep);
}

/* MB1 modules (QEMU's -initrd for a Multiboot1 -kernel): flags bit 3. */
static void test_mb1_modules(void)
{
	struct fake_mem m;
	fake_mem_init(&m, 0, 0x100000);

	uint8_t *info = mb1_info(&m, 1u << 3);
	put32(info + 20, 2);
	put32(info + 24, 0x12000);
	uint8_t *e = fake_at(&m, 0x12000);
	put32(e, 0x20000);
	put32(e + 4, 0x27000);
	put32(e + 8, 0x12100);
	strcpy((char *)fake_at(&m, 0x12100), "linux-6.1.lrm");
	put32(e + 16, 0x30000);
	put32(e + 20, 0x30010);
	put32(e + 24, 0); /* no string */
	CHECK_EQ(mb1_parse(&m, 116), 0);
	CHECK_EQ(bi.module_count, 2);
	CHECK(bi.modules[0].start == 0x20000 && bi.modules[0].end == 0x27000);
	CHECK_STREQ(bi.modules[0].string, "linux-6.1.lrm");
	CHECK_STREQ(bi.modules[1].string, "");
	/* The list outside memory: said, no module. */
	put32(info + 24, 0xffff0);
	CHECK_EQ(mb1_parse(&m, 116), 0);
	CHECK_EQ(bi.module_count, 0);
	CHECK_EQ(diag_count_with(&dlog, "module list at 0xffff0 unreadable"), 1);
	/* Bit 3 clear: the fields are not read. */
	put32(info, 0);
	CHECK_EQ(mb1_parse(&m, 116), 0);
	CHECK_EQ(bi.module_count, 0);
	fake_mem_free(&m);
}

void test_multiboot(void)
{
	RUN_CASE(test_mb2_modules);
	RUN_CASE(test_mb1_modules);
	RUN_CASE(test_mb1_string_bound);
	RUN_CASE(test_mb2_everything);
	RUN_CASE(test_mb2_efi_mmap);
	RUN_CASE(test_mb2_sources);
	RUN_CASE(test_mb2_tags_content);
	RUN_CASE(test_mb2_malformed);
	RUN_CASE(test_mb1_full);
	RUN_CASE(test_mb1_strings);
}
