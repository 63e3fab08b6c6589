#pragma once

#include "common/clock.hpp"
#include "common/config.hpp"
#include "common/http_client.hpp"
#include "common/result.hpp"
#include "orchestrator/workflow/caching_template_service.hpp"
#include "orchestrator/workflow/tosca_template_service.hpp"
#include "tosca/engine.hpp"

#include <memory>

namespace orch::app {

/// The TOSCA engine and the template services over it, each at an address that does not move
/// with the struct (each service refers to the one below it).
struct TemplateWiring {
    std::unique_ptr<tosca::TemplateEngine> engine;
    std::unique_ptr<workflow::ToscaTemplateService> parser;
    std::unique_ptr<workflow::CachingTemplateService> templates;  ///< what the API and the workflow use
};

/// The engine from the tosca.* configuration, behind the template cache; the import cache reads
/// time through `clock`. Imports are fetched with `user_directed_http`, the client behind the
/// egress policy: a template's author chose those URLs. Both must outlive the result.
Result<TemplateWiring> MakeTemplateServices(
    const ConfigTree& tree, http::Client& user_directed_http, const Clock& clock
);

}  // namespace orch::app
