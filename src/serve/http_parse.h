/*
 * http_parse.h - the request parser of the exporter's HTTP front (http.c).
 *
 * A pure function over the bytes a client has sent so far: it says whether
 * they hold a whole request head (request line and header fields up to the
 * empty line), and if so what was asked, or why the request is refused.  It
 * never reads a body: the exporter serves GET and HEAD only, and a request
 * that announces a body is refused (400) before the body is read.
 */
#ifndef GD_SERVE_HTTP_PARSE_H
#define GD_SERVE_HTTP_PARSE_H

#include <stdbool.h>
#include <stddef.h>

enum gd_http_method {
	GD_HTTP_GET,
	GD_HTTP_HEAD,
	GD_HTTP_OTHER,            /* a well-formed method we do not serve: 405 */
};

struct gd_http_req {
	enum gd_http_method method;
	const char *path;         /* into the buffer; the target up to '?' */
	size_t path_len;
	const char *query;        /* into the buffer: what follows the '?' (query_len 0: none) */
	size_t query_len;
	int minor;                /* HTTP/1.minor */
	bool keep_alive;          /* the connection may carry another request */
	bool gzip;                /* Accept-Encoding allows gzip (q above 0) */
	const char *why;          /* when refused: a short reason for the body */
};

/*
 * Parses the request head in buf[0..len).  limit is the most bytes a head
 * may take.  Returns:
 *   0     the head is not complete yet (and len < limit): read more;
 *   n > 0 a complete head of n bytes; *r describes it;
 *   -code the request is refused with that HTTP status (400 malformed, 414
 *         target too long, 431 header fields too large, 505 version);
 *         r->why says why.  The connection must then be closed.
 */
int gd_http_parse(const char *buf, size_t len, size_t limit, struct gd_http_req *r);

#endif
