#include "common/http_client.hpp"

#include <cctype>

namespace orch::http {

std::string FindHeader(const Headers& headers, std::string_view name) {
    for (const auto& [key, value] : headers) {
        if (key.size() == name.size() && std::equal(key.begin(), key.end(), name.begin(), [](char a, char b) {
                return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b));
            })) {
            return value;
        }
    }
    return {};
}

Result<Url> ParseUrl(const std::string& text) {
    Url url;
    const auto scheme_end = text.find("://");
    if (scheme_end == std::string::npos) {
        return Error::InvalidArgument("URL '" + text + "' has no scheme");
    }
    url.scheme = text.substr(0, scheme_end);
    for (auto& c : url.scheme) {
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
    if (url.scheme != "http" && url.scheme != "https") {
        return Error::InvalidArgument("URL '" + text + "': only http and https are supported");
    }
    const auto authority_start = scheme_end + 3;
    const auto path_start = text.find_first_of("/?#", authority_start);
    std::string authority = text.substr(authority_start, path_start - authority_start);
    if (const auto at = authority.rfind('@'); at != std::string::npos) {
        authority = authority.substr(at + 1);  // userinfo is never sent; credentials go in headers
    }
    if (!authority.empty() && authority.front() == '[') {
        const auto close = authority.find(']');
        if (close == std::string::npos) {
            return Error::InvalidArgument("URL '" + text + "': bad IPv6 host");
        }
        url.host = authority.substr(1, close - 1);
        if (close + 1 < authority.size() && authority[close + 1] == ':') {
            url.port = authority.substr(close + 2);
        }
    } else if (const auto colon = authority.rfind(':'); colon != std::string::npos) {
        url.host = authority.substr(0, colon);
        url.port = authority.substr(colon + 1);
    } else {
        url.host = authority;
    }
    if (url.host.empty()) {
        return Error::InvalidArgument("URL '" + text + "' has no host");
    }
    if (url.port.empty()) {
        url.port = url.scheme == "https" ? "443" : "80";
    }
    for (char c : url.port) {
        if (std::isdigit(static_cast<unsigned char>(c)) == 0) {
            return Error::InvalidArgument("URL '" + text + "' has a bad port");
        }
    }
    url.target = path_start == std::string::npos ? "/" : text.substr(path_start);
    if (const auto hash = url.target.find('#'); hash != std::string::npos) {
        url.target.resize(hash);
    }
    if (url.target.empty() || url.target.front() != '/') {
        url.target.insert(0, "/");
    }
    return url;
}

std::string UrlEncode(std::string_view text) {
    static constexpr char kHex[] = "0123456789ABCDEF";
    std::string out;
    out.reserve(text.size());
    for (char ch : text) {
        const auto c = static_cast<unsigned char>(ch);
        if (std::isalnum(c) != 0 || c == '-' || c == '_' || c == '.' || c == '~') {
            out.push_back(ch);
        } else {
            out.push_back('%');
            out.push_back(kHex[c >> 4]);
            out.push_back(kHex[c & 0xF]);
        }
    }
    return out;
}

std::string UrlDecode(std::string_view text, bool plus_is_space) {
    std::string out;
    out.reserve(text.size());
    for (std::size_t i = 0; i < text.size(); ++i) {
        if (text[i] == '+' && plus_is_space) {
            out.push_back(' ');
        } else if (text[i] == '%' && i + 2 < text.size() && std::isxdigit(static_cast<unsigned char>(text[i + 1])) != 0 && std::isxdigit(static_cast<unsigned char>(text[i + 2])) != 0) {
            out.push_back(static_cast<char>(std::stoi(std::string(text.substr(i + 1, 2)), nullptr, 16)));
            i += 2;
        } else {
            out.push_back(text[i]);
        }
    }
    return out;
}

}  // namespace orch::http
