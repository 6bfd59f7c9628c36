#define _GNU_SOURCE
#include <unistd.h>
#include "file_sync.h"

int thumbd_sync_filesystem(int fd) {
#ifdef __linux__
    return syncfs(fd);
#else
    (void)fd;
    sync();
    return 0;
#endif
}
