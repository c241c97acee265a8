/*
 * nofile.h - the process's limit of open files (RLIMIT_NOFILE).
 *
 * A run that lasts (serve, watch, record) holds the files it reads every
 * cycle open (collect.h: the tiered walk's held files).  systemd and most
 * shells start a process with a soft limit of 1,024 under a hard limit
 * far above it (524,288 since systemd 240), and leave it to a program that
 * needs more, and uses no select(2), to raise its own soft limit: this one
 * polls its sockets with epoll and spawns nothing from those commands.
 */
#ifndef GD_CORE_NOFILE_H
#define GD_CORE_NOFILE_H

#include <sys/resource.h>

/* What serve, watch and record ask for: the tiered walk's GD_HELD_MAX files
 * and its reserve of 1,024 for everything else (proc_pid.c), and room. */
#define GD_NOFILE_WANT 4096

/* Raises the soft limit to min(want, the hard limit), never lowers it.
 * Returns the soft limit in force afterwards (RLIM_INFINITY: none). */
rlim_t gd_nofile_raise(rlim_t want);

#endif
