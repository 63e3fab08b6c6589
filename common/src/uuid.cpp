#include "common/uuid.hpp"

#include <openssl/rand.h>

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <random>

namespace orch {
namespace {

std::array<unsigned char, 16> RandomBytes() {
    std::array<unsigned char, 16> bytes{};
    if (RAND_bytes(bytes.data(), static_cast<int>(bytes.size())) != 1) {
        // OpenSSL's CSPRNG failing is near impossible; fall back rather than crash an id generator.
        std::random_device rd;
        for (auto& b : bytes) {
            b = static_cast<unsigned char>(rd());
        }
    }
    return bytes;
}

std::string Format(const std::array<unsigned char, 16>& b) {
    // By hand rather than snprintf: every request gets an id, and printf showed in its profile.
    static constexpr char kHex[] = "0123456789abcdef";
    std::string out(36, '-');
    std::size_t pos = 0;
    for (std::size_t i = 0; i < b.size(); ++i) {
        if (i == 4 || i == 6 || i == 8 || i == 10) {
            ++pos;  // the dash already there
        }
        out[pos++] = kHex[b[i] >> 4];
        out[pos++] = kHex[b[i] & 0xF];
    }
    return out;
}

// Random bits as a version 4, RFC 4122 variant UUID.
std::string FormatV4(std::array<unsigned char, 16> b) {
    b[6] = static_cast<unsigned char>((b[6] & 0x0F) | 0x40);
    b[8] = static_cast<unsigned char>((b[8] & 0x3F) | 0x80);
    return Format(b);
}

}  // namespace

std::string RandomUuid() {
    return FormatV4(RandomBytes());
}

std::string UniqueUuid() {
    thread_local std::mt19937_64 rng = [] {
        std::random_device rd;
        std::seed_seq seed{rd(), rd(), rd(), rd(), rd(), rd(), rd(), rd()};
        return std::mt19937_64(seed);
    }();
    std::array<unsigned char, 16> b{};
    for (std::size_t half = 0; half < 2; ++half) {
        std::uint64_t bits = rng();
        for (std::size_t i = 0; i < 8; ++i) {
            b[half * 8 + i] = static_cast<unsigned char>(bits & 0xFF);
            bits >>= 8;
        }
    }
    return FormatV4(b);
}

std::string SequentialUuid() {
    // 100-ns intervals since 1582-10-15 (the UUID epoch), made strictly increasing per process.
    static std::atomic<std::uint64_t> last{0};
    constexpr std::uint64_t kGregorianOffset = 0x01B21DD213814000ULL;
    const auto now = std::chrono::system_clock::now().time_since_epoch();
    std::uint64_t ts =
        static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(now).count() / 100) +
        kGregorianOffset;
    std::uint64_t prev = last.load();
    while (true) {
        const std::uint64_t next = ts > prev ? ts : prev + 1;
        if (last.compare_exchange_weak(prev, next)) {
            ts = next;
            break;
        }
    }
    auto b = RandomBytes();
    // Most significant time bits first (time_high+version, time_mid, time_low), so strings sort by time.
    const std::uint64_t high = (ts >> 48) & 0x0FFF;
    const std::uint64_t mid = (ts >> 32) & 0xFFFF;
    const std::uint64_t low = ts & 0xFFFFFFFF;
    b[0] = static_cast<unsigned char>(0x10 | (high >> 8));
    b[1] = static_cast<unsigned char>(high & 0xFF);
    b[2] = static_cast<unsigned char>(mid >> 8);
    b[3] = static_cast<unsigned char>(mid & 0xFF);
    b[4] = static_cast<unsigned char>(low >> 24);
    b[5] = static_cast<unsigned char>((low >> 16) & 0xFF);
    b[6] = static_cast<unsigned char>((low >> 8) & 0xFF);
    b[7] = static_cast<unsigned char>(low & 0xFF);
    b[8] = static_cast<unsigned char>((b[8] & 0x3F) | 0x80);
    return Format(b);
}

bool LooksLikeUuid(const std::string& text) {
    if (text.size() != 36) {
        return false;
    }
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (i == 8 || i == 13 || i == 18 || i == 23) {
            if (c != '-') {
                return false;
            }
        } else if (std::isxdigit(static_cast<unsigned char>(c)) == 0) {
            return false;
        }
    }
    return true;
}

}  // namespace orch
