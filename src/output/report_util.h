/*
 * report_util.h - counts of what a snapshot covered, for the closing account;
 * the severity words people read; layout by display width (a Chinese
 * character takes two terminal columns: text is padded and wrapped by
 * columns, never by bytes).
 */
#ifndef GD_OUTPUT_REPORT_UTIL_H
#define GD_OUTPUT_REPORT_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "core/i18n.h"
#include "model/snapshot.h"
#include "rules/rule.h"

struct gd_report_counts {
	uint64_t cpus;
	size_t disks, netifs, ib_ports, procs, gpu_jobs, cgroups;
};

void gd_report_counts(const struct gd_snapshot *s, struct gd_report_counts *c);

/* The severity as the text report and watch show it: "CRITICAL", "WARNING",
 * "INFO" (严重, 警告, 提示 in Chinese); gd_sev_word is the lower-case form
 * of the HTML report and the configuration file.  gd_severity_name stays
 * the English word JSON and labels use. */
const char *gd_sev_label(enum gd_severity s);
const char *gd_sev_word(enum gd_severity s);

/* The verdict line of the text and HTML reports, a printf format for the
 * counts of critical, warning and info findings and the exit code: "0
 * critical, 3 warnings, 0 info  (exit 1)". */
#define GD_VERDICT_FMT(warnings) \
	P_("%zu critical, %zu warning, %zu info  (exit %d)", "%zu critical, %zu warnings, %zu info  (exit %d)", \
	   (unsigned long)(warnings))

/* Who a GPU job process is (job_ranks[]), in the language in effect:
 * gd_job_rank_short "rank 3/16" ("" without a rank), gd_job_rank_desc
 * "rank 3/16 (local 3, node 0) · torchelastic:abc · gpu3 · pid 4242 · pod
 * ns/name", and why its identity is not known when it could not be read.
 * What is not known is left out.  Both return buf. */
const char *gd_job_rank_short(const struct gd_job_rank *r, char *buf, size_t size);
const char *gd_job_rank_desc(const struct gd_job_rank *r, char *buf, size_t size);

/* The display state of a source ("absent", "denied" ...) in the language in
 * effect; a word it does not know is returned as it is. */
const char *gd_src_status_label(const char *status);

/* Writes s into buf (of size bytes) followed by spaces up to cols display
 * columns: printf's "%-20s" for text that may be Chinese.  gd_rpad puts
 * the spaces first ("%20s").  Both return buf. */
char *gd_pad(char *buf, size_t size, const char *s, size_t cols);
char *gd_rpad(char *buf, size_t size, const char *s, size_t cols);

/* Whether text is laid out for Chinese: lines wrapped at 80 columns.  The
 * English report is never wrapped (its layout is what scripts and golden
 * files have always read). */
bool gd_text_wraps(void);

/* Writes len bytes of text to out, each line that is wider than cols
 * display columns wrapped: at a space, or between two Chinese characters
 * (never before a closing or after an opening punctuation mark), else cut
 * at a character boundary; continuation lines are indented as the line
 * (under the text after a leading "→ " or "-> "), 2 columns further for a
 * line indented less than 10 (the items of a list).  Colour escapes take no
 * columns. */
void gd_text_wrap(FILE *out, const char *text, size_t len, size_t cols);

/* Calls fn(out, arg), wrapped at 80 columns (or $COLUMNS, if at least 40)
 * through gd_text_wrap when
 * gd_text_wraps(): what the text reports (check, report --text) write. */
typedef void gd_text_fn(FILE *out, const void *arg);
void gd_text_out(FILE *out, gd_text_fn *fn, const void *arg);

#endif
