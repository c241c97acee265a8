/*
 * i18n.c - gettext set-up, the language switch and display widths.
 */
#include "core/i18n.h"

#include <langinfo.h>
#include <limits.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>
#include <wchar.h>

#ifndef GD_LOCALEDIR
#define GD_LOCALEDIR "/usr/local/share/locale"
#endif

/* The catalogue's own name for the language: "zh_CN", or NULL for English. */
static const char *canonical(const char *lang)
{
	if (!lang || !*lang)
		return NULL;
	if (strcmp(lang, "en") == 0 || strncmp(lang, "en_", 3) == 0 || strcmp(lang, "C") == 0 ||
	    strcmp(lang, "POSIX") == 0 || strncmp(lang, "C.", 2) == 0)
		return "";
	if (strcmp(lang, "zh") == 0 || strncmp(lang, "zh_CN", 5) == 0 || strncasecmp(lang, "zh-CN", 5) == 0 ||
	    strcmp(lang, "zh_Hans") == 0 || strcmp(lang, "zh-Hans") == 0)
		return "zh_CN";
	return NULL;
}

bool gd_i18n_known(const char *lang)
{
	return canonical(lang) != NULL;
}

static bool has_catalogue(const char *dir)
{
	char p[PATH_MAX];
	struct stat st;

	return (size_t)snprintf(p, sizeof p, "%s/zh_CN/LC_MESSAGES/" GD_TEXTDOMAIN ".mo", dir) < sizeof p &&
	       stat(p, &st) == 0;
}

/* The build tree keeps its catalogues in locale/ beside the binary. */
static void bind_catalogue(void)
{
	const char *env = getenv("GPUDOCTOR_LOCALEDIR");
	char exe[PATH_MAX];
	ssize_t n;

	if (env && *env) {
		bindtextdomain(GD_TEXTDOMAIN, env);
	} else if ((n = readlink("/proc/self/exe", exe, sizeof exe - 16)) > 0) {
		char *slash;

		exe[n] = 0;
		slash = strrchr(exe, '/');
		if (slash)
			strcpy(slash + 1, "locale");
		bindtextdomain(GD_TEXTDOMAIN, slash && has_catalogue(exe) ? exe : GD_LOCALEDIR);
	} else {
		bindtextdomain(GD_TEXTDOMAIN, GD_LOCALEDIR);
	}
	bind_textdomain_codeset(GD_TEXTDOMAIN, "UTF-8");
}

static bool utf8_ctype(void)
{
	const char *cs = nl_langinfo(CODESET);

	return cs && (strcasecmp(cs, "UTF-8") == 0 || strcasecmp(cs, "utf8") == 0);
}

int gd_i18n_use(const char *lang)
{
	const char *c = canonical(lang);
	const char *cur;

	if (!c)
		return -1;
	if (!*c) {
		/* English: a language without a catalogue, whatever the locale */
		setenv("LANGUAGE", "en", 1);
		textdomain(GD_TEXTDOMAIN);
		return 0;
	}
	setenv("LANGUAGE", c, 1);
	/* gettext ignores LANGUAGE under the C locale: any other will do, and
	 * C.UTF-8 is always there (glibc 2.35 and later) */
	cur = setlocale(LC_MESSAGES, NULL);
	if (!cur || strcmp(cur, "C") == 0 || strcmp(cur, "POSIX") == 0)
		if (!setlocale(LC_MESSAGES, "C.UTF-8") && !setlocale(LC_MESSAGES, "zh_CN.UTF-8"))
			setlocale(LC_MESSAGES, "en_US.UTF-8");
	if (!utf8_ctype())
		setlocale(LC_CTYPE, "C.UTF-8");
	textdomain(GD_TEXTDOMAIN);
	return strcmp(gd_i18n_lang(), c) == 0 ? 0 : -1;
}

/* The language the environment asks for, as setlocale reads it. */
static const char *env_lang(void)
{
	static const char *const vars[] = { "LC_ALL", "LC_MESSAGES", "LANG" };

	for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
		const char *v = getenv(vars[i]);

		if (v && *v)
			return v;
	}
	return NULL;
}

int gd_i18n_init(const char *lang)
{
	bool have_locale;

	setlocale(LC_CTYPE, "");
	have_locale = setlocale(LC_MESSAGES, "") != NULL;
	bind_catalogue();
	textdomain(GD_TEXTDOMAIN);
	/* LANG=zh_CN.UTF-8 on a machine without that locale generated: the
	 * user still reads Chinese (the catalogue is ours, not the system's) */
	if (!lang && !have_locale) {
		const char *c = canonical(env_lang());
		const char *l = getenv("LANGUAGE");
		char first[32];

		/* gettext's order: LANGUAGE (its first language) before the rest */
		if (c && *c && l && *l) {
			snprintf(first, sizeof first, "%.*s", (int)strcspn(l, ":"), l);
			c = canonical(first) ? canonical(first) : c;
		}
		if (c && *c)
			lang = c;
	}
	if (!lang) {
		/* the locale's language: Chinese text needs a UTF-8 terminal */
		if (strcmp(gd_i18n_lang(), "en") != 0 && !utf8_ctype())
			setlocale(LC_CTYPE, "C.UTF-8");
		return 0;
	}
	return gd_i18n_use(lang);
}

const char *gd_i18n_ctx(const char *ctx, const char *msgid)
{
	char key[256];
	const char *t;

	/* gettext's key for a message in a context: "ctx\004msgid" */
	if ((size_t)snprintf(key, sizeof key, "%s\004%s", ctx, msgid) >= sizeof key)
		return msgid;
	t = dgettext(GD_TEXTDOMAIN, key);
	return t == key ? msgid : t;
}

const char *gd_i18n_lang(void)
{
	/* the header of the catalogue in use ("" when none) names its language */
	const char *header = "";
	const char *h = dgettext(GD_TEXTDOMAIN, header);

	return h && strstr(h, "Language: zh_CN") ? "zh_CN" : "en";
}

/* East Asian Wide and Fullwidth ranges (Unicode 15, the ones text uses). */
static int wide(unsigned cp)
{
	return (cp >= 0x1100 && cp <= 0x115f) || (cp >= 0x2e80 && cp <= 0x303e) || (cp >= 0x3041 && cp <= 0x33ff) ||
	       (cp >= 0x3400 && cp <= 0x4dbf) || (cp >= 0x4e00 && cp <= 0x9fff) || (cp >= 0xa000 && cp <= 0xa4cf) ||
	       (cp >= 0xac00 && cp <= 0xd7a3) || (cp >= 0xf900 && cp <= 0xfaff) || (cp >= 0xfe30 && cp <= 0xfe4f) ||
	       (cp >= 0xff00 && cp <= 0xff60) || (cp >= 0xffe0 && cp <= 0xffe6) || (cp >= 0x1f300 && cp <= 0x1f64f) ||
	       (cp >= 0x20000 && cp <= 0x3fffd);
}

/* Decodes one UTF-8 character at s; *len its bytes (1 for a stray byte). */
static unsigned decode(const unsigned char *s, size_t *len)
{
	unsigned c = s[0];
	size_t n = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 1;
	unsigned cp = n == 1 ? c : n == 2 ? c & 0x1f : n == 3 ? c & 0x0f : c & 0x07;

	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80) {
			*len = 1;
			return c;
		}
		cp = cp << 6 | (s[i] & 0x3f);
	}
	*len = n;
	return cp;
}

/* Columns of one character: wcwidth where the locale knows it, else the
 * table above (the width must not depend on whether a UTF-8 locale exists). */
static size_t cols_of(unsigned cp)
{
	int w;

	if (cp < 0x80)
		return cp >= 0x20 && cp != 0x7f;
	w = wcwidth((wchar_t)cp);
	if (w >= 0)
		return (size_t)w;
	if ((cp >= 0x300 && cp <= 0x36f) || (cp >= 0x200b && cp <= 0x200f) || cp == 0xfe0f)
		return 0;
	return wide(cp) ? 2 : 1;
}

size_t gd_utf8_width(const char *s)
{
	size_t w = 0, len;

	for (const unsigned char *p = (const unsigned char *)s; *p; p += len)
		w += cols_of(decode(p, &len));
	return w;
}

size_t gd_utf8_fit(const char *s, size_t cols)
{
	size_t w = 0, len;
	const unsigned char *p = (const unsigned char *)s;

	for (; *p; p += len) {
		size_t c = cols_of(decode(p, &len));

		if (w + c > cols)
			break;
		w += c;
	}
	return (size_t)(p - (const unsigned char *)s);
}

size_t gd_utf8_cut(const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t j = len, need;

	while (j > 0 && (p[j - 1] & 0xc0) == 0x80)
		j--;
	if (j == 0 || p[j - 1] < 0xc0)
		return len;
	/* p[j - 1] leads a character of need bytes: whole, or cut off */
	need = (p[j - 1] >> 5) == 6 ? 2 : (p[j - 1] >> 4) == 14 ? 3 : 4;
	return len - (j - 1) >= need ? len : j - 1;
}
