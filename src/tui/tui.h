/*
 * tui.h - the ncurses side of `watch`: start and end the screen, draw the
 * lines view.c laid out, wait for a key.  Nothing here decides what is shown.
 * libncursesw.so.6 is loaded with dlopen by gd_tui_start (gpudoctor does not
 * link it); when it cannot be, the caller shows plain lines instead.
 */
#ifndef GD_TUI_TUI_H
#define GD_TUI_TUI_H

#include <stdbool.h>

#include "core/err.h"
#include "model/vec.h"

#define GD_TUI_SONAME "libncursesw.so.6"

#define GD_TUI_NOKEY (-1)
#define GD_TUI_RESIZE (-2)

/* gd_tui_start's failures. */
#define GD_TUI_NOLIB (-1)  /* the library is missing, unloadable or incomplete */
#define GD_TUI_NOTERM (-2) /* curses could not start on this terminal */

struct gd_tui;

/* Loads soname (GD_TUI_SONAME; another name for the tests) and starts curses
 * on the terminal (locale from the environment).  0 with *out set, or
 * GD_TUI_NOLIB / GD_TUI_NOTERM with err saying why. */
int gd_tui_start(struct gd_tui **out, const char *soname, bool color, struct gd_err *err);
/* Restores the terminal and frees t (NULL: nothing). */
void gd_tui_end(struct gd_tui *t);
void gd_tui_size(struct gd_tui *t, int *cols, int *rows);
/* Draws lines (struct gd_view_line) from the top, clearing the rest. */
void gd_tui_draw(struct gd_tui *t, const struct gd_vec *lines);
/* Waits up to timeout_ms for a key: the character, GD_TUI_RESIZE, or
 * GD_TUI_NOKEY (time-out, or a signal). */
int gd_tui_key(struct gd_tui *t, int timeout_ms);

#endif
