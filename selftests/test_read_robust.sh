#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
# SPDX-FileCopyrightText: 2026 The ivring authors
#
# ivring-read when things go wrong around it: a stalled output and Ctrl-C,
# a reader killed mid-write, a second consuming reader, and the segment
# file truncated under a following reader.  In every case the events read
# by this reader and the next one are every event the writer wrote, each
# at least once, and a clean stop delivers each exactly once.
# Exit: 0 pass, 1 fail, 4 skip (kselftest).

set -u
tools=${IVRING_TOOLS:-$(cd "$(dirname "$0")/../build/plain/tools" && pwd)}
read_bin=$tools/ivring-read
gen_bin=$tools/ivring-gen
if [ ! -x "$read_bin" ] || [ ! -x "$gen_bin" ]; then
	echo "# SKIP: need ivring-read and ivring-gen; set IVRING_TOOLS"
	exit 4
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/ivring-read-robust.XXXXXX") || exit 1
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null; done
	exec 3<&- 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

fails=0
n=0
ok() { n=$((n + 1)); echo "ok $n $1"; }
not_ok() { n=$((n + 1)); fails=$((fails + 1)); echo "not ok $n $1"; }

EVENTS=20000	# per CPU: far more than a pipe and stdio buffer hold

# A stopped segment of 2 CPUs x EVENTS synth:seq events (and a few switches).
make_seg() {
	"$gen_bin" -q --size 16M --cpus 2 --events $EVENTS --stop "$1"
}

# seq_check NAME EXACT FILE...: every seq of both CPUs is in the files;
# with EXACT=1, each exactly once.  Prints the duplicates' count.
seq_check() {
	local name=$1 exact=$2
	shift 2
	cat "$@" | awk -v want=$EVENTS -v exact="$exact" '
		/ seq: / {
			for (i = 1; i <= NF; i++) {
				if ($i ~ /^seq=/) s = substr($i, 5)
				if ($i ~ /^cpu=/) c = substr($i, 5)
			}
			if (seen[c, s]++) dup++
		}
		END {
			for (c = 0; c < 2; c++)
				for (s = 0; s < want; s++)
					if (!((c, s) in seen)) missing++
			printf "%d missing, %d duplicated\n", missing, dup
			exit missing || (exact && dup)
		}' >"$tmp/check" 2>&1
	local rc=$?
	if [ $rc -eq 0 ]; then
		ok "$name: $(cat "$tmp/check")"
	else
		not_ok "$name: $(cat "$tmp/check")"
	fi
}

# wait_blocked PID: the process sleeps in a write to a full pipe.
wait_blocked() {
	local i
	for i in $(seq 100); do
		grep -q pipe_write "/proc/$1/wchan" 2>/dev/null && return 0
		[ "$(cat "/proc/$1/wchan" 2>/dev/null)" = pipe_write ] && return 0
		sleep 0.05
	done
	return 1
}

# stalled_reader SEG: a consuming reader of SEG whose output is a pipe
# that nobody reads yet (fd 3 is its read end), blocked in a write.
stalled_reader() {
	rm -f "$tmp/fifo"
	mkfifo "$tmp/fifo"
	"$read_bin" "$1" >"$tmp/fifo" 2>"$tmp/err1" &
	pids+=($!)
	exec 3<"$tmp/fifo"
	wait_blocked "${pids[-1]}" || echo "# the reader did not block on the pipe"
}

# 1. Output stalled, then Ctrl-C: the write is not cut short, the reader
#    ends once the output drains, and what it consumed is what it wrote.
seg=$tmp/stall.seg
make_seg "$seg" || exit 1
stalled_reader "$seg"
kill -INT "${pids[-1]}"
sleep 0.3
cat <&3 >"$tmp/out1"
exec 3<&-
wait "${pids[-1]}"
rc=$?
"$read_bin" "$seg" >"$tmp/out2" 2>"$tmp/err2"
if [ $rc -eq 0 ] && ! grep -q "write error" "$tmp/err1"; then
	ok "stalled output + SIGINT: exit 0, no write error"
else
	not_ok "stalled output + SIGINT: exit $rc"
	sed 's/^/# /' "$tmp/err1"
fi
seq_check "stalled output + SIGINT, then a second reader" 1 "$tmp/out1" "$tmp/out2"
if [ -s "$tmp/out2" ] && tail -c1 "$tmp/out1" | od -c | grep -q '\\n'; then
	ok "the first reader's last line is whole, the second reader went on"
else
	not_ok "the first reader's output ends mid-line or left nothing"
fi

# 2. Killed while its output is stalled: events it had not written are not
#    consumed; the next reader prints them.  Repeats are allowed, loss not.
seg=$tmp/kill.seg
make_seg "$seg" || exit 1
stalled_reader "$seg"
kill -KILL "${pids[-1]}"
wait "${pids[-1]}" 2>/dev/null
cat <&3 >"$tmp/out1"
exec 3<&-
"$read_bin" "$seg" >"$tmp/out2" 2>/dev/null
seq_check "reader killed mid-write, then a second reader: nothing lost" 0 \
	"$tmp/out1" "$tmp/out2"

# 3. One consumer at a time; a snapshot reader beside it is fine.
seg=$tmp/two.seg
make_seg "$seg" || exit 1
stalled_reader "$seg"
first=${pids[-1]}
"$read_bin" "$seg" >/dev/null 2>"$tmp/err"
rc=$?
if [ $rc -eq 1 ] &&
   grep -q "another reader (pid $first) is consuming this segment; read beside it with --peek" "$tmp/err"; then
	ok "a second consumer fails, naming the first"
else
	not_ok "a second consumer: exit $rc"
	sed 's/^/# /' "$tmp/err"
fi
if "$read_bin" --peek "$seg" >"$tmp/peek" 2>/dev/null && [ -s "$tmp/peek" ]; then
	ok "--peek beside a consumer"
else
	not_ok "--peek beside a consumer"
fi
kill -INT "$first"
cat <&3 >"$tmp/out1"
exec 3<&-
wait "$first"
"$read_bin" "$seg" >"$tmp/out2" 2>/dev/null
seq_check "after the first consumer, the next one goes on exactly" 1 \
	"$tmp/out1" "$tmp/out2"

# 4. The file truncated under a following reader: a message, the summary,
#    exit 3 (not a usable segment), no SIGBUS.
seg=$tmp/trunc.seg
make_seg "$seg" || exit 1
"$read_bin" -f "$seg" >"$tmp/out1" 2>"$tmp/err" &
pids+=($!)
for i in $(seq 100); do
	grep -q "writer stopped" "$tmp/err" && break
	sleep 0.05
done
truncate -s 8K "$seg"
for i in $(seq 100); do
	kill -0 "${pids[-1]}" 2>/dev/null || break
	sleep 0.05
done
kill -INT "${pids[-1]}" 2>/dev/null
wait "${pids[-1]}"
rc=$?
if [ $rc -eq 3 ] &&
   grep -q "the segment file shrank to 8192 bytes under the reader" "$tmp/err" &&
   grep -q "^ivring-read: $((2 * EVENTS + 2)) events read, 0 lost" "$tmp/err"; then
	ok "truncated under --follow: exit 3, a message and the summary"
else
	not_ok "truncated under --follow: exit $rc"
	sed 's/^/# /' "$tmp/err"
fi

echo "# $((n - fails)) passed, $fails failed"
[ "$fails" -eq 0 ]
