/*
 * tui.h - the ncurses side of `watch`: start and end the screen, draw the
 * lines view.c laid out, wait for a key.  Nothing here decides what is shown.
 */
#ifndef GD_TUI_TUI_H
#define GD_TUI_TUI_H

#include <stdbool.h>

#include "model/vec.h"

#define GD_TUI_NOKEY (-1)
#define GD_TUI_RESIZE (-2)

/* Starts curses on the terminal (locale from the environment); 0 or -1. */
int gd_tui_start(bool color);
void gd_tui_end(void);
void gd_tui_size(int *cols, int *rows);
/* Draws lines (struct gd_view_line) from the top, clearing the rest. */
void gd_tui_draw(const struct gd_vec *lines);
/* Waits up to timeout_ms for a key: the character, GD_TUI_RESIZE, or
 * GD_TUI_NOKEY (time-out, or a signal). */
int gd_tui_key(int timeout_ms);

#endif
