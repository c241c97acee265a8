/*
 * tests/nvidia/abi_compare.c - compares the two columns abi_side.c built
 * from our header and NVIDIA's: one line per difference, naming the member
 * or value.  Arguments: labels whose difference is expected (each given
 * with its reason in abi.sh); an expected difference that is not there is
 * a failure too, so the list cannot go stale.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

extern const unsigned long long abi_ours[], abi_theirs[];

static const char *const labels[] = {
#define ITEM(label, ours, theirs) label,
#include "items.h"
};

int main(int argc, char **argv)
{
	size_t n = sizeof labels / sizeof labels[0];
	int bad = 0;

	for (int a = 1; a < argc; a++) {
		bool found = false;

		for (size_t i = 0; i < n; i++)
			found |= strcmp(labels[i], argv[a]) == 0 && abi_ours[i] != abi_theirs[i];
		if (!found) {
			printf("FAIL %s: listed as an expected difference, but there is none\n", argv[a]);
			bad = 1;
		}
	}
	for (size_t i = 0; i < n; i++) {
		bool expected = false;

		for (int a = 1; a < argc; a++)
			expected |= strcmp(labels[i], argv[a]) == 0;
		if (abi_ours[i] == abi_theirs[i])
			continue;
		printf("%s %s: ours %llu, NVIDIA's %llu\n", expected ? "expected" : "FAIL", labels[i], abi_ours[i],
		       abi_theirs[i]);
		bad |= !expected;
	}
	printf("%zu quantities compared\n", n);
	return bad;
}
