/* SPDX-License-Identifier: MIT */
/* Whether this apstart.efi has its test switches (loader.cfg's
 * test_stale_map_key= and test_session_fail=, plan.txt's test_fail_run=):
 * the tests' images are built with them (make EFI_TEST_HOOKS=1: build/
 * efi-test/), the image that make sign signs without (build/efi/): a
 * switch a signed loader honours from an unsigned file is a switch
 * anyone with the stick can throw (wings/efi/efi.mk). */
#ifndef APSTART_EFI_TEST_HOOKS_H
#define APSTART_EFI_TEST_HOOKS_H

#ifndef APSTART_EFI_TEST_HOOKS
#define APSTART_EFI_TEST_HOOKS 0
#endif

#endif
