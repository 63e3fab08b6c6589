#pragma once

#include "common/json.hpp"
#include "common/result.hpp"
#include "sim/json_schema.hpp"
#include "sim/sim_http.hpp"

#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace orch::sim {

/// A refusal of a request by the IM API description: the status IM would answer and why.
struct ImRefusal {
    int status = 400;
    std::string message;
};

/// The IM REST API as its OpenAPI document (shared/schemas/im/swagger_api.yaml) describes it:
/// paths, methods, declared query parameters (checked against their schemas), accepted request
/// media types and the Authorization requirement. Read-only after loading; thread-safe.
class ImSwagger {
   public:
    /// Parses the OpenAPI YAML text.
    static Result<std::shared_ptr<const ImSwagger>> Load(std::string_view yaml_text);
    /// The document compiled into the binary (fails when the build had none).
    static Result<std::shared_ptr<const ImSwagger>> Embedded();

    /// The operationId a request is for, or why IM would refuse it (404 unknown path, 405
    /// method, 400 undeclared or invalid query parameter, 415 media type, 401 no header).
    std::variant<std::string, ImRefusal> Check(const SimRequest& request) const;

    /// Violations of the State enum by an aggregate or VM state the simulator is about to send.
    bool IsState(const std::string& state) const;

    std::size_t operation_count() const { return operations_.size(); }

   private:
    struct Parameter {
        std::string name;
        std::string schema_name;  ///< document name in `schemas_`
    };
    struct Operation {
        std::string method, path, id;
        std::vector<std::string> segments;
        std::vector<Parameter> query;
        std::vector<std::string> body_types;  ///< empty: no request body
        bool body_required = false;
        bool needs_auth = false;
    };

    std::vector<Operation> operations_;
    SchemaSet schemas_;
};

}  // namespace orch::sim
