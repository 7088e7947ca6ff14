#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
# SPDX-FileCopyrightText: 2026 The ivring authors
#
# `ivring-read record --relayd` against Debian's lttng-relayd, started here
# on free ports of 127.0.0.1 in a private directory (relayd_lib.sh), and
# read back by babeltrace2 as a user would:
#
#   - offline: the relay daemon's output for a stopped segment prints, line
#     for line, what `record --ctf` writes for the same segment;
#   - live: babeltrace2 -i lttng-live, attached while ivring-gen writes,
#     shows each CPU's events as the CTF recording of the same segment has
#     them (the viewer starts at the packets after it attached: a suffix
#     per CPU), and ends when the recording does;
#   - many: --watch streams every segment of a directory, a session each,
#     in host time with --clock host, and 64 guests that come and go;
#   - the host's own trace (--host NAME, as root) as the session NAME,
#     live, and through a daemon that dies and comes back;
#   - the daemon killed with SIGKILL mid-stream and started again: the
#     recorder holds the guest's events meanwhile, goes on in a new session
#     (NAME-DATE-TIME-ID.1), and babeltrace2 reads both as one trace in which
#     every event is there once, or in a packet it reports as discarded;
#   - a relay daemon that lies or stalls (fake_relayd): a clear message
#     and a failed exit, never a crash, under ASan too.
#
# Needs ivring-read, ivring-gen, $IVRING_HELPERS/fake_relayd, lttng-relayd
# and babeltrace2.  Exit: 0 pass, 1 fail, 4 skip (kselftest).

here=$(cd "$(dirname "$0")" && pwd)
tools=${IVRING_TOOLS:-$here/../build/plain/tools}
helpers=${IVRING_HELPERS:-$here/../build/plain/helpers}
read_bin=$tools/ivring-read
gen_bin=$tools/ivring-gen
fake=$helpers/fake_relayd
asan_read=${IVRING_ASAN_TOOLS:+$IVRING_ASAN_TOOLS/ivring-read}

for b in "$read_bin" "$gen_bin" "$fake"; do
	if [ ! -x "$b" ]; then
		echo "# SKIP: no $b; run make check"
		exit 4
	fi
done
for p in lttng-relayd babeltrace2; do
	if ! command -v $p >/dev/null; then
		echo "# SKIP: no $p (Debian packages lttng-tools, babeltrace2)"
		exit 4
	fi
done

tmp=$(mktemp -d "${TMPDIR:-/tmp}/ivring-relayd.XXXXXX") || exit 1
pids=()
cleanup() {
	local p
	for p in "${pids[@]}"; do
		kill -KILL "$p" 2>/dev/null
	done
	relayd_stop
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

. "$here/tap.sh"
. "$here/relayd_lib.sh"

# relayd_dies WHOSE LOG: the daemon SIGKILLed; the recorder writing to LOG
# must say that it holds WHOSE events ("guest's", "host's").
relayd_dies() {
	kill -KILL "$RELAYD_PID"
	wait "$RELAYD_PID" 2>/dev/null
	RELAYD_PID=
	if wait_for 60 grep -q "holding the $1 events" "$2"; then
		ok "a daemon that dies: the recorder holds the $1 events"
	else
		not_ok "a daemon that dies: the recorder holds the $1 events"
	fi
}

if ! relayd_start "$tmp/relayd"; then
	not_ok "lttng-relayd starts on free ports"
	sed 's/^/# /' "$tmp/relayd/relayd.log" | tail -20
	echo "# $((n - fails)) passed, $fails failed"
	exit 1
fi
echo "# lttng-relayd $RELAYD_PID at $RELAYD_URL, live $RELAYD_LIVE"

# --- offline: a stopped segment, as record --ctf writes it -----------------
seg=$tmp/off.seg
"$gen_bin" -q -s 16M -c 3 -n 2000 -z 64,1K,2K -S "$seg"
"$read_bin" record -q -p --ctf "$tmp/off.ctf" "$seg" 2>"$tmp/err" ||
	sed 's/^/# /' "$tmp/err"
if "$read_bin" record --relayd "$RELAYD_URL" --hostname hostA "$seg" \
	2>"$tmp/off.err"; then
	ok "record --relayd of a stopped segment"
else
	not_ok "record --relayd of a stopped segment"
	sed 's/^/# /' "$tmp/off.err"
fi
if d=$(relayd_session hostA off.seg) &&
	[ -s "$d/kernel/metadata" ] && [ -f "$d/kernel/channel0_2" ] &&
	[ -f "$d/kernel/index/channel0_0.idx" ]; then
	ok "the daemon files it as HOST/GUEST-DATE/kernel/{metadata,channel0_N,index}"
else
	not_ok "the daemon files it as HOST/GUEST-DATE/kernel/{metadata,channel0_N,index}"
	find "$RELAYD_OUT" | sed 's/^/# /' | head -20
fi
babeltrace2 "$tmp/off.ctf" | bt_lines >"$tmp/off.want"
babeltrace2 "$d" 2>"$tmp/bt.err" | bt_lines >"$tmp/off.got"
[ "$(wc -l <"$tmp/off.want")" -ge 6000 ] ||
	not_ok "the CTF recording holds the 6000 events ($(wc -l <"$tmp/off.want"))"
same "babeltrace2 prints the relay's trace as the CTF directory" \
	"$tmp/off.want" "$tmp/off.got"

# --- live: babeltrace2 attached while the guest writes -----------------------
seg=$tmp/live.seg
"$gen_bin" -q -c 2 -r 400 -k -S "$seg" &
gen=$! pids+=($gen)
wait_for 30 test -s "$seg"
"$read_bin" record -q -f -p --ctf "$tmp/live.ctf" "$seg" 2>"$tmp/peek.err" &
peek=$! pids+=($peek)
"$read_bin" record -q -f --relayd "$RELAYD_URL" --hostname hostA "$seg" \
	2>"$tmp/live.err" &
rec=$! pids+=($rec)
# The viewer looks for the session once: it must exist by then.
wait_for 60 relayd_session hostA live.seg >/dev/null
babeltrace2 -i lttng-live "$RELAYD_LIVE/host/hostA/live.seg" \
	--params 'session-not-found-action="end"' >"$tmp/live.bt" \
	2>"$tmp/live.bterr" &
bt=$! pids+=($bt)
if wait_for 120 eval '[ "$(wc -l <"$tmp/live.bt")" -ge 400 ]'; then
	ok "babeltrace2 lttng-live shows events while the guest writes"
else
	not_ok "babeltrace2 lttng-live shows events while the guest writes ($(wc -l <"$tmp/live.bt") lines)"
	tail -5 "$tmp/live.bterr" | sed 's/^/# /'
fi
kill -INT $gen
wait $gen
# The writer stopped; the recordings end on SIGINT, and the viewer with them.
kill -INT $rec $peek
wait $rec
rc=$?
wait $peek
[ $rc -eq 0 ] && ok "record -f --relayd ends cleanly on SIGINT" ||
	{ not_ok "record -f --relayd ends cleanly on SIGINT (exit $rc)"; sed 's/^/# /' "$tmp/live.err"; }
if wait_for 60 eval '! kill -0 $bt 2>/dev/null'; then
	ok "the viewer ends with the recording"
else
	not_ok "the viewer ends with the recording"
fi
babeltrace2 "$tmp/live.ctf" | bt_lines >"$tmp/live.want"
bt_lines <"$tmp/live.bt" >"$tmp/live.got"
# Per CPU, the live lines are the last ones of the recording's.
bad=0
for cpu in 0 1; do
	grep "cpu_id = $cpu }" "$tmp/live.want" >"$tmp/want.$cpu"
	grep "cpu_id = $cpu }" "$tmp/live.got" >"$tmp/got.$cpu"
	k=$(wc -l <"$tmp/got.$cpu")
	tail -n "$k" "$tmp/want.$cpu" | cmp -s - "$tmp/got.$cpu" || bad=1
	[ "$k" -gt 0 ] || bad=1
done
if [ $bad = 0 ]; then
	ok "live, each CPU's events are the recording's, to the last one ($(wc -l <"$tmp/live.got") of $(wc -l <"$tmp/live.want"))"
else
	not_ok "live, each CPU's events are the recording's, to the last one"
	diff <(tail -n "$(wc -l <"$tmp/got.0")" "$tmp/want.0") "$tmp/got.0" |
		head -10 | sed 's/^/# /'
fi
d=$(relayd_session hostA live.seg)
babeltrace2 "$d" 2>/dev/null | bt_lines >"$tmp/live.off"
same "and its relay output has every event of the recording" \
	"$tmp/live.want" "$tmp/live.off"

# --- many: --watch, a session per guest --------------------------------------
mkdir "$tmp/shm"
for g in g1 g2 g3; do
	"$gen_bin" -q -c 2 -n 3000 -S "$tmp/shm/$g"
	"$read_bin" record -q -p --ctf "$tmp/$g.ctf" "$tmp/shm/$g" 2>/dev/null
	babeltrace2 "$tmp/$g.ctf" | bt_lines >"$tmp/$g.want"
done
"$read_bin" record --watch "$tmp/shm" --match 'g*' --relayd "$RELAYD_URL" \
	--hostname hostB 2>"$tmp/watch.err" &
w=$! pids+=($w)
# Each guest's session has what the guest wrote.
has_all() {
	local d
	d=$(relayd_session hostB "$1") || return 1
	babeltrace2 "$d" 2>/dev/null | bt_lines | cmp -s - "$tmp/$1.want"
}
bad=0
for g in g1 g2 g3; do
	wait_for 120 has_all "$g" || bad=1
done
kill -INT $w
wait $w
[ $bad = 0 ] && ok "--watch: each guest's session holds its events" ||
	{ not_ok "--watch: each guest's session holds its events"; sed 's/^/# /' "$tmp/watch.err"; }

# --- many, in host time: the clock is the host's from the first packet ------
mkdir "$tmp/shm2"
"$gen_bin" -q -c 2 -r 2000 -n 2000 --answer-clock -S "$tmp/shm2/h1" &
gen=$! pids+=($gen)
"$read_bin" record --watch "$tmp/shm2" --match 'h*' --clock host \
	--relayd "$RELAYD_URL" --hostname hostD 2>"$tmp/clock.err" &
w=$! pids+=($w)
wait $gen
clocked() {
	local d
	d=$(relayd_session hostD h1) &&
		[ "$(babeltrace2 "$d" 2>/dev/null | grep -c 'synth:seq')" = 4000 ]
}
wait_for 120 clocked
kill -INT $w
wait $w
d=$(relayd_session hostD h1)
if clocked && grep -q 'absolute = TRUE' "$d/kernel/metadata" &&
	! grep -q "keeps the guest's clock" "$tmp/clock.err"; then
	ok "--watch --clock host: the relay's trace is in host time, every event in"
else
	not_ok "--watch --clock host: the relay's trace is in host time, every event in"
	sed 's/^/# /' "$tmp/clock.err"
fi

# --- the host's own trace as one more session --------------------------------
# --host NAME with --relayd: the host's scheduler events (its tracefs,
# root only) stream as the session NAME beside the guests', live, in the
# same clock; through a daemon that dies and comes back, as a guest's do.
host_events() {
	local d
	for d in "$RELAYD_OUT/hostK/$1"-*; do
		[ -d "$d/kernel" ] && babeltrace2 "$d" 2>/dev/null
	done | grep -c "$2"
}
if [ "$(id -u)" != 0 ]; then
	echo "# SKIP --host: the host's tracefs needs root"
else
	mkdir "$tmp/shm5"
	"$gen_bin" -q -c 2 -r 2000 -k --answer-clock -S "$tmp/shm5/k1" &
	gen=$! pids+=($gen)
	"$read_bin" record --watch "$tmp/shm5" --match 'k*' \
		--relayd "$RELAYD_URL" --hostname hostK --host hostk \
		2>"$tmp/host.err" &
	w=$! pids+=($w)
	wait_for 60 relayd_session hostK hostk >/dev/null
	babeltrace2 -i lttng-live "$RELAYD_LIVE/host/hostK/hostk" \
		>"$tmp/host.live" 2>/dev/null &
	v=$! pids+=($v)
	if wait_for 60 grep -qs ' hostk sched:sched_switch: ' "$tmp/host.live"; then
		ok "--host NAME: the host's events live in session NAME"
	else
		not_ok "--host NAME: the host's events live in session NAME"
		sed 's/^/# /' "$tmp/host.err"
	fi
	kill -KILL $v
	wait $v 2>/dev/null
	# A storm of context switches on CPU 0 fills its buffer, which is read
	# then, while CPU 1's events wait for the next full pass: a beacon
	# sent between the two at CPU 0's time would clamp them to it.
	taskset -c 0 dd if=/dev/zero bs=1 count=300000 2>/dev/null |
		taskset -c 0 dd of=/dev/null bs=1 2>/dev/null
	wait_for 60 eval '[ "$(host_events hostk sched_switch)" -gt 0 ]' ||
		not_ok "the daemon has the host's events before it dies"
	relayd_dies "host's" "$tmp/host.err"
	relayd_start "$tmp/relayd" ||
		not_ok "lttng-relayd starts again on its ports"
	if wait_for 60 grep -q "hostk: the relay daemon is back" "$tmp/host.err" &&
		wait_for 60 eval '[ -s "$(relayd_session hostK hostk).1/kernel/channel0_0" ]'; then
		ok "and goes on in session hostk's next directory when it is back"
	else
		not_ok "and goes on in session hostk's next directory when it is back"
		sed 's/^/# /' "$tmp/host.err"
	fi
	kill -INT $gen
	wait $gen
	kill -INT $w
	wait $w
	rc=$?
	said=$(sed -n 's/.*hostk: \([0-9]*\) host events.*/\1/p' "$tmp/host.err")
	got=$(babeltrace2 "$RELAYD_OUT/hostK" 2>/dev/null | grep -c ' hostk sched:')
	guest=$(babeltrace2 "$RELAYD_OUT/hostK" 2>/dev/null |
		grep ' k1 synth:seq: ' | grep -o 'cpu = [0-9]*, .*seq = [0-9]*\|seq = [0-9]*, cpu = [0-9]*' |
		sort | uniq -d | wc -l)
	# An idle CPU's events keep their times: none clamped to a beacon's
	# (at most a few of one CPU share a nanosecond).
	same=$(babeltrace2 "$RELAYD_OUT/hostK" 2>/dev/null | grep ' hostk sched:' |
		sed -n 's/^\(\[[^]]*\]\).*cpu_id = \([0-9]*\) .*/\1 \2/p' |
		sort | uniq -c | sort -rn | awk 'NR == 1 { print $1 }')
	if [ "${same:-0}" -le 8 ]; then
		ok "the host's events keep their times (at most $same of a CPU at one time)"
	else
		not_ok "the host's events keep their times ($same of a CPU at one time)"
	fi
	echo "# the recorder took $said host events; the daemon's output holds $got"
	if [ $rc = 0 ] && [ -n "$said" ] && [ "$got" -gt 0 ] &&
		[ "$got" -le "$said" ] && [ "$guest" = 0 ] &&
		grep -q 'absolute = TRUE' "$(relayd_session hostK hostk)/kernel/metadata"; then
		ok "the host's and the guest's sessions read as one timeline, host time, nothing twice"
	else
		not_ok "the host's and the guest's sessions read as one timeline, host time, nothing twice (exit $rc, $guest twice)"
		sed 's/^/# /' "$tmp/host.err"
	fi
fi

# --- 64 guests through one reader, coming and going -------------------------
# 40 guests, then 24 more while the first 20 stop and go away.
mkdir "$tmp/shm3" "$tmp/done3"
gens=()
spawn() {
	local g
	for g in "$@"; do
		"$gen_bin" -q -s 512K -c 2 -n 400 -r 400 -S "$tmp/shm3/m$g" &
		gens+=($!)
		pids+=($!)
	done
}
# Guests $@ all hold their events in the daemon: 2 CPUs of 400 and a
# switch each.  Each one found complete is not looked at again.
hold() {
	local g d
	for g in "$@"; do
		[ -e "$tmp/done3/$g" ] && continue
		d=$(relayd_session hostE "m$g") || return 1
		[ "$(babeltrace2 "$d" 2>/dev/null | wc -l)" = 802 ] || return 1
		: >"$tmp/done3/$g"
	done
}
spawn $(seq 1 40)
"$read_bin" record --watch "$tmp/shm3" --match 'm*' --relayd "$RELAYD_URL" \
	--hostname hostE 2>"$tmp/scale.err" &
w=$! pids+=($w)
wait "${gens[@]:0:20}"
wait_for 120 hold $(seq 1 20) && rm -f "$tmp/shm3"/m{1..20}
spawn $(seq 41 64)
wait "${gens[@]}"
wait_for 120 hold $(seq 1 64)
kill -INT $w
wait $w
rc=$?
n_done=$(ls "$tmp/done3" | wc -l)
[ "$n_done" = 64 ] && [ $rc = 0 ] &&
	ok "64 guests coming and going, through one reader: each session holds every event" ||
	{ not_ok "64 guests coming and going: $n_done complete, exit $rc"; tail -5 "$tmp/scale.err" | sed 's/^/# /'; }

# --- the daemon killed mid-stream and started again --------------------------
seg=$tmp/kill.seg
"$gen_bin" -c 2 -r 3000 -k -S "$seg" 2>"$tmp/kill.gen" &
gen=$! pids+=($gen)
wait_for 30 test -s "$seg"
"$read_bin" record -q -f --relayd "$RELAYD_URL" --hostname hostC "$seg" \
	2>"$tmp/kill.err" &
rec=$! pids+=($rec)
# Some packets are in, then the daemon dies, and comes back on its ports.
wait_for 60 eval '[ -s "$(relayd_session hostC kill.seg)/kernel/channel0_0" ]'
relayd_dies "guest's" "$tmp/kill.err"
relayd_start "$tmp/relayd" || not_ok "lttng-relayd starts again on its ports"
if wait_for 60 grep -q "the relay daemon is back" "$tmp/kill.err"; then
	ok "and goes on in a new session when the daemon is back"
else
	not_ok "and goes on in a new session when the daemon is back"
	sed 's/^/# /' "$tmp/kill.err"
fi
if wait_for 60 eval '[ -s "$RELAYD_OUT/hostC/$(basename "$(relayd_session hostC kill.seg)").1/kernel/channel0_1" ]'; then
	ok "its directory is the first one's with .1 appended"
else
	not_ok "its directory is the first one's with .1 appended"
	ls "$RELAYD_OUT/hostC" | sed 's/^/# /'
fi
kill -INT $gen
wait $gen
kill -INT $rec
wait $rec
rc=$?
[ $rc = 0 ] && ok "the recording ends cleanly" ||
	{ not_ok "the recording ends cleanly (exit $rc)"; sed 's/^/# /' "$tmp/kill.err"; }
# One trace of both sessions: each event once, or counted as discarded.
babeltrace2 "$RELAYD_OUT/hostC" >"$tmp/kill.bt" 2>"$tmp/kill.bterr"
rc=$?
bad=0
for cpu in 0 1; do
	written=$(sed -n "s/.*cpu$cpu: written \([0-9]*\).*/\1/p" "$tmp/kill.gen")
	grep "cpu_id = $cpu }" "$tmp/kill.bt" | grep -o 'seq = [0-9]*' |
		awk '{ print $3 }' >"$tmp/kill.seq$cpu"
	seen=$(wc -l <"$tmp/kill.seq$cpu")
	uniq=$(sort -un "$tmp/kill.seq$cpu" | wc -l)
	lost=$(grep "channel0_$cpu\"" "$tmp/kill.bterr" |
		sed -n 's/.*discarded \([0-9]*\) event.*/\1/p' |
		awk '{ n += $1 } END { print n + 0 }')
	packets=$(grep "channel0_$cpu\"" "$tmp/kill.bterr" |
		sed -n 's/.*discarded \([0-9]*\) packet.*/\1/p' |
		awk '{ n += $1 } END { print n + 0 }')
	sort -nc "$tmp/kill.seq$cpu" 2>/dev/null || bad=1
	echo "# cpu$cpu: written $written, in the trace $seen ($uniq distinct), counted lost $lost events and $packets packets"
	# A packet (256 KiB at most) holds at most 16384 of these events.
	[ -n "$written" ] && [ "$seen" = "$uniq" ] &&
		[ "$seen" -le "$written" ] &&
		[ $((seen + lost + 16384 * packets)) -ge "$written" ] || bad=1
done
[ $rc = 0 ] && [ $bad = 0 ] &&
	ok "over both sessions, every event once or counted lost" ||
	not_ok "over both sessions, every event once or counted lost (babeltrace2 exit $rc)"

# --- a daemon that lies ------------------------------------------------------
seg=$tmp/off.seg
lie() {
	local mode=$1 pattern=$2 bin=$3 c d
	rm -f "$tmp/ports"
	"$fake" "$mode" "$tmp/ports" &
	local f=$!
	pids+=($f)
	wait_for 30 test -s "$tmp/ports"
	read -r c d <"$tmp/ports"
	expect_fail "$(basename "$(dirname "$(dirname "$bin")")")/$mode: $pattern" 1 \
		"$pattern" "$bin" record -p --relayd-timeout 500 \
		--relayd "net://127.0.0.1:$c:$d" "$seg"
	kill -KILL $f 2>/dev/null
	wait $f 2>/dev/null
}
for bin in "$read_bin" $asan_read; do
	[ -x "$bin" ] || continue
	lie silent "did not answer the protocol's version within 500 ms" "$bin"
	lie major "speaks protocol 3.0; ivring speaks 2.11 to 2.13" "$bin"
	lie old "speaks protocol 2.10" "$bin"
	lie short "closed the connection instead of answering" "$bin"
	lie trickle "did not answer the protocol's version within 500 ms" "$bin"
	lie pathlen "named the session's directory in 100000 bytes" "$bin"
	lie refuse "refused the session" "$bin"
	lie stream "refused the stream kernel/metadata" "$bin"
	lie pending "answered 7 to whether it has the packets" "$bin"
	lie stall "packets within 500 ms" "$bin"
	lie index "refused a packet's index" "$bin"
	lie garbage "lttng-relayd refused the session" "$bin"
	lie hangup "lttng-relayd\(: sending\|: the answer\| closed\)" "$bin"
done
# Following, a daemon that breaks is waited for; ended while it is out of
# reach, the recording fails and leaves what it did not deliver.
rm -f "$tmp/ports"
"$fake" index "$tmp/ports" &
f=$! pids+=($f)
wait_for 30 test -s "$tmp/ports"
read -r c d <"$tmp/ports"
seg=$tmp/held.seg
"$gen_bin" -q -c 2 -n 1000 -S "$seg"
"$read_bin" record -f --relayd-timeout 500 --relayd "net://127.0.0.1:$c:$d" \
	"$seg" 2>"$tmp/held.err" &
rec=$! pids+=($rec)
wait_for 60 grep -q "holding the guest's events" "$tmp/held.err"
kill -INT $rec
wait $rec
rc=$?
if [ $rc = 1 ] && grep -q "stays in the segment" "$tmp/held.err"; then
	ok "-f: a daemon that refuses an index is waited for, and Ctrl-C leaves the events"
else
	not_ok "-f: a daemon that refuses an index is waited for, and Ctrl-C leaves the events (exit $rc)"
	sed 's/^/# /' "$tmp/held.err"
fi
n_left=$("$read_bin" "$seg" 2>/dev/null | grep -c ' seq: ')
[ "$n_left" = 2000 ] && ok "and the next reader gets every event" ||
	not_ok "and the next reader gets every event ($n_left of 2000)"
seg=$tmp/off.seg

expect_fail "a URL that is not net://" 2 "net://HOST\[:CONTROL_PORT" \
	"$read_bin" record -p --relayd "tcp://127.0.0.1" "$seg"
expect_fail "a port out of range" 2 "a port is 1 to 65535" \
	"$read_bin" record -p --relayd "net://127.0.0.1:70000" "$seg"
expect_fail "nobody listening" 1 "Connection refused" \
	"$read_bin" record -p --relayd "net://127.0.0.1:1:2" "$seg"
expect_fail "a hostname with a slash" 2 "hostname is 1 to 63 bytes" \
	"$read_bin" record -p --relayd "$RELAYD_URL" --hostname a/b "$seg"
expect_fail "--relayd with --ctf" 2 "are for files" \
	"$read_bin" record --relayd "$RELAYD_URL" --ctf "$tmp/x" "$seg"

echo "# $((n - fails)) passed, $fails failed"
[ "$fails" -eq 0 ]
