/*
 * tui.c - ncurses drawing for `watch` (tui.h).  curses keeps its own
 * process-wide state by design; this file only wraps it.
 */
#include <stdbool.h>

#include "tui/tui.h"

#include <curses.h>
#include <locale.h>

#include "tui/view.h"

int gd_tui_start(bool color)
{
	setlocale(LC_ALL, "");
	if (!initscr())
		return -1;
	cbreak();
	noecho();
	keypad(stdscr, TRUE);
	curs_set(0);
	if (color && has_colors()) {
		start_color();
		use_default_colors();
		init_pair(1, COLOR_BLACK, COLOR_CYAN);
		init_pair(2, COLOR_CYAN, -1);
		init_pair(3, COLOR_YELLOW, -1);
		init_pair(4, COLOR_RED, -1);
		init_pair(5, COLOR_BLUE, -1);
	}
	return 0;
}

void gd_tui_end(void)
{
	endwin();
}

void gd_tui_size(int *cols, int *rows)
{
	int y, x;

	getmaxyx(stdscr, y, x);
	*cols = x;
	*rows = y;
}

static attr_t attr_of(enum gd_view_attr a)
{
	bool c = has_colors();

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

void gd_tui_draw(const struct gd_vec *lines)
{
	erase();
	for (size_t i = 0; i < lines->n; i++) {
		const struct gd_view_line *l = GD_VEC_AT(*lines, const struct gd_view_line, i);
		attr_t at = attr_of(l->attr);

		attron(at);
		mvaddstr((int)i, 0, l->text);
		attroff(at);
	}
	refresh();
}

int gd_tui_key(int timeout_ms)
{
	int ch;

	timeout(timeout_ms);
	ch = getch();
	if (ch == KEY_RESIZE)
		return GD_TUI_RESIZE;
	return ch == ERR ? GD_TUI_NOKEY : ch;
}
