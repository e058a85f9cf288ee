# SPDX-License-Identifier: MIT
# What the screen shows, checked from screendumps (sourced by
# tests/iso/run.sh): the status line mid-run, the result page, and the QR
# code page, whose code must decode (zbarimg) to the run's serial records
# and read back with aplog verify as the run it came from.
#
#   screen_script DIR          the iso-run.sh --screen-script for a boot
#   screen_script_end DIR      the same from the result page on
#   screen_checks LOG FW DIR   prints one line per problem; status 1 if any
#
# The header's first row is checked by value: the bring-up mode the run
# used, serial by default (the test image's entry), broadcast and a
# refused broadcast's fallback, parallel, in the end boots of run.sh.
#
# LOG is the boot's serial log (CRs removed), FW bios|uefi, DIR holds
# progress.ppm, result.ppm and qr.ppm; the text read off each goes next to
# it (.txt), the decoded QR code to qr.decoded.

SCREENTEXT=${SCREENTEXT:-build/host/screentext}

screen_script() { # DIR
	cat <<SCRIPT
wait ^@sample cpu=2 .*cycle=5 op=online
screendump $1/progress.ppm
screendump $1/progress2.ppm
SCRIPT
	screen_script_end "$1"
}

# The end screens: the result page, then after a key the QR code.
screen_script_end() { # DIR
	cat <<SCRIPT
wait ^screen: result page
screendump $1/result.ppm
sendkey spc
wait ^screen: QR code page
screendump $1/qr.ppm
SCRIPT
}

# fmt_duration of lib/format.c, for the figures the page must show:
# an awk function, and a shell function around it.
DURATION_AWK='function duration(ns) {
	if (ns >= 999995000) return fixed(ns, 1000000000, 2, "s")
	if (ns >= 999950) return fixed(ns, 1000000, 2, "ms")
	if (ns >= 1000) return fixed(ns, 1000, 1, "us")
	return sprintf("%d ns", ns)
}
function fixed(ns, unit, dec, name,   scale, v) {
	scale = dec == 1 ? 10 : 100
	v = int(ns / unit) * scale + int(((ns % unit) * scale + int(unit / 2)) / unit)
	return sprintf(dec == 1 ? "%d.%01d %s" : "%d.%02d %s", int(v / scale), v % scale, name)
}'
duration() { # NS
	awk -v ns="$1" "$DURATION_AWK"' BEGIN { print duration(ns) }'
}

summary_total() { # LOG OP [PREFIX]: @summary op=OP's PREFIXtotal_ns
	sed -n "s/^@summary op=$2 .* ${3:-}total_ns=\([0-9]*\)\( .*\)\{0,1\}\$/\1/p" "$1" | head -n 1
}

screen_checks() { # LOG FW DIR
	local log=$1 fw=$2 dir=$3 bad=0 f t
	local cpus=4 cycles fwname=BIOS
	[ "$fw" = uefi ] && fwname=UEFI
	cycles=$(sed -n 's/^@boot .* cycles=\([0-9]*\) .*/\1/p' "$log" | head -n 1)
	for f in progress progress2 result qr; do
		if [ ! -s "$dir/$f.ppm" ]; then
			echo "no $f.ppm"; bad=1; continue
		fi
		"$SCREENTEXT" "$dir/$f.ppm" >"$dir/$f.txt" 2>&1 || { echo "screentext $f.ppm: $(tail -n 1 "$dir/$f.txt")"; bad=1; }
	done
	[ $bad = 0 ] || return 1
	# Mid-run: header, status line short of the end, no machine records.
	t=$dir/progress.txt
	header_row1 "$t" serial
	has "$t" "  $cpus CPUs  $cycles cycles  $fwname via GRUB [^ ]+\$" "header row 2"
	# The status line: a screendump can catch a redraw half done, so a
	# second one follows at once; one of the two must show it whole.
	local status why2= s2
	for s2 in progress progress2; do
		status=$(tail -n 1 "$dir/$s2.txt" 2>/dev/null)
		if [[ $status =~ ^\ cycles\ \ CPU\ ([0-9]+)\ of\ 3\ \ cycle\ ([0-9]+)\ of\ $cycles\ \ \ elapsed\ [0-9]+:[0-9]{2}\ \ \ left\ ~[0-9]+:[0-9]{2}$ ]]; then
			if [ "${BASH_REMATCH[1]}" = 3 ] && [ "${BASH_REMATCH[2]}" = "$cycles" ]; then
				why2="progress: the status line shows the end, not mid-run: '$status'"
			else
				why2=
			fi
			break
		fi
		why2="progress: last row is not the cycles status line: '$status'"
	done
	[ -z "$why2" ] || { echo "$why2"; bad=1; }
	grep -q '@' "$t" && { echo "progress: a machine record on the screen: $(grep -m1 '@' "$t")"; bad=1; }
	# The result page: the verdict and the reference's three rows, in the
	# serial @summary's figures, one row per AP, no warnings.
	t=$dir/result.txt
	local off on
	# Offline is the settled figure (request -> the AP parked) when every
	# AP gave one, as serial's totals say; else the BSP's.
	local settled=
	off=$(summary_total "$log" offline settled_) on=$(summary_total "$log" online)
	if [ -n "$off" ]; then
		settled="  \(until settled\)"
	else
		off=$(summary_total "$log" offline)
	fi
	if [ -z "$off" ] || [ -z "$on" ]; then
		echo "serial log has no @summary totals"; bad=1
	else
		has "$t" "^ PASS  3 APs x $cycles cycles, every cycle completed\$" "verdict"
		has "$t" "^ Offline: +$(duration "$off")   per AP: median [^ ]+ [a-z]+, max [^ ]+ [a-z]+$settled\$" "Offline row = @summary offline ${settled:+settled_}total_ns $off"
		has "$t" "^ Online: +$(duration "$on")   per AP: median " "Online row = @summary online total_ns $on"
		has "$t" "^ Total: +$(duration $((off + on)))\$" "Total row"
	fi
	local apic
	for apic in 1 2 3; do
		has "$t" "^ +$apic +$apic +[0-9.]+ (ns|us|ms|s) " "table row for apic $apic"
	done
	has "$t" "^ Warnings and failures: none\$" "empty warnings block"
	has "$t" "^ Next page: these results as a QR code" "footer"
	grep -q '@' "$t" && { echo "result: a machine record on the screen: $(grep -m1 '@' "$t")"; bad=1; }
	qr_checks "$log" "$dir" $cpus "$cycles" || bad=1
	return $bad
}

# The header's first row, with the bring-up mode it must show.
header_row1() { # FILE BRINGUP
	has "$1" "^ apstart [^ ]+  WBINVD=0 \(patched\)  park=linux  bring-up=$2\$" "header row 1 with bring-up=$2"
}

has() { # FILE REGEX WHAT: a line of the screen's text matches, else say so (bad=1)
	grep -Eq -- "$2" "$1" || { echo "$(basename "$1" .txt): no $3 (/$2/)"; bad=1; }
}

# The QR code page: decoded, the code is serial's records in serial's
# order, with the @cpusum records of the slowest APs (online median) as
# the caption says, and reads back (aplog verify) as the run.
qr_checks() { # LOG DIR CPUS CYCLES
	local log=$1 dir=$2 cpus=$3 cycles=$4 bad=0
	local dec=$dir/qr.decoded
	if ! zbarimg -q --raw "$dir/qr.ppm" >"$dec" 2>"$dir/zbarimg.err"; then
		echo "zbarimg decoded no QR code in qr.ppm: $(tail -n 1 "$dir/zbarimg.err")"; bad=1
		return 1
	fi
	sed -i '${/^$/d}' "$dec" # --raw adds a newline after the data
	local w
	grep '^@' "$log" | grep -Ev '^@(sample|cpu) ' >"$dir/serial.records"
	awk 'NR == FNR { want[++n] = $0; next }
	     { while (i < n && want[i + 1] != $0) i++
	       if (i == n) { print "qr line not in the serial records (in order): " $0; bad = 1; exit }
	       i++ }
	     END { exit bad }' "$dir/serial.records" "$dec" || bad=1
	for w in @boot @env '@summary op=offline' '@summary op=online' @end; do
		grep -q "^$w " "$dec" || { echo "qr: no $w record"; bad=1; }
	done
	local n aps=$((cpus - 1))
	n=$(grep -c '^@cpusum ' "$dec")
	has "$dir/qr.txt" " $n of $aps per-CPU\$" "caption's $n of $aps per-CPU summaries"
	# Which ones: the slowest online medians (ties in serial's order).
	local want got
	want=$(grep '^@cpusum ' "$log" | sed 's/.* apic=\([0-9]*\) .* online_median_ns=\([0-9]*\) .*/\1 \2/' |
		sort -s -k2,2nr | head -n "$n" | cut -d' ' -f1 | sort -n | paste -sd,)
	got=$(sed -n 's/^@cpusum .* apic=\([0-9]*\) .*/\1/p' "$dec" | sort -n | paste -sd,)
	[ "$n" -ge 1 ] && [ "$got" = "$want" ] ||
		{ echo "qr: @cpusum for APs (APIC IDs) $got, want the $n slowest online: $want"; bad=1; }
	local v
	v=$("${APLOG:-build/host/aplog}" verify --cpus $cpus --cycles "$cycles" "$dec" 2>&1) ||
		{ echo "aplog verify of the scanned text: $(grep -v '^FAIL' <<<"$v" | head -n 2 | paste -sd';')"; bad=1; }
	has "$dir/qr.txt" "apstart records" "caption"
	has "$dir/qr.txt" "$(wc -l <"$dec") lines, $(wc -c <"$dec") bytes" "caption's size of the payload"
	return $bad
}

# The rows the page must show, computed from serial's @cpusum records:
# per socket and SMT thread the APs, the median of their online medians
# (lib/stats.c's median: the mean of the two middle ones, rounded
# down) and the largest, the same for offline; then the five slowest APs.
# Many APs: the result page of a run whose APs do not fit one row each
# (tests/iso/run.sh boots SeaBIOS at -smp 16, 2 sockets x 4 cores x 2
# threads, whose APIC IDs QEMU numbers socket << 3 | core << 1 | thread).
many_expected() { # LOG PACKAGE_SHIFT SMT_BITS
	sed -n 's/^@cpusum .* apic=\([0-9]*\) .* online_median_ns=\([0-9]*\) .* offline_median_ns=\([0-9]*\) .*/\1 \2 \3/p' "$1" |
		awk -v ps="$2" -v sb="$3" "$DURATION_AWK"'
		function median(list,   v, n, i, j, t) {
			n = split(list, v, " ")
			for (i = 2; i <= n; i++)
				for (j = i; j > 1 && v[j - 1] + 0 > v[j] + 0; j--) { t = v[j]; v[j] = v[j - 1]; v[j - 1] = t }
			if (n % 2) return v[(n + 1) / 2]
			return v[n / 2] + int((v[n / 2 + 1] - v[n / 2]) / 2)
		}
		{
			g = sprintf("%6d %6d", int($1 / 2 ^ ps), $1 % 2 ^ sb)
			if (!(g in count)) keys[++ng] = g
			count[g]++; on[g] = on[g] " " $2; off[g] = off[g] " " $3
			if ($2 > onmax[g]) onmax[g] = $2
			if ($3 > offmax[g]) offmax[g] = $3
		}
		END {
			for (i = 1; i <= ng; i++)
				printf " %s %5d %15s %10s %16s %10s\n", keys[i], count[keys[i]],
					duration(median(on[keys[i]])), duration(onmax[keys[i]]),
					duration(median(off[keys[i]])), duration(offmax[keys[i]])
		}' | sort -k1,1n -k2,2n
}
many_slowest() { # LOG: "apic 10 2.08 ms, apic 3 2.02 ms, ..." (online medians)
	sed -n 's/^@cpusum .* apic=\([0-9]*\) .* online_median_ns=\([0-9]*\) .*/\1 \2/p' "$1" |
		sort -s -k2,2nr | head -n 5 |
		awk "$DURATION_AWK"' { s = s (NR > 1 ? ", " : "") "apic " $1 " " duration($2) } END { print s }'
}

screen_checks_many() { # LOG DIR CPUS CYCLES PACKAGE_SHIFT SMT_BITS BRINGUP
	local log=$1 dir=$2 cpus=$3 cycles=$4 bad=0 f t=$2/result.txt
	for f in result qr; do
		"$SCREENTEXT" "$dir/$f.ppm" >"$dir/$f.txt" 2>&1 ||
			{ echo "screentext $f.ppm: $(tail -n 1 "$dir/$f.txt")"; return 1; }
	done
	header_row1 "$t" "$7"
	has "$t" "^ PASS  $((cpus - 1)) APs x $cycles cycles, every cycle completed\$" "verdict"
	has "$t" "^ $((cpus - 1)) APs by socket and SMT thread" "per-socket summary's title"
	# Exactly the expected group rows, in order, between the column
	# heads and the slowest APs.
	local want got
	want=$(many_expected "$log" "$5" "$6")
	got=$(sed -n '/^ socket thread   APs /,/^ Slowest online/p' "$t" | sed '1d;$d')
	[ -n "$want" ] && [ "$got" = "$want" ] ||
		{ echo "result: group rows"; diff <(echo "$want") <(echo "$got") | sed -n 's/^\([<>]\)/  \1/p'; bad=1; }
	# The slowest APs, their line wrapped at the screen's edge.
	want=$(many_slowest "$log")
	got=$(sed -n '/^ Slowest online (median):/,/^$/p' "$t" | sed 's/^ Slowest online (median)://' |
		tr -s ' \n' '  ' | sed 's/^ //;s/ $//')
	[ "$got" = "$want" ] || { echo "result: slowest APs '$got', want '$want'"; bad=1; }
	has "$t" "^ Warnings and failures: none\$" "empty warnings block"
	grep -q '@' "$t" && { echo "result: a machine record on the screen: $(grep -m1 '@' "$t")"; bad=1; }
	qr_checks "$log" "$dir" "$cpus" "$cycles" || bad=1
	return $bad
}

# block_has FILE RECORDS: the warnings block shows each @warn/@fail record
# word for word, without the '@'.
block_has() {
	local t=$1 r kind line bad=0
	while IFS= read -r r; do
		kind=FAIL
		[ "${r:1:4}" = warn ] && kind=warn
		line="   $kind ${r#@* }"
		line=${line:0:80} # cut at the 80x25 screen's edge, trailing blanks not read
		line=${line%"${line##*[! ]}"}
		grep -Fxq -- "$line" "$t" || { echo "result: no line '$line' for serial's $r"; bad=1; }
	done <<<"$2"
	return $bad
}

# A run that passed with warnings (bad options): the verdict line says
# PASS and how many warnings, and the block shows each @warn record.
screen_checks_warn() { # LOG DIR CPUS CYCLES WARNINGS
	local log=$1 dir=$2 cpus=$3 cycles=$4 n=$5 bad=0 t=$2/result.txt recs
	"$SCREENTEXT" "$dir/result.ppm" >"$t" 2>&1 || { echo "screentext result.ppm: $(tail -n 1 "$t")"; return 1; }
	recs=$(grep -E '^@warn ' "$log")
	[ "$(grep -c . <<<"$recs")" = "$n" ] || { echo "serial log has not $n @warn records: $recs"; return 1; }
	has "$t" "^ PASS  $((cpus - 1)) APs x $cycles cycles, every cycle completed; $n warnings \(below\)\$" \
		"PASS verdict with its $n warnings"
	has "$t" "^ Warnings and failures: $n records\$" "warnings block title ($n records)"
	block_has "$t" "$recs" || bad=1
	return $bad
}

# A failed run (the first AP never answers): the verdict says FAIL, the
# APs that did come online have their rows, and the warnings block shows
# serial's @fail and @warn records word for word, without the '@'.
screen_checks_fail() { # LOG DIR CPUS CYCLES BRINGUP
	local log=$1 dir=$2 cpus=$3 cycles=$4 bad=0 t=$2/result.txt
	"$SCREENTEXT" "$dir/result.ppm" >"$t" 2>&1 || { echo "screentext result.ppm: $(tail -n 1 "$t")"; return 1; }
	header_row1 "$t" "$5"
	has "$t" "^ FAIL  $((cpus - 1)) APs x $cycles cycles, some APs did not complete their cycles\$" "FAIL verdict"
	local recs n
	recs=$(grep -E '^@(fail|warn) ' "$log")
	n=$(grep -c . <<<"$recs")
	[ "$n" -ge 1 ] || { echo "serial log has no @fail record"; return 1; }
	grep -q '^@warn what=option ' <<<"$recs" || { echo "serial log has no @warn what=option record"; return 1; }
	has "$t" "^ Warnings and failures: $n records?\$" "warnings block title ($n records)"
	has "$t" "^   1 AP did not complete $cycles cycles\$" "incomplete APs line"
	block_has "$t" "$recs" || bad=1
	local apic
	for apic in 2 3; do
		has "$t" "^ +$apic +$apic +[0-9.]+ (ns|us|ms|s) " "table row for apic $apic"
	done
	grep -Eq '^ +1 +1 +[0-9.]+ (ns|us|ms|s) ' "$t" && { echo "result: a table row for apic 1, which never came online"; bad=1; }
	grep -q '@' "$t" && { echo "result: a machine record on the screen: $(grep -m1 '@' "$t")"; bad=1; }
	return $bad
}
