// SPDX-License-Identifier: LGPL-2.1 OR MIT
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * A session on lttng-relayd (relay.h): two TCP connections, requests and
 * their replies, each reply read within the timeout and checked.  A
 * connection that failed once, or a reply that made no sense, ends the
 * session: every later call fails with that first reason, and the caller
 * starts a new one.
 */
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>
#include <endian.h>

#include "record/relay.h"
#include "record/relay_wire.h"

/* Index replies owed before they are read: far below a socket's buffer. */
#define OWED_MAX	256
/* The longest session directory a reply may name. */
#define OUTPUT_MAX	4096
/* Names as the daemon takes them, and as its live viewers list them. */
#define SESSION_NAME_MAX	254
#define HOSTNAME_MAX		63
#define PATHNAME_MAX		254

struct ivr_relay {
	int ctl;
	int data;
	int timeout_ms;
	u64 deadline;		/* of the call in progress (arm()) */
	u32 minor;		/* agreed */
	u32 owed;		/* index replies not read yet */
	/* Index requests queued, sent in one go before anything else. */
	u8 queue[OWED_MAX * (sizeof(struct relay_hdr) + sizeof(struct relay_index))];
	size_t queued;
	bool broken;
	u64 chunk_id;
	struct ivr_msg err;
};

/* The first failure ends the session: later calls report it. */
static int fail(struct ivr_relay *rl, int ret, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail(struct ivr_relay *rl, int ret, const char *fmt, ...)
{
	va_list ap;

	if (rl->broken)
		return ret;
	rl->broken = true;
	va_start(ap, fmt);
	vsnprintf(rl->err.text, sizeof(rl->err.text), fmt, ap);
	va_end(ap);
	return ret;
}

static int broken(struct ivr_relay *rl)
{
	return rl->broken ? -EPIPE : 0;
}

/*
 * Each call is bounded as a whole: a daemon that trickles a byte at a
 * time holds it no longer than one that says nothing.
 */
static void arm(struct ivr_relay *rl)
{
	rl->deadline = ivr_mono_ns() + (u64)rl->timeout_ms * 1000000ULL;
}

/* Until @fd is ready for @events: 0, or -ETIMEDOUT at the deadline. */
static int wait_fd(struct ivr_relay *rl, int fd, short events)
{
	struct pollfd p = { .fd = fd, .events = events };
	u64 now;
	int ret;

	for (;;) {
		now = ivr_mono_ns();
		if (now >= rl->deadline)
			return -ETIMEDOUT;
		ret = poll(&p, 1, (int)((rl->deadline - now + 999999) / 1000000));
		if (ret > 0)
			return 0;
		if (ret < 0 && errno != EINTR)
			return -errno;
	}
}

/* All of @iov's bytes to @fd, before the deadline. */
static int send_iov(struct ivr_relay *rl, int fd, struct iovec *iov,
		    int nr, const char *what)
{
	struct msghdr m = { .msg_iov = iov, .msg_iovlen = nr };
	ssize_t n;
	int ret;

	while (m.msg_iovlen) {
		n = sendmsg(fd, &m, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			ret = wait_fd(rl, fd, POLLOUT);
			if (ret == -ETIMEDOUT)
				return fail(rl, ret,
					    "lttng-relayd took not all of %s within %d ms",
					    what, rl->timeout_ms);
			if (ret)
				return fail(rl, ret, "lttng-relayd: sending %s: %s",
					    what, strerror(-ret));
			continue;
		}
		if (n < 0)
			return fail(rl, -errno, "lttng-relayd: sending %s: %s",
				    what, strerror(errno));
		while (m.msg_iovlen && (size_t)n >= m.msg_iov->iov_len) {
			n -= m.msg_iov->iov_len;
			m.msg_iov++;
			m.msg_iovlen--;
		}
		if (n) {
			m.msg_iov->iov_base = (u8 *)m.msg_iov->iov_base + n;
			m.msg_iov->iov_len -= n;
		}
	}
	return 0;
}

static int send_all(struct ivr_relay *rl, int fd, const void *buf, size_t len,
		    const char *what)
{
	struct iovec iov = { (void *)buf, len };

	return len ? send_iov(rl, fd, &iov, 1, what) : 0;
}

/* Exactly @len bytes of a reply to @what, before the deadline. */
static int recv_all(struct ivr_relay *rl, void *buf, size_t len,
		    const char *what)
{
	u8 *p = buf;
	int one = 1, ret;
	ssize_t n;

	while (len) {
		/*
		 * The daemon's small replies wait under Nagle's algorithm
		 * for the ACK of the one before, which Linux delays up to
		 * 40 ms: ACK at once (the flag lasts until the next recv).
		 */
		setsockopt(rl->ctl, IPPROTO_TCP, TCP_QUICKACK, &one, sizeof(one));
		n = recv(rl->ctl, p, len, MSG_DONTWAIT);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			ret = wait_fd(rl, rl->ctl, POLLIN);
			if (ret == -ETIMEDOUT)
				return fail(rl, ret,
					    "lttng-relayd did not answer %s within %d ms",
					    what, rl->timeout_ms);
			if (ret)
				return fail(rl, ret, "lttng-relayd: the answer to %s: %s",
					    what, strerror(-ret));
			continue;
		}
		if (n < 0)
			return fail(rl, -errno, "lttng-relayd: the answer to %s: %s",
				    what, strerror(errno));
		if (!n)
			return fail(rl, -ECONNRESET,
				    "lttng-relayd closed the connection instead of answering %s",
				    what);
		p += n;
		len -= n;
	}
	return 0;
}

/* The queued index requests, sent. */
static int send_queue(struct ivr_relay *rl)
{
	int ret = 0;

	if (rl->queued)
		ret = send_all(rl, rl->ctl, rl->queue, rl->queued,
			       "a packet's index");
	rl->queued = 0;
	return ret;
}

/* A request: its header, @len bytes of @body, then @tail (a string or NULL). */
static int request(struct ivr_relay *rl, u32 cmd, const void *body,
		   size_t len, const void *tail, size_t tail_len,
		   const char *what)
{
	struct relay_hdr h = {
		.data_size = htobe64(len + tail_len),
		.cmd = htobe32(cmd),
	};
	int ret = broken(rl);

	if (!ret)
		ret = send_queue(rl);

	if (!ret)
		ret = send_all(rl, rl->ctl, &h, sizeof(h), what);
	if (!ret && len)
		ret = send_all(rl, rl->ctl, body, len, what);
	if (!ret && tail_len)
		ret = send_all(rl, rl->ctl, tail, tail_len, what);
	return ret;
}

/* A reply of one code, which must be @want. */
static int expect_code(struct ivr_relay *rl, u32 want, const char *what)
{
	struct relay_reply r;
	int ret = recv_all(rl, &r, sizeof(r), what);

	if (ret)
		return ret;
	if (be32toh(r.ret_code) != want)
		return fail(rl, -EPROTO, "lttng-relayd refused %s (code %u)",
			    what, be32toh(r.ret_code));
	return 0;
}

/* The index replies still owed, read. */
static int settle(struct ivr_relay *rl)
{
	int ret = broken(rl);

	if (!ret)
		ret = send_queue(rl);
	while (!ret && rl->owed) {
		ret = expect_code(rl, RELAY_OK, "a packet's index");
		rl->owed--;
	}
	return ret;
}

/*
 * net://HOST[:CONTROL[:DATA]] or net6://; HOST may be [ADDRESS].  The
 * parts into @host (of @len bytes) and the ports; 0, or -EINVAL with why.
 */
static int parse_url(const char *url, char *host, size_t len, int *family,
		     unsigned int *ctl, unsigned int *data, struct ivr_msg *why)
{
	const char *p, *end;
	unsigned long port[2] = { RELAY_CONTROL_PORT, RELAY_DATA_PORT };
	char *e;
	int i;

	if (!strncmp(url, "net://", 6)) {
		*family = AF_UNSPEC;
		p = url + 6;
	} else if (!strncmp(url, "net6://", 7)) {
		*family = AF_INET6;
		p = url + 7;
	} else {
		return ivr_msg_set(why, -EINVAL,
				   "a relay daemon is net://HOST[:CONTROL_PORT[:DATA_PORT]] (or net6://)");
	}
	if (*p == '[') {
		end = strchr(p, ']');
		if (!end)
			return ivr_msg_set(why, -EINVAL, "no ']' after the address");
		p++;
	} else {
		end = p + strcspn(p, ":/");
	}
	if (end == p || (size_t)(end - p) >= len)
		return ivr_msg_set(why, -EINVAL, "no host, or too long a one");
	memcpy(host, p, end - p);
	host[end - p] = '\0';
	p = end + (*end == ']');
	for (i = 0; i < 2 && *p == ':'; i++) {
		errno = 0;
		port[i] = strtoul(p + 1, &e, 10);
		if (e == p + 1 || errno || !port[i] || port[i] > 65535)
			return ivr_msg_set(why, -EINVAL, "a port is 1 to 65535");
		p = e;
	}
	if (*p)
		return ivr_msg_set(why, -EINVAL,
				   "'%s' after the ports; ivring names the session's paths itself",
				   p);
	*ctl = port[0];
	*data = port[1];
	return 0;
}

int ivr_relay_resolve(const char *url, struct ivr_relay_dest *d,
		      struct ivr_msg *why)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM };
	struct addrinfo *ai, *a;
	int ret;

	memset(d, 0, sizeof(*d));
	ret = parse_url(url, d->host, sizeof(d->host), &hints.ai_family,
			&d->ctl_port, &d->data_port, why);
	if (ret)
		return ret;
	ret = getaddrinfo(d->host, NULL, &hints, &ai);
	if (ret)
		return ivr_msg_set(why, -EHOSTUNREACH, "%s: %s", d->host,
				   gai_strerror(ret));
	for (a = ai; a && d->nr < IVR_RELAY_ADDRS; a = a->ai_next) {
		if ((a->ai_family != AF_INET && a->ai_family != AF_INET6) ||
		    a->ai_addrlen > sizeof(d->addr[0]))
			continue;
		memcpy(&d->addr[d->nr], a->ai_addr, a->ai_addrlen);
		d->len[d->nr++] = a->ai_addrlen;
	}
	freeaddrinfo(ai);
	if (!d->nr)
		return ivr_msg_set(why, -EHOSTUNREACH,
				   "%s: no IPv4 or IPv6 address", d->host);
	return 0;
}

static void set_port(struct sockaddr_storage *ss, unsigned int port)
{
	if (ss->ss_family == AF_INET)
		((struct sockaddr_in *)ss)->sin_port = htons(port);
	else
		((struct sockaddr_in6 *)ss)->sin6_port = htons(port);
}

/* A connected TCP socket to one of @d's addresses within @timeout_ms. */
static int dial(const struct ivr_relay_dest *d, unsigned int port,
		int timeout_ms, struct ivr_msg *why)
{
	struct sockaddr_storage ss;
	int fd = -1, err = 0, one = 1, ret;
	socklen_t elen = sizeof(err);
	struct pollfd pfd;
	u32 i;

	for (i = 0; i < d->nr; i++) {
		ss = d->addr[i];
		set_port(&ss, port);
		fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC |
			    SOCK_NONBLOCK, 0);
		if (fd < 0) {
			err = errno;
			continue;
		}
		if (!connect(fd, (struct sockaddr *)&ss, d->len[i])) {
			err = 0;
		} else if (errno != EINPROGRESS) {
			err = errno;
		} else {
			pfd = (struct pollfd){ .fd = fd, .events = POLLOUT };
			do
				ret = poll(&pfd, 1, timeout_ms);
			while (ret < 0 && errno == EINTR);
			if (ret == 0)
				err = ETIMEDOUT;
			else if (ret < 0 ||
				 getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &elen))
				err = errno;
		}
		if (!err)
			break;
		close(fd);
		fd = -1;
	}
	if (fd < 0)
		return ivr_msg_set(why, -(err ? err : EHOSTUNREACH),
				   "lttng-relayd at %s port %u: %s", d->host,
				   port, strerror(err ? err : EHOSTUNREACH));
	/* Non-blocking: each call waits with poll(), up to its deadline. */
	if (setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one))) {
		err = errno;
		close(fd);
		return ivr_msg_set(why, -err, "lttng-relayd at %s: %s",
				   d->host, strerror(err));
	}
	return fd;
}

/* A name the daemon makes a directory of: no '/', no leading '.'. */
static bool path_safe(const char *s, size_t max)
{
	size_t n = strlen(s);

	return n && n <= max && s[0] != '.' && !strchr(s, '/');
}

static int version(struct ivr_relay *rl)
{
	struct relay_version v = { htobe32(RELAY_MAJOR), htobe32(RELAY_MINOR) };
	int ret;

	ret = request(rl, RELAY_VERSION, &v, sizeof(v), NULL, 0,
		      "the protocol's version");
	if (!ret)
		ret = recv_all(rl, &v, sizeof(v), "the protocol's version");
	if (ret)
		return ret;
	v.major = be32toh(v.major);
	v.minor = be32toh(v.minor);
	if (v.major != RELAY_MAJOR || v.minor < RELAY_MINOR_MIN)
		return fail(rl, -EPROTONOSUPPORT,
			    "lttng-relayd speaks protocol %u.%u; ivring speaks %u.%u to %u.%u (LTTng 2.11 and later)",
			    v.major, v.minor, RELAY_MAJOR, RELAY_MINOR_MIN,
			    RELAY_MAJOR, RELAY_MINOR);
	rl->minor = v.minor < RELAY_MINOR ? v.minor : RELAY_MINOR;
	return 0;
}

static int create_session(struct ivr_relay *rl, const struct ivr_relay_conf *c)
{
	size_t nlen = strlen(c->session) + 1, hlen = strlen(c->hostname) + 1;
	size_t blen = c->base_path ? strlen(c->base_path) + 1 : 0;
	struct relay_create_session cs = {
		.session_name_len = htobe32(nlen),
		.hostname_len = htobe32(hlen),
		.base_path_len = htobe32(blen),
		.live_timer = htobe32(c->live_timer_us),
		.creation_time = htobe64((u64)time(NULL)),
	};
	struct relay_create_session_reply rep;
	struct relay_create_chunk ch = { 0 };
	char names[SESSION_NAME_MAX + HOSTNAME_MAX + PATHNAME_MAX + 3];
	char output[OUTPUT_MAX];	/* the daemon's directory for it: read past */
	u64 id;
	u32 len;
	int ret;

	/*
	 * The uuid and id name the session's trace chunks in the daemon,
	 * across all its clients: random, never all zeros.
	 */
	do {
		if (getrandom(cs.sessiond_uuid, sizeof(cs.sessiond_uuid), 0) !=
			    sizeof(cs.sessiond_uuid) ||
		    getrandom(&id, sizeof(id), 0) != sizeof(id))
			return fail(rl, -errno, "getrandom: %s", strerror(errno));
	} while (!id);
	cs.session_id = htobe64(id);
	memcpy(names, c->session, nlen);
	memcpy(names + nlen, c->hostname, hlen);
	if (blen)
		memcpy(names + nlen + hlen, c->base_path, blen);
	ret = request(rl, RELAY_CREATE_SESSION, &cs, sizeof(cs), names,
		      nlen + hlen + blen, "a new session");
	if (!ret)
		ret = recv_all(rl, &rep, sizeof(rep), "a new session");
	if (ret)
		return ret;
	len = be32toh(rep.output_path_len);
	if (be32toh(rep.ret_code) != RELAY_OK)
		return fail(rl, -EPROTO,
			    "lttng-relayd refused the session %s of host %s (code %u)",
			    c->session, c->hostname, be32toh(rep.ret_code));
	if (!len || len > sizeof(output))
		return fail(rl, -EPROTO,
			    "lttng-relayd named the session's directory in %u bytes",
			    len);
	ret = recv_all(rl, output, len, "a new session");
	if (ret)
		return ret;
	/* Its one chunk, the session's own directory, holds the streams. */
	ch.creation_time = cs.creation_time;
	ret = request(rl, RELAY_CREATE_TRACE_CHUNK, &ch, sizeof(ch), NULL, 0,
		      "the session's trace chunk");
	return ret ? ret : expect_code(rl, RELAY_OK, "the session's trace chunk");
}

int ivr_relay_open(const struct ivr_relay_conf *c, struct ivr_relay **out,
		   struct ivr_msg *why)
{
	struct ivr_relay *rl;
	int ret;

	*out = NULL;
	if (!path_safe(c->session, SESSION_NAME_MAX))
		return ivr_msg_set(why, -EINVAL,
				   "'%s': a relay session's name is 1 to %d bytes, with no '/' and no leading '.'",
				   c->session, SESSION_NAME_MAX);
	if (!path_safe(c->hostname, HOSTNAME_MAX))
		return ivr_msg_set(why, -EINVAL,
				   "'%s': a relay session's hostname is 1 to %d bytes, with no '/' and no leading '.'",
				   c->hostname, HOSTNAME_MAX);
	if (c->base_path && !path_safe(c->base_path, PATHNAME_MAX))
		return ivr_msg_set(why, -EINVAL,
				   "'%s': a relay session's directory is 1 to %d bytes, with no '/' and no leading '.'",
				   c->base_path, PATHNAME_MAX);
	rl = calloc(1, sizeof(*rl));
	if (!rl)
		return ivr_msg_set(why, -ENOMEM, "out of memory for a relay session");
	rl->timeout_ms = c->timeout_ms;
	rl->data = -1;
	rl->ctl = dial(c->dest, c->dest->ctl_port, c->timeout_ms, why);
	if (rl->ctl < 0) {
		ret = rl->ctl;
		free(rl);
		return ret;
	}
	arm(rl);
	ret = version(rl);
	if (!ret)
		ret = create_session(rl, c);
	if (!ret) {
		rl->data = dial(c->dest, c->dest->data_port, c->timeout_ms, why);
		if (rl->data < 0)
			ret = rl->data;
		else
			*out = rl;
	} else {
		*why = rl->err;
	}
	if (ret)
		ivr_relay_free(rl);
	return ret;
}

int ivr_relay_check(struct ivr_relay *rl)
{
	/* Replies owed are readable: then only a hang-up says it is gone. */
	short ctl_ev = rl->owed ? POLLRDHUP : POLLIN | POLLRDHUP;
	struct pollfd p[2] = {
		{ .fd = rl->ctl, .events = ctl_ev },
		{ .fd = rl->data, .events = POLLIN | POLLRDHUP },
	};
	int ret = broken(rl);

	if (ret)
		return ret;
	if (poll(p, 2, 0) > 0)
		return fail(rl, -ECONNRESET,
			    "lttng-relayd closed the connection");
	return 0;
}

const char *ivr_relay_errmsg(const struct ivr_relay *rl)
{
	return rl->err.text;
}

int ivr_relay_add_stream(struct ivr_relay *rl, const char *path,
			 const char *channel, u64 *handle)
{
	size_t clen = strlen(channel) + 1, plen = strlen(path) + 1;
	struct relay_add_stream as = {
		.channel_name_len = htobe32(clen),
		.pathname_len = htobe32(plen),
		.chunk_id = htobe64(rl->chunk_id),
	};
	struct relay_stream_reply rep;
	char names[2 * (PATHNAME_MAX + 1)];
	int ret;

	if (clen > PATHNAME_MAX + 1 || plen > PATHNAME_MAX + 1)
		return fail(rl, -EINVAL, "a stream's name or path is too long");
	memcpy(names, channel, clen);
	memcpy(names + clen, path, plen);
	arm(rl);
	ret = settle(rl);
	if (!ret)
		ret = request(rl, RELAY_ADD_STREAM, &as, sizeof(as), names,
			      clen + plen, "a new stream");
	if (!ret)
		ret = recv_all(rl, &rep, sizeof(rep), "a new stream");
	if (ret)
		return ret;
	if (be32toh(rep.ret_code) != RELAY_OK)
		return fail(rl, -EPROTO, "lttng-relayd refused the stream %s/%s (code %u)",
			    path, channel, be32toh(rep.ret_code));
	*handle = be64toh(rep.handle);
	return 0;
}

int ivr_relay_streams_sent(struct ivr_relay *rl)
{
	int ret;

	arm(rl);
	ret = settle(rl);
	if (!ret)
		ret = request(rl, RELAY_STREAMS_SENT, NULL, 0, NULL, 0,
			      "the streams' publication");
	return ret ? ret : expect_code(rl, RELAY_OK, "the streams' publication");
}

int ivr_relay_metadata(struct ivr_relay *rl, u64 handle, const void *text,
		       size_t len)
{
	struct relay_metadata m = { .stream = htobe64(handle) };
	u8 body[sizeof(m)];

	memcpy(body, &m, sizeof(m));
	arm(rl);
	return request(rl, RELAY_SEND_METADATA, body, sizeof(body), text, len,
		       "the metadata");
}

/*
 * An index request, queued: the queue goes out before any other request,
 * and with the replies it is owed read, once OWED_MAX are.
 */
static int send_index(struct ivr_relay *rl, const struct relay_index *ix)
{
	struct relay_hdr h = {
		.data_size = htobe64(sizeof(*ix)),
		.cmd = htobe32(RELAY_SEND_INDEX),
	};
	int ret = broken(rl);

	if (!ret && rl->owed >= OWED_MAX)
		ret = settle(rl);
	if (ret)
		return ret;
	memcpy(rl->queue + rl->queued, &h, sizeof(h));
	memcpy(rl->queue + rl->queued + sizeof(h), ix, sizeof(*ix));
	rl->queued += sizeof(h) + sizeof(*ix);
	rl->owed++;
	return 0;
}

int ivr_relay_packet(struct ivr_relay *rl, u64 handle, u64 seq,
		     const void *pkt, size_t len,
		     const struct ivr_relay_index *ix)
{
	struct relay_data_hdr d = {
		.stream = htobe64(handle),
		.net_seq_num = htobe64(seq),
		.data_size = htobe32(len),
	};
	struct relay_index i = {
		.stream = htobe64(handle),
		.net_seq_num = htobe64(seq),
		.packet_size = htobe64(ix->packet_size),
		.content_size = htobe64(ix->content_size),
		.ts_begin = htobe64(ix->ts_begin),
		.ts_end = htobe64(ix->ts_end),
		.discarded = htobe64(ix->discarded),
		.stream_id = htobe64(ix->stream_id),
		.instance_id = htobe64(ix->instance_id),
		.seq_num = htobe64(ix->seq_num),
	};
	struct iovec iov[2] = {
		{ &d, sizeof(d) },
		{ (void *)pkt, len },
	};
	int ret = broken(rl);

	if (!ret && (len > UINT32_MAX || ix->packet_size != (u64)len * 8))
		return fail(rl, -EINVAL, "a packet of %zu bytes whose index says %llu bits",
			    len, (unsigned long long)ix->packet_size);
	/*
	 * Nothing may fail once the data went out, or the packet would go
	 * again to the next session: the replies owed are read first.
	 */
	arm(rl);
	if (!ret && rl->owed >= OWED_MAX)
		ret = settle(rl);
	if (!ret)
		ret = send_iov(rl, rl->data, iov, 2, "a packet");
	return ret ? ret : send_index(rl, &i);
}

int ivr_relay_beacon(struct ivr_relay *rl, u64 handle, u64 stream_id, u64 ts)
{
	struct relay_index i = {
		.stream = htobe64(handle),
		.ts_end = htobe64(ts),
		.stream_id = htobe64(stream_id),
	};

	arm(rl);
	return send_index(rl, &i);
}

/*
 * DATA_PENDING until the daemon has stream @handle up to @seq.  It
 * answers "not yet" while its one thread has not drained the data
 * connection, which takes about a millisecond per MiB: asked again after
 * 20 us, twice as long each time up to 1 ms, until the timeout.
 */
static int wait_written(struct ivr_relay *rl, u64 handle, u64 seq)
{
	struct relay_stream_seq q = { htobe64(handle), htobe64(seq) };
	struct timespec nap = { 0, 20000 };
	struct relay_reply r;
	int ret;

	for (;;) {
		ret = request(rl, RELAY_DATA_PENDING, &q, sizeof(q), NULL, 0,
			      "whether it has the packets");
		if (!ret)
			ret = recv_all(rl, &r, sizeof(r),
				       "whether it has the packets");
		if (ret)
			return ret;
		r.ret_code = be32toh(r.ret_code);
		if (r.ret_code == 0)
			return 0;
		if (r.ret_code != 1)
			return fail(rl, -EPROTO,
				    "lttng-relayd answered %u to whether it has the packets",
				    r.ret_code);
		if (ivr_mono_ns() > rl->deadline)
			return fail(rl, -ETIMEDOUT,
				    "lttng-relayd did not write the packets within %d ms",
				    rl->timeout_ms);
		nanosleep(&nap, NULL);
		if (nap.tv_nsec < 1000000)
			nap.tv_nsec *= 2;
	}
}

int ivr_relay_sync(struct ivr_relay *rl, const u64 *handles, const u64 *seqs,
		   u32 nr)
{
	u32 i;
	int ret;

	arm(rl);
	ret = settle(rl);
	for (i = 0; i < nr && !ret; i++)
		ret = wait_written(rl, handles[i], seqs[i]);
	return ret;
}

int ivr_relay_close_stream(struct ivr_relay *rl, u64 handle, u64 last)
{
	struct relay_stream_seq q = { htobe64(handle), htobe64(last) };
	int ret;

	arm(rl);
	ret = settle(rl);
	if (!ret)
		ret = request(rl, RELAY_CLOSE_STREAM, &q, sizeof(q), NULL, 0,
			      "a stream's end");
	return ret ? ret : expect_code(rl, RELAY_OK, "a stream's end");
}

void ivr_relay_free(struct ivr_relay *rl)
{
	if (!rl)
		return;
	if (rl->ctl >= 0)
		close(rl->ctl);
	if (rl->data >= 0)
		close(rl->data);
	free(rl);
}
