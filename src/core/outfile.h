/*
 * outfile.h - the one way gpudoctor opens a file it writes (snapshot -o,
 * record -o, report -o, probe -o, fleet --html).
 *
 * What it writes holds process names, command lines (redacted, redact.h)
 * and the host's layout, and it often runs as root in a shared directory:
 *   - a new file is created with mode 0600 (O_CREAT | O_EXCL: never an
 *     existing one by mistake), before the umask;
 *   - an existing file is opened without following a symbolic link at its
 *     name (O_NOFOLLOW): a link planted there (to /etc/shadow, say) is
 *     refused with ELOOP, and nothing is written through it;
 *   - an existing regular file keeps its mode and owner, and is appended
 *     to or emptied as the command asks; a device or FIFO (/dev/null, a
 *     named pipe) is written as it is.
 */
#ifndef GD_CORE_OUTFILE_H
#define GD_CORE_OUTFILE_H

#include <stdbool.h>
#include <stdio.h>

/* The mode of a file gpudoctor creates. */
#define GD_OUTFILE_MODE 0600

/* Opens path for writing as above: appended to when append, else emptied.
 * Returns a descriptor (O_CLOEXEC) or -errno (-ELOOP: a symbolic link). */
int gd_outfile_open(const char *path, bool append);

/* The same as a stdio stream; NULL with errno set. */
FILE *gd_outfile_fopen(const char *path, bool append);

/* Why opening failed, for "PATH: why": ELOOP says a link was refused. */
const char *gd_outfile_strerror(int errnum);

#endif
