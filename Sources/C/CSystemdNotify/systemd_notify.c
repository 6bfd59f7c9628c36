/*
 * thumbd's sd_notify. See include/systemd_notify.h for the contract. Kept in C because building
 * a sockaddr_un is pointer work that Swift code outside the codecs must not do.
 */
#include "systemd_notify.h"

#include <errno.h>
#include <poll.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

/*
 * Fills `address` from a NOTIFY_SOCKET-style string and returns the length to pass to
 * bind/sendto, or a negative errno. An abstract name's length must be exact: the kernel counts
 * every byte of sun_path up to that length as part of the name, trailing NULs included.
 */
static int fill_address(const char *text, struct sockaddr_un *address, socklen_t *length) {
    size_t text_length = strlen(text);
    memset(address, 0, sizeof(*address));
    address->sun_family = AF_UNIX;
    if (text[0] == '@') {
        if (text_length < 2) return -EINVAL;
        if (text_length > sizeof(address->sun_path)) return -ENAMETOOLONG;
        memcpy(address->sun_path + 1, text + 1, text_length - 1);
        *length = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + text_length);
        return 0;
    }
    if (text[0] != '/') return -EAFNOSUPPORT;
    /* A path needs its terminating NUL inside sun_path. */
    if (text_length >= sizeof(address->sun_path)) return -ENAMETOOLONG;
    memcpy(address->sun_path, text, text_length);
    *length = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + text_length + 1);
    return 0;
}

/* The address for `text`, and a datagram socket to reach or bind it; the descriptor or a negative errno. */
static int open_datagram_socket(const char *text, struct sockaddr_un *address, socklen_t *length) {
    int status = fill_address(text, address, length);
    if (status < 0) return status;
    int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    return fd < 0 ? -errno : fd;
}

int thumbd_sd_notify_socket_is_set(void) {
    const char *socket_name = getenv("NOTIFY_SOCKET");
    return socket_name != NULL && socket_name[0] != '\0';
}

int thumbd_sd_notify(const char *state) {
    if (!thumbd_sd_notify_socket_is_set()) return 0;
    if (state == NULL) return -EINVAL;

    struct sockaddr_un address;
    socklen_t length;
    int fd = open_datagram_socket(getenv("NOTIFY_SOCKET"), &address, &length);
    if (fd < 0) return fd;
    size_t state_length = strlen(state);
    ssize_t sent;
    do {
        /* MSG_NOSIGNAL: a vanished service manager must not kill the daemon with SIGPIPE. */
        sent = sendto(fd, state, state_length, MSG_NOSIGNAL, (const struct sockaddr *)&address, length);
    } while (sent < 0 && errno == EINTR);
    int saved_errno = errno;
    close(fd);
    if (sent < 0) return -saved_errno;
    /* A datagram is all or nothing, but say so rather than report a short send as success. */
    if ((size_t)sent != state_length) return -EMSGSIZE;
    return 1;
}

int thumbd_sd_notify_listen(const char *address_text) {
    struct sockaddr_un address;
    socklen_t length;
    int fd = open_datagram_socket(address_text, &address, &length);
    if (fd < 0) return fd;
    if (bind(fd, (const struct sockaddr *)&address, length) < 0) {
        int saved_errno = errno;
        close(fd);
        return -saved_errno;
    }
    return fd;
}

long thumbd_sd_notify_receive(int fd, char *buffer, size_t capacity, int timeout_ms) {
    struct pollfd waiting = {.fd = fd, .events = POLLIN};
    int ready;
    do {
        ready = poll(&waiting, 1, timeout_ms);
    } while (ready < 0 && errno == EINTR);
    if (ready < 0) return -errno;
    if (ready == 0) return 0;
    ssize_t received;
    do {
        received = recv(fd, buffer, capacity, MSG_DONTWAIT);
    } while (received < 0 && errno == EINTR);
    return received < 0 ? -errno : (long)received;
}
