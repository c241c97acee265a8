/*
 * test_job_sockets.c - the TCP connections of GPU jobs: the sock_diag
 * parser over a real dump from this machine's kernel (a loopback
 * connection the test makes), over truncated and malformed buffers, and
 * net.remote_data_latency over hand-built windows: firing with the far
 * peer, silent for loopback, near peers and idle connections, unknown
 * when the connections could not be read.
 */
#include "testutil.h"

#include <arpa/inet.h>
#include <errno.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <netinet/in.h>
#include <stdio.h>
#include <sys/socket.h>
#include <unistd.h>

/* Asks this host's kernel for its established IPv4 TCP sockets with
 * tcp_info and parses every reply chunk into s, as the collector does;
 * the first chunk is kept in buf (its length in *first). */
static void real_dump(struct gd_snapshot *s, char *buf, size_t cap, size_t *first)
{
	struct {
		struct nlmsghdr h;
		struct inet_diag_req_v2 r;
	} req;
	struct sockaddr_nl nl = { .nl_family = AF_NETLINK };
	int fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
	static char more[65536];
	struct gd_err err;
	int done = 0;

	assert_true(fd >= 0);
	memset(&req, 0, sizeof req);
	req.h.nlmsg_len = sizeof req;
	req.h.nlmsg_type = SOCK_DIAG_BY_FAMILY;
	req.h.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	req.r.sdiag_family = AF_INET;
	req.r.sdiag_protocol = IPPROTO_TCP;
	req.r.idiag_states = 1u << 1;   /* ESTABLISHED */
	req.r.idiag_ext = 1u << (INET_DIAG_INFO - 1);
	assert_true(sendto(fd, &req, sizeof req, 0, (struct sockaddr *)&nl, sizeof nl) == (ssize_t)sizeof req);
	*first = 0;
	for (int chunk = 0; !done && chunk < 10000; chunk++) {
		char *b = chunk ? more : buf;
		ssize_t got = recv(fd, b, chunk ? sizeof more : cap, 0);
		size_t off = 0;

		assert_true(got > 0);
		if (!chunk)
			*first = (size_t)got;
		gd_err_clear(&err);
		assert_int_equal(gd_parse_netlink_inet_diag(b, (size_t)got, s, &err), 0);
		/* the collector's loop ends at NLMSG_DONE: so does this one */
		while (off + sizeof(struct nlmsghdr) <= (size_t)got) {
			struct nlmsghdr h;

			memcpy(&h, b + off, sizeof h);
			done |= h.nlmsg_type == NLMSG_DONE;
			if (h.nlmsg_len < sizeof h)
				break;
			off += NLMSG_ALIGN(h.nlmsg_len);
		}
	}
	close(fd);
	assert_true(done);
}

static void test_parse_real_dump(void **state)
{
	struct gd_snapshot s;
	struct gd_err err;
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t alen = sizeof a;
	int l = socket(AF_INET, SOCK_STREAM, 0), c = socket(AF_INET, SOCK_STREAM, 0), acc;
	static char buf[65536];
	char peer[64];
	size_t len;
	bool found = false;

	(void)state;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(bind(l, (struct sockaddr *)&a, sizeof a), 0);
	assert_int_equal(listen(l, 1), 0);
	assert_int_equal(getsockname(l, (struct sockaddr *)&a, &alen), 0);
	assert_int_equal(connect(c, (struct sockaddr *)&a, sizeof a), 0);
	acc = accept(l, NULL, NULL);
	assert_true(acc >= 0);
	assert_int_equal(write(c, "ping", 4), 4);
	gd_snapshot_init(&s);
	real_dump(&s, buf, sizeof buf, &len);
	snprintf(peer, sizeof peer, "127.0.0.1:%u", (unsigned)ntohs(a.sin_port));
	GD_VEC_EACH(s.job_sockets, const struct gd_job_socket, js) {
		if (strcmp(js->peer, peer) != 0)
			continue;
		found = true;
		assert_true(js->inode.ok && js->inode.v > 0);
		assert_true(js->state.ok && js->state.v == 1);
		assert_true(js->rtt_us.ok);
		assert_true(js->bytes_acked.ok && js->bytes_acked.v >= 4);
		assert_false(js->pid.ok);   /* the collector sets it */
	}
	assert_true(found);
	/* cut in the middle of a message: an error, what came before kept */
	gd_snapshot_release(&s);
	gd_snapshot_init(&s);
	{
		struct nlmsghdr h;

		memcpy(&h, buf, sizeof h);
		assert_true(h.nlmsg_len > 16 && h.nlmsg_len <= len);
		assert_true(gd_parse_netlink_inet_diag(buf, h.nlmsg_len - 7, &s, &err) < 0);
		assert_contains(err.msg, "past the");
	}
	gd_snapshot_release(&s);
	close(acc);
	close(c);
	close(l);
}

static void test_parse_malformed(void **state)
{
	struct gd_snapshot s;
	struct gd_err err;
	union {
		struct nlmsghdr h;
		char b[256];
	} u;
	struct nlmsgerr *e;

	(void)state;
	gd_snapshot_init(&s);
	/* an error reply */
	memset(&u, 0, sizeof u);
	u.h.nlmsg_len = NLMSG_LENGTH(sizeof(struct nlmsgerr));
	u.h.nlmsg_type = NLMSG_ERROR;
	e = NLMSG_DATA(&u.h);
	e->error = -EPERM;
	gd_err_clear(&err);
	assert_int_equal(gd_parse_netlink_inet_diag(u.b, u.h.nlmsg_len, &s, &err), -EPERM);
	assert_contains(err.msg, "sock_diag");
	/* a length past the buffer */
	u.h.nlmsg_len = 200;
	u.h.nlmsg_type = SOCK_DIAG_BY_FAMILY;
	assert_true(gd_parse_netlink_inet_diag(u.b, 64, &s, &err) < 0);
	assert_contains(err.msg, "past the");
	/* a length below the header */
	u.h.nlmsg_len = 4;
	assert_true(gd_parse_netlink_inet_diag(u.b, 64, &s, &err) < 0);
	/* a message too short for inet_diag_msg */
	u.h.nlmsg_len = NLMSG_LENGTH(8);
	assert_true(gd_parse_netlink_inet_diag(u.b, u.h.nlmsg_len, &s, &err) < 0);
	assert_contains(err.msg, "malformed inet_diag");
	/* done, and nothing */
	u.h.nlmsg_len = NLMSG_LENGTH(4);
	u.h.nlmsg_type = NLMSG_DONE;
	assert_int_equal(gd_parse_netlink_inet_diag(u.b, u.h.nlmsg_len, &s, &err), 0);
	assert_int_equal(gd_parse_netlink_inet_diag("", 0, &s, &err), 0);
	assert_int_equal(s.job_sockets.n, 0);
	gd_snapshot_release(&s);
}

/* ---- net.remote_data_latency ------------------------------------------------ */

static void add_proc(struct gd_snapshot *s, uint64_t pid, const char *comm)
{
	struct gd_proc *p = GD_PUSH(s, procs, struct gd_proc);

	gd_u64_set(&p->pid, pid);
	gd_u64_set(&p->ppid, 1);
	GD_STRSET(p->comm, comm);
	gd_u64_set(&p->nvidia_fds, 4);
	GD_STRSET(p->nvidia_devs, "0");
}

static void add_sock(struct gd_snapshot *s, uint64_t pid, uint64_t inode, const char *peer, uint64_t rtt_us,
		     uint64_t bytes)
{
	struct gd_job_socket *js = GD_PUSH(s, job_sockets, struct gd_job_socket);

	gd_u64_set(&js->pid, pid);
	gd_u64_set(&js->inode, inode);
	gd_u64_set(&js->state, 1);
	GD_STRSET(js->local, "10.0.0.7:41234");
	GD_STRSET(js->peer, peer);
	gd_u64_set(&js->rtt_us, rtt_us);
	gd_u64_set(&js->min_rtt_us, rtt_us - rtt_us / 10);
	gd_u64_set(&js->bytes_acked, 100);
	gd_u64_set(&js->bytes_received, bytes);
}

static void sockets_source(struct gd_snapshot *s, const char *status, const char *reason)
{
	struct gd_source *src = GD_PUSH(s, sources, struct gd_source);

	GD_STRSET(src->name, "job_sockets");
	GD_STRSET(src->status, status);
	GD_STRSET(src->reason, reason);
}

static void test_remote_latency(void **state)
{
	struct fx *x = *state;
	const struct gd_finding *f;

	add_proc(&x->a, 4711, "python");
	add_proc(&x->b, 4711, "python");
	sockets_source(&x->b, "ok", "");
	/* a far data server, moving bytes; a near one; loopback; an idle far one */
	add_sock(&x->a, 4711, 1, "10.8.0.5:9000", 42000, 1000);
	add_sock(&x->b, 4711, 1, "10.8.0.5:9000", 42000, 900000);
	add_sock(&x->a, 4711, 2, "10.0.0.9:9000", 300, 1000);
	add_sock(&x->b, 4711, 2, "10.0.0.9:9000", 300, 800000);
	add_sock(&x->b, 4711, 3, "127.0.0.1:29500", 50000, 5000);
	add_sock(&x->a, 4711, 4, "203.0.113.7:443", 80000, 5000);
	add_sock(&x->b, 4711, 4, "203.0.113.7:443", 80000, 5000);
	assert_int_equal(run_rule2("net.remote_data_latency", &x->a, &x->b, NULL, &x->out), GD_VERDICT_FIRED);
	assert_int_equal(x->out.items.n, 1);
	f = FINDING(x->out, 0);
	assert_string_equal(f->subject, "pid 4711 (python)");
	assert_ev(f, "rtt_ms", 42, 10);
	NEAR(ev_get(f, "connections")->value.v, 1, 0);
	assert_string_equal(ev_get(f, "peer")->text, "10.8.0.5:9000");
	assert_contains(f->summary, "to 10.8.0.5:9000, at 42.0 ms");
	/* the far server goes quiet: nothing in the job's way */
	fx_reset(x);
	add_proc(&x->a, 4711, "python");
	add_proc(&x->b, 4711, "python");
	add_sock(&x->a, 4711, 1, "10.8.0.5:9000", 42000, 1000);
	add_sock(&x->b, 4711, 1, "10.8.0.5:9000", 42000, 1000);
	assert_int_equal(run_rule2("net.remote_data_latency", &x->a, &x->b, NULL, &x->out), GD_VERDICT_CLEAR);
	/* a new connection that already moved data counts; below 10 ms does not */
	add_sock(&x->b, 4711, 5, "[2001:db8::5]:9000", 15000, 300);
	add_sock(&x->b, 4711, 6, "10.8.0.6:9000", 9999, 300);
	assert_int_equal(run_rule2("net.remote_data_latency", &x->a, &x->b, NULL, &x->out), GD_VERDICT_FIRED);
	assert_string_equal(ev_get(FINDING(x->out, 0), "peer")->text, "[2001:db8::5]:9000");
}

static void test_remote_latency_unknown(void **state)
{
	struct fx *x = *state;

	add_proc(&x->b, 4711, "python");
	sockets_source(&x->b, "absent", "not read: the root is not this host's / (a fixture or a copied tree): its sockets cannot be asked for");
	assert_int_equal(run_rule2("net.remote_data_latency", &x->a, &x->b, NULL, &x->out), GD_VERDICT_UNKNOWN);
	assert_contains(unknown_reason(&x->out), "job_sockets absent: not read: the root");
	gd_findings_release(&x->out);
	gd_findings_init(&x->out);
	assert_int_equal(run_rule2("net.remote_data_latency", &x->b, NULL, NULL, &x->out), GD_VERDICT_UNKNOWN);
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, fx_setup, fx_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_real_dump),
		cmocka_unit_test(test_parse_malformed),
		T(test_remote_latency),
		T(test_remote_latency_unknown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
