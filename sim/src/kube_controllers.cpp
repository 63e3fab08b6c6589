// The simulated controllers: namespace termination, Deployment rollout and status, Job
// completion and failure, CronJob scheduling and history, and foreground deletion.
#include "cron.hpp"
#include "kube_model.hpp"

#include <algorithm>
#include <cmath>
#include <functional>

namespace orch::sim {
namespace {

std::string TemplateHash(const Json& pod_template) {
    static constexpr std::string_view kAlphabet = "bcdfghjklmnpqrstvwxz2456789";
    std::size_t h = std::hash<std::string>{}(pod_template.dump());
    std::string out;
    for (int i = 0; i < 10; ++i) {
        out += kAlphabet[h % kAlphabet.size()];
        h /= kAlphabet.size();
    }
    return out;
}

// Keeps lastTransitionTime when the condition's status does not change, as controllers do.
void SetCondition(
    Json& status, const std::string& type, bool value, const std::string& reason, const std::string& message, double now
) {
    Json& conditions = status["conditions"];
    if (!conditions.is_array()) {
        conditions = Json::array();
    }
    const std::string text = value ? "True" : "False";
    for (auto& c : conditions) {
        if (c["type"] == type) {
            if (c["status"] != text) {
                c["lastTransitionTime"] = KubeTime(now);
            }
            c["status"] = text;
            c["reason"] = reason;
            c["message"] = message;
            c["lastUpdateTime"] = KubeTime(now);
            return;
        }
    }
    conditions.push_back(
        {{"type", type},
         {"status", text},
         {"reason", reason},
         {"message", message},
         {"lastUpdateTime", KubeTime(now)},
         {"lastTransitionTime", KubeTime(now)}}
    );
}

bool HasCondition(const Json& status, const std::string& type) {
    for (const auto& c : status.value("conditions", Json::array())) {
        if (c.value("type", "") == type && c.value("status", "") == "True") {
            return true;
        }
    }
    return false;
}

// An IntOrString of the rolling update (a count, or a percentage of the desired replicas rounded
// up for maxSurge and down for maxUnavailable, as the Deployment controller does).
int RollingValue(const Json& spec, const char* field, int desired, bool round_up) {
    const Json value =
        spec.value("strategy", Json::object()).value("rollingUpdate", Json::object()).value(field, Json("25%"));
    if (value.is_number_integer()) {
        return std::max(0, value.get<int>());
    }
    const std::string text = value.is_string() ? value.get<std::string>() : "25%";
    const double share = desired * std::atoi(text.c_str()) / 100.0;
    return std::max(0, static_cast<int>(round_up ? std::ceil(share) : std::floor(share)));
}

int MaxUnavailable(const Json& spec, int desired) {
    return RollingValue(spec, "maxUnavailable", desired, false);
}

// What the rollout may use: at most desired + surge pods, at least desired - unavailable ready.
// Both 0 cannot make progress; the controller then allows one unavailable (ResolveFenceposts).
struct Fenceposts {
    int surge = 0;
    int unavailable = 0;
};

Fenceposts ResolveFenceposts(const Json& spec, int desired) {
    if (spec.value("strategy", Json::object()).value("type", "RollingUpdate") == "Recreate") {
        return {0, desired};  // every old pod goes first; new ones start once they are gone
    }
    Fenceposts f{RollingValue(spec, "maxSurge", desired, true), MaxUnavailable(spec, desired)};
    if (f.surge == 0 && f.unavailable == 0) {
        f.unavailable = 1;
    }
    return f;
}

int CountReady(const std::vector<KubePod*>& pods) {
    return static_cast<int>(std::count_if(pods.begin(), pods.end(), [](const KubePod* p) { return p->ready; }));
}

}  // namespace

void KubernetesSim::State::RunNamespaces(double now) {
    std::vector<std::string> gone;
    for (auto& [key, object] : objects) {
        if (object.resource->kind != "Namespace" || !object.Deleting()) {
            continue;
        }
        DeleteDependents(object, false, now);
        if (!HasDependents(object) && now >= object.deleted_at + config.timing.namespace_gone) {
            gone.push_back(key);
        }
    }
    for (const auto& key : gone) {
        objects.erase(key);
    }
}

// One step of a rolling update as the Deployment controller takes it: new pods only while the
// pods stay within desired + maxSurge, old pods removed (unready ones first) only while the ready
// pods stay at desired - maxUnavailable or more. Terminating pods are not counted, as the
// controller counts ReplicaSet replicas: with maxSurge 0 a new GPU pod waits Pending until the old
// one has freed its GPU. Recreate starts new pods once every old one is gone.
void KubernetesSim::State::RollOut(
    KubeObject& d,
    const std::string& hash,
    int desired,
    std::vector<KubePod*>& current,
    std::vector<KubePod*>& old,
    double now
) {
    const Json& spec = d.body["spec"];
    const Fenceposts limits = ResolveFenceposts(spec, desired);
    bool old_left = !old.empty();
    for (const auto& [key, pod] : pods) {
        old_left = old_left || (pod.owner_uid == d.Uid() && pod.Terminating() && pod.template_hash != hash);
    }
    const bool recreate = spec.value("strategy", Json::object()).value("type", "RollingUpdate") == "Recreate";
    const int room = recreate && old_left ? 0 : desired + limits.surge - static_cast<int>(current.size() + old.size());
    const int missing = desired - static_cast<int>(current.size());
    for (int i = 0; i < std::min(missing, room); ++i) {
        CreatePod(d, spec["template"], hash, now);
    }
    const int min_available = desired - limits.unavailable;
    int removable = static_cast<int>(current.size() + old.size()) - min_available -
                    static_cast<int>(current.size() - CountReady(current));
    std::stable_partition(old.begin(), old.end(), [](const KubePod* p) { return !p->ready; });
    int ready_left = CountReady(current) + CountReady(old);
    while (!old.empty() && removable > 0) {
        KubePod* pod = old.front();
        if (pod->ready && ready_left <= min_available) {
            break;
        }
        ready_left -= pod->ready ? 1 : 0;
        TerminatePod(*pod, now);
        old.erase(old.begin());
        --removable;
    }
}

void KubernetesSim::State::RunDeployment(KubeObject& d, double now) {
    const Json& spec = d.body["spec"];
    const int desired = spec.value("replicas", 1);
    const std::string hash = TemplateHash(spec["template"]);
    std::vector<KubePod*> current;
    std::vector<KubePod*> old;
    for (auto& [key, pod] : pods) {
        if (pod.owner_uid == d.Uid() && !pod.Terminating()) {
            (pod.template_hash == hash ? current : old).push_back(&pod);
        }
    }
    std::sort(current.begin(), current.end(), [](const KubePod* a, const KubePod* b) {
        return a->created < b->created;
    });
    while (static_cast<int>(current.size()) > desired) {
        TerminatePod(*current.back(), now);
        current.pop_back();
    }
    RollOut(d, hash, desired, current, old, now);
    const int ready_current = CountReady(current);
    const int ready = ready_current + CountReady(old);
    const int total = static_cast<int>(std::max(current.size(), static_cast<std::size_t>(desired)) + old.size());
    Json& status = d.body["status"];
    if (ready > status.value("readyReplicas", 0)) {
        d.last_progress = now;
    }
    status["observedGeneration"] = d.body["metadata"].value("generation", 1);
    status["replicas"] = static_cast<int>(current.size() + old.size());
    status["updatedReplicas"] = static_cast<int>(current.size());
    status["readyReplicas"] = ready;
    status["availableReplicas"] = ready;
    status["unavailableReplicas"] = std::max(0, total - ready);
    const bool available = ready >= desired - MaxUnavailable(spec, desired);
    SetCondition(
        status,
        "Available",
        available,
        available ? "MinimumReplicasAvailable" : "MinimumReplicasUnavailable",
        available ? "Deployment has minimum availability." : "Deployment does not have minimum availability.",
        now
    );
    const std::string rs = "ReplicaSet \"" + d.name + "-" + hash + "\"";
    if (ready_current >= desired && old.empty()) {
        SetCondition(status, "Progressing", true, "NewReplicaSetAvailable", rs + " has successfully progressed.", now);
    } else if (now - d.last_progress > spec.value("progressDeadlineSeconds", 600)) {
        SetCondition(status, "Progressing", false, "ProgressDeadlineExceeded", rs + " has timed out progressing.", now);
    } else {
        SetCondition(status, "Progressing", true, "ReplicaSetUpdated", rs + " is progressing.", now);
    }
}

void KubernetesSim::State::RunJob(KubeObject& job, double now) {
    Json& status = job.body["status"];
    if (HasCondition(status, "Complete") || HasCondition(status, "Failed")) {
        return;
    }
    const Json& spec = job.body["spec"];
    int active = 0;
    int succeeded = 0;
    int failed = 0;
    for (auto& [key, pod] : pods) {
        if (pod.owner_uid != job.Uid()) {
            continue;
        }
        if (pod.phase == "Succeeded") {
            ++succeeded;
        } else if (pod.phase == "Failed") {
            ++failed;
        } else if (!pod.Terminating()) {
            ++active;
        }
    }
    if (!status.contains("startTime")) {
        status["startTime"] = KubeTime(now);
        job.last_progress = now;
    }
    const auto finish = [&](const char* type, const std::string& reason, const std::string& message) {
        for (auto& [key, pod] : pods) {
            if (pod.owner_uid == job.Uid() && !pod.Finished()) {
                TerminatePod(pod, now);
            }
        }
        SetCondition(status, type, true, reason, message, now);
        active = 0;
    };
    const int completions = spec.value("completions", 1);
    if (failed > spec.value("backoffLimit", 6)) {
        finish("Failed", "BackoffLimitExceeded", "Job has reached the specified backoff limit");
    } else if (spec.contains("activeDeadlineSeconds") && now - job.last_progress > spec["activeDeadlineSeconds"].get<double>()) {
        finish("Failed", "DeadlineExceeded", "Job was active longer than specified deadline");
    } else if (succeeded >= completions) {
        SetCondition(status, "Complete", true, "", "", now);
        status["completionTime"] = KubeTime(now);
    } else {
        const int wanted = std::min(spec.value("parallelism", 1), completions - succeeded) - active;
        for (int i = 0; i < wanted; ++i) {
            CreatePod(job, spec["template"], "", now);
            ++active;
        }
    }
    status["succeeded"] = succeeded;
    status["failed"] = failed;
    status["active"] = active;
    for (const char* field : {"succeeded", "failed", "active"}) {
        if (status[field] == 0) {
            status.erase(field);  // the API server omits zero counters
        }
    }
}

void KubernetesSim::State::RunCronJob(KubeObject& cron, double now) {
    const Json& spec = cron.body["spec"];
    const auto schedule = CronSchedule::Parse(spec.value("schedule", ""));
    if (!schedule || spec.value("suspend", false)) {
        cron.cron_checked = now;
        return;
    }
    // Only the latest missed time fires (startingDeadlineSeconds unset); look back at most a week.
    double fire = -1;
    double t = std::max(std::floor(cron.cron_checked / 60) * 60 + 60, std::floor(now / 60) * 60 - 7 * 86400);
    for (; t <= now; t += 60) {
        if (schedule->Matches(t)) {
            fire = t;
        }
    }
    cron.cron_checked = now;
    std::vector<KubeObject*> owned;
    for (auto& [key, object] : objects) {
        for (const auto& ref : object.body["metadata"].value("ownerReferences", Json::array())) {
            if (ref.value("uid", "") == cron.Uid()) {
                owned.push_back(&object);
            }
        }
    }
    Json active = Json::array();
    std::vector<KubeObject*> succeeded;
    std::vector<KubeObject*> failed;
    for (KubeObject* job : owned) {
        const Json& st = job->body["status"];
        if (HasCondition(st, "Complete")) {
            succeeded.push_back(job);
        } else if (HasCondition(st, "Failed")) {
            failed.push_back(job);
        } else {
            active.push_back(
                {{"kind", "Job"},
                 {"namespace", job->ns},
                 {"name", job->name},
                 {"uid", job->Uid()},
                 {"apiVersion", "batch/v1"}}
            );
        }
    }
    const std::string policy = spec.value("concurrencyPolicy", "Allow");
    if (fire >= 0 && !(policy == "Forbid" && !active.empty())) {
        KubeObject job;
        job.resource = FindKubeResourceByKind("Job");
        job.ns = cron.ns;
        job.name = cron.name + "-" + std::to_string(static_cast<long long>(fire / 60));
        const Json& tmpl = spec["jobTemplate"];
        job.body = {
            {"apiVersion", "batch/v1"},
            {"kind", "Job"},
            {"metadata",
             {{"name", job.name},
              {"namespace", job.ns},
              {"uid", NewUid()},
              {"creationTimestamp", KubeTime(now)},
              {"labels", tmpl.value("metadata", Json::object()).value("labels", Json::object())},
              {"ownerReferences",
               Json::array(
                   {{{"apiVersion", "batch/v1beta1"},
                     {"kind", "CronJob"},
                     {"name", cron.name},
                     {"uid", cron.Uid()},
                     {"controller", true},
                     {"blockOwnerDeletion", true}}}
               )}}},
            {"spec", tmpl.value("spec", Json::object())},
            {"status", Json::object()},
        };
        ApplyKubeJobDefaults(job.body["spec"], job.Uid(), job.name);
        job.last_progress = now;
        Touch(job);
        if (objects.count(Key("Job", job.ns, job.name)) == 0) {
            active.push_back(
                {{"kind", "Job"},
                 {"namespace", job.ns},
                 {"name", job.name},
                 {"uid", job.Uid()},
                 {"apiVersion", "batch/v1"}}
            );
            objects[Key("Job", job.ns, job.name)] = std::move(job);
        }
        cron.body["status"]["lastScheduleTime"] = KubeTime(fire);
    }
    cron.body["status"]["active"] = active;
    if (active.empty()) {
        cron.body["status"].erase("active");
    }
    const auto trim = [&](std::vector<KubeObject*>& jobs, int keep) {
        std::sort(jobs.begin(), jobs.end(), [](const KubeObject* a, const KubeObject* b) { return a->name < b->name; });
        while (static_cast<int>(jobs.size()) > keep) {
            const std::string key = Key("Job", jobs.front()->ns, jobs.front()->name);
            DeleteDependents(*jobs.front(), false, now);
            objects.erase(key);
            jobs.erase(jobs.begin());
        }
    };
    trim(succeeded, spec.value("successfulJobsHistoryLimit", 3));
    trim(failed, spec.value("failedJobsHistoryLimit", 1));
}

void KubernetesSim::Advance(double now, const std::set<std::string>& exhausted) {
    auto& s = *state_;
    s.RunNamespaces(now);
    std::vector<std::string> keys;
    for (const auto& [key, object] : s.objects) {
        keys.push_back(key);
    }
    for (const auto& key : keys) {
        const auto it = s.objects.find(key);
        if (it == s.objects.end()) {
            continue;  // removed by an earlier controller in this pass
        }
        KubeObject& object = it->second;
        if (object.Deleting()) {
            if (object.resource->kind != "Namespace" && !s.HasDependents(object)) {
                s.objects.erase(it);
            }
            continue;
        }
        const std::string& kind = object.resource->kind;
        if (kind == "CronJob") {
            s.RunCronJob(object, now);
        }
    }
    for (auto& [key, object] : s.objects) {
        if (object.Deleting()) {
            continue;
        }
        if (object.resource->kind == "Deployment") {
            s.RunDeployment(object, now);
        } else if (object.resource->kind == "Job") {
            s.RunJob(object, now);
        } else if (object.resource->kind == "HelmRelease") {
            s.RunHelmRelease(object, now);
        } else if (object.resource->kind == "HelmRepository") {
            s.RunHelmRepository(object, now);
        }
    }
    s.RunPods(now, exhausted);
}

}  // namespace orch::sim
