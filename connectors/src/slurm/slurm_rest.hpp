#pragma once

#include "connectors/connector.hpp"
#include "connectors/rest_client.hpp"
#include "connectors/site_client_factory.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace orch::connectors::slurm {

/// slurmrestd v0.0.38, one site and one user. slurmrestd answers most failures with HTTP 500 and
/// a body `{"errors": [{"error", "error_number" | "error_code", "description"}]}`, so outcomes are
/// read from the Slurm error numbers, not from the HTTP status.
class SlurmRest {
   public:
    /// The API of `target` with its user's JWT; kTryAnotherSite when the site has no Slurm
    /// credentials for the user or cannot be reached with this configuration.
    static ConnectorResult<SlurmRest> For(SiteClientFactory& clients, const SiteTarget& target, CallOptions options);

    /// Submits a job; returns its id.
    ConnectorResult<std::int64_t> Submit(const Json& submission);
    /// The job's record (one element of `jobs`), or nullopt when the controller does not know the
    /// id (never submitted, or purged MinJobAge after it ended).
    ConnectorResult<std::optional<Json>> GetJob(std::int64_t job_id);
    /// Every job the controller still knows of.
    ConnectorResult<std::vector<Json>> ListJobs();
    /// Cancels a job; false when it had already ended or is unknown.
    ConnectorResult<bool> Cancel(std::int64_t job_id);
    /// Sets the job's comment (used to mark jobs this connector cancelled); false when the job
    /// has already ended or is unknown.
    ConnectorResult<bool> SetComment(std::int64_t job_id, const std::string& comment);
    /// The Slurm release slurmrestd reports (GET /ping's meta.Slurm: its `release`, else its
    /// version numbers), as BoundedVersion makes it.
    ConnectorResult<std::string> Release();

   private:
    struct Reply {
        int status = 0;
        Json body;
        int error_number = 0;  ///< first Slurm error number, 0 when none
        std::string error;     ///< all Slurm error texts, joined
    };

    explicit SlurmRest(RestClient rest) : rest_(std::move(rest)) {}
    ConnectorResult<Reply> Call(const std::string& method, const std::string& path, const Json* body);
    static Failure Classify(const Reply& reply, const std::string& what);

    RestClient rest_;
};

}  // namespace orch::connectors::slurm
