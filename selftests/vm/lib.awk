# SPDX-License-Identifier: GPL-2.0 OR MIT
# SPDX-FileCopyrightText: 2026 The ivring authors
#
# awk functions shared by the VM tests (mawk and gawk), loaded before a
# test's own program by vm_awk in lib.sh.  They parse what a guest script
# printed and what ivring-read wrote; the tests keep their assertions.

# vm_event(line): for an event line of ivring-read, in trace-cmd report's
# columns ("comm-pid [CPU] secs.usecs: name: <pad>info"), set ev_comm,
# ev_pid, ev_cpu, ev_ts (seconds, a number), ev_ts_str (as printed),
# ev_name and ev_info (the event's own text, after the padding of the name
# column) and return 1; return 0 for any other line.
function vm_event(line,   s, pad) {
	if (!match(line, /\[[0-9]+\] +[0-9]+\.[0-9]+: [a-z0-9_]+: /))
		return 0
	s = substr(line, RSTART, RLENGTH)
	ev_info = substr(line, RSTART + RLENGTH)
	ev_comm = substr(line, 1, RSTART - 1)
	sub(/ +$/, "", ev_comm)
	ev_pid = ev_comm
	sub(/^.*-/, "", ev_pid)
	ev_pid += 0
	sub(/-[0-9]*$/, "", ev_comm)
	sub(/^ +/, "", ev_comm)
	ev_cpu = s
	sub(/\].*/, "", ev_cpu)
	sub(/\[/, "", ev_cpu)
	ev_cpu += 0
	ev_ts_str = s
	sub(/^[^ ]* +/, "", ev_ts_str)
	sub(/:.*/, "", ev_ts_str)
	ev_ts = ev_ts_str + 0
	ev_name = s
	sub(/: $/, "", ev_name)
	sub(/^.*: /, "", ev_name)
	# The name column is padded to 20 characters (lib/decode/render.c).
	pad = 20 - length(ev_name)
	if (pad > 0)
		ev_info = substr(ev_info, pad + 1)
	return 1
}

# vm_lost(line): for "CPU:N [LOST K EVENTS]" set lost_cpu and lost_n and
# return 1; return 0 for any other line.
function vm_lost(line,   a) {
	if (line !~ /^CPU:[0-9]+ \[LOST [0-9]+ EVENTS\]$/)
		return 0
	split(line, a, /[: ]/)
	lost_cpu = a[2] + 0
	lost_n = a[4] + 0
	return 1
}

# vm_dropped(line): for trace-cmd report's "CPU:N [K EVENTS DROPPED]" set
# lost_cpu and lost_n and return 1; return 0 for any other line.  A count
# that the page did not store ("CPU:N [EVENTS DROPPED]") is lost_n = -1.
function vm_dropped(line,   a) {
	if (line !~ /^CPU:[0-9]+ \[([0-9]+ )?EVENTS DROPPED\]$/)
		return 0
	split(line, a, /[: ]/)
	lost_cpu = a[2] + 0
	lost_n = a[3] ~ /^\[[0-9]+$/ ? substr(a[3], 2) + 0 : -1
	return 1
}

# vm_page_walk(): for one page of a recorder's spool file (FILE.cpuN of
# ivring-read record, whole pages in the kernel's ring buffer format), as
# one line of od -An -v -tu4 -w<page size> (its 32-bit words in $1..$NF):
# walk its records and set pg_events (the events in it), pg_first_ts and
# pg_last_ts (ns) and pg_lost: 0 when the page says no events were lost
# before it, their count when it stored one, -1 when it had no room for
# the count.  Returns 0 for a page whose records run past its commit.
function vm_page_walk(   size, flags, off, w, arr, type, delta, ts) {
	# The commit word: the length, and the missed-events flags in bits
	# 31 (events lost) and 30 (their count stored after the records).
	size = $3 % 1073741824
	flags = int($3 / 1073741824)
	ts = $1 + $2 * 4294967296
	pg_events = 0
	for (off = 0; off < size; ) {
		w = $(5 + off / 4)
		arr = $(6 + off / 4)
		type = w % 32
		delta = int(w / 32)
		if (type == 29) {
			# Padding: with no delta, the rest of the page.
			if (!delta)
				break
			off += arr + 4
		} else if (type == 30) {
			ts += arr * 134217728 + delta
			off += 8
		} else if (type == 31) {
			ts = arr * 134217728 + delta
			off += 8
		} else {
			ts += delta
			if (!pg_events++)
				pg_first_ts = ts
			pg_last_ts = ts
			off += type ? 4 + 4 * type : 8 + int((arr - 1) / 4) * 4
		}
	}
	pg_lost = 0
	if (flags >= 2)
		pg_lost = flags % 2 ? $(5 + size / 4) + $(6 + size / 4) * 4294967296 : -1
	return off <= size
}

# vm_field(line, key): the value of "key=value" in an event line, or "".
function vm_field(line, key,   m) {
	if (match(line, "(^| )" key "=[^ ]*")) {
		m = substr(line, RSTART, RLENGTH)
		sub(/^ /, "", m)
		return substr(m, length(key) + 2)
	}
	return ""
}

# vm_guest_stats(file [, tag]): the guest's "TAG <cpu> <key>: <value>"
# lines (its per_cpu/cpuN/stats, prefixed; TAG defaults to GUEST-STATS)
# into gstat[cpu, key]; gcpu[cpu] = 1 for every CPU seen.  Returns the
# number of CPUs.
function vm_guest_stats(file, tag,   l, a, c, k, v, n) {
	if (tag == "")
		tag = "GUEST-STATS"
	n = 0
	while ((getline l < file) > 0) {
		if (index(l, tag " ") != 1)
			continue
		l = substr(l, length(tag) + 2)
		if (l !~ /^[0-9]+ [a-z ]+: /)
			continue
		split(l, a, " ")
		c = a[1]
		k = l
		sub(/^[0-9]+ /, "", k)
		v = k
		sub(/:.*/, "", k)
		sub(/^[^:]*: */, "", v)
		gstat[c, k] = v
		if (!(c in gcpu))
			n++
		gcpu[c] = 1
	}
	close(file)
	return n
}

# vm_host_totals(files): the "read events" and "lost events" of the
# ivring-read --stats outputs FILES (separated by spaces), added up per
# CPU into hread[cpu] and hlost[cpu].
function vm_host_totals(files,   f, n, i, k, kk) {
	n = split(files, f, " ")
	for (i = 1; i <= n; i++) {
		delete hstat
		vm_host_stats(f[i])
		for (k in hstat) {
			split(k, kk, SUBSEP)
			if (kk[2] == "read events") hread[kk[1]] += hstat[k]
			if (kk[2] == "lost events") hlost[kk[1]] += hstat[k]
		}
	}
}

# vm_host_stats(file): ivring-read --stats output ("CPU N:", then
# "key: value" lines) into hstat[cpu, key]; hcpu[cpu] = 1 for every CPU.
# ivring-read's summary line goes to hsummary; every other line, such as a
# warning, into hnote[1..nhnote].  Returns the number of CPUs.
function vm_host_stats(file,   l, cpu, k, v, n) {
	cpu = -1
	n = 0
	nhnote = 0
	hsummary = ""
	while ((getline l < file) > 0) {
		if (l ~ /^CPU [0-9]+:$/) {
			cpu = l
			gsub(/[^0-9]/, "", cpu)
			hcpu[cpu] = 1
			n++
		} else if (cpu >= 0 && l ~ /^[a-z ]+: /) {
			k = l
			v = l
			sub(/:.*/, "", k)
			sub(/^[^:]*: */, "", v)
			hstat[cpu, k] = v
		} else if (l ~ /^ivring-read: [0-9]+ events read( \([0-9]+ printed\))?, [0-9]+ lost, [0-9]+ bytes$/) {
			hsummary = l
		} else {
			hnote[++nhnote] = l
		}
	}
	close(file)
	return n
}
