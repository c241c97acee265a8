/*
 * i18n.h - the messages a person reads, in the language they read.
 *
 * GNU gettext, text domain "gpudoctor": _() marks and translates a message,
 * N_() marks one kept in a static table (translated where it is printed, with
 * _() on the variable).  Rule ids, JSON keys, metric names and label values
 * are never marked: they do not change with the language.  The catalogue is
 * po/zh_CN.po; the build writes build/locale/zh_CN/LC_MESSAGES/gpudoctor.mo.
 *
 * Only LC_MESSAGES and LC_CTYPE follow the locale: numbers, times and
 * collation stay as in the C locale, so every number gpudoctor prints reads
 * the same in every language (a decimal point, never a comma).
 */
#ifndef GD_CORE_I18N_H
#define GD_CORE_I18N_H

#include <libintl.h>
#include <stdbool.h>
#include <stddef.h>

#define GD_TEXTDOMAIN "gpudoctor"
#define _(s) dgettext(GD_TEXTDOMAIN, s)
#define N_(s) (s)
#define P_(s, p, n) dngettext(GD_TEXTDOMAIN, s, p, n)

/* A message with a context (gettext's msgctxt): the translation of msgid as
 * ctx means it, or msgid itself.  For words generated at run time, e.g. the
 * label of an evidence name ("evidence", "thermal limited"): the catalogue
 * gets them from scripts/po.sh, which lists the names the sources use. */
const char *gd_i18n_ctx(const char *ctx, const char *msgid);

/* Sets the language from the locale (LC_ALL, LC_MESSAGES, LANG, LANGUAGE as
 * gettext reads them) or, when lang is not NULL, forces it ("en", "C",
 * "zh_CN"...).  Finds the catalogue in $GPUDOCTOR_LOCALEDIR, else beside
 * the binary (the build tree's locale/), else the installed locale
 * directory.  Returns 0, or -1 when lang names a language gpudoctor has no
 * catalogue for (the caller says so; English is then in effect). */
int gd_i18n_init(const char *lang);

/* Switches the language of the messages for what follows (serve renders one
 * answer in the language its request asked for; it remembers gd_i18n_lang()
 * to switch back).  Returns 0, or -1 for NULL, an unknown language or one
 * without a catalogue.  Process-wide: one thread at a time. */
int gd_i18n_use(const char *lang);

/* "zh_CN" while Chinese is in effect, "en" otherwise. */
const char *gd_i18n_lang(void);

/* Whether lang is a language gpudoctor knows ("en", "C", "zh_CN" and its
 * spellings zh_CN.UTF-8, zh-CN, zh). */
bool gd_i18n_known(const char *lang);

/* Display width of a UTF-8 string in terminal columns (CJK characters take
 * two), and the number of bytes of s that fit in cols columns without cutting
 * a character.  Neither depends on the locale. */
size_t gd_utf8_width(const char *s);
size_t gd_utf8_fit(const char *s, size_t cols);

/* The length of the first len bytes of s without a character cut in two at
 * their end (a message cut short by its buffer). */
size_t gd_utf8_cut(const char *s, size_t len);

#endif
