# SPDX-License-Identifier: MIT
# The kernel's build knobs, one table (tools/build/knobs.mk): every knob
# stops make on a bad value with its own message; the variants' names;
# and CONTRIBUTING.md's "Adding a knob" walked through in a copy of the
# tree with the recipe's own row: the new knob checks its values, names
# its variant, reaches the compiler of the files that read it and only
# those (the others shared with the plain variant), is in make help and in
# BUILD_VARIANT's reset; the variant built so is the same ELF as built
# whole. Sourced by tests/tools/run.sh (ok/fail, $tmp).

# make's database as tests/tools/run.sh read it ($tmp/db: make -pq).
db=$(<"$tmp/db")
knobs=$(sed -n 's/^KNOBS :\{0,1\}= //p' <<<"$db")
# ---- a bad value: "NAME must be ..., not '@bad'", make stops (exit 2)
bad=
for k in $knobs; do
	out=$(make --no-print-directory -n variant "$k=@bad" 2>&1)
	st=$?
	[ $st = 2 ] && grep -Eq "\*\*\* $k must be [^*]+, not '@bad'\.  Stop\.$" <<<"$out" || bad="$bad $k (exit $st: $(tail -n 1 <<<"$out"))"
done
out=$(make --no-print-directory -n variant PAD_INSNS=3 2>&1)
grep -q 'PAD_INSNS=3 needs PAD_AT=real|prot|long|park' <<<"$out" || bad="$bad PAD_INSNS without PAD_AT ($out)"
if [ -z "$bad" ] && [ "$(wc -w <<<"$knobs")" -ge 10 ]; then
	ok "every knob of tools/build/knobs.mk stops make on a bad value with its message ($(wc -w <<<"$knobs") knobs)"
else
	fail "every knob of tools/build/knobs.mk stops make on a bad value with its message" "${bad:-only: $knobs}"
fi

# ---- the variants' names (docs/building.md, tests/timing, make ab use them)
# Every wing, in another order than ALL_WINGS: still the default variant.
all_wings=$(sed -n 's/^ALL_WINGS := //p' <<<"$db" | tr ' ' '\n' | tac | xargs)
names=("|wbinvd0" "WBINVD=1|wbinvd1" "ARCH=i386 WBINVD=1 SLOW_TRAMP_NS=2000|i386-wbinvd1-slow2000"
	"SLOW_PARK_NS=2000|wbinvd0-slowpark2000" "PAD_INSNS=5 PAD_AT=park|wbinvd0-padpark5"
	"PAD_REAL=1 PAD_PROT=10 PAD_LONG=100 PAD_PARK=1|wbinvd0-padreal1-padprot10-padlong100-padpark1"
	"MARKS=0 MAX_CPUS=4|wbinvd0-nomarks-max4" "WINGS=|wbinvd0-core" "WINGS=pstore screen kept|wbinvd0-wings-pstore+screen+kept"
	"WINGS=$all_wings|wbinvd0")
# variant_name MAKE-ARGS...: the VARIANT make computes for them, read
# with a goal of its own (no build, and not the plain variant's make that
# a kernel goal runs first for a variant sharing its objects).
variant_name() {
	# shellcheck disable=SC2016 # $(VARIANT) is make's, expanded by make
	make --no-print-directory -s "$@" --eval='tools-test-variant-name: ; @echo $(VARIANT)' tools-test-variant-name 2>/dev/null
}
wrong=
for n in "${names[@]}"; do
	IFS='|' read -r vars want <<<"$n"
	read -ra args <<<"$vars"
	case $vars in WINGS=*) args=("$vars") ;; esac
	got=$(variant_name "${args[@]}")
	[ "$got" = "$want" ] || wrong="$wrong [$vars: $got, not $want]"
done
if [ -z "$wrong" ]; then
	ok "the variants' folders are named as before (${#names[@]} cases)"
else
	fail "the variants' folders are named as before" "$wrong"
fi

# ---- CONTRIBUTING.md's "Adding a knob", with its own row, in a copy
tree=$tmp/knob-tree
mkdir -p "$tree"
{ git ls-files --cached --others --exclude-standard 2>/dev/null || find . -path ./build -prune -o -type f -print; } |
	grep -v '^build/' | tar -cf - -T - | tar -xf - -C "$tree"
# The font tool and font as they are here (their times kept: not rebuilt).
mkdir -p "$tree/build/host" && cp -a build/gen "$tree/build/" 2>/dev/null && cp -a build/host/mkfont build/host/mkfont.vars "$tree/build/host/" 2>/dev/null
recipe=$(sed -n '/^## Adding a knob/,/^## /p' CONTRIBUTING.md)
rows=$(grep -E '^ {4,}(\$\(call knob,|KNOB_DOC\.)' <<<"$recipe" | sed 's/^ *//')
name=$(sed -n 's/^\$(call knob,\([A-Z0-9_]*\),.*/\1/p' <<<"$rows")
define=$(awk -F, '/^\$\(call knob,/ { gsub(/ /, "", $6); print $6 }' <<<"$rows")
step() { # NAME WHY [DETAILS]: the recipe's step failed
	fail "CONTRIBUTING.md's knob recipe: $1" "$2" "${3:-}"
	recipe_ok=0
}
recipe_ok=1
if [ -z "$name" ] || [ -z "$define" ] || ! grep -q "^KNOB_DOC\.$name = " <<<"$rows"; then
	step "its row" "no row and KNOB_DOC line found under '## Adding a knob'" "$rows"
else
	# 1. the row, where the table ends
	awk -v rows="$rows" '/^VARIANT := / && !done { print rows; print ""; done = 1 } { print }' \
		tools/build/knobs.mk >"$tree/tools/build/knobs.mk"
	# 2. a file that reads it: the first of the core's C files
	mk() { make --no-print-directory -C "$tree" "$@"; }
	treedb=$(mk -pq WINGS= 2>/dev/null)
	reader=$(sed -n 's/^KERNEL_C := //p' <<<"$treedb" | awk '{ print $1 }')
	printf '%s\n' "#define PLANTED_STR2(x) #x" "#define PLANTED_STR(x) PLANTED_STR2(x)" \
		"const char apstart_planted_knob[] = \"planted-knob=\" PLANTED_STR($define);" >>"$tree/$reader"
	# 3. make NAME=x stops; make NAME=7 builds, the reader alone compiled
	out=$(mk -n variant WINGS= "$name=x" 2>&1)
	grep -q "$name must be .*, not 'x'" <<<"$out" || step "a bad value stops make" "$name=x: $(tail -n 1 <<<"$out")"
	plain=$(sed -n 's/^VARIANT := //p' <<<"$treedb")
	variant=$(variant_name -C "$tree" WINGS= "$name=7")
	[ -n "$variant" ] && [ "$variant" != "$plain" ] || step "the variant's name" "$name=7 builds in build/$variant/, the plain one in build/$plain/"
	if ! mk variant WINGS= "$name=7" >"$tmp/knob-build" 2>&1; then
		step "make $name=7 builds" "it failed" "$(tail -n 8 "$tmp/knob-build")"
	else
		own=$(grep -c "^  CC      build/$variant/" "$tmp/knob-build")
		strings "$tree/build/$variant/${reader%.c}.o" 2>/dev/null | grep -x 'planted-knob=7' >/dev/null &&
			strings "$tree/build/$plain/${reader%.c}.o" 2>/dev/null | grep -x 'planted-knob=0' >/dev/null ||
			step "the value reaches the compiler" "$reader's object in build/$variant/ lacks planted-knob=7 (or build/$plain/'s planted-knob=0)"
		[ "$own" = 1 ] || step "only the file that reads it is compiled again" "$own C files compiled in build/$variant/" \
			"$(grep "CC      build/$variant/" "$tmp/knob-build" | head -n 5)"
		# the same variant built whole, in a folder of its own: the same
		# ELF. The folder is make ab's side A, which was the plain variant
		# (a copy of build/$plain/, as tests/tools/refusals.sh seeds its
		# sides; B the same, not rebuilt): asked for $name=7 it must be
		# rebuilt whole, which checks that make ab's build follows its
		# variables too. QEMU refuses to start (SMP=1000): no boot. aplog
		# as built here (its times kept: not rebuilt).
		whole=build/tools-ab/build-a
		mkdir -p "$tree/build/host" && cp -a build/host/aplog build/host/aplog-obj build/host/aplog.vars "$tree/build/host/" 2>/dev/null
		(cd "$tree" && seed_side "$whole" "build/$plain" && seed_side build/tools-ab/build-b "build/$plain")
		mk ab RUNS=1 ACCEL=tcg AB_OUT=build/tools-ab ARGS=cycles=1 "AB_A=WINGS= $name=7" "AB_B=WINGS=" SMP=1000 \
			>"$tmp/knob-whole" 2>&1 </dev/null
		if strings "$tree/$whole/${reader%.c}.o" 2>/dev/null | grep -x "planted-knob=7" >/dev/null &&
			grep -q '^ab: 2 of 2 runs failed' "$tmp/knob-whole"; then
			ok "make ab, side A the plain variant, then AB_A='WINGS= $name=7': build-a rebuilt with $name=7"
		else
			fail "make ab, side A the plain variant, then AB_A='WINGS= $name=7': build-a rebuilt with $name=7" \
				"$whole/${reader%.c}.o lacks planted-knob=7 (or a side's build failed)" "$(tail -n 3 "$tmp/knob-whole")"
		fi
		cmp -s "$tree/$whole/apstart.elf" "$tree/build/$variant/apstart.elf" ||
			step "built with the plain variant's objects = built whole" \
				"build/$variant/apstart.elf and $whole/apstart.elf differ (or the whole build failed)" "$(tail -n 3 "$tmp/knob-whole")"
	fi
	mk help 2>/dev/null | grep "^  $name=N  .*(default 0)" >/dev/null || step "make help lists it" "no '  $name=N ... (default 0)' line"
	grep "^KNOB_DEFAULTS := .* $name='0'" <<<"$treedb" >/dev/null || step "BUILD_VARIANT resets it" "KNOB_DEFAULTS lacks $name='0'"
	[ $recipe_ok = 1 ] && ok "CONTRIBUTING.md's knob recipe: $name added by its row alone: checked, named (build/$variant/), in $reader's object (and only it compiled again), make help, BUILD_VARIANT; the same ELF as built whole"
fi

# ---- which files read a knob (tools/build/knob-readers.sh): through a
# header's macro, only the files that use the macro; a header's default
# for the knob (#ifndef K / #define K 0) makes no includer a reader; a
# header that uses the knob outside a macro makes every includer one;
# an #ifndef K that is not a default is a use.
kr=$tmp/knob-readers
mkdir -p "$kr/tools/build"
cp tools/build/knob-readers.sh "$kr/tools/build/"
printf '%s\n' '#ifndef K' '#define K 0' '#endif' '#define POINT() do { if (K) x(); } while (0)' \
	'#define POINT2() \' '	POINT()' '#define OTHER() y()' >"$kr/h.h"
printf '%s\n' '#include "h.h"' 'void a(void) { POINT2(); }' >"$kr/uses.c"
printf '%s\n' '#include "h.h"' 'void b(void) { OTHER(); }' >"$kr/other.c"
printf '%s\n' '#include "h.h"' 'static inline int f(void) { return K; }' >"$kr/inl.h"
printf '%s\n' '#include "inl.h"' 'int c(void) { return 1; }' >"$kr/inl_user.c"
printf '%s\n' '#ifndef K' 'int z;' '#endif' >"$kr/ifndef.c"
got=$("$kr/tools/build/knob-readers.sh" K uses.c other.c inl_user.c ifndef.c | xargs)
if [ "$got" = "uses.c inl_user.c ifndef.c" ]; then
	ok "knob-readers.sh: a knob read through a header's macro is read where the macro is used, not by every includer"
else
	fail "knob-readers.sh: a knob read through a header's macro is read where the macro is used" \
		"readers of K: '$got', want 'uses.c inl_user.c ifndef.c'"
fi
