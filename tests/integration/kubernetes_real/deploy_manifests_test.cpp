// Issue 23: the orchestrator's own Kubernetes manifests (deploy/kubernetes/*.yaml) pass a
// server-side dry run on the real kube-apiserver 1.20 (scripts/kube/start), as `kubectl apply
// --dry-run=server -f deploy/kubernetes/` would run them: each object is POSTed with
// ?dryRun=All after its namespace exists, so admission, defaulting and validation are the real
// server's and nothing is stored. A 1.20 server drops unknown fields silently, so every field
// sent must come back in the answer (a misspelt probe field would otherwise pass). The
// manifests must also hold what the issue asks for: replicas, the database URL and token key
// from a Secret, probes on /healthz and /readyz, metrics scraping, a Service for the pods.
#include "kube_checks.hpp"
#include "kube_rig.hpp"

#include <catch2/catch.hpp>
#include <test_support/test_env.hpp>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

using orch::Json;
namespace rig = orch::test::kube;
namespace fs = std::filesystem;

namespace {

// YAML 1.2 core schema for plain scalars, enough for manifests; quoted and block scalars are
// strings (yaml-cpp tags them "!").
Json Scalar(const YAML::Node& node) {
    const std::string& text = node.Scalar();
    if (node.Tag() == "!") {
        return text;
    }
    if (text.empty() || text == "~" || text == "null") {
        return nullptr;
    }
    if (text == "true" || text == "false") {
        return text == "true";
    }
    long long number = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), number);
    if (error == std::errc() && end == text.data() + text.size()) {
        return number;
    }
    return text;
}

Json ToJson(const YAML::Node& node) {
    switch (node.Type()) {
        case YAML::NodeType::Map: {
            Json out = Json::object();
            for (const auto& entry : node) {
                out[entry.first.Scalar()] = ToJson(entry.second);
            }
            return out;
        }
        case YAML::NodeType::Sequence: {
            Json out = Json::array();
            for (const auto& item : node) {
                out.push_back(ToJson(item));
            }
            return out;
        }
        case YAML::NodeType::Scalar:
            return Scalar(node);
        default:
            return nullptr;
    }
}

struct Manifest {
    std::string file;
    Json object;
};

// Every object of deploy/kubernetes, in the order `kubectl apply -f` takes the files (by name).
std::vector<Manifest> Manifests() {
    std::vector<std::string> files;
    for (const auto& entry : fs::directory_iterator(orch::test::SourceDir() + "/deploy/kubernetes")) {
        if (entry.path().extension() == ".yaml") {
            files.push_back(entry.path().string());
        }
    }
    std::sort(files.begin(), files.end());
    std::vector<Manifest> out;
    for (const auto& file : files) {
        for (const auto& doc : YAML::LoadAllFromFile(file)) {
            if (doc.IsMap()) {
                out.push_back({fs::path(file).filename().string(), ToJson(doc)});
            }
        }
    }
    return out;
}

// The collection an object is created in: core kinds under /api/v1, the rest under /apis.
std::string Collection(const Json& object) {
    const std::string version = object.value("apiVersion", "");
    std::string plural = object.value("kind", "");
    std::transform(plural.begin(), plural.end(), plural.begin(), [](unsigned char c) { return std::tolower(c); });
    plural += plural.back() == 's' ? "es" : "s";
    const std::string ns = object["metadata"].value("namespace", "");
    return (version == "v1" ? "/api/v1" : "/apis/" + version) + (ns.empty() ? "" : "/namespaces/" + ns) + "/" + plural;
}

// The one object of `kind` among the manifests.
const Json& Find(const std::vector<Manifest>& manifests, const std::string& kind) {
    const auto it = std::find_if(manifests.begin(), manifests.end(), [&](const Manifest& m) {
        return m.object.value("kind", "") == kind;
    });
    REQUIRE(it != manifests.end());
    return it->object;
}

// The namespace the namespaced objects are dry-run in, created for real (a dry run of the
// Namespace stores nothing, and the server refuses objects in a namespace that does not exist)
// and deleted at the end, whatever the test did.
struct RealNamespace {
    std::string name;
    explicit RealNamespace(const Json& object) : name(object["metadata"].value("name", "")) {
        const auto created = rig::AdminCall("POST", "/api/v1/namespaces", &object);
        INFO(created.body.dump());
        REQUIRE((created.status == 201 || created.status == 409));
    }
    RealNamespace(const RealNamespace&) = delete;
    RealNamespace& operator=(const RealNamespace&) = delete;
    ~RealNamespace() {
        try {
            rig::AdminCall("DELETE", "/api/v1/namespaces/" + name);
        } catch (const std::exception&) {
            // The control plane is gone already; the fixture's stop removes everything anyway.
        }
    }
};

// What the dry run must give back of `sent`. A Secret's stringData is write-only: the server
// answers it as base64 `data`, so only its keys are compared.
std::vector<std::string> DroppedByDryRun(const Json& sent, const Json& answer) {
    Json expected = sent;
    if (sent.value("kind", "") == "Secret" && sent.contains("stringData")) {
        expected.erase("stringData");
        std::vector<std::string> out = rig::Dropped(expected, answer, "Secret");
        for (const auto& [key, value] : sent["stringData"].items()) {
            if (!answer.value("data", Json::object()).contains(key)) {
                out.push_back("Secret/data/" + key);
            }
        }
        return out;
    }
    return rig::Dropped(expected, answer, sent.value("kind", ""));
}

}  // namespace

TEST_CASE("deploy/kubernetes passes a server-side dry run on the real API server", "[kubernetes_real][deploy]") {
    rig::TheRig();  // skips when the control plane is not built
    const auto manifests = Manifests();
    REQUIRE(manifests.size() >= 5);
    const Json& ns_object = Find(manifests, "Namespace");
    const Json namespaced_probe = {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", ns_object["metadata"]}};
    std::unique_ptr<RealNamespace> real_ns;
    for (const auto& m : manifests) {
        const std::string kind = m.object.value("kind", "");
        INFO(m.file << ": " << kind << " " << m.object["metadata"].value("name", ""));
        const std::string collection = Collection(m.object);
        const auto answer = rig::AdminCall("POST", collection + "?dryRun=All", &m.object);
        INFO(answer.body.dump());
        CHECK(answer.status == 201);
        CHECK(DroppedByDryRun(m.object, answer.body) == std::vector<std::string>{});
        if (kind == "Namespace") {
            CHECK(rig::AdminCall("GET", collection + "/" + m.object["metadata"].value("name", "")).status == 404);
            real_ns = std::make_unique<RealNamespace>(namespaced_probe);
        } else {
            // A dry run stores nothing.
            CHECK(rig::AdminCall("GET", collection + "/" + m.object["metadata"].value("name", "")).status == 404);
        }
    }
    CHECK(real_ns != nullptr);
}

TEST_CASE(
    "deploy/kubernetes runs replicas with the database URL and token key from a Secret, probes /healthz and "
    "/readyz, and is scraped for metrics",
    "[kubernetes_real][deploy]"
) {
    const auto manifests = Manifests();
    const Json& deployment = Find(manifests, "Deployment");
    const Json& secret = Find(manifests, "Secret");
    const Json& service = Find(manifests, "Service");
    const Json& config = Find(manifests, "ConfigMap");
    CHECK(deployment["spec"].value("replicas", 0) >= 2);
    const Json& pod = deployment["spec"]["template"];
    const Json& container = pod["spec"]["containers"][0];
    CHECK(container["livenessProbe"]["httpGet"]["path"] == "/healthz");
    CHECK(container["readinessProbe"]["httpGet"]["path"] == "/readyz");
    CHECK(container["envFrom"][0]["secretRef"]["name"] == secret["metadata"]["name"]);
    CHECK(secret["stringData"].contains("ORCHESTRATOR_DB_URL"));
    CHECK(secret["stringData"].contains("ORCHESTRATOR_AUTH__TOKEN_KEY"));
    CHECK(pod["metadata"]["annotations"]["prometheus.io/scrape"] == "true");
    CHECK(pod["metadata"]["annotations"]["prometheus.io/path"] == "/metrics");
    // The Service selects exactly the Deployment's pods, on the port the container serves.
    CHECK(service["spec"]["selector"] == deployment["spec"]["selector"]["matchLabels"]);
    CHECK(service["spec"]["ports"][0]["targetPort"] == container["ports"][0]["name"]);
    // The configuration file the container is given comes from the ConfigMap.
    CHECK(container["args"][1] == "/etc/orchestrator/orchestrator.yaml");
    CHECK(config["data"].contains("orchestrator.yaml"));
    CHECK(pod["spec"]["volumes"][0]["configMap"]["name"] == config["metadata"]["name"]);
}
