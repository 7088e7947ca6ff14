/* SPDX-License-Identifier: LGPL-2.1 OR MIT */
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * What goes over the wire to lttng-relayd, as read from lttng-tools 2.13's
 * relay daemon (src/bin/lttng-relayd/main.c and cmd-2-11.c) and its client
 * (src/common/relayd/relayd.c); written here in our own terms.
 *
 * Every struct is packed and every integer in it is big-endian; strings
 * follow a struct and their lengths count the NUL.  A request on the
 * control connection is a header and data_size bytes; a reply has no
 * header, so the client knows each reply's size from its command.  The
 * data connection carries a header and the packet's bytes, and is never
 * answered.
 */
#ifndef IVRING_LIB_RELAY_WIRE_H
#define IVRING_LIB_RELAY_WIRE_H

#include "base/base.h"

#define RELAY_MAJOR		2
#define RELAY_MINOR		13	/* the newest this client speaks */
#define RELAY_MINOR_MIN		11	/* trace chunks, named session paths */

#define RELAY_CONTROL_PORT	5342
#define RELAY_DATA_PORT		5343

enum relay_cmd {
	RELAY_ADD_STREAM	= 1,
	RELAY_CREATE_SESSION	= 2,
	RELAY_VERSION		= 5,
	RELAY_SEND_METADATA	= 6,
	RELAY_CLOSE_STREAM	= 7,
	RELAY_DATA_PENDING	= 8,
	RELAY_SEND_INDEX	= 13,
	RELAY_STREAMS_SENT	= 16,
	RELAY_CREATE_TRACE_CHUNK = 19,
};

/* The reply's code that says yes (LTTng's LTTNG_OK). */
#define RELAY_OK		10

struct relay_hdr {
	u64 circuit_id;		/* unused: 0 */
	u64 data_size;		/* the bytes after this header */
	u32 cmd;
	u32 cmd_version;	/* unused: 0 */
} __attribute__((packed));

struct relay_version {
	u32 major;
	u32 minor;
} __attribute__((packed));

/* CREATE_SESSION, protocol 2.11: then session name, hostname, base path. */
struct relay_create_session {
	u32 session_name_len;
	u32 hostname_len;
	u32 base_path_len;	/* 0: none */
	u32 live_timer;		/* us; not 0 for a live session */
	u8 snapshot;
	u8 name_has_time;	/* 0: the daemon appends the creation time */
	u8 sessiond_uuid[16];	/* names the session's chunks; not all zero */
	u64 session_id;		/* ours, with the uuid */
	u64 creation_time;	/* s since the epoch */
	u8 chunk_id_set;	/* 0: no current chunk yet */
	u64 chunk_id;
} __attribute__((packed));

/* Its reply: then output_path_len bytes of the session's directory. */
struct relay_create_session_reply {
	u64 session_id;		/* the daemon's */
	u32 ret_code;
	u32 output_path_len;
} __attribute__((packed));

struct relay_create_chunk {
	u64 chunk_id;
	u64 creation_time;
	u32 name_len;		/* 0: the chunk is the session's directory */
} __attribute__((packed));

/* ADD_STREAM, protocol 2.11: then the channel's name and the path. */
struct relay_add_stream {
	u32 channel_name_len;
	u32 pathname_len;
	u64 tracefile_size;	/* 0: one file */
	u64 tracefile_count;	/* 0 */
	u64 chunk_id;
} __attribute__((packed));

struct relay_stream_reply {
	u64 handle;
	u32 ret_code;
} __attribute__((packed));

/* SEND_METADATA: then the text, which the daemon appends. */
struct relay_metadata {
	u64 stream;
	u32 padding;		/* zeros the daemon appends: 0 */
} __attribute__((packed));

struct relay_index {
	u64 stream;
	u64 net_seq_num;	/* the data's, which it pairs with */
	u64 packet_size;	/* bits; 0: a beacon */
	u64 content_size;
	u64 ts_begin;
	u64 ts_end;		/* a beacon's time */
	u64 discarded;
	u64 stream_id;
	u64 instance_id;
	u64 seq_num;
} __attribute__((packed));

/* CLOSE_STREAM and DATA_PENDING. */
struct relay_stream_seq {
	u64 stream;
	u64 net_seq_num;
} __attribute__((packed));

/* The data connection's header before each packet. */
struct relay_data_hdr {
	u64 circuit_id;
	u64 stream;
	u64 net_seq_num;
	u32 data_size;
	u32 padding;
} __attribute__((packed));

/* Most replies: a code (DATA_PENDING's is 0, done, or 1, pending). */
struct relay_reply {
	u32 ret_code;
} __attribute__((packed));

#endif /* IVRING_LIB_RELAY_WIRE_H */
