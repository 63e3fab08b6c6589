// Ansible's task headers as native contextualisation reads them while a node is configured: the
// names come from the template's roles and playbooks (user text) and reach statusReason, the
// event log and /log, so every line is read in one bounded pass and never trusted.
#include <connectors/bounded_process.hpp>
#include <connectors/context_progress.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <vector>

using orch::connectors::ContextProgress;
using orch::connectors::kMaxProgressName;
using orch::connectors::ParseAnsibleTaskHeader;
using orch::connectors::ProgressMessage;

namespace {

std::string Banner(const std::string& header) {
    return header + " " + std::string(80 - std::min<std::size_t>(header.size(), 77), '*');
}

// What a user reads: printable, valid UTF-8 (JSON text must be).
bool Clean(const std::string& text) {
    for (const char c : text) {
        const auto b = static_cast<unsigned char>(c);
        if (b < 0x20U || b == 0x7FU) {
            return false;
        }
    }
    return true;
}

}  // namespace

TEST_CASE("a task header of Ansible's default output gives its role and task", "[ansible][progress]") {
    auto task = ParseAnsibleTaskHeader(Banner("TASK [indigo-dc.kubernetes : Install kubelet]"));
    REQUIRE(task.has_value());
    CHECK(task->role == "indigo-dc.kubernetes");
    CHECK(task->task == "Install kubelet");
    task->node = "worker";
    CHECK(ProgressMessage(*task) == "configuring node worker (role indigo-dc.kubernetes, task 'Install kubelet')");

    auto own = ParseAnsibleTaskHeader(Banner("TASK [Gathering Facts]"));
    REQUIRE(own.has_value());
    CHECK(own->role.empty());
    own->node = "front";
    CHECK(ProgressMessage(*own) == "configuring node front (task 'Gathering Facts')");

    auto handler = ParseAnsibleTaskHeader(Banner("RUNNING HANDLER [indigo-dc.docker : restart docker]"));
    REQUIRE(handler.has_value());
    CHECK(handler->role == "indigo-dc.docker");
    CHECK(handler->task == "restart docker");

    CHECK(ProgressMessage(ContextProgress{"worker", "", ""}) == "configuring node worker");
}

TEST_CASE("a task name holding a colon or a closing bracket stays whole", "[ansible][progress]") {
    // A task's own name may say anything; only a role-like word before " : " is a role.
    auto colon = ParseAnsibleTaskHeader(Banner("TASK [Set up the front end : step 1]"));
    REQUIRE(colon.has_value());
    CHECK(colon->role.empty());
    CHECK(colon->task == "Set up the front end : step 1");
    auto bracket = ParseAnsibleTaskHeader(Banner("TASK [my.role : copy [a] to ] b]"));
    REQUIRE(bracket.has_value());
    CHECK(bracket->role == "my.role");
    CHECK(bracket->task == "copy [a] to ] b");
}

TEST_CASE("lines that are not task headers give nothing", "[ansible][progress][security]") {
    for (const std::string line : {
             "",
             "TASK [",
             "TASK [] ***",
             "TASK [no stars]",
             "TASK [no bracket] x ***",
             "PLAY [all] ****",
             "ok: [orch_vm_0]",
             "fatal: [orch_vm_0]: FAILED! => {\"msg\": \"TASK [x] ***\"}",
             " TASK [indented] ***",
             "task [lower] ***",
             "TASK [***",
             "TASK [x : ] ***",
         }) {
        INFO(line);
        CHECK_FALSE(ParseAnsibleTaskHeader(line).has_value());
    }
}

TEST_CASE("hostile names are cut and their control bytes and broken UTF-8 replaced", "[ansible][progress][security]") {
    const std::string control = "TASK [r.x : a\x1b[31mred\x07\r\x7f bell] ***";
    auto task = ParseAnsibleTaskHeader(control);
    REQUIRE(task.has_value());
    CHECK(task->task == "a?[31mred??? bell");
    CHECK(Clean(task->task));

    // A lone continuation byte, a cut sequence, an invalid lead: each '?'; whole sequences kept.
    auto utf8 = ParseAnsibleTaskHeader("TASK [caf\xc3\xa9 \x80 \xe2\x82 \xff ok] ***");
    REQUIRE(utf8.has_value());
    CHECK(utf8->task == "caf\xc3\xa9 ? ?? ? ok");

    // A 1 MiB name: one pass, kMaxProgressName bytes kept, never cut inside a UTF-8 sequence.
    std::string huge = "TASK [role.x : ";
    for (int i = 0; i < (1 << 19); ++i) {
        huge += "\xc3\xa9";
    }
    huge += "] ***";
    auto long_one = ParseAnsibleTaskHeader(huge);
    REQUIRE(long_one.has_value());
    CHECK(long_one->role == "role.x");
    CHECK(long_one->task.size() <= kMaxProgressName);
    CHECK(long_one->task.size() >= kMaxProgressName - 1);
    CHECK(long_one->task.substr(long_one->task.size() - 2) == "\xc3\xa9");

    std::string long_role(100000, 'r');
    auto role = ParseAnsibleTaskHeader("TASK [" + long_role + " : t] ***");
    REQUIRE(role.has_value());
    CHECK(role->role.size() == kMaxProgressName);
}

TEST_CASE(
    "a bounded process gives its output line by line as it comes and skips overlong lines",
    "[ansible][progress][security]"
) {
    // Before: the output was only seen when the program ended.
    orch::connectors::ProcessSpec spec;
    spec.program = "/bin/sh";
    spec.args = {
        "-c",
        "echo 'TASK [a.b : one] ***'; head -c 100000 /dev/zero | tr '\\0' x; echo; printf 'two\\r\\nlast'",
    };
    spec.env = {"PATH=/usr/bin:/bin"};
    spec.max_line = 1024;
    spec.output_cap = 4096;
    std::vector<std::string> lines;
    spec.on_line = [&](std::string_view line) {
        lines.emplace_back(line);
    };
    const auto run = orch::connectors::RunBounded(spec, {});
    REQUIRE(run.exit_code == 0);
    // The 100 000-byte line is skipped whole; the unterminated last one is not a line yet.
    CHECK(lines == std::vector<std::string>{"TASK [a.b : one] ***", "two"});
    CHECK(run.output.size() < 4200);  // the captured output keeps its own cap
}
