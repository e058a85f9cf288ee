/* SPDX-License-Identifier: MIT */
/* Reads UEFI variables out of an OVMF variable store file (the writable
 * copy of OVMF_VARS_4M.fd a test boots with), to check what the kernel
 * and apstart.efi left in NVRAM without booting again.
 *
 *   varstore FILE          print the data of the live ApstartResults
 *                          variable (wings/efi/efi_vendor.h); exit 1 if
 *                          there is none
 *   varstore --list FILE   one line per variable: state, attributes,
 *                          data size, GUID, name
 *   varstore --name        the variable's efivarfs name, NAME-GUID
 *
 * Exit status 2: not a variable store, or a malformed one (every field
 * is bounds-checked; nothing past the file is read).
 *
 * Layout (EDK II, MdeModulePkg/Include/Guid/VariableFormat.h): a firmware
 * volume header ("_FVH" at 40, HeaderLength u16 at 48), then the variable
 * store header (signature GUID, Size u32, Format 0x5A, State 0xFE, 28
 * bytes), then variables, each 4-byte aligned: StartId 0x55AA u16, State
 * u8, Reserved u8, Attributes u32, [authenticated stores: MonotonicCount
 * u64, TimeStamp 16 bytes, PubKeyIndex u32], NameSize u32, DataSize u32,
 * VendorGuid, then the UCS-2 name and the data. A variable is live when
 * its State is VAR_ADDED (0x3F), or VAR_ADDED with the in-deleted-
 * transition bit cleared (0x3E) while its replacement is written. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wings/efi/efi_vendor.h"
#include "lib/bytes.h"

#define FV_SIGNATURE_OFF 40
#define FV_HEADER_LEN_OFF 48
#define STORE_HEADER_LEN 28
#define VAR_START_ID 0x55AA
#define VAR_ADDED 0x3F
#define VAR_ADDED_IN_TRANSITION 0x3E
#define FILE_MAX (64u << 20)

static const uint8_t auth_store_guid[16] = { 0x78, 0x2c, 0xf3, 0xaa, 0x7b, 0x94, 0x9a, 0x43,
					     0xa1, 0x80, 0x2e, 0x14, 0x4e, 0xc3, 0x77, 0x92 };
static const uint8_t plain_store_guid[16] = { 0x16, 0x36, 0xcf, 0xdd, 0x75, 0x32, 0x64, 0x41,
					      0x98, 0xb6, 0xfe, 0x85, 0x70, 0x7f, 0xfe, 0x7d };

struct var {
	uint8_t state;
	uint32_t attrs, name_size, data_size;
	const uint8_t *guid, *name, *data;
};

static int bad(const char *file, const char *why, size_t off)
{
	fprintf(stderr, "varstore: %s: %s (offset %zu)\n", file, why, off);
	return 2;
}

/* The GUID as text, from its in-memory layout. */
static void guid_text(const uint8_t *g, char out[37])
{
	snprintf(out, 37, "%08x-%04x-%04x-%02x%02x-%02x%02x%02x%02x%02x%02x", rd32(g), rd16(g + 4),
		 rd16(g + 6), g[8], g[9], g[10], g[11], g[12], g[13], g[14], g[15]);
}

/* The name as ASCII (non-ASCII as '?'), for listing and comparing. */
static void name_text(const struct var *v, char *out, size_t size)
{
	size_t n = 0;
	for (uint32_t i = 0; i + 1 < v->name_size && n + 1 < size; i += 2) {
		uint16_t c = rd16(v->name + i);
		if (!c)
			break;
		out[n++] = c < 0x80 && c >= 0x20 ? (char)c : '?';
	}
	out[n] = 0;
}

static int walk(const char *file, const uint8_t *buf, size_t len, struct var *vars,
		size_t max, size_t *count)
{
	if (len < FV_HEADER_LEN_OFF + 2 || memcmp(buf + FV_SIGNATURE_OFF, "_FVH", 4) != 0)
		return bad(file, "no firmware volume header (_FVH)", FV_SIGNATURE_OFF);
	size_t store = rd16(buf + FV_HEADER_LEN_OFF);
	if (store > len || len - store < STORE_HEADER_LEN)
		return bad(file, "variable store header beyond the file", store);
	const uint8_t *sh = buf + store;
	size_t var_header;
	if (memcmp(sh, auth_store_guid, 16) == 0)
		var_header = 60;
	else if (memcmp(sh, plain_store_guid, 16) == 0)
		var_header = 32;
	else
		return bad(file, "unknown variable store signature", store);
	size_t store_size = rd32(sh + 16);
	if (store_size < STORE_HEADER_LEN || store_size > len - store)
		return bad(file, "variable store size beyond the file", store + 16);
	size_t end = store + store_size;

	*count = 0;
	for (size_t off = store + STORE_HEADER_LEN; off + var_header <= end;) {
		const uint8_t *h = buf + off;
		if (rd16(h) != VAR_START_ID)
			break; /* erased flash (0xFF) after the last variable */
		struct var v = { .state = h[2], .attrs = rd32(h + 4) };
		v.name_size = rd32(h + var_header - 24);
		v.data_size = rd32(h + var_header - 20);
		v.guid = h + var_header - 16;
		if (v.name_size > end - off - var_header ||
		    v.data_size > end - off - var_header - v.name_size)
			return bad(file, "variable name or data beyond the store", off);
		v.name = h + var_header;
		v.data = v.name + v.name_size;
		if (*count == max)
			return bad(file, "too many variables", off);
		vars[(*count)++] = v;
		off += var_header + v.name_size + v.data_size;
		off = (off + 3) & ~(size_t)3;
	}
	return 0;
}

static int live(const struct var *v)
{
	return v->state == VAR_ADDED || v->state == VAR_ADDED_IN_TRANSITION;
}

static void our_guid(char out[37])
{
	static const struct {
		uint32_t d1;
		uint16_t d2, d3;
		uint8_t d4[8];
	} ours = APSTART_VENDOR_GUID_INIT;
	uint8_t g[16];

	memcpy(g, &ours, 16); /* little-endian host: the in-memory layout */
	guid_text(g, out);
}

int main(int argc, char **argv)
{
	char want_guid[37], guid[37], name[128];

	our_guid(want_guid);
	if (argc == 2 && strcmp(argv[1], "--name") == 0) {
		printf("%s-%s\n", APSTART_RESULTS_VAR_NAME_ASCII, want_guid);
		return 0;
	}
	int list = argc == 3 && strcmp(argv[1], "--list") == 0;
	if (argc != 2 + list || argv[1 + list][0] == '-') {
		fprintf(stderr, "usage: varstore [--list] OVMF_VARS_FILE | --name\n");
		return 2;
	}
	const char *file = argv[1 + list];
	FILE *f = fopen(file, "rb");
	if (!f) {
		fprintf(stderr, "varstore: %s: %s\n", file, strerror(errno));
		return 2;
	}
	static uint8_t buf[FILE_MAX];
	size_t len = fread(buf, 1, sizeof buf, f);
	int too_big = !feof(f);
	fclose(f);
	if (too_big)
		return bad(file, "larger than a variable store can be", FILE_MAX);

	static struct var vars[4096];
	size_t n;
	int rc = walk(file, buf, len, vars, sizeof vars / sizeof vars[0], &n);
	if (rc)
		return rc;

	const struct var *found = NULL;
	for (size_t i = 0; i < n; i++) {
		guid_text(vars[i].guid, guid);
		name_text(&vars[i], name, sizeof name);
		if (list)
			printf("%s state=0x%02x attrs=0x%x size=%u %s-%s\n",
			       live(&vars[i]) ? "live   " : "deleted", vars[i].state, vars[i].attrs,
			       vars[i].data_size, name, guid);
		else if (live(&vars[i]) && strcmp(guid, want_guid) == 0 &&
			 strcmp(name, APSTART_RESULTS_VAR_NAME_ASCII) == 0 &&
			 (!found || vars[i].state == VAR_ADDED))
			found = &vars[i];
	}
	if (list)
		return 0;
	if (!found) {
		fprintf(stderr, "varstore: %s: no live %s-%s\n", file,
			APSTART_RESULTS_VAR_NAME_ASCII, want_guid);
		return 1;
	}
	fwrite(found->data, 1, found->data_size, stdout);
	return 0;
}
