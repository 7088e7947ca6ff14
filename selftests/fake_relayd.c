// SPDX-License-Identifier: GPL-2.0 OR MIT
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * A relay daemon that lies, for test_relayd.sh: it speaks enough of
 * lttng-relayd's protocol (lib/record/relay_wire.h) to take a session,
 * then answers one command as a hostile or broken daemon would.
 *
 *   fake_relayd MODE PORTFILE
 *
 * It listens on two free ports of 127.0.0.1, writes "CONTROL DATA" to
 * PORTFILE once it listens, and serves one client until it hangs up.
 * MODE, what goes wrong:
 *   silent        nothing is ever answered
 *   major         VERSION answers 3.0
 *   old           VERSION answers 2.10
 *   short         VERSION answers 3 bytes and hangs up
 *   trickle       VERSION answers a byte every 300 ms
 *   pathlen       CREATE_SESSION names a directory of 100000 bytes
 *   refuse        CREATE_SESSION answers LTTNG_ERR_FATAL
 *   stream        ADD_STREAM answers an unknown code
 *   pending       DATA_PENDING answers 7
 *   stall         DATA_PENDING answers "not yet" for ever
 *   index         SEND_INDEX answers an error
 *   garbage       every answer after VERSION is 64 random bytes
 *   hangup        the connection is closed at the first SEND_INDEX
 *   none          nothing goes wrong (the control case)
 */
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

struct hdr {
	uint64_t circuit_id;
	uint64_t data_size;
	uint32_t cmd;
	uint32_t cmd_version;
} __attribute__((packed));

static const char *mode;

static int is(const char *m)
{
	return !strcmp(mode, m);
}

static int listen_any(unsigned int *port)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t len = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)) ||
	    listen(fd, 4) || getsockname(fd, (struct sockaddr *)&a, &len)) {
		perror("fake_relayd: listen");
		exit(1);
	}
	*port = ntohs(a.sin_port);
	return fd;
}

static int read_all(int fd, void *buf, size_t len)
{
	char *p = buf;
	ssize_t n;

	while (len) {
		n = read(fd, p, len);
		if (n <= 0)
			return -1;
		p += n;
		len -= n;
	}
	return 0;
}

static void put(int fd, const void *buf, size_t len)
{
	if (write(fd, buf, len) != (ssize_t)len)
		exit(0);
}

static void code(int fd, uint32_t c)
{
	c = htobe32(c);
	put(fd, &c, 4);
}

static void garbage(int fd)
{
	unsigned char b[64];
	size_t i;

	for (i = 0; i < sizeof(b); i++)
		b[i] = rand();
	put(fd, b, sizeof(b));
}

/* One control request answered; 0 to go on, 1 to hang up. */
static int answer(int fd, uint32_t cmd)
{
	static uint64_t handle = 100;
	uint32_t v[2] = { htobe32(2), htobe32(13) };
	unsigned char rep[16 + 32];
	uint64_t u;
	uint32_t w;

	if (cmd != 5 && is("garbage") && cmd != 6) {
		garbage(fd);
		return 0;
	}
	switch (cmd) {
	case 5:		/* VERSION */
		if (is("major"))
			v[0] = htobe32(3), v[1] = 0;
		if (is("old"))
			v[1] = htobe32(10);
		if (is("trickle")) {
			const char *b = (const char *)v;
			int i;

			for (i = 0; i < 8; i++) {
				usleep(300000);
				put(fd, b + i, 1);
			}
			return 0;
		}
		put(fd, v, is("short") ? 3 : 8);
		return is("short");
	case 2:		/* CREATE_SESSION */
		u = htobe64(7);
		memcpy(rep, &u, 8);
		w = htobe32(is("refuse") ? 25 : 10);
		memcpy(rep + 8, &w, 4);
		w = htobe32(is("pathlen") ? 100000 : 32);
		memcpy(rep + 12, &w, 4);
		memset(rep + 16, 'x', 32);
		rep[16 + 31] = 0;
		put(fd, rep, sizeof(rep));
		return 0;
	case 1:		/* ADD_STREAM */
		u = htobe64(handle++);
		memcpy(rep, &u, 8);
		w = htobe32(is("stream") ? 12345 : 10);
		memcpy(rep + 8, &w, 4);
		put(fd, rep, 12);
		return 0;
	case 6:		/* SEND_METADATA: no answer */
		return 0;
	case 8:		/* DATA_PENDING */
		code(fd, is("pending") ? 7 : is("stall") ? 1 : 0);
		return 0;
	case 13:	/* SEND_INDEX */
		if (is("hangup"))
			return 1;
		code(fd, is("index") ? 11 : 10);
		return 0;
	default:	/* CREATE_TRACE_CHUNK, STREAMS_SENT, CLOSE_STREAM */
		code(fd, 10);
		return 0;
	}
}

static int serve_control(int fd)
{
	struct hdr h;
	uint64_t len;
	char buf[65536];

	if (read_all(fd, &h, sizeof(h)))
		return 1;
	for (len = be64toh(h.data_size); len; ) {
		size_t n = len < sizeof(buf) ? len : sizeof(buf);

		if (read_all(fd, buf, n))
			return 1;
		len -= n;
	}
	return is("silent") ? 0 : answer(fd, be32toh(h.cmd));
}

int main(int argc, char **argv)
{
	unsigned int cport, dport;
	struct pollfd p[4];
	char buf[65536];
	int cl, dl;
	FILE *f;

	if (argc != 3) {
		fprintf(stderr, "usage: fake_relayd MODE PORTFILE\n");
		return 2;
	}
	mode = argv[1];
	srand(1);
	cl = listen_any(&cport);
	dl = listen_any(&dport);
	f = fopen(argv[2], "w");
	if (!f || fprintf(f, "%u %u\n", cport, dport) < 0 || fclose(f)) {
		perror("fake_relayd: the port file");
		return 1;
	}
	p[0] = (struct pollfd){ .fd = cl, .events = POLLIN };
	p[1] = (struct pollfd){ .fd = dl, .events = POLLIN };
	/* One client: its control connection at p[2], its data one at p[3]. */
	p[2] = (struct pollfd){ .fd = -1, .events = POLLIN };
	p[3] = (struct pollfd){ .fd = -1, .events = POLLIN };
	for (;;) {
		int i, fd;

		if (poll(p, 4, -1) < 0 && errno != EINTR)
			return 1;
		for (i = 0; i < 2; i++) {
			if (!(p[i].revents & POLLIN) || p[2 + i].fd >= 0)
				continue;
			fd = accept(p[i].fd, NULL, NULL);
			if (fd >= 0)
				p[2 + i].fd = fd;
		}
		if (p[2].fd >= 0 && (p[2].revents & (POLLIN | POLLHUP)) &&
		    serve_control(p[2].fd))
			return 0;
		if (p[3].fd >= 0 && (p[3].revents & (POLLIN | POLLHUP)) &&
		    read(p[3].fd, buf, sizeof(buf)) <= 0)
			return 0;
	}
}
