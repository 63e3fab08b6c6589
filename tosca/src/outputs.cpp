#include "tosca/outputs.hpp"

#include <optional>

namespace orch::tosca {
namespace {

constexpr int kMaxDepth = 32;

/// A value, or why it could not be computed.
struct Outcome {
    Json value;
    std::string error;
    bool ok() const { return error.empty(); }
};

Outcome Fail(std::string why) {
    return Outcome{nullptr, std::move(why)};
}

std::string Text(const Json& value) {
    if (value.is_string()) {
        return value.get<std::string>();
    }
    if (value.is_null()) {
        return "";
    }
    return value.dump(-1, ' ', false, Json::error_handler_t::replace);
}

std::optional<std::string> FunctionOf(const Json& value) {
    static constexpr std::string_view kNames[] = {
        "get_attribute",
        "get_property",
        "get_input",
        "concat",
        "join",
        "token",
        "get_operation_output",
        "get_artifact",
        "get_nodes_of_type",
    };
    if (!value.is_object() || value.size() != 1) {
        return std::nullopt;
    }
    const std::string& key = value.begin().key();
    for (std::string_view name : kNames) {
        if (key == name) {
            return key;
        }
    }
    return std::nullopt;
}

/// One attribute over all instances: one instance → its value; several → their values, list
/// values concatenated (so public_address gives every instance's address).
std::optional<Json> Gather(const Json& attributes, const std::string& name) {
    if (attributes.is_object()) {
        const auto it = attributes.find(name);
        return it == attributes.end() ? std::nullopt : std::optional<Json>(*it);
    }
    if (!attributes.is_array()) {
        return std::nullopt;
    }
    std::vector<Json> values;
    for (const auto& instance : attributes) {
        if (instance.is_object() && instance.contains(name)) {
            values.push_back(instance[name]);
        }
    }
    if (values.empty()) {
        return std::nullopt;
    }
    if (values.size() == 1) {
        return values.front();
    }
    const bool all_lists = std::all_of(values.begin(), values.end(), [](const Json& v) { return v.is_array(); });
    Json out = Json::array();
    for (auto& v : values) {
        if (all_lists) {
            out.insert(out.end(), v.begin(), v.end());
        } else {
            out.push_back(std::move(v));
        }
    }
    return out;
}

/// A capability's attribute: under the capability name or under "capabilities".
std::optional<Json> GatherCapability(const Json& attributes, const std::string& capability, const std::string& name) {
    if (auto direct = Gather(attributes, capability); direct && direct->is_object() && direct->contains(name)) {
        return (*direct)[name];
    }
    if (auto caps = Gather(attributes, "capabilities"); caps && caps->is_object() && caps->contains(capability)) {
        const Json& cap = (*caps)[capability];
        if (cap.is_object() && cap.contains(name)) {
            return cap[name];
        }
    }
    return std::nullopt;
}

Outcome Index(Json value, const Json& args, std::size_t first, const std::string& what) {
    for (std::size_t i = first; i < args.size(); ++i) {
        const Json& key = args[i];
        if (value.is_array()) {
            std::optional<std::int64_t> index;
            if (key.is_number_integer()) {
                index = key.get<std::int64_t>();
            } else if (key.is_string()) {
                try {
                    index = std::stoll(key.get<std::string>());
                } catch (const std::exception&) {
                    index = std::nullopt;
                }
            }
            if (!index || *index < 0 || static_cast<std::size_t>(*index) >= value.size()) {
                return Fail(
                    what + ": index " + Text(key) + " is out of range (" + std::to_string(value.size()) + " item(s))"
                );
            }
            Json next = value[static_cast<std::size_t>(*index)];
            value = std::move(next);
        } else if (value.is_object() && key.is_string() && value.contains(key.get<std::string>())) {
            Json next = value[key.get<std::string>()];
            value = std::move(next);
        } else {
            return Fail(what + ": no value at " + Text(key));
        }
    }
    return Outcome{std::move(value), {}};
}

class OutputEvaluator {
   public:
    OutputEvaluator(const DeploymentSpec& spec, const NodeAttributes& attributes)
        : spec_(spec), attributes_(attributes) {}

    Outcome Eval(const Json& value, int depth) {
        if (depth > kMaxDepth) {
            return Fail("the output nests functions too deeply");
        }
        if (const auto name = FunctionOf(value)) {
            return Function(*name, value.begin().value(), depth);
        }
        if (value.is_array() || value.is_object()) {
            Json out = value.is_array() ? Json::array() : Json::object();
            for (auto it = value.begin(); it != value.end(); ++it) {
                Outcome item = Eval(it.value(), depth + 1);
                if (!item.ok()) {
                    return item;
                }
                if (value.is_array()) {
                    out.push_back(std::move(item.value));
                } else {
                    out[it.key()] = std::move(item.value);
                }
            }
            return Outcome{std::move(out), {}};
        }
        return Outcome{value, {}};
    }

   private:
    Outcome Function(const std::string& name, const Json& args, int depth) {
        if (name == "get_attribute") {
            return GetAttribute(args);
        }
        if (name == "concat" || name == "join") {
            const Json* list = &args;
            std::string delimiter;
            Json joined;
            if (name == "join") {
                if (!args.is_array() || args.empty()) {
                    return Fail("join: bad arguments");
                }
                Outcome evaluated = Eval(args[0], depth + 1);
                if (!evaluated.ok()) {
                    return evaluated;
                }
                joined = std::move(evaluated.value);
                list = &joined;
                delimiter = args.size() > 1 ? Text(args[1]) : "";
            }
            if (!list->is_array()) {
                return Fail(name + ": bad arguments");
            }
            std::string text;
            bool first = true;
            for (const auto& part : *list) {
                Outcome item = Eval(part, depth + 1);
                if (!item.ok()) {
                    return item;
                }
                text += (first ? "" : delimiter) + Text(item.value);
                first = false;
            }
            return Outcome{text, {}};
        }
        if (name == "token") {
            if (!args.is_array() || args.size() != 3 || !args[2].is_number_integer()) {
                return Fail("token: bad arguments");
            }
            Outcome subject = Eval(args[0], depth + 1);
            if (!subject.ok()) {
                return subject;
            }
            const std::string text = Text(subject.value);
            const std::string separator = Text(args[1]);
            std::vector<std::string> tokens;
            std::size_t start = 0;
            while (!separator.empty()) {
                const std::size_t at = text.find(separator, start);
                tokens.push_back(text.substr(start, at == std::string::npos ? std::string::npos : at - start));
                if (at == std::string::npos) {
                    break;
                }
                start = at + separator.size();
            }
            const auto index = args[2].get<std::int64_t>();
            if (index < 0 || static_cast<std::size_t>(index) >= tokens.size()) {
                return Fail("token: index " + std::to_string(index) + " is out of range");
            }
            return Outcome{tokens[static_cast<std::size_t>(index)], {}};
        }
        return Fail(name + " cannot be evaluated from the deployment's attributes");
    }

    Outcome GetAttribute(const Json& args) {
        if (!args.is_array() || args.size() < 2 || !args[0].is_string() || !args[1].is_string()) {
            return Fail("get_attribute: bad arguments");
        }
        const std::string node = args[0].get<std::string>();
        const std::string attr = args[1].get<std::string>();
        const std::string what = "attribute " + attr + " of node " + node;
        const auto it = attributes_.find(node);
        const NodeSpec* spec_node = spec_.FindNode(node);
        if (it != attributes_.end()) {
            if (auto value = Gather(it->second, attr)) {
                return Index(std::move(*value), args, 2, what);
            }
            if (args.size() >= 3 && args[2].is_string()) {
                if (auto value = GatherCapability(it->second, attr, args[2].get<std::string>())) {
                    return Index(std::move(*value), args, 3, what);
                }
            }
        }
        // Properties are attributes too: fall back to the value the template set.
        if (spec_node != nullptr) {
            if (spec_node->properties.contains(attr)) {
                return Index(spec_node->properties[attr], args, 2, what);
            }
            if (args.size() >= 3 && args[2].is_string() && spec_node->capabilities.contains(attr) &&
                spec_node->capabilities[attr].is_object() &&
                spec_node->capabilities[attr].contains(args[2].get<std::string>())) {
                return Index(spec_node->capabilities[attr][args[2].get<std::string>()], args, 3, what);
            }
        }
        return Fail(what + " is not available");
    }

    const DeploymentSpec& spec_;
    const NodeAttributes& attributes_;
};

}  // namespace

OutputValues EvaluateOutputs(const DeploymentSpec& spec, const NodeAttributes& attributes) {
    OutputValues out;
    OutputEvaluator evaluator(spec, attributes);
    for (const auto& output : spec.outputs) {
        if (output.resolved) {
            out.values[output.name] = output.value;
            continue;
        }
        Outcome result = evaluator.Eval(output.value, 0);
        out.values[output.name] = std::move(result.value);  // null on failure
        if (!result.ok()) {
            out.notes[output.name] = std::move(result.error);
        }
    }
    return out;
}

}  // namespace orch::tosca
