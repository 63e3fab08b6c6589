#include "common/build_info.hpp"

#ifndef ORCH_VERSION
#define ORCH_VERSION "0.0.0"
#endif
#ifndef ORCH_GIT_COMMIT
#define ORCH_GIT_COMMIT ""
#endif
#ifndef ORCH_BUILD_TIME
#define ORCH_BUILD_TIME ""
#endif

namespace orch {

BuildInfo GetBuildInfo() {
    return {ORCH_VERSION, ORCH_GIT_COMMIT, ORCH_BUILD_TIME};
}

}  // namespace orch
