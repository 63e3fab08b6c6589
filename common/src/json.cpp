#include "common/json.hpp"

#include <algorithm>
#include <charconv>

namespace orch {

Result<Json> ParseJson(std::string_view text, int max_depth) {
    // The SAX callback sees every nesting step, so deep documents are refused before they are built.
    int depth = 0;
    bool too_deep = false;
    const Json::parser_callback_t limit = [&](int d, Json::parse_event_t event, Json&) {
        if (event == Json::parse_event_t::object_start || event == Json::parse_event_t::array_start) {
            depth = d;
            if (d >= max_depth) {
                too_deep = true;
            }
        }
        return !too_deep;
    };
    Json out = Json::parse(text.begin(), text.end(), limit, /*allow_exceptions=*/false);
    if (too_deep) {
        return Error::InvalidArgument("JSON nesting deeper than " + std::to_string(max_depth) + " levels");
    }
    if (out.is_discarded()) {
        // Re-run with exceptions only to obtain the position; this is the error path.
        try {
            [[maybe_unused]] const Json ignored = Json::parse(text.begin(), text.end());
        } catch (const Json::parse_error& e) {
            return Error::InvalidArgument("malformed JSON at byte " + std::to_string(e.byte) + ": " + e.what());
        } catch (const Json::exception& e) {
            // e.g. out_of_range for a number like 1e99999 (found by tests/fuzz request_fuzz).
            return Error::InvalidArgument(std::string("malformed JSON: ") + e.what());
        }
        return Error::InvalidArgument("malformed JSON");
    }
    (void)depth;
    return out;
}

Result<std::optional<bool>> ReadLenientBool(const Json& object, std::string_view field) {
    const auto it = object.find(field);
    if (it == object.end() || it->is_null()) {
        return std::optional<bool>();
    }
    if (it->is_boolean()) {
        return std::optional<bool>(it->get<bool>());
    }
    if (it->is_number()) {
        return std::optional<bool>(it->get<double>() != 0);
    }
    if (it->is_string()) {
        std::string s = it->get<std::string>();
        std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
        if (s == "true") {
            return std::optional<bool>(true);
        }
        if (s == "false") {
            return std::optional<bool>(false);
        }
    }
    return Error::InvalidArgument("Field '" + std::string(field) + "' must be a boolean");
}

Result<std::optional<std::int64_t>> ReadLenientInt(const Json& object, std::string_view field) {
    const auto it = object.find(field);
    if (it == object.end() || it->is_null()) {
        return std::optional<std::int64_t>();
    }
    if (it->is_number_integer()) {
        return std::optional<std::int64_t>(it->get<std::int64_t>());
    }
    if (it->is_number_float()) {
        const double d = it->get<double>();
        if (d == static_cast<double>(static_cast<std::int64_t>(d))) {
            return std::optional<std::int64_t>(static_cast<std::int64_t>(d));
        }
    }
    if (it->is_string()) {
        const std::string s = it->get<std::string>();
        std::int64_t value = 0;
        auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
        if (ec == std::errc() && ptr == s.data() + s.size() && !s.empty()) {
            return std::optional<std::int64_t>(value);
        }
    }
    return Error::InvalidArgument("Field '" + std::string(field) + "' must be an integer");
}

Result<std::optional<std::string>> ReadString(const Json& object, std::string_view field) {
    const auto it = object.find(field);
    if (it == object.end() || it->is_null()) {
        return std::optional<std::string>();
    }
    if (!it->is_string()) {
        return Error::InvalidArgument("Field '" + std::string(field) + "' must be a string");
    }
    return std::optional<std::string>(it->get<std::string>());
}

}  // namespace orch
