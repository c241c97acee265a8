/*
 * split.h - the lines that split a paste into outputs, and what a command
 * line says the output after it is (detect.c); the CSV header test
 * (smi_csv.c).  Internal to src/offline/.
 */
#ifndef GD_OFFLINE_SPLIT_H
#define GD_OFFLINE_SPLIT_H

#include "core/tok.h"
#include "offline/offline.h"

enum ofl_line {
	OFL_LINE_TEXT,     /* output */
	OFL_LINE_PROMPT,   /* "$ nvidia-smi -q", "root@host:~# dmesg", "*** /var/log/kern.log" */
	OFL_LINE_COMMENT,  /* "# after the crash", "// node 3" */
	OFL_LINE_RULE,     /* "-----", "_____", "=====", a code fence */
	OFL_LINE_ELISION,  /* "[...]", "...", "<snip>" */
};

/* The class of one line; for a prompt, cmd is the command after it. */
enum ofl_line ofl_line_class(struct gd_slice line, struct gd_slice *cmd);
/* The kind of output a command prints ("nvidia-smi -q" -> SMI_Q). */
enum gd_ofl_kind ofl_cmd_kind(struct gd_slice cmd);
/* True when a line is the first row of a GPU block of nvidia-smi's table
 * ("|   1  Tesla V100-PCIE...  On   | 00008ED0:00:00.0 Off |  0 |"). */
bool ofl_table_gpu_row(struct gd_slice line);
/* True when a line is one only dcgmi prints (a diag table's header,
 * section or result row, dmon's #Entity header, health's report). */
bool ofl_dcgmi_line(struct gd_slice l);
/* True when a line of buf is a kernel-log event gpudoctor knows (Xid, OOM
 * kill, AER, ...): a paste that mixes one with other text is read for it. */
bool ofl_klog_events(const char *buf, size_t len);
/* True when a line is df's header or one of its rows (hostcmd.c). */
bool ofl_df_line(struct gd_slice l);
/* True when a line is a link's of nvidia-smi nvlink -s or -e (hostcmd.c). */
bool ofl_nvlink_line(struct gd_slice l);
/* True when a line is one only ibstat or ibv_devinfo prints (hostcmd.c). */
bool ofl_ibstat_line(struct gd_slice l);
/* True when a CSV line names columns nvidia-smi --query-gpu prints. */
bool ofl_csv_header(struct gd_slice line);

#endif
