/*
 * http_conn.h - the connection table of the exporter's HTTP server: which
 * slot a new connection takes, and whose place it takes when there is no
 * room.  Bookkeeping only, no sockets: http.c implements it (beside
 * PER_IP_LIMIT, 32) and runs its epoll loop over it, telling the table what
 * each connection is doing after each of its events; tests/unit/
 * test_http_conn.c checks it.
 *
 * A new connection from address A is never refused.  It takes
 *   - when A already holds PER_IP_LIMIT connections: the place of A's own
 *     connection that gives its place up most readily (below), so that the
 *     33rd connection from 127.0.0.1 (the default bind, shared by every
 *     local user) replaces 127.0.0.1's oldest idle one instead of locking a
 *     scraper on 127.0.0.1 out;
 *   - else the lowest free slot;
 *   - else (the table is full) the place of the connection, of any address,
 *     that gives its place up most readily.
 * How readily a connection gives its place up (its rank, then the oldest
 * since_s, then the lowest slot):
 *   0 spent: lingering after its last reply, or a request head or a reply
 *     that has taken more than GD_HTTP_SLOW_S since the request's first
 *     byte, or a connection silent for more than GD_HTTP_SLOW_S since it
 *     was accepted (a client that writes a request head in pieces, reads
 *     its reply slowly or sends nothing: a scraper sends its request at
 *     once, in one write, and reads the reply at once);
 *   1 idle after a request (since its last activity), or a request head
 *     arriving for less than GD_HTTP_SLOW_S;
 *   2 a new connection in its first GD_HTTP_SLOW_S, or a reply going out
 *     for less than GD_HTTP_SLOW_S since its request's first byte.
 * So a newcomer is always admitted, and a connection that holds a place
 * without completing requests loses it first: 256 connections keeping half
 * a request pending (8 addresses x PER_IP_LIMIT fill the table) cannot lock
 * Prometheus out, nor can idle ones, and a scraper's new connection keeps
 * its place while its request comes and its reply goes out, however fast
 * an attacker opens connections again in the places of those closed.
 * Connections are counted by scanning the table, not by a counter that a
 * slot freed twice could drive below zero.  A zeroed table is empty.
 */
#ifndef GD_SERVE_HTTP_CONN_H
#define GD_SERVE_HTTP_CONN_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/socket.h>

#define GD_HTTP_CONN_LIMIT 256
#define GD_HTTP_SLOW_S 1.0        /* a request head or reply taking longer is "spent" */

enum gd_http_state {
	GD_HTTP_CONN_NEW,         /* nothing received yet; since_s: when it was accepted */
	GD_HTTP_CONN_IDLE,        /* waiting for its next request; since_s: its last activity */
	GD_HTTP_CONN_HEAD,        /* a request head incomplete; since_s: when its first byte came */
	GD_HTTP_CONN_REPLY,       /* a reply going out; since_s: when its request's first byte came */
	GD_HTTP_CONN_LINGER,      /* the last reply sent, closing; since_s: when that began */
};

struct gd_http_slot {
	bool used;
	enum gd_http_state state;
	unsigned char addr[16];   /* the peer's address (gd_http_conn_key) */
	double active_s;          /* last progress either way, CLOCK_MONOTONIC seconds */
	double since_s;           /* see state, CLOCK_MONOTONIC seconds */
};

struct gd_http_conns {
	struct gd_http_slot slot[GD_HTTP_CONN_LIMIT];
};

enum gd_http_admit {
	GD_HTTP_ADMIT_FREE,       /* *slot is free: take it */
	GD_HTTP_ADMIT_EVICT,      /* close *slot's connection, then take its place */
};

/* The peer's address as 16 bytes: IPv6 as is, IPv4 mapped (::ffff:a.b.c.d),
 * as a dual-stack socket would see it; zeros for another family. */
void gd_http_conn_key(const struct sockaddr_storage *ss, unsigned char key[16]);
/* Where a new connection from key goes at time now (seconds); sets *slot. */
enum gd_http_admit gd_http_conn_admit(const struct gd_http_conns *t, const unsigned char key[16], double now,
				      size_t *slot);
/* Slot i now holds a new connection from key (GD_HTTP_CONN_NEW), accepted at now. */
void gd_http_conn_take(struct gd_http_conns *t, size_t i, const unsigned char key[16], double now);
/* Slot i is free again (a free slot stays free). */
void gd_http_conn_free(struct gd_http_conns *t, size_t i);

#endif
