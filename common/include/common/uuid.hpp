#pragma once

#include <string>

namespace orch {

/// A random (v4) UUID, lowercase, 36 characters.
std::string RandomUuid();

/// A v4 UUID for identifiers that must be unique but need not be unpredictable (request ids):
/// a per-thread generator seeded once from the system's random source, so no OpenSSL call (and
/// its per-call fork check, a getpid() system call) per id. Never for secrets or tokens.
std::string UniqueUuid();

/// A time-ordered UUID as the original used for deployments: a v1-style id whose time fields
/// are reordered so that ids sort by creation time as strings (e.g. 11ed8ab3-6a40-968a-82b7-62f0862dbe46).
std::string SequentialUuid();

/// True when `text` is 36 characters of lowercase-or-uppercase hex in 8-4-4-4-12 form.
bool LooksLikeUuid(const std::string& text);

}  // namespace orch
