#include "test_support/fixture_http_server.hpp"

#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include <thread>

namespace orch::test {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
using tcp = asio::ip::tcp;

class Session : public std::enable_shared_from_this<Session> {
   public:
    Session(tcp::socket socket, std::shared_ptr<FixtureRoutes> routes)
        : stream_(std::move(socket)), routes_(std::move(routes)) {}

    void Read() {
        request_ = {};
        stream_.expires_after(std::chrono::seconds(30));
        beast::http::async_read(
            stream_,
            buffer_,
            request_,
            [self = shared_from_this()](beast::error_code ec, std::size_t) {
                if (!ec) {
                    self->Answer();
                }
            }
        );
    }

   private:
    void Answer() {
        FixtureRequest seen;
        seen.method = std::string(request_.method_string());
        const std::string target(request_.target());
        const auto q = target.find('?');
        seen.path = http::UrlDecode(target.substr(0, q), false);
        seen.query = q == std::string::npos ? "" : target.substr(q + 1);
        for (const auto& field : request_) {
            seen.headers.emplace_back(std::string(field.name_string()), std::string(field.value()));
        }
        seen.body = request_.body();
        const FixtureResponse answer = routes_->Handle(seen);
        response_ = {};
        response_.result(static_cast<unsigned>(answer.status));
        response_.version(request_.version());
        response_.set(beast::http::field::content_type, answer.content_type);
        response_.body() = answer.body;
        response_.keep_alive(request_.keep_alive());
        response_.prepare_payload();
        beast::http::async_write(stream_, response_, [self = shared_from_this()](beast::error_code ec, std::size_t) {
            if (ec || !self->response_.keep_alive()) {
                beast::error_code ignored;
                self->stream_.socket().shutdown(tcp::socket::shutdown_send, ignored);
                return;
            }
            self->Read();
        });
    }

    beast::tcp_stream stream_;
    beast::flat_buffer buffer_;
    beast::http::request<beast::http::string_body> request_;
    beast::http::response<beast::http::string_body> response_;
    std::shared_ptr<FixtureRoutes> routes_;
};

}  // namespace

class FixtureHttpServer::Impl {
   public:
    explicit Impl(std::shared_ptr<FixtureRoutes> routes) : acceptor_(ioc_), routes_(std::move(routes)) {
        const tcp::endpoint endpoint(asio::ip::make_address("127.0.0.1"), 0);
        acceptor_.open(endpoint.protocol());
        acceptor_.set_option(asio::socket_base::reuse_address(true));
        acceptor_.bind(endpoint);
        acceptor_.listen();
        port_ = acceptor_.local_endpoint().port();
        Accept();
        thread_ = std::thread([this] { ioc_.run(); });
    }

    ~Impl() { Stop(); }
    Impl(const Impl&) = delete;
    Impl& operator=(const Impl&) = delete;

    void Stop() {
        if (!thread_.joinable()) {
            return;
        }
        asio::post(ioc_, [this] {
            beast::error_code ignored;
            acceptor_.close(ignored);
            ioc_.stop();
        });
        thread_.join();
    }

    int port() const { return port_; }

   private:
    void Accept() {
        acceptor_.async_accept([this](beast::error_code ec, tcp::socket socket) {
            if (ec) {
                return;
            }
            std::make_shared<Session>(std::move(socket), routes_)->Read();
            Accept();
        });
    }

    asio::io_context ioc_;
    tcp::acceptor acceptor_;
    std::shared_ptr<FixtureRoutes> routes_;
    std::thread thread_;
    int port_ = 0;
};

FixtureHttpServer::FixtureHttpServer(std::shared_ptr<FixtureRoutes> routes)
    : routes_(std::move(routes)), impl_(std::make_unique<Impl>(routes_)) {}

FixtureHttpServer::~FixtureHttpServer() = default;

int FixtureHttpServer::port() const {
    return impl_->port();
}

std::string FixtureHttpServer::url() const {
    return "http://127.0.0.1:" + std::to_string(impl_->port());
}

void FixtureHttpServer::Stop() {
    impl_->Stop();
}

}  // namespace orch::test
