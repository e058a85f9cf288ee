# SPDX-License-Identifier: MIT
# make docs-tests: the README front page and docs/ cannot drift
# (tests/docs/run.sh: links, contents, package lines, and the front
# page's commands run as printed). Included from the top-level Makefile.

.PHONY: docs-tests
docs-tests: aplog
	@timeout 900 tests/docs/run.sh
