# SPDX-License-Identifier: GPL-2.0 OR MIT
# SPDX-FileCopyrightText: 2026 The ivring authors
#
# A private lttng-relayd for the tests, sourced by them (bash): on free
# ports of 127.0.0.1, writing into a directory of the test's, with its own
# LTTNG_HOME, so that it touches nothing of the machine's.
#
#   relayd_start DIR    start one: sets RELAYD_PID, RELAYD_URL
#                       (net://127.0.0.1:CONTROL:DATA), RELAYD_LIVE
#                       (net://127.0.0.1:LIVE) and RELAYD_OUT (DIR/out);
#                       a second call after relayd_stop reuses the ports
#   relayd_stop         end it (SIGTERM, then SIGKILL), by its pid
#   relayd_session HOST NAME  the directory of session NAME of HOST in
#                       the daemon's output, once it holds the streams
#   bt_lines            babeltrace2's lines (stdin) without the "(+delta)"
#                       column, which depends on where a listing starts
#   wait_for SECS CMD.. until CMD succeeds, or fail after SECS

wait_for() {
	local secs=$1 end
	shift
	end=$((SECONDS + secs))
	until "$@"; do
		[ "$SECONDS" -ge "$end" ] && return 1
		sleep 0.05
	done
}

# Whether something listens on 127.0.0.1:$1 (a connection, closed at once).
port_open() {
	(exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

relayd_listening() {
	kill -0 "$RELAYD_PID" 2>/dev/null && port_open "$RELAYD_CTL" &&
		port_open "$RELAYD_DATA" && port_open "$RELAYD_LIVE_PORT"
}

relayd_up() {
	local dir=$1
	mkdir -p "$dir/home"
	LTTNG_HOME=$dir/home lttng-relayd \
		-C "tcp://127.0.0.1:$RELAYD_CTL" -D "tcp://127.0.0.1:$RELAYD_DATA" \
		-L "tcp://127.0.0.1:$RELAYD_LIVE_PORT" -o "$dir/out" \
		</dev/null >>"$dir/relayd.log" 2>&1 &
	RELAYD_PID=$!
	# Up within 30 s, or its ports were taken (it exits then).
	wait_for 30 relayd_listening
}

relayd_start() {
	local dir=$1 try base
	RELAYD_OUT=$dir/out
	if [ -n "$RELAYD_CTL" ]; then
		relayd_up "$dir" || return 1
	else
		for try in 1 2 3 4 5 6 7 8; do
			base=$((20000 + (RANDOM * 32768 + RANDOM) % 40000))
			RELAYD_CTL=$base RELAYD_DATA=$((base + 1))
			RELAYD_LIVE_PORT=$((base + 2))
			port_open "$RELAYD_CTL" || port_open "$RELAYD_DATA" ||
				port_open "$RELAYD_LIVE_PORT" && continue
			relayd_up "$dir" && break
			relayd_stop
			RELAYD_CTL=
		done
		[ -n "$RELAYD_CTL" ] || return 1
	fi
	RELAYD_URL=net://127.0.0.1:$RELAYD_CTL:$RELAYD_DATA
	RELAYD_LIVE=net://127.0.0.1:$RELAYD_LIVE_PORT
}

relayd_stop() {
	[ -n "$RELAYD_PID" ] || return 0
	kill -TERM "$RELAYD_PID" 2>/dev/null
	wait_for 20 eval '! kill -0 "$RELAYD_PID" 2>/dev/null' ||
		kill -KILL "$RELAYD_PID" 2>/dev/null
	wait "$RELAYD_PID" 2>/dev/null
	RELAYD_PID=
}

relayd_session() {
	local d
	for d in "$RELAYD_OUT/$1/$2"-*; do
		[ -d "$d/kernel" ] && echo "$d" && return 0
	done
	return 1
}

bt_lines() {
	sed -E 's/^(\[[^]]*\]) \([^)]*\)/\1/'
}
