#include "test_support/tcp_proxy.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <stdexcept>

namespace orch::test {
namespace {

int ConnectLoopback(int port) {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = htons(static_cast<std::uint16_t>(port));
    if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
        ::close(fd);
        return -1;
    }
    return fd;
}

}  // namespace

TcpProxy::TcpProxy(int backend_port) : backend_port_(backend_port) {
    listen_fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    const int one = 1;
    ::setsockopt(listen_fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 || ::listen(listen_fd_, 64) != 0) {
        throw std::runtime_error("proxy cannot listen");
    }
    socklen_t len = sizeof addr;
    ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len);
    port_ = ntohs(addr.sin_port);
    acceptor_ = std::thread([this] { AcceptLoop(); });
}

TcpProxy::~TcpProxy() {
    stop_ = true;
    ::shutdown(listen_fd_, SHUT_RDWR);
    ::close(listen_fd_);
    acceptor_.join();
    ++generation_;
    const std::lock_guard lock(mutex_);
    for (auto& t : relays_) {
        t.join();
    }
}

void TcpProxy::SetEnabled(bool enabled) {
    enabled_ = enabled;
    if (!enabled) {
        ++generation_;  // live relays notice and drop their connections
    }
}

void TcpProxy::AcceptLoop() {
    while (!stop_) {
        pollfd p{listen_fd_, POLLIN, 0};
        if (::poll(&p, 1, 100) <= 0) {
            continue;
        }
        const int client = ::accept(listen_fd_, nullptr, nullptr);
        if (client < 0) {
            continue;
        }
        if (!enabled_) {
            ::close(client);
            continue;
        }
        const std::lock_guard lock(mutex_);
        relays_.emplace_back([this, client] { Relay(client); });
    }
}

void TcpProxy::Relay(int client_fd) {
    const int backend = ConnectLoopback(backend_port_);
    if (backend < 0) {
        ::close(client_fd);
        return;
    }
    const int my_generation = generation_.load();
    char buf[16384];
    pollfd fds[2] = {{client_fd, POLLIN, 0}, {backend, POLLIN, 0}};
    while (!stop_ && generation_.load() == my_generation) {
        if (::poll(fds, 2, 100) <= 0) {
            continue;
        }
        bool closed = false;
        for (int i = 0; i < 2 && !closed; ++i) {
            if ((fds[i].revents & (POLLIN | POLLHUP | POLLERR)) == 0) {
                continue;
            }
            const ssize_t n = ::read(fds[i].fd, buf, sizeof buf);
            if (n <= 0 || ::write(fds[1 - i].fd, buf, static_cast<std::size_t>(n)) != n) {
                closed = true;
            }
        }
        if (closed) {
            break;
        }
    }
    ::close(client_fd);
    ::close(backend);
}

}  // namespace orch::test
