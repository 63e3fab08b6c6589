#include "connector_test_util.hpp"

#include <connectors/chronos_connector.hpp>
#include <connectors/kubernetes_connector.hpp>
#include <connectors/marathon_connector.hpp>
#include <connectors/naming.hpp>
#include <connectors/registry.hpp>
#include <connectors/rest_client.hpp>
#include <connectors/workload.hpp>

#include <catch2/catch.hpp>

using namespace orch::connectors;
using namespace orch::connectors::test;
using orch::Error;
using orch::Json;

TEST_CASE("transport errors and HTTP statuses map to retry here / another site / user error", "[connectors][rest]") {
    CHECK(ClassifyTransportError(Error::DeadlineExceeded("timed out"), "site").kind == FailureKind::kRetryHere);
    CHECK(ClassifyTransportError(Error::Unavailable("refused"), "site").kind == FailureKind::kRetryHere);
    CHECK(ClassifyTransportError(Error::ResourceExhausted("too big"), "site").kind == FailureKind::kRetryHere);
    CHECK(ClassifyTransportError(Error::InvalidArgument("bad url"), "site").kind == FailureKind::kTryAnotherSite);
    for (int status : {408, 429, 500, 502, 503, 504}) {
        CHECK(ClassifyHttpStatus(status, "", "x").kind == FailureKind::kRetryHere);
    }
    for (int status : {401, 403}) {
        CHECK(ClassifyHttpStatus(status, "", "x").kind == FailureKind::kTryAnotherSite);
    }
    for (int status : {400, 404, 409, 422}) {
        CHECK(ClassifyHttpStatus(status, "", "x").kind == FailureKind::kUserError);
    }
    const Failure f = ClassifyHttpStatus(422, "Object is not valid", "creating app");
    CHECK(f.message == "creating app failed with HTTP 422: Object is not valid");
}

TEST_CASE("server messages come from Marathon, Kubernetes and Chronos bodies", "[connectors][rest]") {
    CHECK(
        ServerMessage(R"({"message":"Object is not valid","details":[{"path":"/gpus","errors":["bad"]}]})") ==
        "Object is not valid; /gpus: [\"bad\"]"
    );
    CHECK(ServerMessage(R"({"kind":"Status","message":"namespaces \"x\" not found"})") == "namespaces \"x\" not found");
    CHECK(ServerMessage("Job 'x' not found") == "Job 'x' not found");
    CHECK(ServerMessage(std::string(1000, 'a')).size() < 450);
}

TEST_CASE("RestClient sends JSON with auth and bounds, and parses answers", "[connectors][rest]") {
    auto scripted = std::make_shared<ScriptedHttpClient>();
    scripted->PushStatus(200, R"({"ok":true})");
    scripted->PushStatus(200, "{broken");
    scripted->Push(Error::Unavailable("refused"));
    Credentials credentials;
    credentials.bearer_token = "secret-token";
    CallOptions options;
    options.timeout = std::chrono::milliseconds(1234);
    RestClient rest(scripted, "http://api.example/", AuthHeaders(credentials), options, "Test site");
    const Json body = {{"a", 1}};
    const RestResponse r = Ok(rest.Call("POST", "/v2/x", &body));
    CHECK(Ok(rest.ParseBody(r, "x"))["ok"] == true);
    const auto& sent = scripted->sent[0];
    CHECK(sent.url == "http://api.example/v2/x");
    CHECK(sent.timeout == std::chrono::milliseconds(1234));
    CHECK(orch::http::FindHeader(sent.headers, "Authorization") == "Bearer secret-token");
    CHECK(orch::http::FindHeader(sent.headers, "Content-Type") == "application/json");
    CHECK(sent.body == R"({"a":1})");
    const RestResponse broken = Ok(rest.Call("GET", "/y"));
    CHECK(Fails(rest.ParseBody(broken, "reading y")).kind == FailureKind::kRetryHere);
    const Failure refused = Fails(rest.Call("GET", "/z"));
    CHECK(refused.kind == FailureKind::kRetryHere);
    CHECK(refused.message.find("Test site") != std::string::npos);
    CHECK(refused.message.find("secret-token") == std::string::npos);
}

TEST_CASE("basic auth, base64 and shell quoting", "[connectors][rest]") {
    CHECK(Base64Encode("") == "");
    CHECK(Base64Encode("f") == "Zg==");
    CHECK(Base64Encode("fo") == "Zm8=");
    CHECK(Base64Encode("foo") == "Zm9v");
    Credentials c;
    c.username = "alice";
    c.password = "secret";
    CHECK(AuthHeaders(c)[0].second == "Basic YWxpY2U6c2VjcmV0");
    CHECK(AuthHeaders(Credentials{}).empty());
    CHECK(ShellJoin("run", {"a b", "it's"}) == "run 'a b' 'it'\\''s'");
    CHECK(ShellJoin("", {"x"}) == "'x'");
}

TEST_CASE("names derived from TOSCA node names and deployment ids", "[connectors][naming]") {
    CHECK(DnsLabel("My_App.v2") == "my-app-v2");
    CHECK(DnsLabel("---") == "x");
    CHECK(DnsLabel(std::string(100, 'a')).size() == 63);
    CHECK(Dns1035Label("9lives") == "n-9lives");
    CHECK(MarathonIdSegment("Web_App") == "web-app");
    CHECK(MarathonIdSegment(".x-") == "x");
    CHECK(ChronosName("dep-job #1") == "dep-job--1");
    const auto unique = UniqueNames(
        {"a_b", "a-b", "A.B"}, [](std::string_view s) { return DnsLabel(s); }, 63
    );
    CHECK(unique == std::vector<std::string>{"a-b", "a-b-2", "a-b-3"});
}

TEST_CASE("GPU model constraints match agent attributes loosely", "[connectors][naming]") {
    const std::string re = GpuModelRegex("Tesla V100");
    CHECK(re == "(?i).*Tesla[-_ ]?V100.*");
    CHECK(orch::sim::MarathonLikeMatches(re, "tesla-v100-pcie-16gb"));
    CHECK(orch::sim::MarathonLikeMatches(re, "NVIDIA Tesla V100"));
    CHECK_FALSE(orch::sim::MarathonLikeMatches(re, "tesla-t4"));
    CHECK(orch::sim::MarathonLikeMatches(GpuModelRegex("A100 (40GB)"), "nvidia-a100-(40gb)"));
}

TEST_CASE("the registry hands out the connector registered for a kind", "[connectors][registry]") {
    ScriptedHttpClient client;
    SharedClientFactory factory(client);
    OwningConnectorRegistry registry;
    CHECK(registry.Find(TargetKind::kMarathon) == nullptr);
    registry.Register(std::make_unique<MarathonConnector>(factory));
    registry.Register(std::make_unique<ChronosConnector>(factory));
    registry.Register(std::make_unique<KubernetesConnector>(factory));
    registry.Register(nullptr);
    CHECK(registry.size() == 3);
    REQUIRE(registry.Find(TargetKind::kChronos) != nullptr);
    CHECK(registry.Find(TargetKind::kChronos)->kind() == TargetKind::kChronos);
    CHECK(registry.Find(TargetKind::kKubernetes)->kind() == TargetKind::kKubernetes);
    CHECK(registry.Find(TargetKind::kOpenStack) == nullptr);
}

TEST_CASE("a site's version text reaches users bounded and printable only", "[connectors]") {
    using orch::connectors::BoundedVersion;
    CHECK(BoundedVersion("1.7.236") == "1.7.236");
    CHECK(BoundedVersion("") == "unknown");
    CHECK(BoundedVersion("v1\n<script>\x01") == "v1?<script>?");
    CHECK(BoundedVersion(std::string(1000, '9')).size() == 64);
}
