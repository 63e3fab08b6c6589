// concat, join and token: text functions, evaluated as soon as their arguments are known.
#include "topology/evaluator.hpp"

namespace orch::tosca {
namespace {

/// Scalar text of an evaluated concat/join argument; false for collections.
bool ScalarText(const yaml::Node& node, std::string& out) {
    if (node.IsNull()) {
        return true;
    }
    if (!node.IsScalar()) {
        return false;
    }
    out += node.text;
    return true;
}

}  // namespace

Evaluated Evaluator::Concat(const yaml::Node& call, const yaml::Node& args, const EvalScope& scope, const Path& path) {
    if (!args.IsSequence() || args.items.empty()) {
        Fail(args, path, "Invalid arguments for function \"concat\". Expected at least one argument");
        return {&call, false};
    }
    std::vector<const yaml::Node*> parts;
    bool resolved = true;
    for (std::size_t i = 0; i < args.items.size(); ++i) {
        const Evaluated part = Evaluate(*args.items[i], scope, path.Index(i));
        resolved = resolved && part.resolved;
        parts.push_back(part.value);
    }
    if (!resolved) {
        yaml::Node* list = scratch_.New(yaml::NodeKind::kSequence, args.mark);
        list->source = args.source;
        list->items = parts;
        yaml::Node* expr = scratch_.New(yaml::NodeKind::kMapping, call.mark);
        expr->source = call.source;
        expr->entries.push_back({call.entries.front().key, list});
        return {expr, false};
    }
    std::string text;
    for (std::size_t i = 0; i < parts.size(); ++i) {
        if (!ScalarText(*parts[i], text)) {
            Fail(
                *args.items[i],
                path.Index(i),
                "concat arguments must be text or numbers, not " + yaml::Describe(*parts[i])
            );
            return {&call, false};
        }
    }
    return {scratch_.StrAt(std::move(text), call), true};
}

Evaluated Evaluator::Join(const yaml::Node& call, const yaml::Node& args, const EvalScope& scope, const Path& path) {
    if (!args.IsSequence() || args.items.empty() || args.items.size() > 2) {
        Fail(args, path, "Invalid arguments for function \"join\". Expected [ [strings...], delimiter ]");
        return {&call, false};
    }
    const Evaluated list = Evaluate(*args.items[0], scope, path.Index(0));
    std::string delimiter;
    if (args.items.size() == 2) {
        if (!args.items[1]->IsScalar()) {
            Fail(*args.items[1], path.Index(1), "join: the delimiter must be text");
            return {&call, false};
        }
        delimiter = args.items[1]->text;
    }
    if (!list.resolved) {
        return {&call, false};
    }
    if (!list.value->IsSequence()) {
        Fail(
            *args.items[0], path.Index(0), "join: the first argument must be a list, not " + yaml::Describe(*list.value)
        );
        return {&call, false};
    }
    std::string text;
    for (std::size_t i = 0; i < list.value->items.size(); ++i) {
        if (i > 0) {
            text += delimiter;
        }
        if (!ScalarText(*list.value->items[i], text)) {
            Fail(
                *args.items[0],
                path.Index(0),
                "join: list items must be text, not " + yaml::Describe(*list.value->items[i])
            );
            return {&call, false};
        }
    }
    return {scratch_.StrAt(std::move(text), call), true};
}

Evaluated Evaluator::Token(const yaml::Node& call, const yaml::Node& args, const EvalScope& scope, const Path& path) {
    if (!args.IsSequence() || args.items.size() != 3) {
        Fail(
            args,
            path,
            "Invalid arguments for function \"token\". Expected three arguments: [string, separators, index]"
        );
        return {&call, false};
    }
    const yaml::Node& separators = *args.items[1];
    // A plain integer: optional<> here trips GCC's -Wmaybe-uninitialized at -O2.
    const std::int64_t index = args.items[2]->IsScalar() ? yaml::ParseYamlInt(args.items[2]->text).value_or(-1) : -1;
    if (!separators.IsScalar() || separators.text.empty()) {
        Fail(separators, path.Index(1), "token: the separators must be non-empty text");
        return {&call, false};
    }
    if (index < 0) {
        Fail(
            *args.items[2],
            path.Index(2),
            "Invalid arguments for function \"token\". Expected a non-negative integer value as third argument"
        );
        return {&call, false};
    }
    const Evaluated subject = Evaluate(*args.items[0], scope, path.Index(0));
    if (!subject.resolved) {
        return {&call, false};
    }
    if (!subject.value->IsScalar()) {
        Fail(*args.items[0], path.Index(0), "token: the first argument must be text");
        return {&call, false};
    }
    // The spec splits on any of the separator characters; the original split on the whole text.
    std::vector<std::string> tokens;
    const std::string& text = subject.value->text;
    std::size_t start = 0;
    while (true) {
        const std::size_t at = strict_ ? text.find_first_of(separators.text, start) : text.find(separators.text, start);
        tokens.push_back(text.substr(start, at == std::string::npos ? std::string::npos : at - start));
        if (at == std::string::npos) {
            break;
        }
        start = at + (strict_ ? 1 : separators.text.size());
    }
    if (static_cast<std::size_t>(index) >= tokens.size()) {
        Fail(
            *args.items[2],
            path.Index(2),
            "token: index " + std::to_string(index) + " is out of range: \"" + text + "\" has " +
                std::to_string(tokens.size()) + " token(s)"
        );
        return {&call, false};
    }
    return {scratch_.StrAt(tokens[static_cast<std::size_t>(index)], call), true};
}

}  // namespace orch::tosca
