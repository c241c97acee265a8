/*
 * offline.h - diagnosis of evidence captured elsewhere: `check --from FILE`
 * with what people paste into tickets.
 *
 * Each input's kind is found from its content, never its name: snapshot
 * JSON lines, `nvidia-smi -q` text, `nvidia-smi -q -x` XML, `nvidia-smi
 * --query-gpu=... --format=csv`, the plain `nvidia-smi` table and its
 * one-line failures, a kernel log (src/klog), `lspci -vv`, and
 * `nvidia-bug-report.log(.gz)`.  A paste that holds several outputs with
 * shell prompts, comments and elisions between them is split into parts and
 * each part is read.  The parts of one host merge into one snapshot per
 * instant; every part records a sources[] row named "offline:<kind>" with
 * the file, its status and the reason.
 *
 * The parsers have the collectors' signature (0 ok, 1 partial with err
 * naming the line, negative nothing usable) and are listed in gd_parsers[]
 * so the unit tests and the fuzz harness reach them.
 */
#ifndef GD_OFFLINE_OFFLINE_H
#define GD_OFFLINE_OFFLINE_H

#include <stdbool.h>
#include <stddef.h>

#include "core/err.h"
#include "model/snapshot.h"
#include "model/snapshot_json.h"

enum gd_ofl_kind {
	GD_OFL_UNKNOWN = 0,
	GD_OFL_JSONL,       /* gpudoctor snapshot lines */
	GD_OFL_SMI_Q,       /* nvidia-smi -q */
	GD_OFL_SMI_XML,     /* nvidia-smi -q -x */
	GD_OFL_SMI_CSV,     /* nvidia-smi --query-gpu=... --format=csv */
	GD_OFL_SMI_TABLE,   /* nvidia-smi (the boxed table, or its one-line failure) */
	GD_OFL_KLOG,        /* dmesg, journalctl -k, kern.log */
	GD_OFL_LSPCI,       /* lspci -vv */
	GD_OFL_DRIVER,      /* /proc/driver/nvidia/version */
	GD_OFL_BUG_REPORT,  /* nvidia-bug-report.log */
	GD_OFL_JOBLOG,      /* the job's own log: PyTorch, CUDA, NCCL, DataLoader messages */
	GD_OFL_DCGMI,       /* dcgmi diag, dmon, health */
	GD_OFL_DF,          /* df -h (its /dev/shm row) */
	GD_OFL_IBSTAT,      /* ibstat, ibv_devinfo */
	GD_OFL_NVLINK,      /* nvidia-smi nvlink -s, -e */
	GD_OFL_FMLOG,       /* NVIDIA Fabric Manager's log (fabricmanager.log, its journal lines) */
	GD_OFL_TOPO,        /* nvidia-smi topo -m */
	GD_OFL_NKINDS,
};

/* "nvidia-smi-q", "kernel-log", ...: the <kind> of "offline:<kind>". */
const char *gd_ofl_kind_name(enum gd_ofl_kind k);
/* What a person calls it in a message: "nvidia-smi -q", "lspci -vv" (translated). */
const char *gd_ofl_kind_title(enum gd_ofl_kind k);
/* The kind of one output (a part of a paste), from its content. */
enum gd_ofl_kind gd_ofl_detect(const char *buf, size_t len);

/* ---- parsers (collector signature) ---------------------------------------- */
int gd_parse_nvsmi_q(const char *buf, size_t len, struct gd_snapshot *s, struct gd_err *err);
int gd_parse_nvsmi_xml(const char *buf, size_t len, struct gd_snapshot *s, struct gd_err *err);
int gd_parse_nvsmi_csv(const char *buf, size_t len, struct gd_snapshot *s, struct gd_err *err);
/* The CSV reader's column i: its '|'-separated --query-gpu names (a name
 * ending in ".*" is a family); NULL past the end.  For tests/nvidia/. */
const char *gd_nvsmi_csv_names(size_t i);
/* dcgmi diag's result table, dcgmi dmon, dcgmi health (dcgmi.c). */
int gd_parse_dcgmi(const char *buf, size_t len, struct gd_snapshot *s, struct gd_err *err);
/* df's /dev/shm row; ibstat's or ibv_devinfo's ports (hostcmd.c). */
int gd_parse_df(const char *buf, size_t len, struct gd_snapshot *s, struct gd_err *err);
int gd_parse_ibstat(const char *buf, size_t len, struct gd_snapshot *s, struct gd_err *err);
/* nvidia-smi nvlink -s (links up) and -e (error counters) (hostcmd.c). */
int gd_parse_nvlink(const char *buf, size_t len, struct gd_snapshot *s, struct gd_err *err);
int gd_parse_nvsmi_table(const char *buf, size_t len, struct gd_snapshot *s, struct gd_err *err);
int gd_parse_lspci(const char *buf, size_t len, struct gd_snapshot *s, struct gd_err *err);
/* nvidia-smi topo -m: the GPU rows of the matrix into pci_topo[] (smi_topo.c). */
int gd_parse_nvsmi_topo(const char *buf, size_t len, struct gd_snapshot *s, struct gd_err *err);
/* The job's own log (joblog.c): job_log[] records, lines numbered from 1. */
int gd_parse_joblog(const char *buf, size_t len, struct gd_snapshot *s, struct gd_err *err);
/* True when a line of buf is a line of a job's log (a message, or a
 * training loop's progress line: what makes a file a job's log). */
bool gd_joblog_any(const char *buf, size_t len);
/* The rank a log file's name gives ("rank3.log", "train_rank_12.txt",
 * "log.RANK-7"): "rank" then an optional '-', '_' or '.', then digits, in
 * its last path component; false when none or past 2^32. */
bool gd_joblog_rank_of_name(const char *name, uint64_t *rank);
/* True when buf holds a message of a job's log that gd_parse_joblog keeps
 * (a traceback pasted into another output); fast on text that holds none. */
bool gd_joblog_messages(const char *buf, size_t len);
/* A whole paste or bug report: split, detect and read every part into s
 * (its sources[] rows say what each part gave). */
int gd_parse_offline_paste(const char *buf, size_t len, struct gd_snapshot *s, struct gd_err *err);

/* ---- the loader ------------------------------------------------------------ */

struct gd_ofl {
	struct gd_series inst;     /* the instants read so far, in order */
	struct gd_snapshot shared; /* evidence of no one instant (kernel log, lspci), merged into the last */
	unsigned last_kinds;       /* bit per kind: sample kinds already in the last instant */
	double lookback_s;         /* kernel-log look-back (0: 24 h) */
	bool any;                  /* something was read */
};

void gd_ofl_init(struct gd_ofl *o, double lookback_s);
void gd_ofl_release(struct gd_ofl *o);

/*
 * Reads one --from file ("-": standard input; gzip is undone, UTF-16 with a
 * byte-order mark decoded): snapshot JSON lines are appended to jsonl as
 * they are, anything else goes into o.  Returns 0, 1 when part of it could
 * not be read (err names file and line; the rest is kept), or negative when
 * nothing in it could be used (err says why).
 */
int gd_ofl_load_file(struct gd_ofl *o, struct gd_series *jsonl, const char *path, struct gd_err *err);
/* The same over a buffer already in memory (name is used in messages). */
int gd_ofl_load_buf(struct gd_ofl *o, struct gd_series *jsonl, const char *buf, size_t len, const char *name,
		    struct gd_err *err);
/* Appends o's instants to ser (the shared evidence merged into the last). */
void gd_ofl_finish(struct gd_ofl *o, struct gd_series *ser);

/* True when s was read offline (a sources[] row "offline:*"); desc gets
 * what it was read from, e.g. "nvidia-smi -q, kernel log". */
bool gd_ofl_describe(const struct gd_snapshot *s, char *desc, size_t descsz);

#endif
