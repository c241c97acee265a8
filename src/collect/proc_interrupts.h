/*
 * proc_interrupts.h - the NIC-aware parser of /proc/interrupts.
 *
 * /proc/interrupts alone does not say which IRQs belong to a network card:
 * action names such as "eth0-TxRx-3" carry the interface name, but
 * "mlx5_comp3@pci:0000:17:00.0" or "virtio2-input.0" do not.  The collector
 * therefore first lists each interface's MSI vectors from sysfs and passes
 * them here as owners; gd_parse_proc_interrupts (the registry's entry) is
 * this function with no owners, matching by name only.
 */
#ifndef GD_COLLECT_PROC_INTERRUPTS_H
#define GD_COLLECT_PROC_INTERRUPTS_H

#include <stddef.h>
#include <stdint.h>

#include "core/err.h"
#include "model/snapshot.h"

/* An IRQ known to belong to an interface (from .../msi_irqs/<irq>). */
struct gd_irq_owner {
	uint64_t irq;
	char netif[32];
};

/*
 * Parses /proc/interrupts into s->nic_irqs: one record per (NIC IRQ, CPU)
 * with a non-zero count.  An IRQ is a NIC's when its number is among
 * owners[0..nowners) or when its action name holds the name of an interface
 * already in s->netifs as a whole word (so "eth1" does not match
 * "eth10-rx-0"; interfaces known to be virtual are not matched).
 * Returns 0, 1 (lines skipped; err names the first) or negative.
 */
int gd_parse_proc_interrupts_nics(const char *buf, size_t len, const struct gd_irq_owner *owners, size_t nowners,
				  struct gd_snapshot *s, struct gd_err *err);

#endif
