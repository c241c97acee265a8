/*
 * http_parse.c - the request head of HTTP/1.x (RFC 9112), strictly.
 *
 *   GET /metrics?x=1 HTTP/1.1\r\n          request-line: method SP target SP version
 *   Host: 127.0.0.1:9835\r\n               field-line: name ":" OWS value OWS
 *   Accept: text/plain\r\n
 *   \r\n                                   the empty line ends the head
 *
 * What is accepted: single spaces in the request line; a target in origin
 * form (/path?query), absolute form (http://host/path) or "*"; HTTP/1.x (any
 * other major version is 505); lines ended by CRLF or a bare LF; empty lines
 * before the request line (RFC 9112 §2.2).  What is refused with 400: a
 * method or field name with characters outside tchar, control characters
 * (NUL, a lone CR) anywhere, whitespace before a field's colon, obsolete line
 * folding, a second Host, an HTTP/1.1 request without Host, and a GET or
 * HEAD that announces a body (Content-Length above 0 or Transfer-Encoding):
 * the exporter never reads one.  A head longer than the limit is 414 while
 * still in the request line, 431 after it.  Nothing is copied: the path
 * points into the caller's buffer.
 */
#include "serve/http_parse.h"

#include <stdint.h>
#include <string.h>
#include <strings.h>

/* tchar of RFC 9110 §5.6.2: the characters of methods and field names. */
static bool is_tchar(unsigned char c)
{
	if ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))
		return true;
	return c && strchr("!#$%&'*+-.^_`|~", c) != NULL;
}

/* A byte allowed in a field value: VCHAR, SP, HTAB, obs-text. */
static bool is_value_char(unsigned char c)
{
	return c == '\t' || (c >= 0x20 && c != 0x7f);
}

static int refuse(struct gd_http_req *r, int code, const char *why)
{
	r->why = why;
	return -code;
}

/* Offset just past the empty line that ends the head in b[0..n), or 0. */
static size_t head_end(const char *b, size_t n)
{
	const char *p = b, *end = b + n;

	while ((p = memchr(p, '\n', (size_t)(end - p))) != NULL) {
		p++;
		if (p < end && *p == '\n')
			return (size_t)(p + 1 - b);
		if (end - p >= 2 && p[0] == '\r' && p[1] == '\n')
			return (size_t)(p + 2 - b);
	}
	return 0;
}

/* The line starting at *pos, without its CRLF or LF; *pos moves past it.
 * Returns its length, or -1 when it holds a CR that does not end it. */
static ptrdiff_t next_line(const char *b, size_t *pos, const char **line)
{
	const char *s = b + *pos, *lf = strchr(s, '\n');
	size_t len;

	/* The caller made sure a LF follows (head_end); b holds no NUL before
	 * it, or the NUL check below refuses the line. */
	len = (size_t)(lf - s);
	*pos += len + 1;
	if (len && s[len - 1] == '\r')
		len--;
	*line = s;
	for (size_t i = 0; i < len; i++)
		if (s[i] == '\r')
			return -1;
	return (ptrdiff_t)len;
}

static bool token_eq(const char *s, size_t len, const char *lit)
{
	return len == strlen(lit) && strncasecmp(s, lit, len) == 0;
}

/* Connection: a comma-separated list of options (RFC 9110 §7.6.1). */
static void connection_options(const char *v, size_t len, struct gd_http_req *r, bool *closed)
{
	size_t i = 0;

	while (i < len) {
		size_t a, b;

		while (i < len && (v[i] == ' ' || v[i] == '\t' || v[i] == ','))
			i++;
		a = i;
		while (i < len && v[i] != ',')
			i++;
		b = i;
		while (b > a && (v[b - 1] == ' ' || v[b - 1] == '\t'))
			b--;
		if (token_eq(v + a, b - a, "close"))
			*closed = true;
		else if (token_eq(v + a, b - a, "keep-alive") && r->minor == 0)
			r->keep_alive = true;
	}
}

/* A qvalue (RFC 9110 §12.4.2) of zero: "0", "0.", "0.0" ... "0.000". */
static bool q_is_zero(const char *v, size_t len)
{
	if (len == 0 || v[0] != '0')
		return false;
	if (len == 1)
		return true;
	if (v[1] != '.')
		return false;
	for (size_t i = 2; i < len; i++)
		if (v[i] != '0')
			return false;
	return true;
}

/* Accept-Encoding: codings with optional weights, e.g. "gzip, br;q=0.9".
 * gzip is allowed when gzip, x-gzip or * is listed with a weight above 0. */
static void accept_encoding(const char *v, size_t len, struct gd_http_req *r)
{
	size_t i = 0;
	bool refused = false;   /* gzip;q=0 wins over * */

	while (i < len) {
		size_t a, b, e;
		bool zero = false;

		while (i < len && (v[i] == ' ' || v[i] == '\t' || v[i] == ','))
			i++;
		a = i;
		while (i < len && v[i] != ',' && v[i] != ';' && v[i] != ' ' && v[i] != '\t')
			i++;
		b = i;
		e = i;
		while (e < len && v[e] != ',')
			e++;
		for (size_t k = b; k < e; k++) {  /* parameters: find q= */
			if (v[k] != ';')
				continue;
			k++;
			while (k < e && (v[k] == ' ' || v[k] == '\t'))
				k++;
			if (k + 2 <= e && (v[k] == 'q' || v[k] == 'Q') && v[k + 1] == '=') {
				size_t z = k + 2, n = 0;

				while (z + n < e && v[z + n] != ';' && v[z + n] != ' ' && v[z + n] != '\t')
					n++;
				zero = q_is_zero(v + z, n);
			}
		}
		if (token_eq(v + a, b - a, "gzip") || token_eq(v + a, b - a, "x-gzip"))
			if (zero)
				refused = true;
			else
				r->gzip = true;
		else if (token_eq(v + a, b - a, "*") && !zero)
			r->gzip = true;
		i = e;
	}
	if (refused)
		r->gzip = false;
}

static int request_line(const char *l, size_t len, struct gd_http_req *r)
{
	size_t m = 0, t, tlen, v;
	const char *target;

	while (m < len && is_tchar((unsigned char)l[m]))
		m++;
	if (m == 0 || m == len || l[m] != ' ')
		return refuse(r, 400, "malformed request line");
	t = m + 1;
	tlen = 0;
	while (t + tlen < len && (unsigned char)l[t + tlen] > 0x20 && l[t + tlen] != 0x7f)
		tlen++;
	v = t + tlen;
	if (tlen == 0 || v >= len || l[v] != ' ')
		return refuse(r, 400, "malformed request line");
	v++;
	if (len - v != 8 || memcmp(l + v, "HTTP/", 5) != 0 || l[v + 5] < '0' || l[v + 5] > '9' || l[v + 6] != '.' ||
	    l[v + 7] < '0' || l[v + 7] > '9')
		return refuse(r, 400, "malformed HTTP version");
	if (l[v + 5] != '1')
		return refuse(r, 505, "only HTTP/1.x is served");
	r->minor = l[v + 7] - '0';
	r->keep_alive = r->minor >= 1;

	if (m == 3 && memcmp(l, "GET", 3) == 0)
		r->method = GD_HTTP_GET;
	else if (m == 4 && memcmp(l, "HEAD", 4) == 0)
		r->method = GD_HTTP_HEAD;
	else
		r->method = GD_HTTP_OTHER;

	target = l + t;
	if (tlen > 7 && (strncasecmp(target, "http://", 7) == 0 || strncasecmp(target, "https://", 8) == 0)) {
		/* absolute form: the path starts at the first '/' after the authority */
		const char *auth = (const char *)memchr(target, ':', tlen) + 3;
		const char *slash = memchr(auth, '/', tlen - (size_t)(auth - target));

		if (!slash) {
			r->path = "/";
			r->path_len = 1;
			return 0;
		}
		tlen -= (size_t)(slash - target);
		target = slash;
	} else if (!(tlen == 1 && target[0] == '*') && target[0] != '/') {
		return refuse(r, 400, "the request target is not a path");
	}
	r->path = target;
	r->path_len = tlen;
	for (size_t i = 0; i < tlen; i++)
		if (target[i] == '?') {
			r->path_len = i;
			r->query = target + i + 1;
			r->query_len = tlen - i - 1;
			break;
		}
	return 0;
}

int gd_http_parse(const char *buf, size_t len, size_t limit, struct gd_http_req *r)
{
	size_t n = len < limit ? len : limit, start = 0, end, pos;
	const char *line;
	ptrdiff_t ll;
	bool host = false, body = false, closed = false;
	int rc;

	memset(r, 0, sizeof *r);
	while (start < n && (buf[start] == '\r' || buf[start] == '\n'))
		start++;
	end = start < n ? head_end(buf + start, n - start) : 0;
	if (end == 0) {
		const char *lf = memchr(buf + start, '\n', n - start);
		size_t i = start;

		/* Refuse what cannot become a request line without waiting. */
		while (i < n && is_tchar((unsigned char)buf[i]))
			i++;
		if (i < n && buf[i] != ' ')
			return refuse(r, 400, "not an HTTP request");
		if (memchr(buf + start, '\0', n - start))
			return refuse(r, 400, "a NUL byte in the request");
		if (len < limit)
			return 0;
		if (!lf)
			return refuse(r, 414, "the request target is too long");
		return refuse(r, 431, "the request header fields are too large");
	}
	end += start;
	if (memchr(buf + start, '\0', end - start))
		return refuse(r, 400, "a NUL byte in the request");

	pos = start;
	ll = next_line(buf, &pos, &line);
	if (ll < 0)
		return refuse(r, 400, "a CR inside the request line");
	rc = request_line(line, (size_t)ll, r);
	if (rc < 0)
		return rc;
	while ((ll = next_line(buf, &pos, &line)) != 0) {
		size_t c = 0, a, b;

		if (ll < 0)
			return refuse(r, 400, "a CR inside a header field");
		if (line[0] == ' ' || line[0] == '\t')
			return refuse(r, 400, "obsolete line folding in a header field");
		while (c < (size_t)ll && is_tchar((unsigned char)line[c]))
			c++;
		if (c == 0 || c == (size_t)ll || line[c] != ':')
			return refuse(r, 400, "malformed header field");
		a = c + 1;
		b = (size_t)ll;
		for (size_t i = a; i < b; i++)
			if (!is_value_char((unsigned char)line[i]))
				return refuse(r, 400, "a control character in a header field");
		while (a < b && (line[a] == ' ' || line[a] == '\t'))
			a++;
		while (b > a && (line[b - 1] == ' ' || line[b - 1] == '\t'))
			b--;
		if (token_eq(line, c, "Host")) {
			if (host)
				return refuse(r, 400, "more than one Host header field");
			host = true;
		} else if (token_eq(line, c, "Content-Length")) {
			if (a == b || strspn(line + a, "0123456789") < b - a)
				return refuse(r, 400, "malformed Content-Length");
			for (size_t i = a; i < b; i++)
				if (line[i] != '0')
					body = true;
		} else if (token_eq(line, c, "Transfer-Encoding")) {
			body = true;
		} else if (token_eq(line, c, "Connection")) {
			connection_options(line + a, b - a, r, &closed);
		} else if (token_eq(line, c, "Accept-Encoding")) {
			accept_encoding(line + a, b - a, r);
		}
	}
	if (r->minor >= 1 && !host)
		return refuse(r, 400, "an HTTP/1.1 request without Host");
	if (closed)  /* "close" wins, wherever it stands in the field's list */
		r->keep_alive = false;
	if (body) {
		if (r->method != GD_HTTP_OTHER)
			return refuse(r, 400, "a GET or HEAD request has no body");
		r->keep_alive = false;  /* the body is never read: close after the reply */
	}
	return (int)end;
}
