#include "orchestrator/app/config_credentials.hpp"

namespace orch::app {

Result<ConfigCredentialSource> ConfigCredentialSource::FromConfig(const ConfigTree& tree, auth::TokenKeeper* keeper) {
    ConfigCredentialSource source;
    source.keeper_ = keeper;
    for (const auto& key : tree.ChildKeys("credentials")) {
        const std::string base = "credentials." + key + ".";
        connectors::Credentials c;
        ORCH_ASSIGN_OR_RETURN(c.username, tree.GetString(base + "username", ""));
        ORCH_ASSIGN_OR_RETURN(c.password, tree.GetString(base + "password", ""));
        ORCH_ASSIGN_OR_RETURN(c.bearer_token, tree.GetString(base + "token", ""));
        ORCH_ASSIGN_OR_RETURN(c.application_credential_id, tree.GetString(base + "application_credential_id", ""));
        ORCH_ASSIGN_OR_RETURN(
            c.application_credential_secret, tree.GetString(base + "application_credential_secret", "")
        );
        ORCH_ASSIGN_OR_RETURN(c.client_cert_file, tree.GetString(base + "client_cert_file", ""));
        ORCH_ASSIGN_OR_RETURN(c.client_key_file, tree.GetString(base + "client_key_file", ""));
        ORCH_ASSIGN_OR_RETURN(c.ca_file, tree.GetString(base + "ca_file", ""));
        source.by_key_[key] = std::move(c);
    }
    return source;
}

Result<connectors::Credentials> ConfigCredentialSource::For(
    const connectors::SiteTarget& target, const std::optional<domain::Owner>& owner
) {
    connectors::Credentials creds;
    if (auto it = by_key_.find(target.service_id); it != by_key_.end()) {
        creds = it->second;
    } else if (auto site = by_key_.find(target.site_id); site != by_key_.end()) {
        creds = site->second;
    }
    const bool iam = target.options.is_object() && target.options.value("iam_enabled", false);
    // Marathon, Chronos, Kubernetes and Slurm sites with configured static credentials keep using
    // them (the catalogue's iam_enabled defaults to true); without any, they get the owner's token.
    const bool has_static = !creds.username.empty() || !creds.bearer_token.empty();
    const bool wants_user_token = target.kind == connectors::TargetKind::kOpenStack || !has_static;
    if (iam && wants_user_token && owner && keeper_ != nullptr && owner->issuer != "local") {
        ORCH_ASSIGN_OR_RETURN(creds.bearer_token, keeper_->AccessTokenFor(owner->issuer, owner->subject));
    }
    return creds;
}

Result<std::string> ConfigCredentialSource::OwnerAccessToken(const std::optional<domain::Owner>& owner) {
    if (!owner || keeper_ == nullptr || owner->issuer == "local") {
        return std::string();
    }
    return keeper_->AccessTokenFor(owner->issuer, owner->subject);
}

}  // namespace orch::app
