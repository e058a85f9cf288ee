/* SPDX-License-Identifier: MIT */
/* aprealmode: Linux's realmode blob (the AP trampoline Linux runs) taken
 * from a kernel image, a vmlinux or a build tree, checked against the
 * layouts verified here, and written as one LRM file for apstart's kernel
 * (trampoline=linux), with its patched twin if asked
 * (docs/linux-trampoline.md).
 *
 *   input.c         what is read, told apart by its content
 *   kernel_image.c  a bzImage's setup header, ELF headers, other machines
 *   decompress.c    the payload, by the system's gzip/xz/zstd/...
 *   scan.c          the blob found in a vmlinux by validation
 *   twin.c          the patched twin (the WBINVD edited out)
 *   report.c        what is printed
 * The blob's check and the file format: wings/linux_trampoline/.
 *
 * Exit status: 0 done, 1 input refused (one line on stderr), 2 usage. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "tools/linux/realmode/input.h"
#include "tools/linux/realmode/report.h"
#include "tools/linux/realmode/twin.h"
#include "wings/linux_trampoline/lrm_file.h"

static const char usage_text[] =
	"usage: aprealmode [-o FILE.lrm] [--twin FILE.lrm] [--relocs FILE] [--version TEXT] INPUT\n"
	"       aprealmode --check FILE.lrm\n"
	"       aprealmode --layouts\n"
	"\n"
	"Takes Linux's realmode blob (trampoline_start and the rest of\n"
	"arch/x86/realmode/rm/) from INPUT and checks it against the layouts\n"
	"verified here; prints the kernel, the layout, the blob's and relocations'\n"
	"sizes and SHA-256, trampoline_start and whether it begins with WBINVD.\n"
	"\n"
	"INPUT: a kernel image (bzImage/vmlinuz: gzip, xz, zstd, lz4, bzip2, lzma,\n"
	"       lzo payloads, by the system's own commands), a vmlinux, a Linux\n"
	"       build tree (arch/x86/realmode/rm/realmode.bin and .relocs), a\n"
	"       realmode.bin (its realmode.relocs beside it), or the word\n"
	"       running: /boot/vmlinuz-$(uname -r)\n"
	"\n"
	"options:\n"
	"  -o, --output FILE  write the blob as found, as an LRM file\n"
	"  --twin FILE        write its patched twin: the WBINVD at trampoline_start\n"
	"                     edited out (the ljmpw moved over it, its relocation too)\n"
	"  --relocs FILE      the realmode.relocs of a realmode.bin not beside it\n"
	"  --version TEXT     the kernel's name to record for a build tree\n"
	"  --check FILE       check an LRM file as the kernel does and print it\n"
	"  --layouts          print the table of the layouts verified\n"
	"  -h, --help         this text\n"
	"\n"
	"Exit status: 0 done, 1 input refused (one line says why), 2 usage.\n";

static void usage_error(const char *msg)
{
	fprintf(stderr, "aprealmode: %s (aprealmode --help)\n", msg);
	exit(2);
}

/* The one line of a refusal; returns the exit status. */
static int refuse(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int refuse(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputs("aprealmode: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	return 1;
}

static int print_layouts(void)
{
	for (unsigned i = 0; i < lrm_layout_count; i++) {
		const struct lrm_layout *l = &lrm_layouts[i];
		printf("%s (id %u, trampoline_%u.S)\n", l->name, (unsigned)l->id, (unsigned)l->bits);
		printf("  config:            %s\n", l->config);
		printf("  real_mode_header:  %u words:", (unsigned)l->nfields);
		for (unsigned f = 0; f < l->nfields; f++)
			printf(" %s", lrm_field_name(l->fields[f]));
		printf("\n  trampoline_header: %u bytes: %s\n", (unsigned)l->th_size,
		       l->bits == 32 ? "start u32, gdt_pad u16, gdt_limit u16, gdt_base u32"
		       : l->has_lock ? "start u64, efer u64, cr4 u32, flags u32, lock u32"
				     : "start u64, efer u64, cr4 u32, flags u32");
		printf("  verified on:       %s\n", l->verified_on);
	}
	return 0;
}

/* Writes the file atomically (FILE.tmp, then renamed). */
static int write_lrm(const char *path, const struct lrm_header *h, const uint8_t *blob,
		     const uint8_t *relocs, char *why)
{
	size_t len = lrm_file_size(h);
	uint8_t *buf = malloc(len);
	char tmp[4096];
	if (!buf)
		return lrm_why(why, "out of memory");
	lrm_write(h, blob, relocs, buf, len);
	/* What the kernel will check, checked before it is written. */
	int ok = lrm_check(buf, len, NULL, NULL, why);
	if (ok) {
		snprintf(tmp, sizeof tmp, "%s.tmp", path);
		FILE *f = fopen(tmp, "wb");
		if (!f || fwrite(buf, 1, len, f) != len || fclose(f) != 0 || rename(tmp, path) != 0) {
			ok = lrm_why(why, "cannot write %s: %s", path, strerror(errno));
			unlink(tmp);
		}
	}
	free(buf);
	return ok;
}

static int check_file(const char *path)
{
	static uint8_t buf[LRM_FILE_MAX + 1];
	char why[LRM_WHY_SIZE];
	struct lrm_header h;
	struct lrm_blob_info in;
	FILE *f = fopen(path, "rb");
	if (!f)
		return refuse("cannot read %s: %s", path, strerror(errno));
	size_t len = fread(buf, 1, sizeof buf, f);
	fclose(f);
	if (len > LRM_FILE_MAX)
		return refuse("%s: more than %u bytes: not an LRM file", path, LRM_FILE_MAX);
	if (!lrm_check(buf, len, &h, &in, why))
		return refuse("%s: %s", path, why);
	printf("file:              %s (LRM version %u, %zu bytes): valid\n", path, (unsigned)h.version, len);
	report_blob(stdout, &h, &in);
	return 0;
}

int main(int argc, char **argv)
{
	const char *out = NULL, *twin_out = NULL, *relocs = NULL, *version = NULL, *check = NULL;
	int layouts = 0;
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' }, { "twin", required_argument, NULL, 't' },
		{ "relocs", required_argument, NULL, 'r' }, { "version", required_argument, NULL, 'v' },
		{ "check", required_argument, NULL, 'c' }, { "layouts", no_argument, NULL, 'l' },
		{ "help", no_argument, NULL, 'h' }, { NULL, 0, NULL, 0 },
	};
	int c;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "o:h", opts, NULL)) != -1) {
		switch (c) {
		case 'o': out = optarg; break;
		case 't': twin_out = optarg; break;
		case 'r': relocs = optarg; break;
		case 'v': version = optarg; break;
		case 'c': check = optarg; break;
		case 'l': layouts = 1; break;
		case 'h': fputs(usage_text, stdout); return 0;
		default: {
			char msg[128];
			snprintf(msg, sizeof msg, "unknown option or missing value: %s", argv[optind - 1]);
			usage_error(msg);
		}
		}
	}
	if (layouts || check) {
		if (optind != argc || out || twin_out || relocs || version || (layouts && check))
			usage_error("--check FILE and --layouts take nothing else");
		return layouts ? print_layouts() : check_file(check);
	}
	if (optind != argc - 1)
		usage_error(optind == argc ? "no INPUT" : "one INPUT only");
	const char *path = argv[optind];
	char running[512];
	if (!strcmp(path, "running")) {
		struct utsname u;
		if (uname(&u) != 0)
			usage_error("running: uname failed");
		snprintf(running, sizeof running, "/boot/vmlinuz-%s", u.release);
		path = running;
	}

	struct input in;
	char why[LRM_WHY_SIZE];
	if (!input_read(path, relocs, &in, why)) {
		input_free(&in);
		return refuse("%s", why);
	}
	const char *banner = version ? version : in.banner;
	/* A blob without WBINVD is in the reference patch's state (a tree
	 * built with it): recorded as patched. */
	uint32_t origin = in.origin | ((in.info.flags & LRM_WBINVD) ? 0 : LRM_PATCHED);
	struct lrm_header h;
	int rc = 0;
	printf("input:             %s: %s\n", path, in.what);
	if (strlen(banner) >= LRM_KERNEL_VERSION_SIZE)
		printf("banner:            %s\n", banner);
	if (in.info.flags & LRM_EDITED) {
		/* An edited blob read back: its shipped blob is not known. */
		rc = refuse("the blob is already an edited twin: give the kernel or tree it was made from");
	} else if (!lrm_build(&h, in.blob, in.blob_size, in.relocs, in.relocs_size, origin, NULL, banner, why)) {
		rc = refuse("%s", why);
	} else {
		report_blob(stdout, &h, &in.info);
		if (out) {
			if (write_lrm(out, &h, in.blob, in.relocs, why))
				printf("wrote:             %s (%zu bytes)\n", out, lrm_file_size(&h));
			else
				rc = refuse("%s", why);
		}
	}
	if (!rc && twin_out) {
		struct lrm_blob_info tin;
		struct lrm_header th;
		if (!twin_make(in.blob, in.blob_size, in.relocs, in.relocs_size, &in.info, &tin, why) ||
		    !lrm_build(&th, in.blob, in.blob_size, in.relocs, in.relocs_size,
			       in.origin | LRM_PATCHED, h.blob_sha256, banner, why) ||
		    !write_lrm(twin_out, &th, in.blob, in.relocs, why)) {
			rc = refuse("%s", why);
		} else {
			printf("twin:              %s (%zu bytes)\n", twin_out, lrm_file_size(&th));
			printf("twin blob:         sha256 ");
			report_hex(stdout, th.blob_sha256, SHA256_BYTES);
			printf("\ntwin relocs:       sha256 ");
			report_hex(stdout, th.relocs_sha256, SHA256_BYTES);
			printf("\ntwin start:        0x%x: %sljmpw; int3; int3 (WBINVD: no, the ljmpw's segment relocation 0x%x -> 0x%x)\n",
			       (unsigned)tin.trampoline_start, tin.layout->bits == 64 ? "cli; " : "",
			       (unsigned)(in.info.ljmp_at + 3), (unsigned)(tin.ljmp_at + 3));
		}
	}
	input_free(&in);
	return rc;
}
