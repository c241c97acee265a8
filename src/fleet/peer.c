/*
 * peer.c - the uid of the far end of a local TCP connection (peer.h).
 *
 * One NETLINK_SOCK_DIAG request without NLM_F_DUMP: the kernel looks the
 * socket up by its exact four-tuple (inet_diag_find_one_icsk) and answers
 * with one inet_diag_msg, or an NLMSG_ERROR (-ENOENT when there is no such
 * socket in this network namespace).  No privilege is needed.  A socket
 * still in SYN-RECV is a request sock whose uid the kernel reports as 0:
 * it is never taken for root; the lookup is asked again for a moment
 * (the handshake's last ACK is on its way), then refused.
 */
#include "fleet/peer.h"

#include <arpa/inet.h>
#include <errno.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "core/i18n.h"

/* kernel TCP states (include/net/tcp_states.h) */
enum { ST_ESTABLISHED = 1, ST_SYN_RECV = 3, ST_NEW_SYN_RECV = 12 };
#define TRIES 200 /* of 1 ms each while the server's end is in SYN-RECV */

/* ESTABLISHED, FIN-WAIT-1/2, CLOSE-WAIT, LAST-ACK, CLOSING: a full socket
 * with its owner's uid (TIME-WAIT and the others report none) */
static bool connected(unsigned st)
{
	return st == ST_ESTABLISHED || st == 4 || st == 5 || st == 8 || st == 9 || st == 11;
}

int gd_peer_uid_parse(const void *buf, size_t len, uint32_t *uid, struct gd_err *err)
{
	const struct nlmsghdr *h = buf;
	size_t left = len;

	for (; NLMSG_OK(h, left); h = NLMSG_NEXT(h, left)) {
		if (h->nlmsg_type == NLMSG_ERROR) {
			const struct nlmsgerr *e = NLMSG_DATA(h);

			if (NLMSG_PAYLOAD(h, 0) < sizeof *e)
				return gd_err_set(err, -EPROTO, _("sock_diag: a truncated error message"));
			if (e->error == 0)
				continue;
			if (e->error == -ENOENT)
				return gd_err_set(err, -ENOENT, _("no such connection in this network namespace"));
			return gd_err_set(err, e->error < 0 ? e->error : -EPROTO, "sock_diag: %s",
					  strerror(e->error < 0 ? -e->error : EPROTO));
		}
		if (h->nlmsg_type == SOCK_DIAG_BY_FAMILY) {
			const struct inet_diag_msg *m = NLMSG_DATA(h);

			if (NLMSG_PAYLOAD(h, 0) < sizeof *m)
				return gd_err_set(err, -EPROTO, _("sock_diag: a truncated answer"));
			if (m->idiag_state == ST_SYN_RECV || m->idiag_state == ST_NEW_SYN_RECV)
				return gd_err_set(err, -EAGAIN, _("the server's end is still in SYN-RECV"));
			if (!connected(m->idiag_state))
				return gd_err_set(err, -ENOENT, _("the server's end is in TCP state %u, not connected"),
						  (unsigned)m->idiag_state);
			*uid = m->idiag_uid;
			return 0;
		}
		if (h->nlmsg_type == NLMSG_DONE)
			break;
	}
	return gd_err_set(err, -EPROTO, _("sock_diag: no answer about the connection"));
}

static int addr(const char *ip, int *family, __be32 out[4])
{
	memset(out, 0, 4 * sizeof out[0]);
	if (inet_pton(AF_INET, ip, out) == 1) {
		*family = AF_INET;
		return 0;
	}
	if (inet_pton(AF_INET6, ip, out) == 1) {
		*family = AF_INET6;
		return 0;
	}
	return -EINVAL;
}

static int ask(int fd, const struct inet_diag_req_v2 *r, uint32_t *uid, struct gd_err *err)
{
	struct {
		struct nlmsghdr h;
		struct inet_diag_req_v2 r;
	} req;
	struct sockaddr_nl nl = { .nl_family = AF_NETLINK };
	char buf[8192] __attribute__((aligned(NLMSG_ALIGNTO)));
	ssize_t n;

	memset(&req, 0, sizeof req);
	req.h.nlmsg_len = sizeof req;
	req.h.nlmsg_type = SOCK_DIAG_BY_FAMILY;
	req.h.nlmsg_flags = NLM_F_REQUEST;
	req.h.nlmsg_seq = 1;
	req.r = *r;
	if (sendto(fd, &req, sizeof req, 0, (struct sockaddr *)&nl, sizeof nl) < 0)
		return gd_err_set(err, -errno, "sock_diag: %s", strerror(errno));
	do
		n = recv(fd, buf, sizeof buf, 0);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return gd_err_set(err, -errno, "sock_diag: %s", strerror(errno));
	return gd_peer_uid_parse(buf, (size_t)n, uid, err);
}

int gd_tcp_peer_uid(const char *peer_ip, int peer_port, const char *local_ip, int local_port, uint32_t *uid,
		    struct gd_err *err)
{
	struct inet_diag_req_v2 r;
	int fam_peer, fam_local, fd, rc = -EAGAIN;

	memset(&r, 0, sizeof r);
	if (!peer_ip || !local_ip || addr(peer_ip, &fam_peer, r.id.idiag_src) < 0 ||
	    addr(local_ip, &fam_local, r.id.idiag_dst) < 0 || fam_peer != fam_local || peer_port <= 0 ||
	    peer_port > 65535 || local_port <= 0 || local_port > 65535)
		return gd_err_set(err, -EINVAL, _("cannot look up the connection %s:%d <- %s:%d"),
				  peer_ip ? peer_ip : "?", peer_port, local_ip ? local_ip : "?", local_port);
	r.sdiag_family = (__u8)fam_peer;
	r.sdiag_protocol = IPPROTO_TCP;
	r.idiag_states = ~0u;
	r.id.idiag_sport = htons((uint16_t)peer_port);
	r.id.idiag_dport = htons((uint16_t)local_port);
	r.id.idiag_cookie[0] = INET_DIAG_NOCOOKIE;
	r.id.idiag_cookie[1] = INET_DIAG_NOCOOKIE;
	fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
	if (fd < 0)
		return gd_err_set(err, -errno, "sock_diag: %s", strerror(errno));
	for (int i = 0; i < TRIES && rc == -EAGAIN; i++) {
		struct timespec ms = { 0, 1000000 };

		if (i)
			nanosleep(&ms, NULL);
		rc = ask(fd, &r, uid, err);
	}
	close(fd);
	return rc;
}
