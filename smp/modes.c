/* SPDX-License-Identifier: MIT */
/* The words of every mode smp/ offers, one table each: the command line
 * parses them (app/options.c) and the records, the screen's header and
 * the messages print them, so each mode is spelled in one place. Pure
 * data: host tests build it with the parser. */
#include "smp/lapic.h"
#include "smp/park.h"
#include "smp/wake.h"

const struct keyword x2apic_words[] = {
	{ "auto", X2APIC_AUTO }, { "on", X2APIC_ON }, { "off", X2APIC_OFF },
	{ NULL, 0 },
};

const struct keyword extnmi_words[] = {
	{ "bsp", EXTNMI_BSP }, { "all", EXTNMI_ALL }, { "none", EXTNMI_NONE },
	{ NULL, 0 },
};

const struct keyword park_words[] = {
	{ "linux", PARK_LINUX }, { "hlt", PARK_HLT }, { "mwait", PARK_MWAIT },
	{ "init", PARK_INIT }, { NULL, 0 },
};

const struct keyword bsp_wait_words[] = {
	{ "spin", BSP_WAIT_SPIN }, { "hlt", BSP_WAIT_HLT }, { NULL, 0 },
};

const struct keyword sipi_delay_words[] = {
	{ "linux", SIPI_DELAY_LINUX }, { "fixed", SIPI_DELAY_FIXED }, { NULL, 0 },
};

const struct keyword sipi_count_words[] = {
	{ "auto", SIPI_COUNT_AUTO }, { "1", 1 }, { "2", 2 }, { NULL, 0 },
};

const struct keyword bringup_words[] = {
	{ "serial", BRINGUP_SERIAL }, { "parallel", BRINGUP_PARALLEL },
	{ "broadcast", BRINGUP_BROADCAST }, { NULL, 0 },
};

const struct keyword cycles_mode_words[] = {
	{ "serial", CYCLES_SERIAL }, { "parallel", CYCLES_PARALLEL }, { NULL, 0 },
};
