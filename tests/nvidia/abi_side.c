/*
 * tests/nvidia/abi_side.c - one side of the layout comparison of abi.sh:
 * compiled twice, once with our header (-DABI_OURS) and once with NVIDIA's,
 * each its own translation unit, so neither header sees the other.  Each
 * evaluates its column of the generated X-macro table (items.h, from
 * abi_gen.py) into an array that compare.c reads.
 */
#include <stddef.h>
#include ABI_HEADER

#ifdef ABI_OURS
#define ITEM(label, ours, theirs) (unsigned long long)(ours),
const unsigned long long abi_ours[] = {
#else
#define ITEM(label, ours, theirs) (unsigned long long)(theirs),
const unsigned long long abi_theirs[] = {
#endif
#include "items.h"
};
