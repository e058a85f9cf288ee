# SPDX-License-Identifier: MIT
# The top-level entries of a grub.cfg, as GRUB numbers them for
# GRUB_DEFAULT=N: one line per menuentry or submenu outside any block,
#   INDEX <TAB> menuentry|submenu <TAB> ID <TAB> TITLE
# (ID from --id or $menuentry_id_option, empty when none). The entries of
# a custom.cfg that the file sources (41_custom's snippet) are counted
# where it sources them: -v custom=PATH. Read by apstart (lib/grub.sh) and
# by the GRUB script 90_apstart, which must not put its entries where
# GRUB_DEFAULT points. Shell-like quoting as grub-mkconfig_lib writes it:
# 'It'\''s' is It's. Plain POSIX awk (mawk).

# word(): the next word of S from P on, quotes and backslashes undone.
function word(   c, w) {
	while (P <= length(S) && substr(S, P, 1) ~ /[ \t]/)
		P++
	w = ""
	while (P <= length(S)) {
		c = substr(S, P, 1)
		if (c ~ /[ \t]/)
			break
		if (c == "'") {
			P++
			while (P <= length(S) && substr(S, P, 1) != "'")
				w = w substr(S, P++, 1)
			P++
		} else if (c == "\"") {
			P++
			while (P <= length(S) && substr(S, P, 1) != "\"") {
				if (substr(S, P, 1) == "\\")
					P++
				w = w substr(S, P++, 1)
			}
			P++
		} else if (c == "\\") {
			w = w substr(S, P + 1, 1)
			P += 2
		} else {
			w = w c
			P++
		}
	}
	return w
}

function entry(line, kind,   title, id, w) {
	S = line
	P = 1
	word()                  # the keyword
	title = word()
	while (P <= length(S)) {
		w = word()
		if (w == "{" || w == "")
			break
		if (w == "--id" || w == "$menuentry_id_option" || w == "${menuentry_id_option}")
			id = word()
	}
	printf "%d\t%s\t%s\t%s\n", n++, kind, id, title
}

function one(line,   t) {
	t = line
	sub(/^[ \t]+/, "", t)
	sub(/[ \t]+$/, "", t)
	if (depth == 0 && t ~ /^(menuentry|submenu)[ \t]/)
		entry(t, t ~ /^submenu/ ? "submenu" : "menuentry")
	# 41_custom sources it from one of two places (if/elif): counted once
	if (depth == 0 && t ~ /^source[ \t].*custom\.cfg"?$/ && custom != "" && !custom_read)
		read_custom()
	if (t ~ /\{$/)
		depth++
	else if (t == "}" && depth > 0)
		depth--
}

function read_custom(   l) {
	custom_read = 1
	while ((getline l < custom) > 0)
		one(l)
	close(custom)
}

BEGIN { n = 0; depth = 0 }
{ one($0) }
