/*
 * test_collect_sys.c - the collectors that combine /proc with /sys, run over
 * fixture trees built in a temporary directory (real sysfs layouts: class
 * links into /sys/devices, virtio NICs under their PCI function), and once
 * over this machine's own root.
 */
#include "fixture.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#define DISK(s, i) GD_VEC_AT((s).disks, struct gd_disk, i)
#define NETIF(s, i) GD_VEC_AT((s).netifs, struct gd_netif, i)
#define NIRQ(s, i) GD_VEC_AT((s).nic_irqs, struct gd_nic_irq, i)
#define IBP(s, i) GD_VEC_AT((s).ib_ports, struct gd_ib_port, i)
#define SENSOR(s, i) GD_VEC_AT((s).sensors, struct gd_sensor, i)

static void assert_u64(struct gd_u64 x, uint64_t v)
{
	assert_true(x.ok);
	assert_true(x.v == v);
}

static void assert_f64(struct gd_f64 x, double v)
{
	assert_true(x.ok);
	assert_true(x.v > v - 1e-9 && x.v < v + 1e-9);
}

/* ---- disks ------------------------------------------------------------------- */

static void test_disks_sysfs(void **state)
{
	struct tree t;
	struct gd_snapshot s;
	struct gd_err err;

	(void)state;
	tree_init(&t, "sys");
	tree_put(&t, "proc/diskstats",
	    "   8       0 sda 1000 20 80000 500 300 10 6000 700 2 900 1300 0 0 0 0 0 0\n"
	    "   8       1 sda1 900 19 70000 450 290 9 5900 690 0 880 1200 0 0 0 0 0 0\n"
	    " 259       0 nvme0n1 18 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n"
	    " 104       0 cciss/c0d0 1 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n"
	    " 253       0 dm-0 1 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n"
	    "   7       0 loop0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n");
	tree_put(&t, "sys/devices/pci0000:00/0000:00:17.0/ata1/host0/target0:0:0/0:0:0:0/block/sda/queue/rotational", "1\n");
	tree_mkdirs(&t, "sys/devices/pci0000:00/0000:00:17.0/ata1/host0/target0:0:0/0:0:0:0/block/sda/sda1", true);
	tree_link(&t, "../devices/pci0000:00/0000:00:17.0/ata1/host0/target0:0:0/0:0:0:0/block/sda", "sys/block/sda");
	tree_put(&t, "sys/block/nvme0n1/queue/rotational", "0\n");
	tree_put(&t, "sys/block/cciss!c0d0/queue/rotational", "1\n");
	/* dm-0's queue says something that is not 0 or 1: left absent. */
	tree_put(&t, "sys/block/dm-0/queue/rotational", "banana\n");

	gd_snapshot_init(&s);
	gd_err_clear(&err);
	assert_int_equal(gd_collect_proc_diskstats(&t.ctx, &s, &err), GD_SRC_OK);
	assert_int_equal(s.disks.n, 5);
	assert_string_equal(DISK(s, 0)->name, "sda");
	assert_u64(DISK(s, 0)->whole, 1);
	assert_u64(DISK(s, 0)->rotational, 1);
	assert_string_equal(DISK(s, 1)->name, "sda1");
	assert_u64(DISK(s, 1)->whole, 0);
	assert_false(DISK(s, 1)->rotational.ok);
	assert_u64(DISK(s, 2)->whole, 1);
	assert_u64(DISK(s, 2)->rotational, 0);
	assert_string_equal(DISK(s, 3)->name, "cciss/c0d0");
	assert_u64(DISK(s, 3)->whole, 1);
	assert_u64(DISK(s, 3)->rotational, 1);
	assert_u64(DISK(s, 4)->whole, 1);
	assert_false(DISK(s, 4)->rotational.ok);
	gd_snapshot_release(&s);
	tree_release(&t);
}

static void test_disks_without_sys(void **state)
{
	struct tree t;
	struct gd_snapshot s;
	struct gd_err err;

	(void)state;
	tree_init(&t, "sys");
	tree_put(&t, "proc/diskstats",
	    "   8       0 sda 1000 20 80000 500 300 10 6000 700 2 900 1300\n"
	    "   8      16 sdb 1 2 3\n");
	gd_snapshot_init(&s);
	gd_err_clear(&err);
	assert_int_equal(gd_collect_proc_diskstats(&t.ctx, &s, &err), GD_SRC_PARTIAL);
	assert_non_null(strstr(err.msg, "proc/diskstats"));
	assert_non_null(strstr(err.msg, "line 2"));
	assert_int_equal(s.disks.n, 1);
	/* No /sys/block: whole disk or partition is unknown, not "partition". */
	assert_false(DISK(s, 0)->whole.ok);
	assert_false(DISK(s, 0)->rotational.ok);
	gd_snapshot_release(&s);
	tree_release(&t);

	tree_init(&t, "sys");
	gd_snapshot_init(&s);
	gd_err_clear(&err);
	assert_int_equal(gd_collect_proc_diskstats(&t.ctx, &s, &err), GD_SRC_ABSENT);
	assert_non_null(strstr(err.msg, "proc/diskstats"));
	gd_snapshot_release(&s);
	tree_release(&t);
}

/* ---- mounts -------------------------------------------------------------------- */

static void test_mounts_fallback(void **state)
{
	struct tree t;
	struct gd_snapshot s;
	struct gd_err err;

	(void)state;
	tree_init(&t, "sys");
	tree_put(&t, "proc/mounts", "tmpfs /dev/shm tmpfs rw,size=65536k 0 0\n");
	gd_snapshot_init(&s);
	gd_err_clear(&err);
	assert_int_equal(gd_collect_proc_mounts(&t.ctx, &s, &err), GD_SRC_OK);
	assert_int_equal(s.mounts.n, 1);
	assert_u64(GD_VEC_AT(s.mounts, struct gd_mount, 0)->size_bytes, 65536ull * 1024);
	gd_snapshot_release(&s);
	/* self/mounts wins when present. */
	tree_put(&t, "proc/self/mounts", "a /a ext4 rw 0 0\nb /b xfs rw 0 0\n");
	gd_snapshot_init(&s);
	assert_int_equal(gd_collect_proc_mounts(&t.ctx, &s, &err), GD_SRC_OK);
	assert_int_equal(s.mounts.n, 2);
	gd_snapshot_release(&s);
	tree_release(&t);
}

/* ---- network: /proc/net/dev + /sys/class/net, /proc/interrupts ------------------ */

static const char net_dev[] =
	"Inter-|   Receive                                                |  Transmit\n"
	" face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs drop fifo colls carrier compressed\n"
	"    lo:    3267      29    0    0    0     0          0         0     3267      29    0    0    0     0       0          0\n"
	"  eth0: 19137774     534    0    0    0     0          0         0    31912     380    0    0    0     0       0          0\n"
	"  ens1f0:9000000000 5 0 0 0 0 0 0 7 8 0 0 0 0 0 0\n"
	"  ib0: 1 2 0 0 0 0 0 0 3 4 0 0 0 0 0 0\n";

#define VIRTIO_PCI "sys/devices/pci0000:00/0000:00:03.0"
#define MLX_PCI "sys/devices/pci0000:16/0000:16:02.0/0000:17:00.0"

static void build_net_tree(struct tree *t)
{
	tree_put(t, "proc/net/dev", net_dev);
	/* lo: virtual, speed unreadable on a real system (here "-1"). */
	tree_put(t, "sys/devices/virtual/net/lo/operstate", "unknown\n");
	tree_put(t, "sys/devices/virtual/net/lo/flags", "0x9\n");
	tree_put(t, "sys/devices/virtual/net/lo/type", "772\n");
	tree_link(t, "../../devices/virtual/net/lo", "sys/class/net/lo");
	/* eth0: a virtio NIC; device -> virtio2, whose parent holds msi_irqs. */
	tree_put(t, VIRTIO_PCI "/virtio2/net/eth0/operstate", "up\n");
	tree_put(t, VIRTIO_PCI "/virtio2/net/eth0/flags", "0x1003\n");
	tree_put(t, VIRTIO_PCI "/virtio2/net/eth0/speed", "-1\n");
	tree_put(t, VIRTIO_PCI "/virtio2/net/eth0/type", "1\n");
	tree_link(t, "../../../virtio2", VIRTIO_PCI "/virtio2/net/eth0/device");
	tree_put(t, VIRTIO_PCI "/msi_irqs/37", "msix\n");
	tree_put(t, VIRTIO_PCI "/msi_irqs/38", "msix\n");
	tree_put(t, VIRTIO_PCI "/msi_irqs/39", "msix\n");
	tree_link(t, "../../devices/pci0000:00/0000:00:03.0/virtio2/net/eth0", "sys/class/net/eth0");
	/* ens1f0: a PCI NIC, administratively down (flags 0x1002). */
	tree_put(t, MLX_PCI "/net/ens1f0/operstate", "down\n");
	tree_put(t, MLX_PCI "/net/ens1f0/flags", "0x1002\n");
	tree_put(t, MLX_PCI "/net/ens1f0/speed", "100000\n");
	tree_put(t, MLX_PCI "/net/ens1f0/type", "1\n");
	tree_link(t, "../../../0000:17:00.0", MLX_PCI "/net/ens1f0/device");
	tree_put(t, MLX_PCI "/msi_irqs/120", "msix\n");
	tree_put(t, MLX_PCI "/msi_irqs/121", "msix\n");
	tree_link(t, "../../devices/pci0000:16/0000:16:02.0/0000:17:00.0/net/ens1f0", "sys/class/net/ens1f0");
	/* ib0: no sysfs directory at all in this fixture. */
}

static void test_net_dev_sysfs(void **state)
{
	struct tree t;
	struct gd_snapshot s;
	struct gd_err err;

	(void)state;
	tree_init(&t, "sys");
	build_net_tree(&t);
	gd_snapshot_init(&s);
	gd_err_clear(&err);
	assert_int_equal(gd_collect_proc_net_dev(&t.ctx, &s, &err), GD_SRC_OK);
	assert_int_equal(s.netifs.n, 4);

	assert_string_equal(NETIF(s, 0)->name, "lo");
	assert_string_equal(NETIF(s, 0)->operstate, "unknown");
	assert_u64(NETIF(s, 0)->admin_up, 1);
	assert_u64(NETIF(s, 0)->physical, 0);
	assert_u64(NETIF(s, 0)->arp_type, 772);
	assert_false(NETIF(s, 0)->speed_mbps.ok);

	assert_string_equal(NETIF(s, 1)->name, "eth0");
	assert_string_equal(NETIF(s, 1)->operstate, "up");
	assert_u64(NETIF(s, 1)->admin_up, 1);
	assert_u64(NETIF(s, 1)->physical, 1);
	assert_u64(NETIF(s, 1)->arp_type, 1);
	assert_false(NETIF(s, 1)->speed_mbps.ok);   /* -1: unknown */

	assert_string_equal(NETIF(s, 2)->name, "ens1f0");
	assert_u64(NETIF(s, 2)->rx_bytes, 9000000000ull);
	assert_string_equal(NETIF(s, 2)->operstate, "down");
	assert_u64(NETIF(s, 2)->admin_up, 0);
	assert_u64(NETIF(s, 2)->speed_mbps, 100000);
	assert_u64(NETIF(s, 2)->physical, 1);

	/* No sysfs entry: every sysfs fact absent, none guessed. */
	assert_string_equal(NETIF(s, 3)->name, "ib0");
	assert_string_equal(NETIF(s, 3)->operstate, "");
	assert_false(NETIF(s, 3)->admin_up.ok);
	assert_false(NETIF(s, 3)->physical.ok);
	assert_false(NETIF(s, 3)->arp_type.ok);

	/* A fixture root is never the host: no ethtool ioctl. */
	for (size_t i = 0; i < s.netifs.n; i++)
		assert_false(NETIF(s, i)->max_speed_mbps.ok);
	gd_snapshot_release(&s);
	tree_release(&t);
}

static void test_interrupts_msi_irqs(void **state)
{
	struct tree t;
	struct gd_snapshot s;
	struct gd_err err;

	(void)state;
	tree_init(&t, "sys");
	build_net_tree(&t);
	tree_put(&t, "proc/interrupts",
	    "           CPU0       CPU1       \n"
	    "  24:          1          0  IO-APIC   5-edge      ACPI:Ged\n"
	    "  37:          0          0 PCI-MSIX-0000:00:03.0   0-edge      virtio2-config\n"
	    "  38:          0        400 PCI-MSIX-0000:00:03.0   1-edge      virtio2-input.0\n"
	    "  39:        344          0 PCI-MSIX-0000:00:03.0   2-edge      virtio2-output.0\n"
	    "  41:       1744          0 PCI-MSIX-0000:00:04.0   1-edge      virtio3-rx\n"
	    " 120:         10         20  IR-PCI-MSI 9437184-edge      mlx5_comp0@pci:0000:17:00.0\n"
	    " 121:          0          0  IR-PCI-MSI 9437185-edge      mlx5_comp1@pci:0000:17:00.0\n"
	    " 130:          0          7  IR-PCI-MSI 9437186-edge      ib0-rx\n"
	    " NMI:          0          0   Non-maskable interrupts\n"
	    " LOC:      13308      11962   Local timer interrupts\n");
	gd_snapshot_init(&s);
	gd_err_clear(&err);
	assert_int_equal(gd_collect_proc_net_dev(&t.ctx, &s, &err), GD_SRC_OK);
	assert_int_equal(gd_collect_proc_interrupts(&t.ctx, &s, &err), GD_SRC_OK);
	assert_int_equal(s.nic_irqs.n, 5);
	assert_string_equal(NIRQ(s, 0)->irq, "38");
	assert_string_equal(NIRQ(s, 0)->netif, "eth0");
	assert_u64(NIRQ(s, 0)->cpu, 1);
	assert_u64(NIRQ(s, 0)->count, 400);
	assert_string_equal(NIRQ(s, 1)->irq, "39");
	assert_u64(NIRQ(s, 1)->cpu, 0);
	assert_string_equal(NIRQ(s, 2)->irq, "120");
	assert_string_equal(NIRQ(s, 2)->netif, "ens1f0");
	assert_string_equal(NIRQ(s, 2)->name, "mlx5_comp0@pci:0000:17:00.0");
	assert_u64(NIRQ(s, 2)->cpu, 0);
	assert_u64(NIRQ(s, 2)->count, 10);
	assert_u64(NIRQ(s, 3)->cpu, 1);
	assert_u64(NIRQ(s, 3)->count, 20);
	/* ib0 has no sysfs here: found by its name. */
	assert_string_equal(NIRQ(s, 4)->netif, "ib0");
	assert_u64(NIRQ(s, 4)->count, 7);
	gd_snapshot_release(&s);

	/* Without the interface list the NIC IRQs cannot be told apart. */
	gd_snapshot_init(&s);
	gd_err_clear(&err);
	assert_int_equal(gd_collect_proc_interrupts(&t.ctx, &s, &err), GD_SRC_PARTIAL);
	assert_non_null(strstr(err.msg, "network interfaces"));
	assert_int_equal(s.nic_irqs.n, 0);
	gd_snapshot_release(&s);
	tree_release(&t);
}

/* ---- snmp + netstat ------------------------------------------------------------ */

static void test_snmp_netstat_missing(void **state)
{
	struct tree t;
	struct gd_snapshot s;
	struct gd_err err;

	(void)state;
	tree_init(&t, "sys");
	tree_put(&t, "proc/net/snmp",
	    "Tcp: RtoAlgorithm RtoMin RtoMax MaxConn ActiveOpens PassiveOpens AttemptFails EstabResets CurrEstab InSegs OutSegs RetransSegs InErrs OutRsts\n"
	    "Tcp: 1 200 120000 -1 5 6 0 0 7 8 9 10 11 12\n");
	gd_snapshot_init(&s);
	gd_err_clear(&err);
	assert_int_equal(gd_collect_proc_net_snmp(&t.ctx, &s, &err), GD_SRC_PARTIAL);
	assert_non_null(strstr(err.msg, "proc/net/netstat"));
	assert_u64(s.tcp.retrans_segs, 10);
	assert_false(s.tcp.timeouts.ok);
	gd_snapshot_release(&s);

	tree_put(&t, "proc/net/netstat", "TcpExt: TCPTimeouts\nTcpExt: 3\n");
	gd_snapshot_init(&s);
	gd_err_clear(&err);
	assert_int_equal(gd_collect_proc_net_snmp(&t.ctx, &s, &err), GD_SRC_OK);
	assert_u64(s.tcp.timeouts, 3);
	gd_snapshot_release(&s);

	/* snmp broken, netstat fine: partial, naming snmp's line. */
	tree_put(&t, "proc/net/snmp", "Tcp: ActiveOpens OutSegs\nTcp: 1\n");
	gd_snapshot_init(&s);
	gd_err_clear(&err);
	assert_int_equal(gd_collect_proc_net_snmp(&t.ctx, &s, &err), GD_SRC_PARTIAL);
	assert_non_null(strstr(err.msg, "proc/net/snmp"));
	assert_non_null(strstr(err.msg, "line 2"));
	assert_u64(s.tcp.timeouts, 3);
	assert_false(s.tcp.active_opens.ok);
	gd_snapshot_release(&s);
	tree_release(&t);
}

/* ---- infiniband -------------------------------------------------------------- */

static void test_infiniband_ports(void **state)
{
	struct tree t;
	struct gd_snapshot s;
	struct gd_err err;
	const char *p = "sys/class/infiniband/mlx5_0/ports/1";

	(void)state;
	tree_init(&t, "sys");
	tree_mkdirs(&t, "sys/class", true);
	gd_snapshot_init(&s);
	gd_err_clear(&err);
	assert_int_equal(gd_collect_infiniband(&t.ctx, &s, &err), GD_SRC_ABSENT);
	assert_string_equal(err.msg, "no RDMA devices");
	gd_snapshot_release(&s);

	{
		char path[256];
		const char *files[][2] = {
			{ "state", "4: ACTIVE\n" },
			{ "phys_state", "5: LinkUp\n" },
			{ "rate", "400 Gb/sec (4X NDR)\n" },
			{ "link_layer", "InfiniBand\n" },
			{ "counters/symbol_error", "3\n" },
			{ "counters/port_rcv_errors", "0\n" },
			{ "counters/link_downed", "1\n" },
			{ "counters/link_error_recovery", "2\n" },
			{ "counters/port_xmit_wait", "123456\n" },
			{ "counters/port_xmit_data", "1000\n" },
			{ "counters/port_rcv_data", "4611686018427387904\n" },   /* 2^62 x 4 overflows */
		};

		for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
			snprintf(path, sizeof path, "%s/%s", p, files[i][0]);
			tree_put(&t, path, files[i][1]);
		}
	}
	/* A RoCE port with a fractional rate, and port 2 of a second device
	 * with a malformed state. */
	tree_put(&t, "sys/class/infiniband/mlx5_0/ports/2/state", "1: DOWN\n");
	tree_put(&t, "sys/class/infiniband/mlx5_0/ports/2/phys_state", "3: Disabled\n");
	tree_put(&t, "sys/class/infiniband/mlx5_0/ports/2/rate", "2.5 Gb/sec (1X SDR)\n");
	tree_put(&t, "sys/class/infiniband/mlx5_0/ports/2/link_layer", "Ethernet\n");
	tree_put(&t, "sys/class/infiniband/mlx5_10/ports/1/state", "ACTIVE\n");
	tree_put(&t, "sys/class/infiniband/mlx5_10/ports/1/rate", "fast\n");
	gd_snapshot_init(&s);
	gd_err_clear(&err);
	assert_int_equal(gd_collect_infiniband(&t.ctx, &s, &err), GD_SRC_PARTIAL);
	assert_int_equal(s.ib_ports.n, 3);
	assert_string_equal(IBP(s, 0)->device, "mlx5_0");
	assert_u64(IBP(s, 0)->port, 1);
	assert_u64(IBP(s, 0)->state, 4);
	assert_string_equal(IBP(s, 0)->state_name, "ACTIVE");
	assert_u64(IBP(s, 0)->phys_state, 5);
	assert_string_equal(IBP(s, 0)->phys_state_name, "LinkUp");
	assert_f64(IBP(s, 0)->rate_gbps, 400);
	assert_string_equal(IBP(s, 0)->link_layer, "InfiniBand");
	assert_u64(IBP(s, 0)->symbol_error, 3);
	assert_u64(IBP(s, 0)->port_rcv_errors, 0);
	assert_u64(IBP(s, 0)->link_downed, 1);
	assert_u64(IBP(s, 0)->link_error_recovery, 2);
	assert_u64(IBP(s, 0)->port_xmit_wait, 123456);
	assert_u64(IBP(s, 0)->port_xmit_data_bytes, 4000);
	assert_false(IBP(s, 0)->port_rcv_data_bytes.ok);
	assert_false(IBP(s, 0)->port_xmit_discards.ok);   /* no file */
	assert_u64(IBP(s, 1)->port, 2);
	assert_string_equal(IBP(s, 1)->state_name, "DOWN");
	assert_string_equal(IBP(s, 1)->phys_state_name, "Disabled");
	assert_f64(IBP(s, 1)->rate_gbps, 2.5);
	assert_string_equal(IBP(s, 1)->link_layer, "Ethernet");
	/* mlx5_10 sorts after mlx5_0 (version order), values absent. */
	assert_string_equal(IBP(s, 2)->device, "mlx5_10");
	assert_false(IBP(s, 2)->state.ok);
	assert_false(IBP(s, 2)->rate_gbps.ok);
	/* The first problem is named. */
	assert_non_null(strstr(err.msg, "port_rcv_data"));
	assert_non_null(strstr(err.msg, "2 port(s)"));
	gd_snapshot_release(&s);
	tree_release(&t);
}

/* ---- thermal ------------------------------------------------------------------ */

static void test_thermal_zones_and_hwmon(void **state)
{
	struct tree t;
	struct gd_snapshot s;
	struct gd_err err;

	(void)state;
	tree_init(&t, "sys");
	tree_mkdirs(&t, "sys/class/thermal", true);   /* empty, as in this VM */
	gd_snapshot_init(&s);
	gd_err_clear(&err);
	assert_int_equal(gd_collect_thermal(&t.ctx, &s, &err), GD_SRC_ABSENT);
	assert_non_null(strstr(err.msg, "no thermal zones or hwmon sensors"));
	assert_int_equal(s.sensors.n, 0);
	gd_snapshot_release(&s);

	tree_put(&t, "sys/class/thermal/thermal_zone0/type", "x86_pkg_temp\n");
	tree_put(&t, "sys/class/thermal/thermal_zone0/temp", "45000\n");
	tree_put(&t, "sys/class/thermal/thermal_zone0/trip_point_0_type", "passive\n");
	tree_put(&t, "sys/class/thermal/thermal_zone0/trip_point_0_temp", "95000\n");
	tree_put(&t, "sys/class/thermal/thermal_zone0/trip_point_1_type", "critical\n");
	tree_put(&t, "sys/class/thermal/thermal_zone0/trip_point_1_temp", "105000\n");
	tree_put(&t, "sys/class/thermal/thermal_zone1/type", "acpitz\n");
	tree_put(&t, "sys/class/thermal/thermal_zone1/temp", "-5500\n");
	tree_mkdirs(&t, "sys/class/thermal/cooling_device0", true);
	tree_put(&t, "sys/class/hwmon/hwmon0/name", "coretemp\n");
	tree_put(&t, "sys/class/hwmon/hwmon0/temp1_label", "Package id 0\n");
	tree_put(&t, "sys/class/hwmon/hwmon0/temp1_input", "47000\n");
	tree_put(&t, "sys/class/hwmon/hwmon0/temp1_max", "84000\n");
	tree_put(&t, "sys/class/hwmon/hwmon0/temp1_crit", "100000\n");
	tree_put(&t, "sys/class/hwmon/hwmon0/temp10_input", "46000\n");
	tree_put(&t, "sys/class/hwmon/hwmon0/temp2_input", "41000\n");
	tree_put(&t, "sys/class/hwmon/hwmon0/temp2_label", "Core 0\n");
	tree_put(&t, "sys/class/hwmon/hwmon0/fan1_input", "1200\n");
	/* Before 3.x the name lived under device/. */
	tree_put(&t, "sys/class/hwmon/hwmon10/device/name", "ipmi_temp\n");
	tree_put(&t, "sys/class/hwmon/hwmon10/temp1_label", "Inlet Temp\n");
	tree_put(&t, "sys/class/hwmon/hwmon10/temp1_input", "23000\n");
	tree_put(&t, "sys/class/hwmon/hwmon2/name", "nvme\n");
	tree_put(&t, "sys/class/hwmon/hwmon2/temp1_label", "Composite\n");
	tree_put(&t, "sys/class/hwmon/hwmon2/temp1_input", "warm\n");
	gd_snapshot_init(&s);
	gd_err_clear(&err);
	assert_int_equal(gd_collect_thermal(&t.ctx, &s, &err), GD_SRC_PARTIAL);
	assert_non_null(strstr(err.msg, "hwmon2/temp1_input"));
	assert_int_equal(s.sensors.n, 7);

	assert_string_equal(SENSOR(s, 0)->source, "thermal");
	assert_string_equal(SENSOR(s, 0)->chip, "x86_pkg_temp");
	assert_string_equal(SENSOR(s, 0)->label, "x86_pkg_temp");
	assert_f64(SENSOR(s, 0)->temp_c, 45.0);
	assert_f64(SENSOR(s, 0)->crit_c, 105.0);
	assert_false(SENSOR(s, 0)->max_c.ok);
	assert_string_equal(SENSOR(s, 1)->chip, "acpitz");
	assert_f64(SENSOR(s, 1)->temp_c, -5.5);
	assert_false(SENSOR(s, 1)->crit_c.ok);

	/* hwmon0: temp1, temp2, temp10 in that order. */
	assert_string_equal(SENSOR(s, 2)->source, "hwmon");
	assert_string_equal(SENSOR(s, 2)->chip, "coretemp");
	assert_string_equal(SENSOR(s, 2)->label, "Package id 0");
	assert_f64(SENSOR(s, 2)->temp_c, 47.0);
	assert_f64(SENSOR(s, 2)->max_c, 84.0);
	assert_f64(SENSOR(s, 2)->crit_c, 100.0);
	assert_string_equal(SENSOR(s, 3)->label, "Core 0");
	assert_string_equal(SENSOR(s, 4)->label, "temp10");
	assert_f64(SENSOR(s, 4)->temp_c, 46.0);
	assert_false(SENSOR(s, 4)->max_c.ok);
	/* hwmon2 before hwmon10; a malformed value is absent, not 0. */
	assert_string_equal(SENSOR(s, 5)->chip, "nvme");
	assert_false(SENSOR(s, 5)->temp_c.ok);
	assert_string_equal(SENSOR(s, 6)->chip, "ipmi_temp");
	assert_string_equal(SENSOR(s, 6)->label, "Inlet Temp");
	assert_f64(SENSOR(s, 6)->temp_c, 23.0);
	gd_snapshot_release(&s);
	tree_release(&t);
}

/* ---- this machine --------------------------------------------------------------- */

static void test_real_machine(void **state)
{
	struct gd_root root;
	struct gd_collect_ctx ctx;
	struct gd_snapshot s;
	struct gd_err err;
	const struct {
		const char *name;
		gd_collect_fn fn;
	} fns[] = {
		{ "proc_diskstats", gd_collect_proc_diskstats },
		{ "proc_mounts", gd_collect_proc_mounts },
		{ "proc_net_dev", gd_collect_proc_net_dev },
		{ "proc_net_snmp", gd_collect_proc_net_snmp },
		{ "proc_interrupts", gd_collect_proc_interrupts },
		{ "infiniband", gd_collect_infiniband },
		{ "thermal", gd_collect_thermal },
	};

	(void)state;
	gd_err_clear(&err);
	assert_int_equal(gd_root_open(&root, "/", &err), 0);
	assert_true(root.is_host);
	ctx.root = &root;
	gd_snapshot_init(&s);
	for (size_t i = 0; i < sizeof fns / sizeof fns[0]; i++) {
		enum gd_src_status st;

		gd_err_clear(&err);
		st = fns[i].fn(&ctx, &s, &err);
		print_message("%-16s %-8s %s\n", fns[i].name, gd_src_status_name(st), err.msg);
		assert_true(st == GD_SRC_OK || st == GD_SRC_ABSENT || st == GD_SRC_PARTIAL);
	}
	/* Every Linux system has at least a mount and the loopback interface. */
	assert_true(s.mounts.n > 0);
	assert_true(s.netifs.n > 0);
	GD_VEC_EACH(s.netifs, struct gd_netif, nif) {
		if (strcmp(nif->name, "lo") == 0) {
			assert_u64(nif->physical, 0);
			assert_false(nif->max_speed_mbps.ok);   /* lo has no link modes */
		}
		if (nif->max_speed_mbps.ok)
			print_message("%s: max %llu Mbit/s\n", nif->name, (unsigned long long)nif->max_speed_mbps.v);
	}
	GD_VEC_EACH(s.nic_irqs, struct gd_nic_irq, q)
		print_message("irq %s %s (%s) cpu %llu: %llu\n", q->irq, q->name, q->netif, (unsigned long long)q->cpu.v,
			      (unsigned long long)q->count.v);
	assert_true(s.tcp.active_opens.ok);
	gd_snapshot_release(&s);
	gd_root_release(&root);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_disks_sysfs),
		cmocka_unit_test(test_disks_without_sys),
		cmocka_unit_test(test_mounts_fallback),
		cmocka_unit_test(test_net_dev_sysfs),
		cmocka_unit_test(test_interrupts_msi_irqs),
		cmocka_unit_test(test_snmp_netstat_missing),
		cmocka_unit_test(test_infiniband_ports),
		cmocka_unit_test(test_thermal_zones_and_hwmon),
		cmocka_unit_test(test_real_machine),
	};

	return cmocka_run_group_tests(tests, NULL, tree_sweep);
}
