/*
 * test_collect_disk_net.c - the pure parsers of /proc/diskstats,
 * /proc/self/mounts, /proc/net/dev, /proc/net/snmp, /proc/net/netstat and
 * /proc/interrupts, over real samples (most copied from a 6.18 virtual
 * machine), older kernels' variants and malformed input.
 */
#include "testutil.h"

#include <errno.h>

#include "collect/proc_interrupts.h"

#define DISK(s, i) GD_VEC_AT((s).disks, struct gd_disk, i)
#define MOUNT(s, i) GD_VEC_AT((s).mounts, struct gd_mount, i)
#define NETIF(s, i) GD_VEC_AT((s).netifs, struct gd_netif, i)
#define NIRQ(s, i) GD_VEC_AT((s).nic_irqs, struct gd_nic_irq, i)

static void assert_u64(struct gd_u64 x, uint64_t v)
{
	assert_true(x.ok);
	assert_true(x.v == v);
}

/* ---- /proc/diskstats ------------------------------------------------------ */

/* Kernel 6.18: 20 fields; idle loop devices. */
static const char diskstats_618[] =
	"   7       0 loop0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n"
	"   7       1 loop1 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n"
	" 254       0 vda 48973 6834 2601418 10405 3674 5746 408752 1485 0 6184 12090 4030 63 123896 181 558 16\n"
	" 253       0 zram0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n"
	"   7       2 loop2 5 0 40 1 0 0 0 0 0 4 1 0 0 0 0 0 0\n"
	"   1       0 ram0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n";

static void test_diskstats_20_fields(void **state)
{
	struct gd_snapshot s;
	struct gd_err err;

	(void)state;
	gd_snapshot_init(&s);
	assert_int_equal(parse_lit(gd_parse_proc_diskstats, diskstats_618, &s, &err), 0);
	/* loop0, loop1 and ram0 are idle: dropped; busy loop2 and idle zram0 kept. */
	assert_int_equal(s.disks.n, 3);
	assert_string_equal(DISK(s, 0)->name, "vda");
	assert_u64(DISK(s, 0)->reads, 48973);
	assert_u64(DISK(s, 0)->reads_merged, 6834);
	assert_u64(DISK(s, 0)->sectors_read, 2601418);
	assert_u64(DISK(s, 0)->read_ms, 10405);
	assert_u64(DISK(s, 0)->writes, 3674);
	assert_u64(DISK(s, 0)->writes_merged, 5746);
	assert_u64(DISK(s, 0)->sectors_written, 408752);
	assert_u64(DISK(s, 0)->write_ms, 1485);
	assert_u64(DISK(s, 0)->in_flight, 0);
	assert_u64(DISK(s, 0)->io_ms, 6184);
	assert_u64(DISK(s, 0)->weighted_io_ms, 12090);
	/* whole and rotational come from sysfs, not from this file. */
	assert_false(DISK(s, 0)->whole.ok);
	assert_false(DISK(s, 0)->rotational.ok);
	assert_string_equal(DISK(s, 1)->name, "zram0");
	assert_u64(DISK(s, 1)->reads, 0);
	assert_string_equal(DISK(s, 2)->name, "loop2");
	assert_u64(DISK(s, 2)->reads, 5);
	gd_snapshot_release(&s);
}

static void test_diskstats_14_and_18_fields(void **state)
{
	struct gd_snapshot s;
	struct gd_err err;
	/* 2.6.25-4.17 (14 fields) and 4.18-5.4 (18 fields). */
	const char text[] =
		"   8       0 sda 1000 20 80000 500 300 10 6000 700 2 900 1300\n"
		"   8       1 sda1 900 19 70000 450 290 9 5900 690 0 880 1200 7 0 56 3\n"
		" 259       0 nvme0n1 18446744073709551615 0 0 0 0 0 0 0 0 0 0 1 2 3 4 5 6\n";

	(void)state;
	gd_snapshot_init(&s);
	assert_int_equal(parse_lit(gd_parse_proc_diskstats, text, &s, &err), 0);
	assert_int_equal(s.disks.n, 3);
	assert_string_equal(DISK(s, 0)->name, "sda");
	assert_u64(DISK(s, 0)->in_flight, 2);
	assert_u64(DISK(s, 0)->weighted_io_ms, 1300);
	assert_string_equal(DISK(s, 1)->name, "sda1");
	assert_u64(DISK(s, 1)->weighted_io_ms, 1200);
	assert_u64(DISK(s, 2)->reads, UINT64_MAX);
	gd_snapshot_release(&s);
}

static void test_diskstats_malformed(void **state)
{
	struct gd_snapshot s;
	struct gd_err err;
	const char short_line[] =
		"   8       0 sda 1000 20 80000 500 300 10 6000 700 2 900 1300\n"
		"   8      16 sdb 1 2 3 4 5\n";
	const char huge[] =
		"   8       0 sda 18446744073709551616 20 80000 500 300 10 6000 700 2 900 1300\n"
		"   8      16 sdb 1 2 3 4 5 6 7 8 9 10 11\n";
	const char junk_only[] = "   8 x sda 1 2 3 4 5 6 7 8 9 10 11\n";
	const char bin[] = "   8       0 sda 1000 20\0 80000 500 300 10 6000 700 2 900 1300\n";

	(void)state;
	gd_snapshot_init(&s);
	assert_int_equal(parse_lit(gd_parse_proc_diskstats, short_line, &s, &err), 1);
	assert_int_equal(s.disks.n, 1);
	assert_non_null(strstr(err.msg, "line 2"));
	assert_non_null(strstr(err.msg, "fewer than 14"));
	gd_snapshot_clear(&s);

	/* 2^64 does not fit: the line is skipped, not read as 0 or UINT64_MAX. */
	assert_int_equal(parse_lit(gd_parse_proc_diskstats, huge, &s, &err), 1);
	assert_int_equal(s.disks.n, 1);
	assert_string_equal(DISK(s, 0)->name, "sdb");
	assert_non_null(strstr(err.msg, "line 1"));
	gd_snapshot_clear(&s);

	assert_true(parse_lit(gd_parse_proc_diskstats, junk_only, &s, &err) < 0);
	assert_non_null(strstr(err.msg, "line 1"));
	assert_int_equal(s.disks.n, 0);

	gd_err_clear(&err);
	assert_true(gd_parse_proc_diskstats(bin, sizeof bin - 1, &s, &err) < 0);
	assert_non_null(strstr(err.msg, "binary"));
	assert_true(parse_lit(gd_parse_proc_diskstats, "", &s, &err) < 0);
	assert_non_null(strstr(err.msg, "empty"));
	assert_int_equal(s.disks.n, 0);
	gd_snapshot_release(&s);
}

/* ---- /proc/self/mounts ---------------------------------------------------- */

static const char mounts_sample[] =
	"proc /proc proc rw,relatime 0 0\n"
	"devtmpfs /dev devtmpfs rw,relatime,size=12334524k,nr_inodes=3083631,mode=755 0 0\n"
	"tmpfs /dev/shm tmpfs rw,relatime,size=24684096k 0 0\n"
	"/dev/vda / ext4 rw,relatime,discard,resv_strict,resuid=65534,resgid=65534 0 0\n"
	"/dev/sdb1 /mnt/my\\040data\\011x xfs rw,noatime 0 0\n"
	"//srv/share /mnt/back\\134slash cifs rw,vers=3.0 0 0\n"
	"tmpfs /run/a tmpfs rw,size=16g 0 0\n"
	"tmpfs /run/b tmpfs rw,size=50% 0 0\n"
	"tmpfs /run/c tmpfs rw,size=1048576 0 0\n"
	"tmpfs /run/d tmpfs rw,mode=755,size=2m 0 0\n"
	"cgroup2 /sys/fs/cgroup/unified cgroup2 rw,relatime 0 0\n";

static void test_mounts_sample(void **state)
{
	struct gd_snapshot s;
	struct gd_err err;

	(void)state;
	gd_snapshot_init(&s);
	assert_int_equal(parse_lit(gd_parse_proc_mounts, mounts_sample, &s, &err), 0);
	assert_int_equal(s.mounts.n, 11);
	assert_string_equal(MOUNT(s, 0)->device, "proc");
	assert_string_equal(MOUNT(s, 0)->mountpoint, "/proc");
	assert_string_equal(MOUNT(s, 0)->fstype, "proc");
	assert_false(MOUNT(s, 0)->size_bytes.ok);
	assert_u64(MOUNT(s, 1)->size_bytes, 12334524ull * 1024);
	assert_string_equal(MOUNT(s, 2)->mountpoint, "/dev/shm");
	assert_u64(MOUNT(s, 2)->size_bytes, 24684096ull * 1024);
	assert_false(MOUNT(s, 3)->size_bytes.ok);
	assert_string_equal(MOUNT(s, 4)->mountpoint, "/mnt/my data\tx");
	assert_string_equal(MOUNT(s, 5)->mountpoint, "/mnt/back\\slash");
	assert_u64(MOUNT(s, 6)->size_bytes, 16ull << 30);
	assert_false(MOUNT(s, 7)->size_bytes.ok);   /* 50% of MemTotal: unknown here */
	assert_u64(MOUNT(s, 8)->size_bytes, 1048576);
	assert_u64(MOUNT(s, 9)->size_bytes, 2ull << 20);
	assert_string_equal(MOUNT(s, 10)->fstype, "cgroup2");
	gd_snapshot_release(&s);
}

static void test_mounts_malformed(void **state)
{
	struct gd_snapshot s;
	struct gd_err err;
	const char bad_size[] =
		"tmpfs /dev/shm tmpfs rw,size=lots 0 0\n"
		"tmpfs /run tmpfs rw,size=99999999999999999999k 0 0\n"
		"tmpfs /x tmpfs rw,size=17179869184g 0 0\n";
	const char short_line[] = "proc /proc proc rw 0 0\nbroken /x\n";
	/* A backslash not followed by three octal digits stays as it is. */
	const char odd_escape[] = "a\\091x /b\\ c\\12 ext4 rw 0 0\n";
	const char bin[] = "proc /proc\0 proc rw 0 0\n";

	(void)state;
	gd_snapshot_init(&s);
	assert_int_equal(parse_lit(gd_parse_proc_mounts, bad_size, &s, &err), 1);
	assert_int_equal(s.mounts.n, 3);   /* kept, with the size absent */
	assert_false(MOUNT(s, 0)->size_bytes.ok);
	assert_false(MOUNT(s, 1)->size_bytes.ok);
	assert_false(MOUNT(s, 2)->size_bytes.ok);   /* 2^64 bytes overflows */
	assert_non_null(strstr(err.msg, "line 1"));
	assert_non_null(strstr(err.msg, "size="));
	gd_snapshot_clear(&s);

	assert_int_equal(parse_lit(gd_parse_proc_mounts, short_line, &s, &err), 1);
	assert_int_equal(s.mounts.n, 1);
	assert_non_null(strstr(err.msg, "line 2"));
	gd_snapshot_clear(&s);

	assert_int_equal(parse_lit(gd_parse_proc_mounts, odd_escape, &s, &err), 0);
	assert_string_equal(MOUNT(s, 0)->device, "a\\091x");
	assert_string_equal(MOUNT(s, 0)->mountpoint, "/b\\");
	assert_string_equal(MOUNT(s, 0)->fstype, "c\\12");
	gd_snapshot_clear(&s);

	assert_true(parse_lit(gd_parse_proc_mounts, "", &s, &err) < 0);
	gd_err_clear(&err);
	assert_true(gd_parse_proc_mounts(bin, sizeof bin - 1, &s, &err) < 0);
	assert_non_null(strstr(err.msg, "binary"));
	assert_int_equal(s.mounts.n, 0);
	gd_snapshot_release(&s);
}

/* ---- /proc/net/dev --------------------------------------------------------- */

static const char netdev_sample[] =
	"Inter-|   Receive                                                |  Transmit\n"
	" face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs drop fifo colls carrier compressed\n"
	"    lo:    3267      29    0    0    0     0          0         0     3267      29    0    0    0     0       0          0\n"
	"  ifb0:       0       0    0    0    0     0          0         0        0       0    0    0    0     0       0          0\n"
	"  eth0: 19137774     534    1    2    3     4          5         6    31912     380    7    8    9    10      11         12\n"
	/* A big counter leaves no blank after the colon. */
	"  ib0:123456789012345 99 0 0 0 0 0 0 18446744073709551615 1 0 0 0 0 0 0\n";

static void test_net_dev_sample(void **state)
{
	struct gd_snapshot s;
	struct gd_err err;

	(void)state;
	gd_snapshot_init(&s);
	assert_int_equal(parse_lit(gd_parse_proc_net_dev, netdev_sample, &s, &err), 0);
	assert_int_equal(s.netifs.n, 4);
	assert_string_equal(NETIF(s, 0)->name, "lo");
	assert_u64(NETIF(s, 0)->rx_bytes, 3267);
	assert_u64(NETIF(s, 0)->tx_packets, 29);
	assert_string_equal(NETIF(s, 2)->name, "eth0");
	assert_u64(NETIF(s, 2)->rx_bytes, 19137774);
	assert_u64(NETIF(s, 2)->rx_packets, 534);
	assert_u64(NETIF(s, 2)->rx_errs, 1);
	assert_u64(NETIF(s, 2)->rx_drop, 2);
	assert_u64(NETIF(s, 2)->rx_fifo, 3);
	assert_u64(NETIF(s, 2)->rx_frame, 4);
	assert_u64(NETIF(s, 2)->tx_bytes, 31912);
	assert_u64(NETIF(s, 2)->tx_packets, 380);
	assert_u64(NETIF(s, 2)->tx_errs, 7);
	assert_u64(NETIF(s, 2)->tx_drop, 8);
	assert_u64(NETIF(s, 2)->tx_fifo, 9);
	assert_u64(NETIF(s, 2)->tx_colls, 10);
	assert_u64(NETIF(s, 2)->tx_carrier, 11);
	assert_string_equal(NETIF(s, 3)->name, "ib0");
	assert_u64(NETIF(s, 3)->rx_bytes, 123456789012345ull);
	assert_u64(NETIF(s, 3)->tx_bytes, UINT64_MAX);
	/* sysfs facts are the collector's job. */
	assert_false(NETIF(s, 2)->speed_mbps.ok);
	assert_false(NETIF(s, 2)->physical.ok);
	gd_snapshot_release(&s);
}

static void test_net_dev_malformed(void **state)
{
	struct gd_snapshot s;
	struct gd_err err;
	const char text[] =
		"Inter-|   Receive                                                |  Transmit\n"
		" face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs drop fifo colls carrier compressed\n"
		"    lo:    3267      29    0    0    0     0          0         0     3267      29    0    0    0     0       0          0\n"
		"  eth0: 1 2 3 4 5 6 7 8 9 10 11 12\n"
		"  eth1 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16\n"
		"  eth2: 18446744073709551616 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16\n"
		"  eth3: 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 -16\n";
	const char bin[] = "lo: 1 2\0 3";

	(void)state;
	gd_snapshot_init(&s);
	assert_int_equal(parse_lit(gd_parse_proc_net_dev, text, &s, &err), 1);
	assert_int_equal(s.netifs.n, 1);
	assert_string_equal(NETIF(s, 0)->name, "lo");
	assert_non_null(strstr(err.msg, "line 4"));
	assert_non_null(strstr(err.msg, "4 line(s)"));
	gd_snapshot_clear(&s);

	/* Headers only: no interface at all is not a healthy empty list. */
	assert_true(parse_lit(gd_parse_proc_net_dev,
			      "Inter-|   Receive |  Transmit\n face |bytes packets|bytes packets\n", &s, &err) < 0);
	assert_true(parse_lit(gd_parse_proc_net_dev, "", &s, &err) < 0);
	gd_err_clear(&err);
	assert_true(gd_parse_proc_net_dev(bin, sizeof bin - 1, &s, &err) < 0);
	assert_non_null(strstr(err.msg, "binary"));
	assert_int_equal(s.netifs.n, 0);
	gd_snapshot_release(&s);
}

/* ---- /proc/net/snmp and /proc/net/netstat ---------------------------------- */

static const char snmp_618[] =
	"Ip: Forwarding DefaultTTL InReceives InHdrErrors InAddrErrors ForwDatagrams InUnknownProtos InDiscards InDelivers OutRequests OutDiscards OutNoRoutes ReasmTimeout ReasmReqds ReasmOKs ReasmFails FragOKs FragFails FragCreates OutTransmits\n"
	"Ip: 2 64 560 0 0 0 0 0 560 398 0 0 0 0 0 0 0 0 0 398\n"
	"IcmpMsg: InType3\n"
	"IcmpMsg: 1\n"
	"Tcp: RtoAlgorithm RtoMin RtoMax MaxConn ActiveOpens PassiveOpens AttemptFails EstabResets CurrEstab InSegs OutSegs RetransSegs InErrs OutRsts InCsumErrors\n"
	"Tcp: 1 200 120000 -1 15 2 0 0 4 527 366 9 1 2 0\n"
	"Udp: InDatagrams NoPorts InErrors OutDatagrams RcvbufErrors SndbufErrors InCsumErrors IgnoredMulti MemErrors\n"
	"Udp: 32 0 0 33 0 0 0 0 0\n";

static void test_snmp_by_name(void **state)
{
	struct gd_snapshot s;
	struct gd_err err;
	/* Columns reordered and an unknown one added: names, not positions. */
	const char reordered[] =
		"Tcp: OutRsts InErrs NewThing RetransSegs OutSegs InSegs CurrEstab PassiveOpens ActiveOpens MaxConn\n"
		"Tcp: 20 30 -7 40 50 60 70 80 90 -1\n";
	/* Before 3.10: no InCsumErrors. */
	const char old[] =
		"Tcp: RtoAlgorithm RtoMin RtoMax MaxConn ActiveOpens PassiveOpens AttemptFails EstabResets CurrEstab InSegs OutSegs RetransSegs InErrs OutRsts\n"
		"Tcp: 1 200 120000 -1 5 6 0 0 7 8 9 10 11 12\n";

	(void)state;
	gd_snapshot_init(&s);
	assert_int_equal(parse_lit(gd_parse_proc_net_snmp, snmp_618, &s, &err), 0);
	assert_u64(s.tcp.active_opens, 15);
	assert_u64(s.tcp.passive_opens, 2);
	assert_u64(s.tcp.curr_estab, 4);
	assert_u64(s.tcp.in_segs, 527);
	assert_u64(s.tcp.out_segs, 366);
	assert_u64(s.tcp.retrans_segs, 9);
	assert_u64(s.tcp.in_errs, 1);
	assert_u64(s.tcp.out_rsts, 2);
	assert_false(s.tcp.timeouts.ok);   /* netstat's */
	gd_snapshot_clear(&s);

	assert_int_equal(parse_lit(gd_parse_proc_net_snmp, reordered, &s, &err), 0);
	assert_u64(s.tcp.out_rsts, 20);
	assert_u64(s.tcp.in_errs, 30);
	assert_u64(s.tcp.retrans_segs, 40);
	assert_u64(s.tcp.out_segs, 50);
	assert_u64(s.tcp.in_segs, 60);
	assert_u64(s.tcp.curr_estab, 70);
	assert_u64(s.tcp.passive_opens, 80);
	assert_u64(s.tcp.active_opens, 90);
	gd_snapshot_clear(&s);

	assert_int_equal(parse_lit(gd_parse_proc_net_snmp, old, &s, &err), 0);
	assert_u64(s.tcp.active_opens, 5);
	assert_u64(s.tcp.out_rsts, 12);
	gd_snapshot_release(&s);
}

static void test_snmp_malformed(void **state)
{
	struct gd_snapshot s;
	struct gd_err err;
	const char mismatch[] =
		"Ip: Forwarding DefaultTTL\n"
		"Ip: 2 64\n"
		"Tcp: RtoAlgorithm RtoMin RtoMax MaxConn ActiveOpens PassiveOpens\n"
		"Tcp: 1 200 120000 -1 15\n";
	const char negative[] = "Tcp: ActiveOpens CurrEstab\nTcp: -3 4\n";
	const char huge[] = "Tcp: ActiveOpens CurrEstab\nTcp: 18446744073709551616 4\n";
	const char junk_other[] = "Tcp: RtoMin ActiveOpens\nTcp: 2x 4\n";
	const char header_only[] = "Udp: InDatagrams\nUdp: 1\nTcp: ActiveOpens CurrEstab\n";
	const char bin[] = "Tcp: A\nTcp: \0";

	(void)state;
	gd_snapshot_init(&s);
	assert_true(parse_lit(gd_parse_proc_net_snmp, mismatch, &s, &err) < 0);
	assert_non_null(strstr(err.msg, "line 4"));
	assert_non_null(strstr(err.msg, "5 values under 6 names"));
	assert_false(s.tcp.active_opens.ok);   /* nothing half-stored */

	assert_true(parse_lit(gd_parse_proc_net_snmp, negative, &s, &err) < 0);
	assert_non_null(strstr(err.msg, "ActiveOpens"));
	assert_false(s.tcp.curr_estab.ok);
	assert_true(parse_lit(gd_parse_proc_net_snmp, huge, &s, &err) < 0);
	assert_non_null(strstr(err.msg, "line 2"));
	assert_true(parse_lit(gd_parse_proc_net_snmp, junk_other, &s, &err) < 0);
	assert_non_null(strstr(err.msg, "RtoMin"));
	assert_true(parse_lit(gd_parse_proc_net_snmp, header_only, &s, &err) < 0);
	assert_non_null(strstr(err.msg, "line 3"));
	assert_true(parse_lit(gd_parse_proc_net_snmp, "Udp: InDatagrams\nUdp: 1\n", &s, &err) < 0);
	assert_non_null(strstr(err.msg, "no Tcp:"));
	assert_true(parse_lit(gd_parse_proc_net_snmp, "", &s, &err) < 0);
	gd_err_clear(&err);
	assert_true(gd_parse_proc_net_snmp(bin, sizeof bin - 1, &s, &err) < 0);
	assert_false(s.tcp.active_opens.ok);
	gd_snapshot_release(&s);
}

static void test_netstat_tcpext(void **state)
{
	struct gd_snapshot s;
	struct gd_err err;
	const char netstat[] =
		"TcpExt: SyncookiesSent SyncookiesRecv SyncookiesFailed EmbryonicRsts PruneCalled RcvPruned OfoPruned TCPLostRetransmit TCPFastRetrans TCPSlowStartRetrans TCPTimeouts TCPLossProbes\n"
		"TcpExt: 0 0 0 0 0 0 0 1 2 3 417 5\n"
		"IpExt: InNoRoutes InTruncatedPkts InMcastPkts OutMcastPkts\n"
		"IpExt: 0 0 0 0\n";
	const char no_tcpext[] = "IpExt: InNoRoutes\nIpExt: 0\n";

	(void)state;
	gd_snapshot_init(&s);
	assert_int_equal(parse_lit(gd_parse_proc_net_netstat, netstat, &s, &err), 0);
	assert_u64(s.tcp.timeouts, 417);
	assert_false(s.tcp.active_opens.ok);
	gd_snapshot_clear(&s);
	assert_true(parse_lit(gd_parse_proc_net_netstat, no_tcpext, &s, &err) < 0);
	assert_non_null(strstr(err.msg, "TcpExt"));
	assert_false(s.tcp.timeouts.ok);
	gd_snapshot_release(&s);
}

/* ---- /proc/interrupts ------------------------------------------------------ */

static struct gd_netif *add_netif(struct gd_snapshot *s, const char *name, int physical)
{
	struct gd_netif *n = GD_PUSH(s, netifs, struct gd_netif);

	GD_STRSET(n->name, name);
	if (physical >= 0)
		gd_u64_set(&n->physical, (uint64_t)physical);
	return n;
}

/* Two CPUs of this virtual machine; eth0 is virtio2. */
static const char interrupts_vm[] =
	"           CPU0       CPU1       \n"
	"  24:          1          0  IO-APIC   5-edge      ACPI:Ged\n"
	"  37:          0          0 PCI-MSIX-0000:00:03.0   0-edge      virtio2-config\n"
	"  38:          0        400 PCI-MSIX-0000:00:03.0   1-edge      virtio2-input.0\n"
	"  39:        344          0 PCI-MSIX-0000:00:03.0   2-edge      virtio2-output.0\n"
	"  41:       1744          0 PCI-MSIX-0000:00:04.0   1-edge      virtio3-rx\n"
	" NMI:          0          0   Non-maskable interrupts\n"
	" LOC:      13308      11962   Local timer interrupts\n"
	" ERR:          0\n"
	" MIS:          0\n";

static void test_interrupts_owners_by_irq(void **state)
{
	struct gd_snapshot s;
	struct gd_err err;
	const struct gd_irq_owner owners[] = { { 37, "eth0" }, { 38, "eth0" }, { 39, "eth0" } };

	(void)state;
	gd_snapshot_init(&s);
	add_netif(&s, "eth0", 1);
	/* Name matching alone: virtio names carry no interface name. */
	assert_int_equal(parse_lit(gd_parse_proc_interrupts, interrupts_vm, &s, &err), 0);
	assert_int_equal(s.nic_irqs.n, 0);
	/* With the msi_irqs of eth0's PCI function: 38 on CPU1, 39 on CPU0;
	 * 37 has no non-zero count. */
	gd_err_clear(&err);
	assert_int_equal(gd_parse_proc_interrupts_nics(interrupts_vm, strlen(interrupts_vm), owners, 3, &s, &err), 0);
	assert_int_equal(s.nic_irqs.n, 2);
	assert_string_equal(NIRQ(s, 0)->irq, "38");
	assert_string_equal(NIRQ(s, 0)->name, "virtio2-input.0");
	assert_string_equal(NIRQ(s, 0)->netif, "eth0");
	assert_u64(NIRQ(s, 0)->cpu, 1);
	assert_u64(NIRQ(s, 0)->count, 400);
	assert_string_equal(NIRQ(s, 1)->irq, "39");
	assert_u64(NIRQ(s, 1)->cpu, 0);
	assert_u64(NIRQ(s, 1)->count, 344);
	gd_snapshot_release(&s);
}

static void test_interrupts_by_name_offline_cpus(void **state)
{
	struct gd_snapshot s;
	struct gd_err err;
	/* CPU1 is offline: the columns are CPUs 0, 2 and 3. */
	const char text[] =
		"           CPU0       CPU2       CPU3\n"
		"   0:         44          0          0   IO-APIC   2-edge      timer\n"
		"  72:     104857          0          5  IR-PCI-MSI 1572864-edge      eth0-TxRx-0\n"
		"  73:          0       9000          0  IR-PCI-MSI 1572865-edge      eth0-TxRx-1\n"
		"  80:          0          0         77  IR-PCI-MSI 1574912-edge      eth10-TxRx-0\n"
		"  90:          3          0          0  IR-PCI-MSI 1576960-edge      mlx5_comp0@pci:0000:17:00.0\n"
		"  91:          0          8          0  IR-PCI-MSI 1576961-edge      veth1-rx\n"
		"  95:          6          0          0  IO-APIC  17-fasteoi   ehci_hcd:usb1, eth1\n";

	(void)state;
	gd_snapshot_init(&s);
	add_netif(&s, "lo", 0);
	add_netif(&s, "eth0", 1);
	add_netif(&s, "eth1", 1);
	add_netif(&s, "veth1", 0);   /* virtual: never a NIC queue */
	add_netif(&s, "eth10", -1);  /* physical unknown: still matched */
	assert_int_equal(parse_lit(gd_parse_proc_interrupts, text, &s, &err), 0);
	assert_int_equal(s.nic_irqs.n, 5);
	assert_string_equal(NIRQ(s, 0)->irq, "72");
	assert_string_equal(NIRQ(s, 0)->netif, "eth0");
	assert_u64(NIRQ(s, 0)->cpu, 0);
	assert_u64(NIRQ(s, 0)->count, 104857);
	assert_u64(NIRQ(s, 1)->cpu, 3);
	assert_u64(NIRQ(s, 1)->count, 5);
	assert_string_equal(NIRQ(s, 2)->name, "eth0-TxRx-1");
	assert_u64(NIRQ(s, 2)->cpu, 2);
	assert_u64(NIRQ(s, 2)->count, 9000);
	/* eth10's queue is not eth1's. */
	assert_string_equal(NIRQ(s, 3)->netif, "eth10");
	assert_u64(NIRQ(s, 3)->cpu, 3);
	/* A shared IRQ: the action list keeps both names. */
	assert_string_equal(NIRQ(s, 4)->irq, "95");
	assert_string_equal(NIRQ(s, 4)->netif, "eth1");
	assert_string_equal(NIRQ(s, 4)->name, "ehci_hcd:usb1, eth1");
	gd_snapshot_release(&s);
}

static void test_interrupts_malformed(void **state)
{
	struct gd_snapshot s;
	struct gd_err err;
	const char short_line[] =
		"           CPU0       CPU1\n"
		"  72:     104857  IR-PCI-MSI 1572864-edge      eth0-TxRx-0\n"
		"  73:          1          2  IR-PCI-MSI 1572865-edge      eth0-TxRx-1\n";
	const char huge[] =
		"           CPU0       CPU1\n"
		"  72:     18446744073709551616 0  IR-PCI-MSI 1572864-edge      eth0-TxRx-0\n";
	const char no_header[] = "  72:     104857  0  IR-PCI-MSI 1572864-edge      eth0-TxRx-0\n";
	const char bad_header[] = "           CPU0       CPUx\n";
	const char bin[] = "  CPU0\n 1: 0\0";

	(void)state;
	gd_snapshot_init(&s);
	add_netif(&s, "eth0", 1);
	assert_int_equal(parse_lit(gd_parse_proc_interrupts, short_line, &s, &err), 1);
	assert_non_null(strstr(err.msg, "line 2"));
	assert_int_equal(s.nic_irqs.n, 2);
	assert_string_equal(NIRQ(s, 0)->irq, "73");
	gd_vec_reset(&s.nic_irqs);

	assert_true(parse_lit(gd_parse_proc_interrupts, huge, &s, &err) < 0);
	assert_non_null(strstr(err.msg, "line 2"));
	assert_int_equal(s.nic_irqs.n, 0);
	assert_true(parse_lit(gd_parse_proc_interrupts, no_header, &s, &err) < 0);
	assert_non_null(strstr(err.msg, "line 1"));
	assert_true(parse_lit(gd_parse_proc_interrupts, bad_header, &s, &err) < 0);
	assert_true(parse_lit(gd_parse_proc_interrupts, "", &s, &err) < 0);
	assert_true(parse_lit(gd_parse_proc_interrupts, "\n\n", &s, &err) < 0);
	gd_err_clear(&err);
	assert_true(gd_parse_proc_interrupts(bin, sizeof bin - 1, &s, &err) < 0);
	assert_non_null(strstr(err.msg, "binary"));
	assert_int_equal(s.nic_irqs.n, 0);
	gd_snapshot_release(&s);
}

/* Every parser of this file is reachable from the registry. */
static void test_registry_lists_parsers(void **state)
{
	const char *want[] = { "proc/diskstats", "proc/mounts", "proc/net/dev", "proc/net/snmp", "proc/net/netstat",
			       "proc/interrupts" };

	(void)state;
	for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
		bool found = false;

		for (size_t j = 0; j < gd_nparsers; j++)
			found |= strcmp(gd_parsers[j].name, want[i]) == 0;
		assert_true(found);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_diskstats_20_fields),
		cmocka_unit_test(test_diskstats_14_and_18_fields),
		cmocka_unit_test(test_diskstats_malformed),
		cmocka_unit_test(test_mounts_sample),
		cmocka_unit_test(test_mounts_malformed),
		cmocka_unit_test(test_net_dev_sample),
		cmocka_unit_test(test_net_dev_malformed),
		cmocka_unit_test(test_snmp_by_name),
		cmocka_unit_test(test_snmp_malformed),
		cmocka_unit_test(test_netstat_tcpext),
		cmocka_unit_test(test_interrupts_owners_by_irq),
		cmocka_unit_test(test_interrupts_by_name_offline_cpus),
		cmocka_unit_test(test_interrupts_malformed),
		cmocka_unit_test(test_registry_lists_parsers),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
