// What a folder child costs by the way it is made (issue 31): the CPU, the parent's and the child's, of one
// child that answers over a socket and exits, made by fork() (what FolderChild does) or by clone(CLONE_VM)
// (sharing the parent's memory: no page tables copied, no copy-on-write faults afterwards; the child can then
// run only code that touches no memory the parent uses: raw system calls). The parent holds as much written
// memory as `planner open` has when it forks (HEAP_KIB) and writes POST_PAGES of it after the child is made,
// as `open` does (its transaction's pages, its heap).
//
//   cc -O2 -o /tmp/child_cost bench/child_cost.c && /tmp/child_cost [HEAP_KIB [POST_PAGES [ROUNDS]]]
#define _GNU_SOURCE
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static int sockets[2];

// The child's whole work in the clone(CLONE_VM) case: one raw system call, no libc state (errno is shared).
static int vm_child(void *arg) {
    (void)arg;
    char byte = 1;
    syscall(SYS_write, sockets[1], &byte, 1);
    syscall(SYS_exit, 0);
    return 0;
}

static double cpu_ms(void) {
    struct rusage self, children;
    getrusage(RUSAGE_SELF, &self);
    getrusage(RUSAGE_CHILDREN, &children);
    return (self.ru_utime.tv_sec + self.ru_stime.tv_sec + children.ru_utime.tv_sec + children.ru_stime.tv_sec) * 1e3 +
           (self.ru_utime.tv_usec + self.ru_stime.tv_usec + children.ru_utime.tv_usec + children.ru_stime.tv_usec) / 1e3;
}

int main(int argc, char **argv) {
    long heap_kib = argc > 1 ? atol(argv[1]) : 2048;
    long post_pages = argc > 2 ? atol(argv[2]) : 135;
    int rounds = argc > 3 ? atoi(argv[3]) : 2000;
    size_t size = (size_t)heap_kib * 1024;
    char *heap = malloc(size);
    memset(heap, 1, size);
    char *stack = malloc(64 * 1024);
    for (int mode = 0; mode < 3; mode++) {
        double start = cpu_ms();
        for (int i = 0; i < rounds; i++) {
            socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sockets);
            pid_t pid = 0;
            if (mode == 1) {
                pid = fork();
                if (pid == 0) {
                    char byte = 1;
                    write(sockets[1], &byte, 1);
                    _exit(0);
                }
            } else if (mode == 2) {
                pid = clone(vm_child, stack + 64 * 1024, CLONE_VM | SIGCHLD, NULL);
            }
            char byte;
            if (mode != 0) read(sockets[0], &byte, 1);
            for (long p = 0; p < post_pages && p * 4096 < (long)size; p++) heap[p * 4096] += 1;
            if (mode != 0) waitpid(pid, NULL, 0);
            close(sockets[0]);
            close(sockets[1]);
        }
        printf("%-22s %.1f us CPU a round (parent and child; %ld KiB written before, %ld pages after)\n",
               mode == 0 ? "no child" : mode == 1 ? "fork()" : "clone(CLONE_VM)", (cpu_ms() - start) * 1e3 / rounds, heap_kib,
               post_pages);
    }
    return 0;
}
