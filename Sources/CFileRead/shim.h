// A read that never waits for the disk, which Swift's Glibc module leaves out: verify-local reads a folder's files
// ahead only when one of them turns out not to be in the page cache.
#pragma once
#include <errno.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>
#if defined(__linux__)
#include <sys/syscall.h>
#endif

// Reads like read(2) from the file position, but only what the page cache already holds: -1 with errno EAGAIN when
// the read would wait for the disk. Where the kernel or the file system cannot say (EOPNOTSUPP, EINVAL, ENOSYS, or
// EPERM under a seccomp filter), -1 with that errno; the caller then reads as usual.
//
// The system call itself rather than glibc's preadv2, which needs glibc 2.26 (musl 1.2.5) and a declaration that
// Swift's Glibc module does not expose. Its offset comes in two words; -1 in both is -1 (the file position) on
// every architecture. RWF_NOWAIT is 0x8 (<linux/fs.h>).
static inline ssize_t receipt_read_if_cached(int descriptor, void *buffer, size_t count) {
#if defined(__linux__) && defined(SYS_preadv2)
    struct iovec vector = {buffer, count};
    return (ssize_t)syscall(SYS_preadv2, descriptor, &vector, 1, -1L, -1L, 0x00000008);
#else
    errno = ENOSYS;
    return -1;
#endif
}
