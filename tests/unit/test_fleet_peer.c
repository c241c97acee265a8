/*
 * test_fleet_peer.c - who holds the far end of a local TCP connection
 * (src/fleet/peer.c): a real loopback connection made here names this
 * process's uid, a connection that does not exist is "not found"; the
 * parser of the kernel's answer refuses error messages, half answers, a
 * request sock in SYN-RECV (whose uid the kernel reports as 0: never to be
 * taken for root) and sockets that are no longer connected.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include "testutil.h"

#include "fleet/peer.h"

static void test_live(void **state)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	struct sockaddr_in srv, cli;
	socklen_t sl = sizeof srv, cl = sizeof cli;
	struct gd_err err;
	uint32_t uid = 12345;
	int l, c, s;

	(void)state;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	l = socket(AF_INET, SOCK_STREAM, 0);
	assert_true(l >= 0);
	assert_int_equal(bind(l, (struct sockaddr *)&a, sizeof a), 0);
	assert_int_equal(listen(l, 4), 0);
	assert_int_equal(getsockname(l, (struct sockaddr *)&srv, &sl), 0);
	c = socket(AF_INET, SOCK_STREAM, 0);
	assert_int_equal(connect(c, (struct sockaddr *)&srv, sizeof srv), 0);
	assert_int_equal(getsockname(c, (struct sockaddr *)&cli, &cl), 0);
	s = accept(l, NULL, NULL);
	assert_true(s >= 0);
	gd_err_clear(&err);
	assert_int_equal(gd_tcp_peer_uid("127.0.0.1", ntohs(srv.sin_port), "127.0.0.1", ntohs(cli.sin_port), &uid, &err),
			 0);
	assert_int_equal(uid, (uint32_t)geteuid());
	/* the other direction is the client's socket: the same process here */
	assert_int_equal(gd_tcp_peer_uid("127.0.0.1", ntohs(cli.sin_port), "127.0.0.1", ntohs(srv.sin_port), &uid, &err),
			 0);
	close(c);
	close(s);
	close(l);
	/* a connection nobody has: not found, never a uid */
	uid = 12345;
	assert_int_equal(gd_tcp_peer_uid("127.0.0.1", ntohs(srv.sin_port), "127.0.0.1", 1, &uid, &err), -ENOENT);
	assert_int_equal(uid, 12345);
	assert_int_equal(gd_tcp_peer_uid("localhost", 80, "127.0.0.1", 1, &uid, &err), -EINVAL);
	assert_int_equal(gd_tcp_peer_uid("127.0.0.1", 80, "::1", 1, &uid, &err), -EINVAL);
	assert_int_equal(gd_tcp_peer_uid("127.0.0.1", 0, "127.0.0.1", 1, &uid, &err), -EINVAL);
	assert_int_equal(gd_tcp_peer_uid(NULL, 80, "127.0.0.1", 1, &uid, &err), -EINVAL);
}

struct answer {
	struct nlmsghdr h;
	struct inet_diag_msg m;
};

static struct answer answer(unsigned state, uint32_t uid)
{
	struct answer a;

	memset(&a, 0, sizeof a);
	a.h.nlmsg_len = sizeof a;
	a.h.nlmsg_type = SOCK_DIAG_BY_FAMILY;
	a.m.idiag_family = AF_INET;
	a.m.idiag_state = (__u8)state;
	a.m.idiag_uid = uid;
	return a;
}

static void test_parse(void **state)
{
	struct gd_err err;
	struct answer a;
	struct {
		struct nlmsghdr h;
		struct nlmsgerr e;
	} e;
	uint32_t uid = 7;

	(void)state;
	gd_err_clear(&err);
	a = answer(1, 65534);
	assert_int_equal(gd_peer_uid_parse(&a, sizeof a, &uid, &err), 0);
	assert_int_equal(uid, 65534);
	uid = 7;
	a = answer(3, 0); /* SYN-RECV: a request sock, uid 0 means nothing */
	assert_int_equal(gd_peer_uid_parse(&a, sizeof a, &uid, &err), -EAGAIN);
	a = answer(12, 0);
	assert_int_equal(gd_peer_uid_parse(&a, sizeof a, &uid, &err), -EAGAIN);
	a = answer(6, 0); /* TIME-WAIT */
	assert_int_equal(gd_peer_uid_parse(&a, sizeof a, &uid, &err), -ENOENT);
	assert_non_null(strstr(err.msg, "TCP state 6"));
	a = answer(10, 0); /* LISTEN */
	assert_int_equal(gd_peer_uid_parse(&a, sizeof a, &uid, &err), -ENOENT);
	assert_int_equal(uid, 7);
	/* half an answer */
	a = answer(1, 0);
	a.h.nlmsg_len = (uint32_t)(sizeof a.h + 8);
	assert_int_equal(gd_peer_uid_parse(&a, sizeof a.h + 8, &uid, &err), -EPROTO);
	assert_int_equal(gd_peer_uid_parse(&a, 3, &uid, &err), -EPROTO);
	assert_int_equal(gd_peer_uid_parse(&a, 0, &uid, &err), -EPROTO);
	/* the kernel's errors */
	memset(&e, 0, sizeof e);
	e.h.nlmsg_len = sizeof e;
	e.h.nlmsg_type = NLMSG_ERROR;
	e.e.error = -ENOENT;
	assert_int_equal(gd_peer_uid_parse(&e, sizeof e, &uid, &err), -ENOENT);
	e.e.error = -EPERM;
	assert_int_equal(gd_peer_uid_parse(&e, sizeof e, &uid, &err), -EPERM);
	e.e.error = 5; /* nonsense: positive */
	assert_int_equal(gd_peer_uid_parse(&e, sizeof e, &uid, &err), -EPROTO);
	e.h.nlmsg_len = sizeof e.h + 2;
	assert_int_equal(gd_peer_uid_parse(&e, sizeof e.h + 2, &uid, &err), -EPROTO);
	/* an ack (error 0) then done: no answer */
	e.h.nlmsg_len = sizeof e;
	e.e.error = 0;
	assert_int_equal(gd_peer_uid_parse(&e, sizeof e, &uid, &err), -EPROTO);
	assert_int_equal(uid, 7);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_live),
		cmocka_unit_test(test_parse),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
