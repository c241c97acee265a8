/*
 * gz.h - gzip members for /metrics (zlib), for clients that send
 * Accept-Encoding: gzip, as Prometheus does.
 *
 * The published evidence is compressed once per collection cycle; the few
 * lines rendered per scrape (the exporter's own metrics) become a second,
 * small member in front of it.  A gzip stream may hold several members one
 * after another (RFC 1952 §2.2), and decoders (Go's compress/gzip, gzip -d,
 * curl) read them as one body.
 */
#ifndef GD_SERVE_GZ_H
#define GD_SERVE_GZ_H

#include <stddef.h>

/* Compresses data[0..len) into one gzip member at zlib level `level` with a
 * window of 2^window_bits bytes and zlib's memLevel mem_level (a small
 * window and memLevel keep deflate's state at a few KiB).  Returns a
 * malloc'd member and sets *out_len, or NULL when zlib fails. */
char *gd_gz_member(const char *data, size_t len, int level, int window_bits, int mem_level, size_t *out_len);

#endif
