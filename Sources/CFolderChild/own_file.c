// See own_file.h. Everything the child runs is in this file and makes raw system calls (`sys`): a child made
// by clone(CLONE_VM) shares the parent's memory and its thread pointer, so it must not touch errno, malloc or
// any other state of the C library or the Swift runtime while the parent runs on. It uses its own stack and
// its own mapped memory (`struct region`, never freed while it lives), and the socket.
#define _GNU_SOURCE
#include "own_file.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || __has_feature(memory_sanitizer)
#define SANITIZED 1  // the compiler then puts its runtime's calls into every function, the child's too
#endif
#endif

#if defined(__x86_64__) && !defined(SANITIZED)
#define RAW_CHILD 1
// Valgrind (bench/budget_check.sh counts instructions under it) cannot run a clone(CLONE_VM) child that is not
// a thread: it ends the process. Its documented client request (valgrind.h, RUNNING_ON_VALGRIND: a no-op on
// a real CPU) says when the child must be forked instead.
static int under_valgrind(void) {
    volatile unsigned long args[6] = {0x1001, 0, 0, 0, 0, 0};
    volatile unsigned long result = 0;
    __asm__ volatile("rolq $3,  %%rdi ; rolq $13, %%rdi\n\t"
                     "rolq $61, %%rdi ; rolq $51, %%rdi\n\t"
                     "xchgq %%rbx,%%rbx"
                     : "=d"(result)
                     : "a"(&args[0]), "0"(result)
                     : "cc", "memory");
    return result != 0;
}
static long sys(long n, long a, long b, long c, long d, long e, long f) {
    long ret;
    register long r10 __asm__("r10") = d;
    register long r8 __asm__("r8") = e;
    register long r9 __asm__("r9") = f;
    __asm__ volatile("syscall" : "=a"(ret) : "a"(n), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9) : "rcx", "r11", "memory");
    return ret;
}
#else
// Elsewhere (another architecture, not yet tried; a sanitizer's build) the steps run in a forked child or in
// the process itself, where the C library's wrapper is safe.
#define RAW_CHILD 0
static int under_valgrind(void) { return 0; }
static long sys(long n, long a, long b, long c, long d, long e, long f) {
    long ret = syscall(n, a, b, c, d, e, f);
    return ret < 0 ? -errno : ret;
}
#endif

#define SYS1(n, a) sys(n, (long)(a), 0, 0, 0, 0, 0)
#define SYS2(n, a, b) sys(n, (long)(a), (long)(b), 0, 0, 0, 0)
#define SYS3(n, a, b, c) sys(n, (long)(a), (long)(b), (long)(c), 0, 0, 0)
#define SYS4(n, a, b, c, d) sys(n, (long)(a), (long)(b), (long)(c), (long)(d), 0, 0)

// The wire form (FolderChild's `Wire`): 8-byte little-endian integers.
static unsigned char *put(unsigned char *out, int64_t value) {
    for (int i = 0; i < 8; i++) out[i] = (unsigned char)((uint64_t)value >> (8 * i));
    return out + 8;
}

static int64_t got(const unsigned char *in) {
    uint64_t value = 0;
    for (int i = 0; i < 8; i++) value |= (uint64_t)in[i] << (8 * i);
    return (int64_t)value;
}

static long answer(unsigned char *out, int64_t a, int64_t b, int64_t c, int count) {
    unsigned char *at = put(out, a);
    if (count > 1) at = put(at, b);
    if (count > 2) at = put(at, c);
    return at - out;
}

// Reasons a file is refused (`OwnFile.Opened.refused`: the words are the parent's).
enum { FIFO = 1, LINK = 2, UNOPENABLE = 3, FOLDER = 4, NOT_REGULAR = 5, OTHER_USER = 6, HARD_LINKS = 7 };

long own_file_open(const char *folder, const char *name, long lock_wait_ms, int *dir, int *fd, unsigned char *out) {
    long d = SYS4(SYS_openat, AT_FDCWD, folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0);
    if (d < 0) return answer(out, 1, -d, 0, 2);
    *dir = (int)d;
    long f = SYS4(SYS_openat, d, name, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0644);
    if (f < 0) {
        switch (-f) {
        case ENXIO: return answer(out, 3, FIFO, 0, 3);
        case ELOOP: return answer(out, 3, LINK, 0, 3);
        case EACCES:
        case EPERM: return answer(out, 3, UNOPENABLE, -f, 3);
        case EISDIR: return answer(out, 3, FOLDER, 0, 3);
        default: return answer(out, 2, -f, 0, 2);
        }
    }
    *fd = (int)f;
    struct stat info;
    long r = SYS2(SYS_fstat, f, &info);
    if (r < 0) return answer(out, 2, -r, 0, 2);
    if ((info.st_mode & S_IFMT) != S_IFREG) return answer(out, 3, NOT_REGULAR, 0, 3);
    long uid = SYS1(SYS_geteuid, 0);
    if ((long)info.st_uid != uid) return answer(out, 3, OTHER_USER, info.st_uid, 3);
    if (info.st_nlink != 1) return answer(out, 3, HARD_LINKS, (int64_t)info.st_nlink, 3);
    // Two planner commands of this device publishing at once take turns; a lock held longer by another
    // program is a busy folder, not a wait.
    // Until a deadline, not a count of pauses: on a busy machine each pause runs over (50 ms of them took 58).
    int locked = 0;
    struct timespec start, now;
    SYS2(SYS_clock_gettime, CLOCK_MONOTONIC, &start);
    for (;;) {
        r = SYS2(SYS_flock, f, LOCK_EX | LOCK_NB);
        if (r == 0) {
            locked = 1;
            break;
        }
        if (r != -EWOULDBLOCK && r != -EINTR) break;
        SYS2(SYS_clock_gettime, CLOCK_MONOTONIC, &now);
        long elapsed_ms = (now.tv_sec - start.tv_sec) * 1000 + (now.tv_nsec - start.tv_nsec) / 1000000;
        if (elapsed_ms + 10 > lock_wait_ms) break;
        struct timespec pause = {0, 10 * 1000 * 1000};
        SYS4(SYS_clock_nanosleep, CLOCK_MONOTONIC, 0, &pause, 0);
    }
    if (!locked) return answer(out, 4, 0, 0, 1);
    // The lock may have been waited for: the size as it is now.
    r = SYS2(SYS_fstat, f, &info);
    if (r < 0) return answer(out, 2, -r, 0, 2);
    return answer(out, 0, info.st_size, 0, 2);
}

long own_file_append(const unsigned char *text, long count, int fd, int dir, unsigned char *out) {
    long done = 0;
    while (done < count) {
        long n = SYS3(SYS_write, fd, text + done, count - done);
        if (n == -EINTR || n == -EAGAIN) continue;
        if (n <= 0) return answer(out, 1, n < 0 ? -n : EIO, 0, 2);
        done += n;
    }
    long r = 0;
    if (count > 0) {
        r = SYS1(SYS_fsync, fd);
        if (r == 0) r = SYS1(SYS_fsync, dir);
    }
    struct stat info;
    if (r == 0) r = SYS2(SYS_fstat, fd, &info);
    if (r < 0) return answer(out, 1, -r, 0, 2);
    return answer(out, 0, info.st_size, (int64_t)info.st_mtim.tv_sec * 1000000000 + info.st_mtim.tv_nsec, 3);
}

// ---- the child

#define STACK_BYTES (64 * 1024)

struct region {
    size_t size;
    int socket;
    long lock_wait_ms;
    char *folder;
    char *name;
    // then the two strings, then the stack (growing down from the end).
};

static void child_exit(void) {
    for (;;) SYS1(SYS_exit, 0);
}

static int send_all(int socket, const unsigned char *bytes, long count) {
    while (count > 0) {
        long n = sys(SYS_sendto, socket, (long)bytes, count, MSG_NOSIGNAL, 0, 0);
        if (n == -EINTR) continue;
        if (n <= 0) return 0;
        bytes += n;
        count -= n;
    }
    return 1;
}

static int receive_all(int socket, unsigned char *bytes, long count) {
    while (count > 0) {
        long n = sys(SYS_recvfrom, socket, (long)bytes, count, 0, 0, 0);
        if (n == -EINTR) continue;
        if (n <= 0) return 0;
        bytes += n;
        count -= n;
    }
    return 1;
}

// One message: its length, then its bytes (FolderChild.send).
static int send_message(int socket, const unsigned char *bytes, long count) {
    unsigned char header[8];
    put(header, count);
    return send_all(socket, header, 8) && send_all(socket, bytes, count);
}

static int child_main(void *argument) {
    struct region *region = argument;
    // Nothing of the parent's is kept open but the socket, as descriptor 3 (FolderChild.child says why).
    long null = SYS4(SYS_openat, AT_FDCWD, "/dev/null", O_RDWR, 0);
    for (int fd = 0; fd <= 2; fd++)
        if (null >= 0 && null != fd) SYS3(SYS_dup3, null, fd, 0);
    if (region->socket != 3) SYS3(SYS_dup3, region->socket, 3, 0);
    // Without close_range (before Linux 5.9, or refused by a system call filter): one by one, as far as
    // clinux_close_from goes.
    if (SYS3(SYS_close_range, 4, ~0U, 0) < 0)
        for (int fd = 4; fd < 65536; fd++) SYS1(SYS_close, fd);
    // No signal of the parent's is blocked, and none runs the parent's handler (its code, on memory the
    // parent is using): each is as a new process has it. SIGPIPE never comes (MSG_NOSIGNAL).
    for (int signal = 1; signal <= 64; signal++) {
        if (signal == SIGKILL || signal == SIGSTOP) continue;
        // The kernel's sigaction: handler, flags, restorer, mask. Stored one by one: an initializer becomes a
        // call to memset in a build without optimisation (the C library, which the child must not call).
        volatile long action[4];
        for (int i = 0; i < 4; i++) action[i] = 0;  // SIG_DFL is 0
        SYS4(SYS_rt_sigaction, signal, action, 0, 8);
    }
    uint64_t none = 0;
    SYS4(SYS_rt_sigprocmask, SIG_SETMASK, &none, 0, 8);

    int dir = -1, fd = -1;
    unsigned char out[OWN_FILE_ANSWER];
    long n = own_file_open(region->folder, region->name, region->lock_wait_ms, &dir, &fd, out);
    unsigned char header[8];
    if (!send_message(3, out, n) || !receive_all(3, header, 8)) child_exit();
    int64_t count = got(header);
    if (count < 0 || count >= (int64_t)1 << 30) child_exit();
    // The text to append, in memory of the child's own (never the parent's: it may be gone or reused). Mapped
    // in the address space the parent shares, so unmapped before the child exits (a ticker publishes for days).
    long text = 0;
    if (count > 0) {
        text = sys(SYS_mmap, 0, count, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (text < 0 && text > -4096) child_exit();
        if (!receive_all(3, (unsigned char *)text, count)) {
            SYS2(SYS_munmap, text, count);
            child_exit();
        }
    }
    n = own_file_append((const unsigned char *)text, count, fd, dir, out);
    if (count > 0) SYS2(SYS_munmap, text, count);
    // The answer, then the file's lock held until the parent has recorded it (its end of the socket closes).
    if (send_message(3, out, n)) receive_all(3, header, 1);
    child_exit();
    return 0;
}

pid_t own_file_child(const char *folder, const char *name, long lock_wait_ms, int socket, void **region_out) {
    size_t folder_bytes = strlen(folder) + 1, name_bytes = strlen(name) + 1;
    size_t size = (sizeof(struct region) + folder_bytes + name_bytes + 15) / 16 * 16 + STACK_BYTES;
    void *memory = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (memory == MAP_FAILED) return -errno;
    struct region *region = memory;
    region->size = size;
    region->socket = socket;
    region->lock_wait_ms = lock_wait_ms;
    region->folder = (char *)(region + 1);
    region->name = region->folder + folder_bytes;
    memcpy(region->folder, folder, folder_bytes);
    memcpy(region->name, name, name_bytes);
    *region_out = memory;
    pid_t pid = -1;
    if (RAW_CHILD && !under_valgrind()) {
        // The parent's end of the socket is closed in the child with the rest (close_range).
        pid = clone(child_main, (char *)memory + size, CLONE_VM | SIGCHLD, region);
    }
    // Under valgrind, on another architecture, or where clone(CLONE_VM) fails: an ordinary child, same code.
    if (pid < 0) {
        pid = fork();
        if (pid == 0) child_main(region);
    }
    if (pid < 0) {
        int why = errno;
        munmap(memory, size);
        *region_out = NULL;
        return -why;
    }
    return pid;
}

void own_file_child_free(void *memory) {
    if (memory != NULL) munmap(memory, ((struct region *)memory)->size);
}
