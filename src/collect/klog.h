/*
 * klog.h (collect) - kernel-log evidence into a snapshot: the /dev/kmsg and
 * EDAC collectors are in collectors.h; this adds the file form that
 * `check --from` uses.
 */
#ifndef GD_COLLECT_KLOG_H
#define GD_COLLECT_KLOG_H

#include "core/err.h"
#include "model/snapshot.h"

/* Most events a snapshot keeps; more are counted in klog_info.dropped. */
#define GD_KLOG_SNAPSHOT_CAP 20000

/*
 * Reads a kernel log (any front-end, plain or gzip) from fd into s: its
 * klog[] events inside lookback_s (<= 0: 24 h) before the file's last
 * event, klog_info, a "klog" row in sources[], and the file's clock as the
 * snapshot's time.  Returns 0, 1 (part read: err says why, the rest kept)
 * or negative when nothing could be read.
 */
int gd_klog_snapshot_from_fd(struct gd_snapshot *s, int fd, const char *name, double lookback_s,
			     struct gd_err *err);

#endif
