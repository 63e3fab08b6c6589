#pragma once
// The corpus templates the MANIFEST sends to IM (target=IM), and what a user fills in for them:
// shared by the connector-level corpus test and the end-to-end IM test.
#include <common/json.hpp>

#include <yaml-cpp/yaml.h>

#include <fstream>
#include <string>
#include <vector>

namespace orch::test {

/// (folder/path) of every target=IM template in `manifest` (the corpus MANIFEST.md).
inline std::vector<std::string> ImCorpusTemplates(const std::string& manifest) {
    std::ifstream in(manifest);
    std::vector<std::string> out;
    std::string line, folder;
    while (std::getline(in, line)) {
        const auto open = line.find("(`");
        const auto close = line.find("/`)");
        if (line.rfind("## ", 0) == 0 && open != std::string::npos && close != std::string::npos) {
            folder = line.substr(open + 2, close - open - 2);
            continue;
        }
        if (folder.empty() || line.rfind("| `", 0) != 0 || line.find("| template |") == std::string::npos ||
            line.find("target=IM") == std::string::npos) {
            continue;
        }
        const auto end = line.find('`', 3);
        out.push_back(folder + "/" + line.substr(3, end - 3));
    }
    return out;
}

/// A value of the input's type for every input without a default (the first valid_values entry,
/// the lower bound of in_range, else a plain value), as a user filling the form would give.
inline Json SynthesizedInputs(const std::string& text) {
    Json out = Json::object();
    YAML::Node root;
    try {
        root = YAML::Load(text);
    } catch (const YAML::Exception&) {
        return out;
    }
    const YAML::Node inputs = root["topology_template"]["inputs"];
    if (!inputs.IsMap()) {
        return out;
    }
    for (const auto& item : inputs) {
        const YAML::Node def = item.second;
        if (!def.IsMap() || def["default"]) {
            continue;
        }
        const std::string type = def["type"] ? def["type"].Scalar() : "string";
        Json value = "value";
        if (type == "integer") {
            value = 1;
        } else if (type == "float") {
            value = 1.0;
        } else if (type == "boolean") {
            value = true;
        } else if (type == "list") {
            value = Json::array();
        } else if (type == "map") {
            value = Json::object();
        } else if (type == "scalar-unit.size") {
            value = "1 GB";
        } else if (type == "version") {
            value = "1.0";
        }
        for (const auto& constraint : def["constraints"]) {
            if (constraint["valid_values"] && constraint["valid_values"].size() > 0) {
                const std::string first = constraint["valid_values"][0].Scalar();
                value = type == "integer" ? Json(std::stoll(first))
                        : type == "float" ? Json(std::stod(first))
                                          : Json(first);
            } else if (constraint["in_range"] && type == "integer") {
                value = std::stoll(constraint["in_range"][0].Scalar());
            }
        }
        out[item.first.Scalar()] = value;
    }
    return out;
}

/// True when an output value carries the evaluator's error text (ours or IM's).
inline bool HasErrorText(const Json& value) {
    if (value.is_string()) {
        return value.get_ref<const std::string&>().find("Error evaluating output") != std::string::npos;
    }
    if (value.is_structured()) {
        for (const auto& item : value) {
            if (HasErrorText(item)) {
                return true;
            }
        }
    }
    return false;
}

/// The names of the template's outputs (empty when it has none or does not parse).
inline std::vector<std::string> OutputNames(const std::string& text) {
    std::vector<std::string> out;
    try {
        const YAML::Node outputs = YAML::Load(text)["topology_template"]["outputs"];
        if (outputs.IsMap()) {
            for (const auto& item : outputs) {
                out.push_back(item.first.Scalar());
            }
        }
    } catch (const YAML::Exception&) {
        out.clear();
    }
    return out;
}

}  // namespace orch::test
