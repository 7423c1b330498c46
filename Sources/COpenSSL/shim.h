// Shims for OpenSSL's function-like macros, which Swift cannot import directly.
#ifndef RECEIPT_COPENSSL_SHIM_H
#define RECEIPT_COPENSSL_SHIM_H

#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/decoder.h>
#include <openssl/ec.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/objects.h>
#include <openssl/pem.h>
#include <openssl/rsa.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <openssl/x509_vfy.h>

static inline int receipt_sk_X509_num(const STACK_OF(X509) *stack) { return sk_X509_num(stack); }
static inline X509 *receipt_sk_X509_value(const STACK_OF(X509) *stack, int index) { return sk_X509_value(stack, index); }
static inline STACK_OF(X509) *receipt_sk_X509_new_null(void) { return sk_X509_new_null(); }
static inline int receipt_sk_X509_push(STACK_OF(X509) *stack, X509 *cert) { return sk_X509_push(stack, cert); }
static inline void receipt_sk_X509_free(STACK_OF(X509) *stack) { sk_X509_free(stack); }
static inline void receipt_sk_X509_pop_free(STACK_OF(X509) *stack) { sk_X509_pop_free(stack, X509_free); }
static inline long receipt_BIO_get_mem_data(BIO *bio, char **data) { return BIO_get_mem_data(bio, data); }
static inline void receipt_OPENSSL_free(void *pointer) { OPENSSL_free(pointer); }
static inline int receipt_EVP_PKEY_PUBLIC_KEY(void) { return EVP_PKEY_PUBLIC_KEY; }

// Added for the X.509 layer (Certificate, ChainVerifier): composite flag macros Swift cannot import.
static inline unsigned long receipt_XN_FLAG_RFC2253_UTF8(void) { return XN_FLAG_RFC2253 & ~ASN1_STRFLGS_ESC_MSB; }

#endif
