#pragma once

#include "connectors/connector.hpp"

#include <string>

namespace orch::connectors {

/// The Slurm job name of one instance of a node: "orch-<deployment id>-<node>-<index>", with
/// characters outside [A-Za-z0-9_.-] replaced by '_'. Re-running Create finds the jobs it already
/// submitted by this name instead of submitting them twice.
std::string SlurmJobName(const std::string& deployment_id, const std::string& node, int index);

/// True when `node` is a batch job for an HPC site: tosca.nodes.indigo.Batch.Job or a type
/// derived from it (Qcg.Job, ...).
bool IsSlurmJobNode(const tosca::NodeSpec& node);

/// The body of `POST /slurm/v0.0.38/job/submit` for instance `index` of `node`:
/// the script runs the node's command (or Batch.Job `executable`) with its arguments quoted for
/// /bin/sh (a multi-line command is a script of its own); GPUs become `gpus_per_node` "<type>:<count>" (type from the
/// site option `gpu_types` {model: gres type}, else the lowercased model); the partition comes from the node's `queue`
/// or the site option `partition`, the account from SiteTarget::project. The working directory
/// is the node's `directory`, else the site option `working_directory`, else /tmp; a leading
/// `${HOME}`, `$HOME` or `~` there and in the output/input paths becomes the site option
/// `home_directory` (`%u` = the user name), or the working directory when the site has none
/// (slurmrestd takes paths literally). A node that cannot be
/// turned into a job (no command, malformed wall_clock, ...) is a kUserError.
ConnectorResult<Json> BuildSlurmSubmission(const DeployRequest& request, const tosca::NodeSpec& node, int index);

}  // namespace orch::connectors
