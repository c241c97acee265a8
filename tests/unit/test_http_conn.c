/*
 * test_http_conn.c - the connection table of the exporter's HTTP server
 * (src/serve/http_conn.h, implemented in http.c): 32 connections from one
 * address and no more, other addresses still admitted, a closed connection's
 * place given again, a full table giving the place of the connection idle
 * longest (never a busy one, never one of the newcomer's own address), IPv4
 * and IPv6 counted apart, and a slot freed twice counted once.
 *
 * The numbers are written out (32, 256), not taken from the code: a limit
 * raised in http.c must fail here.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>

#include "testutil.h"

#include "serve/http_conn.h"

static void key4(const char *ip, unsigned char key[16])
{
	struct sockaddr_storage ss;
	struct sockaddr_in *in = (struct sockaddr_in *)&ss;

	memset(&ss, 0, sizeof ss);
	in->sin_family = AF_INET;
	assert_int_equal(inet_pton(AF_INET, ip, &in->sin_addr), 1);
	gd_http_conn_key(&ss, key);
}

static void key6(const char *ip, unsigned char key[16])
{
	struct sockaddr_storage ss;
	struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)&ss;

	memset(&ss, 0, sizeof ss);
	in6->sin6_family = AF_INET6;
	assert_int_equal(inet_pton(AF_INET6, ip, &in6->sin6_addr), 1);
	gd_http_conn_key(&ss, key);
}

static const char *verdict(enum gd_http_admit v)
{
	switch (v) {
	case GD_HTTP_ADMIT_FREE: return "admit to a free slot";
	case GD_HTTP_ADMIT_EVICT: return "admit in place of an idle one";
	case GD_HTTP_REFUSE_ADDR: return "refuse: address over its limit";
	case GD_HTTP_REFUSE_FULL: return "refuse: table full";
	}
	return "?";
}

/* The connections from key: counted here, from the table's slots, not by
 * the code under test. */
static unsigned count(const struct gd_http_conns *t, const unsigned char key[16])
{
	unsigned n = 0;

	for (size_t i = 0; i < 256; i++)
		n += t->slot[i].used && memcmp(t->slot[i].addr, key, 16) == 0;
	return n;
}

/* Admits a connection from key at time now; fails (naming the caller's
 * line) unless the verdict is want and, for an admit, the slot want_slot. */
#define admit(t, key, now, want, want_slot) admit_at(__LINE__, t, key, now, want, want_slot)
static void admit_at(int line, struct gd_http_conns *t, const unsigned char key[16], double now,
		     enum gd_http_admit want, size_t want_slot)
{
	size_t slot = 9999;
	enum gd_http_admit got = gd_http_conn_admit(t, key, &slot);

	if (got != want)
		fail_msg("line %d: %s, want %s", line, verdict(got), verdict(want));
	if (want == GD_HTTP_ADMIT_FREE || want == GD_HTTP_ADMIT_EVICT) {
		if (slot != want_slot)
			fail_msg("line %d: %s: slot %zu, want slot %zu", line, verdict(got), slot, want_slot);
		if (want == GD_HTTP_ADMIT_EVICT)
			gd_http_conn_free(t, slot);  /* what http.c's conn_close does */
		gd_http_conn_take(t, slot, key, now);
	}
}

/* Opens 32 connections from key, at now + 0, + 1, ...: each admitted to
 * the lowest free slot, first to first + 31. */
static void open32(struct gd_http_conns *t, const unsigned char key[16], double now, size_t first)
{
	for (size_t i = 0; i < 32; i++)
		admit(t, key, now + (double)i, GD_HTTP_ADMIT_FREE, first + i);
	assert_int_equal(count(t, key), 32);
}

/* Each test gets an empty table in *state (freed even when it fails). */
static int table_setup(void **state)
{
	*state = calloc(1, sizeof(struct gd_http_conns));
	return *state ? 0 : -1;
}

static int table_teardown(void **state)
{
	free(*state);
	return 0;
}

static void test_per_address_limit(void **state)
{
	struct gd_http_conns *t = *state;
	unsigned char a[16], b[16];

	key4("127.0.0.1", a);
	key4("127.0.0.2", b);
	open32(t, a, 1.0, 0);  /* the 1st to the 32nd are admitted */
	admit(t, a, 100.0, GD_HTTP_REFUSE_ADDR, 0);  /* the 33rd */
	admit(t, a, 101.0, GD_HTTP_REFUSE_ADDR, 0);  /* and the 34th */
	assert_int_equal(count(t, a), 32);
	/* another address is still admitted, into the next free slot */
	admit(t, b, 102.0, GD_HTTP_ADMIT_FREE, 32);
	assert_int_equal(count(t, b), 1);
	assert_int_equal(count(t, a), 32);
}

static void test_closed_place_given_again(void **state)
{
	struct gd_http_conns *t = *state;
	unsigned char a[16];

	key4("10.1.2.3", a);
	open32(t, a, 1.0, 0);
	admit(t, a, 2.0, GD_HTTP_REFUSE_ADDR, 0);
	gd_http_conn_free(t, 7);  /* one of the 32 closes */
	assert_int_equal(count(t, a), 31);
	assert_false(t->slot[7].used);
	admit(t, a, 3.0, GD_HTTP_ADMIT_FREE, 7);  /* a new one from that address takes its slot */
	assert_int_equal(count(t, a), 32);
	admit(t, a, 4.0, GD_HTTP_REFUSE_ADDR, 0);
}

static void test_freed_twice_counted_once(void **state)
{
	struct gd_http_conns *t = *state;
	unsigned char a[16], b[16];

	key4("192.0.2.1", a);
	key4("192.0.2.2", b);
	/* freeing slots of an empty table leaves it empty */
	gd_http_conn_free(t, 0);
	gd_http_conn_free(t, 255);
	assert_int_equal(count(t, a), 0);
	open32(t, a, 1.0, 0);
	/* a slot freed twice, and a free slot freed: one place, not three */
	gd_http_conn_free(t, 3);
	gd_http_conn_free(t, 3);
	gd_http_conn_free(t, 200);
	assert_int_equal(count(t, a), 31);
	admit(t, a, 2.0, GD_HTTP_ADMIT_FREE, 3);
	admit(t, a, 3.0, GD_HTTP_REFUSE_ADDR, 0);
	assert_int_equal(count(t, a), 32);
	/* all closed, twice over: the count is 0 and the limit 32 again */
	for (size_t i = 0; i < 32; i++) {
		gd_http_conn_free(t, i);
		gd_http_conn_free(t, i);
	}
	assert_int_equal(count(t, a), 0);
	assert_int_equal(count(t, b), 0);
	open32(t, a, 4.0, 0);
	admit(t, a, 5.0, GD_HTTP_REFUSE_ADDR, 0);
}

/* Fills all 256 slots: slot i from 10.0.0.(i / 32), active at 1000 + i. */
static void fill(struct gd_http_conns *t)
{
	char ip[32];
	unsigned char k[16];

	for (size_t i = 0; i < 256; i++) {
		snprintf(ip, sizeof ip, "10.0.0.%zu", i / 32);
		key4(ip, k);
		admit(t, k, 1000.0 + (double)i, GD_HTTP_ADMIT_FREE, i);
	}
	for (size_t i = 0; i < 8; i++) {
		snprintf(ip, sizeof ip, "10.0.0.%zu", i);
		key4(ip, k);
		assert_int_equal(count(t, k), 32);
	}
}

static void test_full_table_evicts_longest_idle(void **state)
{
	struct gd_http_conns *t = *state;
	unsigned char c[16], d[16];

	key4("10.0.0.100", c);
	key4("10.0.0.101", d);
	fill(t);
	t->slot[137].active_s = 5.0;  /* idle longest */
	admit(t, c, 2000.0, GD_HTTP_ADMIT_EVICT, 137);
	assert_int_equal(count(t, c), 1);
	assert_true(t->slot[137].active_s == 2000.0);
	/* then the next longest idle: slot 0 (active at 1000) */
	admit(t, d, 2001.0, GD_HTTP_ADMIT_EVICT, 0);
	/* a busy connection keeps its place however long it has been quiet */
	t->slot[42].active_s = 1.0;
	t->slot[42].busy = true;
	admit(t, d, 2002.0, GD_HTTP_ADMIT_EVICT, 1);
	/* a tie goes to the lowest slot */
	t->slot[250].active_s = 2.0;
	t->slot[60].active_s = 2.0;
	admit(t, d, 2003.0, GD_HTTP_ADMIT_EVICT, 60);
	admit(t, d, 2004.0, GD_HTTP_ADMIT_EVICT, 250);
	assert_true(t->slot[42].used && t->slot[42].busy);
}

static void test_full_table_free_slot_first(void **state)
{
	struct gd_http_conns *t = *state;
	unsigned char c[16];

	key4("10.0.0.100", c);
	fill(t);
	t->slot[10].active_s = 1.0;  /* idle longest, but there is room */
	gd_http_conn_free(t, 200);
	gd_http_conn_free(t, 90);
	admit(t, c, 2000.0, GD_HTTP_ADMIT_FREE, 90);
	admit(t, c, 2001.0, GD_HTTP_ADMIT_FREE, 200);
	admit(t, c, 2002.0, GD_HTTP_ADMIT_EVICT, 10);
}

static void test_full_table_never_evicts_own_or_busy(void **state)
{
	struct gd_http_conns *t = *state;
	unsigned char a[16], c[16], k[16];

	key4("10.0.0.0", a);  /* the address of slots 0-31 */
	key4("10.0.0.100", c);
	fill(t);
	/* a (31 connections) may open one more; the longest idle is its own,
	 * slot 5: the place goes to the longest idle of another address */
	gd_http_conn_free(t, 31);
	key4("10.0.0.50", k);
	admit(t, k, 1500.0, GD_HTTP_ADMIT_FREE, 31);  /* the table full again, a has 31 */
	t->slot[5].active_s = 1.0;
	t->slot[33].active_s = 2.0;
	admit(t, a, 2000.0, GD_HTTP_ADMIT_EVICT, 33);
	assert_int_equal(count(t, a), 32);
	/* every connection busy: a newcomer is refused and nothing is closed */
	for (size_t i = 0; i < 256; i++)
		t->slot[i].busy = true;
	admit(t, c, 3000.0, GD_HTTP_REFUSE_FULL, 0);
	for (size_t i = 0; i < 256; i++)
		assert_true(t->slot[i].used);
	/* one idle, the most recently active of all: it is the one */
	t->slot[77].busy = false;
	t->slot[77].active_s = 2999.0;
	admit(t, c, 3001.0, GD_HTTP_ADMIT_EVICT, 77);
	assert_int_equal(count(t, c), 1);
}

static void test_ipv4_ipv6_apart(void **state)
{
	struct gd_http_conns *t = *state;
	unsigned char v4[16], v6[16], mapped[16], compat[16], other6[16];
	struct sockaddr_storage unix_ss;
	unsigned char none[16], zero[16] = { 0 };

	key4("127.0.0.1", v4);
	key6("::1", v6);
	key6("::ffff:127.0.0.1", mapped);  /* 127.0.0.1 on a dual-stack socket */
	key6("::127.0.0.1", compat);       /* an IPv6 address, not 127.0.0.1 */
	key6("2001:db8::1", other6);
	assert_memory_equal(v4, mapped, 16);
	assert_memory_not_equal(v4, v6, 16);
	assert_memory_not_equal(v4, compat, 16);
	memset(&unix_ss, 0, sizeof unix_ss);
	unix_ss.ss_family = AF_UNIX;
	memset(none, 0xaa, sizeof none);
	gd_http_conn_key(&unix_ss, none);
	assert_memory_equal(none, zero, 16);

	open32(t, v4, 1.0, 0);
	admit(t, v4, 2.0, GD_HTTP_REFUSE_ADDR, 0);
	admit(t, mapped, 2.0, GD_HTTP_REFUSE_ADDR, 0);  /* the same address */
	open32(t, v6, 3.0, 32);
	admit(t, v6, 4.0, GD_HTTP_REFUSE_ADDR, 0);
	admit(t, compat, 5.0, GD_HTTP_ADMIT_FREE, 64);
	admit(t, other6, 5.0, GD_HTTP_ADMIT_FREE, 65);
	assert_int_equal(count(t, v4), 32);
	assert_int_equal(count(t, v6), 32);
	assert_int_equal(count(t, compat), 1);
	assert_int_equal(count(t, other6), 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_per_address_limit, table_setup, table_teardown),
		cmocka_unit_test_setup_teardown(test_closed_place_given_again, table_setup, table_teardown),
		cmocka_unit_test_setup_teardown(test_freed_twice_counted_once, table_setup, table_teardown),
		cmocka_unit_test_setup_teardown(test_full_table_evicts_longest_idle, table_setup, table_teardown),
		cmocka_unit_test_setup_teardown(test_full_table_free_slot_first, table_setup, table_teardown),
		cmocka_unit_test_setup_teardown(test_full_table_never_evicts_own_or_busy, table_setup, table_teardown),
		cmocka_unit_test_setup_teardown(test_ipv4_ipv6_apart, table_setup, table_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
