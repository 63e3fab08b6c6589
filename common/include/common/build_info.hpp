#pragma once

#include <string_view>

namespace orch {

/// Facts fixed at build time (the project version, commit and build time), served by GET /info
/// and printed by the executables' --version.
struct BuildInfo {
    std::string_view version;
    std::string_view git_commit;
    std::string_view build_time;
};

BuildInfo GetBuildInfo();

}  // namespace orch
