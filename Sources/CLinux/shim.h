// Linux interfaces the ticker sleeps on, which Swift's Glibc module does not import.
#include <sys/timerfd.h>
#include <sys/signalfd.h>
#include <sys/inotify.h>
#include <malloc.h>  // malloc_trim: an idle ticker gives freed heap back
#include <sys/syscall.h>
#include <errno.h>
#include <unistd.h>

/// pidfd_open(2) has no glibc wrapper before 2.36 and `syscall` is variadic, which Swift cannot call.
/// A pidfd becomes readable when the child exits, so a delivery in flight is one more fd in the
/// ticker's poll set. -1 (ENOSYS) on kernels before 5.3.
static inline int clinux_pidfd_open(pid_t pid) {
#ifdef SYS_pidfd_open
    return (int)syscall(SYS_pidfd_open, pid, 0);
#else
    return -1;
#endif
}

/// syncfs(2) is declared only under _GNU_SOURCE: the calendar folder makes a batch of new files durable
/// with one call instead of one fsync each.
static inline int clinux_syncfs(int fd) {
#ifdef SYS_syncfs
    return (int)syscall(SYS_syncfs, fd);
#else
    return fsync(fd);
#endif
}

#include <stdio.h>

/// Flushes stdout; non-zero when any of its output failed (a full disk, a closed pipe). Swift 6 cannot
/// name C's `stdout` global without a concurrency warning-as-error.
static inline int clinux_stdout_failed(void) {
    return fflush(stdout) != 0 || ferror(stdout) != 0;
}

/// renameat2(2) with RENAME_EXCHANGE through the raw syscall (glibc declares it only under _GNU_SOURCE):
/// the calendar folder swaps its new file in and looks at what came out, so a tick renamed in by
/// vdirsyncer a moment earlier is put back, never overwritten. -1 with EINVAL where a file system
/// cannot exchange.
static inline int clinux_rename_exchange(int olddirfd, const char *oldpath, int newdirfd, const char *newpath) {
#ifdef SYS_renameat2
    return (int)syscall(SYS_renameat2, olddirfd, oldpath, newdirfd, newpath, 2 /* RENAME_EXCHANGE */);
#else
    errno = ENOSYS;
    return -1;
#endif
}

/// Closes every descriptor from `first` up: close_range(2) where the kernel has it (5.9), else one by one
/// up to the limit. The folder child keeps nothing of its parent's open.
static inline void clinux_close_from(int first) {
#ifdef SYS_close_range
    if (syscall(SYS_close_range, (unsigned)first, ~0U, 0) == 0) return;
#endif
    long limit = sysconf(_SC_OPEN_MAX);
    for (long fd = first; fd < (limit > 0 && limit < 65536 ? limit : 65536); fd++) close((int)fd);
}

#include <fcntl.h>

/// Open file description locks (declared only under _GNU_SOURCE): the live ticker's sign that it watches its
/// database, a write lock on the first byte of its lock file beside its flock, which `planner open` tests with
/// F_OFD_GETLK. A test takes nothing, so it never makes a ticker starting at that moment fail its own lock.
#ifndef F_OFD_GETLK
#define F_OFD_GETLK 36
#define F_OFD_SETLK 37
#endif

/// Takes (`take` non-zero) or drops the write lock on the first byte. 0, or -1 with errno.
static inline int clinux_ofd_lock_first_byte(int fd, int take) {
    struct flock lock = {0};
    lock.l_type = take ? F_WRLCK : F_UNLCK;
    lock.l_whence = SEEK_SET;
    lock.l_start = 0;
    lock.l_len = 1;
    return fcntl(fd, F_OFD_SETLK, &lock);
}

/// 1 when another open file description holds a write lock on the first byte, 0 when none, -1 on error.
static inline int clinux_ofd_first_byte_locked(int fd) {
    struct flock lock = {0};
    lock.l_type = F_RDLCK;
    lock.l_whence = SEEK_SET;
    lock.l_start = 0;
    lock.l_len = 1;
    if (fcntl(fd, F_OFD_GETLK, &lock) != 0) return -1;
    return lock.l_type == F_WRLCK;
}

#include <sys/auxv.h>

/// The path `execve` was given for this program (AT_EXECFN), or NULL: the planner's own file, also under
/// valgrind, where /proc/self/exe names valgrind's tool.
static inline const char *clinux_execfn(void) {
    return (const char *)getauxval(AT_EXECFN);
}
