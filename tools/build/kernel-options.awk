# SPDX-License-Identifier: MIT
# The kernel's options, read from the code: every table of struct
# option_row (app/options.c's opt_table, the core's; a wing's own, in
# wings/NAME/) and the keyword tables they name. Prints, per option,
# "opt NAME WORD|WORD..." ("-" for a number or a string), "alias NAME
# LINUX_NAME" for a Linux spelling, "word WORD" for Linux's whole-word
# spellings, and "bad ROW" for a row it cannot read (so a row in a new
# form is never skipped). With -v wing=NAME, only "OPTION:NAME" per option
# (the Makefile's list of a wing's options, for kernels built without it).
#   awk -f tools/build/kernel-options.awk smp/modes.c app/options.c wings/*/*.c
FNR == 1 { intab = 0; inkw = 0; inal = 0 }
/^(static )?const struct keyword [a-z_0-9]+\[\] = \{/ {
	kw = $0; sub(/^.*struct keyword /, "", kw); sub(/\[.*/, "", kw); inkw = 1; next
}
inkw {
	line = $0
	while (match(line, /\{ "[^"]*"/)) { w = substr(line, RSTART + 3, RLENGTH - 4); words[kw] = words[kw] (words[kw] == "" ? "" : "|") w; line = substr(line, RSTART + RLENGTH) }
	if ($0 ~ /^\};/) inkw = 0
	next
}
/struct option_row [a-z_0-9]+\[[0-9]*\] = \{/ { intab = 1; row = ""; next }
intab && /^\};/ { intab = 0; flushrow(); next }
intab {
	t = $0; sub(/^[ \t]+/, "", t)
	if (t ~ /^\/\*/) next
	if (t ~ /^(OPT(_WAKE)?\(|OPTION_(ROW|WIDE)\(|\{)/) flushrow()
	row = row " " t; next
}
/word_aliases\[\] = \{/ { inal = 1; next }
inal && /^\};/ { inal = 0; next }
inal && match($0, /\{ "[^"]*"/) { print "word " substr($0, RSTART + 3, RLENGTH - 4); next }
function flushrow(   name, k, a) {
	if (row == "") return
	if (match(row, /OPT\([a-z_0-9]+,/)) name = substr(row, RSTART + 4, RLENGTH - 5)
	else if (match(row, /OPT_WAKE\([a-z_0-9]+,/)) name = substr(row, RSTART + 9, RLENGTH - 10)
	else if (match(row, /OPTION_(ROW|WIDE)\(struct [a-z_0-9]+, [a-z_0-9]+,/)) {
		name = substr(row, RSTART, RLENGTH - 1); sub(/.*, /, "", name)
	} else if (match(row, /\.name = "[a-z_0-9]+"/)) name = substr(row, RSTART + 9, RLENGTH - 10)
	else { print "bad" row; row = ""; return }
	if (row ~ /\.hidden = true/) { row = ""; return }
	k = "-"
	if (match(row, /\.keywords = [a-z_0-9]+/)) k = "@" substr(row, RSTART + 12, RLENGTH - 12)
	if (match(row, /\.linux_name = "[a-z_0-9]+"/)) print "alias " name " " substr(row, RSTART + 15, RLENGTH - 16)
	opts[++n] = name; kws[n] = k
	row = ""
}
END {
	if (wing != "") {
		for (i = 1; i <= n; i++) printf "%s%s:%s", (i > 1 ? " " : ""), opts[i], wing
		exit
	}
	for (i = 1; i <= n; i++) {
		k = kws[i]
		if (k ~ /^@/) { k = words[substr(k, 2)]; if (k == "") k = "?" }
		n2 = split(k, ws, "|"); k = ""; delete seen
		for (j = 1; j <= n2; j++) if (!(ws[j] in seen)) { seen[ws[j]] = 1; k = k (k == "" ? "" : "|") ws[j] }
		print "opt " opts[i] " " k
	}
}
