/*
 * fmlog.h - NVIDIA Fabric Manager's log (/var/log/fabricmanager.log, or the
 * daemon's lines in the journal), for gpu.fabric_not_ready.
 *
 *   [Feb 27 2025 15:10:02] [ERROR] [tid 12727] detected NVSwitch non-fatal error 12028 on fid 0 on ...
 *   [Jul 23 2024 07:53:55] [ERROR] [tid 841] detected NVSwitch fatal error 20034 on fid 0 on ...
 *   [Feb 25 2025 13:59:45] [INFO] [tid 1803] Received an inband message:  Message header details: ...
 *   Message payload details:Team release request: ...        (a message's next lines)
 *   Nov 05 13:55:26 node1 nv-fabricmanager[104230]: fabric manager NVIDIA GPU driver interface version
 *       550.127.05 don't match with driver version 550.120. ...  (journal, syslog)
 *
 * Counted: ERROR and CRITICAL lines (a journal line of the daemon when it
 * says error, failed, abort or don't match) inside the look-back, of them
 * the fatal ones; "detected NVSwitch non-fatal error" lines on their own
 * (the kernel's SXid lines say the same: gpu.nvswitch_errors), and
 * NV_WARN_NOTHING_TO_DO (a board without NVSwitches: not a fault) never.
 * Pure: no I/O.  The log writes local time without a zone.
 */
#ifndef GD_KLOG_FMLOG_H
#define GD_KLOG_FMLOG_H

#include <stdbool.h>
#include <stddef.h>

#include "core/err.h"
#include "model/snapshot.h"

/* Whether the line is Fabric Manager's: its own ("[Mon DD YYYY HH:MM:SS] [LEVEL] ")
 * or the daemon's in the journal ("nv-fabricmanager[PID]: "). */
bool gd_fmlog_is_line(const char *p, size_t n);

/*
 * Fills f->fm_log_lines, _errors, _fatal, _nonfatal, _last, _last_time from
 * buf.  now_s: the sample's wall clock (seconds since the epoch) the look-back
 * counts from; NAN: from the log's own newest time stamp (a file read
 * offline).  lookback_s <= 0: everything counts.  Returns 0; 1 when some
 * lines that start like a time stamp could not be read (err names the
 * first, the rest still count); -EINVAL when no line is Fabric Manager's.
 */
int gd_fmlog_parse(const char *buf, size_t len, double now_s, double lookback_s, struct gd_fabric *f,
		   struct gd_err *err);

/* gd_fmlog_parse as a parser of the registry's shape (offline, fuzzing):
 * into s->fabric, the look-back 24 h before the log's last line. */
int gd_parse_fmlog(const char *buf, size_t len, struct gd_snapshot *s, struct gd_err *err);

#endif
