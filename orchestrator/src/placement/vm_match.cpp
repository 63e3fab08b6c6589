#include "vm_match.hpp"

#include "gpu_model.hpp"

#include <algorithm>
#include <functional>
#include <set>
#include <sstream>
#include <tuple>

namespace orch::placement {
namespace {

using FlavorList = std::vector<const cmdb::Flavor*>;

std::string Plural(long long n, const char* one, const char* many) {
    return std::to_string(n) + " " + (n == 1 ? one : many);
}

std::string JoinSome(const std::set<std::string>& items, std::size_t limit = 5) {
    std::string out;
    std::size_t n = 0;
    for (const auto& item : items) {
        if (n == limit) {
            return out + ", ...";
        }
        out += (n++ == 0 ? "" : ", ") + item;
    }
    return out.empty() ? "none" : out;
}

std::tuple<int, int, std::uint64_t, std::uint64_t> SizeKey(const cmdb::Flavor& f) {
    return {f.gpus, f.vcpus, f.ram_mb, f.disk_gb};
}

bool GpuMemoryFits(const FlavorNeed& need, const cmdb::Flavor& f) {
    if (!need.gpu.memory_mb) {
        return true;
    }
    const auto memory = f.gpu_memory_mb ? f.gpu_memory_mb : MemoryFromModelName(f.gpu_model);
    return memory && *memory >= *need.gpu.memory_mb;
}

// Keeps the flavors passing `keep`; when none does, `explain` says why (from what was left).
bool Narrow(
    FlavorList& list,
    const std::function<bool(const cmdb::Flavor&)>& keep,
    const std::function<std::string(const FlavorList&)>& explain,
    std::string& reason
) {
    FlavorList kept;
    for (const auto* flavor : list) {
        if (keep(*flavor)) {
            kept.push_back(flavor);
        }
    }
    if (kept.empty()) {
        reason = explain(list);
        return false;
    }
    list = std::move(kept);
    return true;
}

template <typename Get>
const cmdb::Flavor* Largest(const FlavorList& list, Get get) {
    return *std::max_element(list.begin(), list.end(), [&](const auto* a, const auto* b) { return get(*a) < get(*b); });
}

bool NarrowGpus(FlavorList& list, const FlavorNeed& need, std::string& reason) {
    const auto& gpu = need.gpu;
    if (!Narrow(
            list,
            [&](const cmdb::Flavor& f) { return f.gpus >= gpu.count; },
            [&](const FlavorList& l) {
                const auto* best = Largest(l, [](const cmdb::Flavor& f) { return f.gpus; });
                return "no flavor has " + Plural(gpu.count, "GPU", "GPUs") + " (the most is " +
                       std::to_string(best->gpus) + ", in " + best->name + ")";
            },
            reason
        )) {
        return false;
    }
    auto offered = [](const FlavorList& l, auto field) {
        std::set<std::string> names;
        for (const auto* f : l) {
            names.insert(std::invoke(field, *f).empty() ? "unknown" : std::invoke(field, *f));
        }
        return JoinSome(names);
    };
    if (!Narrow(
            list,
            [&](const cmdb::Flavor& f) { return SameWord(gpu.vendor, f.gpu_vendor); },
            [&](const FlavorList& l) {
                return "no flavor with " + Plural(gpu.count, "GPU", "GPUs") + " has vendor " + gpu.vendor +
                       " (offered: " + offered(l, &cmdb::Flavor::gpu_vendor) + ")";
            },
            reason
        )) {
        return false;
    }
    if (!Narrow(
            list,
            [&](const cmdb::Flavor& f) { return GpuModelMatches(gpu.model, f.gpu_model); },
            [&](const FlavorList& l) {
                return "no flavor with " + Plural(gpu.count, "GPU", "GPUs") + " has GPU model " + gpu.model +
                       " (offered: " + offered(l, &cmdb::Flavor::gpu_model) + ")";
            },
            reason
        )) {
        return false;
    }
    if (!gpu.memory_mb) {
        return true;
    }
    return Narrow(
        list,
        [&](const cmdb::Flavor& f) { return GpuMemoryFits(need, f); },
        [&](const FlavorList&) {
            return "no flavor with the GPUs asked for has " + std::to_string(*gpu.memory_mb) + " MB of GPU memory";
        },
        reason
    );
}

bool NarrowSize(FlavorList& list, const FlavorNeed& need, std::string& reason) {
    const std::string with = need.gpu.count > 0 ? " with the GPUs asked for" : "";
    if (!Narrow(
            list,
            [&](const cmdb::Flavor& f) { return f.vcpus >= need.cpus; },
            [&](const FlavorList& l) {
                const auto* best = Largest(l, [](const cmdb::Flavor& f) { return f.vcpus; });
                std::ostringstream text;
                text << "no flavor" << with << " has " << need.cpus << " vCPUs (the most is " << best->vcpus << ", in "
                     << best->name << ")";
                return text.str();
            },
            reason
        )) {
        return false;
    }
    if (!Narrow(
            list,
            [&](const cmdb::Flavor& f) { return f.ram_mb >= need.mem_mb; },
            [&](const FlavorList& l) {
                const auto* best = Largest(l, [](const cmdb::Flavor& f) { return f.ram_mb; });
                return "no flavor" + with + " and enough vCPUs has " + std::to_string(need.mem_mb) +
                       " MB of RAM (the most is " + std::to_string(best->ram_mb) + " MB, in " + best->name + ")";
            },
            reason
        )) {
        return false;
    }
    return Narrow(
        list,
        [&](const cmdb::Flavor& f) { return f.disk_gb * 1024 >= need.disk_mb; },
        [&](const FlavorList& l) {
            const auto* best = Largest(l, [](const cmdb::Flavor& f) { return f.disk_gb; });
            return "no flavor that fits otherwise has " + std::to_string(need.disk_mb) + " MB of disk (the most is " +
                   std::to_string(best->disk_gb) + " GB)";
        },
        reason
    );
}

bool IsImageUri(const std::string& image) {
    for (const char* scheme : {"ost://", "one://", "aws://", "azr://"}) {
        if (image.rfind(scheme, 0) == 0) {
            return true;
        }
    }
    return false;
}

bool NameMatches(const std::string& wanted, const std::string& offered) {
    const auto split = [](const std::string& name) {
        const auto colon = name.find(':');
        return colon == std::string::npos ? std::pair{name, std::string()}
                                          : std::pair{name.substr(0, colon), name.substr(colon + 1)};
    };
    const auto [want_base, want_tag] = split(wanted);
    const auto [have_base, have_tag] = split(offered);
    return want_base == have_base && (want_tag.empty() || want_tag == have_tag);
}

// The GPU driver wish is text: "", "false" = none; "true" = any driver; else a version prefix.
bool DriverMatches(const std::string& wish, const cmdb::Image& image) {
    if (wish.empty() || SameWord(wish, "false") || wish == "no" || wish == "0") {
        return true;
    }
    if (!image.gpu_driver) {
        return false;
    }
    return SameWord(wish, "true") || wish == "yes" || wish == "1" ||
           SameWord(wish, std::string_view(image.gpu_driver_version).substr(0, wish.size()));
}

bool HasFieldWishes(const tosca::ResourceRequest& wish) {
    return !wish.os_type.empty() || !wish.os_distribution.empty() || !wish.os_version.empty() ||
           !wish.gpu_driver.empty() || wish.cuda_support || !wish.cuda_min_version.empty();
}

bool FieldsMatch(const tosca::ResourceRequest& wish, const cmdb::Image& image) {
    return SameWord(wish.os_type, image.os_type) && SameWord(wish.os_distribution, image.distribution) &&
           SameWord(wish.os_version, image.version) && DriverMatches(wish.gpu_driver, image) &&
           (!wish.cuda_support || image.cuda_support) &&
           (wish.cuda_min_version.empty() ||
            (!image.cuda_version.empty() && CompareVersions(image.cuda_version, wish.cuda_min_version) >= 0));
}

std::string DescribeWish(const tosca::ResourceRequest& wish) {
    std::string text;
    for (const auto& part : {wish.os_type, wish.os_distribution, wish.os_version}) {
        if (!part.empty()) {
            text += (text.empty() ? "" : " ") + part;
        }
    }
    if (!wish.gpu_driver.empty() && Lower(wish.gpu_driver) != "false") {
        text += (text.empty() ? "" : ", ") + std::string("a GPU driver");
    }
    if (wish.cuda_support || !wish.cuda_min_version.empty()) {
        text += (text.empty() ? "" : ", ") + std::string("CUDA") +
                (wish.cuda_min_version.empty() ? "" : " >= " + wish.cuda_min_version);
    }
    return text;
}

}  // namespace

int CompareVersions(const std::string& a, const std::string& b) {
    std::istringstream left(a);
    std::istringstream right(b);
    std::string x;
    std::string y;
    while (true) {
        const bool more_left = static_cast<bool>(std::getline(left, x, '.'));
        const bool more_right = static_cast<bool>(std::getline(right, y, '.'));
        if (!more_left && !more_right) {
            return 0;
        }
        if (!more_left || !more_right) {
            return more_left ? 1 : -1;
        }
        const bool numeric = !x.empty() && !y.empty() && std::all_of(x.begin(), x.end(), ::isdigit) &&
                             std::all_of(y.begin(), y.end(), ::isdigit);
        if (numeric && x.size() < 10 && y.size() < 10) {
            const long long a_num = std::stoll(x);
            const long long b_num = std::stoll(y);
            if (a_num != b_num) {
                return a_num < b_num ? -1 : 1;
            }
        } else if (x != y) {
            return x < y ? -1 : 1;
        }
    }
}

FlavorChoice ChooseFlavor(
    const FlavorNeed& need, const std::string& instance_type, const std::vector<cmdb::Flavor>& flavors
) {
    FlavorChoice choice;
    if (flavors.empty()) {
        choice.reason = "no flavors are offered to your project";
        return choice;
    }
    if (instance_type.empty()) {
        // Fast path, no allocation: the smallest flavor passing every check. The narrowing below
        // runs only to explain a miss.
        choice.flavor = ScanSmallestFlavor(need, flavors);
        if (choice.flavor != nullptr) {
            return choice;
        }
    }
    FlavorList list;
    for (const auto& flavor : flavors) {
        list.push_back(&flavor);
    }
    std::stable_sort(list.begin(), list.end(), [](const auto* a, const auto* b) { return SizeKey(*a) < SizeKey(*b); });
    const std::string& named = instance_type;
    if (!named.empty()) {
        for (const auto* flavor : list) {
            if (flavor->name == named) {
                choice.flavor = flavor;
                return choice;
            }
        }
        if (need.cpus <= 0 && need.mem_mb == 0 && need.disk_mb == 0 && need.gpu.count <= 0) {
            choice.reason = "has no flavor named '" + named + "'";
            return choice;
        }
    }
    if (NarrowGpus(list, need, choice.reason) && NarrowSize(list, need, choice.reason)) {
        choice.flavor = list.front();
    }
    return choice;
}

ImageChoice ChooseImage(const tosca::ResourceRequest& wish, const std::vector<cmdb::Image>& images) {
    ImageChoice choice;
    if (IsImageUri(wish.image)) {
        choice.uri = wish.image;
        return choice;
    }
    if (!wish.image.empty()) {
        for (const auto& image : images) {
            if (NameMatches(wish.image, image.name)) {
                choice.image = &image;
                return choice;
            }
        }
        if (!HasFieldWishes(wish)) {
            choice.reason = "has no image named '" + wish.image + "'";
            return choice;
        }
    }
    for (const auto& image : images) {
        if (FieldsMatch(wish, image)) {
            choice.image = &image;
            return choice;
        }
    }
    std::set<std::string> names;
    for (const auto& image : images) {
        names.insert(image.name);
    }
    choice.reason = images.empty() ? "no images are offered to your project"
                                   : "no image has " + DescribeWish(wish) + " (images here: " + JoinSome(names) + ")";
    return choice;
}

std::string ExplainFlavorMiss(const void* node, const void* tenant) {
    const auto& facts = *static_cast<const NodeFacts*>(node);
    const auto& flavors = static_cast<const cmdb::Tenant*>(tenant)->flavors;
    return "node '" + facts.name + "': " + ChooseFlavor(facts.need, facts.instance_type, flavors).reason;
}

}  // namespace orch::placement
