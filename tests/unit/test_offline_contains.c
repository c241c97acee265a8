/*
 * test_offline_contains.c - ofl_contains (src/offline/util.c), which finds
 * the first byte with memchr in both cases before comparing the rest, says
 * what strncasecmp at every offset said: random haystacks over a small
 * alphabet (both cases, digits, punctuation, NUL and a byte above 0x7f),
 * needles cut from them or made up, matches at both ends and whole.
 */
#include "testutil.h"

#include <stdio.h>
#include <strings.h>

#include "offline/ofl.h"

static bool naive(struct gd_slice s, const char *lit)
{
	size_t n = strlen(lit);

	for (size_t i = 0; n && i + n <= s.n; i++)
		if (strncasecmp(s.p + i, lit, n) == 0)
			return true;
	return false;
}

static void test_contains_as_strncasecmp(void **state)
{
	static const char alpha[] = "aAbBxX -:0_\x01\xe2\0";
	unsigned seed = 16;
	size_t found = 0;

	(void)state;
	for (int round = 0; round < 200000; round++) {
		char hay[40], lit[8];
		size_t hn, ln;
		struct gd_slice s;

		seed = seed * 1103515245u + 12345u;
		hn = (seed >> 16) % sizeof hay;
		for (size_t i = 0; i < hn; i++) {
			seed = seed * 1103515245u + 12345u;
			hay[i] = alpha[(seed >> 16) % (sizeof alpha - 1)];
		}
		seed = seed * 1103515245u + 12345u;
		ln = 1 + (seed >> 16) % 5;
		seed = seed * 1103515245u + 12345u;
		if (hn >= ln && (seed >> 16) % 2) {
			size_t at = (seed >> 8) % (hn - ln + 1);

			memcpy(lit, hay + at, ln);   /* a piece of the haystack, its case flipped here and there */
			for (size_t i = 0; i < ln; i++)
				if (((seed >> (i + 3)) & 1) && lit[i] >= 'a' && lit[i] <= 'z')
					lit[i] = (char)(lit[i] - 'a' + 'A');
		} else {
			for (size_t i = 0; i < ln; i++) {
				seed = seed * 1103515245u + 12345u;
				lit[i] = alpha[(seed >> 16) % (sizeof alpha - 2)];   /* no NUL: it ends the literal */
			}
		}
		lit[ln] = '\0';
		s.p = hay;
		s.n = hn;
		if (ofl_contains(s, lit) != naive(s, lit))
			fail_msg("round %d: ofl_contains(\"%.*s\", \"%s\") = %d", round, (int)hn, hay, lit, !naive(s, lit));
		found += naive(s, lit);
	}
	assert_true(found > 10000);   /* both answers were tried often */
	{
		struct gd_slice s = { "NVIDIA-SMI has failed", 21 };

		assert_true(ofl_contains(s, "nvidia-smi has FAILED"));
		assert_true(ofl_contains(s, "failed"));
		assert_false(ofl_contains(s, "failed!"));
		assert_false(ofl_contains(s, ""));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_contains_as_strncasecmp),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
