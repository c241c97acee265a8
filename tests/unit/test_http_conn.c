/*
 * test_http_conn.c - the connection table of the exporter's HTTP server
 * (src/serve/http_conn.h, implemented in http.c): 32 connections from one
 * address, the 33rd taking the place of that address's own connection that
 * gives it up most readily (a spent one, else the one idle longest), other
 * addresses still admitted, a closed connection's place given again, a
 * full table giving the place of a spent connection (a request head or a
 * reply over 1 s, lingering, or silent over 1 s), else of the one idle
 * longest, else of the oldest new connection or young reply, so that no
 * newcomer is refused; the attack of issue
 * 31 (256 connections keeping half a request pending) replayed on the
 * table; IPv4 and IPv6 counted apart, and a slot freed twice counted once.
 *
 * The numbers are written out (32, 256, 1 s), not taken from the code: a
 * limit changed in http.c or http_conn.h must fail here.
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
	case GD_HTTP_ADMIT_EVICT: return "admit in place of another";
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
 * line) unless the verdict is want and the slot want_slot. */
#define admit(t, key, now, want, want_slot) admit_at(__LINE__, t, key, now, want, want_slot)
static void admit_at(int line, struct gd_http_conns *t, const unsigned char key[16], double now,
		     enum gd_http_admit want, size_t want_slot)
{
	size_t slot = 9999;
	enum gd_http_admit got = gd_http_conn_admit(t, key, now, &slot);

	if (got != want)
		fail_msg("line %d: %s, want %s", line, verdict(got), verdict(want));
	if (slot != want_slot)
		fail_msg("line %d: %s: slot %zu, want slot %zu", line, verdict(got), slot, want_slot);
	if (want == GD_HTTP_ADMIT_EVICT)
		gd_http_conn_free(t, slot);  /* what http.c's conn_close does */
	gd_http_conn_take(t, slot, key, now);
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

/* Sets what slot i's connection is doing, as http.c's conn_mark does. */
static void mark(struct gd_http_conns *t, size_t i, enum gd_http_state st, double since)
{
	assert_true(t->slot[i].used);
	t->slot[i].state = st;
	t->slot[i].since_s = since;
}

static void test_per_address_limit(void **state)
{
	struct gd_http_conns *t = *state;
	unsigned char a[16], b[16];

	key4("127.0.0.1", a);
	key4("127.0.0.2", b);
	open32(t, a, 1.0, 0);  /* the 1st to the 32nd are admitted */
	for (size_t i = 0; i < 32; i++) {
		assert_int_equal(t->slot[i].state, GD_HTTP_CONN_NEW);
		mark(t, i, GD_HTTP_CONN_IDLE, 1.0 + (double)i);  /* each answered, idle since 1 + i */
	}
	/* the 33rd takes the place of a's connection idle longest */
	admit(t, a, 100.0, GD_HTTP_ADMIT_EVICT, 0);
	assert_int_equal(count(t, a), 32);
	/* the 34th the next: the 33rd, new for half a second, keeps its place */
	admit(t, a, 100.5, GD_HTTP_ADMIT_EVICT, 1);
	/* a's connection with a head arriving for 11 s goes before its idle ones */
	mark(t, 9, GD_HTTP_CONN_HEAD, 90.0);
	admit(t, a, 101.0, GD_HTTP_ADMIT_EVICT, 9);
	/* silent for over a second since it was accepted, the 33rd goes first */
	admit(t, a, 101.2, GD_HTTP_ADMIT_EVICT, 0);
	/* new connections in their first second are the last to go: the idle
	 * ones (slots 2-8, 10-31) go before them, then the oldest of them */
	for (size_t i = 0; i < 29; i++)
		admit(t, a, 101.3 + (double)i / 1000.0, GD_HTTP_ADMIT_EVICT, i + 2 + (i >= 7));
	admit(t, a, 101.4, GD_HTTP_ADMIT_EVICT, 1);  /* the 34th, accepted at 100.5 */
	assert_int_equal(count(t, a), 32);
	/* another address is still admitted, into the next free slot */
	admit(t, b, 400.0, GD_HTTP_ADMIT_FREE, 32);
	assert_int_equal(count(t, b), 1);
	assert_int_equal(count(t, a), 32);
}

static void test_closed_place_given_again(void **state)
{
	struct gd_http_conns *t = *state;
	unsigned char a[16];

	key4("10.1.2.3", a);
	open32(t, a, 1.0, 0);
	gd_http_conn_free(t, 7);  /* one of the 32 closes */
	assert_int_equal(count(t, a), 31);
	assert_false(t->slot[7].used);
	admit(t, a, 50.0, GD_HTTP_ADMIT_FREE, 7);  /* a new one from that address takes its slot */
	assert_int_equal(count(t, a), 32);
	admit(t, a, 51.0, GD_HTTP_ADMIT_EVICT, 0);  /* and the next one the oldest's */
	assert_int_equal(count(t, a), 32);
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
	admit(t, a, 50.0, GD_HTTP_ADMIT_FREE, 3);
	admit(t, a, 51.0, GD_HTTP_ADMIT_EVICT, 0);
	assert_int_equal(count(t, a), 32);
	/* all closed, twice over: the count is 0 and the limit 32 again */
	for (size_t i = 0; i < 32; i++) {
		gd_http_conn_free(t, i);
		gd_http_conn_free(t, i);
	}
	assert_int_equal(count(t, a), 0);
	assert_int_equal(count(t, b), 0);
	open32(t, a, 60.0, 0);
	admit(t, a, 100.0, GD_HTTP_ADMIT_EVICT, 0);
}

/* Fills all 256 slots: slot i from 10.0.0.(i / 32), accepted at 1000 + i
 * and silent since. */
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
	t->slot[137].since_s = 5.0;  /* idle longest */
	admit(t, c, 2000.0, GD_HTTP_ADMIT_EVICT, 137);
	assert_int_equal(count(t, c), 1);
	assert_true(t->slot[137].active_s == 2000.0 && t->slot[137].since_s == 2000.0);
	assert_true(t->slot[137].state == GD_HTTP_CONN_NEW);
	/* then the next longest idle: slot 0 (idle since 1000) */
	admit(t, d, 2001.0, GD_HTTP_ADMIT_EVICT, 0);
	/* a tie goes to the lowest slot */
	t->slot[250].since_s = 2.0;
	t->slot[60].since_s = 2.0;
	admit(t, d, 2002.0, GD_HTTP_ADMIT_EVICT, 60);
	admit(t, d, 2003.0, GD_HTTP_ADMIT_EVICT, 250);
	/* a reply going out for half a second keeps its place, however long
	 * ago its connection was last active */
	mark(t, 1, GD_HTTP_CONN_REPLY, 2003.5);
	t->slot[1].active_s = 1.0;
	admit(t, d, 2004.0, GD_HTTP_ADMIT_EVICT, 2);
	/* a head arriving for half a second keeps it too, while older ones are spent */
	mark(t, 3, GD_HTTP_CONN_HEAD, 2003.5);
	admit(t, d, 2004.0, GD_HTTP_ADMIT_EVICT, 4);
	assert_true(t->slot[1].used && t->slot[1].state == GD_HTTP_CONN_REPLY);
	assert_true(t->slot[3].used && t->slot[3].state == GD_HTTP_CONN_HEAD);
}

static void test_full_table_free_slot_first(void **state)
{
	struct gd_http_conns *t = *state;
	unsigned char c[16];

	key4("10.0.0.100", c);
	fill(t);
	t->slot[10].since_s = 1.0;  /* idle longest, but there is room */
	gd_http_conn_free(t, 200);
	gd_http_conn_free(t, 90);
	admit(t, c, 2000.0, GD_HTTP_ADMIT_FREE, 90);
	admit(t, c, 2001.0, GD_HTTP_ADMIT_FREE, 200);
	admit(t, c, 2002.0, GD_HTTP_ADMIT_EVICT, 10);
}

/* Spent connections go first: a head or a reply that has taken over 1 s
 * since its request's first byte, lingering ones, new ones silent for over
 * 1 s; then the idle and the young heads; new connections in their first
 * second and young replies last. */
static void test_spent_first(void **state)
{
	struct gd_http_conns *t = *state;
	unsigned char c[16];

	key4("10.0.0.100", c);
	fill(t);
	for (size_t i = 0; i < 256; i++)
		mark(t, i, GD_HTTP_CONN_IDLE, 1000.0 + (double)i);  /* each answered */
	/* a head begun 0.9 s ago is young: slot 0, idle since 1000, goes first */
	mark(t, 42, GD_HTTP_CONN_HEAD, 1999.1);
	admit(t, c, 2000.0, GD_HTTP_ADMIT_EVICT, 0);
	/* 1.1 s later it is spent, and goes before idle ones older than it */
	admit(t, c, 2000.2, GD_HTTP_ADMIT_EVICT, 42);
	mark(t, 0, GD_HTTP_CONN_IDLE, 2000.0);  /* the newcomers answered */
	mark(t, 42, GD_HTTP_CONN_IDLE, 2000.2);
	/* a reply whose request began 1.5 s ago, a lingering one: spent, the
	 * one that began first first */
	mark(t, 77, GD_HTTP_CONN_REPLY, 2000.0);
	mark(t, 78, GD_HTTP_CONN_LINGER, 2001.4);
	admit(t, c, 2001.5, GD_HTTP_ADMIT_EVICT, 77);
	admit(t, c, 2001.6, GD_HTTP_ADMIT_EVICT, 78);
	/* every connection a young reply: the oldest of them, nothing refused */
	for (size_t i = 0; i < 256; i++)
		mark(t, i, GD_HTTP_CONN_REPLY, 3000.1 + (double)(i % 7) / 10.0);
	t->slot[123].since_s = 3000.05;
	admit(t, c, 3001.0, GD_HTTP_ADMIT_EVICT, 123);
	/* the newcomer, in its first second, ranks with them: the oldest of
	 * the rest goes (slots 0, 7, ...: their requests began at 3000.1) */
	admit(t, c, 3001.0, GD_HTTP_ADMIT_EVICT, 0);
	/* once answered and idle, the newcomer goes first */
	mark(t, 123, GD_HTTP_CONN_IDLE, 3001.0);
	admit(t, c, 3001.1, GD_HTTP_ADMIT_EVICT, 123);
	for (size_t i = 0; i < 256; i++)
		assert_true(t->slot[i].used);
}

/* Issue 31's attack on the table: 8 addresses x 32 connections, each with a
 * head pending since some time in the last 8.8 s; a scraper from a ninth
 * address takes the place of the head pending longest, and the attacker's
 * connection opened again then takes another head's place (the spent ones
 * first), and so on, 300 times in 0.3 s, never the scraper's. */
static void test_slow_heads_give_way(void **state)
{
	struct gd_http_conns *t = *state;
	unsigned char scraper[16], lost[16], victim[16];
	size_t oldest = 3 * 32 + 5;
	double now = 5000.0;

	key4("10.0.0.100", scraper);
	fill(t);
	for (size_t i = 0; i < 256; i++)
		mark(t, i, GD_HTTP_CONN_HEAD, now - 8.8 * (double)((i * 97) % 256) / 256.0);
	t->slot[oldest].since_s = now - 9.9;
	admit(t, scraper, now, GD_HTTP_ADMIT_EVICT, oldest);
	key4("10.0.0.3", lost);  /* the address of slot oldest: 31 connections now */
	assert_int_equal(count(t, lost), 31);
	for (int k = 0; k < 300; k++) {
		size_t slot = 9999;

		/* the attacker opens it again; its "G" comes a moment later */
		assert_int_equal(gd_http_conn_admit(t, lost, now, &slot), GD_HTTP_ADMIT_EVICT);
		assert_true(slot != oldest);
		assert_int_equal(t->slot[slot].state, GD_HTTP_CONN_HEAD);
		if (k < 200)
			assert_true(now - t->slot[slot].since_s > 1.0);
		memcpy(victim, t->slot[slot].addr, 16);
		gd_http_conn_free(t, slot);
		gd_http_conn_take(t, slot, lost, now);
		mark(t, slot, GD_HTTP_CONN_HEAD, now);
		memcpy(lost, victim, 16);  /* the next to open one again */
		now += 0.001;
	}
	assert_int_equal(count(t, scraper), 1);
	assert_true(memcmp(t->slot[oldest].addr, scraper, 16) == 0);
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
	admit(t, v4, 100.0, GD_HTTP_ADMIT_EVICT, 0);
	admit(t, mapped, 101.0, GD_HTTP_ADMIT_EVICT, 1);  /* the same address */
	open32(t, v6, 3.0, 32);
	admit(t, v6, 102.0, GD_HTTP_ADMIT_EVICT, 32);  /* its own, not 127.0.0.1's older ones */
	admit(t, compat, 103.0, GD_HTTP_ADMIT_FREE, 64);
	admit(t, other6, 103.0, GD_HTTP_ADMIT_FREE, 65);
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
		cmocka_unit_test_setup_teardown(test_spent_first, table_setup, table_teardown),
		cmocka_unit_test_setup_teardown(test_slow_heads_give_way, table_setup, table_teardown),
		cmocka_unit_test_setup_teardown(test_ipv4_ipv6_apart, table_setup, table_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
