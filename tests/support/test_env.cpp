#include "test_support/test_env.hpp"

#include <common/uuid.hpp>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <pqxx/pqxx>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>

#ifndef ORCH_SOURCE_DIR
#error "ORCH_SOURCE_DIR must be defined by the build"
#endif

namespace orch::test {

std::string SourceDir() {
    return ORCH_SOURCE_DIR;
}
std::string SharedDir() {
    return ORCH_SHARED_DIR;
}
std::string BinaryDir() {
    return ORCH_BINARY_DIR;
}

namespace {

// The files our scripts write hold one value followed by a line break.
std::string WithoutLineBreak(std::string text) {
    while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) {
        text.pop_back();
    }
    return text;
}

}  // namespace

std::string ReadFile(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        throw std::runtime_error("cannot read " + path);
    }
    std::ostringstream out;
    out << in.rdbuf();
    return out.str();
}

std::string ReadRigValue(
    const std::string& dir, const std::string& file, const std::string& rig, const std::string& fixture
) {
    std::string text;
    try {
        text = ReadFile(dir + "/" + file);
    } catch (const std::exception& e) {
        throw std::runtime_error(
            "the " + rig + " is not running (run through ctest, fixture `" + fixture + "`, or scripts/" + fixture +
            "/start " + dir + "): " + e.what()
        );
    }
    return WithoutLineBreak(std::move(text));
}

int FreePort() {
    // Binding port 0 lets the kernel choose; the port stays free after close for the test to use.
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = 0;
    if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
        ::close(fd);
        throw std::runtime_error("cannot bind a free port");
    }
    socklen_t len = sizeof addr;
    ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
    ::close(fd);
    return ntohs(addr.sin_port);
}

std::string AdminDsn() {
    const char* dir = std::getenv("ORCH_TEST_PG_DIR");  // NOLINT(concurrency-mt-unsafe): read before threads
    if (dir == nullptr) {
        throw std::runtime_error("ORCH_TEST_PG_DIR is not set: run the test through ctest (fixture pg)");
    }
    std::string dsn = ReadFile(std::string(dir) + "/dsn");
    return WithoutLineBreak(std::move(dsn));
}

TestDatabase::TestDatabase() {
    std::string id = RandomUuid().substr(0, 8);
    name_ = "t_" + id;
    const std::string admin = AdminDsn();
    pqxx::connection conn(admin);
    pqxx::nontransaction tx(conn);
    tx.exec0("CREATE DATABASE " + name_);
    const auto slash = admin.rfind('/');
    dsn_ = admin.substr(0, slash + 1) + name_;
}

TestDatabase::~TestDatabase() {
    try {
        pqxx::connection conn(AdminDsn());
        pqxx::nontransaction tx(conn);
        tx.exec0("DROP DATABASE IF EXISTS " + name_ + " WITH (FORCE)");
    } catch (...) {  // NOLINT(bugprone-empty-catch): a leftover test database is harmless
    }
}

}  // namespace orch::test
