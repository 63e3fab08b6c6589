// How native contextualisation schedules the nodes' ansible-playbook runs: independent nodes on
// different servers side by side, dependency order kept, one node at a time per server, and the
// first failure stopping the rest. ansible-playbook is played by a shell script that records when
// each node's run starts and ends, so no server is needed.
#include <connectors/ansible_contextualiser.hpp>
#include <connectors/contextualiser.hpp>

#include <catch2/catch.hpp>
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>

using orch::connectors::AnsibleContextualiser;
using orch::connectors::AnsibleOptions;
using orch::connectors::ContextOutcome;
using orch::connectors::ContextPlan;
using orch::connectors::ContextStep;
using orch::connectors::Failure;

namespace {

namespace fs = std::filesystem;

/// A work dir, a role source with the role "test.noop", and an ansible-playbook stand-in: the
/// run of node N appends "start N" and "end N" to `events`; a node named in `partners` waits up
/// to 5 s for its partner's run to start and appends "met N" when it did; "bad" exits 2 at once
/// and "slow" runs 30 s; the facts run (no node) is recorded as "facts". Each run prints two
/// task headers as Ansible does: "test.noop : first of N", then "second of N".
struct Bench {
    std::string dir;
    AnsibleOptions options;

    Bench() {
        static int counter = 0;
        dir = (fs::temp_directory_path() /
               ("orch-step-runner-" + std::to_string(::getpid()) + "-" + std::to_string(counter++)))
                  .string();
        fs::remove_all(dir);
        fs::create_directories(dir + "/roles/test.noop/tasks");
        std::ofstream(dir + "/roles/test.noop/tasks/main.yml") << "[]\n";
        const std::string script = dir + "/ansible-playbook";
        std::ofstream(script
        ) << "#!/bin/sh\n"
             "node=$(sed -n 's/^- name: \"configure \\(.*\\)\"$/\\1/p' \"$3\" | head -n 1)\n"
             "[ -n \"$node\" ] || node=facts\n"  // the run gathering the servers' facts
             "log="
          << dir
          << "\n"
             "echo \"start $node\" >> $log/events\n"
             "touch $log/started-$node\n"
             "case $node in\n"
             "  bad) echo 'fatal: [orch_b_0]: FAILED! => {\"msg\": \"refused\"}'; exit 2;;\n"
             "  slow) sleep 30;;\n"
             "  a_sw) partner=b_sw;;\n"
             "  b_sw) partner=a_sw;;\n"
             "esac\n"
             "if [ -n \"$partner\" ]; then\n"
             "  for i in $(seq 50); do\n"
             "    if [ -e $log/started-$partner ]; then echo \"met $node\" >> $log/events; break; fi\n"
             "    sleep 0.1\n"
             "  done\n"
             "fi\n"
             "echo \"TASK [test.noop : first of $node] ****\"\n"
             "echo \"TASK [second of $node] ****\"\n"
             "echo \"end $node\" >> $log/events\n";
        fs::permissions(script, fs::perms::owner_all);
        options.work_dir = dir + "/work";
        options.role_dir = dir + "/roles";
        options.ansible_playbook = script;
    }
    ~Bench() {
        std::error_code ec;
        fs::remove_all(dir, ec);
    }

    std::vector<std::string> Events() const {
        std::ifstream in(dir + "/events");
        std::vector<std::string> lines;
        for (std::string line; std::getline(in, line);) {
            lines.push_back(line);
        }
        return lines;
    }
};

ContextStep Step(const std::string& node, const std::string& host, std::vector<std::string> after = {}) {
    ContextStep step;
    step.node = node;
    step.host_node = host;
    step.roles = {"test.noop"};
    step.after = std::move(after);
    return step;
}

ContextPlan Plan(std::vector<ContextStep> steps) {
    ContextPlan plan;
    plan.deployment_id = "0f5c1d2e-aaaa-4bbb-8ccc-" + std::to_string(100000000000 + ::getpid());
    plan.ssh_user = "cloudadm";
    plan.hosts = {{"vm_a", 0, "127.0.0.1", 22}, {"vm_b", 0, "127.0.0.2", 22}, {"vm_c", 0, "127.0.0.3", 22}};
    plan.steps = std::move(steps);
    return plan;
}

std::size_t Position(const std::vector<std::string>& events, const std::string& event) {
    const auto it = std::find(events.begin(), events.end(), event);
    return static_cast<std::size_t>(it - events.begin());
}

}  // namespace

TEST_CASE("independent nodes on different servers are configured side by side, in dependency order", "[ansible]") {
    Bench bench;
    AnsibleContextualiser contextualiser(bench.options);
    // c_sw connects to a_sw; d_sw shares b_sw's server; a_sw and b_sw need nothing.
    const auto plan = Plan({
        Step("a_sw", "vm_a"),
        Step("b_sw", "vm_b"),
        Step("c_sw", "vm_c", {"a_sw"}),
        Step("d_sw", "vm_b"),
    });
    auto configured = contextualiser.Configure(plan, {});
    if (const auto* failure = std::get_if<Failure>(&configured)) {
        FAIL(failure->message);
    }
    const auto events = bench.Events();
    INFO([&] {
        std::ostringstream text;
        for (const auto& e : events) {
            text << e << "\n";
        }
        return text.str();
    }());
    REQUIRE(events.size() == 12);
    // The facts of the configured servers are gathered once every node is configured.
    CHECK(events[10] == "start facts");
    CHECK(events[11] == "end facts");
    // Before: one run after the other, so a_sw waited for b_sw in vain.
    CHECK(Position(events, "met a_sw") < events.size());
    CHECK(Position(events, "met b_sw") < events.size());
    CHECK(Position(events, "end a_sw") < Position(events, "start c_sw"));
    CHECK(Position(events, "end b_sw") < Position(events, "start d_sw"));
    const auto& log = std::get<ContextOutcome>(configured).log;
    for (const char* node : {"a_sw", "b_sw", "c_sw", "d_sw"}) {
        CHECK_THAT(log, Catch::Contains(std::string("== node ") + node + ": configured"));
    }

    SECTION("parallel_nodes: 1 runs them one after the other") {
        Bench serial;
        serial.options.parallel_nodes = 1;
        AnsibleContextualiser one_at_a_time(serial.options);
        REQUIRE(std::holds_alternative<ContextOutcome>(one_at_a_time.Configure(plan, {})));
        const auto in_order = serial.Events();
        CHECK(Position(in_order, "met a_sw") == in_order.size());
        CHECK(Position(in_order, "end a_sw") < Position(in_order, "start b_sw"));
    }
}

TEST_CASE("the first failed node fails the run and stops the nodes still running", "[ansible]") {
    Bench bench;
    AnsibleContextualiser contextualiser(bench.options);
    const auto plan = Plan({Step("slow", "vm_a"), Step("bad", "vm_b"), Step("after_bad", "vm_c", {"bad"})});
    auto configured = contextualiser.Configure(plan, {});
    REQUIRE(std::holds_alternative<Failure>(configured));
    const auto& failure = std::get<Failure>(configured);
    CHECK(failure.kind == orch::connectors::FailureKind::kTryAnotherSite);
    CHECK_THAT(failure.message, Catch::Contains("node 'bad'") && Catch::Contains("refused"));
    const auto events = bench.Events();
    CHECK(Position(events, "start slow") < events.size());
    CHECK(Position(events, "end slow") == events.size());  // killed, not waited for 30 s
    CHECK(Position(events, "start after_bad") == events.size());
    CHECK(Position(events, "start facts") == events.size());  // no facts from a failed run
}

TEST_CASE("the run reports each node as it starts, then each task Ansible starts on it", "[ansible]") {
    // Before: nothing was reported until every node was configured.
    Bench bench;
    bench.options.parallel_nodes = 1;
    AnsibleContextualiser contextualiser(bench.options);
    auto plan = Plan({Step("a_sw", "vm_a"), Step("c_sw", "vm_c", {"a_sw"})});
    std::mutex mutex;
    std::vector<std::string> said;
    plan.progress = [&](const orch::connectors::ContextProgress& progress) {
        const std::lock_guard lock(mutex);
        said.push_back(orch::connectors::ProgressMessage(progress));
    };
    REQUIRE(std::holds_alternative<ContextOutcome>(contextualiser.Configure(plan, {})));
    CHECK(
        said ==
        std::vector<std::string>{
            "configuring node a_sw",
            "configuring node a_sw (role test.noop, task 'first of a_sw')",
            "configuring node a_sw (task 'second of a_sw')",
            "configuring node c_sw",
            "configuring node c_sw (role test.noop, task 'first of c_sw')",
            "configuring node c_sw (task 'second of c_sw')",
        }
    );
}

TEST_CASE("a deployment being configured by another process is not configured twice at once", "[ansible]") {
    // The work directory is shared by the replicas: a poll taken over by another one while the
    // first still runs Ansible must not start a second run on the same servers.
    Bench bench;
    AnsibleContextualiser contextualiser(bench.options);
    const auto plan = Plan({Step("a_sw", "vm_a")});
    const std::string dir = bench.options.work_dir + "/" + plan.deployment_id;
    fs::create_directories(dir);
    const int fd = ::open((dir + "/configure.lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    REQUIRE(fd >= 0);
    REQUIRE(::flock(fd, LOCK_EX | LOCK_NB) == 0);
    auto busy = contextualiser.Configure(plan, {});
    REQUIRE(std::holds_alternative<Failure>(busy));
    CHECK(std::get<Failure>(busy).kind == orch::connectors::FailureKind::kRetryHere);
    CHECK_THAT(std::get<Failure>(busy).message, Catch::Contains("another orchestrator process"));
    CHECK(bench.Events().empty());  // no ansible-playbook started
    ::close(fd);
    CHECK(std::holds_alternative<ContextOutcome>(contextualiser.Configure(plan, {})));
}
