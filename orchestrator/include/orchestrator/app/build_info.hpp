#pragma once

#include <string_view>

namespace orch::app {

/// Facts fixed at build time, served by GET /info.
struct BuildInfo {
    std::string_view version;
    std::string_view git_commit;
    std::string_view build_time;
};

BuildInfo GetBuildInfo();

}  // namespace orch::app
