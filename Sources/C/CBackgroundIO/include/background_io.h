#ifndef THUMBD_BACKGROUND_IO_H
#define THUMBD_BACKGROUND_IO_H

/// Puts the calling thread last in line for the CPU (nice 19) and for the disk (the idle I/O
/// class, which the kernel's mq-deadline and BFQ schedulers serve only when no other request
/// waits). Returns a bit set: 1 when the CPU priority took, 2 when the I/O class took; 0 elsewhere.
int thumbd_run_thread_in_background(void);

/// Whether every page of `length` bytes of the open file `fd` from `offset` (a multiple of the
/// page size) is in the page cache: 1 yes, 0 no, -1 when it cannot tell (errno set). Reads nothing.
/// Linux answers only for a file the caller owns or may write (else it says "all cached"): the
/// cache's owner made its index, so it gets the true answer.
int thumbd_file_range_is_cached(int fd, long long offset, long long length);

#endif
