/*
 * proc_net_dev.c - network interface counters: /proc/net/dev (Linux 1.x),
 * plus per interface /sys/class/net/<if>/{operstate,flags,speed,type,device}
 * (sysfs, 2.6) and the ethtool link modes for the fastest supported speed.
 *
 * Two header lines, then "<name>: <8 receive> <8 transmit>" numbers:
 *
 *     Inter-|   Receive                                                |  Transmit
 *      face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs drop fifo colls carrier compressed
 *         lo:    3267      29    0    0    0     0          0         0     3267      29    0    0    0     0       0          0
 *       eth0:12345678901234 534    0    0    0     0          0         0    31912     380    0    0    0     0       0          0
 *
 * The name ends at the first ':' (with a big counter there is no blank after
 * it).  The file shows the reader's network namespace.  Lines without a ':'
 * or with fewer than 16 numbers are skipped and named in err (partial).
 *
 * From sysfs: operstate (RFC 2863 word), flags (hex; IFF_UP = 0x1 gives
 * admin_up), speed (Mbit/s; reading fails with EINVAL, or gives -1, when the
 * link is down: then absent), type (ARP hardware type) and physical = 1 when
 * the "device" link exists (virtual interfaces have none).
 *
 * max_speed_mbps: the fastest link mode the NIC supports, from the
 * SIOCETHTOOL ioctl (ETHTOOL_GLINKSETTINGS, Linux 4.6; ETHTOOL_GSET before).
 * This is the one step of a collector that cannot be pointed at a fixture
 * tree: an ioctl talks to the live kernel of the caller's network namespace,
 * so it runs only when the root is the host's "/" (ctx->root->is_host) and
 * is otherwise left absent, as it is for devices that report no link modes
 * (virtio, loopback) or refuse the ioctl.
 */
#include "collect/collectors.h"
#include "core/tok.h"

#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>
#include <linux/ethtool.h>
#include <linux/sockios.h>

#include "core/i18n.h"

#define NETDEV_COLS 16

int gd_parse_proc_net_dev(const char *buf, size_t len, struct gd_snapshot *s, struct gd_err *err)
{
	struct gd_lines it;
	struct gd_slice line, key, val, f[NETDEV_COLS + 1];
	struct gd_tok_tally tally = { 0 };

	if (gd_tok_is_binary(buf, len))
		return gd_err_set(err, -EINVAL, _("binary data, not an interface table"));
	gd_lines_init(&it, buf, len);
	while (gd_tok_line(&it, &line)) {
		uint64_t v[NETDEV_COLS];
		struct gd_netif *nif;
		const char *bad = NULL;

		if (gd_tok_trim(line).n == 0)
			continue;
		/* The two header lines hold '|' column separators. */
		if (it.lineno <= 2 && memchr(line.p, '|', line.n))
			continue;
		if (!gd_tok_kv(line, ':', &key, &val))
			bad = _("no ':' after the interface name");
		else if (key.n == 0 || key.n >= sizeof(((struct gd_netif *)0)->name))
			bad = _("bad interface name");
		else if (gd_tok_split(val, f, NETDEV_COLS + 1) < NETDEV_COLS)
			bad = _("fewer than 16 counters");
		for (size_t i = 0; !bad && i < NETDEV_COLS; i++)
			if (!gd_tok_u64(f[i], &v[i]))
				bad = _("malformed number");
		if (bad) {
			gd_tok_tally_skip(&tally, it.lineno, bad);
			continue;
		}
		tally.parsed++;
		nif = GD_PUSH(s, netifs, struct gd_netif);
		gd_tok_copy(nif->name, sizeof nif->name, key);
		gd_u64_set(&nif->rx_bytes, v[0]);
		gd_u64_set(&nif->rx_packets, v[1]);
		gd_u64_set(&nif->rx_errs, v[2]);
		gd_u64_set(&nif->rx_drop, v[3]);
		gd_u64_set(&nif->rx_fifo, v[4]);
		gd_u64_set(&nif->rx_frame, v[5]);
		gd_u64_set(&nif->tx_bytes, v[8]);
		gd_u64_set(&nif->tx_packets, v[9]);
		gd_u64_set(&nif->tx_errs, v[10]);
		gd_u64_set(&nif->tx_drop, v[11]);
		gd_u64_set(&nif->tx_fifo, v[12]);
		gd_u64_set(&nif->tx_colls, v[13]);
		gd_u64_set(&nif->tx_carrier, v[14]);
	}
	return gd_tok_tally_result(&tally, _("no interfaces listed"), err);
}

/* ---- ethtool: fastest supported link mode ------------------------------ */

/*
 * Speed in Mbit/s of each ETHTOOL_LINK_MODE_*_BIT (enum
 * ethtool_link_mode_bit_indices, include/uapi/linux/ethtool.h up to Linux
 * 6.7), 0 for bits that are not speeds (ports, pause, FEC).  Numbers rather
 * than the enum names so that a build against older kernel headers still
 * knows the 400G and 800G modes.  Bits 0-31 are also the legacy SUPPORTED_*
 * mask of ETHTOOL_GSET.  Bits past the table (newer kernels) are ignored.
 */
static const uint32_t link_mode_mbps[] = {
	[0] = 10, [1] = 10, [2] = 100, [3] = 100, [4] = 1000, [5] = 1000,
	[12] = 10000, [15] = 2500, [17] = 1000, [18] = 10000, [19] = 10000, [20] = 10000,
	[21] = 20000, [22] = 20000, [23] = 40000, [24] = 40000, [25] = 40000, [26] = 40000,
	[27] = 56000, [28] = 56000, [29] = 56000, [30] = 56000,
	[31] = 25000, [32] = 25000, [33] = 25000, [34] = 50000, [35] = 50000,
	[36] = 100000, [37] = 100000, [38] = 100000, [39] = 100000, [40] = 50000,
	[41] = 1000, [42] = 10000, [43] = 10000, [44] = 10000, [45] = 10000, [46] = 10000,
	[47] = 2500, [48] = 5000,
	[52] = 50000, [53] = 50000, [54] = 50000, [55] = 50000, [56] = 50000,
	[57] = 100000, [58] = 100000, [59] = 100000, [60] = 100000, [61] = 100000,
	[62] = 200000, [63] = 200000, [64] = 200000, [65] = 200000, [66] = 200000,
	[67] = 100, [68] = 1000,
	[69] = 400000, [70] = 400000, [71] = 400000, [72] = 400000, [73] = 400000,
	[75] = 100000, [76] = 100000, [77] = 100000, [78] = 100000, [79] = 100000,
	[80] = 200000, [81] = 200000, [82] = 200000, [83] = 200000, [84] = 200000,
	[85] = 400000, [86] = 400000, [87] = 400000, [88] = 400000, [89] = 400000,
	[90] = 100, [91] = 100, [92] = 10,
	[93] = 800000, [94] = 800000, [95] = 800000, [96] = 800000, [97] = 800000, [98] = 800000,
	[99] = 10, [100] = 10, [101] = 10, [102] = 10,
};

static uint32_t fastest_mode(const uint32_t *mask, size_t nwords)
{
	uint32_t best = 0;
	size_t nbits = sizeof link_mode_mbps / sizeof link_mode_mbps[0];

	for (size_t b = 0; b < nbits && b / 32 < nwords; b++)
		if ((mask[b / 32] >> (b % 32) & 1u) && link_mode_mbps[b] > best)
			best = link_mode_mbps[b];
	return best;
}

/* The largest mask ETHTOOL_GLINKSETTINGS can report: nwords is an s8. */
#define LINK_MODE_WORDS_MAX 127

/* struct ethtool_link_settings ends in a flexible array (the three link-mode
 * masks); the request is that struct followed by room for them, built in a
 * suitably aligned buffer rather than as a struct with the flexible member
 * in the middle (which ISO C and clang reject). */
union link_settings_req {
	struct ethtool_link_settings ls;
	uint32_t raw[(sizeof(struct ethtool_link_settings) + 3 * LINK_MODE_WORDS_MAX * sizeof(uint32_t)) /
		     sizeof(uint32_t)];
};

/* Fastest supported speed of ifname in Mbit/s, or 0 when unknown. */
static uint32_t ethtool_max_speed(int sock, const char *ifname)
{
	union link_settings_req req;
	struct ethtool_cmd cmd;
	struct ifreq ifr;
	uint32_t best = 0;

	memset(&ifr, 0, sizeof ifr);
	gd_strlcpy(ifr.ifr_name, ifname, sizeof ifr.ifr_name);

	/* Handshake: the kernel answers a request with nwords 0 with the
	 * negated number of words it needs. */
	memset(&req, 0, sizeof req);
	req.ls.cmd = ETHTOOL_GLINKSETTINGS;
	ifr.ifr_data = (void *)&req;
	if (ioctl(sock, SIOCETHTOOL, &ifr) == 0 && req.ls.link_mode_masks_nwords < 0) {
		int8_t nwords = (int8_t)-req.ls.link_mode_masks_nwords;

		memset(&req, 0, sizeof req);
		req.ls.cmd = ETHTOOL_GLINKSETTINGS;
		req.ls.link_mode_masks_nwords = nwords;
		if (ioctl(sock, SIOCETHTOOL, &ifr) == 0 && req.ls.link_mode_masks_nwords == nwords)
			return fastest_mode(req.ls.link_mode_masks, (size_t)nwords);   /* map_supported comes first */
	}
	memset(&cmd, 0, sizeof cmd);
	cmd.cmd = ETHTOOL_GSET;
	ifr.ifr_data = (void *)&cmd;
	if (ioctl(sock, SIOCETHTOOL, &ifr) == 0)
		best = fastest_mode(&cmd.supported, 1);
	return best;
}

/* ---- sysfs attributes -------------------------------------------------- */

/* Interface names come from a file: refuse any that would leave the
 * directory. */
static bool safe_name(const char *name)
{
	return name[0] && strcmp(name, ".") != 0 && strcmp(name, "..") != 0 && !strchr(name, '/');
}

static void read_sysfs(const struct gd_root *root, struct gd_netif *nif)
{
	char path[128], word[32];
	unsigned long long u;
	long long sp;

	snprintf(path, sizeof path, "sys/class/net/%s", nif->name);
	if (!gd_root_exists(root, path))
		return;
	snprintf(path, sizeof path, "sys/class/net/%s/operstate", nif->name);
	if (gd_root_read_line(root, path, word, sizeof word) == 0)
		GD_STRSET(nif->operstate, word);
	snprintf(path, sizeof path, "sys/class/net/%s/flags", nif->name);
	if (gd_root_read_u64(root, path, &u) == 0)
		gd_u64_set(&nif->admin_up, u & 0x1);
	/* Unknown speed is -1 (SPEED_UNKNOWN); kernels before 3.x printed the
	 * unsigned 16- or 32-bit forms of it. */
	snprintf(path, sizeof path, "sys/class/net/%s/speed", nif->name);
	if (gd_root_read_i64(root, path, &sp) == 0 && sp >= 0 && sp != 65535 && sp != 4294967295LL)
		gd_u64_set(&nif->speed_mbps, (uint64_t)sp);
	snprintf(path, sizeof path, "sys/class/net/%s/type", nif->name);
	if (gd_root_read_u64(root, path, &u) == 0)
		gd_u64_set(&nif->arp_type, u);
	snprintf(path, sizeof path, "sys/class/net/%s/device", nif->name);
	gd_u64_set(&nif->physical, gd_root_exists(root, path) ? 1 : 0);
}

enum gd_src_status gd_collect_proc_net_dev(const struct gd_collect_ctx *ctx, struct gd_snapshot *s, struct gd_err *err)
{
	size_t first = s->netifs.n;
	enum gd_src_status st = gd_collect_file(ctx, "proc/net/dev", gd_parse_proc_net_dev, s, err);
	int sock = -1;

	if (st != GD_SRC_OK && st != GD_SRC_PARTIAL)
		return st;
	if (ctx->root->is_host)
		sock = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	for (size_t i = first; i < s->netifs.n; i++) {
		struct gd_netif *nif = GD_VEC_AT(s->netifs, struct gd_netif, i);
		uint32_t mbps;

		if (!safe_name(nif->name))
			continue;
		read_sysfs(ctx->root, nif);
		/* Virtual interfaces (veth, bridges) have no link modes worth
		 * an ioctl each; there can be hundreds of them. */
		if (sock < 0 || strlen(nif->name) >= IFNAMSIZ || (nif->physical.ok && nif->physical.v == 0))
			continue;
		mbps = ethtool_max_speed(sock, nif->name);
		if (mbps)
			gd_u64_set(&nif->max_speed_mbps, mbps);
	}
	if (sock >= 0)
		close(sock);
	return st;
}
