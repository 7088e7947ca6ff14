/* SPDX-License-Identifier: LGPL-2.1 OR MIT */
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * A client of LTTng's relay daemon (lttng-relayd 2.11 and later): one
 * session on a control and a data connection, its streams, their packets
 * and indexes, and the proof that the daemon has them.  It knows nothing
 * of CTF but the index fields; ctf_relay.c feeds it a trace's packets.
 *
 * The protocol is internal to LTTng and not documented; relay_wire.h
 * writes down what this client relies on, and include/DESIGN which reply
 * proves what.  The daemon is not trusted: every reply is read with a
 * timeout and checked for its size and values.
 */
#ifndef IVRING_LIB_RELAY_H
#define IVRING_LIB_RELAY_H

#include <sys/socket.h>

#include "base/base.h"

struct ivr_relay;

#define IVR_RELAY_ADDRS	4

/*
 * Where the daemon is, looked up once (ivr_relay_resolve()): connecting
 * again after a failure never waits on a name server, which no timeout
 * of ours bounds.
 */
struct ivr_relay_dest {
	char host[256];		/* as the URL names it, for messages */
	unsigned int ctl_port, data_port;
	u32 nr;
	struct sockaddr_storage addr[IVR_RELAY_ADDRS];
	socklen_t len[IVR_RELAY_ADDRS];
};

struct ivr_relay_conf {
	const struct ivr_relay_dest *dest;
	const char *session;	/* the relay session's name */
	const char *hostname;	/* under which the daemon files it */
	/*
	 * Its directory under OUTPUT/HOSTNAME; NULL: the daemon's default,
	 * SESSION-DATE-TIME of the session's creation.
	 */
	const char *base_path;
	u32 live_timer_us;	/* > 0: a live session */
	int timeout_ms;		/* for a connection and for each reply */
};

/* The index of a packet: what its CTF packet context says. */
struct ivr_relay_index {
	u64 packet_size;	/* bits */
	u64 content_size;	/* bits */
	u64 ts_begin;
	u64 ts_end;
	u64 discarded;
	u64 stream_id;		/* the CTF stream class */
	u64 instance_id;
	u64 seq_num;
};

/*
 * @url, net://HOST[:CONTROL[:DATA]] or net6://, parsed and HOST looked
 * up: 0, or -EINVAL or -EHOSTUNREACH with the reason in @why.
 */
int ivr_relay_resolve(const char *url, struct ivr_relay_dest *d,
		      struct ivr_msg *why);
/*
 * Connect, agree on the protocol's version, and make the session and its
 * trace chunk.  0 with *@out, or -errno with the reason in @why.
 */
int ivr_relay_open(const struct ivr_relay_conf *conf, struct ivr_relay **out,
		   struct ivr_msg *why);
/*
 * Whether the daemon is still there: it never writes to the data
 * connection, nor to the control one but the replies owed, so anything
 * else readable, or a hang-up (its close, or its death), says it is gone.
 * 0, or -ECONNRESET with the reason.
 */
int ivr_relay_check(struct ivr_relay *rl);
/* Why the last call failed. */
const char *ivr_relay_errmsg(const struct ivr_relay *rl);
/*
 * A stream under @path (relative to the session's directory) called
 * @channel; "metadata" is the trace's metadata.  Its handle in *@handle.
 */
int ivr_relay_add_stream(struct ivr_relay *rl, const char *path,
			 const char *channel, u64 *handle);
/* Show the streams added so far to live viewers. */
int ivr_relay_streams_sent(struct ivr_relay *rl);
/* Append @len bytes to the metadata stream @handle (no reply comes). */
int ivr_relay_metadata(struct ivr_relay *rl, u64 handle, const void *text,
		       size_t len);
/*
 * One packet of stream @handle: its @len bytes on the data connection
 * under @seq (increasing per stream), then its index on the control one.
 * The index's reply is read later (ivr_relay_sync()): a batch of packets
 * costs no round trip each.
 */
int ivr_relay_packet(struct ivr_relay *rl, u64 handle, u64 seq,
		     const void *pkt, size_t len,
		     const struct ivr_relay_index *ix);
/*
 * A live beacon: stream @handle has nothing before @ts, so that a live
 * viewer need not wait for it.
 */
int ivr_relay_beacon(struct ivr_relay *rl, u64 handle, u64 stream_id, u64 ts);
/*
 * Every reply still owed read and checked, then, for each of @nr streams,
 * wait until the daemon has written the packets up to @seqs[i], data and
 * index: 0 then, or -errno (-ETIMEDOUT when it does not get there within
 * the timeout).
 */
int ivr_relay_sync(struct ivr_relay *rl, const u64 *handles, const u64 *seqs,
		   u32 nr);
/* Close stream @handle after its packet @last (UINT64_MAX: metadata). */
int ivr_relay_close_stream(struct ivr_relay *rl, u64 handle, u64 last);
/* Close both connections: the session ends for its viewers. */
void ivr_relay_free(struct ivr_relay *rl);

#endif /* IVRING_LIB_RELAY_H */
