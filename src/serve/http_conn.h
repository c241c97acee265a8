/*
 * http_conn.h - the connection table of the exporter's HTTP server: which
 * slot a new connection takes, or why it is refused.  Bookkeeping only, no
 * sockets: http.c implements it (beside PER_IP_LIMIT, 32) and runs its epoll
 * loop over it; tests/unit/test_http_conn.c checks it.
 *
 * A new connection from address A is
 *   - refused when A already holds PER_IP_LIMIT connections;
 *   - else given the lowest free slot;
 *   - else (the table is full) given the slot of the connection idle longest
 *     (the oldest active_s; on a tie the lowest slot) among those of other
 *     addresses that are not busy: that connection is closed and the new one
 *     takes its place, so that idle connections from a few addresses
 *     (8 x PER_IP_LIMIT fill the table) cannot lock Prometheus out;
 *   - else (every other connection is A's or busy) refused.
 * Connections are counted by scanning the table, not by a counter that a
 * slot freed twice could drive below zero.  A zeroed table is empty.
 */
#ifndef GD_SERVE_HTTP_CONN_H
#define GD_SERVE_HTTP_CONN_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/socket.h>

#define GD_HTTP_CONN_LIMIT 256

struct gd_http_slot {
	bool used;
	bool busy;                /* a request arriving or a reply going out (or lingering): never evicted */
	unsigned char addr[16];   /* the peer's address (gd_http_conn_key) */
	double active_s;          /* last progress either way, CLOCK_MONOTONIC seconds */
};

struct gd_http_conns {
	struct gd_http_slot slot[GD_HTTP_CONN_LIMIT];
};

enum gd_http_admit {
	GD_HTTP_ADMIT_FREE,       /* *slot is free: take it */
	GD_HTTP_ADMIT_EVICT,      /* the table is full: close *slot's connection, then take it */
	GD_HTTP_REFUSE_ADDR,      /* the address holds PER_IP_LIMIT connections */
	GD_HTTP_REFUSE_FULL,      /* full, and no connection of another address is idle */
};

/* The peer's address as 16 bytes: IPv6 as is, IPv4 mapped (::ffff:a.b.c.d),
 * as a dual-stack socket would see it; zeros for another family. */
void gd_http_conn_key(const struct sockaddr_storage *ss, unsigned char key[16]);
/* Where a new connection from key goes; *slot is set for the two admits. */
enum gd_http_admit gd_http_conn_admit(const struct gd_http_conns *t, const unsigned char key[16], size_t *slot);
/* Slot i now holds an idle connection from key, active at now (seconds). */
void gd_http_conn_take(struct gd_http_conns *t, size_t i, const unsigned char key[16], double now);
/* Slot i is free again (a free slot stays free). */
void gd_http_conn_free(struct gd_http_conns *t, size_t i);

#endif
