#include "core/nofile.h"

rlim_t gd_nofile_raise(rlim_t want)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
		return 0;
	if (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < want) {
		struct rlimit up = rl;

		up.rlim_cur = rl.rlim_max == RLIM_INFINITY || rl.rlim_max > want ? want : rl.rlim_max;
		if (setrlimit(RLIMIT_NOFILE, &up) == 0)
			rl = up;
	}
	return rl.rlim_cur;
}
