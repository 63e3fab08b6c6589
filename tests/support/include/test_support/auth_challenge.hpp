#pragma once

#include "common/error.hpp"
#include "common/http_client.hpp"
#include "common/http_error.hpp"

#include <string>

namespace orch::test {

/// The WWW-Authenticate value the one error mapping (HttpErrorFor) sends for `error`, "" when none.
inline std::string ChallengeFor(const Error& error) {
    return http::FindHeader(HttpErrorFor(error, "").headers, "WWW-Authenticate");
}

}  // namespace orch::test
