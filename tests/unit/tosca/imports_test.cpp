#include "imports/import_resolver.hpp"
#include "tosca_test_util.hpp"

#include <catch2/catch.hpp>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <mutex>

namespace orch::tosca {
namespace {

namespace fs = std::filesystem;
using test::Find;

/// A scratch directory removed at the end of the test.
class TempDir {
   public:
    TempDir()
        : path_(
              fs::temp_directory_path() /
              ("tosca-test-" + std::to_string(::getpid()) + "-" + std::to_string(counter_++))
          ) {
        fs::create_directories(path_);
    }
    ~TempDir() {
        std::error_code ec;
        fs::remove_all(path_, ec);
    }
    const fs::path& path() const { return path_; }
    void Write(const std::string& name, const std::string& text) const {
        fs::create_directories((path_ / name).parent_path());
        std::ofstream(path_ / name, std::ios::binary) << text;
    }

   private:
    static inline int counter_ = 0;
    fs::path path_;
};

/// Answers GETs from a map of URL → body and counts them; HTTP 404 for anything else.
class FakeClient : public http::Client {
   public:
    std::map<std::string, std::string> bodies;
    int requests = 0;
    Result<http::ClientResponse> Send(const http::ClientRequest& request) override {
        std::lock_guard<std::mutex> lock(mutex_);
        ++requests;
        const auto it = bodies.find(request.url);
        if (it == bodies.end()) {
            return http::ClientResponse{404, {}, "not found"};
        }
        return http::ClientResponse{200, {}, it->second};
    }

   private:
    std::mutex mutex_;
};

const char* kTypes =
    "tosca_definitions_version: tosca_simple_yaml_1_0\n"
    "node_types:\n  acme.Server:\n    derived_from: tosca.nodes.Compute\n    properties:\n      flavour: {type: "
    "string, required: false}\n";

std::string Using(const std::string& import) {
    return "tosca_definitions_version: tosca_simple_yaml_1_0\nimports:\n  - " + import +
           "\ntopology_template:\n  node_templates:\n    s: {type: acme.Server, properties: {flavour: big}}\n";
}

TEST_CASE("mirror map: a URL prefix is read from a local directory", "[tosca][imports]") {
    TempDir dir;
    dir.Write("v1/types.yaml", kTypes);
    EngineOptions options;
    options.mirrors.push_back({"https://types.example.org/v1/", dir.path().string() + "/v1/"});
    const TemplateEngine engine(options);
    const auto check = engine.Check(Using("acme: https://types.example.org/v1/types.yaml"));
    INFO(test::Dump(check));
    CHECK(check.valid());
    // Dot segments are resolved before matching, so nothing escapes the mirror directory.
    const auto escape = engine.Check(Using("https://types.example.org/v1/../../etc/passwd"));
    CHECK(Find(escape, "import https://types.example.org/etc/passwd is refused: no mirror maps it") != nullptr);
}

TEST_CASE("URL imports of hosts not on the allow-list are refused without any request", "[tosca][imports]") {
    FakeClient client;
    EngineOptions options;
    options.http_client = &client;
    options.allowed_hosts = {"types.example.org"};
    const TemplateEngine engine(options);
    const auto check = engine.Check(Using("https://evil.example.com/types.yaml"));
    const Diagnostic* d = Find(
        check,
        "import https://evil.example.com/types.yaml is refused: no mirror maps it and host 'evil.example.com' is not "
        "on the allow-list"
    );
    REQUIRE(d != nullptr);
    CHECK(d->code == DiagnosticCode::kImportRefused);
    CHECK(d->path == "imports[0]");
    CHECK(Find(engine.Check(Using("http://types.example.org/types.yaml")), "fetched over https only") != nullptr);
    CHECK(
        Find(engine.Check(Using("ftp://types.example.org/types.yaml")), "only http and https URLs can be imported") !=
        nullptr
    );
    CHECK(client.requests == 0);
}

TEST_CASE("allow-listed hosts are fetched once and cached", "[tosca][imports]") {
    FakeClient client;
    client.bodies["https://types.example.org/types.yaml"] = kTypes;
    EngineOptions options;
    options.http_client = &client;
    options.allowed_hosts = {"Types.Example.org"};
    const TemplateEngine engine(options);
    for (int i = 0; i < 3; ++i) {
        const auto check = engine.Check(Using("https://types.example.org/types.yaml"));
        INFO(test::Dump(check));
        CHECK(check.valid());
    }
    CHECK(client.requests == 1);
    CHECK(engine.Stats().hits == 2);
    const auto missing = engine.Check(Using("https://types.example.org/other.yaml"));
    CHECK(
        Find(
            missing, "Failed to fetch remote TOSCA dependency https://types.example.org/other.yaml: HTTP status 404"
        ) != nullptr
    );
    (void)engine.Check(Using("https://types.example.org/other.yaml"));
    CHECK(client.requests == 2);  // failures are remembered for a while too
}

TEST_CASE("a fetched import is reused until fetched_ttl of clock time, a failure for 30 s", "[tosca][imports]") {
    // The expiry is read from the injected clock: before, the resolver read steady_clock itself,
    // so this could only be shown by sleeping ten minutes.
    FakeClient client;
    client.bodies["https://types.example.org/types.yaml"] = kTypes;
    ManualClock clock;
    EngineOptions options;
    options.http_client = &client;
    options.allowed_hosts = {"types.example.org"};
    options.fetched_ttl = std::chrono::seconds(600);
    options.clock = &clock;
    const TemplateEngine engine(options);
    const std::string good = Using("https://types.example.org/types.yaml");
    REQUIRE(engine.Check(good).valid());
    clock.Advance(std::chrono::seconds(599));
    REQUIRE(engine.Check(good).valid());
    CHECK(client.requests == 1);
    clock.Advance(std::chrono::seconds(2));
    REQUIRE(engine.Check(good).valid());
    CHECK(client.requests == 2);  // expired: fetched again

    const std::string missing = Using("https://types.example.org/missing.yaml");
    CHECK_FALSE(engine.Check(missing).valid());
    clock.Advance(std::chrono::seconds(29));
    CHECK_FALSE(engine.Check(missing).valid());
    CHECK(client.requests == 3);  // the failure is remembered
    client.bodies["https://types.example.org/missing.yaml"] = kTypes;
    clock.Advance(std::chrono::seconds(2));
    CHECK(engine.Check(missing).valid());
    CHECK(client.requests == 4);  // and retried once its 30 s are over
}

TEST_CASE("relative imports resolve against the importing document", "[tosca][imports]") {
    FakeClient client;
    client.bodies["https://types.example.org/a/main.yaml"] =
        "tosca_definitions_version: tosca_simple_yaml_1_0\nimports:\n  - ../b/base.yaml\n";
    client.bodies["https://types.example.org/b/base.yaml"] = kTypes;
    EngineOptions options;
    options.http_client = &client;
    options.allowed_hosts = {"types.example.org"};
    const auto check = TemplateEngine(options).Check(Using("https://types.example.org/a/main.yaml"));
    INFO(test::Dump(check));
    CHECK(check.valid());
    CHECK(JoinUrl("https://h/a/b/c.yaml", "../d.yaml") == "https://h/a/d.yaml");
    CHECK(JoinUrl("https://h/a/b/c.yaml", "/x/y.yaml") == "https://h/x/y.yaml");
    CHECK(JoinUrl({}, "https://h/a/./b/../c.yaml?q=1") == "https://h/a/c.yaml?q=1");
}

TEST_CASE("file imports: relative to the template for tosca-check, refused for the server", "[tosca][imports]") {
    TempDir dir;
    dir.Write("types/acme.yaml", kTypes);
    const std::string text = Using("types/acme.yaml");
    TemplateRequest request;
    request.base_directory = dir.path().string();
    EngineOptions files;
    files.allow_file_imports = true;
    CHECK(TemplateEngine(files).Check(text, request).valid());
    const auto refused = TemplateEngine(EngineOptions{}).Check(text, request);
    CHECK(Find(refused, "is a local file name; templates submitted to the server can only import URLs") != nullptr);
    const auto missing = TemplateEngine(files).Check(Using("types/none.yaml"), request);
    CHECK(Find(missing, "Failed to fetch remote TOSCA dependency") != nullptr);
}

TEST_CASE("a changed import file is read again", "[tosca][imports]") {
    TempDir dir;
    dir.Write("t.yaml", kTypes);
    EngineOptions options;
    options.allow_file_imports = true;
    const TemplateEngine engine(options);
    TemplateRequest request;
    request.base_directory = dir.path().string();
    CHECK(engine.Check(Using("t.yaml"), request).valid());
    dir.Write(
        "t.yaml",
        "tosca_definitions_version: tosca_simple_yaml_1_0\nnode_types:\n  acme.Server: {derived_from: "
        "tosca.nodes.Compute}\n"
    );
    const auto check = engine.Check(Using("t.yaml"), request);
    CHECK(Find(check, "property 'flavour' is not declared by node type acme.Server") != nullptr);
}

TEST_CASE("repositories, import cycles, depth and bad imported documents", "[tosca][imports]") {
    FakeClient client;
    client.bodies["https://types.example.org/repo/acme.yaml"] = kTypes;
    client.bodies["https://types.example.org/loop/a.yaml"] =
        "tosca_definitions_version: tosca_simple_yaml_1_0\nimports: [b.yaml]\n";
    client.bodies["https://types.example.org/loop/b.yaml"] =
        std::string("tosca_definitions_version: tosca_simple_yaml_1_0\nimports: [a.yaml]\n") +
        (kTypes + std::string(kTypes).find("node_types"));
    client.bodies["https://types.example.org/bad/version.yaml"] = "tosca_definitions_version: tosca_simple_yaml_1_10\n";
    client.bodies["https://types.example.org/bad/syntax.yaml"] = "node_types: [\n";
    std::string chain;
    for (int i = 0; i < 12; ++i) {
        client.bodies["https://types.example.org/deep/" + std::to_string(i) + ".yaml"] =
            "tosca_definitions_version: tosca_simple_yaml_1_0\nimports: [" + std::to_string(i + 1) + ".yaml]\n";
    }
    EngineOptions options;
    options.http_client = &client;
    options.allowed_hosts = {"types.example.org"};
    const TemplateEngine engine(options);
    const std::string with_repo =
        "tosca_definitions_version: tosca_simple_yaml_1_0\nrepositories:\n  acme_repo: {url: "
        "'https://types.example.org/repo/'}\n"
        "imports:\n  - acme: {file: acme.yaml, repository: acme_repo}\n"
        "topology_template:\n  node_templates:\n    s: {type: acme.Server}\n";
    CHECK(engine.Check(with_repo).valid());
    CHECK(engine.Check(Using("https://types.example.org/loop/a.yaml")).valid());
    CHECK(
        Find(engine.Check(Using("https://types.example.org/deep/0.yaml")), "imports nest deeper than 8 levels") !=
        nullptr
    );
    CHECK(
        Find(
            engine.Check(Using("https://types.example.org/bad/version.yaml")),
            "declares unsupported version \"tosca_simple_yaml_1_10\""
        ) != nullptr
    );
    CHECK(
        Find(
            engine.Check(Using("https://types.example.org/bad/syntax.yaml")), "Failed to parse remote TOSCA dependency"
        ) != nullptr
    );
    const std::string unknown_repo =
        "tosca_definitions_version: tosca_simple_yaml_1_0\nimports:\n  - {file: a.yaml, repository: "
        "nope}\ntopology_template: {node_templates: {s: {type: Compute}}}\n";
    CHECK(Find(engine.Check(unknown_repo), "unknown repository 'nope'") != nullptr);
}

/// The code of the first error whose message contains `text` (kGeneral when none does).
DiagnosticCode CodeOf(const TemplateCheck& check, const std::string& text) {
    const Diagnostic* d = Find(check, text);
    return d == nullptr ? DiagnosticCode::kGeneral : d->code;
}

TEST_CASE(
    "import failures carry a typed kind: refused by policy, unreachable, or the template's own fault",
    "[tosca][imports]"
) {
    FakeClient client;
    client.bodies["https://types.example.org/bad/syntax.yaml"] = "node_types: [\n";
    client.bodies["https://types.example.org/nested.yaml"] =
        "tosca_definitions_version: tosca_simple_yaml_1_0\nimports: [gone.yaml]\n";
    EngineOptions options;
    options.http_client = &client;
    options.allowed_hosts = {"types.example.org"};
    const TemplateEngine engine(options);
    // Refused: not allow-listed, plain http, a local file on the server.
    CHECK(
        CodeOf(engine.Check(Using("https://evil.example.com/t.yaml")), "is refused") == DiagnosticCode::kImportRefused
    );
    CHECK(
        CodeOf(engine.Check(Using("http://types.example.org/t.yaml")), "https only") == DiagnosticCode::kImportRefused
    );
    CHECK(CodeOf(engine.Check(Using("types/acme.yaml")), "is a local file name") == DiagnosticCode::kImportRefused);
    // Unreachable: the host answers 404, at the top or in a nested import.
    CHECK(
        CodeOf(engine.Check(Using("https://types.example.org/none.yaml")), "HTTP status 404") ==
        DiagnosticCode::kImportUnreachable
    );
    CHECK(
        CodeOf(engine.Check(Using("https://types.example.org/nested.yaml")), "gone.yaml: HTTP status 404") ==
        DiagnosticCode::kImportUnreachable
    );
    // The template's (or the imported document's) own fault stays a plain import error.
    CHECK(
        CodeOf(engine.Check(Using("ftp://types.example.org/t.yaml")), "only http and https") == DiagnosticCode::kImport
    );
    CHECK(
        CodeOf(engine.Check(Using("https://types.example.org/bad/syntax.yaml")), "Failed to parse") ==
        DiagnosticCode::kImport
    );
    // A missing file import (tosca-check) is unreachable too.
    TempDir dir;
    EngineOptions files;
    files.allow_file_imports = true;
    TemplateRequest request;
    request.base_directory = dir.path().string();
    CHECK(
        CodeOf(TemplateEngine(files).Check(Using("types/none.yaml"), request), "Failed to fetch") ==
        DiagnosticCode::kImportUnreachable
    );
}

TEST_CASE("mirror map text form, as in ORCHESTRATOR_TOSCA_MIRRORS", "[tosca][imports]") {
    const auto mirrors = ParseMirrorMap("https://a.org/x/=/srv/a ; https://b.org/=/srv/b;");
    REQUIRE(mirrors.has_value());
    REQUIRE(mirrors->size() == 2);
    CHECK((*mirrors)[0].url_prefix == "https://a.org/x/");
    CHECK((*mirrors)[0].directory == "/srv/a");
    CHECK((*mirrors)[1].directory == "/srv/b");
    CHECK_FALSE(ParseMirrorMap("https://a.org/").has_value());
    CHECK_FALSE(ParseMirrorMap("=/srv").has_value());
    CHECK(ParseMirrorMap("")->empty());
}

TEST_CASE("engine options from the server configuration", "[tosca][imports]") {
    auto config = ConfigTree::FromYaml(
        "tosca:\n  mode: strict\n  mirrors: {'https://raw.githubusercontent.com/indigo-dc/tosca-types/': /srv/types}\n "
        " allowed_hosts: [baltig.infn.it]\n  max_template_bytes: 1MiB\n",
        "test"
    );
    REQUIRE(config.has_value());
    const auto options = EngineOptionsFromConfig(*config);
    REQUIRE(options.has_value());
    CHECK(options->mode == Mode::kStrict);
    REQUIRE(options->mirrors.size() == 1);
    CHECK(options->mirrors[0].directory == "/srv/types");
    CHECK(options->allowed_hosts == std::vector<std::string>{"baltig.infn.it"});
    CHECK(options->limits.max_document_bytes == 1u << 20);
    config->ApplyEnvironment(
        {{"ORCHESTRATOR_TOSCA_MIRRORS", "https://x.org/=/a;https://y.org/=/b"}}, ToscaConfigAliases()
    );
    CHECK(EngineOptionsFromConfig(*config)->mirrors.size() == 2);
    auto bad = ConfigTree::FromYaml("tosca:\n  mode: lax\n", "test");
    CHECK_FALSE(EngineOptionsFromConfig(*bad).has_value());
}

}  // namespace
}  // namespace orch::tosca
