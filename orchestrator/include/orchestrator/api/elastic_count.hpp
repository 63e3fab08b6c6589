#pragma once

// How the autoscaler writes a new worker count into a deployment's template, so the update it
// starts is the same kind of request a user's PUT is.
#include "common/json.hpp"
#include "common/result.hpp"

#include <string>

namespace orch::api {

struct CountEdit {
    std::string template_text;         ///< the template with the count (unchanged for an input)
    Json parameters = Json::object();  ///< {input: count} when the count is a get_input
};

/// The template and parameters that give node `node` `count` instances. A scalable.count written
/// as `{get_input: x}` becomes parameter x (the template stays as the user wrote it); a literal
/// count (the INDIGO elastic templates write `count: 0`) is rewritten in the template.
Result<CountEdit> WithNodeCount(const std::string& template_text, const std::string& node, int count);

}  // namespace orch::api
