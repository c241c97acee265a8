/*
 * common.c - what every command does the same way: its error line and the
 * language of its messages.
 */
#include "cli/cli.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/i18n.h"
#include "core/printable.h"

int gd_cli_fail(const char *fmt, ...)
{
	va_list ap;
	char *msg = NULL;
	int n;

	fputs("gpudoctor: ", stderr);
	va_start(ap, fmt);
	n = vasprintf(&msg, fmt, ap);
	va_end(ap);
	/* a message may quote what came from outside (a file's line, a
	 * server's error): made printable for the terminal (core/printable.h) */
	if (n >= 0)
		gd_printable_fputs(msg, stderr);
	free(msg);
	fputc('\n', stderr);
	return 3;
}

int gd_cli_lang(int argc, char **argv)
{
	const char *lang = NULL;
	bool json = false, help = false, bad = false;
	int n = 1;

	/* the commands whose output is data (a snapshot, a recording, the
	 * exporter's answers, the configuration file make install writes)
	 * speak English unless told otherwise, as --json */
	if (argc > 1 && (strcmp(argv[1], "snapshot") == 0 || strcmp(argv[1], "record") == 0 ||
			 strcmp(argv[1], "serve") == 0 || strcmp(argv[1], "config") == 0))
		json = true;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (strcmp(a, "--") == 0) {
			/* what follows is not ours (a command to run) */
			while (i < argc)
				argv[n++] = argv[i++];
			break;
		}
		if (strcmp(a, "--lang") == 0) {
			if (i + 1 >= argc) {
				bad = true;
				break;
			}
			lang = argv[++i];
			continue;
		}
		if (strncmp(a, "--lang=", 7) == 0) {
			lang = a + 7;
			continue;
		}
		if (strcmp(a, "--json") == 0)
			json = true;
		/* a help text is read by a person, whatever the command's output */
		if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0)
			help = true;
		argv[n++] = argv[i];
	}
	argv[n] = NULL;
	if (bad) {
		gd_i18n_init(lang && gd_i18n_known(lang) ? lang : NULL);
		gd_cli_fail(_("--lang needs a language: zh_CN or en"));
		return -1;
	}
	if (lang && !gd_i18n_known(lang)) {
		gd_i18n_init("en");
		gd_cli_fail(_("--lang %s: not a language gpudoctor speaks (zh_CN, en)"), lang);
		return -1;
	}
	if (gd_i18n_init(lang ? lang : json && !help ? "en" : NULL) < 0)
		/* the catalogue is not installed: English, and say so once */
		fprintf(stderr, "gpudoctor: no %s message catalogue was found (GPUDOCTOR_LOCALEDIR, the build "
			"tree's locale/, or the installed locale directory): English it is\n", lang);
	return n;
}
