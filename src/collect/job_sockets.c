/*
 * job_sockets.c - the TCP connections of GPU jobs and their round-trip
 * times, from the kernel: the socket inodes a GPU job (or a descendant)
 * holds (/proc/<pid>/fd links "socket:[48213]"), matched against a
 * NETLINK_SOCK_DIAG dump of this network namespace's TCP sockets
 * (inet_diag_req_v2, AF_INET and AF_INET6, every state but LISTEN, with
 * INET_DIAG_INFO: struct tcp_info), one job_sockets[] record per match:
 * the local and far address and port, the smoothed RTT and its variance,
 * the minimum RTT, retransmits and bytes acked and received.  So "the job
 * reads from a server 40 ms away" is a fact with the peer named.
 *
 * Only the live host: a fixture root has no kernel to ask (absent).  A job
 * in another network namespace (a container) has its sockets in that
 * namespace's table, not in ours: they stay unseen, and the source says
 * how many of the job's sockets no dump held.
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <linux/tcp.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "collect/collectors.h"
#include "collect/proc_pid.h"
#include "core/i18n.h"
#include "core/xalloc.h"
#include "model/jobs.h"

#define MAX_INODES 4096

/* A socket inode a GPU job holds and the job's pid. */
struct ino {
	uint64_t inode, pid;
};

/* The jobs' socket inodes, sorted: a dump keeps only these.  A host's table
 * can hold tens of thousands of sockets (TIME_WAIT ones from every client
 * of every service on it); pushing each into the snapshot before dropping
 * the others made the exporter's memory follow the host's socket count,
 * once per snapshot of its window (tests/exporter/soak.sh: 14 MiB to 53
 * MiB with other tests' connections on the host). */
struct keep {
	const struct ino *v;
	size_t n;
};

static int ino_cmp(const void *a, const void *b)
{
	const struct ino *x = a, *y = b;

	return x->inode < y->inode ? -1 : x->inode > y->inode;
}

/* ---- the parser: a buffer of netlink messages (gd_parsers[]) ------------ */

static void addr_port(char *dst, size_t sz, int family, const __be32 *a, __be16 port)
{
	char ip[INET6_ADDRSTRLEN] = "?";

	inet_ntop(family, a, ip, sizeof ip);
	if (family == AF_INET6)
		snprintf(dst, sz, "[%s]:%u", ip, (unsigned)ntohs(port));
	else
		snprintf(dst, sz, "%s:%u", ip, (unsigned)ntohs(port));
}

/* One inet_diag_msg with its attributes into a job_sockets[] record: every
 * one when keep is NULL (pid absent), else only a socket keep holds, with
 * its job's pid.  False when malformed (kept or not). */
static bool one_msg(const struct nlmsghdr *h, struct gd_snapshot *s, const struct keep *keep)
{
	const struct inet_diag_msg *m = NLMSG_DATA(h);
	size_t len = h->nlmsg_len, off;
	struct gd_job_socket rec, *js = &rec;
	const struct ino *hit = NULL;

	if (len < NLMSG_LENGTH(sizeof *m) || (m->idiag_family != AF_INET && m->idiag_family != AF_INET6))
		return false;
	memset(&rec, 0, sizeof rec);
	gd_u64_set(&js->inode, m->idiag_inode);
	gd_u64_set(&js->state, m->idiag_state);
	addr_port(js->local, sizeof js->local, m->idiag_family, m->id.idiag_src, m->id.idiag_sport);
	addr_port(js->peer, sizeof js->peer, m->idiag_family, m->id.idiag_dst, m->id.idiag_dport);
	for (off = NLMSG_ALIGN(NLMSG_LENGTH(sizeof *m)); off + sizeof(struct nlattr) <= len;) {
		const struct nlattr *a = (const struct nlattr *)((const char *)h + off);
		size_t alen = a->nla_len;

		if (alen < sizeof *a || off + alen > len)
			return false;
		if ((a->nla_type & NLA_TYPE_MASK) == INET_DIAG_INFO) {
			struct tcp_info ti;
			size_t n = alen - NLA_HDRLEN;

			/* older kernels send a shorter struct: what is missing stays 0 */
			memset(&ti, 0, sizeof ti);
			memcpy(&ti, (const char *)a + NLA_HDRLEN, n < sizeof ti ? n : sizeof ti);
			if (n >= offsetof(struct tcp_info, tcpi_rttvar) + sizeof ti.tcpi_rttvar) {
				gd_u64_set(&js->rtt_us, ti.tcpi_rtt);
				gd_u64_set(&js->rttvar_us, ti.tcpi_rttvar);
			}
			if (n >= offsetof(struct tcp_info, tcpi_total_retrans) + sizeof ti.tcpi_total_retrans)
				gd_u64_set(&js->retrans, ti.tcpi_total_retrans);
			if (n >= offsetof(struct tcp_info, tcpi_bytes_received) + sizeof ti.tcpi_bytes_received) {
				gd_u64_set(&js->bytes_acked, ti.tcpi_bytes_acked);
				gd_u64_set(&js->bytes_received, ti.tcpi_bytes_received);
			}
			if (n >= offsetof(struct tcp_info, tcpi_min_rtt) + sizeof ti.tcpi_min_rtt)
				gd_u64_set(&js->min_rtt_us, ti.tcpi_min_rtt);
		}
		off += NLA_ALIGN(alen);
	}
	if (keep) {
		struct ino key = { m->idiag_inode, 0 };

		if (!(hit = bsearch(&key, keep->v, keep->n, sizeof *keep->v, ino_cmp)))
			return true;   /* no job's socket */
		gd_u64_set(&rec.pid, hit->pid);
	}
	*GD_PUSH(s, job_sockets, struct gd_job_socket) = rec;
	return true;
}

/* Parses a dump reply: returns 1 when NLMSG_DONE was seen, 0 when more is
 * to come, negative on an error message or a malformed buffer. */
static int parse_dump(const char *buf, size_t len, struct gd_snapshot *s, const struct keep *keep,
		      struct gd_err *err)
{
	size_t off = 0;

	while (off + sizeof(struct nlmsghdr) <= len) {
		struct nlmsghdr h;

		memcpy(&h, buf + off, sizeof h);
		if (h.nlmsg_len < sizeof h || off + h.nlmsg_len > len) {
			gd_err_set(err, -EINVAL, _("netlink message of %u bytes at offset %zu past the %zu received"),
				   h.nlmsg_len, off, len);
			return -EINVAL;
		}
		if (h.nlmsg_type == NLMSG_DONE)
			return 1;
		if (h.nlmsg_type == NLMSG_ERROR) {
			int e = 0;

			if (h.nlmsg_len >= NLMSG_LENGTH(sizeof(struct nlmsgerr)))
				memcpy(&e, buf + off + NLMSG_HDRLEN, sizeof e);
			gd_err_set(err, e ? e : -EPROTO, "sock_diag: %s", strerror(e ? -e : EPROTO));
			return e ? e : -EPROTO;
		}
		if (h.nlmsg_type == SOCK_DIAG_BY_FAMILY) {
			/* an aligned copy: the buffer may come from anywhere */
			struct nlmsghdr *m = gd_xmalloc(h.nlmsg_len);

			memcpy(m, buf + off, h.nlmsg_len);
			if (!one_msg(m, s, keep)) {
				free(m);
				gd_err_set(err, -EINVAL, _("malformed inet_diag message at offset %zu"), off);
				return -EINVAL;
			}
			free(m);
		}
		off += NLMSG_ALIGN(h.nlmsg_len);
	}
	return 0;
}

int gd_parse_netlink_inet_diag(const char *buf, size_t len, struct gd_snapshot *s, struct gd_err *err)
{
	int rc = parse_dump(buf, len, s, NULL, err);

	return rc < 0 ? rc : 0;
}

/* ---- the collector --------------------------------------------------------- */

/* Adds the socket inodes of pid's fds to v. */
static void fd_sockets(const struct gd_collect_ctx *ctx, uint64_t pid, struct ino **v, size_t *n, size_t *cap)
{
	char rel[64], target[64];
	struct dirent *de;
	DIR *d;

	snprintf(rel, sizeof rel, "proc/%llu/fd", (unsigned long long)pid);
	if (!(d = gd_root_opendir(ctx->root, rel)))
		return;
	while ((de = readdir(d)) != NULL && *n < MAX_INODES) {
		unsigned long long ino;

		if (!gd_all_digits(de->d_name))
			continue;
		snprintf(rel, sizeof rel, "proc/%llu/fd/%.16s", (unsigned long long)pid, de->d_name);
		if (gd_root_readlink(ctx->root, rel, target, sizeof target) < 0 ||
		    sscanf(target, "socket:[%llu]", &ino) != 1)
			continue;
		if (*n == *cap) {
			*cap = *cap ? *cap * 2 : 64;
			*v = gd_xreallocarray(*v, *cap, sizeof **v);
		}
		(*v)[*n].inode = ino;
		(*v)[(*n)++].pid = pid;
	}
	closedir(d);
}

/* One dump of family's TCP sockets: those keep holds into s. */
static int dump(int fd, int family, struct gd_snapshot *s, const struct keep *keep, struct gd_err *err)
{
	struct {
		struct nlmsghdr h;
		struct inet_diag_req_v2 r;
	} req;
	struct sockaddr_nl nl = { .nl_family = AF_NETLINK };
	static const size_t bufsz = 32768;
	char *buf;
	int rc = 0;

	memset(&req, 0, sizeof req);
	req.h.nlmsg_len = sizeof req;
	req.h.nlmsg_type = SOCK_DIAG_BY_FAMILY;
	req.h.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	req.r.sdiag_family = (__u8)family;
	req.r.sdiag_protocol = IPPROTO_TCP;
	req.r.idiag_states = ~(1u << 10) & 0xfff;   /* every state but LISTEN (10) */
	req.r.idiag_ext = 1u << (INET_DIAG_INFO - 1);
	if (sendto(fd, &req, sizeof req, 0, (struct sockaddr *)&nl, sizeof nl) < 0) {
		gd_err_set(err, -errno, "sock_diag request: %s", strerror(errno));
		return -errno;
	}
	buf = gd_xmalloc(bufsz);
	while (rc == 0) {
		ssize_t got = recv(fd, buf, bufsz, 0);

		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0) {
			rc = got < 0 ? -errno : -EPROTO;
			gd_err_set(err, rc, "sock_diag reply: %s", got < 0 ? strerror(errno) : _("closed"));
			break;
		}
		rc = parse_dump(buf, (size_t)got, s, keep, err);
	}
	free(buf);
	return rc < 0 ? rc : 0;
}

enum gd_src_status gd_collect_job_sockets(const struct gd_collect_ctx *ctx, struct gd_snapshot *s, struct gd_err *err)
{
	struct ino *inos = NULL;
	struct keep keep;
	size_t n = 0, cap = 0;
	unsigned char *marks;
	int fd, rc = 0;

	if (!s->procs.n)
		return GD_SRC_OK;
	marks = gd_xcalloc(s->procs.n, 1);
	if (gd_snapshot_gpu_job_marks(s, marks) == 0) {
		free(marks);
		return GD_SRC_OK;
	}
	if (!ctx->root->is_host) {
		free(marks);
		gd_err_set(err, -ENOENT, _("not read: the root is not this host's / (a fixture or a copied tree): its "
			     "sockets cannot be asked for"));
		return GD_SRC_ABSENT;
	}
	for (size_t i = 0; i < s->procs.n; i++) {
		const struct gd_proc *p = GD_VEC_AT(s->procs, struct gd_proc, i);

		if (marks[i] && p->pid.ok && !(p->kthread.ok && p->kthread.v))
			fd_sockets(ctx, p->pid.v, &inos, &n, &cap);
	}
	free(marks);
	if (!n) {
		free(inos);
		return GD_SRC_OK;   /* GPU jobs without sockets (or with unreadable fds: processes says so) */
	}
	qsort(inos, n, sizeof *inos, ino_cmp);
	fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
	if (fd < 0) {
		rc = -errno;
		free(inos);
		gd_err_set(err, rc, "socket(NETLINK_SOCK_DIAG): %s", strerror(-rc));
		return gd_src_status_of_errno(rc) == GD_SRC_DENIED ? GD_SRC_DENIED : GD_SRC_ABSENT;
	}
	keep.v = inos;
	keep.n = n;
	if ((rc = dump(fd, AF_INET, s, &keep, err)) == 0)
		rc = dump(fd, AF_INET6, s, &keep, err);
	close(fd);
	free(inos);
	if (rc < 0)
		return GD_SRC_PARTIAL;
	return GD_SRC_OK;
}
