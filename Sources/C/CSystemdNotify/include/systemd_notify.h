#ifndef THUMBD_SYSTEMD_NOTIFY_H
#define THUMBD_SYSTEMD_NOTIFY_H

/*
 * sd_notify(3)'s wire protocol without linking libsystemd: the service manager names a datagram
 * socket in NOTIFY_SOCKET, and the service sends it newline-separated assignments such as
 * "READY=1" or "STATUS=listening". A path starting with '@' is in the Linux abstract namespace
 * (the '@' stands for the leading NUL byte).
 */

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Sends `state` as one datagram to $NOTIFY_SOCKET.
 * Returns 1 when sent, 0 when NOTIFY_SOCKET is unset or empty (not run by systemd), or a
 * negative errno: -EAFNOSUPPORT for an address that is neither a path nor '@name' (systemd's
 * vsock: form, for instance), -ENAMETOOLONG, or what socket/sendto said.
 */
int thumbd_sd_notify(const char *state);

/* 1 when NOTIFY_SOCKET is set and not empty: a service manager wants to be told. */
int thumbd_sd_notify_socket_is_set(void);

/*
 * The receiving side, for tests: binds a datagram socket at `address` (a path, or '@name') and
 * returns its descriptor (close-on-exec), or a negative errno.
 */
int thumbd_sd_notify_listen(const char *address);

/*
 * Waits up to `timeout_ms` for one datagram on `fd` and copies it into `buffer` (at most
 * `capacity` bytes, not NUL-terminated). Returns its length, 0 when none came in time, or a
 * negative errno.
 */
long thumbd_sd_notify_receive(int fd, char *buffer, size_t capacity, int timeout_ms);

#ifdef __cplusplus
}
#endif

#endif
