// SwiftPM builds a C target only from a source file; the declaration in include/ is all this target provides.
#include "CLibFuzzer.h"
