#include <connectors/bounded_process.hpp>

#include <catch2/catch.hpp>
#include <signal.h>
#include <test_support/test_env.hpp>

#include <chrono>
#include <cstdio>
#include <fstream>
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

// Running or sleeping; a zombie (killed, not yet reaped by init) counts as gone.
bool Alive(int pid) {
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string text;
    std::getline(stat, text);
    const auto close = text.rfind(')');
    return close != std::string::npos && close + 2 < text.size() && text[close + 2] != 'Z';
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
    // The background child would outlive a kill of the shell alone (as ssh workers would outlive
    // ansible-playbook): the whole group must go.
    const std::string pid_file = orch::test::BinaryDir() + "/bounded_process_test.pid";
    std::remove(pid_file.c_str());
    auto spec = Shell("sleep 60 & echo $! > '" + pid_file + "'; sleep 60; echo never");
    spec.time_limit = std::chrono::milliseconds(500);
    const auto started = std::chrono::steady_clock::now();
    const auto run = RunBounded(spec, {});
    CHECK(std::chrono::steady_clock::now() - started < std::chrono::seconds(5));
    CHECK(run.timed_out);
    CHECK(run.exit_code == 128 + SIGTERM);
    CHECK(run.output.empty());
    const std::string background = orch::test::ReadFile(pid_file);
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    CHECK_FALSE(Alive(std::stoi(background)));
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
