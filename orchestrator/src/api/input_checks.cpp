#include "orchestrator/api/input_checks.hpp"

#include "common/utf8.hpp"

#include <optional>

namespace orch::api {
namespace {

std::string Join(const std::string& path, const std::string& key) {
    return path.empty() ? key : path + "." + key;
}

// Depth is bounded by ParseJson's nesting limit.
std::optional<std::string> FindNul(const Json& value, const std::string& path) {
    if (value.is_string()) {
        return value.get_ref<const std::string&>().find('\0') != std::string::npos ? std::optional(path) : std::nullopt;
    }
    if (value.is_object()) {
        for (const auto& [key, member] : value.items()) {
            if (key.find('\0') != std::string::npos) {
                return path.empty() ? std::string("(a field name)") : path;
            }
            if (auto found = FindNul(member, Join(path, key))) {
                return found;
            }
        }
    } else if (value.is_array()) {
        std::size_t i = 0;
        for (const auto& element : value) {
            if (auto found = FindNul(element, path + "[" + std::to_string(i++) + "]")) {
                return found;
            }
        }
    }
    return std::nullopt;
}

}  // namespace

Status CheckBodyEncoding(std::string_view body) {
    const std::size_t bad = FindInvalidUtf8(body);
    if (bad == std::string_view::npos) {
        return Ok();
    }
    return Error::InvalidArgument(
        "Could not read document: the request body is not valid UTF-8 (byte " + std::to_string(bad) + ")"
    );
}

Status CheckBodyStrings(const Json& body) {
    if (auto field = FindNul(body, "")) {
        const std::string name = field->empty() ? std::string("(the body)") : *field;
        return Error::InvalidArgument("Field '" + name + "' must not contain NUL characters");
    }
    return Ok();
}

Status CheckCallbackUrl(const http::EgressPolicy* policy, const std::string& url) {
    if (url.empty()) {
        return Ok();
    }
    static const http::EgressPolicy kDefault;
    const auto problem = (policy != nullptr ? *policy : kDefault).FindUrlProblem(url);
    if (!problem) {
        return Ok();
    }
    switch (problem->refusal) {
        case http::UrlRefusal::kNotHttpUrl:
            return Error::InvalidArgument("Callback value, if provided, must be a valid HTTP or HTTPS URL");
        case http::UrlRefusal::kAddressNotAllowed:
            return Error::InvalidArgument("Field 'callback' is refused: " + problem->reason);
    }
    return Error::InvalidArgument("Field 'callback' is refused: " + problem->reason);
}

}  // namespace orch::api
