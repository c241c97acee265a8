/*
 * peer.h - who holds the far end of a TCP connection on this host: the
 * user id of the server's socket, asked of the kernel (NETLINK_SOCK_DIAG,
 * an exact lookup by the connection's four addresses and ports), so a
 * client that trusts only one service (the Slurm helper asking `serve`
 * through `check --npd --serve-user`) can tell that service from a local
 * user who bound its port while it was down.
 *
 * An accepted socket carries the uid of the process that opened the
 * listening socket (the kernel copies it from the listener), so the answer
 * names whoever bound the port.  Only sockets in this network namespace
 * can be found: a server elsewhere (another host, a pod's namespace) is
 * "not found", never trusted.
 */
#ifndef GD_FLEET_PEER_H
#define GD_FLEET_PEER_H

#include <stddef.h>
#include <stdint.h>

#include "core/err.h"

/* The uid of the socket at peer_ip:peer_port connected to local_ip:local_port
 * (numeric IPv4 or IPv6 addresses, as libcurl reports them); 0 with *uid set,
 * negative with err set (-ENOENT: no such connection here, -EAGAIN: still
 * being set up, -EINVAL: not an address). */
int gd_tcp_peer_uid(const char *peer_ip, int peer_port, const char *local_ip, int local_port, uint32_t *uid,
		    struct gd_err *err);

/* Parses the kernel's answer to that lookup (a netlink message stream);
 * exposed for the tests and the fuzzer.  0 with *uid set, negative with err
 * set for an error message, a half answer, a socket still in SYN-RECV
 * (its uid is not known yet: -EAGAIN) or no answer. */
int gd_peer_uid_parse(const void *buf, size_t len, uint32_t *uid, struct gd_err *err);

#endif
