/*
 * pci_acs.h - pure helpers of sys_bus_pci_acs.c (the ACS registers of the
 * bridges above GPUs and NICs, and their IOMMU groups) and of the offline
 * readers that give the same evidence (lspci -vvv's ACSCtl lines,
 * nvidia-smi topo -m).  No I/O here: exposed for the unit tests and the
 * fuzzer.
 */
#ifndef GD_COLLECT_PCI_ACS_H
#define GD_COLLECT_PCI_ACS_H

#include <stddef.h>
#include <stdint.h>

#include "core/err.h"

#define GD_PCI_EXT_CAP_ACS 0x000d

/* ACS capability and control bits (the same in both registers, FACTS.md 7.2). */
#define GD_ACS_SV 0x01   /* SrcValid */
#define GD_ACS_TB 0x02   /* TransBlk */
#define GD_ACS_RR 0x04   /* ReqRedir: P2P Request Redirect */
#define GD_ACS_CR 0x08   /* CmpltRedir: P2P Completion Redirect */
#define GD_ACS_UF 0x10   /* UpstreamFwd */
#define GD_ACS_EC 0x20   /* EgressCtrl */
#define GD_ACS_DT 0x40   /* DirectTrans */
#define GD_ACS_REDIRECT (GD_ACS_RR | GD_ACS_CR)

/*
 * Finds the ACS extended capability in a function's config space, as read
 * from /sys/bus/pci/devices/<bdf>/config (little-endian; extended
 * capabilities from offset 0x100, each header: id bits 15:0, version 19:16,
 * next offset 31:20, 0 ending the list).  Returns 1 and sets *cap and *ctl
 * (the 16-bit registers at +4 and +6), 0 when the list holds no ACS (or
 * there is no list: a header of 0 or all ones), -ENODATA when len does not
 * reach the extended space (an unprivileged read gives 64 bytes, a
 * conventional function 256), or -EINVAL when the list is malformed (an
 * offset below 0x100, not dword-aligned, past len, or a loop); err says why.
 */
int gd_pci_acs_find(const uint8_t *cfg, size_t len, uint16_t *cap, uint16_t *ctl, struct gd_err *err);

/* The same walk over a config space of len bytes read through rd, one
 * dword (little-endian) at offset off at a time: only the headers along
 * the list and the ACS registers are read (the collector's pread of a
 * sysfs config file).  rd returns 0 or -errno, which the walk returns with
 * err naming the offset. */
typedef int (*gd_pci_cfg_read_fn)(void *arg, size_t off, uint32_t *v);
int gd_pci_acs_walk(gd_pci_cfg_read_fn rd, void *arg, size_t len, uint16_t *cap, uint16_t *ctl, struct gd_err *err);

/* Writes lspci's words for the bits set in v ("ReqRedir+ CmpltRedir+"),
 * only the set ones, blank-separated; "" when none. */
void gd_acs_bits_text(uint64_t v, char *out, size_t outsz);

#endif
