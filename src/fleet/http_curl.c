/*
 * http_curl.c - libcurl's easy interface, loaded at run time (http_curl.h).
 *
 * Our own declarations of the symbols and option numbers, from libcurl's
 * public ABI (curl/curl.h, stable since 7.x): an option's number is its type
 * base (LONG 0, OBJECTPOINT 10000, FUNCTIONPOINT 20000) plus its index, so
 * CURLOPT_URL = 10000 + 2.  The tests check each one by its effect against
 * a server that sees it (a header, the basic-auth user, the timeout).
 */
#include "fleet/http_curl.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/i18n.h"
#include "core/xalloc.h"
#include "model/snapshot.h"
#include "output/output.h"

#define OPT_LONG 0
#define OPT_PTR 10000
#define OPT_FN 20000
enum {
	CURLOPT_WRITEDATA = OPT_PTR + 1,
	CURLOPT_URL = OPT_PTR + 2,
	CURLOPT_ERRORBUFFER = OPT_PTR + 10,
	CURLOPT_WRITEFUNCTION = OPT_FN + 11,
	CURLOPT_POSTFIELDS = OPT_PTR + 15,
	CURLOPT_USERAGENT = OPT_PTR + 18,
	CURLOPT_HTTPHEADER = OPT_PTR + 23,
	CURLOPT_POST = OPT_LONG + 47,
	CURLOPT_HTTPGET = OPT_LONG + 80,
	CURLOPT_POSTFIELDSIZE = OPT_LONG + 60,
	CURLOPT_SSL_VERIFYPEER = OPT_LONG + 64,
	CURLOPT_CAINFO = OPT_PTR + 65,
	CURLOPT_SSL_VERIFYHOST = OPT_LONG + 81,
	CURLOPT_NOSIGNAL = OPT_LONG + 99,
	CURLOPT_HTTPAUTH = OPT_LONG + 107,
	CURLOPT_TIMEOUT_MS = OPT_LONG + 155,
	CURLOPT_CONNECTTIMEOUT_MS = OPT_LONG + 156,
	CURLOPT_USERNAME = OPT_PTR + 173,
	CURLOPT_PASSWORD = OPT_PTR + 174,
	CURLOPT_PROTOCOLS = OPT_LONG + 181,
	CURLOPT_PREREQFUNCTION = OPT_FN + 312,
	CURLOPT_PREREQDATA = OPT_PTR + 313,
};
#define CURLAUTH_BASIC 1L
#define CURLPROTO_HTTP 1L
#define CURLPROTO_HTTPS 2L
#define CURLINFO_STRING 0x100000
#define CURLINFO_LONG 0x200000
#define CURLINFO_RESPONSE_CODE (CURLINFO_LONG + 2)
#define CURLINFO_CONTENT_TYPE (CURLINFO_STRING + 18)
#define CURL_ERROR_SIZE 256
#define CURLE_OK 0
#define CURLE_WRITE_ERROR 23
#define CURLE_OPERATION_TIMEDOUT 28
#define CURLE_ABORTED_BY_CALLBACK 42

struct curl_slist;
typedef size_t (*write_fn)(char *, size_t, size_t, void *);
typedef int (*prereq_fn)(void *, char *, char *, int, int);

struct gd_http_client {
	void *dl;
	void *easy;
	void *(*easy_init)(void);
	int (*easy_setopt)(void *, int, ...);
	int (*easy_perform)(void *);
	int (*easy_getinfo)(void *, int, ...);
	void (*easy_cleanup)(void *);
	void (*easy_reset)(void *);
	const char *(*easy_strerror)(int);
	char *(*easy_escape)(void *, const char *, int);
	void (*curl_free)(void *);
	struct curl_slist *(*slist_append)(struct curl_slist *, const char *);
	void (*slist_free_all)(struct curl_slist *);
};

struct sym {
	const char *name;
	size_t offset;
};

#define SYM(n, f) { n, offsetof(struct gd_http_client, f) }
static const struct sym syms[] = {
	SYM("curl_easy_init", easy_init),	  SYM("curl_easy_setopt", easy_setopt),
	SYM("curl_easy_perform", easy_perform),	  SYM("curl_easy_getinfo", easy_getinfo),
	SYM("curl_easy_cleanup", easy_cleanup),	  SYM("curl_easy_reset", easy_reset),
	SYM("curl_easy_strerror", easy_strerror), SYM("curl_easy_escape", easy_escape),
	SYM("curl_free", curl_free),		  SYM("curl_slist_append", slist_append),
	SYM("curl_slist_free_all", slist_free_all),
};

struct gd_http_client *gd_http_client_new(const char *path, struct gd_err *err)
{
	struct gd_http_client *c = gd_xcalloc(1, sizeof *c);
	const char *lib = path ? path : getenv("GPUDOCTOR_LIBCURL");

	if (!lib || !lib[0])
		lib = "libcurl.so.4";
	/* NODELETE: libcurl's TLS libraries keep thread-local state and exit
	 * handlers; unmapping them at dlclose left a stale entry in the dynamic
	 * TLS vector that LeakSanitizer's exit scan faulted on (okjob in
	 * tests/exporter/fleet_job.sh, every run under make check). */
	c->dl = dlopen(lib, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
	if (!c->dl) {
		gd_err_set(err, -ENOENT, _("cannot load %s (%s): install libcurl4 (Debian) to query Prometheus"), lib,
			   dlerror());
		free(c);
		return NULL;
	}
	for (size_t i = 0; i < sizeof syms / sizeof syms[0]; i++) {
		void *f = dlsym(c->dl, syms[i].name);

		if (!f) {
			gd_err_set(err, -ENOSYS, _("%s lacks %s: not a libcurl of version 7.17 or later"), lib, syms[i].name);
			dlclose(c->dl);
			free(c);
			return NULL;
		}
		memcpy((char *)c + syms[i].offset, &f, sizeof f);
	}
	c->easy = c->easy_init();
	if (!c->easy) {
		gd_err_set(err, -ENOMEM, "curl_easy_init failed");
		dlclose(c->dl);
		free(c);
		return NULL;
	}
	return c;
}

void gd_http_client_free(struct gd_http_client *c)
{
	if (!c)
		return;
	c->easy_cleanup(c->easy);
	dlclose(c->dl);
	free(c);
}

struct sink {
	struct gd_http_reply *r;
	size_t cap, max;
	bool too_long;
};

static size_t on_data(char *p, size_t size, size_t n, void *arg)
{
	struct sink *s = arg;
	size_t add = size * n;

	if (s->r->len + add > s->max) {
		s->too_long = true;
		return 0;  /* libcurl stops with CURLE_WRITE_ERROR */
	}
	if (s->r->len + add + 1 > s->cap) {
		s->cap = (s->r->len + add + 1) * 2;
		if (s->cap > s->max + 1)
			s->cap = s->max + 1;  /* the most it may hold, not twice that */
		s->r->body = gd_xreallocarray(s->r->body, s->cap, 1);
	}
	memcpy(s->r->body + s->r->len, p, add);
	s->r->len += add;
	s->r->body[s->r->len] = '\0';
	return add;
}

struct prereq {
	const struct gd_http_opts *o;
	bool refused;
};

/* libcurl's CURLOPT_PREREQFUNCTION: 0 CURL_PREREQFUNC_OK, 1 ABORT */
static int on_connected(void *arg, char *peer_ip, char *local_ip, int peer_port, int local_port)
{
	struct prereq *p = arg;

	if (p->o->peer_check(p->o->peer_arg, peer_ip, peer_port, local_ip, local_port) == 0)
		return 0;
	p->refused = true;
	return 1;
}

int gd_http_post(struct gd_http_client *c, const char *url, const char *form, const struct gd_http_opts *o,
		 struct gd_http_reply *r, struct gd_err *err)
{
	struct curl_slist *hdr = NULL;
	char ebuf[CURL_ERROR_SIZE] = "", *auth = NULL;
	struct sink s = { r, 0, o->max_body ? o->max_body : (size_t)64 << 20, false };
	long ms = (long)(o->timeout_s * 1000);
	const char *ct = NULL;
	struct prereq pre = { o, false };
	int rc;

	memset(r, 0, sizeof *r);
	c->easy_reset(c->easy);
	c->easy_setopt(c->easy, CURLOPT_URL, url);
	c->easy_setopt(c->easy, CURLOPT_PROTOCOLS, CURLPROTO_HTTP | CURLPROTO_HTTPS);
	c->easy_setopt(c->easy, CURLOPT_NOSIGNAL, 1L);
	c->easy_setopt(c->easy, CURLOPT_ERRORBUFFER, ebuf);
	c->easy_setopt(c->easy, CURLOPT_USERAGENT, "gpudoctor-fleet/" GD_VERSION);
	if (form) {
		c->easy_setopt(c->easy, CURLOPT_POST, 1L);
		c->easy_setopt(c->easy, CURLOPT_POSTFIELDS, form);
		c->easy_setopt(c->easy, CURLOPT_POSTFIELDSIZE, (long)strlen(form));
	} else {
		c->easy_setopt(c->easy, CURLOPT_HTTPGET, 1L);
	}
	c->easy_setopt(c->easy, CURLOPT_WRITEFUNCTION, (write_fn)on_data);
	c->easy_setopt(c->easy, CURLOPT_WRITEDATA, &s);
	if (o->peer_check && (c->easy_setopt(c->easy, CURLOPT_PREREQFUNCTION, (prereq_fn)on_connected) != CURLE_OK ||
			      c->easy_setopt(c->easy, CURLOPT_PREREQDATA, &pre) != CURLE_OK))
		return gd_err_set(err, -ENOSYS, _("%s: this libcurl cannot check who answers (needs 7.80 or later)"), url);
	if (ms > 0) {
		c->easy_setopt(c->easy, CURLOPT_TIMEOUT_MS, ms);
		c->easy_setopt(c->easy, CURLOPT_CONNECTTIMEOUT_MS, ms);
	}
	hdr = c->slist_append(hdr, "Accept: application/json");
	for (size_t i = 0; i < o->nheaders; i++)
		hdr = c->slist_append(hdr, o->headers[i]);
	if (o->bearer_token) {
		size_t n = strlen(o->bearer_token) + 32;

		auth = gd_xmalloc(n);
		snprintf(auth, n, "Authorization: Bearer %s", o->bearer_token);
		hdr = c->slist_append(hdr, auth);
	}
	c->easy_setopt(c->easy, CURLOPT_HTTPHEADER, hdr);
	if (o->user) {
		c->easy_setopt(c->easy, CURLOPT_HTTPAUTH, CURLAUTH_BASIC);
		c->easy_setopt(c->easy, CURLOPT_USERNAME, o->user);
		c->easy_setopt(c->easy, CURLOPT_PASSWORD, o->password ? o->password : "");
	}
	if (o->ca_file)
		c->easy_setopt(c->easy, CURLOPT_CAINFO, o->ca_file);
	if (o->insecure) {
		c->easy_setopt(c->easy, CURLOPT_SSL_VERIFYPEER, 0L);
		c->easy_setopt(c->easy, CURLOPT_SSL_VERIFYHOST, 0L);
	}
	rc = c->easy_perform(c->easy);
	c->slist_free_all(hdr);
	if (auth) {
		memset(auth, 0, strlen(auth));  /* the token does not outlive the request */
		free(auth);
	}
	if (rc != CURLE_OK) {
		if (pre.refused)
			gd_err_set(err, -EACCES, "%s", o->peer_why && o->peer_why[0] ? o->peer_why : url);
		else if (s.too_long)
			gd_err_set(err, -EFBIG, _("%s: the answer is longer than %zu bytes, the most gpudoctor reads of one"),
				   url, s.max);
		else if (rc == CURLE_OPERATION_TIMEDOUT)
			gd_err_set(err, -ETIMEDOUT, _("%s: no answer within %g s (--timeout): %s"), url, o->timeout_s,
				   ebuf[0] ? ebuf : c->easy_strerror(rc));
		else
			gd_err_set(err, -EIO, "%s: %s", url, ebuf[0] ? ebuf : c->easy_strerror(rc));
		gd_http_reply_release(r);
		return err ? err->code : -EIO;
	}
	c->easy_getinfo(c->easy, CURLINFO_RESPONSE_CODE, &r->status);
	if (c->easy_getinfo(c->easy, CURLINFO_CONTENT_TYPE, &ct) == CURLE_OK && ct)
		gd_strlcpy(r->content_type, ct, sizeof r->content_type);
	if (!r->body) {
		r->body = gd_xmalloc(1);
		r->body[0] = '\0';
	}
	return 0;
}

char *gd_http_escape(struct gd_http_client *c, const char *s)
{
	char *e = c->easy_escape(c->easy, s, (int)strlen(s)), *out;

	if (!e) {
		fputs("gpudoctor: out of memory (curl_easy_escape)\n", stderr);
		abort();
	}
	out = gd_xstrdup(e);
	c->curl_free(e);
	return out;
}

void gd_http_reply_release(struct gd_http_reply *r)
{
	free(r->body);
	memset(r, 0, sizeof *r);
}
