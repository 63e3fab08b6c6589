// The redaction rule of GET /deployments/{id}/diagnostics: which inputs are secrets, and that
// their values (and secret-named members inside other values) never come out.
#include <tosca/sensitive_inputs.hpp>

#include <catch2/catch.hpp>

namespace {

using orch::Json;

constexpr const char* kTemplate = R"(tosca_definitions_version: tosca_simple_yaml_1_0
topology_template:
  inputs:
    os_password: {type: string}
    AccessToken: {type: string}
    vault_pin:
      type: string
      metadata: {sensitive: "true"}
    db_login: {type: my.datatypes.Secret}
    num_gpus: {type: integer, default: 1}
    image:
      type: string
      metadata: {sensitive: false}
  node_templates: {}
)";

}  // namespace

TEST_CASE("sensitive inputs: by name, by type name, and by the template's mark", "[tosca][redaction]") {
    const auto names = orch::tosca::SensitiveInputNames(kTemplate);
    CHECK(names == std::set<std::string>{"AccessToken", "db_login", "os_password", "vault_pin"});
}

TEST_CASE("sensitive names: the listed words in any case, nothing looser", "[tosca][redaction]") {
    for (const char* name :
         {"password",
          "MYSQL_ROOT_PASSWD",
          "client_secret",
          "refreshToken",
          "ssh_private_key",
          "credentials",
          "api_key",
          "ApiKey",
          "aws_access_key"}) {
        INFO(name);
        CHECK(orch::tosca::IsSensitiveName(name));
    }
    for (const char* name : {"num_gpus", "image", "pass", "public_key", "keyword", ""}) {
        INFO(name);
        CHECK_FALSE(orch::tosca::IsSensitiveName(name));
    }
}

TEST_CASE("redaction hides secret values, secret members of other values, and nothing else", "[tosca][redaction]") {
    const Json parameters = {
        {"os_password", "hunter2"},
        {"vault_pin", 1234},
        {"num_gpus", 2},
        {"env", {{"USER", "bob"}, {"GITHUB_TOKEN", "ghp_x"}, {"list", Json::array({{{"secret", "s"}}})}}},
        {"not_an_input_password", "p"}};  // accepted under tosca.unknown_parameters: ignore
    const Json out = orch::tosca::RedactInputs(parameters, orch::tosca::SensitiveInputNames(kTemplate));
    CHECK(out["os_password"] == "<redacted>");
    CHECK(out["vault_pin"] == "<redacted>");
    CHECK(out["not_an_input_password"] == "<redacted>");
    CHECK(out["num_gpus"] == 2);
    CHECK(out["env"]["USER"] == "bob");
    CHECK(out["env"]["GITHUB_TOKEN"] == "<redacted>");
    CHECK(out["env"]["list"][0]["secret"] == "<redacted>");
    CHECK(out.dump().find("hunter2") == std::string::npos);
}

TEST_CASE("an unreadable template still redacts by name", "[tosca][redaction]") {
    CHECK(orch::tosca::SensitiveInputNames("topology_template: [unclosed").empty());
    const Json out = orch::tosca::RedactInputs({{"admin_token", "t"}, {"size", 1}}, {});
    CHECK(out == Json{{"admin_token", "<redacted>"}, {"size", 1}});
}

TEST_CASE("the template keeps its layout with sensitive defaults replaced in place", "[tosca][redaction]") {
    const std::string text = R"(tosca_definitions_version: tosca_simple_yaml_1_0
topology_template:
  inputs:
    admin_password:
      type: string
      default: hunter2   # the secret
    api_token: {type: string, default: "tok\"en"}
    pin: {type: string, default: 'it''s', metadata: {sensitive: true}}
    num_gpus: {type: integer, default: 1}
  node_templates: {}
)";
    const auto redaction = orch::tosca::RedactTemplate(text);
    CHECK_FALSE(redaction.withheld);
    CHECK(redaction.sensitive_inputs == std::set<std::string>{"admin_password", "api_token", "pin"});
    const std::string expected = R"(tosca_definitions_version: tosca_simple_yaml_1_0
topology_template:
  inputs:
    admin_password:
      type: string
      default: "<redacted>"   # the secret
    api_token: {type: string, default: "<redacted>"}
    pin: {type: string, default: "<redacted>", metadata: {sensitive: true}}
    num_gpus: {type: integer, default: 1}
  node_templates: {}
)";
    CHECK(redaction.text == expected);
}

TEST_CASE("a sensitive default that cannot be cut out withholds the whole template", "[tosca][redaction]") {
    const auto redaction = orch::tosca::RedactTemplate(R"(tosca_definitions_version: tosca_simple_yaml_1_0
topology_template:
  inputs:
    ssh_private_key:
      type: string
      default: |
        -----BEGIN KEY-----
        abc
  node_templates: {}
)");
    CHECK(redaction.withheld);
    CHECK(redaction.text.find("abc") == std::string::npos);
    CHECK(redaction.text.find("ssh_private_key") != std::string::npos);
}
