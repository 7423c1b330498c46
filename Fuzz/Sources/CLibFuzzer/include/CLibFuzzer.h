#ifndef C_LIB_FUZZER_H
#define C_LIB_FUZZER_H

#include <stddef.h>
#include <stdint.h>

// libFuzzer's driver, for programs that have their own `main` (llvm.org/docs/LibFuzzer.html, "Using
// libFuzzer as a library"). It parses libFuzzer's flags from argv and calls `callback` once per input.
// The runtime is linked by `-sanitize=fuzzer`; this header only declares it.
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));

#endif
