// Linux interfaces the ticker sleeps on, which Swift's Glibc module does not import.
#include <sys/timerfd.h>
#include <sys/signalfd.h>
#include <sys/inotify.h>
