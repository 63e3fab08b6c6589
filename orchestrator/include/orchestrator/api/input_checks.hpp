#pragma once

#include "common/egress_policy.hpp"
#include "common/json.hpp"
#include "common/result.hpp"

#include <string>
#include <string_view>

namespace orch::api {

/// The raw body of a JSON request: 400 unless UTF-8 (RFC 8259), naming the byte offset.
Status CheckBodyEncoding(std::string_view body);

/// A parsed JSON body: 400 naming the field ("template", "parameters.x") of the first string,
/// key included, that holds a NUL ("\u0000"): stored through C APIs or PostgreSQL it would be cut
/// or refused, so what is stored would not be what was validated.
Status CheckBodyStrings(const Json& body);

/// A callback URL at create/update time, the one check of it (through the egress policy): 400 with
/// the contract's text unless a valid http(s) URL, 400 naming the field unless its host, when it
/// is a literal address, is one the policy lets through. `policy` null: the default policy
/// (public addresses only). Hosts are checked again on every resolution when called.
Status CheckCallbackUrl(const http::EgressPolicy* policy, const std::string& url);

}  // namespace orch::api
