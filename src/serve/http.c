/*
 * http.c - the HTTP front of `gpudoctor serve`: a small HTTP/1.1 server
 * that answers three paths and nothing else.
 *
 *   GET /metrics    Prometheus text format 0.0.4
 *   GET /findings   the JSON document of `check --json` (503 when stale);
 *                   ?lang=zh_CN (zh, zh-CN) or ?lang=en: its summaries and
 *                   remedies in that language (below), an unknown one 400
 *   GET /healthz    "ok" (200), or why not (503: no sample yet, or stale)
 *   GET /           the node's page (page.c; ?lang= as /findings), unless
 *                   --no-page; HTML under a Content-Security-Policy that
 *                   lets it fetch nothing but itself
 *
 * HEAD is answered like GET without the body; any other method gets 405
 * with an Allow header, any other path 404; a malformed request 400 (414,
 * 431, 505: http_parse.c) and the connection is closed, lingering: the
 * write side is shut and unread input discarded for up to LINGER_S, so that
 * the reply is not lost to a reset.  Keep-alive (HTTP/1.0's too) and
 * pipelined requests are served in order; request bodies are never read.
 * /metrics is gzip-encoded for clients that accept it (metrics.c, gz.c).
 *
 * Why not libmicrohttpd, which the design first named: Debian's build of it
 * links GnuTLS, whose start-up (with p11-kit, nettle, gmp, libunistring,
 * libtasn1, libidn2) put 3.0 MB in the resident set of a process that never
 * speaks TLS: three quarters of the exporter's budget of "a quarter of
 * node_exporter's RSS" (bench/exporter/run.sh).  STYLE.md's fallback is what
 * this file is: GET only, strict size limits, the parser fuzzed
 * (tests/fuzz, target "http request").
 *
 * Limits, so that a flood or a slow client cannot starve Prometheus: at most
 * GD_HTTP_CONN_LIMIT connections and PER_IP_LIMIT from one address; a new
 * connection is never refused but takes the place of one that holds it
 * without completing requests, or of the one idle longest (of its own
 * address when that one is at its limit: http_conn.h says which; the
 * table's bookkeeping is at the end of this file), a request head of at
 * most HEAD_LIMIT bytes, TIMEOUT_S for a request head to arrive whole,
 * counted from its first byte whatever was answered before on the
 * connection (a byte of the next request sent with this one starts the
 * next one's time), TIMEOUT_S of inactivity before a connection is closed,
 * and accept paused (not spun on) when the process is out of file
 * descriptors.  One thread runs an epoll loop over every connection; a
 * request only copies the published result, so it takes microseconds.
 *
 * ?lang: the collector thread renders /findings in the other language than
 * the process's (serve.h) while it is asked for.  The first request for it
 * finds none yet: it is answered at once in the process's language, with
 * "Content-Language: en" and "X-Gpudoctor-Lang: pending" (or "unavailable"
 * when no catalogue is installed), and it wakes the collector, which
 * renders that language from the current window within milliseconds; from
 * then on (until GD_SERVE_ALT_KEEP_S pass without such a request) the
 * answer is in the language asked for, "Content-Language: zh-CN".  The
 * rule ids, JSON keys and values other than the text are the same in both.
 * This thread never calls gettext (nor strerror): the language is the
 * process's environment, which only the collector thread changes.
 */
#include "serve/serve.h"

#include <ctype.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "core/i18n.h"
#include "core/xalloc.h"
#include "serve/http_conn.h"
#include "serve/http_parse.h"

#define PER_IP_LIMIT 32
#define HEAD_LIMIT (16 * 1024)
#define IN_START 2048
#define TIMEOUT_S 10.0
#define LINGER_S 1.0
#define HDR_MAX 1024              /* a response's status line and fields */
/* epoll keys: a connection's is its generation (high 32 bits) and slot, so
 * that an event left from a connection closed in the same batch (evicted by
 * a newcomer in its slot) is not taken for the newcomer's */
#define EV_LISTEN UINT64_MAX
#define EV_STOP (UINT64_MAX - 1)

static const char ct_metrics[] = "text/plain; version=0.0.4; charset=utf-8";
static const char ct_text[] = "text/plain; charset=utf-8";
static const char ct_json[] = "application/json";
static const char ct_html[] = "text/html; charset=utf-8";
/* the page: inline style and script of its own, fetches of itself only */
static const char html_fields[] =
	"Content-Security-Policy: default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; "
	"connect-src 'self'; img-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'\r\n"
	"X-Content-Type-Options: nosniff\r\nReferrer-Policy: no-referrer\r\n";

/* A connection; its address and last activity are in its slot of the
 * table (the same index in gd_http.tab). */
struct conn {
	int fd;                   /* -1: a free slot */
	char *in;                 /* bytes received and not yet answered */
	size_t in_len, in_cap;
	char *hdr;                /* the response: status line and fields (HDR_MAX), */
	size_t hdr_len;
	char *body;               /* then the body (NULL for none) */
	size_t body_len;          /* bytes of body to send (0 for HEAD) */
	bool body_owned;
	size_t out_off;           /* bytes of hdr + body sent */
	size_t consumed;          /* bytes of in answered by this response */
	bool writing, close_after, peer_eof;
	bool lingering;           /* reply sent, write side shut: discarding input */
	int minor;                /* HTTP/1.minor of the request being answered */
	uint32_t events;          /* what the epoll set waits for on fd */
	uint32_t gen;             /* how many connections this slot has held (epoll keys) */
	double head_s;            /* when in's first byte came; 0: in is empty */
	double rx_s;              /* when the last read that got bytes was */
	double req_s;             /* when the first byte of the request being answered came */
};

struct gd_http {
	struct gd_server *srv;
	int lfd, epfd, stopfd;
	bool accepting;           /* lfd is in the epoll set */
	pthread_t thread;
	uint32_t gen;             /* generations handed out */
	struct gd_http_conns tab;
	struct conn conns[GD_HTTP_CONN_LIMIT];
};

/* A response: status, content type, body (owned: freed after sending), and
 * the fields it adds. */
struct reply {
	unsigned code;
	const char *type;
	char *body;
	size_t len;
	bool owned, allow, html;
	bool gzip, vary;          /* Content-Encoding: gzip; Vary: Accept-Encoding */
	const char *lang;         /* Content-Language, or NULL (a request without ?lang) */
	const char *lang_note;    /* X-Gpudoctor-Lang: why not the language asked for, or NULL */
};

static const char *reason(unsigned code)
{
	switch (code) {
	case 200: return "OK";
	case 400: return "Bad Request";
	case 404: return "Not Found";
	case 405: return "Method Not Allowed";
	case 414: return "URI Too Long";
	case 431: return "Request Header Fields Too Large";
	case 503: return "Service Unavailable";
	case 505: return "HTTP Version Not Supported";
	}
	return "Error";
}

static struct reply text(unsigned code, const char *s)
{
	return (struct reply){ .code = code, .type = ct_text, .body = (char *)s, .len = strlen(s) };
}

static struct reply owned_text(unsigned code, const char *type, char *s)
{
	return (struct reply){ .code = code, .type = type, .body = s, .len = strlen(s), .owned = true };
}

/* The value of parameter name in a query string, percent-decoded into
 * buf; 1 found, 0 absent, -1 too long or not text. */
static int query_param(const char *q, size_t qlen, const char *name, char *buf, size_t size)
{
	size_t nlen = strlen(name), i = 0;

	while (i < qlen) {
		size_t end = i;

		while (end < qlen && q[end] != '&' && q[end] != ';')
			end++;
		if (end - i > nlen && memcmp(q + i, name, nlen) == 0 && q[i + nlen] == '=') {
			size_t n = 0;

			for (size_t k = i + nlen + 1; k < end; k++) {
				unsigned c = (unsigned char)q[k];

				if (c == '%') {
					char hex[3] = { 0, 0, 0 };

					if (k + 2 >= end || !isxdigit((unsigned char)q[k + 1]) ||
					    !isxdigit((unsigned char)q[k + 2]))
						return -1;
					hex[0] = q[k + 1];
					hex[1] = q[k + 2];
					c = (unsigned)strtoul(hex, NULL, 16);
					k += 2;
				}
				if (c < 0x21 || c > 0x7e || n + 1 >= size)
					return -1;
				buf[n++] = (char)c;
			}
			buf[n] = '\0';
			return 1;
		}
		if (end - i == nlen && memcmp(q + i, name, nlen) == 0) {
			buf[0] = '\0';
			return 1;  /* "lang" without a value */
		}
		i = end + 1;
	}
	return 0;
}

/* "en" or "zh_CN" for a lang= value (as BCP 47 or as a locale name), or
 * NULL.  Plain string work: this thread never asks gettext. */
static const char *lang_of(const char *v)
{
	static const char *const zh[] = { "zh", "zh-CN", "zh_CN", "zh-Hans", "zh_Hans", "zh-Hans-CN", "zh_CN.UTF-8",
					  "zh_CN.utf8" };

	/* en, en-US, en_GB.UTF-8, ... (query_param let through printable ASCII only) */
	if (strcasecmp(v, "en") == 0 || (strlen(v) > 3 && (strncasecmp(v, "en-", 3) == 0 || strncasecmp(v, "en_", 3) == 0)))
		return "en";
	for (size_t i = 0; i < sizeof zh / sizeof zh[0]; i++)
		if (strcasecmp(v, zh[i]) == 0)
			return "zh_CN";
	return NULL;
}

static struct reply findings(struct gd_server *srv, const struct gd_http_req *q)
{
	static const char stale[] =
		"{\"error\":\"no fresh sample: the collector has not finished a cycle within its deadline\"}\n";
	char asked[40], msg[160];
	const char *want = NULL;
	double age;
	struct gd_published *p = NULL;
	struct reply r;
	bool missing = false, alt, in_alt = false;
	int got = query_param(q->query, q->query_len, "lang", asked, sizeof asked);

	if (got != 0) {
		want = got > 0 ? lang_of(asked) : NULL;
		if (!want) {
			/* the value is printable ASCII without quotes or backslashes, or not shown */
			bool plain = got > 0 && !strpbrk(asked, "\"\\");

			snprintf(msg, sizeof msg,
				 "{\"error\":\"lang%s%s%s: not a language gpudoctor speaks; use lang=zh_CN or lang=en\"}\n",
				 plain ? "=\\\"" : "", plain ? asked : "", plain ? "\\\"" : "");
			return owned_text(400, ct_json, gd_xstrdup(msg));
		}
	}
	alt = want && strcmp(want, srv->lang) != 0;
	if (alt) {
		gd_serve_want_alt(srv);
		p = gd_serve_acquire_alt(srv, &age, &missing);
		in_alt = gd_serve_fresh(srv, p, age);
		if (!in_alt) {
			gd_serve_release(srv, p);
			p = NULL;
		}
	}
	if (!p)
		p = gd_serve_acquire(srv, &age);
	if (!gd_serve_fresh(srv, p, age)) {
		gd_serve_release(srv, p);
		return (struct reply){ .code = 503, .type = ct_json, .body = (char *)stale, .len = sizeof stale - 1 };
	}
	r = (struct reply){ .code = 200, .type = ct_json, .body = gd_xstrndup(p->findings, p->findings_len),
			    .len = p->findings_len, .owned = true };
	if (want) {
		r.lang = (in_alt ? srv->alt_lang : srv->lang)[0] == 'z' ? "zh-CN" : "en";
		if (alt && !in_alt)
			r.lang_note = missing ? "unavailable" : "pending";
	}
	gd_serve_release(srv, p);
	return r;
}

static struct reply page(struct gd_server *srv, const struct gd_http_req *q)
{
	char asked[40];
	const char *want = NULL;
	struct reply r = { .type = ct_html, .owned = true, .vary = true, .html = true };
	int got = query_param(q->query, q->query_len, "lang", asked, sizeof asked);

	if (got != 0 && !(want = got > 0 ? lang_of(asked) : NULL))
		return text(400, "lang: not a language gpudoctor speaks; use lang=zh_CN or lang=en\n");
	r.body = gd_http_page(srv, want, q->gzip, &r.code, &r.len, &r.gzip, &r.lang);
	return r;
}

static struct reply healthz(struct gd_server *srv)
{
	double age;
	struct gd_published *p = gd_serve_acquire(srv, &age);
	bool fresh = gd_serve_fresh(srv, p, age);
	char msg[160];

	gd_serve_release(srv, p);
	if (fresh)
		return text(200, "ok\n");
	if (!p)
		return text(503, "no sample yet\n");
	snprintf(msg, sizeof msg, "stale: the last sample is %.1f s old (deadline %g s)\n", age, srv->deadline_s);
	return owned_text(503, ct_text, gd_xstrdup(msg));
}

static bool path_is(const struct gd_http_req *q, const char *lit)
{
	return q->path_len == strlen(lit) && memcmp(q->path, lit, q->path_len) == 0;
}

static struct reply route(struct gd_server *srv, const struct gd_http_req *q)
{
	struct reply r;

	if (q->method == GD_HTTP_OTHER) {
		r = text(405, "method not allowed: use GET\n");
		r.allow = true;
		return r;
	}
	if (path_is(q, "/metrics")) {
		r = (struct reply){ .code = 200, .type = ct_metrics, .owned = true, .vary = true };
		r.body = gd_http_metrics(srv, q->gzip, &r.len, &r.gzip);
		return r;
	}
	if (path_is(q, "/findings"))
		return findings(srv, q);
	if (path_is(q, "/healthz"))
		return healthz(srv);
	if (path_is(q, "/") && !srv->opts->no_page)
		return page(srv, q);
	return text(404, srv->opts->no_page ? "not found: try /metrics, /findings or /healthz\n"
					    : "not found: try /, /metrics, /findings or /healthz\n");
}

/* The Date field (RFC 9110 §5.6.7), without the locale's names. */
static void http_date(char *buf, size_t size)
{
	static const char days[][4] = { "Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat" };
	static const char months[][4] = { "Jan", "Feb", "Mar", "Apr", "May", "Jun",
					  "Jul", "Aug", "Sep", "Oct", "Nov", "Dec" };
	time_t now = time(NULL);
	struct tm tm;

	gmtime_r(&now, &tm);
	snprintf(buf, size, "%s, %02d %s %04d %02d:%02d:%02d GMT", days[tm.tm_wday % 7], tm.tm_mday,
		 months[tm.tm_mon % 12], tm.tm_year + 1900, tm.tm_hour, tm.tm_min, tm.tm_sec);
}

static void conn_set_reply(struct conn *c, struct reply r, bool head_only)
{
	char date[40];
	int n;

	http_date(date, sizeof date);
	c->hdr = gd_xmalloc(HDR_MAX);
	n = snprintf(c->hdr, HDR_MAX,
		     "HTTP/1.1 %u %s\r\nDate: %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n"
		     "Cache-Control: no-store\r\n%s%s%s%s%s%s%s%s%s%s%s\r\n",
		     r.code, reason(r.code), date, r.type, r.len, r.allow ? "Allow: GET, HEAD\r\n" : "",
		     r.gzip ? "Content-Encoding: gzip\r\n" : "", r.vary ? "Vary: Accept-Encoding\r\n" : "",
		     r.lang ? "Content-Language: " : "", r.lang ? r.lang : "", r.lang ? "\r\n" : "",
		     r.lang_note ? "X-Gpudoctor-Lang: " : "", r.lang_note ? r.lang_note : "", r.lang_note ? "\r\n" : "",
		     r.html ? html_fields : "",
		     c->close_after ? "Connection: close\r\n" : c->minor == 0 ? "Connection: keep-alive\r\n" : "");
	c->hdr_len = (size_t)n < HDR_MAX ? (size_t)n : HDR_MAX - 1;
	c->body = r.body;
	c->body_owned = r.owned;
	c->body_len = head_only ? 0 : r.len;
	c->out_off = 0;
	c->writing = true;
}

static void conn_drop_reply(struct conn *c)
{
	if (c->body_owned)
		free(c->body);
	free(c->hdr);
	c->hdr = NULL;
	c->body = NULL;
	c->body_owned = false;
	c->body_len = c->hdr_len = c->out_off = 0;
	c->writing = false;
}

static double now_s(void)
{
	return gd_serve_mono_now();
}

static struct gd_http_slot *slot_of(struct gd_http *h, const struct conn *c)
{
	return &h->tab.slot[c - h->conns];
}

static uint64_t ev_key(const struct gd_http *h, const struct conn *c)
{
	return (uint64_t)c->gen << 32 | (uint64_t)(c - h->conns);
}

/* Tells the table what the connection is doing (http_conn.h): whether and
 * how readily it gives its place up to a newcomer. */
static void conn_mark(struct gd_http *h, const struct conn *c)
{
	struct gd_http_slot *s = slot_of(h, c);

	if (c->lingering) {
		s->state = GD_HTTP_CONN_LINGER;
		s->since_s = s->active_s;  /* not moved by the input it discards */
	} else if (c->writing) {
		s->state = GD_HTTP_CONN_REPLY;
		s->since_s = c->req_s;
	} else if (c->in_len) {
		s->state = GD_HTTP_CONN_HEAD;   /* conn_serve answered every whole request */
		s->since_s = c->head_s;
	} else if (!c->rx_s) {
		s->state = GD_HTTP_CONN_NEW;
		s->since_s = s->active_s;  /* when it was accepted: no progress since */
	} else {
		s->state = GD_HTTP_CONN_IDLE;
		s->since_s = s->active_s;
	}
}

static void watch_listener(struct gd_http *h, bool on)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.u64 = EV_LISTEN };

	if (on == h->accepting)
		return;
	if (epoll_ctl(h->epfd, on ? EPOLL_CTL_ADD : EPOLL_CTL_DEL, h->lfd, &ev) == 0)
		h->accepting = on;
}

static void conn_close(struct gd_http *h, struct conn *c)
{
	conn_drop_reply(c);
	free(c->in);
	close(c->fd);  /* also leaves the epoll set */
	gd_http_conn_free(&h->tab, (size_t)(c - h->conns));
	memset(c, 0, sizeof *c);
	c->fd = -1;
	watch_listener(h, true);
}

static void conn_watch(struct gd_http *h, struct conn *c)
{
	struct epoll_event ev = { .events = c->writing ? EPOLLOUT : EPOLLIN | EPOLLRDHUP, .data.u64 = ev_key(h, c) };

	if (ev.events != c->events && epoll_ctl(h->epfd, EPOLL_CTL_MOD, c->fd, &ev) == 0)
		c->events = ev.events;
}

/* Sends what it can.  Returns false when the connection is not to be served
 * further: closed, or lingering (below). */
static bool conn_send(struct gd_http *h, struct conn *c)
{
	while (c->out_off < c->hdr_len + c->body_len) {
		struct iovec iov[2];
		struct msghdr msg = { .msg_iov = iov };
		ssize_t w;

		if (c->out_off < c->hdr_len) {
			iov[0] = (struct iovec){ c->hdr + c->out_off, c->hdr_len - c->out_off };
			iov[1] = (struct iovec){ c->body, c->body_len };
			msg.msg_iovlen = c->body_len ? 2 : 1;
		} else {
			iov[0] = (struct iovec){ c->body + (c->out_off - c->hdr_len),
						 c->body_len - (c->out_off - c->hdr_len) };
			msg.msg_iovlen = 1;
		}
		w = sendmsg(c->fd, &msg, MSG_NOSIGNAL);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			conn_watch(h, c);
			return true;
		}
		if (w <= 0) {
			conn_close(h, c);
			return false;
		}
		c->out_off += (size_t)w;
		slot_of(h, c)->active_s = now_s();
	}
	conn_drop_reply(c);
	if (c->close_after) {
		/* Lingering close: a refused request may have bytes we never read
		 * (a 40 kB header, a body), and close() with unread input sends a
		 * reset that can destroy the reply before the client reads it.
		 * Shut the write side, then discard input until the client closes
		 * or LINGER_S passes (sweep). */
		if (c->peer_eof || shutdown(c->fd, SHUT_WR) < 0) {
			conn_close(h, c);
			return false;
		}
		c->lingering = true;
		c->head_s = 0;
		slot_of(h, c)->active_s = now_s();
		conn_watch(h, c);
		return false;
	}
	memmove(c->in, c->in + c->consumed, c->in_len - c->consumed);
	c->in_len -= c->consumed;
	c->consumed = 0;
	/* The next request's time runs from its first byte, not from this
	 * reply: that byte came with the last read, since input is read only
	 * when every whole request before it has been answered (and a head
	 * that spanned several reads ended in the last one). */
	c->head_s = c->in_len ? c->rx_s : 0;
	return true;
}

/* Answers the requests complete in c->in, one after another, until one is
 * incomplete or a reply cannot be sent whole at once. */
static void conn_serve(struct gd_http *h, struct conn *c)
{
	while (!c->writing) {
		struct gd_http_req q;
		int n = gd_http_parse(c->in, c->in_len, HEAD_LIMIT, &q);

		if (n == 0) {
			if (c->peer_eof) {
				conn_close(h, c);
				return;
			}
			conn_watch(h, c);
			return;
		}
		if (n < 0) {
			char msg[160];

			snprintf(msg, sizeof msg, "%s: %s\n", reason((unsigned)-n), q.why);
			c->close_after = true;
			c->minor = 1;
			c->consumed = c->in_len;
			c->req_s = c->head_s;
			conn_set_reply(c, owned_text((unsigned)-n, ct_text, gd_xstrdup(msg)), false);
		} else {
			c->close_after = !q.keep_alive;
			c->minor = q.minor;
			c->consumed = (size_t)n;
			c->req_s = c->head_s;
			conn_set_reply(c, route(h->srv, &q), q.method == GD_HTTP_HEAD);
		}
		if (!conn_send(h, c))
			return;
	}
}

/* Reads and drops what a lingering connection sends, until its end. */
static void conn_drain(struct gd_http *h, struct conn *c)
{
	char sink[4096];

	for (;;) {
		ssize_t r = recv(c->fd, sink, sizeof sink, 0);

		if (r > 0)
			continue;
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return;
		conn_close(h, c);  /* the client closed too, or an error */
		return;
	}
}

static void conn_read(struct gd_http *h, struct conn *c)
{
	double now = now_s();

	if (c->lingering) {
		conn_drain(h, c);
		return;
	}
	for (;;) {
		ssize_t r;

		if (c->in_len == c->in_cap) {
			if (c->in_cap >= HEAD_LIMIT)
				break;  /* full: the parser refuses it */
			c->in_cap = c->in_cap ? 2 * c->in_cap : IN_START;
			c->in = gd_xreallocarray(c->in, c->in_cap, 1);
		}
		r = recv(c->fd, c->in + c->in_len, c->in_cap - c->in_len, 0);
		if (r > 0) {
			slot_of(h, c)->active_s = now;
			c->rx_s = now;
			if (!c->head_s)
				c->head_s = now;
			c->in_len += (size_t)r;
			continue;
		}
		if (r == 0) {
			c->peer_eof = true;
			break;
		}
		if (errno == EINTR)
			continue;
		if (errno == EAGAIN || errno == EWOULDBLOCK)
			break;
		conn_close(h, c);
		return;
	}
	conn_serve(h, c);
}

static void accept_all(struct gd_http *h)
{
	for (;;) {
		struct sockaddr_storage ss;
		socklen_t sl = sizeof ss;
		unsigned char key[16];
		size_t i = 0;
		double now;
		struct conn *c;
		struct epoll_event ev;
		int fd = accept4(h->lfd, (struct sockaddr *)&ss, &sl, SOCK_NONBLOCK | SOCK_CLOEXEC);

		if (fd < 0) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM)
				watch_listener(h, false);  /* until a connection closes */
			return;
		}
		gd_http_conn_key(&ss, key);
		now = now_s();
		if (gd_http_conn_admit(&h->tab, key, now, &i) == GD_HTTP_ADMIT_EVICT)
			conn_close(h, &h->conns[i]);
		c = &h->conns[i];
		c->fd = fd;
		c->gen = ++h->gen;
		c->events = EPOLLIN | EPOLLRDHUP;
		gd_http_conn_take(&h->tab, i, key, now);
		ev = (struct epoll_event){ .events = EPOLLIN | EPOLLRDHUP, .data.u64 = ev_key(h, c) };
		if (epoll_ctl(h->epfd, EPOLL_CTL_ADD, fd, &ev) < 0) {
			close(fd);
			c->fd = -1;
			gd_http_conn_free(&h->tab, i);
			continue;
		}
	}
}

/* Closes connections idle for TIMEOUT_S, whose request head has been
 * arriving for longer than that (a client trickling bytes), or that have
 * lingered LINGER_S after their last reply. */
static void sweep(struct gd_http *h, double now)
{
	for (size_t i = 0; i < GD_HTTP_CONN_LIMIT; i++) {
		struct conn *c = &h->conns[i];

		if (c->fd < 0)
			continue;
		if (now - h->tab.slot[i].active_s > (c->lingering ? LINGER_S : TIMEOUT_S) ||
		    (c->head_s && !c->writing && now - c->head_s > TIMEOUT_S))
			conn_close(h, c);
	}
	watch_listener(h, true);
}

static void *http_main(void *arg)
{
	struct gd_http *h = arg;
	struct epoll_event evs[64];
	double last_sweep = now_s();
	bool stop = false;

	while (!stop) {
		int n = epoll_wait(h->epfd, evs, 64, 1000);
		double now;

		for (int i = 0; i < n; i++) {
			uint64_t k = evs[i].data.u64;
			struct conn *c;

			if (k == EV_STOP) {
				stop = true;
				continue;
			}
			if (k == EV_LISTEN) {
				accept_all(h);
				continue;
			}
			if ((k & UINT32_MAX) >= GD_HTTP_CONN_LIMIT)
				continue;
			c = &h->conns[k & UINT32_MAX];
			if (c->fd < 0 || c->gen != k >> 32)
				continue;  /* closed (and its slot perhaps taken) earlier in this batch */
			if (evs[i].events & EPOLLERR)
				conn_close(h, c);
			else if (c->writing) {
				if (conn_send(h, c) && !c->writing)
					conn_serve(h, c);
			} else
				conn_read(h, c);
			/* A connection changes only here, on its own events: how readily
			 * it gives its place up to a newcomer (http_conn.h). */
			if (c->fd >= 0)
				conn_mark(h, c);
		}
		now = now_s();
		if (now - last_sweep >= 1.0) {
			sweep(h, now);
			last_sweep = now;
		}
	}
	return NULL;
}

struct gd_http *gd_http_start(struct gd_server *srv, int fd, struct gd_err *err)
{
	struct gd_http *h = gd_xcalloc(1, sizeof *h);
	struct epoll_event ev = { .events = EPOLLIN, .data.u64 = EV_STOP };

	/* its messages are the main thread's, before the HTTP thread exists: no
	 * request has asked the collector to switch the language yet */
	h->srv = srv;
	h->lfd = fd;
	for (size_t i = 0; i < GD_HTTP_CONN_LIMIT; i++)
		h->conns[i].fd = -1;
	h->epfd = epoll_create1(EPOLL_CLOEXEC);
	h->stopfd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (h->epfd < 0 || h->stopfd < 0 || epoll_ctl(h->epfd, EPOLL_CTL_ADD, h->stopfd, &ev) < 0) {
		gd_err_set(err, -errno, _("cannot start the HTTP server: %s"), strerror(errno));
		goto fail;
	}
	watch_listener(h, true);
	if (!h->accepting) {
		gd_err_set(err, -errno, _("cannot start the HTTP server: epoll: %s"), strerror(errno));
		goto fail;
	}
	if (pthread_create(&h->thread, NULL, http_main, h) != 0) {
		gd_err_set(err, -EAGAIN, _("cannot start the HTTP thread"));
		goto fail;
	}
	return h;
fail:
	if (h->epfd >= 0)
		close(h->epfd);
	if (h->stopfd >= 0)
		close(h->stopfd);
	free(h);
	return NULL;
}

void gd_http_stop(struct gd_http *h)
{
	uint64_t one = 1;

	if (write(h->stopfd, &one, sizeof one) != (ssize_t)sizeof one) {
		int e = errno;

		/* the main thread's: the collector may be switching the language */
		pthread_mutex_lock(&h->srv->i18n_lock);
		fprintf(stderr, _("gpudoctor: cannot wake the HTTP thread: %s\n"), strerror(e));
		pthread_mutex_unlock(&h->srv->i18n_lock);
	}
	pthread_join(h->thread, NULL);
	for (size_t i = 0; i < GD_HTTP_CONN_LIMIT; i++)
		if (h->conns[i].fd >= 0)
			conn_close(h, &h->conns[i]);
	close(h->epfd);
	close(h->stopfd);
	close(h->lfd);
	free(h);
}

/* The connection table (http_conn.h). */

void gd_http_conn_key(const struct sockaddr_storage *ss, unsigned char key[16])
{
	memset(key, 0, 16);
	if (ss->ss_family == AF_INET) {
		key[10] = key[11] = 0xff;
		memcpy(key + 12, &((const struct sockaddr_in *)ss)->sin_addr, 4);
	} else if (ss->ss_family == AF_INET6) {
		memcpy(key, &((const struct sockaddr_in6 *)ss)->sin6_addr, 16);
	}
}

/* How readily slot s gives its place up at time now: 0 first (http_conn.h). */
static int conn_rank(const struct gd_http_slot *s, double now)
{
	switch (s->state) {
	case GD_HTTP_CONN_LINGER:
		return 0;
	case GD_HTTP_CONN_HEAD:
		return now - s->since_s > GD_HTTP_SLOW_S ? 0 : 1;
	case GD_HTTP_CONN_NEW:
	case GD_HTTP_CONN_REPLY:
		return now - s->since_s > GD_HTTP_SLOW_S ? 0 : 2;
	case GD_HTTP_CONN_IDLE:
		break;
	}
	return 1;
}

/* Whether slot i gives its place up before slot j (j == none: any slot). */
static bool conn_before(const struct gd_http_conns *t, size_t i, size_t j, double now)
{
	int ri, rj;

	if (j == GD_HTTP_CONN_LIMIT)
		return true;
	ri = conn_rank(&t->slot[i], now);
	rj = conn_rank(&t->slot[j], now);
	return ri < rj || (ri == rj && t->slot[i].since_s < t->slot[j].since_s);
}

enum gd_http_admit gd_http_conn_admit(const struct gd_http_conns *t, const unsigned char key[16], double now,
				      size_t *slot)
{
	const size_t none = GD_HTTP_CONN_LIMIT;
	size_t free_i = none, own = none, any = none;
	unsigned same = 0;

	for (size_t i = 0; i < GD_HTTP_CONN_LIMIT; i++) {
		const struct gd_http_slot *s = &t->slot[i];

		if (!s->used) {
			if (free_i == none)
				free_i = i;
			continue;
		}
		if (memcmp(s->addr, key, 16) == 0) {
			same++;
			if (conn_before(t, i, own, now))
				own = i;
		}
		if (conn_before(t, i, any, now))
			any = i;
	}
	if (same >= PER_IP_LIMIT) {
		*slot = own;
		return GD_HTTP_ADMIT_EVICT;
	}
	if (free_i != none) {
		*slot = free_i;
		return GD_HTTP_ADMIT_FREE;
	}
	*slot = any;  /* the table is full: there is one */
	return GD_HTTP_ADMIT_EVICT;
}

void gd_http_conn_take(struct gd_http_conns *t, size_t i, const unsigned char key[16], double now)
{
	struct gd_http_slot *s = &t->slot[i];

	s->used = true;
	s->state = GD_HTTP_CONN_NEW;
	memcpy(s->addr, key, 16);
	s->active_s = s->since_s = now;
}

void gd_http_conn_free(struct gd_http_conns *t, size_t i)
{
	memset(&t->slot[i], 0, sizeof t->slot[i]);
}
