#pragma once

#include <test_support/process.hpp>

#include <memory>
#include <string>

namespace orch::test::ansible {

/// One "server" for native contextualisation tests: a real OpenSSH sshd on a loopback address
/// (127.0.0.x) and a port of its own, logging in the current user with the keys given, and
/// telling every session its own directory in ORCH_VM_DIR (what the test roles write into).
class SshHost {
   public:
    /// Starts sshd under `dir` (created) listening on `address` and waits until it accepts.
    SshHost(const std::string& dir, const std::string& address, const std::string& authorized_key);
    ~SshHost();
    SshHost(const SshHost&) = delete;
    SshHost& operator=(const SshHost&) = delete;

    const std::string& address() const { return address_; }
    int port() const { return port_; }
    /// The server's own directory (what ORCH_VM_DIR names).
    std::string root() const { return dir_ + "/root"; }
    std::string Log() const { return process_ ? process_->Log() : std::string(); }

   private:
    std::string dir_, address_;
    int port_ = 0;
    std::unique_ptr<ChildProcess> process_;
};

/// The loopback address of test server `index` of this process: 127.<pid>.<index>, so test
/// processes CTest runs in parallel never share an address (nor collide on a port).
std::string LoopbackAddress(int index);

/// The name of the user the tests run as (whom sshd lets in).
std::string CurrentUser();

}  // namespace orch::test::ansible
