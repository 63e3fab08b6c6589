#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <stop_token>
#include <string>
#include <string_view>
#include <vector>

namespace orch::connectors {

/// One program to run with hard bounds: it gets no stdin, its stdout and stderr are merged and
/// kept up to `output_cap` bytes (the first and the last half; the middle is dropped and counted),
/// and its whole process group is killed when the time limit passes or the run is cancelled.
struct ProcessSpec {
    std::string program;            ///< absolute path or a name looked up in PATH
    std::vector<std::string> args;  ///< without the program name
    std::vector<std::string> env;   ///< the complete environment, "NAME=value"
    std::string cwd;
    std::chrono::milliseconds time_limit{60'000};
    std::size_t output_cap = 256 * 1024;
    /// When set, called on the reading thread with each line of the output as it arrives (before
    /// the cap applies: progress is seen even in the dropped middle); a line over `max_line`
    /// bytes is skipped whole, never buffered.
    std::function<void(std::string_view line)> on_line;
    std::size_t max_line = 8 * 1024;
};

struct ProcessOutcome {
    bool started = false;  ///< false: the program could not be started (`output` says why)
    int exit_code = -1;    ///< exit status; 128 + signal when killed by a signal
    bool timed_out = false;
    bool cancelled = false;
    std::string output;  ///< bounded as described above
};

/// Runs `spec` to completion (or until stopped) and waits for the child; blocks the caller.
ProcessOutcome RunBounded(const ProcessSpec& spec, const std::stop_token& stop);

}  // namespace orch::connectors
