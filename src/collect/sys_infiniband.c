/*
 * sys_infiniband.c - RDMA port state and counters (InfiniBand and RoCE):
 * /sys/class/infiniband/<dev>/ports/<n>/ (ib_core, Linux 2.6.11).
 *
 * One small file per attribute:
 *
 *     state        4: ACTIVE
 *     phys_state   5: LinkUp
 *     rate         400 Gb/sec (4X NDR)        (may be fractional: 13.64, 2.5)
 *     link_layer   InfiniBand                 (or Ethernet for RoCE; Linux 3.0)
 *     counters/symbol_error  0                (one number each)
 *
 * port_xmit_data and port_rcv_data count units of 4 octets (IB PortCounters),
 * so they are multiplied by 4 into bytes.  A port whose state or rate cannot
 * be parsed is kept with that field absent and the collector says partial.
 * Counters a driver does not provide are absent, and so are those that
 * read "N/A (no PMA)" (ib_core's show_pma_counter for a device without a
 * performance-management agent, e.g. i40iw).  No /sys/class/infiniband
 * (no RDMA driver loaded) is absent, not an error.  See FACTS.md §4.10.
 */
#include "collect/collectors.h"
#include "core/tok.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "collect/dirlist.h"
#include "core/i18n.h"

struct ib_counter {
	const char *file;
	size_t offset;   /* of a struct gd_u64 in struct gd_ib_port */
	unsigned mult;
};

static const struct ib_counter ib_counters[] = {
	{ "symbol_error", offsetof(struct gd_ib_port, symbol_error), 1 },
	{ "port_rcv_errors", offsetof(struct gd_ib_port, port_rcv_errors), 1 },
	{ "link_error_recovery", offsetof(struct gd_ib_port, link_error_recovery), 1 },
	{ "link_downed", offsetof(struct gd_ib_port, link_downed), 1 },
	{ "port_xmit_discards", offsetof(struct gd_ib_port, port_xmit_discards), 1 },
	{ "local_link_integrity_errors", offsetof(struct gd_ib_port, local_link_integrity_errors), 1 },
	{ "excessive_buffer_overrun_errors", offsetof(struct gd_ib_port, excessive_buffer_overrun_errors), 1 },
	{ "port_xmit_wait", offsetof(struct gd_ib_port, port_xmit_wait), 1 },
	{ "port_xmit_data", offsetof(struct gd_ib_port, port_xmit_data_bytes), 4 },
	{ "port_rcv_data", offsetof(struct gd_ib_port, port_rcv_data_bytes), 4 },
};

/* ---- one port ------------------------------------------------------------ */

/* Parses "<n>: <NAME>" into code and name; false when malformed. */
static bool parse_state(const char *text, struct gd_u64 *code, char *name, size_t namesz)
{
	struct gd_slice line = { text, strlen(text) }, k, v;
	uint64_t n;

	if (!gd_tok_kv(line, ':', &k, &v) || !gd_tok_u64(k, &n) || v.n == 0)
		return false;
	gd_u64_set(code, n);
	gd_tok_copy(name, namesz, v);
	return true;
}

/* Parses "400 Gb/sec (4X NDR)" into 400. */
static bool parse_rate(const char *text, struct gd_f64 *gbps)
{
	struct gd_slice line = { text, strlen(text) }, f[2];
	double v;

	if (gd_tok_split(line, f, 2) < 2 || !gd_tok_eq(f[1], "Gb/sec") || !gd_tok_f64(f[0], &v) || v < 0)
		return false;
	gd_f64_set(gbps, v);
	return true;
}

/* Reads one port; returns false when some attribute was malformed
 * (*bad names it). */
static bool read_port(const struct gd_root *root, const char *dev, const char *port, struct gd_snapshot *s,
		      char *bad, size_t badsz)
{
	struct gd_ib_port *p = GD_PUSH(s, ib_ports, struct gd_ib_port);
	char path[512], text[128];
	uint64_t n;
	bool ok = true;
	struct gd_slice ps = { port, strlen(port) };

	GD_STRSET(p->device, dev);
	if (gd_tok_u64(ps, &n))
		gd_u64_set(&p->port, n);
	snprintf(path, sizeof path, "sys/class/infiniband/%s/ports/%s/state", dev, port);
	if (gd_root_read_line(root, path, text, sizeof text) == 0 &&
	    !parse_state(text, &p->state, p->state_name, sizeof p->state_name) && ok) {
		ok = false;
		snprintf(bad, badsz, _("/%.300s: malformed \"%.100s\""), path, text);
	}
	snprintf(path, sizeof path, "sys/class/infiniband/%s/ports/%s/phys_state", dev, port);
	if (gd_root_read_line(root, path, text, sizeof text) == 0 &&
	    !parse_state(text, &p->phys_state, p->phys_state_name, sizeof p->phys_state_name) && ok) {
		ok = false;
		snprintf(bad, badsz, _("/%.300s: malformed \"%.100s\""), path, text);
	}
	snprintf(path, sizeof path, "sys/class/infiniband/%s/ports/%s/rate", dev, port);
	if (gd_root_read_line(root, path, text, sizeof text) == 0 && !parse_rate(text, &p->rate_gbps) && ok) {
		ok = false;
		snprintf(bad, badsz, _("/%.300s: malformed \"%.100s\""), path, text);
	}
	snprintf(path, sizeof path, "sys/class/infiniband/%s/ports/%s/link_layer", dev, port);
	if (gd_root_read_line(root, path, text, sizeof text) == 0)
		GD_STRSET(p->link_layer, text);
	for (size_t i = 0; i < sizeof ib_counters / sizeof ib_counters[0]; i++) {
		const struct ib_counter *c = &ib_counters[i];
		unsigned long long v;
		int rc;

		snprintf(path, sizeof path, "sys/class/infiniband/%s/ports/%s/counters/%s", dev, port, c->file);
		rc = gd_root_read_u64(root, path, &v);
		if (rc == -EINVAL && gd_root_read_line(root, path, text, sizeof text) == 0 && strncmp(text, "N/A", 3) == 0)
			continue;   /* "N/A (no PMA)": the device has no performance counters */
		if (rc == 0 && v <= UINT64_MAX / c->mult) {
			gd_u64_set((struct gd_u64 *)((char *)p + c->offset), v * c->mult);
		} else if ((rc == -EINVAL || rc == -ERANGE || rc == 0) && ok) {
			ok = false;
			snprintf(bad, badsz, _("/%.300s: malformed or out of range"), path);
		}
	}
	return ok;
}

enum gd_src_status gd_collect_infiniband(const struct gd_collect_ctx *ctx, struct gd_snapshot *s, struct gd_err *err)
{
	struct gd_dirlist devs;
	size_t nports = 0, nbad = 0;
	char bad[GD_ERR_MSG_MAX] = "";
	int rc = gd_dirlist_read(ctx->root, "sys/class/infiniband", &devs);

	if (rc == -ENOENT || (rc == 0 && devs.n == 0)) {
		gd_dirlist_release(&devs);
		gd_err_set(err, -ENOENT, _("no RDMA devices"));
		return GD_SRC_ABSENT;
	}
	if (rc < 0) {
		gd_err_set(err, rc, "/sys/class/infiniband: %s", strerror(-rc));
		return gd_src_status_of_errno(rc);
	}
	for (size_t i = 0; i < devs.n; i++) {
		struct gd_dirlist ports;
		char path[320];

		snprintf(path, sizeof path, "sys/class/infiniband/%s/ports", devs.names[i]);
		if (gd_dirlist_read(ctx->root, path, &ports) < 0)
			continue;
		for (size_t j = 0; j < ports.n; j++) {
			char msg[GD_ERR_MSG_MAX];

			nports++;
			if (!read_port(ctx->root, devs.names[i], ports.names[j], s, msg, sizeof msg) && !nbad++)
				gd_strlcpy(bad, msg, sizeof bad);
		}
		gd_dirlist_release(&ports);
	}
	gd_dirlist_release(&devs);
	if (nports == 0) {
		gd_err_set(err, -ENOENT, _("RDMA devices without ports"));
		return GD_SRC_ABSENT;
	}
	if (nbad) {
		gd_err_set(err, -EINVAL, _("%s (%zu port(s) with malformed attributes)"), bad, nbad);
		return GD_SRC_PARTIAL;
	}
	return GD_SRC_OK;
}
