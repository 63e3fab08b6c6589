#include "oidc_provider.hpp"

#include "orchestrator/auth/base64.hpp"
#include "test_support/test_env.hpp"

#include <unistd.h>

#include <array>
#include <cstdio>
#include <fstream>
#include <map>
#include <mutex>
#include <stdexcept>

namespace orch::test {
namespace {

std::string Run(const std::string& command) {
    std::string output;
    FILE* pipe = popen(command.c_str(), "r");
    if (pipe == nullptr) {
        throw std::runtime_error("cannot run " + command);
    }
    std::array<char, 512> buf{};
    while (fgets(buf.data(), buf.size(), pipe) != nullptr) {
        output += buf.data();
    }
    if (pclose(pipe) != 0) {
        throw std::runtime_error("command failed: " + command + "\n" + output);
    }
    return output;
}

std::string Trimmed(std::string text) {
    while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) {
        text.pop_back();
    }
    return text;
}

std::string Script(const std::string& name) {
    return SourceDir() + "/scripts/oidc/" + name;
}

const std::map<std::string, std::string>& FixtureProfiles() {
    static const std::map<std::string, std::string> kProfiles = {
        {"alpha", "full"}, {"beta", "minimal"}, {"gamma", "wlcg"}};
    return kProfiles;
}

std::string FormValue(const std::string& text) {
    return http::UrlEncode(text);
}

}  // namespace

OidcProvider::OidcProvider(std::string dir, std::string issuer, bool owned)
    : dir_(std::move(dir)), issuer_(std::move(issuer)), owned_(owned) {
    auto client = http::MakeClient({});
    if (!client) {
        throw std::runtime_error(client.error().message);
    }
    http_ = std::move(*client);
}

OidcProvider::~OidcProvider() {
    if (owned_) {
        if (std::system((Script("stop") + " '" + dir_ + "' >/dev/null 2>&1 && rm -rf '" + dir_ + "'").c_str()) != 0) {
            std::fprintf(stderr, "could not stop the test OIDC provider in %s\n", dir_.c_str());
        }
    }
}

OidcProvider& OidcProvider::Shared(const std::string& name) {
    static std::mutex mutex;
    static std::map<std::string, std::unique_ptr<OidcProvider>> providers;
    const std::lock_guard lock(mutex);
    auto& slot = providers[name];
    if (slot) {
        return *slot;
    }
    const std::string fixture_dir = BinaryDir() + "/test-oidc/" + name;
    std::ifstream in(fixture_dir + "/issuer");
    std::string issuer;
    if (in && std::getline(in, issuer) && !issuer.empty()) {
        slot.reset(new OidcProvider(fixture_dir, issuer, false));
    } else {
        // Not under the CTest fixture: start our own for this process.
        slot = StartOwn(name, FixtureProfiles().at(name));
    }
    return *slot;
}

std::unique_ptr<OidcProvider> OidcProvider::StartOwn(
    const std::string& name, const std::string& profile, int access_token_ttl
) {
    const std::string dir = BinaryDir() + "/test-oidc-own/" + name + "-" + std::to_string(getpid());
    const std::string ttl =
        access_token_ttl > 0 ? "OIDC_TEST_ACCESS_TOKEN_TTL=" + std::to_string(access_token_ttl) + " " : "";
    // The provider watches this process, so even a test killed mid-way leaves no server behind.
    const std::string issuer = Trimmed(
        Run(ttl + Script("start") + " '" + dir + "' " + name + " " + profile + " " + std::to_string(getpid()) +
            " 2>/dev/null")
    );
    return std::unique_ptr<OidcProvider>(new OidcProvider(dir, issuer, true));
}

Json OidcProvider::Call(
    const std::string& method,
    const std::string& path,
    const std::string& body,
    const std::string& content_type,
    const std::string& basic
) {
    http::ClientRequest request;
    request.method = method;
    request.url = issuer_ + path;
    request.body = body;
    if (!content_type.empty()) {
        request.headers.emplace_back("Content-Type", content_type);
    }
    if (!basic.empty()) {
        request.headers.emplace_back("Authorization", "Basic " + auth::Base64Encode(basic));
    }
    auto response = http_->Send(request);
    if (!response) {
        throw std::runtime_error("provider call failed: " + response.error().message);
    }
    auto json = ParseJson(response->body);
    if (!json) {
        throw std::runtime_error("provider answered non-JSON: " + response->body);
    }
    if (response->status != 200) {
        throw std::runtime_error("provider answered " + std::to_string(response->status) + ": " + response->body);
    }
    return *json;
}

OidcProvider::Tokens OidcProvider::UserToken(
    const std::string& username, const std::string& scope, const std::string& client, const std::string& extra_form
) {
    const std::string form =
        "grant_type=urn%3Atest%3Apassword&username=" + FormValue(username) + "&scope=" + FormValue(scope) + extra_form;
    const Json answer =
        Call("POST", "token", form, "application/x-www-form-urlencoded", client + ":" + client + "-secret");
    Tokens tokens;
    tokens.access_token = answer.at("access_token").get<std::string>();
    tokens.refresh_token = answer.value("refresh_token", "");
    tokens.claims = UnverifiedPayload(tokens.access_token);
    return tokens;
}

std::string OidcProvider::Sign(const Json& payload, const Json& header, const std::string& key) {
    return Call(
               "POST",
               "test/sign",
               Json{{"payload", payload}, {"header", header}, {"key", key}}.dump(),
               "application/json"
    )
        .at("token")
        .get<std::string>();
}

std::string OidcProvider::RotateKey(bool drop_old) {
    return Call("POST", "test/rotate", Json{{"drop_old", drop_old}}.dump(), "application/json")
        .at("kid")
        .get<std::string>();
}

Json OidcProvider::Jwks() {
    return Call("GET", "jwk", "", "");
}

Json OidcProvider::Users() {
    return Call("GET", "test/users", "", "");
}

Json OidcProvider::RegisteredClients() {
    return Call("GET", "test/clients", "", "").at("clients");
}

std::string AuthYaml(const std::vector<std::string>& names, const std::string& issuer_extra, const std::string& extra) {
    std::string yaml = "auth:\n  mode: oidc\n  token_key: " + std::string(64, '7') + "\n" + extra + "  issuers:\n";
    for (const auto& name : names) {
        yaml += "    " + name + ":\n      issuer: " + OidcProvider::Shared(name).issuer() +
                "\n      client_id: orchestrator\n      client_secret: orchestrator-secret\n"
                "      algorithms: [RS256, ES256]\n" +
                issuer_extra;
        if (name == "gamma") {
            yaml += "      groups_claim: wlcg.groups\n";
        }
    }
    return yaml;
}

Json UnverifiedPayload(const std::string& token) {
    const auto first = token.find('.');
    const auto second = token.find('.', first + 1);
    auto bytes = auth::Base64UrlDecode(token.substr(first + 1, second - first - 1));
    if (!bytes) {
        throw std::runtime_error("not a JWT");
    }
    return Json::parse(*bytes);
}

Result<http::ClientResponse> CountingClient::Send(const http::ClientRequest& request) {
    {
        const std::lock_guard lock(mutex_);
        urls_.push_back(request.url);
    }
    return inner_.Send(request);
}

int CountingClient::Count(const std::string& url_suffix) const {
    const std::lock_guard lock(mutex_);
    int count = 0;
    for (const auto& url : urls_) {
        if (url.size() >= url_suffix.size() &&
            url.compare(url.size() - url_suffix.size(), url_suffix.size(), url_suffix) == 0) {
            ++count;
        }
    }
    return count;
}

}  // namespace orch::test
