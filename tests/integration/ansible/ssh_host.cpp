#include "ssh_host.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <pwd.h>
#include <signal.h>
#include <sys/socket.h>
#include <test_support/test_env.hpp>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <thread>

namespace orch::test::ansible {
namespace {

bool Accepts(const std::string& address, int port) {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in sa{};
    sa.sin_family = AF_INET;
    sa.sin_port = htons(static_cast<std::uint16_t>(port));
    ::inet_pton(AF_INET, address.c_str(), &sa.sin_addr);
    const bool ok = ::connect(fd, reinterpret_cast<sockaddr*>(&sa), sizeof sa) == 0;
    ::close(fd);
    return ok;
}

void Write(const std::string& path, const std::string& text) {
    std::ofstream out(path, std::ios::trunc);
    out << text;
    if (!out.flush()) {
        throw std::runtime_error("cannot write " + path);
    }
}

}  // namespace

std::string LoopbackAddress(int index) {
    const auto pid = static_cast<unsigned>(::getpid());
    return "127." + std::to_string((pid >> 8) % 250 + 1) + "." + std::to_string(pid % 250 + 1) + "." +
           std::to_string(index % 250 + 2);
}

std::string CurrentUser() {
    const passwd* pw = ::getpwuid(::getuid());
    if (pw == nullptr) {
        throw std::runtime_error("no passwd entry for the current user");
    }
    return pw->pw_name;
}

SshHost::SshHost(const std::string& dir, const std::string& address, const std::string& authorized_key)
    : dir_(dir), address_(address), port_(FreePort()) {
    namespace fs = std::filesystem;
    fs::create_directories(root());
    std::error_code ec;
    fs::create_directories("/run/sshd", ec);  // sshd's privilege separation directory (as root)
    const std::string host_key = dir_ + "/host_key";
    if (!fs::exists(host_key)) {
        const std::string command = "ssh-keygen -q -t ed25519 -N '' -f '" + host_key + "' >/dev/null 2>&1";
        if (std::system(command.c_str()) != 0) {
            throw std::runtime_error("ssh-keygen failed for " + host_key);
        }
    }
    Write(dir_ + "/authorized_keys", authorized_key + "\n");
    Write(
        dir_ + "/sshd_config",
        "ListenAddress " + address_ + ":" + std::to_string(port_) + "\nHostKey " + host_key + "\nPidFile " + dir_ +
            "/sshd.pid\nAuthorizedKeysFile " + dir_ +
            "/authorized_keys\nStrictModes no\nUsePAM no\nPasswordAuthentication no\n"
            "KbdInteractiveAuthentication no\nPubkeyAuthentication yes\nPermitRootLogin prohibit-password\n"
            "AllowUsers " +
            CurrentUser() + "\nSetEnv ORCH_VM_DIR=" + root() +
            "\nSubsystem sftp /usr/lib/openssh/sftp-server\nLogLevel VERBOSE\n"
    );
    process_ = std::make_unique<ChildProcess>(
        "/usr/sbin/sshd",
        std::vector<std::string>{"-D", "-e", "-f", dir_ + "/sshd_config"},
        std::map<std::string, std::string>{},
        dir_ + "/sshd.log"
    );
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (!Accepts(address_, port_)) {
        if (!process_->Running() || std::chrono::steady_clock::now() > give_up) {
            throw std::runtime_error("sshd on " + address_ + " did not start: " + process_->Log());
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
}

SshHost::~SshHost() {
    if (process_) {
        process_->Stop(SIGTERM, std::chrono::seconds(5));
    }
}

}  // namespace orch::test::ansible
