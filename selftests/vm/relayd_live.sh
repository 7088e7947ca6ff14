#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
# SPDX-FileCopyrightText: 2026 The ivring authors
#
# Two real guests streamed live to LTTng's relay daemon and read live, as
# the README's "Many hosts" does it: one ivring-read record --watch
# --relayd --clock host serves both guests, each a live session named
# after its segment, and a babeltrace2 -i lttng-live viewer is attached
# to each session while its guest runs.
#
# A private lttng-relayd (selftests/relayd_lib.sh) on free ports.  Each
# guest (2 vCPUs) traces sched_switch and sched_wakeup under a light load
# pinned to each CPU until the host says stop; then it stops tracing,
# prints its per_cpu stats and powers off, its segment kept.
#
# Asserted:
#   - each viewer shows its guest's events while the guest runs, and
#     nothing of the other guest;
#   - every line a viewer showed is in the daemon's output, once (the
#     viewer starts at the packets after it attached);
#   - per guest and CPU, the daemon's output holds as many events as the
#     guest wrote (its stats' entries), nothing dropped or discarded;
#   - babeltrace2 reads the host's directory of the daemon's output as one
#     timeline of both guests, in host time (absolute clocks);
#   - the viewers end when the recorder does, and the recorder exits 0.
# Exit: 0 pass, 1 fail, 4 skip (kselftest).

# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh" || exit 1
# shellcheck source=selftests/relayd_lib.sh
source "$vm_here/../relayd_lib.sh" || exit 1
vm_require read
for p in lttng-relayd babeltrace2; do
	command -v $p >/dev/null ||
		skip "no $p (Debian packages lttng-tools, babeltrace2)"
done

t_start=$(date +%s)
prefix=$(vm_shm relay)
roles=(a b)
host=vmhost
declare -A shm_of viewer_of
for r in "${roles[@]}"; do
	shm_of[$r]=$prefix-$r
done

relayd_cleanup() {
	local rc=$?

	relayd_stop
	(exit "$rc")
	vm_cleanup
}
trap relayd_cleanup EXIT
relayd_start "$vm_tmp/relayd" || fail "lttng-relayd does not start"
echo "# lttng-relayd $RELAYD_PID at $RELAYD_URL, live $RELAYD_LIVE"

{
	cat <<'GUEST'
t=/sys/kernel/ivring
exec 3< /dev/ttyS1 || { echo "FAIL: no /dev/ttyS1"; exit 9; }
stty -echo <&3 || exit 9
insmod /ivring.ko || exit 10
echo 'sched:sched_switch sched:sched_wakeup' > $t/set_event || exit 11
[ "$(cat $t/tracing_on)" = 1 ] || exit 12
GUEST
	vm_guest_busy_loops 'usleep 10000'
	vm_guest_wait_stop
	vm_guest_stop_tracing
	echo 'echo GUEST-DONE'
} >"$vm_tmp/guest.sh"

reader_alive() {
	kill -0 "$vm_reader_pid" 2>/dev/null && return 0
	sed 's/^/# reader: /' "$vm_tmp/reader.err"
	fail "the recorder exited early"
}

# session ROLE: the directory of ROLE's session in the daemon's output.
session() {
	relayd_session "$host" "${shm_of[$1]}"
}

# wait_until SECS CMD...: until CMD succeeds, the recorder alive, or fail.
wait_until() {
	local secs=$1 i

	shift
	for ((i = 0; i < secs * 10; i++)); do
		"$@" && return 0
		reader_alive
		sleep 0.1
	done
	fail "not within ${secs}s: $*"
}

# The daemon's events of ROLE, without babeltrace2's deltas.
offline() {
	babeltrace2 "$(session "$1")" 2>"$vm_tmp/$1.bterr" |
		bt_lines
}

"$read_bin" record --watch /dev/shm --match "$prefix-*" --relayd "$RELAYD_URL" \
	--hostname "$host" --clock host --stats-interval 5 \
	>/dev/null 2>"$vm_tmp/reader.err" </dev/null &
vm_reader_pid=$!
vm_bg_pids+=("$vm_reader_pid")

for r in "${roles[@]}"; do
	vm_guest_start "$r" "${shm_of[$r]}" "$vm_tmp/guest.sh"
done
for r in "${roles[@]}"; do
	vm_guest_wait "$r" '^GUEST-READY' 180
done
echo "# both guests trace at +$(($(date +%s) - t_start))s"

# A viewer for each session once the daemon has it, while the guest runs.
for r in "${roles[@]}"; do
	wait_until 120 session "$r" >/dev/null
	babeltrace2 -i lttng-live "$RELAYD_LIVE/host/$host/${shm_of[$r]}" \
		>"$vm_tmp/$r.live" 2>"$vm_tmp/$r.live.err" &
	viewer_of[$r]=$!
	vm_bg_pids+=("$!")
done
for r in "${roles[@]}"; do
	wait_until 120 grep -qs " ${shm_of[$r]} sched:sched_switch: " "$vm_tmp/$r.live"
done
echo "# each viewer shows its guest live at +$(($(date +%s) - t_start))s"

for r in "${roles[@]}"; do
	vm_guest_send "$r" stop
done
for r in "${roles[@]}"; do
	vm_guest_end "$r"
done

# Every event each guest wrote is in the daemon's output.
for r in "${roles[@]}"; do
	want=$(awk '/^GUEST-STATS [0-9]+ entries: / { n += $NF } END { print n + 0 }' \
		"$vm_tmp/$r.txt")
	[ "$want" -gt 0 ] || fail "guest $r wrote no events"
	wait_until 120 eval "[ \"\$(offline $r | wc -l)\" -ge $want ]"
done
vm_reader_kill INT
echo "# recorder stopped at +$(($(date +%s) - t_start))s, exit $vm_reader_rc"
sed 's/^/# reader: /' "$vm_tmp/reader.err"
[ "$vm_reader_rc" = 0 ] || fail "the recorder exited with status $vm_reader_rc"
for r in "${roles[@]}"; do
	# The viewer ends with the session; one that does not is a failure.
	for ((i = 0; i < 600; i++)); do
		kill -0 "${viewer_of[$r]}" 2>/dev/null || break
		sleep 0.1
	done
	kill -0 "${viewer_of[$r]}" 2>/dev/null &&
		fail "the viewer of guest $r did not end with the recording"
	wait "${viewer_of[$r]}" ||
		{ sed 's/^/# viewer: /' "$vm_tmp/$r.live.err"; fail "the viewer of guest $r failed"; }
	rm -f "/dev/shm/${shm_of[$r]}"
done

for r in "${roles[@]}"; do
	offline "$r" >"$vm_tmp/$r.off"
	bt_lines <"$vm_tmp/$r.live" >"$vm_tmp/$r.liveev"
	vm_awk '
function bad(msg) { print "not ok: " msg; fails++ }
BEGIN { vm_guest_stats(console) }
FNR == NR { off[$0]++; n++
	if (index($0, "] " name " ") == 0) { if (nforeign++ < 3) bad("not of " name ": " $0) }
	if (match($0, /cpu_id = [0-9]+ }/)) { c = substr($0, RSTART + 9, RLENGTH - 11); per[c]++ }
	next }
{ nlive++
	if (!($0 in off)) { if (nmiss++ < 3) bad("shown live, not in the output: " $0) }
	if (seen[$0]++) { if (ndup++ < 3) bad("shown live twice: " $0) }
}
END {
	for (c in gcpu) {
		e = gstat[c, "entries"]; d = gstat[c, "dropped events"]
		printf "# %s cpu%d: guest entries %s, dropped %s; in the output %d\n", name, c, e, d, per[c]
		if (e == "" || per[c] + 0 != e + 0 || d + 0 != 0) bad(name " cpu" c ": not every event is in the output")
	}
	for (k in off) if (off[k] > 1 && ntwice++ < 3) bad("in the output twice: " k)
	printf "# %s: %d events in the output, %d shown live\n", name, n, nlive
	if (!nlive) bad(name ": nothing shown live")
	exit fails ? 1 : 0
}' -v console="$vm_tmp/$r.txt" -v name="${shm_of[$r]}" \
		"$vm_tmp/$r.off" "$vm_tmp/$r.liveev" ||
		fail "guest $r: the live and offline traces disagree"
	if grep -q -i 'discarded' "$vm_tmp/$r.bterr"; then
		sed 's/^/# babeltrace2: /' "$vm_tmp/$r.bterr" | head -5
		fail "guest $r: babeltrace2 reports discarded events or packets"
	fi
	grep -q 'absolute = TRUE' "$(session "$r")/kernel/metadata" ||
		fail "guest $r: the trace is not in host time"
done

# Both guests, one timeline.
babeltrace2 "$RELAYD_OUT/$host" >"$vm_tmp/both" 2>"$vm_tmp/both.err" ||
	{ sed 's/^/# /' "$vm_tmp/both.err"; fail "babeltrace2 of the host's sessions failed"; }
all=$(($(wc -l <"$vm_tmp/a.off") + $(wc -l <"$vm_tmp/b.off")))
[ "$(wc -l <"$vm_tmp/both")" = "$all" ] ||
	fail "babeltrace2 of both sessions shows $(wc -l <"$vm_tmp/both") events, not $all"
for r in "${roles[@]}"; do
	vm_check_left "${shm_of[$r]}"
done
echo "# $all events of two guests, in $(($(date +%s) - t_start))s"
echo "ok"
