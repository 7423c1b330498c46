// crypto-engines: OpenSSL's libcrypto and Crypto++ side by side, in one process, on the operations this
// project needs: RSA-2048 PKCS#1 v1.5 verification (SHA-256 and SHA-1), SHA-1/SHA-256 of a 6 KB buffer
// (the size of a typical receipt), and ECDSA P-256 verification (StoreKit 2 JWS, ES256).
//
// Both libraries verify the very same signatures: keys and signatures are made once with OpenSSL, the
// public keys handed to Crypto++ as SubjectPublicKeyInfo DER. Every operation is checked for a correct
// answer (a good signature verifies, a tampered one does not, both digests agree) before it is timed.
//
// Timing: for each operation, ROUNDS rounds; in each round both libraries run the operation in a loop for
// SECONDS_PER_ROUND seconds of this thread's CPU time (the order alternates between rounds, so neither
// always runs second on a warmer or busier machine). Reported: the median over rounds of each library's
// mean CPU time per call, and the median over rounds of the ratio of the two within a round.
//
// Usage: crypto-engines [seconds-per-round] [rounds] [receipt...]      (defaults 0.5 and 7)
// Each receipt given is checked, not timed: its signature must get the same answer from both libraries.
// When aprv-purchasingexp-sandbox-2023-02.receipt (the project's benchmark receipt) is among them, OpenSSL's
// decoders and path validation are also timed on it, against its signature check.
//
// Built by ./run; see docs/crypto-engines.md for the results and the decision they support.
//
// Second mode, for scripts/bench-jws (issue 14): crypto-engines jws DIR SECONDS ROUND [cryptopp-first]
// DIR holds what `jws-bench --export` wrote from a real Apple JWS: signing-input, signature (r ‖ s) and
// leaf.der (x5c[0]). Each library checks that signature with the leaf's P-256 key, SHA-256 of the whole signing
// input then the ECDSA verification, on one reused verifier per thread, on 1 and then 2 threads, for SECONDS of
// wall-clock time each. One tab-separated line per measurement:
//   raw  ROUND  LIBRARY  THREADS  CALLS  WALL_SECONDS  PROCESS_CPU_SECONDS

#include <openssl/crypto.h>
#include <openssl/ec.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/objects.h>
#include <openssl/opensslv.h>
#include <openssl/pkcs7.h>
#include <openssl/rand.h>
#include <openssl/rsa.h>
#include <openssl/x509.h>
#include <openssl/x509_vfy.h>
#include <openssl/x509v3.h>

#include <cryptopp/cryptlib.h>
#include <cryptopp/eccrypto.h>
#include <cryptopp/filters.h>
#include <cryptopp/oids.h>
#include <cryptopp/rsa.h>
#include <cryptopp/sha.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <atomic>
#include <chrono>
#include <ctime>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

namespace {

using Bytes = std::vector<unsigned char>;

[[noreturn]] void fail(const char *what) {
    std::fprintf(stderr, "crypto-engines: %s\n", what);
    ERR_print_errors_fp(stderr);
    std::exit(1);
}

void check(bool ok, const char *what) {
    if (!ok) fail(what);
}

// A sink the compiler cannot see through, so no timed call is optimised away.
volatile unsigned long long sink = 0;

double secondsPerRound = 0.5;
int rounds = 7;

// This thread's CPU time in nanoseconds. Like `openssl speed` (which divides by CPU user time unless given
// -elapsed), the loops are timed in CPU time: on a shared 2-core machine, wall-clock time mostly measures
// the other processes.
double threadCPUNanoseconds() {
    timespec ts{};
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0) fail("clock_gettime(CLOCK_THREAD_CPUTIME_ID)");
    return double(ts.tv_sec) * 1e9 + double(ts.tv_nsec);
}

// Mean CPU nanoseconds per call of `op` over a loop of about `secondsPerRound` of CPU time.
double timeOnce(const std::function<bool()> &op) {
    const double budget = secondsPerRound * 1e9;
    unsigned long long calls = 0;
    unsigned long long good = 0;
    const double start = threadCPUNanoseconds();
    double now = start;
    do {
        for (int i = 0; i < 16; ++i) good += op() ? 1 : 0;  // read the clock every 16 calls
        calls += 16;
        now = threadCPUNanoseconds();
    } while (now - start < budget);
    sink = sink + good;
    if (good != calls) fail("an operation gave a wrong answer while being timed");
    return (now - start) / double(calls);
}

double median(std::vector<double> values) {
    std::sort(values.begin(), values.end());
    const size_t n = values.size();
    return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

struct Row {
    std::string what;
    double openssl;   // ns per call, median over rounds
    double cryptopp;  // ns per call, median over rounds
    double ratio;     // median over rounds of (Crypto++ time / OpenSSL time) within the same round
};

std::vector<Row> table;

void measure(const std::string &what, const std::function<bool()> &openssl, const std::function<bool()> &cryptopp) {
    std::vector<double> o, c;
    for (int r = 0; r < rounds; ++r) {
        if (r % 2 == 0) {
            o.push_back(timeOnce(openssl));
            c.push_back(timeOnce(cryptopp));
        } else {
            c.push_back(timeOnce(cryptopp));
            o.push_back(timeOnce(openssl));
        }
    }
    // The ratio is taken within each round (the two loops ran back to back, under the same load) and
    // then its median over rounds: steadier on a shared machine than the ratio of the two medians.
    std::vector<double> ratios;
    for (int r = 0; r < rounds; ++r) ratios.push_back(c[r] / o[r]);
    table.push_back({what, median(o), median(c), median(ratios)});
    std::fprintf(stderr, "  measured: %s\n", what.c_str());
}

Bytes randomBytes(size_t n) {
    Bytes b(n);
    check(RAND_bytes(b.data(), int(n)) == 1, "RAND_bytes");
    return b;
}

Bytes publicKeyDER(EVP_PKEY *key) {
    unsigned char *der = nullptr;
    const int len = i2d_PUBKEY(key, &der);
    check(len > 0, "i2d_PUBKEY");
    Bytes out(der, der + len);
    OPENSSL_free(der);
    return out;
}

Bytes sign(EVP_PKEY *key, const EVP_MD *md, const Bytes &message) {
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    check(ctx != nullptr, "EVP_MD_CTX_new");
    check(EVP_DigestSignInit(ctx, nullptr, md, nullptr, key) == 1, "EVP_DigestSignInit");
    size_t len = 0;
    check(EVP_DigestSign(ctx, nullptr, &len, message.data(), message.size()) == 1, "EVP_DigestSign (size)");
    Bytes sig(len);
    check(EVP_DigestSign(ctx, sig.data(), &len, message.data(), message.size()) == 1, "EVP_DigestSign");
    sig.resize(len);
    EVP_MD_CTX_free(ctx);
    return sig;
}

// OpenSSL, the way the project calls it: digest implementation fetched once, the key's verification
// context initialised once and reused, digest then EVP_PKEY_verify.
struct OpenSSLVerifier {
    EVP_PKEY_CTX *ctx = nullptr;
    EVP_MD *md = nullptr;
    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned int digestLength = 0;

    OpenSSLVerifier(EVP_PKEY *key, const char *mdName, bool rsa) {
        md = EVP_MD_fetch(nullptr, mdName, nullptr);
        check(md != nullptr, "EVP_MD_fetch");
        ctx = EVP_PKEY_CTX_new(key, nullptr);
        check(ctx != nullptr, "EVP_PKEY_CTX_new");
        check(EVP_PKEY_verify_init(ctx) == 1, "EVP_PKEY_verify_init");
        if (rsa) check(EVP_PKEY_CTX_set_rsa_padding(ctx, RSA_PKCS1_PADDING) == 1, "set_rsa_padding");
        check(EVP_PKEY_CTX_set_signature_md(ctx, md) == 1, "set_signature_md");
    }
    bool digestAndVerify(const Bytes &message, const Bytes &sig) {
        if (EVP_Digest(message.data(), message.size(), digest, &digestLength, md, nullptr) != 1) return false;
        return verifyDigest(sig);
    }
    bool verifyDigest(const Bytes &sig) {
        return EVP_PKEY_verify(ctx, sig.data(), sig.size(), digest, digestLength) == 1;
    }
};

template <class PublicKey>
PublicKey cryptoppKey(const Bytes &spki) {
    PublicKey key;
    CryptoPP::ArraySource source(spki.data(), spki.size(), true);
    key.Load(source);  // X509PublicKey: SubjectPublicKeyInfo DER
    return key;
}

// JWS (RFC 7515/7518) carries ES256 signatures as r ‖ s, 32 bytes each (IEEE P1363), which is also
// Crypto++'s format; OpenSSL wants DER. Convert the DER signature OpenSSL produced.
Bytes derToP1363(const Bytes &der) {
    const unsigned char *p = der.data();
    ECDSA_SIG *sig = d2i_ECDSA_SIG(nullptr, &p, long(der.size()));
    check(sig != nullptr, "d2i_ECDSA_SIG");
    Bytes out(64);
    check(BN_bn2binpad(ECDSA_SIG_get0_r(sig), out.data(), 32) == 32, "BN_bn2binpad r");
    check(BN_bn2binpad(ECDSA_SIG_get0_s(sig), out.data() + 32, 32) == 32, "BN_bn2binpad s");
    ECDSA_SIG_free(sig);
    return out;
}

// OpenSSL alone, on one real receipt (Crypto++ has no PKCS#7 or X.509 decoder to compare): what its decoders
// and its path validation cost next to the signature check itself. Returns rows of (what, ns per call).
std::vector<std::pair<std::string, double>> measureOpenSSLDecoding(const Bytes &der) {
    std::vector<std::pair<std::string, double>> rows;
    const unsigned char *p = der.data();
    PKCS7 *p7 = d2i_PKCS7(nullptr, &p, long(der.size()));
    check(p7 != nullptr && PKCS7_type_is_signed(p7), "d2i_PKCS7");
    STACK_OF(X509) *certs = p7->d.sign->cert;
    check(certs != nullptr && sk_X509_num(certs) == 3, "the timed receipt must embed three certificates");
    std::vector<Bytes> certDERs;
    for (int i = 0; i < 3; ++i) {
        unsigned char *out = nullptr;
        const int len = i2d_X509(sk_X509_value(certs, i), &out);
        check(len > 0, "i2d_X509");
        certDERs.emplace_back(out, out + len);
        OPENSSL_free(out);
    }
    STACK_OF(X509) *signers = PKCS7_get0_signers(p7, nullptr, 0);
    check(signers != nullptr && sk_X509_num(signers) == 1, "PKCS7_get0_signers");
    X509 *leaf = sk_X509_value(signers, 0);
    X509 *root = nullptr;
    STACK_OF(X509) *untrusted = sk_X509_new_null();
    for (int i = 0; i < 3; ++i) {
        X509 *c = sk_X509_value(certs, i);
        if (c == leaf) continue;
        if (X509_check_issued(c, c) == X509_V_OK) root = c; else sk_X509_push(untrusted, c);
    }
    check(root != nullptr, "no self-signed root among the embedded certificates");
    X509_STORE *store = X509_STORE_new();
    check(store != nullptr && X509_STORE_add_cert(store, root) == 1, "X509_STORE_add_cert");
    tm notBefore{};
    check(ASN1_TIME_to_tm(X509_get0_notBefore(leaf), &notBefore) == 1, "ASN1_TIME_to_tm");
    const time_t at = timegm(&notBefore) + 86400;  // a day into the leaf's validity: every Apple leaf has expired

    PKCS7_SIGNER_INFO *si = sk_PKCS7_SIGNER_INFO_value(PKCS7_get_signer_info(p7), 0);
    const bool sha1 = OBJ_obj2nid(si->digest_alg->algorithm) == NID_sha1;
    ASN1_OCTET_STRING *content = p7->d.sign->contents->d.data;
    const Bytes payload(content->data, content->data + content->length);
    const Bytes sig(si->enc_digest->data, si->enc_digest->data + si->enc_digest->length);
    OpenSSLVerifier verifier(X509_get0_pubkey(leaf), sha1 ? "SHA1" : "SHA256", true);

    auto verifyChain = [&] {
        X509_STORE_CTX *ctx = X509_STORE_CTX_new();
        bool ok = ctx != nullptr && X509_STORE_CTX_init(ctx, store, leaf, untrusted) == 1;
        if (ok) {
            X509_STORE_CTX_set_time(ctx, 0, at);
            X509_STORE_CTX_set_purpose(ctx, X509_PURPOSE_ANY);
            ok = X509_verify_cert(ctx) == 1;
        }
        X509_STORE_CTX_free(ctx);
        return ok;
    };
    check(verifyChain(), "the receipt's chain does not validate a day into its leaf's validity");
    check(verifier.digestAndVerify(payload, sig), "the receipt's signature does not verify");

    auto medianOf = [](const std::function<bool()> &op) {
        std::vector<double> v;
        for (int r = 0; r < rounds; ++r) v.push_back(timeOnce(op));
        return median(v);
    };
    size_t next = 0;
    rows.push_back({"RSA signature check of this receipt (digest of its payload + EVP_PKEY_verify, reused context)",
                    medianOf([&] { return verifier.digestAndVerify(payload, sig); })});
    rows.push_back({"d2i_X509 of one embedded certificate (mean over the three)", medianOf([&] {
                        const Bytes &c = certDERs[next++ % 3];
                        const unsigned char *q = c.data();
                        X509 *x = d2i_X509(nullptr, &q, long(c.size()));
                        X509_free(x);
                        return x != nullptr;
                    })});
    rows.push_back({"d2i_PKCS7 of the whole receipt (decodes its certificates too)", medianOf([&] {
                        const unsigned char *q = der.data();
                        PKCS7 *x = d2i_PKCS7(nullptr, &q, long(der.size()));
                        PKCS7_free(x);
                        return x != nullptr;
                    })});
    rows.push_back({"X509_verify_cert of the already decoded chain (new X509_STORE_CTX)", medianOf(verifyChain)});

    X509_STORE_free(store);
    sk_X509_free(untrusted);
    sk_X509_free(signers);
    PKCS7_free(p7);
    return rows;
}

Bytes tampered(Bytes b) {
    b[b.size() / 2] ^= 0x01;
    return b;
}

// A real receipt's signature, checked by both libraries over the same bytes: OpenSSL parses the container
// (d2i_PKCS7 reads BER) and hands both the signer's key, the SignerInfo's signature and the eContent bytes.
// Receipts carry no signedAttrs, so the signature is over the content itself. Returns "" when the file is
// not such a receipt.
std::string verifyRealReceipt(const char *path) {
    std::ifstream file(path, std::ios::binary);
    const Bytes der((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
    const unsigned char *p = der.data();
    PKCS7 *p7 = d2i_PKCS7(nullptr, &p, long(der.size()));
    if (p7 == nullptr || !PKCS7_type_is_signed(p7)) { ERR_clear_error(); PKCS7_free(p7); return ""; }
    PKCS7 *content = p7->d.sign->contents;
    STACK_OF(PKCS7_SIGNER_INFO) *infos = PKCS7_get_signer_info(p7);
    STACK_OF(X509) *signers = PKCS7_get0_signers(p7, nullptr, 0);
    if (content == nullptr || !PKCS7_type_is_data(content) || content->d.data == nullptr || infos == nullptr
        || sk_PKCS7_SIGNER_INFO_num(infos) != 1 || signers == nullptr || sk_X509_num(signers) != 1) {
        ERR_clear_error(); sk_X509_free(signers); PKCS7_free(p7); return "";
    }
    PKCS7_SIGNER_INFO *si = sk_PKCS7_SIGNER_INFO_value(infos, 0);
    const int digestNID = OBJ_obj2nid(si->digest_alg->algorithm);
    const Bytes payload(content->d.data->data, content->d.data->data + content->d.data->length);
    const Bytes sig(si->enc_digest->data, si->enc_digest->data + si->enc_digest->length);
    EVP_PKEY *key = X509_get0_pubkey(sk_X509_value(signers, 0));
    check(key != nullptr && EVP_PKEY_get_base_id(key) == EVP_PKEY_RSA, "receipt signer key is not RSA");
    const Bytes spki = publicKeyDER(key);
    const bool sha1 = digestNID == NID_sha1;
    check(sha1 || digestNID == NID_sha256, "receipt digest is neither SHA-1 nor SHA-256");

    OpenSSLVerifier openssl(key, sha1 ? "SHA1" : "SHA256", true);
    const bool osslOK = openssl.digestAndVerify(payload, sig);
    ERR_clear_error();
    const auto publicKey = cryptoppKey<CryptoPP::RSA::PublicKey>(spki);
    auto cppVerifyRSA = [&](const Bytes &message) {
        if (sha1) {
            CryptoPP::RSASS<CryptoPP::PKCS1v15, CryptoPP::SHA1>::Verifier v(publicKey);
            return v.VerifyMessage(message.data(), message.size(), sig.data(), sig.size());
        }
        CryptoPP::RSASS<CryptoPP::PKCS1v15, CryptoPP::SHA256>::Verifier v(publicKey);
        return v.VerifyMessage(message.data(), message.size(), sig.data(), sig.size());
    };
    const bool cppOK = cppVerifyRSA(payload);
    check(osslOK == cppOK, "OpenSSL and Crypto++ disagree on a real receipt's signature");
    // One flipped bit in the payload must fail in both.
    check(!openssl.digestAndVerify(tampered(payload), sig), "OpenSSL accepts a tampered real receipt");
    check(!cppVerifyRSA(tampered(payload)), "Crypto++ accepts a tampered real receipt");
    ERR_clear_error();
    sk_X509_free(signers);
    PKCS7_free(p7);
    char line[160];
    std::snprintf(line, sizeof line, "%s, RSA-%d, payload %zu bytes: %s by both; one flipped bit: rejected by both",
                  sha1 ? "SHA-1" : "SHA-256", int(publicKey.GetModulus().BitCount()), payload.size(),
                  osslOK ? "verified" : "rejected");
    return line;
}

void printTable() {
    std::printf("| operation | OpenSSL µs | Crypto++ µs | OpenSSL /s | Crypto++ /s "
                "| Crypto++ time ÷ OpenSSL time |\n");
    std::printf("|---|---:|---:|---:|---:|---:|\n");
    for (const Row &row : table) {
        std::printf("| %s | %.2f | %.2f | %.0f | %.0f | %.2f |\n", row.what.c_str(), row.openssl / 1000,
                    row.cryptopp / 1000, 1e9 / row.openssl, 1e9 / row.cryptopp, row.ratio);
    }
}

}  // namespace

// ---- mode `jws` (scripts/bench-jws) ----

Bytes readFile(const std::string &path) {
    std::ifstream file(path, std::ios::binary);
    check(file.good(), ("cannot read " + path).c_str());
    return Bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
}

// JWS's r ‖ s (IEEE P1363) as the DER ECDSA-Sig-Value OpenSSL's EVP_PKEY_verify takes.
Bytes p1363ToDER(const Bytes &rs) {
    check(rs.size() == 64, "an ES256 signature has 64 bytes");
    ECDSA_SIG *sig = ECDSA_SIG_new();
    BIGNUM *r = BN_bin2bn(rs.data(), 32, nullptr);
    BIGNUM *s = BN_bin2bn(rs.data() + 32, 32, nullptr);
    check(sig != nullptr && r != nullptr && s != nullptr && ECDSA_SIG_set0(sig, r, s) == 1, "ECDSA_SIG_set0");
    unsigned char *der = nullptr;
    const int len = i2d_ECDSA_SIG(sig, &der);
    check(len > 0, "i2d_ECDSA_SIG");
    Bytes out(der, der + len);
    OPENSSL_free(der);
    ECDSA_SIG_free(sig);
    return out;
}

double processCPUSeconds() {
    timespec ts{};
    if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) != 0) fail("clock_gettime(CLOCK_PROCESS_CPUTIME_ID)");
    return double(ts.tv_sec) + double(ts.tv_nsec) / 1e9;
}

// `threads` threads, each calling its own `op` until `seconds` of wall-clock time have passed; prints one line.
void runThreads(int round, const char *library, int threads, double seconds,
                const std::vector<std::function<bool()>> &ops) {
    std::atomic<bool> go{false};
    std::atomic<unsigned long long> total{0}, wrong{0};
    std::vector<std::thread> pool;
    using Clock = std::chrono::steady_clock;
    Clock::time_point deadline;
    for (int t = 0; t < threads; ++t) {
        pool.emplace_back([&, t] {
            while (!go.load(std::memory_order_acquire)) std::this_thread::yield();
            unsigned long long calls = 0, bad = 0;
            while (Clock::now() < deadline) {
                for (int i = 0; i < 4; ++i) bad += ops[t]() ? 0 : 1;
                calls += 4;
            }
            total += calls;
            wrong += bad;
        });
    }
    const double cpuStart = processCPUSeconds();
    const Clock::time_point start = Clock::now();
    deadline = start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
    go.store(true, std::memory_order_release);
    for (std::thread &thread : pool) thread.join();
    const double wall = std::chrono::duration<double>(Clock::now() - start).count();
    const double cpu = processCPUSeconds() - cpuStart;
    if (wrong != 0) fail("a signature check gave a wrong answer while being timed");
    std::printf("raw\t%d\t%s\t%d\t%llu\t%.6f\t%.6f\n", round, library, threads, total.load(), wall, cpu);
    std::fflush(stdout);
}

int jwsMain(int argc, char **argv) {
    if (argc < 5) fail("usage: crypto-engines jws DIR SECONDS ROUND [cryptopp-first]");
    const std::string dir = argv[2];
    const double seconds = std::atof(argv[3]);
    const int round = std::atoi(argv[4]);
    const bool cryptoppFirst = argc > 5 && std::strcmp(argv[5], "cryptopp-first") == 0;
    const Bytes message = readFile(dir + "/signing-input");
    const Bytes rs = readFile(dir + "/signature");
    const Bytes leafDER = readFile(dir + "/leaf.der");
    const Bytes der = p1363ToDER(rs);

    const unsigned char *p = leafDER.data();
    X509 *leaf = d2i_X509(nullptr, &p, long(leafDER.size()));
    check(leaf != nullptr, "d2i_X509 of leaf.der");
    EVP_PKEY *key = X509_get0_pubkey(leaf);
    check(key != nullptr && EVP_PKEY_get_base_id(key) == EVP_PKEY_EC && EVP_PKEY_get_bits(key) == 256,
          "the leaf's key is not an EC P-256 key");
    const Bytes spki = publicKeyDER(key);

    using ECDSA256 = CryptoPP::ECDSA<CryptoPP::ECP, CryptoPP::SHA256>;
    const auto cppPublic = cryptoppKey<ECDSA256::PublicKey>(spki);
    // One verifier per thread for each library: OpenSSL's context (and this struct's digest buffer) and
    // Crypto++'s verifier with its fastest set-up, base-point and public-key precomputation (docs/crypto-engines.md:
    // about 2.3× faster than as constructed; the key table pays off because Apple's leaf key signs many JWS).
    std::vector<std::unique_ptr<OpenSSLVerifier>> openssl;
    std::vector<std::unique_ptr<ECDSA256::Verifier>> cryptopp;
    for (int t = 0; t < 2; ++t) {
        openssl.push_back(std::make_unique<OpenSSLVerifier>(key, "SHA256", false));
        cryptopp.push_back(std::make_unique<ECDSA256::Verifier>(cppPublic));
        cryptopp.back()->AccessKey().Precompute();
    }
    auto cppVerify = [](const ECDSA256::Verifier &v, const Bytes &m, const Bytes &s) {
        return v.VerifyMessage(m.data(), m.size(), s.data(), s.size());
    };
    // Correctness first: Apple's signature verifies in both, a tampered input or signature in neither.
    for (int t = 0; t < 2; ++t) {
        check(openssl[t]->digestAndVerify(message, der), "OpenSSL rejects Apple's signature");
        check(!openssl[t]->digestAndVerify(tampered(message), der), "OpenSSL accepts a tampered signing input");
        check(cppVerify(*cryptopp[t], message, rs), "Crypto++ rejects Apple's signature");
        check(!cppVerify(*cryptopp[t], tampered(message), rs), "Crypto++ accepts a tampered signing input");
        check(!cppVerify(*cryptopp[t], message, tampered(rs)), "Crypto++ accepts a tampered signature");
    }
    for (int threads = 1; threads <= 2; ++threads) {
        std::vector<std::function<bool()>> o, c;
        for (int t = 0; t < threads; ++t) {
            OpenSSLVerifier *ov = openssl[t].get();
            const ECDSA256::Verifier *cv = cryptopp[t].get();
            o.push_back([ov, &message, &der] { return ov->digestAndVerify(message, der); });
            c.push_back([cv, &message, &rs, cppVerify] { return cppVerify(*cv, message, rs); });
        }
        if (cryptoppFirst) {
            runThreads(round, "Crypto++", threads, seconds, c);
            runThreads(round, "OpenSSL", threads, seconds, o);
        } else {
            runThreads(round, "OpenSSL", threads, seconds, o);
            runThreads(round, "Crypto++", threads, seconds, c);
        }
    }
    X509_free(leaf);
    return 0;
}

int main(int argc, char **argv) {
    if (argc > 1 && std::strcmp(argv[1], "jws") == 0) return jwsMain(argc, argv);
    if (argc > 1) secondsPerRound = std::atof(argv[1]);
    if (argc > 2) rounds = std::atoi(argv[2]);
    if (!(secondsPerRound > 0) || rounds < 1) fail("usage: crypto-engines [seconds-per-round > 0] [rounds >= 1]");

    const Bytes receiptSized = randomBytes(6 * 1024);  // a typical receipt payload is 1-8 KB
    const Bytes shortMessage = randomBytes(32);        // hashing it is negligible: the public-key math dominates
    const Bytes jwsSized = randomBytes(4 * 1024);      // a JWS signing input whose header carries x5c

    // ---- RSA-2048, e = 65537, PKCS#1 v1.5 (what Apple signs receipts with) ----
    EVP_PKEY *rsa = EVP_RSA_gen(2048);
    check(rsa != nullptr, "EVP_RSA_gen");
    const Bytes rsaSPKI = publicKeyDER(rsa);
    const Bytes rsaSig256 = sign(rsa, EVP_sha256(), receiptSized);
    const Bytes rsaSig1 = sign(rsa, EVP_sha1(), receiptSized);
    const Bytes rsaSigShort = sign(rsa, EVP_sha256(), shortMessage);

    OpenSSLVerifier osslRSA256(rsa, "SHA256", true), osslRSA1(rsa, "SHA1", true), osslRSAShort(rsa, "SHA256", true);
    const auto rsaPublic = cryptoppKey<CryptoPP::RSA::PublicKey>(rsaSPKI);
    CryptoPP::RSASS<CryptoPP::PKCS1v15, CryptoPP::SHA256>::Verifier cppRSA256(rsaPublic);
    CryptoPP::RSASS<CryptoPP::PKCS1v15, CryptoPP::SHA1>::Verifier cppRSA1(rsaPublic);

    auto cppVerify = [](const CryptoPP::PK_Verifier &v, const Bytes &m, const Bytes &s) {
        return v.VerifyMessage(m.data(), m.size(), s.data(), s.size());
    };

    // Correctness first: the same signatures verify in both, tampered ones in neither.
    check(osslRSA256.digestAndVerify(receiptSized, rsaSig256), "OpenSSL rejects a good RSA/SHA-256 signature");
    check(!osslRSA256.digestAndVerify(receiptSized, tampered(rsaSig256)), "OpenSSL accepts a tampered signature");
    check(!osslRSA256.digestAndVerify(tampered(receiptSized), rsaSig256), "OpenSSL accepts a tampered message");
    check(osslRSA1.digestAndVerify(receiptSized, rsaSig1), "OpenSSL rejects a good RSA/SHA-1 signature");
    check(osslRSAShort.digestAndVerify(shortMessage, rsaSigShort), "OpenSSL rejects a good short-message signature");
    check(cppVerify(cppRSA256, receiptSized, rsaSig256), "Crypto++ rejects a good RSA/SHA-256 signature");
    check(!cppVerify(cppRSA256, receiptSized, tampered(rsaSig256)), "Crypto++ accepts a tampered signature");
    check(!cppVerify(cppRSA256, tampered(receiptSized), rsaSig256), "Crypto++ accepts a tampered message");
    check(cppVerify(cppRSA1, receiptSized, rsaSig1), "Crypto++ rejects a good RSA/SHA-1 signature");
    check(!cppVerify(cppRSA1, receiptSized, rsaSig256), "Crypto++ accepts a SHA-256 signature as SHA-1");
    check(cppVerify(cppRSA256, shortMessage, rsaSigShort), "Crypto++ rejects a good short-message signature");

    // ---- digests of the 6 KB buffer ----
    EVP_MD *sha256 = EVP_MD_fetch(nullptr, "SHA256", nullptr);
    EVP_MD *sha1 = EVP_MD_fetch(nullptr, "SHA1", nullptr);
    check(sha256 != nullptr && sha1 != nullptr, "EVP_MD_fetch");
    unsigned char osslOut[EVP_MAX_MD_SIZE];
    unsigned int osslLen = 0;
    CryptoPP::SHA256 cppSHA256;
    CryptoPP::SHA1 cppSHA1;
    unsigned char cppOut[32];
    check(EVP_Digest(receiptSized.data(), receiptSized.size(), osslOut, &osslLen, sha256, nullptr) == 1, "EVP_Digest");
    cppSHA256.CalculateDigest(cppOut, receiptSized.data(), receiptSized.size());
    check(osslLen == 32 && std::memcmp(osslOut, cppOut, 32) == 0, "SHA-256 digests differ");
    check(EVP_Digest(receiptSized.data(), receiptSized.size(), osslOut, &osslLen, sha1, nullptr) == 1, "EVP_Digest");
    cppSHA1.CalculateDigest(cppOut, receiptSized.data(), receiptSized.size());
    check(osslLen == 20 && std::memcmp(osslOut, cppOut, 20) == 0, "SHA-1 digests differ");

    // ---- ECDSA P-256 with SHA-256 (ES256) ----
    EVP_PKEY *ec = EVP_EC_gen("P-256");
    check(ec != nullptr, "EVP_EC_gen");
    const Bytes ecSPKI = publicKeyDER(ec);
    const Bytes ecSigShortDER = sign(ec, EVP_sha256(), shortMessage);
    const Bytes ecSigJWSDER = sign(ec, EVP_sha256(), jwsSized);
    const Bytes ecSigShort = derToP1363(ecSigShortDER);
    const Bytes ecSigJWS = derToP1363(ecSigJWSDER);

    OpenSSLVerifier osslECShort(ec, "SHA256", false), osslECJWS(ec, "SHA256", false);
    using ECDSA256 = CryptoPP::ECDSA<CryptoPP::ECP, CryptoPP::SHA256>;
    const auto ecPublic = cryptoppKey<ECDSA256::PublicKey>(ecSPKI);
    ECDSA256::Verifier cppEC(ecPublic);  // as constructed: no precomputation
    ECDSA256::Verifier cppECBase(ecPublic);
    cppECBase.AccessKey().AccessGroupParameters().Precompute();  // base-point table: per curve, any key
    ECDSA256::Verifier cppECKey(ecPublic);
    cppECKey.AccessKey().Precompute();  // base point and this public key: per key

    check(osslECShort.digestAndVerify(shortMessage, ecSigShortDER), "OpenSSL rejects a good ECDSA signature");
    check(!osslECShort.digestAndVerify(tampered(shortMessage), ecSigShortDER), "OpenSSL accepts a tampered message");
    check(osslECJWS.digestAndVerify(jwsSized, ecSigJWSDER), "OpenSSL rejects a good ECDSA signature (4 KB)");
    for (const ECDSA256::Verifier *v : {&cppEC, &cppECBase, &cppECKey}) {
        check(cppVerify(*v, shortMessage, ecSigShort), "Crypto++ rejects a good ECDSA signature");
        check(!cppVerify(*v, tampered(shortMessage), ecSigShort), "Crypto++ accepts a tampered message");
        check(!cppVerify(*v, shortMessage, tampered(ecSigShort)), "Crypto++ accepts a tampered signature");
        check(cppVerify(*v, jwsSized, ecSigJWS), "Crypto++ rejects a good ECDSA signature (4 KB)");
    }

    // ---- timing ----
    measure("RSA-2048 PKCS#1 v1.5 verify, SHA-256, 6 KB message (digest + verify)",
            [&] { return osslRSA256.digestAndVerify(receiptSized, rsaSig256); },
            [&] { return cppVerify(cppRSA256, receiptSized, rsaSig256); });
    measure("RSA-2048 PKCS#1 v1.5 verify, SHA-1, 6 KB message (digest + verify)",
            [&] { return osslRSA1.digestAndVerify(receiptSized, rsaSig1); },
            [&] { return cppVerify(cppRSA1, receiptSized, rsaSig1); });
    measure("RSA-2048 PKCS#1 v1.5 verify, SHA-256, 32-byte message (the RSA math)",
            [&] { return osslRSAShort.digestAndVerify(shortMessage, rsaSigShort); },
            [&] { return cppVerify(cppRSA256, shortMessage, rsaSigShort); });
    auto osslDigest = [&](const EVP_MD *md) {
        const bool ok = EVP_Digest(receiptSized.data(), receiptSized.size(), osslOut, &osslLen, md, nullptr) == 1;
        sink = sink + osslOut[0];
        return ok;
    };
    auto cppDigest = [&](CryptoPP::HashTransformation &hash) {
        hash.CalculateDigest(cppOut, receiptSized.data(), receiptSized.size());
        sink = sink + cppOut[0];
        return true;
    };
    measure("SHA-256 of 6 KB", [&] { return osslDigest(sha256); }, [&] { return cppDigest(cppSHA256); });
    measure("SHA-1 of 6 KB", [&] { return osslDigest(sha1); }, [&] { return cppDigest(cppSHA1); });
    measure("ECDSA P-256 verify, SHA-256, 32-byte message; Crypto++ as constructed",
            [&] { return osslECShort.digestAndVerify(shortMessage, ecSigShortDER); },
            [&] { return cppVerify(cppEC, shortMessage, ecSigShort); });
    measure("ECDSA P-256 verify, SHA-256, 32-byte message; Crypto++ with base-point precomputation",
            [&] { return osslECShort.digestAndVerify(shortMessage, ecSigShortDER); },
            [&] { return cppVerify(cppECBase, shortMessage, ecSigShort); });
    measure("ECDSA P-256 verify, SHA-256, 32-byte message; Crypto++ with base-point and public-key "
            "precomputation",
            [&] { return osslECShort.digestAndVerify(shortMessage, ecSigShortDER); },
            [&] { return cppVerify(cppECKey, shortMessage, ecSigShort); });
    measure("ECDSA P-256 verify, SHA-256, 4 KB message (a JWS with x5c); Crypto++ with base-point "
            "precomputation",
            [&] { return osslECJWS.digestAndVerify(jwsSized, ecSigJWSDER); },
            [&] { return cppVerify(cppECBase, jwsSized, ecSigJWS); });

    std::vector<std::string> realReceipts;
    std::string decodingReceipt;
    std::vector<std::pair<std::string, double>> decodingRows;
    for (int i = 3; i < argc; ++i) {
        const std::string result = verifyRealReceipt(argv[i]);
        const char *slash = std::strrchr(argv[i], '/');
        const std::string name = slash ? slash + 1 : argv[i];
        realReceipts.push_back(name + ": " + (result.empty() ? "not an Apple-shaped signed receipt, skipped" : result));
        // The decoder costs are timed on the receipt the project's benchmarks use, when it is given.
        if (name == "aprv-purchasingexp-sandbox-2023-02.receipt") {
            std::ifstream file(argv[i], std::ios::binary);
            const Bytes der((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
            decodingRows = measureOpenSSLDecoding(der);
            decodingReceipt = name;
        }
    }

    std::printf("OpenSSL: %s (headers %s)\n", OpenSSL_version(OPENSSL_VERSION), OPENSSL_VERSION_TEXT);
    std::printf("Crypto++: library %d, headers %d\n", CryptoPP::LibraryVersion(), CryptoPP::HeaderVersion());
    std::printf("timing: thread CPU time, median of %d rounds of %.2f s per library and operation, libraries "
                "alternating;\nratio: median of the per-round ratios (> 1: Crypto++ is slower)\n\n",
                rounds, secondsPerRound);
    printTable();
    if (!decodingRows.empty()) {
        std::printf("\nOpenSSL alone on %s (%d rounds, median; Crypto++ has no X.509 or PKCS#7 decoder):\n\n",
                    decodingReceipt.c_str(), rounds);
        std::printf("| OpenSSL call | µs | × the signature check |\n|---|---:|---:|\n");
        const double signature = decodingRows[0].second;
        for (const auto &[what, ns] : decodingRows)
            std::printf("| %s | %.2f | %.1f |\n", what.c_str(), ns / 1000, ns / signature);
    }
    if (!realReceipts.empty()) {
        std::printf("\nReal receipts, the signer's RSA signature over eContent checked by both libraries "
                    "(not timed):\n\n");
        for (const std::string &line : realReceipts) std::printf("- %s\n", line.c_str());
    }
    return 0;
}
