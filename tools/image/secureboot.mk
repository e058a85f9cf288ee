# SPDX-License-Identifier: MIT
# Secure Boot: a key pair for a user who has none, and apstart.efi on the
# image signed with the user's key (docs/hardware.md, Secure Boot).
# Included from the top-level Makefile after tools/image/iso.mk.
#
#   make keys [KEYS_DIR=keys] [KEY_PASS=FILE]
#                                   tools/image/keys.sh: keys/apstart-mok.{key,crt,der},
#                                   never overwritten (keys/ is outside git);
#                                   the key encrypted with FILE's passphrase;
#                                   prints the certificate's fingerprints
#   make sign [KEY=... CERT=...] [KEY_PASS=FILE]
#                                   tools/image/sign.sh: build/apstart.iso's
#                                   apstart.efi (build/efi/: no test
#                                   switches) signed in place, its
#                                   certificate and fingerprints beside it;
#                                   KEY and CERT default to the pair make
#                                   keys made

KEYS_DIR ?= keys
KEY ?= $(wildcard $(KEYS_DIR)/apstart-mok.key)
CERT ?= $(wildcard $(KEYS_DIR)/apstart-mok.crt)
SIGN_DIR := build/sign
KEY_PASS ?=
KEY_PASS_OPT = $(if $(strip $(KEY_PASS)),--pass '$(strip $(KEY_PASS))')

.PHONY: keys sign
keys:
	@tools/build/deps.sh sign
	@tools/image/keys.sh $(KEY_PASS_OPT) '$(KEYS_DIR)'

# The image first (iso-deps, $(ISO)): then its apstart.efi is signed.
sign: iso-deps
	@tools/build/deps.sh sign
	@if [ -z '$(strip $(KEY))' ] || [ -z '$(strip $(CERT))' ]; then \
		echo "make sign: which key? make sign KEY=your.key CERT=your.crt (PEM), or make keys first (keys/)" >&2; \
		exit 2; fi
	@$(MAKE) --no-print-directory $(ISO)
	@tools/image/sign.sh --key '$(KEY)' --cert '$(CERT)' $(KEY_PASS_OPT) --efi $(APSTART_EFI) --out $(SIGN_DIR) $(ISO)
