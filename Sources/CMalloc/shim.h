// glibc's malloc tuning, shared by the executables (receipt-server's main.swift, verify-local's run).
#pragma once
#if defined(__linux__)
#include <malloc.h>
#include <stdlib.h>

// Keeps blocks up to 4 MiB in the heap and up to 64 MiB of freed memory mapped, instead of glibc's defaults (blocks
// from 128 KiB mapped afresh and unmapped when freed; heaps trimmed past 128 KiB free). Under either executable's
// load those defaults turned every large buffer, and every batch of work on a thread's own heap, into page faults
// and page clearing (BENCHMARKS.md). The cost: the process keeps its peak heap. An operator's own settings
// (GLIBC_TUNABLES, MALLOC_MMAP_THRESHOLD_, MALLOC_TRIM_THRESHOLD_) win: nothing is changed when one is set.
static inline void receipt_keep_freed_memory(void) {
    if (getenv("GLIBC_TUNABLES") || getenv("MALLOC_MMAP_THRESHOLD_") || getenv("MALLOC_TRIM_THRESHOLD_")) {
        return;
    }
    mallopt(M_MMAP_THRESHOLD, 4 * 1024 * 1024);
    mallopt(M_TRIM_THRESHOLD, 64 * 1024 * 1024);
}
#endif
