/* SPDX-License-Identifier: MIT */
/* Multiboot1 / Multiboot2 boot information parser. Every read is bounded
 * by the block's validated size; multi-byte fields are read byte-wise
 * because nothing guarantees their alignment in a corrupt block. */
#include "kernel/multiboot.h"

#include "kernel/efi_memmap.h"
#include "lib/bytes.h"

#include <stdarg.h>

/* Multiboot2 tag types (Multiboot2 §3.6). */
enum {
	TAG_END = 0,
	TAG_CMDLINE = 1,
	TAG_LOADER_NAME = 2,
	TAG_MODULE = 3,
	TAG_BASIC_MEMINFO = 4,
	TAG_MMAP = 6,
	TAG_FRAMEBUFFER = 8,
	TAG_EFI32 = 11,
	TAG_EFI64 = 12,
	TAG_ACPI_OLD = 14,
	TAG_ACPI_NEW = 15,
	TAG_EFI_MMAP = 17,
	TAG_MAX = 18,
};

/* Multiboot 0.6.96 §3.3: the info structure up to the framebuffer color
 * info (offset 110, 6 bytes) is 116 bytes. */
#define MB1_INFO_SIZE 116
/* Strings (command line, loader name) are bounded like the whole
 * Multiboot2 info block (kmain's max_len): a long command line is taken
 * whole under either protocol. */
#define MB1_STRING_MAX (1u << 20)
/* No real BIOS map comes near this (24-byte entries). */
#define MB1_MMAP_MAX (64u * 1024)

struct mb {
	struct boot_info *out;
	diag_fn diag;
	void *diag_ctx;
	uint32_t mem_dropped;
};

__attribute__((format(printf, 2, 3)))
static void report(struct mb *m, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	diag_vprintf(m->diag, m->diag_ctx, fmt, ap);
	va_end(ap);
}

/* Types 1..5 mean the same in MB1, MB2 and enum mem_type; both specs say
 * every other value is reserved. */
static uint32_t mb_type(uint32_t t)
{
	return t >= MEM_AVAILABLE && t <= MEM_BAD ? t : MEM_RESERVED;
}

static void mem_add(struct mb *m, uint64_t base, uint64_t len, uint32_t type, bool merge)
{
	struct boot_info *o = m->out;

	if (len == 0)
		return;
	if (base + len < base) {
		report(m, "multiboot: memory range 0x%llx+0x%llx wraps, skipped",
		       (unsigned long long)base, (unsigned long long)len);
		return;
	}
	if (merge && o->mem_count > 0) {
		struct mem_range *last = &o->mem[o->mem_count - 1];
		if (last->type == type && last->base + last->length == base) {
			last->length += len;
			return;
		}
	}
	if (o->mem_count == APSTART_MAX_MEM_RANGES) {
		o->mem_truncated = true;
		m->mem_dropped++;
		return;
	}
	o->mem[o->mem_count++] = (struct mem_range){ base, len, type };
}

/* Called once a source is done: sort by base (insertion sort: at most
 * APSTART_MAX_MEM_RANGES entries, usually already in order) and report
 * a truncation once. */
static void mem_finish(struct mb *m)
{
	struct boot_info *o = m->out;

	for (uint32_t i = 1; i < o->mem_count; i++) {
		struct mem_range r = o->mem[i];
		uint32_t j = i;
		while (j > 0 && o->mem[j - 1].base > r.base) {
			o->mem[j] = o->mem[j - 1];
			j--;
		}
		o->mem[j] = r;
	}
	if (m->mem_dropped)
		report(m, "multiboot: memory map has %u more ranges than the %u kept, ignored",
		       m->mem_dropped, (unsigned)APSTART_MAX_MEM_RANGES);
}

/* A string stored inside a tag: NUL-terminated within its payload. */
static const char *tag_string(struct mb *m, const uint8_t *tag, uint32_t size, const char *what)
{
	for (uint32_t i = 8; i < size; i++)
		if (tag[i] == '\0')
			return (const char *)tag + 8;
	report(m, "multiboot2: %s tag not NUL-terminated, ignored", what);
	return "";
}

/* One module, from an MB2 tag or an MB1 entry: kept if it is sound. */
static void module_add(struct mb *m, uint64_t start, uint64_t end, const char *string)
{
	struct boot_info *o = m->out;

	if (end <= start) {
		report(m, "multiboot: module at 0x%llx ends at 0x%llx: empty or reversed, ignored",
		       (unsigned long long)start, (unsigned long long)end);
		return;
	}
	if (o->module_count == APSTART_MAX_MODULES) {
		o->modules_dropped++;
		return;
	}
	o->modules[o->module_count++] = (struct boot_module){ start, end, string };
}

/* Tag 3 (Multiboot2 §3.6.6): mod_start u32 @8, mod_end u32 @12, then the
 * module's string, NUL-terminated. */
static void mb2_module(struct mb *m, const uint8_t *tag, uint32_t size)
{
	if (size < 17) {
		report(m, "multiboot2: module tag size %u too small, ignored", size);
		return;
	}
	const char *s = "";
	for (uint32_t i = 16; i < size; i++)
		if (tag[i] == '\0') {
			s = (const char *)tag + 16;
			break;
		}
	module_add(m, rd32(tag + 8), rd32(tag + 12), s);
}

/* Tag 6 (§3.6.8): entry_size @8, entry_version @12, entries from 16:
 * base u64, length u64, type u32, reserved u32. */
static bool mb2_mmap(struct mb *m, const uint8_t *tag, uint32_t size)
{
	if (size < 16) {
		report(m, "multiboot2: mmap tag size %u too small, ignored", size);
		return false;
	}
	uint32_t esize = rd32(tag + 8);
	if (esize < 24) {
		report(m, "multiboot2: mmap entry_size %u < 24, ignored", esize);
		return false;
	}
	uint32_t n = (size - 16) / esize;
	if ((size - 16) % esize)
		report(m, "multiboot2: mmap tag has %u trailing bytes, ignored",
		       (size - 16) % esize);
	if (n == 0)
		return false;
	for (uint32_t i = 0; i < n; i++) {
		const uint8_t *e = tag + 16 + (size_t)i * esize;
		mem_add(m, rd64(e), rd64(e + 8), mb_type(rd32(e + 16)), false);
	}
	m->out->mem_source = "mb2-mmap";
	return true;
}

/* Tag 17 (§3.6.16): descriptor_size @8, descriptor_version @12, then the
 * UEFI memory map (descriptors: kernel/efi_memmap.h). */
static bool mb2_efi_mmap(struct mb *m, const uint8_t *tag, uint32_t size)
{
	if (size < 16) {
		report(m, "multiboot2: EFI mmap tag size %u too small, ignored", size);
		return false;
	}
	uint32_t dsize = rd32(tag + 8);
	if (dsize < EFI_MD_MIN_SIZE) {
		report(m, "multiboot2: EFI descriptor_size %u < 40, ignored", dsize);
		return false;
	}
	uint32_t n = (size - 16) / dsize;
	if (n == 0)
		return false;
	for (uint32_t i = 0; i < n; i++) {
		const uint8_t *d = tag + 16 + (size_t)i * dsize;
		uint64_t pages = rd64(d + EFI_MD_PAGES);
		if (pages > UINT64_MAX / EFI_MD_PAGE_SIZE) {
			report(m, "multiboot2: EFI descriptor %u has %llu pages, skipped",
			       i, (unsigned long long)pages);
			continue;
		}
		/* Several EFI types collapse to one multiboot type; merging
		 * neighbours keeps a fragmented map within the limit. */
		mem_add(m, rd64(d + EFI_MD_PHYS), pages * EFI_MD_PAGE_SIZE,
			efi_mem_to_multiboot(rd32(d + EFI_MD_TYPE)), true);
	}
	m->out->mem_source = "mb2-efi-mmap";
	return true;
}

/* Tag 4 (§3.6.7) / MB1 flags bit 0: KiB below 640K and above 1 MiB. */
static bool basic_mem(struct mb *m, uint32_t lower_kib, uint32_t upper_kib)
{
	mem_add(m, 0, (uint64_t)lower_kib * 1024, MEM_AVAILABLE, false);
	mem_add(m, 0x100000, (uint64_t)upper_kib * 1024, MEM_AVAILABLE, false);
	m->out->mem_source = "basic";
	return true;
}

/* The framebuffer's fields, alike in the MB2 tag 8 (§3.6.12, from @8) and
 * the MB1 info (from @88): addr u64, pitch, width, height (u32), bpp, type
 * (u8); for type 1 (RGB) six bytes at rgb: red, green, blue pos/size. */
static void framebuffer(struct framebuffer *fb, const uint8_t *f, const uint8_t *rgb)
{
	*fb = (struct framebuffer){ .present = true, .addr = rd64(f), .pitch = rd32(f + 8),
				    .width = rd32(f + 12), .height = rd32(f + 16),
				    .bpp = f[20], .type = f[21] };
	if (fb->type == 1) {
		fb->red_pos = rgb[0];
		fb->red_size = rgb[1];
		fb->green_pos = rgb[2];
		fb->green_size = rgb[3];
		fb->blue_pos = rgb[4];
		fb->blue_size = rgb[5];
	}
}

/* Tag 8: the fields from @8, reserved u16 @30 (GRUB's layout), colors @32. */
static void mb2_framebuffer(struct mb *m, const uint8_t *tag, uint32_t size)
{
	if (size < 32 || (tag[29] == 1 && size < 38))
		report(m, "multiboot2: framebuffer tag size %u too small, ignored", size);
	else
		framebuffer(&m->out->fb, tag + 8, tag + 32);
}

static void modules_finish(struct mb *m)
{
	if (m->out->modules_dropped)
		report(m, "multiboot: %u more modules than the %u kept, ignored",
		       m->out->modules_dropped, (unsigned)APSTART_MAX_MODULES);
}

static int parse_mb2(struct mb *m, const uint8_t *info, size_t max_len, uint64_t info_phys)
{
	struct boot_info *o = m->out;
	const uint8_t *tags[TAG_MAX] = { 0 };
	uint32_t sizes[TAG_MAX] = { 0 };
	bool ok = true;

	o->protocol = 2;
	if (!info || max_len < 8) {
		report(m, "multiboot2: info block unreadable (%zu bytes)", max_len);
		return -1;
	}
	/* §3.6.1: total_size u32 @0 (includes the end tag), reserved u32 @4,
	 * then tags, each starting 8-byte aligned. */
	uint32_t total = rd32(info);
	if (total < 8 || total > max_len) {
		report(m, "multiboot2: total_size %u invalid (limit %zu)", total, max_len);
		return -1;
	}
	o->info_start = info_phys;
	o->info_end = info_phys + total;

	bool found_end = false;
	size_t off = 8;
	while (off + 8 <= total) {
		const uint8_t *tag = info + off;
		uint32_t type = rd32(tag), size = rd32(tag + 4);
		if (size < 8 || size > total - off) {
			report(m,
			       "multiboot2: tag type %u at offset %zu has size %u (block %u), stopping",
			       type, off, size, total);
			ok = false;
			break;
		}
		if (type == TAG_END) {
			if (size != 8)
				report(m, "multiboot2: end tag size %u != 8", size);
			found_end = true;
			break;
		}
		if (type == TAG_MODULE)
			mb2_module(m, tag, size); /* one tag per module, all kept */
		else if (type < TAG_MAX && !tags[type]) {
			tags[type] = tag;
			sizes[type] = size;
		}
		off += ((size_t)size + 7) & ~(size_t)7;
	}
	if (ok && !found_end) {
		report(m, "multiboot2: no end tag within total_size %u", total);
		ok = false;
	}

	/* Tags seen before a fault are intact (each was bounds-checked). */
	if (tags[TAG_CMDLINE])
		o->cmdline = tag_string(m, tags[TAG_CMDLINE], sizes[TAG_CMDLINE], "cmdline");
	if (tags[TAG_LOADER_NAME])
		o->loader_name = tag_string(m, tags[TAG_LOADER_NAME], sizes[TAG_LOADER_NAME],
					    "boot loader name");
	if (tags[TAG_FRAMEBUFFER])
		mb2_framebuffer(m, tags[TAG_FRAMEBUFFER], sizes[TAG_FRAMEBUFFER]);

	/* §3.6.13/14: EFI 32- and 64-bit system table pointers; §3.6.16 the
	 * EFI memory map. Any of them: UEFI. None: not known here
	 * (kernel/firmware.h). */
	if (tags[TAG_EFI32] || tags[TAG_EFI64] || tags[TAG_EFI_MMAP])
		o->firmware = FIRMWARE_UEFI;
	if (tags[TAG_EFI64] && sizes[TAG_EFI64] >= 16)
		o->efi_system_table = rd64(tags[TAG_EFI64] + 8);
	else if (tags[TAG_EFI32] && sizes[TAG_EFI32] >= 12)
		o->efi_system_table = rd32(tags[TAG_EFI32] + 8);
	else if (tags[TAG_EFI32] || tags[TAG_EFI64])
		report(m, "multiboot2: EFI system table tag too small");

	/* §3.6.15/16: a copy of the RSDP follows the 8-byte tag header. An
	 * RSDP is at least 20 bytes (ACPI 6.5 §5.2.5.3). */
	static const int rsdp_pref[] = { TAG_ACPI_NEW, TAG_ACPI_OLD };
	for (int i = 0; i < 2 && !o->rsdp; i++) {
		int t = rsdp_pref[i];
		if (!tags[t])
			continue;
		if (sizes[t] < 8 + 20) {
			report(m, "multiboot2: ACPI tag %d size %u too small, ignored",
			       t, sizes[t]);
			continue;
		}
		o->rsdp = tags[t] + 8;
		o->rsdp_len = sizes[t] - 8;
		o->rsdp_tag = t;
	}

	/* The EFI map as the firmware gave it: runtime regions are read from
	 * it whichever map below describes memory. */
	if (tags[TAG_EFI_MMAP] && sizes[TAG_EFI_MMAP] >= 16 &&
	    rd32(tags[TAG_EFI_MMAP] + 8) >= EFI_MD_MIN_SIZE) {
		o->efi_mmap = tags[TAG_EFI_MMAP] + 16;
		o->efi_mmap_size = sizes[TAG_EFI_MMAP] - 16;
		o->efi_desc_size = rd32(tags[TAG_EFI_MMAP] + 8);
	}

	/* Memory: the BIOS-style map, else the EFI map, else the two sizes. */
	bool have_mem = false;
	if (tags[TAG_MMAP])
		have_mem = mb2_mmap(m, tags[TAG_MMAP], sizes[TAG_MMAP]);
	if (!have_mem && tags[TAG_EFI_MMAP])
		have_mem = mb2_efi_mmap(m, tags[TAG_EFI_MMAP], sizes[TAG_EFI_MMAP]);
	if (!have_mem && tags[TAG_BASIC_MEMINFO]) {
		if (sizes[TAG_BASIC_MEMINFO] >= 16)
			basic_mem(m, rd32(tags[TAG_BASIC_MEMINFO] + 8),
				  rd32(tags[TAG_BASIC_MEMINFO] + 12));
		else
			report(m, "multiboot2: basic meminfo tag too small");
	}
	mem_finish(m);
	modules_finish(m);
	return ok ? 0 : -1;
}

/* A string the MB1 structure points to: scanned page by page through map
 * for a NUL within MB1_STRING_MAX bytes, then mapped whole so the caller
 * gets one contiguous view. */
static const char *mb1_string(struct mb *m, phys_map_fn map, void *map_ctx,
			      uint64_t phys, const char *what)
{
	if (phys > UINT64_MAX - MB1_STRING_MAX) {
		report(m, "multiboot: %s address 0x%llx invalid", what, (unsigned long long)phys);
		return "";
	}
	size_t n = 0;
	while (n < MB1_STRING_MAX) {
		uint64_t a = phys + n;
		size_t chunk = 4096 - (size_t)(a & 4095);
		if (chunk > MB1_STRING_MAX - n)
			chunk = MB1_STRING_MAX - n;
		const uint8_t *p = map(map_ctx, a, chunk);
		if (!p)
			break;
		for (size_t i = 0; i < chunk; i++) {
			if (p[i] != '\0')
				continue;
			const char *s = map(map_ctx, phys, n + i + 1);
			if (s)
				return s;
			report(m, "multiboot: %s at 0x%llx unreadable", what,
			       (unsigned long long)phys);
			return "";
		}
		n += chunk;
	}
	if (n < MB1_STRING_MAX)
		report(m, "multiboot: %s at 0x%llx unreadable", what, (unsigned long long)phys);
	else
		report(m, "multiboot: %s at 0x%llx not NUL-terminated within %u bytes",
		       what, (unsigned long long)phys, MB1_STRING_MAX);
	return "";
}

/* MB1 memory map (the info structure's section, above): entries of size
 * u32 (not counting itself), then base_addr u64, length u64, type u32. */
static bool mb1_mmap(struct mb *m, phys_map_fn map, void *map_ctx, uint32_t addr, uint32_t len)
{
	if (len == 0 || len > MB1_MMAP_MAX) {
		report(m, "multiboot: mmap_length %u invalid, ignored", len);
		return false;
	}
	const uint8_t *p = map(map_ctx, addr, len);
	if (!p) {
		report(m, "multiboot: mmap at 0x%x+%u unreadable, ignored", addr, len);
		return false;
	}
	uint32_t off = 0, entries = 0;
	while (off < len) {
		if (len - off < 4) {
			report(m, "multiboot: mmap has %u trailing bytes", len - off);
			break;
		}
		uint32_t size = rd32(p + off);
		if (size < 20 || size > len - off - 4) {
			report(m, "multiboot: mmap entry at offset %u has size %u, stopping",
			       off, size);
			break;
		}
		const uint8_t *e = p + off + 4;
		mem_add(m, rd64(e), rd64(e + 8), mb_type(rd32(e + 16)), false);
		entries++;
		off += 4 + size;
	}
	if (entries == 0)
		return false;
	m->out->mem_source = "mb1-mmap";
	return true;
}

/* MB1 modules (Multiboot 0.6.96 §3.3, flags bit 3): mods_count entries
 * of 16 bytes at mods_addr: mod_start, mod_end, string, reserved. */
#define MB1_MODULE_SIZE 16u
static void mb1_modules(struct mb *m, phys_map_fn map, void *map_ctx, uint32_t addr, uint32_t count)
{
	if (count == 0)
		return;
	if (count > 64) {
		report(m, "multiboot: mods_count %u implausible, modules ignored", count);
		return;
	}
	const uint8_t *p = map(map_ctx, addr, (size_t)count * MB1_MODULE_SIZE);
	if (!p) {
		report(m, "multiboot: module list at 0x%x unreadable, ignored", addr);
		return;
	}
	for (uint32_t i = 0; i < count; i++) {
		const uint8_t *e = p + (size_t)i * MB1_MODULE_SIZE;
		uint32_t str = rd32(e + 8);
		module_add(m, rd32(e), rd32(e + 4),
			   str ? mb1_string(m, map, map_ctx, str, "module string") : "");
	}
	modules_finish(m);
}

/* The MB1 info structure's offsets (above): flags @0, mem_lower @4,
 * mem_upper @8, cmdline @16, mods_count @20, mods_addr @24, mmap_length @44, mmap_addr @48,
 * boot_loader_name @64, framebuffer_addr u64 @88, pitch @96, width @100,
 * height @104, bpp @108, type @109, color info @110. */
static int parse_mb1(struct mb *m, const uint8_t *info, size_t max_len,
		     uint64_t info_phys, phys_map_fn map, void *map_ctx)
{
	struct boot_info *o = m->out;

	o->protocol = 1;
	if (!info || max_len < MB1_INFO_SIZE) {
		report(m, "multiboot: info structure unreadable (%zu bytes)", max_len);
		return -1;
	}
	o->info_start = info_phys;
	o->info_end = info_phys + MB1_INFO_SIZE;

	uint32_t flags = rd32(info);
	if (flags & (1u << 2))
		o->cmdline = mb1_string(m, map, map_ctx, rd32(info + 16), "cmdline");
	if (flags & (1u << 9))
		o->loader_name = mb1_string(m, map, map_ctx, rd32(info + 64), "boot loader name");
	if (flags & (1u << 12))
		framebuffer(&o->fb, info + 88, info + 110);

	if (flags & (1u << 3))
		mb1_modules(m, map, map_ctx, rd32(info + 24), rd32(info + 20));

	bool have_mem = false;
	if (flags & (1u << 6))
		have_mem = mb1_mmap(m, map, map_ctx, rd32(info + 48), rd32(info + 44));
	if (!have_mem && (flags & (1u << 0)))
		basic_mem(m, rd32(info + 4), rd32(info + 8));
	mem_finish(m);
	return 0;
}

int multiboot_parse(uint32_t magic, const void *info, size_t max_len,
		    uint64_t info_phys, phys_map_fn map, void *map_ctx,
		    struct boot_info *out, diag_fn diag, void *diag_ctx)
{
	struct mb m = { out, diag, diag_ctx, 0 };

	/* Field by field: a whole-struct clear of mem[] would be a memset
	 * call in the kernel and is not needed (mem_count bounds it). */
	out->protocol = 0;
	out->firmware = FIRMWARE_UNKNOWN;
	out->cmdline = "";
	out->loader_name = "";
	out->info_start = out->info_end = 0;
	out->mem_count = 0;
	out->mem_truncated = false;
	out->mem_source = "none";
	out->rsdp = NULL;
	out->rsdp_len = 0;
	out->rsdp_tag = 0;
	out->efi_system_table = 0;
	out->efi_mmap = NULL;
	out->efi_mmap_size = out->efi_desc_size = 0;
	out->fb = (struct framebuffer){ 0 };
	out->module_count = out->modules_dropped = 0;

	if (magic == MB2_BOOT_MAGIC)
		return parse_mb2(&m, info, max_len, info_phys);
	if (magic == MB1_BOOT_MAGIC)
		return parse_mb1(&m, info, max_len, info_phys, map, map_ctx);
	report(&m, "multiboot: unknown boot magic 0x%x", magic);
	return -1;
}
