/*
 * view.h - the live view's screen as lines of text: a pure function from the
 * model (recent snapshots, findings, episodes) and the terminal size to the
 * lines to draw.  tui.c draws them with ncurses; tests call the layout with
 * hand-built snapshots and read the lines, as nvtop tests its layout.
 *
 * The screen, top to bottom:
 *
 *   gpudoctor watch | host gpu-a17 | up 1234.5 s | 2 GPUs | every 0.5 s
 *   GPU UTIL SM MHz     TEMP/SLOW POWER/LIMIT MEMORY     PCIE  STATE REASONS
 *   0    98% 1980/1980  45/87C    351/700W    66/80G     5x16        sw_power_cap
 *   CPU [#####.....]  52%  iowait 3%  PSI cpu 1.2 io 0.0 mem 0.0
 *   MEM [##........]  21% of 503G  disk r 1.2 GB/s w 50 MB/s  net rx 10 MB/s tx 2 MB/s
 *   FINDINGS (1)
 *   WARNING io.checkpoint_stall sdb: Every GPU was idle for 8.0 s ...
 *     -> Write checkpoints asynchronously ...
 *   EPISODES (3, every 60.0 s)
 *   14:03:12 +8.0 s gpu0-1 idle - io.checkpoint_stall: ...
 *   q quit | 42 samples | 3 rules not evaluated
 *
 * A GPU's row takes the colour of the worst active finding that names it
 * (critical, warning, info; a stalled GPU at least warning), and its STATE
 * column ends in '!' when it is the odd one out: a warning or critical
 * finding its siblings do not all share, or stalled while most of them are
 * not ("slow!" for the one slowed GPU of eight).  A lost GPU's row reads
 * "lost ... !".  Colour is never needed: the words and '!' say it.
 *
 * Lines are cut to the width (counted in display columns: a Chinese
 * character takes two; UTF-8 is never split); the GPU table's columns are
 * padded by display width, as wide as their headings; when the
 * height is short, findings lose their remedy lines first, then whole
 * findings ("... and 3 more").  Below 120 columns the GPU name and the
 * utilisation bar are left out.
 */
#ifndef GD_TUI_VIEW_H
#define GD_TUI_VIEW_H

#include <stdbool.h>
#include <stddef.h>

#include "model/vec.h"
#include "rules/episodes.h"
#include "rules/rule.h"

enum gd_view_attr { GD_VA_NORMAL, GD_VA_TITLE, GD_VA_HEAD, GD_VA_INFO, GD_VA_WARN, GD_VA_CRIT, GD_VA_DIM };

struct gd_view_line {
	enum gd_view_attr attr;
	char text[1024];          /* at most cols display columns */
};

struct gd_view_model {
	const struct gd_window *w;          /* recent snapshots, oldest first; the last is now */
	const struct gd_thresholds *th;
	const struct gd_findings *findings; /* the rules over the recent snapshots */
	const struct gd_episode *episodes;  /* oldest first */
	size_t nepisodes;
	bool periodic;
	double period_s;
	double interval_s;
};

/* Replaces the contents of lines (struct gd_view_line) with the screen for
 * cols x rows; returns the number of lines (<= rows). */
size_t gd_view_layout(const struct gd_view_model *m, int cols, int rows, struct gd_vec *lines);

/* One plain line for a non-terminal (watch | tee): time, each GPU's
 * utilisation, clock, temperature and power, CPU, the active finding ids and
 * the episode count.  Always English, as record's lines: a log that scripts
 * read, not a screen. */
const char *gd_view_plain(const struct gd_view_model *m, char *buf, size_t size);

/* Decodes NVML's clock-event reason bits: "sw_power_cap,sw_thermal". */
const char *gd_clock_reasons_str(unsigned long long bits, char *buf, size_t size);

#endif
