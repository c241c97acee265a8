/*
 * gpu_host.h - pure helpers of the collectors that find GPU evidence without
 * NVML: sys_bus_pci.c (NVIDIA PCI functions and NICs), nvidia_procfs.c (the
 * kernel module's version) and proc_pid_maps.c (the CUDA runtimes GPU jobs
 * map).  Exposed for the unit tests; no I/O here.
 */
#ifndef GD_COLLECT_GPU_HOST_H
#define GD_COLLECT_GPU_HOST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/err.h"
#include "core/tok.h"

#define GD_PCI_VENDOR_NVIDIA 0x10de

/* A PCI link speed file ("16.0 GT/s PCIe", older "8 GT/s", "2.5 GT/s")
 * into GT/s and the PCIe generation.  Returns 0, 1 when the kernel says it
 * does not know ("Unknown", "Unknown speed": nothing set), or -EINVAL. */
int gd_pci_speed_parse(struct gd_slice text, double *gts, uint64_t *gen);

/* The count on the line whose first token is key ("TOTAL_ERR_COR") of an
 * aer_dev_* file (labels may hold spaces: the count is the last token).
 * Returns 0, -ENODATA without that line, -EINVAL when malformed. */
int gd_pci_aer_total(const char *buf, size_t len, const char *key, uint64_t *out, struct gd_err *err);

/* The bridges above a PCI device from the target of its
 * sys/bus/pci/devices/<bdf> link ("../../../devices/pci0000:38/0000:38:03.0/
 * 0000:40:00.0" → "pci0000:38/0000:38:03.0").  False when the link does
 * not point into devices/. */
bool gd_pci_path_of(const char *link, char *out, size_t outsz);

struct gd_root;
struct gd_dirlist;
/* Lists /sys/bus/pci/devices under the root into devs (released by the
 * caller either way).  Returns 0, or the status of the failure with err
 * set ("no PCI bus in sysfs"). */
int gd_pci_list(const struct gd_root *r, struct gd_dirlist *devs, struct gd_err *err);

/* The version in a mapped file's name when it is a CUDA runtime:
 * ".../libcudart.so.12.4.127" → "12.4.127", "libcudart.so.12" → "12",
 * torch's "libcudart-9335f6a2.so.12" → "12".  False for any other file. */
bool gd_cudart_version(struct gd_slice path, char *ver, size_t versz);

/* Whether a mapped file is the CUDA toolkit's stub libcuda (whose every
 * call answers CUDA_ERROR_STUB_LIBRARY, 34) rather than the driver's: a
 * libcuda.so* in a directory named stubs (".../lib64/stubs/libcuda.so",
 * conda's ".../lib/stubs/libcuda.so"), or a file named plain libcuda.so (a
 * stub copied into a system directory).  The driver's library maps as its
 * versioned file (libcuda.so.550.54.15): /proc/<pid>/maps resolves the
 * libcuda.so and libcuda.so.1 links. */
bool gd_cuda_stub_file(struct gd_slice path);

/* Compares two dotted versions numerically ("12.10" > "12.4"); missing
 * parts count as 0.  Returns <0, 0, >0. */
int gd_version_cmp(const char *a, const char *b);

/* The first line of /proc/driver/nvidia/version: version and flavor
 * ("open" for "Open Kernel Module", else "proprietary").  Returns 0 or
 * -EINVAL (err says why). */
int gd_nvidia_version_parse(const char *buf, size_t len, char *version, size_t versz, char *flavor, size_t flsz,
			    struct gd_err *err);

#endif
