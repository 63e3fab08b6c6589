#pragma once

// The conformance suite's one rule: every form the TOSCA Simple Profile's grammar allows comes
// with a valid template (accepted in compat and strict modes) and an invalid one (refused with
// its reason: in strict mode always, in compat mode unless the form is one compat tolerates with
// a warning). The templates are written from the spec text (sections named in each case).
#include "../tosca_test_util.hpp"

#include <catch2/catch.hpp>

#include <string>
#include <string_view>

namespace orch::tosca::test {

/// How compat mode treats the invalid template of a case (strict always refuses it).
enum class Compat { kRefuses, kWarns };

struct FormCase {
    std::string_view section;  ///< the spec section, "1.3 §4.4.2" (for the failure message)
    std::string valid;         ///< a complete template
    std::string invalid;       ///< the same form, broken
    std::string_view reason;   ///< text the invalid template's finding must contain
    Compat compat = Compat::kRefuses;
};

/// A TOSCA 1.x template: the version line, then `body` as written.
inline std::string Tosca(std::string_view body, std::string_view version = "tosca_simple_yaml_1_3") {
    return "tosca_definitions_version: " + std::string(version) + "\n" + std::string(body);
}

/// Checks one case in both modes with `check(text, mode)` (the shared engine by default).
template <typename CheckFn>
void ExpectForm(const FormCase& form, CheckFn check) {
    INFO("spec " << form.section);
    for (const Mode mode : {Mode::kCompat, Mode::kStrict}) {
        const bool strict = mode == Mode::kStrict;
        INFO((strict ? "strict" : "compat") << " mode");
        const TemplateCheck valid = check(form.valid, mode);
        INFO("valid template:\n" << form.valid << "findings:\n" << Dump(valid));
        CHECK(valid.valid());
        const TemplateCheck invalid = check(form.invalid, mode);
        INFO("invalid template:\n" << form.invalid << "findings:\n" << Dump(invalid));
        if (strict || form.compat == Compat::kRefuses) {
            CHECK_FALSE(invalid.valid());
            CHECK(Find(invalid, form.reason) != nullptr);
        } else {
            CHECK(invalid.valid());
            CHECK(Find(invalid, form.reason, "", Severity::kWarning) != nullptr);
        }
    }
}

inline void ExpectForm(const FormCase& form) {
    ExpectForm(form, [](const std::string& text, Mode mode) { return Check(text, std::nullopt, mode); });
}

}  // namespace orch::tosca::test
