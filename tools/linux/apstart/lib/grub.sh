# shellcheck shell=bash
# SPDX-License-Identifier: MIT
# apstart (Linux side): GRUB as this machine's boot loader: update-grub,
# the menu and its entries (grub-menu.awk reads grub.cfg as GRUB numbers
# it), the entry GRUB boots by default, and grubenv's one-shot (next_entry,
# apstart_options) armed and taken back.

update_grub() {
	need_tool update-grub grub2-common "it writes /boot/grub/grub.cfg"
	say "running update-grub (regenerates /boot/grub/grub.cfg with the new command line and apstart's entries)"
	local out
	if ! out=$(update-grub 2>&1); then
		printf '%s\n' "$out" | tail -n 8 | sed 's/^/  | /' >&2
		return 1
	fi
	printf '%s\n' "$out" | grep -i apstart | sed 's/^/  | /'
	return 0
}

# grub_menu: grub.cfg's top-level entries, "INDEX<TAB>KIND<TAB>ID<TAB>TITLE".
grub_menu() {
	[ -f "$P_GRUB_CFG" ] || return 0
	awk -f "$APSTART_LIBDIR/grub-menu.awk" -v custom="$P_BOOT/grub/custom.cfg" "$P_GRUB_CFG"
}

# grub_entry_ids: the apstart menu entries' ids in grub.cfg.
grub_entry_ids() {
	sed -n "s/^menuentry .* --id \(apstart-[a-z0-9-]*\) .*/\1/p" "$P_GRUB_CFG" 2>/dev/null
}

# grub_entry_line ID: the multiboot2 line of that menu entry in grub.cfg.
grub_entry_line() {
	sed -n "/^menuentry .* --id $1 /,/^}/p" "$P_GRUB_CFG" 2>/dev/null | grep -m1 'multiboot2'
}

# grub_setting NAME: its last value in /etc/default/grub and grub.d/*.cfg
# (the order grub-mkconfig reads them), quotes off; read, not sourced
# (by the shell: it was four processes, and setup and run ask often).
grub_setting() {
	local f line v found=
	for f in "$P_DEFAULT_GRUB" "$P_GRUB_D_CFG"/*.cfg; do
		[ -f "$f" ] || continue
		while IFS= read -r line || [ -n "$line" ]; do
			[[ $line == "$1="* ]] && v=${line#"$1="} found=1
		done 2>/dev/null <"$f"
	done
	[ -n "$found" ] || return 0
	[[ $v =~ ^[\"\'](.*)[\"\']$ ]] && v=${BASH_REMATCH[1]}
	printf '%s\n' "$v"
}

# grub_disabled: GRUB_DISABLE_APSTART=true.
grub_disabled() { [ "$(grub_setting GRUB_DISABLE_APSTART)" = true ]; }

# grubenv_value KEY: a value in GRUB's environment block.
grubenv_value() { sed -n "s/^$1=//p" "$P_GRUBENV" 2>/dev/null | tail -n 1; }

# is_apstart_entry ID TITLE: one of the entries 90_apstart writes.
is_apstart_entry() { [[ $1 == apstart-* ]] || [[ $2 == "apstart: "* ]]; }

# grub_default_clash: GRUB's default entry (GRUB_DEFAULT, saved_entry for
# "saved", the first part of "N>M"; 0 when empty or naming nothing, as
# GRUB takes it) is one of apstart's, or would be once 90_apstart has
# written them (grub.cfg without them yet: they come after every other
# entry). Prints one line saying so, status 0; status 1 when it is not.
grub_default_clash() {
	local d from first menu line idx kind id title n ours w
	grub_disabled && return 1 # 90_apstart writes none
	d=$(grub_setting GRUB_DEFAULT)
	from="GRUB_DEFAULT=${d:-0} ($P_DEFAULT_GRUB)"
	if [ "$d" = saved ]; then
		d=$(grubenv_value saved_entry)
		from="GRUB_DEFAULT=saved, and saved_entry=${d:-0} in $P_GRUBENV (grub-set-default)"
	fi
	first=${d%%>*}
	[ -n "$first" ] || first=0
	menu=$(grub_menu)
	if [[ $first =~ ^[0-9]+$ ]]; then
		line=$(awk -F '\t' -v n="$first" '$1 == n' <<<"$menu")
	else
		line=$(awk -F '\t' -v d="$first" '$3 == d || $4 == d' <<<"$menu" | head -n 1)
	fi
	if [ -n "$line" ]; then
		IFS=$'\t' read -r idx kind id title <<<"$line"
		is_apstart_entry "$id" "$title" || return 1
		echo "$from boots entry $idx of grub.cfg, '$title' (--id $id)"
		return 0
	fi
	# not in grub.cfg: by name, apstart's own; by number, past the last
	# entry, where apstart's come when grub.cfg has none of them yet
	if ! [[ $first =~ ^[0-9]+$ ]]; then
		is_apstart_entry "$first" "$first" || return 1
		echo "$from names an apstart entry"
		return 0
	fi
	[ -n "$(grub_entry_ids)" ] && return 1
	n=$(grep -c . <<<"$menu")
	ours=0
	for w in 0 1; do [ -f "$P_BOOT/apstart-wbinvd$w.elf" ] && ours=$((ours + 1)); done
	[ "$(grub_setting GRUB_APSTART_DISABLE_SERIAL)" = true ] || ours=$((ours * 2))
	[ "$first" -lt $((n + ours)) ] || return 1
	echo "$from is past grub.cfg's $n entries (GRUB boots entry 0 for it now): apstart's entries, which come next, would be entry $first"
	return 0
}

# refuse_grub_default_clash: before GRUB's menu is touched.
refuse_grub_default_clash() {
	local why
	why=$(grub_default_clash) || return 0
	refuse "$why: every boot would start apstart's kernel and leave the machine halted there" \
		"Set GRUB_DEFAULT in $P_DEFAULT_GRUB to the entry you boot, by its id (grep menuentry /boot/grub/grub.cfg:" \
		"e.g. gnulinux-simple-...), run update-grub, then this again. (90_apstart writes no entries while this is so.)"
}

# disarm_one_shot: a run through GRUB taken back: grubenv's next_entry
# when it names an apstart entry (the next boot would start it), and the
# run's options. Prints what it did; status 1 when grubenv could not be
# written.
disarm_one_shot() {
	[ -f "$P_GRUBENV" ] && command -v grub-editenv >/dev/null 2>&1 || return 0
	local next st=0
	next=$(grubenv_value next_entry)
	if [[ $next == apstart-* ]]; then
		if grub-editenv "$P_GRUBENV" unset next_entry 2>/dev/null && [ -z "$(grubenv_value next_entry)" ]; then
			say "grubenv: next_entry=$next unset (the next boot starts the default entry, not apstart)"
		else
			warn "grub-editenv unset next_entry failed: the next boot starts $next"
			st=1
		fi
	fi
	if grep -q '^apstart_options=' "$P_GRUBENV" 2>/dev/null; then
		if grub-editenv "$P_GRUBENV" unset apstart_options 2>/dev/null && ! grep -q '^apstart_options=' "$P_GRUBENV"; then
			say "grubenv: apstart_options unset"
		else
			warn "grub-editenv unset apstart_options failed"
			st=1
		fi
	fi
	return $st
}
