# SPDX-License-Identifier: MIT
# make docs-tests: the README front page and docs/ cannot drift
# (tests/docs/run.sh: links, contents, every example of output made by its
# command, the lists of options, commands and lanes complete, and the
# front page's commands run as printed). make docs: rewrite the examples
# of output from their commands (tests/docs/blocks.sh --update), after a
# change to a program's output. Both need aplog and screentext (the text
# of the committed screenshots, tools/image/iso.mk). Included from the top-level
# Makefile.

.PHONY: docs-tests docs
docs-tests: aplog build/host/screentext $(APREALMODE) build/host/lrm_mkfixture
	@timeout 900 tests/docs/run.sh

docs: aplog build/host/screentext $(APREALMODE) build/host/lrm_mkfixture
	@tests/docs/blocks.sh --update
