#pragma once

#include "orchestrator/workflow/template_service.hpp"
#include "tosca/engine.hpp"

namespace orch::workflow {

/// TemplateService over the TOSCA engine (thread-safe; the engine caches imported types).
class ToscaTemplateService final : public TemplateService {
   public:
    explicit ToscaTemplateService(const tosca::TemplateEngine& engine) : engine_(engine) {}
    Result<tosca::DeploymentSpec> Build(const std::string& template_text, const Json& parameters, const Json& accepted)
        override;
    Status Check(const std::string& template_text) override;

   private:
    const tosca::TemplateEngine& engine_;
};

}  // namespace orch::workflow
