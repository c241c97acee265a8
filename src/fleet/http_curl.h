/*
 * http_curl.h - HTTP POST through libcurl, loaded with dlopen("libcurl.so.4")
 * when `gpudoctor fleet` runs (serve never carries it).  libcurl does TLS,
 * proxies (http_proxy, no_proxy) and authentication; we only declare the
 * few curl_easy_* symbols and option numbers we use (http_curl.c), which
 * are part of libcurl's stable ABI (curl/curl.h: CURLOPTTYPE_LONG 0,
 * OBJECTPOINT 10000, FUNCTIONPOINT 20000).
 */
#ifndef GD_FLEET_HTTP_CURL_H
#define GD_FLEET_HTTP_CURL_H

#include <stdbool.h>
#include <stddef.h>

#include "core/err.h"

#define GD_HTTP_MAX_HEADERS 16

struct gd_http_opts {
	double timeout_s;             /* whole transfer, connect included */
	const char *bearer_token;     /* Authorization: Bearer ... (NULL: none) */
	const char *user, *password;  /* basic auth (NULL: none) */
	const char *headers[GD_HTTP_MAX_HEADERS];  /* "Name: value" */
	size_t nheaders;
	const char *ca_file;          /* NULL: the system's CAs */
	bool insecure;                /* no peer or host verification */
	size_t max_body;              /* a longer answer is an error */
	/* Called once connected, before the request is sent, with the server's
	 * address and port and ours (numeric): nonzero refuses the server (no
	 * request goes out; gd_http_post fails with -EACCES and peer_why, which
	 * the check fills).  NULL: any server.  Needs libcurl 7.80 or later
	 * (CURLOPT_PREREQFUNCTION); an older one fails every request. */
	int (*peer_check)(void *arg, const char *peer_ip, int peer_port, const char *local_ip, int local_port);
	void *peer_arg;
	const char *peer_why;
};

struct gd_http_reply {
	long status;                  /* HTTP status; 0 when none came */
	char *body;                   /* NUL-terminated; owned, free with gd_http_reply_release */
	size_t len;
	char content_type[96];
};

struct gd_http_client;  /* opaque: the loaded library and an easy handle */

/* Loads libcurl (path NULL: "libcurl.so.4", or GPUDOCTOR_LIBCURL); NULL with
 * err set when it cannot be loaded or lacks a symbol. */
struct gd_http_client *gd_http_client_new(const char *path, struct gd_err *err);
void gd_http_client_free(struct gd_http_client *c);

/* POSTs form (application/x-www-form-urlencoded) to url; form NULL: a GET.  0 when an answer
 * came (any status: the caller judges it), negative with err set when none
 * did (refused, timed out, TLS, too long). */
int gd_http_post(struct gd_http_client *c, const char *url, const char *form, const struct gd_http_opts *o,
		 struct gd_http_reply *r, struct gd_err *err);
/* URL-encodes s into a new string (free()). */
char *gd_http_escape(struct gd_http_client *c, const char *s);
void gd_http_reply_release(struct gd_http_reply *r);

#endif
