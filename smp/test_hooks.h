/* Test and experiment hooks: the failure-path self-tests. */
#ifndef APSTART_TEST_HOOKS_H
#define APSTART_TEST_HOOKS_H

/* selftest=: make something go wrong on purpose. */
enum selftest { SELFTEST_NONE, SELFTEST_BSP_FAULT, SELFTEST_AP_FAULT,
		SELFTEST_AP_HANG, SELFTEST_DOUBLE_START };

#endif
