/* SPDX-License-Identifier: MIT */
/* The linux_trampoline wing: trampoline=linux runs every AP through
 * Linux's own realmode blob (arch/x86/realmode/rm/trampoline_{64,32}.S as
 * a kernel build or image ships it), taken from an LRM file the loader
 * hands over as a boot module (lrm_file.h; made by the host command,
 * docs/linux-trampoline.md). It is the core's trampoline provider
 * (app/wing.h): it installs the blob as Linux's setup_real_mode() does
 * (realmode_setup.c) and the core sends the SIPIs to it; Linux's code runs
 * down to its jump through tr_start, which is apstart's (entry.asm).
 * Everything that would keep the blob from running as Linux runs it is
 * refused before any SIPI, with the reason, and the run stops there. */
#include "app/wing.h"

#include "kernel/abort.h"
#include "kernel/console.h"
#include "kernel/cpu.h"
#include "kernel/msr_safe.h"
#include "kernel/x86.h"
#include "lib/format.h"
#include "wings/linux_trampoline/lrm_module.h"
#include "wings/linux_trampoline/realmode_setup.h"

static void claim(const struct boot_info *bi, const struct options *o,
		  const struct busy_range *busy, uint32_t n)
{
	(void)busy;
	(void)n;
	if (o->trampoline == TRAMPOLINE_LINUX)
		lrm_module_claim(bi);
}

static void refuse(const char *code, const char *why) __attribute__((noreturn));
static void refuse(const char *code, const char *why)
{
	kprintf("linux_trampoline: refused, no SIPI sent: %s\n", why);
	kprintf("@fail what=trampoline reason=%s\n", code);
	abort_run(why);
}

/* Linux's arch/x86/include/asm/msr-index.h: MSR_AMD64_SEV (0xc0010131),
 * bit 1 MSR_AMD64_SEV_ES_ENABLED; CPUID Fn8000_001F EAX bit 3, SEV-ES
 * (AMD APM Vol. 3, CPUID). A SEV-ES guest starts its APs through the
 * GHCB's AP jump table at sev_es_trampoline_start, not by a SIPI to
 * trampoline_start (arch/x86/realmode/init.c, sme_sev_setup_real_mode). */
static bool sev_es_active(void)
{
	uint64_t sev;
	if (!cpu_is_amd() || cpuid(0x80000000u, 0).eax < 0x8000001Fu ||
	    !(cpuid(0x8000001Fu, 0).eax & (1u << 3)))
		return false;
	return msr_read_safe(0xC0010131u, &sev) && (sev & 2);
}

#define CR4_LA57 (1ull << 12) /* 5-level paging, SDM Vol. 3A §2.5 */

/* "Linux version 6.1.0-57-amd64 (...) ..." -> "6.1.0-57-amd64"; else the
 * first word; never a space or control byte in a record. */
static void version_word(char *out, size_t size, const char *banner)
{
	const char *p = banner;
	static const char prefix[] = "Linux version ";
	size_t k = 0;
	while (k < sizeof prefix - 1 && p[k] == prefix[k])
		k++;
	if (k == sizeof prefix - 1)
		p += k;
	size_t n = 0;
	while (p[n] > ' ' && p[n] < 0x7F && n + 1 < size) {
		out[n] = p[n];
		n++;
	}
	out[n] = '\0';
	if (!n)
		fmt_snprintf(out, size, "unknown");
}

static void hex(char *out, const uint8_t *b, size_t n)
{
	static const char digits[] = "0123456789abcdef";
	for (size_t i = 0; i < n; i++) {
		out[2 * i] = digits[b[i] >> 4];
		out[2 * i + 1] = digits[b[i] & 15];
	}
	out[2 * n] = '\0';
}

static bool install(const struct options *o, low_memory_fn low, struct wing_trampoline *t)
{
	static char why[LRM_WHY_SIZE], fields[320];
	const uint8_t *file;
	struct lrm_header h;
	struct lrm_blob_info info;

	if (o->trampoline != TRAMPOLINE_LINUX)
		return false;
	struct phys_range module;
	if (!lrm_module_reserved(&module))
		refuse("no_module", "no boot module: give the LRM file as one (GRUB: "
		       "module2 FILE.lrm; kexec: --module FILE.lrm; QEMU -kernel: "
		       "-initrd FILE.lrm)");
	if (!lrm_module_load(&file, &h, &info, why)) {
		char line[LRM_WHY_SIZE + 32];
		fmt_snprintf(line, sizeof line, "the module is not a valid LRM file: %s", why);
		refuse("lrm_invalid", line);
	}
	bool blob32 = h.flags & LRM_32BIT;
#if defined(__i386__)
	if (!blob32)
		refuse("lrm_arch", "this is an i386 kernel and the blob is trampoline_64 "
		       "(an x86_64 Linux's): give an i386 Linux's (trampoline_32)");
#else
	if (blob32)
		refuse("lrm_arch", "this is an x86_64 kernel and the blob is trampoline_32 "
		       "(an i386 Linux's): give an x86_64 Linux's (trampoline_64)");
	if (read_cr4() & CR4_LA57)
		refuse("la57", "5-level paging is on: the blob's trampoline_pgd is a "
		       "4-level PML4");
#endif
	if (sev_es_active())
		refuse("sev_es", "SEV-ES is active: its APs start through the GHCB's AP "
		       "jump table at sev_es_trampoline_start, not by a SIPI");
	/* Linux before 6.6 started one AP at a time: its trampoline_start
	 * loads ONE real-mode stack (rm_stack_end) for every AP, with no lock
	 * (6.6 added tr_lock for the parallel bring-up). */
	if (h.rm_stack_end && !h.tr_lock &&
	    (o->wake.bringup_used != BRINGUP_SERIAL || o->wake.cycles_mode != CYCLES_SERIAL)) {
		fmt_snprintf(why, sizeof why, "layout %s has one real-mode stack and no "
			     "tr_lock: one AP at a time, as that Linux did (bringup=serial "
			     "cycles_mode=serial), not bringup=%s cycles_mode=%s",
			     h.layout_name, keyword_word(bringup_words, o->wake.bringup_used),
			     keyword_word(cycles_mode_words, o->wake.cycles_mode));
		refuse("no_tr_lock", why);
	}
	uint64_t size = realmode_size(&h);
	uint64_t base = low(size);
	if (!base) {
		fmt_snprintf(why, sizeof why, "no %llu free pages below 1 MiB for the "
			     "blob (%u bytes)", (unsigned long long)(size / 4096), h.blob_size);
		refuse("no_low_memory", why);
	}

	t->sipi_page = realmode_setup(file, &h, base);
	t->header = &linux_tr_hdr;
	t->wbinvd = !!(h.flags & LRM_WBINVD);
	t->name = "linux";
	char version[48], sha[2 * SHA256_BYTES + 1], shipped[2 * SHA256_BYTES + 1];
	version_word(version, sizeof version, h.kernel_version);
	hex(sha, h.blob_sha256, SHA256_BYTES);
	hex(shipped, h.shipped_blob_sha256, SHA256_BYTES);
	bool patched = h.flags & LRM_PATCHED;
	kprintf("trampoline: Linux's (%s, layout %s, %s%s): blob %u bytes at 0x%llx-0x%llx, "
		"SIPI vector 0x%llx, %s at trampoline_start; tr_start = apstart's entry\n",
		version, h.layout_name, h.flags & LRM_FROM_SOURCE ? "built from source" : "from an image",
		h.flags & LRM_EDITED ? ", WBINVD edited out by apstart" :
		patched ? ", with the patch" : "", h.blob_size,
		(unsigned long long)base, (unsigned long long)(base + size),
		(unsigned long long)(t->sipi_page >> 12),
		t->wbinvd ? "WBINVD" : "no WBINVD");
	kprintf("trampoline: blob sha256 %s%s%s\n", sha,
		h.flags & LRM_EDITED ? ", made from " : "", h.flags & LRM_EDITED ? shipped : "");
	fmt_snprintf(fields, sizeof fields, " linux_version=%s layout=%s origin=%s "
		     "patched=%d edited=%d blob_sha256=%s shipped_sha256=%s lowmem=0x%llx "
		     "pages=%llu", version, h.layout_name,
		     h.flags & LRM_FROM_SOURCE ? "source" : "image", patched,
		     !!(h.flags & LRM_EDITED), sha, shipped, (unsigned long long)base,
		     (unsigned long long)(size / 4096));
	t->fields = fields;
	return true;
}

WING(linux_trampoline) = {
	.name = "linux_trampoline",
	.claim_memory = claim,
	.reserved = lrm_module_reserved,
	.install_trampoline = install,
};
