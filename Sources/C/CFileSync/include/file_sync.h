#ifndef THUMBD_FILE_SYNC_H
#define THUMBD_FILE_SYNC_H

/// Writes back every dirty page and inode of the filesystem that holds the open `fd` (Linux's
/// syncfs), and waits for it. Returns 0, or -1 with errno set (EIO, ENOSPC: a write-back failed
/// since the last call). Elsewhere, where no per-filesystem call exists, it runs sync() and returns 0.
int thumbd_sync_filesystem(int fd);

#endif
