#pragma once

#include <atomic>
#include <mutex>
#include <thread>
#include <vector>

namespace orch::test {

/// A loopback TCP relay to a backend port that a test can cut and restore, simulating an
/// outage of the backend (a database, an upstream) without stopping it.
class TcpProxy {
   public:
    explicit TcpProxy(int backend_port);
    ~TcpProxy();
    TcpProxy(const TcpProxy&) = delete;
    TcpProxy& operator=(const TcpProxy&) = delete;

    int port() const { return port_; }
    /// While disabled, new connections are refused (closed at once) and live ones are cut.
    void SetEnabled(bool enabled);

   private:
    void AcceptLoop();
    void Relay(int client_fd);

    int backend_port_;
    int listen_fd_ = -1;
    int port_ = 0;
    std::atomic<bool> enabled_{true};
    std::atomic<bool> stop_{false};
    std::atomic<int> generation_{0};
    std::thread acceptor_;
    std::mutex mutex_;
    std::vector<std::thread> relays_;
};

}  // namespace orch::test
