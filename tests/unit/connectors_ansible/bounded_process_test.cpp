#include <connectors/bounded_process.hpp>

#include <catch2/catch.hpp>
#include <signal.h>

#include <chrono>
#include <thread>

using orch::connectors::ProcessSpec;
using orch::connectors::RunBounded;

namespace {

ProcessSpec Shell(const std::string& script) {
    ProcessSpec spec;
    spec.program = "/bin/sh";
    spec.args = {"-c", script};
    spec.env = {"PATH=/usr/bin:/bin"};
    spec.time_limit = std::chrono::seconds(10);
    return spec;
}

}  // namespace

TEST_CASE("a bounded process: exit code and merged output", "[connectors][process]") {
    const auto run = RunBounded(Shell("echo out; echo err >&2; exit 3"), {});
    CHECK(run.started);
    CHECK(run.exit_code == 3);
    CHECK_FALSE(run.timed_out);
    CHECK(run.output == "out\nerr\n");
}

TEST_CASE("a bounded process keeps the head and tail of a large output", "[connectors][process]") {
    auto spec = Shell("echo BEGIN; head -c 2000000 /dev/zero | tr '\\0' x; echo; echo END");
    spec.output_cap = 1000;
    const auto run = RunBounded(spec, {});
    CHECK(run.exit_code == 0);
    CHECK(run.output.size() < 1100);
    CHECK(run.output.rfind("BEGIN\n", 0) == 0);
    CHECK_THAT(run.output, Catch::EndsWith("END\n") && Catch::Contains("bytes of output left out"));
}

TEST_CASE("a bounded process group is killed at the time limit", "[connectors][process]") {
    // The grandchild keeps the pipe open: only killing the whole group ends the run.
    auto spec = Shell("sleep 60 & sleep 60; echo never");
    spec.time_limit = std::chrono::milliseconds(500);
    const auto started = std::chrono::steady_clock::now();
    const auto run = RunBounded(spec, {});
    CHECK(std::chrono::steady_clock::now() - started < std::chrono::seconds(5));
    CHECK(run.timed_out);
    CHECK(run.exit_code == 128 + SIGTERM);
    CHECK(run.output.empty());
}

TEST_CASE("a bounded process stops when cancelled", "[connectors][process]") {
    std::stop_source stop;
    std::thread canceller([&] {
        std::this_thread::sleep_for(std::chrono::milliseconds(300));
        stop.request_stop();
    });
    const auto run = RunBounded(Shell("sleep 60"), stop.get_token());
    canceller.join();
    CHECK(run.cancelled);
    CHECK_FALSE(run.timed_out);
}

TEST_CASE("a program that does not exist is reported, not thrown", "[connectors][process]") {
    ProcessSpec spec;
    spec.program = "/nonexistent/ansible-playbook";
    const auto run = RunBounded(spec, {});
    CHECK_FALSE(run.started);
    CHECK_THAT(run.output, Catch::Contains("/nonexistent/ansible-playbook"));
}
