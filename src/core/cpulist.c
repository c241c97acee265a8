/*
 * cpulist.c - "0-3,8-11" CPU lists (see cpulist.h).
 */
#include "core/cpulist.h"

#include <string.h>

/* One item "N" or "N-M" into lo..hi; false when malformed. */
static bool item(struct gd_slice it, uint64_t *lo, uint64_t *hi)
{
	const char *dash = memchr(it.p, '-', it.n);

	if (!dash) {
		if (!gd_tok_u64(it, lo))
			return false;
		*hi = *lo;
	} else {
		struct gd_slice a = { it.p, (size_t)(dash - it.p) };
		struct gd_slice b = { dash + 1, (size_t)(it.p + it.n - dash - 1) };

		if (!gd_tok_u64(a, lo) || !gd_tok_u64(b, hi) || *hi < *lo)
			return false;
	}
	return *hi <= GD_CPULIST_MAX;
}

long gd_cpulist_parse(struct gd_slice s, uint8_t *bits, size_t nbytes)
{
	long count = 0;
	size_t i = 0;

	if (bits)
		memset(bits, 0, nbytes);
	s = gd_tok_trim(s);
	if (s.n == 0)
		return 0;
	while (i <= s.n) {
		const char *c = memchr(s.p + i, ',', s.n - i);
		size_t end = c ? (size_t)(c - s.p) : s.n;
		struct gd_slice it = { s.p + i, end - i };
		uint64_t lo, hi;

		if (it.n == 0 || !item(it, &lo, &hi))
			return -1;
		for (uint64_t cpu = lo; cpu <= hi; cpu++)
			if (bits && cpu / 8 < nbytes)
				bits[cpu / 8] |= (uint8_t)(1u << (cpu % 8));
		count += (long)(hi - lo + 1);
		i = end + 1;
	}
	return count;
}

bool gd_cpulist_valid(struct gd_slice s)
{
	return gd_cpulist_parse(s, NULL, 0) >= 0;
}
