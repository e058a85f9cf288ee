# SPDX-License-Identifier: MIT
# Secure Boot: a key pair for a user who has none, and apstart.efi on the
# image signed with the user's key (docs/hardware.md, Secure Boot).
# Included from the top-level Makefile after tools/iso.mk.
#
#   make keys [KEYS_DIR=keys]       tools/keys.sh: keys/apstart-mok.{key,crt,der},
#                                   never overwritten (keys/ is outside git)
#   make sign [KEY=... CERT=...]    tools/sign.sh: build/apstart.iso's
#                                   apstart.efi signed in place, its
#                                   certificate beside it; KEY and CERT
#                                   default to the pair make keys made

KEYS_DIR ?= keys
KEY ?= $(wildcard $(KEYS_DIR)/apstart-mok.key)
CERT ?= $(wildcard $(KEYS_DIR)/apstart-mok.crt)
SIGN_DIR := build/sign

.PHONY: keys sign
keys:
	@tools/deps.sh sign
	@tools/keys.sh '$(KEYS_DIR)'

# The image first (iso-deps, $(ISO)): then its apstart.efi is signed.
sign: iso-deps
	@tools/deps.sh sign
	@if [ -z '$(strip $(KEY))' ] || [ -z '$(strip $(CERT))' ]; then \
		echo "make sign: which key? make sign KEY=your.key CERT=your.crt (PEM), or make keys first (keys/)" >&2; \
		exit 2; fi
	@$(MAKE) --no-print-directory $(ISO)
	@tools/sign.sh --key '$(KEY)' --cert '$(CERT)' --efi $(APSTART_EFI) --out $(SIGN_DIR) $(ISO)
