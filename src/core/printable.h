/*
 * printable.h - text from outside (a process's name or command line, a
 * label, a server's error) made safe to show on a terminal.
 *
 * A process may name itself "\e[2J\e]0;pwned\a": printed raw, that clears
 * root's screen and sets its window title; a '\n' in it forges a line of
 * the report.  Every string that does not come from gpudoctor itself goes
 * through here before a text output prints it (check, report --text, fleet,
 * --npd); JSON keeps the exact value (its escaping covers control bytes),
 * and HTML escapes its own.
 *
 * Replaced by '?', one per character: C0 control bytes (tab and newline
 * too), DEL, C1 controls (U+0080..U+009F, which some terminals obey as
 * CSI/OSC), and bytes that do not form valid UTF-8 (a raw 0x9b is CSI to a
 * terminal that is not in UTF-8).  Other UTF-8 (Chinese names) is kept.
 */
#ifndef GD_CORE_PRINTABLE_H
#define GD_CORE_PRINTABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* Whether s[0..n) holds nothing to replace. */
bool gd_printable_is(const char *s, size_t n);

/* s[0..n) into out (size > 0), replaced as above, cut to fit between
 * characters; returns strlen(out). */
size_t gd_printable(const char *s, size_t n, char *out, size_t size);

/* Writes s to out as gd_printable would, except that its newlines stay
 * (a message of several lines: gd_cli_fail). */
void gd_printable_fputs(const char *s, FILE *out);

/* Printable copies that live until gd_pr_release: gd_pr(&pr, s) is s
 * itself when it is already printable (the usual case, no copy), else a
 * cleaned copy.  Lets a text output wrap its arguments in place:
 *   fprintf(out, "%s: %s\n", gd_pr(&pr, subject), gd_pr(&pr, summary)); */
struct gd_pr {
	char **copies;
	size_t n, cap;
};

const char *gd_pr(struct gd_pr *pr, const char *s);
void gd_pr_release(struct gd_pr *pr);

#endif
