/* SPDX-License-Identifier: MIT */
/* Host unit test of the flushmodel argument parser and cost model: every
 * accepted form, every refusal, the preset costs and the socket split.
 * Last line: "N passed, M failed". Built plain and with ASan/UBSan. */
#include <stdio.h>
#include <string.h>

#include "model.h"
#include "test_check.h"

/* Parse a comma-separated argument string as QEMU would pass it. */
static int parse(struct flush_model *m, const char *args, char *err, size_t len)
{
	static char buf[1024];
	char *argv[32];
	int argc = 0;
	snprintf(buf, sizeof(buf), "%s", args);
	for (char *p = buf; *p && argc < 32;) {
		argv[argc++] = p;
		char *c = strchr(p, ',');
		if (!c)
			break;
		*c = '\0';
		p = c + 1;
	}
	return model_parse(m, argc, argv, err, len);
}

static void accepts(const char *args, enum flush_kind k, double u, uint64_t ns)
{
	struct flush_model m;
	char err[256], what[512];
	int rc = parse(&m, args, err, sizeof(err));
	uint64_t got = rc ? 0 : model_cost_ns(&m, k, u);
	snprintf(what, sizeof(what), "'%s' %s u=%g: want %llu ns, got rc=%d %llu ns (%s)",
		 args, flush_kind_name[k], u, (unsigned long long)ns, rc,
		 (unsigned long long)got, err);
	check(rc == 0 && got == ns, what);
}

static void refuses(const char *args, const char *needle)
{
	struct flush_model m;
	char err[256], what[512];
	int rc = parse(&m, args, err, sizeof(err));
	snprintf(what, sizeof(what), "'%s' must be refused mentioning '%s' (rc=%d, '%s')",
		 args, needle, rc, err);
	check(rc == -1 && strstr(err, needle) != NULL, what);
}

static void sockets(const char *args, unsigned nvcpus, unsigned per, unsigned n)
{
	struct flush_model m;
	char err[256], what[512];
	int rc = parse(&m, args, err, sizeof(err));
	unsigned gp = rc ? 0 : model_per_domain(&m, nvcpus);
	unsigned gn = rc ? 0 : model_domains(&m, nvcpus);
	snprintf(what, sizeof(what), "'%s' with %u vCPUs: want %u sockets of %u, got %u of %u (%s)",
		 args, nvcpus, n, per, gn, gp, err);
	check(rc == 0 && gp == per && gn == n, what);
}

int main(void)
{
	/* Fixed cost: every kind, no jitter. */
	accepts("us=2000", FLUSH_WBINVD, 0, 2000000);
	accepts("us=2000", FLUSH_INVD, 1, 2000000);
	accepts("us=2.5", FLUSH_WBNOINVD, -1, 2500);
	accepts("us=0", FLUSH_WBINVD, 0, 0);
	accepts("us=1e3,serialize=off,sockets=2,spin_us=0,out=/tmp/x", FLUSH_WBINVD, 0, 1000000);
	/* Presets: 504 MiB = 528482304 B; walk 8 GB/s + half dirty at 8 GB/s. */
	accepts("preset=xeon6985p", FLUSH_WBINVD, 0, 99090432);
	accepts("preset=xeon6985p", FLUSH_INVD, 0, 66060288);
	accepts("preset=xeon6985p", FLUSH_WBINVD, 1, 113953997);  /* +15% */
	accepts("preset=xeon6985p", FLUSH_WBINVD, -1, 84226867);  /* -15% */
	accepts("preset=xeon6985p,jitter=0", FLUSH_WBINVD, 1, 99090432);
	accepts("preset=xeon6985p,dirty=1", FLUSH_WBINVD, 0, 132120576);
	accepts("dirty=0,preset=xeon6985p", FLUSH_WBINVD, 0, 66060288);
	accepts("preset=desktop", FLUSH_WBINVD, 0, 6291456);
	accepts("llc_mb=32", FLUSH_WBINVD, 0, 6291456);
	accepts("llc_mb=1,walk_gbs=1,wb_gbs=0.5,dirty=0.25", FLUSH_WBINVD, 0, 1572864);
	accepts("llc_mb=1,walk_gbs=1,wb_gbs=0.5,dirty=0.25", FLUSH_INVD, 0, 1048576);
	accepts("preset=desktop,serialize=no", FLUSH_WBINVD, 0, 6291456);

	/* Refusals, each with a reason that names the problem. */
	refuses("", "no cost given");
	refuses("serialize=on", "no cost given");
	refuses("us=abc", "us=abc: not a decimal number");
	refuses("us=", "not a decimal number");
	refuses("us=-1", "out of range");
	refuses("us=1e8", "out of range");
	refuses("us=inf", "not a decimal number");
	refuses("us=nan", "not a decimal number");
	refuses("us=0x10", "not a decimal number");
	refuses("us=1 ", "not a decimal number");
	refuses("us=5,preset=desktop", "cannot be combined");
	refuses("us=5,llc_mb=3", "cannot be combined");
	refuses("us=1,us=2", "given twice");
	refuses("bogus=1", "unknown argument 'bogus'");
	refuses("xeon6985p", "expected KEY=VALUE");
	refuses("xeon6985p=on", "unknown argument");
	refuses("=5", "expected KEY=VALUE");
	refuses("preset=nope", "preset=nope: unknown");
	refuses("preset=", "unknown");
	refuses("us=1,serialize=maybe", "must be on or off");
	refuses("us=1,sockets=0", "out of range");
	refuses("us=1,sockets=1.5", "not a whole number");
	refuses("us=1,sockets=2,per_socket=2", "not both");
	refuses("us=1,per_socket=99999", "out of range");
	refuses("us=1,seed=-3", "not a whole number");
	refuses("us=1,out=", "out=");
	refuses("preset=xeon6985p,dirty=1.5", "out of range");
	refuses("preset=xeon6985p,jitter=100", "out of range");
	refuses("preset=xeon6985p,wb_gbs=0", "out of range");
	refuses("llc_mb=1048576,walk_gbs=0.001", "per flush");

	/* Socket split: contiguous blocks of vCPU indexes, as QEMU numbers
	 * them for -smp N,sockets=S. */
	sockets("preset=xeon6985p", 8, 4, 2);
	sockets("preset=xeon6985p", 7, 4, 2);
	sockets("preset=xeon6985p", 1, 1, 1);
	sockets("preset=xeon6985p,sockets=1", 64, 64, 1);
	sockets("us=1", 64, 64, 1);
	sockets("us=1,sockets=3", 8, 3, 3);
	sockets("us=1,per_socket=5", 8, 5, 2);
	sockets("us=1,sockets=16", 4, 1, 4);

	/* The description says what is charged and how it is split. */
	struct flush_model m;
	char err[256], what[512];
	parse(&m, "preset=xeon6985p,serialize=off", err, sizeof(err));
	model_describe(&m, 8, what, sizeof(what));
	check(strstr(what, "xeon6985p") && strstr(what, "WBINVD 99.09 ms") &&
	      strstr(what, "serialize=off, 2 sockets of 4 vCPUs"), what);
	parse(&m, "us=2000", err, sizeof(err));
	model_describe(&m, 1, what, sizeof(what));
	check(strstr(what, "fixed 2000 us") && strstr(what, "1 socket of 1 vCPU") != NULL, what);

	return check_summary();
}
