// One file notification matched against N schedules' fileExpressions: cached compiled
// expressions (FileExpressionCache, as ScheduleEventService uses it) against compiling each
// expression per notification (the baseline, measured in this same run). Prints mean ms per
// notification and the ratio; also the default cache size (1024) when N exceeds it.
#include "orchestrator/schedule/file_expression.hpp"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

template <typename F>
double MeanMs(int iterations, F&& notify) {
    const auto start = Clock::now();
    for (int i = 0; i < iterations; ++i) {
        notify();
    }
    return std::chrono::duration<double, std::milli>(Clock::now() - start).count() / iterations;
}

long RssKiB() {
    std::ifstream status("/proc/self/status");
    std::string key;
    long value = 0;
    while (status >> key) {
        if (key == "VmRSS:") {
            status >> value;
            return value;
        }
    }
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    const int schedules = argc > 1 ? std::atoi(argv[1]) : 10000;
    const int iterations = argc > 2 ? std::atoi(argv[2]) : 20;
    std::vector<std::string> expressions;
    expressions.reserve(static_cast<std::size_t>(std::max(0, schedules)));
    for (int i = 0; i < schedules; ++i) {
        expressions.push_back("user\\.u" + std::to_string(i) + ":(raw|reco)/run_\\d+\\.root");
    }
    const std::string did = "user.u" + std::to_string(schedules / 2) + ":reco/run_000123.root";
    int matches = 0;
    const auto scan = [&](auto&& match) {
        matches = 0;
        for (const auto& e : expressions) {
            matches += match(e) ? 1 : 0;
        }
    };

    const double baseline = MeanMs(iterations, [&] {
        scan([&](const std::string& e) {
            const auto compiled = orch::schedule::CompileFileExpression(e);
            return compiled && (*compiled)->FullMatch(did);
        });
    });
    const int baseline_matches = matches;

    const long rss_before = RssKiB();
    orch::schedule::FileExpressionCache large(static_cast<std::size_t>(schedules));
    scan([&](const std::string& e) { return large.Matches(e, did); });  // warm: compiled once
    const long cache_kib = RssKiB() - rss_before;
    const double cached =
        MeanMs(iterations, [&] { scan([&](const std::string& e) { return large.Matches(e, did); }); });
    const int cached_matches = matches;

    orch::schedule::FileExpressionCache bounded;  // the service's default capacity
    scan([&](const std::string& e) { return bounded.Matches(e, did); });
    const double default_cache =
        MeanMs(iterations, [&] { scan([&](const std::string& e) { return bounded.Matches(e, did); }); });

    if (baseline_matches != 1 || cached_matches != 1 || matches != 1) {
        std::fprintf(
            stderr, "bench_schedules: wrong match count (%d, %d, %d)\n", baseline_matches, cached_matches, matches
        );
        return 1;
    }
    std::printf("schedules matching: %d RUNNING schedules, %d notifications each\n", schedules, iterations);
    std::printf("  baseline (compile every expression): %.2f ms per notification\n", baseline);
    std::printf(
        "  cached (capacity >= schedules):      %.2f ms per notification (%.1fx faster than baseline)\n",
        cached,
        baseline / cached
    );
    std::printf(
        "  cache memory: %ld KiB for %d compiled expressions (%.1f KiB each)\n",
        cache_kib,
        schedules,
        static_cast<double>(cache_kib) / schedules
    );
    std::printf(
        "  default cache (1024 entries):        %.2f ms per notification (%.1fx faster than baseline)\n",
        default_cache,
        baseline / default_cache
    );
    std::printf("  goal: cached < 50 ms for 10,000 schedules\n");
    return 0;
}
