/*
 * host_storage.c - the storage probe of `gpudoctor probe --data DIR`.
 *
 * What a loader pays for its data set, measured without the page cache:
 *
 *   sequential  the largest files (>= large_min_bytes) read front to back
 *               in 1 MiB blocks, one at a time (dd bs=1M iflag=direct, fio
 *               rw=read bs=1M direct=1 ioengine=psync), until seq_max_bytes
 *               or budget_s;
 *   random      4 KiB reads at random 4 KiB-aligned offsets of the largest
 *               file, one at a time (fio rw=randread bs=4k iodepth=1), each
 *               timed: the latency a loader's random access pays;
 *   small files a sample of the files of at most small_max_bytes, each
 *               opened, read whole and closed, one after another (what one
 *               DataLoader worker does per sample of an image folder).
 *
 * The page cache is kept out with O_DIRECT and buffers aligned to 4 KiB
 * (offsets and lengths are multiples of 4 KiB, which covers every logical
 * block size but 64 KiB ones).  Where the filesystem refuses O_DIRECT
 * (EINVAL at open or at the first read: FUSE without direct_io, tmpfs
 * before Linux 6.6, some network filesystems), or when no_direct asks, the
 * file is read through the cache after fdatasync(2) and
 * posix_fadvise(POSIX_FADV_DONTNEED) (which is what fio's invalidate=1
 * does); the result says which (*_cache).  On tmpfs nothing can be dropped
 * either way (it accepts O_DIRECT since 6.6 and serves it from memory): the
 * cache is the storage, and media says "memory".
 *
 * What this does not drop: the dentry and inode caches (the walk that counts
 * the data set has just read every directory; only root can drop them, via
 * /proc/sys/vm/drop_caches).  So open() is timed as a loader's second epoch
 * sees it.  On a network filesystem the first epoch pays more.
 *
 * The filesystem's type comes from statfs(2) and from the mount table read
 * through the root prefix (the longest mount point that holds realpath(dir));
 * the device below it from /sys/class/block (NVMe by name, SSD and HDD by
 * queue/rotational; virtio disks report rotational 1 whatever backs them).
 */
#include "probe/host_int.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "collect/collectors.h"
#include "core/xalloc.h"
#include "model/snapshot.h"

#define BLK 4096u
#define SEQ_BLOCK (1u << 20)
#define NLARGE 16
#define WALK_DEPTH 64

/* ---- filesystem and device -------------------------------------------- */

struct fs_magic {
	unsigned long magic;
	const char *name;
	enum gd_probe_media media;  /* UNKNOWN: decided by the device below */
};

/* statfs f_type values (linux/magic.h, and the filesystems' own headers for
 * those not in it: lustre, gpfs, beegfs, zfs). */
static const struct fs_magic magics[] = {
	{ 0xEF53, "ext4", GD_PROBE_MEDIA_UNKNOWN },          { 0x58465342, "xfs", GD_PROBE_MEDIA_UNKNOWN },
	{ 0x9123683E, "btrfs", GD_PROBE_MEDIA_UNKNOWN },     { 0xF2F52010, "f2fs", GD_PROBE_MEDIA_UNKNOWN },
	{ 0x2FC12FC1, "zfs", GD_PROBE_MEDIA_UNKNOWN },       { 0x794C7630, "overlay", GD_PROBE_MEDIA_UNKNOWN },
	{ 0x73717368, "squashfs", GD_PROBE_MEDIA_UNKNOWN },  { 0x01021994, "tmpfs", GD_PROBE_MEDIA_MEMORY },
	{ 0x858458F6, "ramfs", GD_PROBE_MEDIA_MEMORY },      { 0x6969, "nfs", GD_PROBE_MEDIA_NETWORK },
	{ 0xFF534D42, "cifs", GD_PROBE_MEDIA_NETWORK },      { 0xFE534D42, "smb3", GD_PROBE_MEDIA_NETWORK },
	{ 0x00C36400, "ceph", GD_PROBE_MEDIA_NETWORK },      { 0x0BD00BD0, "lustre", GD_PROBE_MEDIA_NETWORK },
	{ 0x47504653, "gpfs", GD_PROBE_MEDIA_NETWORK },      { 0x19830326, "beegfs", GD_PROBE_MEDIA_NETWORK },
	{ 0x01021997, "9p", GD_PROBE_MEDIA_NETWORK },        { 0x65735546, "fuse", GD_PROBE_MEDIA_NETWORK },
};

/* Media of a mount-table type name; UNKNOWN when the device decides. */
static enum gd_probe_media media_of_type(const char *t)
{
	static const char *const net[] = { "nfs", "nfs4", "cifs", "smb3", "smbfs", "ceph", "lustre", "gpfs",
					   "glusterfs", "beegfs", "9p", "afs", "orangefs", "fuse.sshfs" };

	if (strcmp(t, "tmpfs") == 0 || strcmp(t, "ramfs") == 0)
		return GD_PROBE_MEDIA_MEMORY;
	/* lxcfs is a local FUSE filesystem over /proc files; other FUSE
	 * mounts (s3fs, gcsfuse, juicefs, glusterfs) are remote */
	if (strncmp(t, "fuse", 4) == 0)
		return strcmp(t, "fuse.lxcfs") == 0 ? GD_PROBE_MEDIA_UNKNOWN : GD_PROBE_MEDIA_NETWORK;
	for (size_t i = 0; i < sizeof net / sizeof net[0]; i++)
		if (strcmp(t, net[i]) == 0)
			return GD_PROBE_MEDIA_NETWORK;
	return GD_PROBE_MEDIA_UNKNOWN;
}

/* The longest mount point that holds path, later lines winning ties. */
static const struct gd_mount *mount_of(const struct gd_snapshot *s, const char *path)
{
	const struct gd_mount *best = NULL;
	size_t best_n = 0;

	GD_VEC_EACH(s->mounts, const struct gd_mount, m) {
		size_t n = strlen(m->mountpoint);

		if (strncmp(path, m->mountpoint, n) != 0)
			continue;
		if (!(n == 1 || path[n] == '\0' || path[n] == '/'))
			continue;
		if (!best || n >= best_n) {
			best = m;
			best_n = n;
		}
	}
	return best;
}

/* The whole disk of block device name (a partition's parent), from
 * /sys/class/block/<name>: fills disk, returns 0 or -errno. */
static int disk_of(const struct gd_root *root, const char *name, char *disk, size_t dsz)
{
	char rel[PATH_MAX], link[PATH_MAX];
	char *slash;

	snprintf(rel, sizeof rel, "sys/class/block/%s/partition", name);
	if (!gd_root_exists(root, rel)) {
		snprintf(rel, sizeof rel, "sys/class/block/%s", name);
		if (!gd_root_exists(root, rel))
			return -ENOENT;
		snprintf(disk, dsz, "%s", name);
		return 0;
	}
	snprintf(rel, sizeof rel, "sys/class/block/%s", name);
	if (gd_root_readlink(root, rel, link, sizeof link) < 0)
		return -ENOENT;
	/* ../../devices/pci0000:00/.../nvme0n1/nvme0n1p2: the parent */
	slash = strrchr(link, '/');
	if (!slash)
		return -ENOENT;
	*slash = '\0';
	slash = strrchr(link, '/');
	gd_strlcpy(disk, slash ? slash + 1 : link, dsz);
	return 0;
}

/* Block device name of the filesystem: st_dev through /sys/dev/block, else
 * the mount source's basename (/dev/nvme0n1p2). */
static bool blockdev_name(const struct gd_root *root, dev_t dev, const char *source, char *name, size_t nsz)
{
	char rel[64], link[PATH_MAX];
	const char *b;

	snprintf(rel, sizeof rel, "sys/dev/block/%u:%u", major(dev), minor(dev));
	if (major(dev) != 0 && gd_root_readlink(root, rel, link, sizeof link) >= 0) {
		b = strrchr(link, '/');
		gd_strlcpy(name, b ? b + 1 : link, nsz);
		return true;
	}
	if (strncmp(source, "/dev/", 5) == 0 && source[5]) {
		b = strrchr(source, '/');
		snprintf(name, nsz, "%s", b + 1);
		return true;
	}
	return false;
}

int gd_probe_storage_fs(const char *dir, const struct gd_probe_host_opts *o, struct gd_probe_storage_result *r)
{
	struct gd_root root;
	struct gd_snapshot snap;
	struct statfs sf;
	struct stat st;
	char real[PATH_MAX], part[64], why[256];
	const struct gd_mount *m = NULL;
	enum gd_probe_media by_magic = GD_PROBE_MEDIA_UNKNOWN;
	bool have_magic = false;

	if (!dir || !r)
		return -EINVAL;
	r->fstype[0] = r->mount_point[0] = r->mount_source[0] = r->block_dev[0] = r->media_why[0] = '\0';
	r->media = GD_PROBE_MEDIA_UNKNOWN;
	r->fs_magic = 0;
	if (statfs(dir, &sf) == 0) {
		r->fs_magic = (unsigned long)sf.f_type;
		for (size_t i = 0; i < sizeof magics / sizeof magics[0]; i++)
			if (magics[i].magic == r->fs_magic) {
				GD_STRSET(r->fstype, magics[i].name);
				by_magic = magics[i].media;
				have_magic = true;
			}
		if (!have_magic)
			snprintf(r->fstype, sizeof r->fstype, "0x%lx", r->fs_magic);
	}
	if (!realpath(dir, real))
		GD_STRSET(real, dir);
	gd_snapshot_init(&snap);
	if (gd__probe_root(o, &root, why, sizeof why) == 0) {
		char *buf = NULL;
		size_t len = 0;
		struct gd_err err;

		gd_err_clear(&err);
		if (gd_root_read(&root, "proc/self/mounts", &buf, &len, GD_READ_CAP) < 0)
			gd_root_read(&root, "proc/mounts", &buf, &len, GD_READ_CAP);
		if (buf && gd_parse_proc_mounts(buf, len, &snap, &err) >= 0)
			m = mount_of(&snap, real);
		free(buf);
		if (m) {
			GD_STRSET(r->mount_point, m->mountpoint);
			GD_STRSET(r->mount_source, m->device);
			/* the mount table names FUSE subtypes and nfs4 */
			GD_STRSET(r->fstype, m->fstype);
		}
		r->media = media_of_type(r->fstype);
		if (r->media == GD_PROBE_MEDIA_UNKNOWN && have_magic)
			r->media = by_magic;
		if (r->media != GD_PROBE_MEDIA_UNKNOWN) {
			snprintf(r->media_why, sizeof r->media_why, "%s mount%s", r->fstype,
				 r->media == GD_PROBE_MEDIA_NETWORK && strncmp(r->fstype, "fuse", 4) == 0
					 ? " (FUSE: counted as network)" : "");
		} else if (stat(dir, &st) == 0 &&
			   blockdev_name(&root, st.st_dev, r->mount_source, part, sizeof part) &&
			   disk_of(&root, part, r->block_dev, sizeof r->block_dev) == 0) {
			char rel[PATH_MAX];
			unsigned long long rot;

			snprintf(rel, sizeof rel, "sys/class/block/%s/queue/rotational", r->block_dev);
			if (strncmp(r->block_dev, "nvme", 4) == 0) {
				r->media = GD_PROBE_MEDIA_NVME;
				snprintf(r->media_why, sizeof r->media_why, "%s (NVMe)", r->block_dev);
			} else if (gd_root_read_u64(&root, rel, &rot) == 0) {
				r->media = rot ? GD_PROBE_MEDIA_HDD : GD_PROBE_MEDIA_SSD;
				snprintf(r->media_why, sizeof r->media_why, "%s: queue/rotational=%llu", r->block_dev, rot);
			} else {
				snprintf(r->media_why, sizeof r->media_why, "%s: no queue/rotational in sysfs",
					 r->block_dev);
			}
		} else {
			snprintf(r->media_why, sizeof r->media_why, "%.30s on %.90s: no block device in sysfs", r->fstype,
				 r->mount_source[0] ? r->mount_source : "an unknown source");
		}
		gd_root_release(&root);
	} else {
		r->media = by_magic;
		GD_STRSET(r->media_why, why);
	}
	gd_snapshot_release(&snap);
	return 0;
}

/* ---- the walk ---------------------------------------------------------- */

struct large {
	char *path;
	uint64_t size;
};

struct walk {
	const struct gd_probe_host_opts *o;
	struct gd_probe_storage_result *r;
	struct large big[NLARGE];   /* largest files, descending */
	size_t nbig;
	char **sample;              /* reservoir of small files */
	uint64_t *sample_size;      /* their sizes at the walk */
	size_t nsample;
	uint64_t seen_small;        /* small files offered to the reservoir */
	uint64_t rng;
	bool stopped;
	double deadline;            /* the walk stops here (10 x budget_s) */
};

static uint64_t rnd_next(uint64_t *s)
{
	/* xorshift64*: reproducible for a seed, good enough for offsets */
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 2685821657736338717ull;
}

static void offer_large(struct walk *w, const char *path, uint64_t size)
{
	size_t i;

	if (size < w->o->large_min_bytes || (w->nbig == NLARGE && size <= w->big[NLARGE - 1].size))
		return;
	if (w->nbig == NLARGE)
		free(w->big[--w->nbig].path);
	for (i = w->nbig; i > 0 && w->big[i - 1].size < size; i--)
		w->big[i] = w->big[i - 1];
	w->big[i].path = gd_xstrdup(path);
	w->big[i].size = size;
	w->nbig++;
}

static void offer_small(struct walk *w, const char *path, uint64_t size)
{
	uint64_t k = w->o->small_sample, j;

	w->seen_small++;
	if (w->nsample < k) {
		w->sample_size[w->nsample] = size;
		w->sample[w->nsample++] = gd_xstrdup(path);
		return;
	}
	j = rnd_next(&w->rng) % w->seen_small;
	if (j < k) {
		free(w->sample[j]);
		w->sample[j] = gd_xstrdup(path);
		w->sample_size[j] = size;
	}
}

static void walk_dir(struct walk *w, int dfd, const char *path, int depth)
{
	DIR *d;
	struct dirent *e;

	if (depth > WALK_DEPTH) {
		w->r->walk_complete = false;
		close(dfd);
		return;
	}
	d = fdopendir(dfd);
	if (!d) {
		close(dfd);
		w->r->walk_complete = false;
		return;
	}
	while (!w->stopped && (e = readdir(d))) {
		char child[PATH_MAX];
		struct stat st;

		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		if (snprintf(child, sizeof child, "%s/%s", path, e->d_name) >= (int)sizeof child)
			continue;
		if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			continue;
		if (S_ISDIR(st.st_mode)) {
			int cfd = openat(dirfd(d), e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

			if (cfd < 0)
				w->r->walk_complete = false;
			else
				walk_dir(w, cfd, child, depth + 1);
			continue;
		}
		if (!S_ISREG(st.st_mode))
			continue;
		w->r->files++;
		w->r->bytes += (uint64_t)st.st_size;
		if ((uint64_t)st.st_size <= w->o->small_max_bytes) {
			w->r->small_files++;
			if (st.st_size > 0)
				offer_small(w, child, (uint64_t)st.st_size);
		}
		offer_large(w, child, (uint64_t)st.st_size);
		if (w->r->files >= w->o->walk_max_files ||
		    (w->r->files % 1024 == 0 && gd__probe_now() > w->deadline)) {
			w->stopped = true;
			w->r->walk_complete = false;
		}
	}
	closedir(d);
}

/* ---- reading ----------------------------------------------------------- */

/* Opens path for reading without the cache: O_DIRECT when *mode allows and
 * the filesystem takes it, else plain after dropping the file's pages (and
 * *mode becomes FADVISE).  Returns the fd or -errno. */
static int open_uncached(const char *path, enum gd_probe_cache *mode)
{
	int fd;

	if (*mode != GD_PROBE_CACHE_FADVISE) {
		fd = open(path, O_RDONLY | O_DIRECT | O_CLOEXEC | O_NOATIME);
		if (fd < 0 && errno == EPERM)  /* O_NOATIME on a file we do not own */
			fd = open(path, O_RDONLY | O_DIRECT | O_CLOEXEC);
		if (fd >= 0) {
			*mode = GD_PROBE_CACHE_DIRECT;
			return fd;
		}
		if (errno != EINVAL)
			return -errno;
		*mode = GD_PROBE_CACHE_FADVISE;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	(void)fdatasync(fd);  /* dirty pages are not dropped: write them first */
	(void)posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	return fd;
}

/* The first O_DIRECT read of a file can still be refused (EINVAL: the
 * filesystem or the block size): reopen without O_DIRECT.  Returns the new
 * fd, or -errno. */
static int fall_back(int fd, const char *path, enum gd_probe_cache *mode)
{
	close(fd);
	*mode = GD_PROBE_CACHE_FADVISE;
	return open_uncached(path, mode);
}

static void seq_probe(const struct walk *w, void *buf, struct gd_probe_storage_result *r)
{
	const struct gd_probe_host_opts *o = w->o;
	enum gd_probe_cache mode = o->no_direct ? GD_PROBE_CACHE_FADVISE : GD_PROBE_CACHE_NONE;
	double spent = 0;
	uint64_t total = 0;

	if (!w->nbig) {
		gd__probe_set(&r->seq, GD_PROBE_UNAVAILABLE, "no file of at least %llu MiB under %s",
			      (unsigned long long)(o->large_min_bytes >> 20), r->dir);
		return;
	}
	for (size_t i = 0; i < w->nbig && total < o->seq_max_bytes && spent < o->budget_s; i++) {
		double t0;
		int fd = open_uncached(w->big[i].path, &mode);
		bool first = true;

		if (fd < 0) {
			gd__probe_set(&r->seq, GD_PROBE_FAILED, "%s: %s", w->big[i].path, strerror(-fd));
			return;
		}
		t0 = gd__probe_now();
		for (;;) {
			ssize_t n = read(fd, buf, SEQ_BLOCK);

			if (n < 0 && errno == EINTR)
				continue;
			if (n < 0 && errno == EINVAL && first && mode == GD_PROBE_CACHE_DIRECT) {
				fd = fall_back(fd, w->big[i].path, &mode);
				if (fd < 0)
					break;
				t0 = gd__probe_now();
				first = false;
				continue;
			}
			if (n < 0) {
				gd__probe_set(&r->seq, GD_PROBE_FAILED, "%s: read: %s", w->big[i].path, strerror(errno));
				close(fd);
				return;
			}
			first = false;
			if (n == 0)
				break;
			total += (uint64_t)n;
			if (total >= o->seq_max_bytes || spent + gd__probe_now() - t0 >= o->budget_s)
				break;
		}
		spent += gd__probe_now() - t0;
		if (fd >= 0)
			close(fd);
		else {
			gd__probe_set(&r->seq, GD_PROBE_FAILED, "%s: %s", w->big[i].path, strerror(-fd));
			return;
		}
		r->seq_files++;
	}
	r->seq_cache = mode;
	r->seq_bytes = total;
	r->seq_s = spent;
	if (total == 0 || spent <= 0) {
		gd__probe_set(&r->seq, GD_PROBE_FAILED, "read nothing from %s", w->big[0].path);
		return;
	}
	r->seq_mb_s = (double)total / spent / 1e6;
	gd__probe_ok(&r->seq);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static void rnd_probe(struct walk *w, void *buf, struct gd_probe_storage_result *r)
{
	const struct gd_probe_host_opts *o = w->o;
	enum gd_probe_cache mode = o->no_direct ? GD_PROBE_CACHE_FADVISE : GD_PROBE_CACHE_NONE;
	const char *path;
	uint64_t blocks;
	double *lat, sum = 0, start;
	unsigned n = 0;
	int fd;

	/* the largest file of all: the walk's largest, or the largest small one */
	if (!w->nbig) {
		gd__probe_set(&r->rnd, GD_PROBE_UNAVAILABLE, "no file of at least %llu MiB under %s",
			      (unsigned long long)(o->large_min_bytes >> 20), r->dir);
		return;
	}
	path = w->big[0].path;
	blocks = w->big[0].size / BLK;
	GD_STRSET(r->rnd_file, path);
	fd = open_uncached(path, &mode);
	if (fd < 0) {
		gd__probe_set(&r->rnd, GD_PROBE_FAILED, "%s: %s", path, strerror(-fd));
		return;
	}
	if (mode == GD_PROBE_CACHE_FADVISE)
		(void)posix_fadvise(fd, 0, 0, POSIX_FADV_RANDOM);
	lat = gd_xcalloc(o->rand_reads, sizeof *lat);
	start = gd__probe_now();
	while (n < o->rand_reads && gd__probe_now() - start < o->budget_s) {
		off_t off = (off_t)(rnd_next(&w->rng) % blocks) * BLK;
		double t0 = gd__probe_now();
		ssize_t got = pread(fd, buf, BLK, off);
		double t1 = gd__probe_now();

		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0 && errno == EINVAL && n == 0 && mode == GD_PROBE_CACHE_DIRECT) {
			fd = fall_back(fd, path, &mode);
			if (fd < 0)
				break;
			(void)posix_fadvise(fd, 0, 0, POSIX_FADV_RANDOM);
			continue;
		}
		if (got != (ssize_t)BLK) {
			gd__probe_set(&r->rnd, GD_PROBE_FAILED, "%s: pread at %lld: %s", path, (long long)off,
				      got < 0 ? strerror(errno) : "short read");
			goto out;
		}
		if (mode == GD_PROBE_CACHE_FADVISE)
			(void)posix_fadvise(fd, off, BLK, POSIX_FADV_DONTNEED);
		lat[n] = (t1 - t0) * 1e6;
		sum += lat[n];
		n++;
	}
	if (fd < 0) {
		gd__probe_set(&r->rnd, GD_PROBE_FAILED, "%s: %s", path, strerror(-fd));
		free(lat);
		return;
	}
	r->rnd_cache = mode;
	r->rnd_reads = n;
	if (!n) {
		gd__probe_set(&r->rnd, GD_PROBE_FAILED, "%s: no read finished within %.1f s", path, o->budget_s);
		goto out;
	}
	qsort(lat, n, sizeof *lat, cmp_double);
	r->rnd_lat_us = sum / n;
	r->rnd_p50_us = lat[n / 2];
	r->rnd_p99_us = lat[(size_t)((n - 1) * 0.99)];
	r->rnd_iops = r->rnd_lat_us > 0 ? 1e6 / r->rnd_lat_us : NAN;
	gd__probe_ok(&r->rnd);
out:
	free(lat);
	if (fd >= 0)
		close(fd);
}

/* Reads fd to its end into buf (bufsz, a multiple of BLK), asking for the
 * expected size (rounded up to BLK) first, as a loader that knows the size
 * does: one read for a small file, and the short read that ends it.
 * Returns bytes or -errno. */
static long long read_all(int fd, void *buf, size_t bufsz, uint64_t expect)
{
	long long total = 0;
	size_t want = expect ? (size_t)((expect + BLK - 1) / BLK * BLK) : bufsz;

	if (want > bufsz || want == 0)
		want = bufsz;
	for (;;) {
		ssize_t n = read(fd, buf, want);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return total;
		total += n;
		/* a read shorter than asked for at the expected size is EOF */
		if ((size_t)n < want && expect && (uint64_t)total >= expect)
			return total;
		want = bufsz;
	}
}

static void small_probe(const struct walk *w, void *buf, size_t bufsz, struct gd_probe_storage_result *r)
{
	const struct gd_probe_host_opts *o = w->o;
	enum gd_probe_cache mode = o->no_direct ? GD_PROBE_CACHE_FADVISE : GD_PROBE_CACHE_NONE;
	double t0, spent;
	uint64_t bytes = 0;
	unsigned n = 0;

	if (!w->nsample) {
		gd__probe_set(&r->small, GD_PROBE_UNAVAILABLE, "no file of at most %llu KiB under %s",
			      (unsigned long long)(o->small_max_bytes >> 10), r->dir);
		return;
	}
	/* Decide the mode on the first file, and if it is the cache's, drop
	 * every sampled file's pages before the clock starts. */
	{
		int fd = open_uncached(w->sample[0], &mode);
		long long got = fd >= 0 ? read_all(fd, buf, bufsz, w->sample_size[0]) : fd;

		if (fd >= 0)
			close(fd);
		if (got == -EINVAL && mode == GD_PROBE_CACHE_DIRECT)
			mode = GD_PROBE_CACHE_FADVISE;
		else if (got < 0) {
			gd__probe_set(&r->small, GD_PROBE_FAILED, "%s: %s", w->sample[0], strerror((int)-got));
			return;
		}
	}
	if (mode == GD_PROBE_CACHE_FADVISE)
		for (size_t i = 0; i < w->nsample; i++) {
			int fd = open(w->sample[i], O_RDONLY | O_CLOEXEC);

			if (fd < 0)
				continue;
			(void)fdatasync(fd);
			(void)posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
			close(fd);
		}
	t0 = gd__probe_now();
	for (size_t i = 0; i < w->nsample; i++) {
		int fd = open(w->sample[i], O_RDONLY | O_CLOEXEC | (mode == GD_PROBE_CACHE_DIRECT ? O_DIRECT : 0));
		long long got;

		fd = fd < 0 ? -errno : fd;
		if (fd == -ENOENT)  /* removed since the walk */
			continue;
		if (fd < 0) {
			gd__probe_set(&r->small, GD_PROBE_FAILED, "%s: %s", w->sample[i], strerror(-fd));
			return;
		}
		got = read_all(fd, buf, bufsz, w->sample_size[i]);
		close(fd);
		if (got < 0) {
			gd__probe_set(&r->small, GD_PROBE_FAILED, "%s: read: %s", w->sample[i], strerror((int)-got));
			return;
		}
		bytes += (uint64_t)got;
		n++;
		if (gd__probe_now() - t0 >= o->budget_s)
			break;
	}
	spent = gd__probe_now() - t0;
	r->small_cache = mode;
	r->small_n = n;
	r->small_bytes = bytes;
	r->small_s = spent;
	if (!n || spent <= 0) {
		gd__probe_set(&r->small, GD_PROBE_FAILED, "no small file could be read");
		return;
	}
	r->small_files_s = n / spent;
	r->small_mb_s = (double)bytes / spent / 1e6;
	gd__probe_ok(&r->small);
}

static void result_clear(struct gd_probe_storage_result *r, const char *dir)
{
	memset(r, 0, sizeof *r);
	snprintf(r->dir, sizeof r->dir, "%s", dir);
	r->seq_mb_s = r->seq_s = NAN;
	r->rnd_lat_us = r->rnd_p50_us = r->rnd_p99_us = r->rnd_iops = NAN;
	r->small_files_s = r->small_mb_s = r->small_s = NAN;
	r->epoch_read_s = r->epoch_open_s = NAN;
	r->walk_complete = true;
	gd__probe_set(&r->seq, GD_PROBE_NOT_RUN, "not reached");
	gd__probe_set(&r->rnd, GD_PROBE_NOT_RUN, "not reached");
	gd__probe_set(&r->small, GD_PROBE_NOT_RUN, "not reached");
}

int gd_probe_storage(const char *dir, const struct gd_probe_host_opts *opts, struct gd_probe_storage_result *r)
{
	struct gd_probe_host_opts o;
	struct walk w;
	void *buf = NULL;
	size_t bufsz;
	int dfd;

	if (!dir || !r)
		return -EINVAL;
	gd__probe_opts(opts, &o);
	result_clear(r, dir);
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0) {
		gd__probe_set(&r->avail, GD_PROBE_UNAVAILABLE, "%s: %s", dir, strerror(errno));
		gd__probe_set(&r->seq, GD_PROBE_UNAVAILABLE, "%s", r->avail.why);
		gd__probe_set(&r->rnd, GD_PROBE_UNAVAILABLE, "%s", r->avail.why);
		gd__probe_set(&r->small, GD_PROBE_UNAVAILABLE, "%s", r->avail.why);
		return 0;
	}
	gd_probe_storage_fs(dir, &o, r);
	memset(&w, 0, sizeof w);
	w.o = &o;
	w.r = r;
	w.rng = o.seed * 0x9E3779B97F4A7C15ull | 1;
	w.deadline = gd__probe_now() + 10 * o.budget_s;
	w.sample = gd_xcalloc(o.small_sample, sizeof *w.sample);
	w.sample_size = gd_xcalloc(o.small_sample, sizeof *w.sample_size);
	walk_dir(&w, dfd, dir, 0);
	gd__probe_ok(&r->avail);

	bufsz = (size_t)((o.small_max_bytes + BLK - 1) / BLK * BLK);
	if (bufsz < SEQ_BLOCK)
		bufsz = SEQ_BLOCK;
	if (posix_memalign(&buf, BLK, bufsz) != 0) {
		gd__probe_set(&r->avail, GD_PROBE_FAILED, "no memory for a %zu-byte buffer", bufsz);
	} else {
		seq_probe(&w, buf, r);
		rnd_probe(&w, buf, r);
		small_probe(&w, buf, bufsz, r);
	}
	if (r->seq.state == GD_PROBE_OK && r->seq_mb_s > 0)
		r->epoch_read_s = (double)r->bytes / (r->seq_mb_s * 1e6);
	if (r->small.state == GD_PROBE_OK && r->small_files_s > 0)
		r->epoch_open_s = (double)r->files / r->small_files_s;
	free(buf);
	for (size_t i = 0; i < w.nbig; i++)
		free(w.big[i].path);
	for (size_t i = 0; i < w.nsample; i++)
		free(w.sample[i]);
	free(w.sample);
	free(w.sample_size);
	return 0;
}
