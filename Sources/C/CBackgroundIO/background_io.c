#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/resource.h>
#ifdef __linux__
#include <sys/syscall.h>
#endif
#include "background_io.h"

#ifdef __linux__
/* From the kernel's uapi linux/ioprio.h, which glibc does not wrap. */
#define THUMBD_IOPRIO_WHO_PROCESS 1
#define THUMBD_IOPRIO_CLASS_IDLE 3
#define THUMBD_IOPRIO_CLASS_SHIFT 13
#endif

int thumbd_run_thread_in_background(void) {
#ifdef __linux__
    int took = 0;
    pid_t thread = (pid_t)syscall(SYS_gettid);
    /* On Linux a thread id names one thread to setpriority and ioprio_set, not its process. */
    if (setpriority(PRIO_PROCESS, (id_t)thread, 19) == 0) took |= 1;
    if (syscall(SYS_ioprio_set, THUMBD_IOPRIO_WHO_PROCESS, thread,
                THUMBD_IOPRIO_CLASS_IDLE << THUMBD_IOPRIO_CLASS_SHIFT) == 0) took |= 2;
    return took;
#else
    return 0;
#endif
}

int thumbd_file_range_is_cached(int fd, long long offset, long long length) {
    if (length <= 0) return 1;
    long page = sysconf(_SC_PAGESIZE);
    if (page <= 0 || offset < 0 || offset % page != 0) { errno = EINVAL; return -1; }
    size_t pages = (size_t)((length + page - 1) / page);
    void *mapped = mmap(NULL, (size_t)length, PROT_READ, MAP_SHARED, fd, (off_t)offset);
    if (mapped == MAP_FAILED) return -1;
    unsigned char *resident = malloc(pages);
    int answer = -1;
    if (resident && mincore(mapped, (size_t)length, resident) == 0) {
        answer = 1;
        for (size_t i = 0; i < pages; i++) {
            if (!(resident[i] & 1)) { answer = 0; break; }
        }
    }
    int saved = errno;
    free(resident);
    munmap(mapped, (size_t)length);
    errno = saved;
    return answer;
}
