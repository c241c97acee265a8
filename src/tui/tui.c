/*
 * tui.c - ncurses drawing for `watch` (tui.h), with libncursesw.so.6 loaded
 * by dlopen when watch starts on a terminal, not linked: ncursesw and
 * libtinfo are about 250 KB of resident pages that `serve` and `check`
 * would carry for nothing.  The header still gives the types and the
 * constants (COLOR_PAIR, A_*, COLOR_*, KEY_RESIZE); the functions come from
 * a table resolved with dlsym, and the w* forms are called on the screen's
 * window (stdscr, a data symbol of the library) instead of the stdscr macros.
 *
 * curses keeps its own process-wide state by design; this file only wraps
 * it.  RTLD_NODELETE: curses leaves its SIGWINCH handler installed after
 * endwin, so the library must stay mapped after gd_tui_end's dlclose.
 */
#include <stdbool.h>

#include "tui/tui.h"

#include <curses.h>
#include <dlfcn.h>
#include <errno.h>
#include <langinfo.h>
#include <locale.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/i18n.h"
#include "tui/view.h"

#if NCURSES_REENTRANT
#error "stdscr is a function in a reentrant ncurses: tui.c reads it as a variable"
#endif

struct gd_tui {
	void *dl;
	SCREEN *screen;
	WINDOW *win; /* stdscr */
	bool colors;
	__typeof__(newterm) *newterm;
	__typeof__(def_prog_mode) *def_prog_mode;
	__typeof__(endwin) *endwin;
	__typeof__(delscreen) *delscreen;
	__typeof__(cbreak) *cbreak;
	__typeof__(noecho) *noecho;
	__typeof__(keypad) *keypad;
	__typeof__(curs_set) *curs_set;
	__typeof__(has_colors) *has_colors;
	__typeof__(start_color) *start_color;
	__typeof__(use_default_colors) *use_default_colors;
	__typeof__(init_pair) *init_pair;
	__typeof__(werase) *werase;
	__typeof__(wattr_on) *wattr_on;
	__typeof__(wattr_off) *wattr_off;
	__typeof__(wmove) *wmove;
	__typeof__(waddnstr) *waddnstr;
	__typeof__(wrefresh) *wrefresh;
	__typeof__(wtimeout) *wtimeout;
	__typeof__(wgetch) *wgetch;
	int (*maxx)(const WINDOW *); /* getmaxx/getmaxy: macros in the header */
	int (*maxy)(const WINDOW *);
	WINDOW **stdscr_var;         /* a data symbol: the variable's address */
};

#define SYM(member, name) { name, offsetof(struct gd_tui, member) }

static const struct {
	const char *name;
	size_t off;
} tui_syms[] = {
	SYM(newterm, "newterm"),
	SYM(def_prog_mode, "def_prog_mode"),
	SYM(endwin, "endwin"),
	SYM(delscreen, "delscreen"),
	SYM(cbreak, "cbreak"),
	SYM(noecho, "noecho"),
	SYM(keypad, "keypad"),
	SYM(curs_set, "curs_set"),
	SYM(has_colors, "has_colors"),
	SYM(start_color, "start_color"),
	SYM(use_default_colors, "use_default_colors"),
	SYM(init_pair, "init_pair"),
	SYM(werase, "werase"),
	SYM(wattr_on, "wattr_on"),
	SYM(wattr_off, "wattr_off"),
	SYM(wmove, "wmove"),
	SYM(waddnstr, "waddnstr"),
	SYM(wrefresh, "wrefresh"),
	SYM(wtimeout, "wtimeout"),
	SYM(wgetch, "wgetch"),
	SYM(maxx, "getmaxx"),
	SYM(maxy, "getmaxy"),
	SYM(stdscr_var, "stdscr"),
};

/* dlopen and dlsym into t; GD_TUI_NOLIB with err set on failure. */
static int load(struct gd_tui *t, const char *soname, struct gd_err *err)
{
	const char *e;

	dlerror();
	t->dl = dlopen(soname, RTLD_LAZY | RTLD_LOCAL | RTLD_NODELETE);
	if (!t->dl) {
		e = dlerror();
		if (!e || strstr(e, "No such file"))
			gd_err_set(err, -ENOENT, _("%s is not installed (apt-get install libncursesw6)"), soname);
		else
			gd_err_set(err, -ELIBBAD, _("%s cannot be loaded: %s"), soname, e);
		return GD_TUI_NOLIB;
	}
	for (size_t i = 0; i < sizeof tui_syms / sizeof tui_syms[0]; i++) {
		void *p = dlsym(t->dl, tui_syms[i].name);

		if (!p) {
			gd_err_set(err, -ELIBBAD, _("%s has no %s"), soname, tui_syms[i].name);
			return GD_TUI_NOLIB;
		}
		/* POSIX: a function pointer and void * have the same size. */
		memcpy((char *)t + tui_syms[i].off, &p, sizeof p);
	}
	return 0;
}

/* ncursesw draws multibyte text only under a UTF-8 LC_CTYPE, which it reads
 * when the screen starts.  gd_i18n_init took LC_CTYPE from the environment
 * and, for Chinese, made sure it is UTF-8; only LC_CTYPE is touched here
 * (LC_ALL would also reset LC_MESSAGES, losing --lang zh_CN under LANG=C,
 * and LC_NUMERIC, whose decimal point may not be a point). */
static void set_ctype(void)
{
	const char *cur = setlocale(LC_CTYPE, NULL), *cs;

	if (!cur || strcmp(cur, "C") == 0 || strcmp(cur, "POSIX") == 0)
		setlocale(LC_CTYPE, "");
	cs = nl_langinfo(CODESET);
	if (strcmp(gd_i18n_lang(), "en") != 0 && !(cs && (strcasecmp(cs, "UTF-8") == 0 || strcasecmp(cs, "utf8") == 0)))
		setlocale(LC_CTYPE, "C.UTF-8");
}

int gd_tui_start(struct gd_tui **out, const char *soname, bool color, struct gd_err *err)
{
	struct gd_tui *t = calloc(1, sizeof *t);
	int rc;

	*out = NULL;
	if (!t) {
		gd_err_set(err, -ENOMEM, "%s", _("out of memory"));
		return GD_TUI_NOTERM;
	}
	if ((rc = load(t, soname, err)) < 0)
		goto fail;
	set_ctype();
	/* newterm, not initscr: initscr exits the process when TERM is unknown. */
	t->screen = t->newterm(NULL, stdout, stdin);
	if (!t->screen) {
		const char *term = getenv("TERM");

		gd_err_set(err, -ENOTTY, _("cannot start the terminal (TERM=%s)"), term ? term : "");
		rc = GD_TUI_NOTERM;
		goto fail;
	}
	t->def_prog_mode();
	t->win = *t->stdscr_var;
	t->cbreak();
	t->noecho();
	t->keypad(t->win, TRUE);
	t->curs_set(0);
	if (color && t->has_colors()) {
		t->colors = true;
		t->start_color();
		t->use_default_colors();
		t->init_pair(1, COLOR_BLACK, COLOR_CYAN);
		t->init_pair(2, COLOR_CYAN, -1);
		t->init_pair(3, COLOR_YELLOW, -1);
		t->init_pair(4, COLOR_RED, -1);
		t->init_pair(5, COLOR_BLUE, -1);
	}
	*out = t;
	return 0;
fail:
	if (t->dl)
		dlclose(t->dl);
	free(t);
	return rc;
}

void gd_tui_end(struct gd_tui *t)
{
	if (!t)
		return;
	t->endwin();
	t->delscreen(t->screen);
	dlclose(t->dl);
	free(t);
}

void gd_tui_size(struct gd_tui *t, int *cols, int *rows)
{
	*cols = t->maxx(t->win);
	*rows = t->maxy(t->win);
}

static attr_t attr_of(const struct gd_tui *t, enum gd_view_attr a)
{
	bool c = t->colors;

	switch (a) {
	case GD_VA_TITLE:
		return c ? COLOR_PAIR(1) : A_REVERSE;
	case GD_VA_HEAD:
		return A_BOLD;
	case GD_VA_INFO:
		return c ? COLOR_PAIR(2) : A_NORMAL;
	case GD_VA_WARN:
		return (c ? COLOR_PAIR(3) : A_NORMAL) | A_BOLD;
	case GD_VA_CRIT:
		return (c ? COLOR_PAIR(4) : A_NORMAL) | A_BOLD;
	case GD_VA_DIM:
		return A_DIM;
	default:
		return A_NORMAL;
	}
}

void gd_tui_draw(struct gd_tui *t, const struct gd_vec *lines)
{
	t->werase(t->win);
	for (size_t i = 0; i < lines->n; i++) {
		const struct gd_view_line *l = GD_VEC_AT(*lines, const struct gd_view_line, i);
		attr_t at = attr_of(t, l->attr);

		t->wattr_on(t->win, at, NULL);
		if (t->wmove(t->win, (int)i, 0) != ERR)
			t->waddnstr(t->win, l->text, -1);
		t->wattr_off(t->win, at, NULL);
	}
	t->wrefresh(t->win);
}

int gd_tui_key(struct gd_tui *t, int timeout_ms)
{
	int ch;

	t->wtimeout(t->win, timeout_ms);
	ch = t->wgetch(t->win);
	if (ch == KEY_RESIZE)
		return GD_TUI_RESIZE;
	return ch == ERR ? GD_TUI_NOKEY : ch;
}
