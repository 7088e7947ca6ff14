#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
# SPDX-FileCopyrightText: 2026 The ivring authors
#
# CTF recordings read back by the real reader: `ivring-read record --ctf`
# writes a trace, Debian's babeltrace2 prints it, and every event must show
# the same fields with the same values as libivring decodes from the same
# stopped segment (ctf_gen dump), event by event:
#
#   - every native format (6.1, 6.1-rt, 6.12 texts), random field values;
#   - a segment that lapped its reader in overwrite mode: babeltrace2's
#     "discarded N events" per stream must add up to the events lost on
#     that CPU;
#   - records that lie (selftests/ctf_gen.c hostile), also recorded by the
#     ASan build, which must stay silent;
#   - the metadata that Trace Compass keys on, distinct UUIDs per
#     recording, and a directory that is not empty refused.
#
# Needs $IVRING_TOOLS/ivring-read, ivring-gen, $IVRING_CTF_GEN and
# babeltrace2.  Exit: 0 pass, 1 fail, 4 skip (kselftest).

here=$(cd "$(dirname "$0")" && pwd)
tools=${IVRING_TOOLS:-$here/../build/plain/tools}
read_bin=$tools/ivring-read
gen_bin=$tools/ivring-gen
ctf_gen=${IVRING_CTF_GEN:-$here/../build/plain/helpers/ctf_gen}
asan_read=${IVRING_ASAN_TOOLS:+$IVRING_ASAN_TOOLS/ivring-read}

for b in "$read_bin" "$gen_bin" "$ctf_gen"; do
	if [ ! -x "$b" ]; then
		echo "# SKIP: no $b; run make check"
		exit 4
	fi
done
if ! command -v babeltrace2 >/dev/null; then
	echo "# SKIP: no babeltrace2 (Debian package babeltrace2)"
	exit 4
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/ivring-ctf.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' INT TERM

. "$here/tap.sh"

# babeltrace2's text, "[cycles] host sys:name: { cpu_id = N }, { f = v, ... }",
# into ctf_gen dump's "ts cpu sys:name f=v ...".  The generated strings are
# alphanumeric, so ", " and brackets only ever separate fields and elements.
normalise() {
	awk '
	/^\[/ {
		ts = substr($1, 2, length($1) - 2)
		sub(/^0+/, "", ts)
		name = $3
		sub(/:$/, "", name)
		match($0, /cpu_id = [0-9]+/)
		cpu = substr($0, RSTART + 9, RLENGTH - 9)
		body = $0
		sub(/^[^}]*\}, \{ /, "", body)
		sub(/ \}$/, "", body)
		gsub(/\[[0-9]+\] = /, "", body)
		# inside [ ... ]: elements joined by "," alone
		out = ""; depth = 0
		for (i = 1; i <= length(body); i++) {
			c = substr(body, i, 1)
			if (c == "[") depth++
			if (c == "]") depth--
			if (depth > 0 && c == " ")
				continue
			if (c == " " && substr(out, length(out)) == "[")
				continue
			out = out c
		}
		gsub(/ \]/, "]", out)
		k = split(out, f, ", ")
		line = ts " " cpu " " name
		for (j = 1; j <= k; j++) {
			sub(/ = /, "=", f[j])
			if (f[j] ~ /=0x[0-9A-F]+$/)
				f[j] = tolower(f[j])
			line = line " " f[j]
		}
		print line
	}'
}

# The events in time order, each CPU's in its own order.
by_time() {
	grep -v '^lost ' | sort -s -n -k1,1 -k2,2
}

# record_and_compare NAME SEG READ_ARGS...: record SEG into $tmp/NAME.ctf,
# and compare babeltrace2's events with ctf_gen dump's of a copy of SEG
# (consumed when READ_ARGS has no -p).  Leaves babeltrace2's stderr in
# $tmp/NAME.bterr and the dump in $tmp/NAME.dump.
record_and_compare() {
	local name=$1 seg=$2 dump_arg=--consume
	shift 2

	case " $* " in *" -p "*) dump_arg= ;; esac
	cp "$seg" "$tmp/$name.copy"
	"$ctf_gen" dump $dump_arg "$tmp/$name.copy" >"$tmp/$name.dump" ||
		{ not_ok "$name: ctf_gen dump failed"; return; }
	if ! "$read_bin" record -q "$@" --ctf "$tmp/$name.ctf" "$seg" \
		2>"$tmp/$name.recerr"; then
		not_ok "$name: ivring-read record --ctf failed"
		sed 's/^/# /' "$tmp/$name.recerr"
		return
	fi
	if ! babeltrace2 --clock-cycles --no-delta "$tmp/$name.ctf" \
		>"$tmp/$name.bt" 2>"$tmp/$name.bterr"; then
		not_ok "$name: babeltrace2 failed"
		head -n 20 "$tmp/$name.bterr" | sed 's/^/# /'
		return
	fi
	by_time <"$tmp/$name.dump" >"$tmp/$name.want"
	normalise <"$tmp/$name.bt" | by_time >"$tmp/$name.got"
	if [ ! -s "$tmp/$name.want" ]; then
		not_ok "$name: no events to compare"
		return
	fi
	same "$name: babeltrace2 shows all $(wc -l <"$tmp/$name.want") events with libivring's values" \
		"$tmp/$name.want" "$tmp/$name.got"
}

# --- every native format ---------------------------------------------------
for set in formats formats-6.1-rt formats-6.12; do
	"$ctf_gen" natives "$set" "$tmp/$set.seg" ||
		{ not_ok "$set: ctf_gen natives failed"; continue; }
	record_and_compare "$set" "$tmp/$set.seg" -p -N "guest-$set"
done

# Each native event name and type is there (68 events, 6 rounds, 2 CPUs).
names=$(awk '{ print $3 }' "$tmp/formats.got" | sort -u | wc -l)
if [ "$names" -eq 68 ] && [ "$(wc -l <"$tmp/formats.got")" -eq 816 ]; then
	ok "all 68 native events, 816 in all, under their ftrace names"
else
	not_ok "native events: $names names, $(wc -l <"$tmp/formats.got") events"
fi

# --- what Trace Compass keys on ----------------------------------------------
meta=$tmp/formats.ctf/metadata
want_meta() {
	if grep -q -- "$2" "$meta"; then
		ok "metadata: $1"
	else
		not_ok "metadata: $1 (no '$2')"
	fi
}
want_meta "CTF 1.8 header" '^/\* CTF 1.8 \*/$'
want_meta "kernel domain" 'domain = "kernel";'
want_meta "tracer perf, for ftrace names" 'tracer_name = "perf";'
want_meta "hostname is the guest's name" 'hostname = "guest-formats";'
want_meta "cpu_id in the packet context" 'cpu_id;'
want_meta "stream_instance_id in the packet header" 'stream_instance_id;'
want_meta "1 GHz clock" 'freq = 1000000000;'
want_meta "sched_switch as Trace Compass's perf layout names it" \
	'name = "sched:sched_switch";'

uuids() {
	sed -n 's/^\tuuid = "\(.*\)";/\1/p' "$1/metadata" | tr '\n' ' '
}
a=$(uuids "$tmp/formats.ctf")
b=$(uuids "$tmp/formats-6.12.ctf")
set -- $a $b
if [ $# -eq 4 ] && [ "$1" != "$3" ] && [ "$2" != "$4" ] && [ "$1" != "$2" ]; then
	ok "trace and clock UUIDs differ between recordings, and from each other"
else
	not_ok "UUIDs: '$a' vs '$b'"
fi

# Packets: one per page, in one stream per CPU whose packets carry that
# cpu_id; babeltrace2 checks packet_seq_num itself and reports a gap as
# discarded packets.
babeltrace2 -c sink.text.details --params with-metadata=false \
	"$tmp/formats.ctf" 2>/dev/null >"$tmp/details"
bad=$(awk '
	/^\{Trace [0-9]+, Stream class ID [0-9]+, Stream ID [0-9]+\}$/ {
		stream = $NF
		sub(/\}/, "", stream)
	}
	/^Packet beginning:/ { packets++; in_ctx = 1 }
	/^$/ { in_ctx = 0 }
	in_ctx && /^    cpu_id: / {
		if ($2 != stream)
			print "cpu_id " $2 " in stream " stream
	}
	/Discarded packets/ { print "discarded packets" }
	END { print "packets " packets }' "$tmp/details" | sort -u)
pages=$(sed -n 's/.* events, \([0-9]*\) pages, .*/\1/p' "$tmp/formats.recerr")
if [ -n "$pages" ] && [ "$bad" = "packets $pages" ]; then
	ok "packets: $pages, one per page, each with its stream's cpu_id"
else
	not_ok "packets: '$bad' for $pages pages"
fi

# --- loss ------------------------------------------------------------------
"$gen_bin" -q -s 512K -b 1K -c 2 -m overwrite -n 20000 -S "$tmp/lossy.seg" ||
	not_ok "ivring-gen for the lossy segment failed"
record_and_compare lossy "$tmp/lossy.seg"
want=$(grep '^lost ' "$tmp/lossy.dump" | sort)
got=$(sed -n 's/.*Tracer discarded \([0-9]*\) events.*channel0_\([0-9]*\)".*/\2 \1/p' \
	"$tmp/lossy.bterr" | awk '{ t[$1] += $2 } END { for (c in t) print "lost " c, t[c] }' | sort)
if [ -n "$want" ] && [ "$want" = "$got" ]; then
	ok "lost events: babeltrace2 reports $(echo $got) as libivring counts them"
else
	not_ok "lost events: libivring '$(echo $want)', babeltrace2 '$(echo $got)'"
	head -n 5 "$tmp/lossy.bterr" | sed 's/^/# /'
fi

# --- records that lie ------------------------------------------------------
"$ctf_gen" hostile "$tmp/hostile.seg" || not_ok "ctf_gen hostile failed"
record_and_compare hostile "$tmp/hostile.seg" -p
if grep -q 's=""' "$tmp/hostile.want" && grep -q 'v_length=0 v=\[\]' "$tmp/hostile.want" &&
   grep -q 'ivring:unknown common_type=999' "$tmp/hostile.got"; then
	ok "hostile: data outside a record left out, unknown type kept as bytes"
else
	not_ok "hostile: the lying records were not all there"
fi

if [ -x "$asan_read" ]; then
	for s in hostile formats-6.1-rt lossy; do
		rm -rf "$tmp/asan.ctf"
		cp "$tmp/$s.seg" "$tmp/asan.seg" 2>/dev/null
		"$asan_read" record -q --ctf "$tmp/asan.ctf" "$tmp/asan.seg" \
			>"$tmp/asan.out" 2>&1
		rc=$?
		if [ "$rc" -eq 0 ] &&
		   ! grep -q 'Sanitizer\|runtime error' "$tmp/asan.out" &&
		   babeltrace2 "$tmp/asan.ctf" >/dev/null 2>&1; then
			ok "ASan build records $s cleanly, and babeltrace2 reads it"
		else
			not_ok "ASan build on $s (exit $rc)"
			head -n 30 "$tmp/asan.out" | sed 's/^/# /'
		fi
	done
	# ...and the reference decoder over the same lies
	asan_gen=${IVRING_ASAN_HELPERS:+$IVRING_ASAN_HELPERS/ctf_gen}
	if [ -x "$asan_gen" ] &&
	   "$asan_gen" dump "$tmp/hostile.seg" >"$tmp/asan.dump" 2>"$tmp/asan.out" &&
	   ! grep -q 'Sanitizer\|runtime error' "$tmp/asan.out" &&
	   cmp -s "$tmp/asan.dump" "$tmp/hostile.dump"; then
		ok "ASan build of ctf_gen dump agrees on the hostile records"
	else
		not_ok "ASan build of ctf_gen dump on the hostile records"
		head -n 30 "$tmp/asan.out" | sed 's/^/# /'
	fi
else
	echo "# SKIP ASan recording: no \$IVRING_ASAN_TOOLS/ivring-read"
fi

# --- the directory ----------------------------------------------------------
mkdir "$tmp/full" && touch "$tmp/full/x"
if ! "$read_bin" record -q -p --ctf "$tmp/full" "$tmp/hostile.seg" \
	2>"$tmp/full.err" && grep -q "not empty" "$tmp/full.err"; then
	ok "a directory that is not empty is refused, and says so"
else
	not_ok "a directory that is not empty: $(cat "$tmp/full.err")"
fi

echo "# $((n - fails)) passed, $fails failed"
[ "$fails" -eq 0 ]
