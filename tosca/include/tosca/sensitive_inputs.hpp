#pragma once

#include "common/json.hpp"

#include <set>
#include <string>
#include <string_view>

namespace orch::tosca {

/// The value shown instead of a secret.
inline constexpr std::string_view kRedacted = "<redacted>";

/// Whether a name says it holds a secret: it contains, ignoring case, one of password, passwd,
/// secret, token, credential, private, api_key, apikey or access_key (`os_password`,
/// `AccessToken`, `ssh_private_key`). Names are compared as written, so `pass` alone is not one.
bool IsSensitiveName(std::string_view name);

/// The inputs of `template_text` whose values must not be shown (diagnostics, support tickets):
/// an input is sensitive when its name is (IsSensitiveName), when its type's name is (a custom
/// `my.datatypes.Password`), or when the template marks it with `metadata: {sensitive: true}`.
/// A template that cannot be read yields no names (the name rule still applies to values).
std::set<std::string> SensitiveInputNames(std::string_view template_text);

/// A template as a support ticket may show it: the sensitive inputs, and the text with the
/// `default` of each of them replaced by "<redacted>" in place (formatting kept). When a default
/// cannot be replaced in place (a block scalar, a list, a map), the whole text is withheld and
/// says so: a secret never comes out because of its layout.
struct TemplateRedaction {
    std::set<std::string> sensitive_inputs;
    std::string text;
    bool withheld = false;
};
TemplateRedaction RedactTemplate(std::string_view template_text);

/// `parameters` (an object) with the value of every sensitive input replaced by kRedacted, and,
/// inside the other values, every object member whose key is a sensitive name (a `credentials`
/// map passed to a plain input). Values nested deeper than 64 levels are hidden whole.
Json RedactInputs(const Json& parameters, const std::set<std::string>& sensitive);

}  // namespace orch::tosca
