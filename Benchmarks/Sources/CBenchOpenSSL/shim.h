// The libcrypto headers the benchmark's baseline measurements use.
#ifndef BENCH_COPENSSL_SHIM_H
#define BENCH_COPENSSL_SHIM_H

#include <openssl/evp.h>
#include <openssl/rsa.h>
#include <openssl/x509.h>
#include <openssl/crypto.h>
#include <openssl/bn.h>
#include <openssl/ec.h>

#endif
