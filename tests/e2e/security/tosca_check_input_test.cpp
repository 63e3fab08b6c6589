// tosca-check on endless and oversized input: it used to read a whole file or stdin into memory
// before looking at its size, so /dev/zero (or a pipe that never ends) ran it out of memory and it
// aborted with std::bad_alloc. It must stop at the size limit and say so, in bounded memory.
// The child runs under an address-space limit, so a regression fails the test quickly instead of
// exhausting the machine.
#include "test_support/test_env.hpp"

#include <catch2/catch.hpp>
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <string>
#include <vector>

namespace {

struct Outcome {
    int exit_code = -1;     ///< -1 when killed by a signal
    long max_rss_kib = -1;  ///< the child's peak resident memory
    std::string err;
};

/// Runs tosca-check with `args`, stdin from `stdin_path`, under a 1 GiB address-space limit.
Outcome RunToscaCheck(const std::vector<std::string>& args, const std::string& stdin_path) {
    const std::string program = orch::test::BinaryDir() + "/bin/tosca-check";
    const std::string err_path = orch::test::BinaryDir() + "/tosca-check-" + std::to_string(::getpid()) + ".err";
    const pid_t pid = ::fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
        const rlimit limit{1u << 30, 1u << 30};
        ::setrlimit(RLIMIT_AS, &limit);
        const int in = ::open(stdin_path.c_str(), O_RDONLY);
        const int err = ::open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
        const int out = ::open("/dev/null", O_WRONLY);
        if (in < 0 || err < 0 || out < 0) {
            ::_exit(127);
        }
        ::dup2(in, 0);
        ::dup2(out, 1);
        ::dup2(err, 2);
        std::vector<char*> argv{const_cast<char*>(program.c_str())};
        for (const auto& arg : args) {
            argv.push_back(const_cast<char*>(arg.c_str()));
        }
        argv.push_back(nullptr);
        ::execv(program.c_str(), argv.data());
        ::_exit(127);
    }
    int status = 0;
    rusage usage{};
    REQUIRE(::wait4(pid, &status, 0, &usage) == pid);
    Outcome outcome;
    outcome.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    outcome.max_rss_kib = usage.ru_maxrss;
    outcome.err = orch::test::ReadFile(err_path);
    ::unlink(err_path.c_str());
    return outcome;
}

}  // namespace

TEST_CASE(
    "tosca-check refuses an endless template file with a size error, in bounded memory", "[security][tosca-check]"
) {
    const Outcome run = RunToscaCheck({"/dev/zero"}, "/dev/null");
    INFO(run.err);
    CHECK(run.exit_code == 4);  // a file given on the command line is too large
    CHECK(run.err.find("/dev/zero is larger than the limit of 2097152 bytes") != std::string::npos);
    CHECK(run.err.find("bad_alloc") == std::string::npos);
    CHECK(run.max_rss_kib < 64 * 1024);
}

TEST_CASE(
    "tosca-check refuses endless standard input with a size error, in bounded memory", "[security][tosca-check]"
) {
    const Outcome run = RunToscaCheck({"--max-bytes", "512KiB", "-"}, "/dev/zero");
    INFO(run.err);
    CHECK(run.exit_code == 4);  // a file given on the command line is too large
    CHECK(run.err.find("<stdin> is larger than the limit of 524288 bytes") != std::string::npos);
    CHECK(run.max_rss_kib < 64 * 1024);
}

TEST_CASE("tosca-check refuses an endless --inputs file with a size error", "[security][tosca-check]") {
    const std::string tpl = orch::test::BinaryDir() + "/tosca-check-tpl-" + std::to_string(::getpid()) + ".yaml";
    std::ofstream(tpl) << "tosca_definitions_version: tosca_simple_yaml_1_0\n";
    const Outcome run = RunToscaCheck({"--inputs", "/dev/zero", tpl}, "/dev/null");
    ::unlink(tpl.c_str());
    INFO(run.err);
    CHECK(run.exit_code == 4);  // a file given on the command line is too large
    CHECK(run.err.find("/dev/zero is larger than the limit") != std::string::npos);
    CHECK(run.max_rss_kib < 64 * 1024);
}
