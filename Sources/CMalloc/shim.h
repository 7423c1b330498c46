// glibc's malloc tuning (mallopt and its M_* parameters), for receipt-server's start (main.swift).
#pragma once
#if defined(__linux__)
#include <malloc.h>
#endif
