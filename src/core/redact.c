/*
 * redact.c - secrets taken out of a command line (redact.h says which).
 */
#include "core/redact.h"

#include <ctype.h>
#include <string.h>

/* Word parts that name a secret on their own. */
static const char *const secret_words[] = { "password", "passwd", "pass", "passphrase", "pwd", "token", "secret",
					    "key", "apikey", "credential", "credentials" };
/* Stems that name a secret anywhere in a word (PGPASSWORD, clientsecret). */
static const char *const secret_stems[] = { "password", "passwd", "secret" };

static bool word_is(const char *w, size_t n, const char *word)
{
	return strlen(word) == n && strncasecmp(w, word, n) == 0;
}

static bool contains_ci(const char *s, size_t n, const char *stem)
{
	size_t k = strlen(stem);

	for (size_t i = 0; i + k <= n; i++)
		if (strncasecmp(s + i, stem, k) == 0)
			return true;
	return false;
}

bool gd_redact_name(const char *name, size_t n)
{
	size_t i = 0;

	for (size_t k = 0; k < sizeof secret_stems / sizeof secret_stems[0]; k++)
		if (contains_ci(name, n, secret_stems[k]))
			return true;
	while (i < n) {
		size_t start;

		while (i < n && !isalnum((unsigned char)name[i]))
			i++;
		start = i;
		/* a part ends at a separator or where a lower-case letter meets an upper-case one */
		while (i < n && isalnum((unsigned char)name[i]) &&
		       !(i > start && islower((unsigned char)name[i - 1]) && isupper((unsigned char)name[i])))
			i++;
		for (size_t k = 0; i > start && k < sizeof secret_words / sizeof secret_words[0]; k++)
			if (word_is(name + start, i - start, secret_words[k]))
				return true;
	}
	return false;
}

/* The output: bytes appended while they fit; full once one did not. */
struct sink {
	char *p;
	size_t size, n;
	bool full;
};

static void put(struct sink *o, const char *s, size_t n)
{
	size_t room = o->size - 1 - o->n;

	if (o->full)
		return;
	if (n > room) {
		n = room;
		o->full = true;
	}
	memcpy(o->p + o->n, s, n);
	o->n += n;
}

static bool scheme_char(char c)
{
	return isalnum((unsigned char)c) || c == '+' || c == '-' || c == '.';
}

/* s[0..n) with the password of every URL in it replaced ("scheme://user:***@host").
 * open_end: s may stop inside its last URL's credentials (the '@' cut off). */
static void put_urls(struct sink *o, const char *s, size_t n, bool open_end)
{
	size_t from = 0;

	for (size_t i = 1; i + 3 <= n; i++) {
		size_t as, ae, at = 0, colon = 0;
		bool has_at = false, has_colon = false;

		if (i < from || memcmp(s + i, "://", 3) != 0 || !scheme_char(s[i - 1]))
			continue;
		as = i + 3;
		for (ae = as; ae < n && !strchr("/?#", s[ae]) && !isspace((unsigned char)s[ae]); ae++)
			if (s[ae] == '@') {
				at = ae;
				has_at = true;
			}
		for (size_t k = as; k < (has_at ? at : ae); k++)
			if (s[k] == ':') {
				colon = k;
				has_colon = true;
				break;
			}
		if (has_colon && (has_at || (open_end && ae == n))) {
			put(o, s + from, colon + 1 - from);
			put(o, GD_REDACTED, strlen(GD_REDACTED));
			from = has_at ? at : n;
		}
		i = as - 1;   /* a second URL may start inside this one's authority ("a://h1,b://u:p@h2") */
	}
	put(o, s + from, n - from);
}

/* Whether s[0..n) is NAME=VALUE with a name of identifier characters
 * (after Hydra's '+' or '++' and '~'): the length to the '=', else 0. */
static size_t assignment(const char *s, size_t n)
{
	size_t i = 0, start;

	while (i < n && i < 2 && (s[i] == '+' || s[i] == '~'))
		i++;
	start = i;
	while (i < n && (isalnum((unsigned char)s[i]) || s[i] == '_' || s[i] == '.' || s[i] == '-'))
		i++;
	return i > start && i < n && s[i] == '=' && !isdigit((unsigned char)s[start]) ? i : 0;
}

/* The arguments of in[0..len) into o (gd_redact_args). */
static void redact_into(struct sink *o, const char *in, size_t len, char sep, bool cut)
{
	bool value_next = false, first = true;
	size_t i = 0;

	while (i < len) {
		const char *a = in + i;
		const char *e = memchr(a, sep, len - i);
		size_t n = e ? (size_t)(e - a) : len - i, eq;
		bool last = !e || (size_t)(e - in) + 1 >= len;

		i += n + 1;
		if (!first)
			put(o, " ", 1);
		first = false;
		if (!n)
			continue;   /* runs of separators stay as they were, and take no option's value */
		/* the value of a secret option; one that starts with "--" is the next option */
		if (value_next && !(n > 2 && a[0] == '-' && a[1] == '-')) {
			value_next = false;
			put(o, GD_REDACTED, strlen(GD_REDACTED));
			continue;
		}
		value_next = false;
		if (n > 1 && a[0] == '-') {
			size_t d = a[1] == '-' ? 2 : 1;
			const char *q = memchr(a + d, '=', n - d);
			size_t nl = q ? (size_t)(q - a) - d : n - d;

			if (nl && !memchr(a, ' ', nl + d) && gd_redact_name(a + d, nl)) {
				if (q) {
					put(o, a, (size_t)(q - a) + 1);
					put(o, GD_REDACTED, strlen(GD_REDACTED));
				} else {
					put(o, a, n);
					value_next = true;
				}
				continue;
			}
			/* --set=db.password=x: the option's value is itself a secret assignment */
			if (q && (eq = assignment(q + 1, n - (size_t)(q + 1 - a))) && gd_redact_name(q + 1, eq)) {
				put(o, a, (size_t)(q + 1 - a) + eq + 1);
				put(o, GD_REDACTED, strlen(GD_REDACTED));
				continue;
			}
		} else if ((eq = assignment(a, n)) && gd_redact_name(a, eq)) {
			put(o, a, eq + 1);
			put(o, GD_REDACTED, strlen(GD_REDACTED));
			continue;
		}
		/* one argument holding a whole command line (a title set with
		 * setproctitle, sh -c "..."): its words are looked at too */
		if (sep != ' ' && memchr(a, ' ', n))
			redact_into(o, a, n, ' ', cut && last);
		else
			put_urls(o, a, n, cut && last);
	}
	if (sep == ' ' && len && in[len - 1] == ' ')
		put(o, " ", 1);   /* a joined line comes back as it was when it holds no secret */
}

size_t gd_redact_args(const char *in, size_t len, char sep, bool cut, char *out, size_t size)
{
	struct sink o = { out, size, 0, false };

	if (!size)
		return 0;
	redact_into(&o, in, len, sep, cut);
	/* cut: never inside a UTF-8 character */
	if (o.full) {
		size_t k = o.n, want;

		while (k && ((unsigned char)out[k - 1] & 0xc0) == 0x80 && o.n - k < 3)
			k--;
		if (k && (unsigned char)out[k - 1] >= 0xc0) {
			unsigned char lead = (unsigned char)out[k - 1];

			want = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : 2;
			if (o.n - (k - 1) < want)
				o.n = k - 1;
		}
	}
	out[o.n] = '\0';
	return o.n;
}
