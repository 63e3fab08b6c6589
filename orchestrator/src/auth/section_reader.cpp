#include "auth/section_reader.hpp"

namespace orch::auth {

void SectionReader::Fail(const std::string& key, const std::string& what) {
    if (status_) {
        status_ = Error::InvalidArgument("config key '" + Key(key) + "': " + what);
    }
}

void SectionReader::Bytes(const std::string& key, std::uint64_t min, std::uint64_t max, std::uint64_t& out) {
    std::uint64_t value = out;
    Take(tree_.GetBytes(Key(key), out), value);
    if (status_ && (value < min || value > max)) {
        Fail(key, "must be between " + std::to_string(min) + " and " + std::to_string(max) + " bytes");
        return;
    }
    out = value;
}

void SectionReader::Duration(
    const std::string& key, std::chrono::milliseconds min, std::chrono::milliseconds max, std::chrono::milliseconds& out
) {
    std::chrono::milliseconds value = out;
    Take(tree_.GetDuration(Key(key), out), value);
    if (status_ && (value < min || value > max)) {
        Fail(key, "must be between " + std::to_string(min.count()) + "ms and " + std::to_string(max.count()) + "ms");
        return;
    }
    out = value;
}

void SectionReader::Seconds(const std::string& key, std::chrono::seconds max, std::chrono::seconds& out) {
    std::chrono::milliseconds value = out;
    Take(tree_.GetDuration(Key(key), out), value);
    if (status_ && value > max) {
        Fail(key, "must be at most " + std::to_string(max.count()) + "s");
        return;
    }
    out = std::chrono::duration_cast<std::chrono::seconds>(value);
}

}  // namespace orch::auth
