/* SPDX-License-Identifier: MIT */
/* tools/records/schema.c: the table's own rules (keys follow their record,
 * one entry per key and variant, variants named by words of the variant
 * key), the words it shares with the kernel's lists (phase names, the
 * modes' keyword tables), and the lookups and value checks aplog uses. */
#include <stdio.h>
#include <string.h>

#include "lib/keyword.h"
#include "lib/phase_names.h"
#include "tools/records/schema.h"
#include "smp/park.h"
#include "smp/lapic.h"
#include "smp/wake.h"
#include "check.h"

/* Every key lies in its own record's range, and a record's keys are where
 * the header's RK_word__begin says. */
static void test_keys_follow_their_record(void)
{
	for (int r = 0; r < RW_COUNT; r++)
		for (int k = record_kinds[r].first_key; k < record_keys_end(r); k++)
			CHECK_EQ(record_keys[k].record, r);
	CHECK_EQ(record_kinds[RW_sample].first_key, RK_sample__begin);
	CHECK_EQ(RK_sample__begin, RK_sample_cpu);
	CHECK_EQ(record_keys_end(RW_COUNT - 1), RK_COUNT);
	for (int k = 0; k < RK_COUNT; k++)
		CHECK(record_keys[k].name && record_keys[k].name[0]);
}

/* A key name twice in one record only for disjoint variants or writers. */
static bool disjoint(const char *a, const char *b)
{
	if (!a || !b)
		return false;
	for (const char *p = a; *p;) {
		size_t n = strcspn(p, " ");
		if (n && record_word_in(b, p, n))
			return false;
		p += n;
		p += strspn(p, " ");
	}
	return true;
}

static void test_one_entry_per_key_and_variant(void)
{
	for (int k = 0; k < RK_COUNT; k++)
		for (int j = k + 1; j < RK_COUNT; j++)
			if (record_keys[j].record == record_keys[k].record &&
			    !strcmp(record_keys[j].name, record_keys[k].name) &&
			    !CHECK(disjoint(record_keys[k].only, record_keys[j].only) ||
				   !(record_keys[k].flags & record_keys[j].flags & RF_WRITERS)))
				printf("    @%s %s: two entries for one variant\n",
				       record_kinds[record_keys[k].record].word + 1,
				       record_keys[k].name);
}

/* A record's variant key is one of its WORD keys, in every record (REQ);
 * every only= word is one of its words; a record without one has no only=. */
static void test_variants_are_words_of_the_variant_key(void)
{
	for (int r = 0; r < RW_COUNT; r++) {
		const char *v = record_kinds[r].variant;
		int vk = v ? record_key_find(r, v, strlen(v)) : -1;
		if (v && CHECK(vk >= 0)) {
			CHECK_EQ(record_keys[vk].unit, U_WORD);
			CHECK(record_keys[vk].words != NULL);
			CHECK(record_keys[vk].only == NULL);
		}
		/* the variant's words: those of every entry of its key */
		char words[1024] = "";
		for (int k = vk; vk >= 0 && k < record_keys_end(r); k++)
			if (!strcmp(record_keys[k].name, v) && record_keys[k].words) {
				strcat(words, " ");
				strcat(words, record_keys[k].words);
			}
		for (int k = record_kinds[r].first_key; k < record_keys_end(r); k++) {
			const char *only = record_keys[k].only;
			if (!only)
				continue;
			if (!CHECK(vk >= 0))
				continue;
			for (const char *p = only; *p;) {
				size_t n = strcspn(p, " ");
				if (n && !CHECK(record_word_in(words, p, n)))
					printf("    @%s %s: only=%.*s is no %s= word\n",
					       record_kinds[r].word + 1, record_keys[k].name,
					       (int)n, p, v);
				p += n;
				p += strspn(p, " ");
			}
		}
	}
}

/* "a b c" == the words of a NULL-terminated list, in order. */
static void check_words(const char *words, const char *const *list)
{
	char joined[512] = "";
	for (size_t i = 0; list[i]; i++) {
		if (i)
			strcat(joined, " ");
		strcat(joined, list[i]);
	}
	CHECK_STREQ(words, joined);
}

static void check_keywords(int k, const struct keyword *table)
{
	const char *list[16];
	size_t n = 0;
	for (; table[n].word && n < 15; n++)
		list[n] = table[n].word;
	list[n] = NULL;
	check_words(record_keys[k].words, list);
}

/* The schema's words are the kernel's: its phase names and the keyword
 * tables the @boot record prints its modes with. */
static void test_words_are_the_kernels(void)
{
	check_words(record_keys[RK_phase_phase].words, phase_names);
	check_words(record_keys[RK_phases_phase].words, phase_names);
	check_keywords(RK_boot_park, park_words);
	check_keywords(RK_boot_sipi_delay, sipi_delay_words);
	check_keywords(RK_boot_sipi_count, sipi_count_words);
	check_keywords(RK_boot_extnmi, extnmi_words);
	check_keywords(RK_boot_bringup, bringup_words);
	check_keywords(RK_boot_bringup_used, bringup_words);
	check_keywords(RK_boot_cycles_mode, cycles_mode_words);
	check_keywords(RK_bringup_mode, bringup_words);
}

static void test_names(void)
{
	CHECK_STREQ(RECORD_WORD(sample), "@sample");
	CHECK_STREQ(RECORD_KEY(summary, settled_total_ns), "settled_total_ns");
	CHECK_EQ(record_find("@sample", 7), RW_sample);
	CHECK_EQ(record_find("@sampl", 6), -1);
	CHECK_EQ(record_find("sample", 6), -1);
	CHECK_EQ(record_find("@probe_end", 10), RW_probe_end);
	CHECK_EQ(record_key_find(RW_sample, "ns", 2), RK_sample_ns);
	CHECK_EQ(record_key_find(RW_sample, "n", 1), -1);
	CHECK_EQ(record_key_find(RW_sample, "total_ns", 8), -1);
	CHECK_EQ(record_key_find(-1, "ns", 2), -1);
	CHECK_EQ(record_key_find(RW_COUNT, "ns", 2), -1);
	/* variants */
	CHECK_EQ(record_key_for(RW_sample, "ap_ns", 5, "online", 6), RK_sample_ap_ns);
	CHECK_EQ(record_key_for(RW_sample, "ap_ns", 5, "offline", 7), -1);
	CHECK_EQ(record_key_for(RW_sample, "ap_ns", 5, NULL, 0), RK_sample_ap_ns);
	CHECK_EQ(record_key_for(RW_sample, "ns", 2, "offline", 7), RK_sample_ns);
	CHECK_EQ(record_key_for(RW_warn, "kept", 4, "option", 6), RK_warn_kept);
	CHECK_EQ(record_key_for(RW_warn, "kept", 4, "pstore_wrapped", 14), RK_warn_kept_pstore);
	CHECK_EQ(record_key_for(RW_warn, "kept", 4, "nmi", 3), -1);
	CHECK(record_word_in("a bb ccc", "bb", 2));
	CHECK(!record_word_in("a bb ccc", "b", 1));
	CHECK(!record_word_in(NULL, "b", 1));
	CHECK(!record_word_in("a", "", 0));
}

static enum record_value vc(int k, const char *v)
{
	return record_value_check(k, v, strlen(v));
}

static void test_values(void)
{
	CHECK_EQ(vc(RK_sample_ns, "123"), RV_OK);
	CHECK_EQ(vc(RK_sample_ns, ""), RV_EMPTY);
	CHECK_EQ(vc(RK_sample_ns, "-1"), RV_FORM);
	CHECK_EQ(vc(RK_sample_ns, "12a"), RV_FORM);
	CHECK_EQ(vc(RK_sample_ns, "na"), RV_NA);
	CHECK_EQ(vc(RK_sample_ap_ns, "na"), RV_OK);
	CHECK_EQ(vc(RK_cpu_tsc_skew_ns, "-42"), RV_OK);
	CHECK_EQ(vc(RK_cpu_tsc_skew_ns, "-"), RV_FORM);
	CHECK_EQ(vc(RK_sample_nmi, "1"), RV_OK);
	CHECK_EQ(vc(RK_sample_nmi, "2"), RV_FORM);
	CHECK_EQ(vc(RK_env_hypervisor, "-1"), RV_OK); /* linux-hotplug: unknown */
	CHECK_EQ(vc(RK_boot_tramp, "0x9e000"), RV_OK);
	CHECK_EQ(vc(RK_boot_tramp, "0x"), RV_FORM);
	CHECK_EQ(vc(RK_boot_tramp, "9e000"), RV_FORM);
	CHECK_EQ(vc(RK_env_microcode, "none"), RV_OK);
	CHECK_EQ(vc(RK_env_microcode, "nothing"), RV_FORM);
	CHECK_EQ(vc(RK_sample_op, "online"), RV_OK);
	CHECK_EQ(vc(RK_sample_op, "sideways"), RV_WORD);
	CHECK_EQ(vc(RK_boot_park_why, "x86_bug_monitor"), RV_OK);
	CHECK_EQ(vc(RK_boot_park_why, "Bad"), RV_FORM);
	CHECK_EQ(vc(RK_env_brand, "QEMU_TCG_CPU_version_2.5+"), RV_OK);
	CHECK_EQ(vc(RK_env_brand, "a\tb"), RV_FORM);
}

static enum record_value fc(int rec, const char *name, const char *variant, const char *v)
{
	return record_field_check(rec, name, strlen(name), variant,
				  variant ? strlen(variant) : 0, v, strlen(v));
}

/* A key with entries for other variants or writers: the one that applies. */
static void test_fields(void)
{
	CHECK_EQ(fc(RW_fail, "what", "panic", "panic"), RV_OK);
	CHECK_EQ(fc(RW_fail, "what", "interrupted", "interrupted"), RV_OK); /* linux-hotplug's */
	CHECK_EQ(fc(RW_fail, "what", "nothing_really", "nothing_really"), RV_WORD);
	CHECK_EQ(fc(RW_fail, "bogus", "panic", "1"), RV_UNKNOWN);
	CHECK_EQ(fc(RW_fail, "rip", "exception", "0x10970c"), RV_OK);
	CHECK_EQ(fc(RW_fail, "rip", "ap_timeout", "0x10970c"), RV_VARIANT);
	CHECK_EQ(fc(RW_warn, "kept", "option", "auto"), RV_OK);
	CHECK_EQ(fc(RW_warn, "kept", "pstore_wrapped", "auto"), RV_FORM);
	CHECK_EQ(fc(RW_warn, "kept", "pstore_wrapped", "4084"), RV_OK);
	CHECK_EQ(fc(RW_cpu, "state", NULL, "offline"), RV_OK);
	CHECK_EQ(fc(RW_boot, "kernel", NULL, "linux"), RV_OK);
	CHECK_EQ(fc(RW_boot, "kernel", NULL, "bsd"), RV_WORD);
	CHECK_EQ(fc(RW_sample, "settled_ns", "offline", "na"), RV_OK);
	CHECK_EQ(fc(RW_sample, "settled_ns", "online", "5"), RV_VARIANT);
}

void test_records_schema(void)
{
	RUN_CASE(test_keys_follow_their_record);
	RUN_CASE(test_one_entry_per_key_and_variant);
	RUN_CASE(test_variants_are_words_of_the_variant_key);
	RUN_CASE(test_words_are_the_kernels);
	RUN_CASE(test_names);
	RUN_CASE(test_values);
	RUN_CASE(test_fields);
}
