#pragma once

#include "common/error.hpp"

#include <optional>
#include <string>

namespace orch::auth {

/// The WWW-Authenticate value for an auth error (RFC 6750 §3), or nullopt when none applies:
/// 401 without a token → `Bearer realm="oauth"`; other 401s → `Bearer realm="oauth",
/// error="invalid_token", error_description="..."`; scope 403s → `Bearer realm="oauth",
/// error="insufficient_scope", error_description="...", scope="..."`. Texts are reduced to the
/// characters RFC 6750 allows in these quoted strings.
std::optional<std::string> WwwAuthenticateFor(const Error& error);

}  // namespace orch::auth
