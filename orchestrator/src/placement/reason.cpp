#include "orchestrator/placement/reason.hpp"

namespace orch::placement {

Reason Reason::Fixed(std::string_view text) {
    Reason reason;
    reason.code_ = Code::kFixed;
    reason.fixed_ = {text.data(), text.size()};
    return reason;
}

Reason Reason::VmChoice(
    std::shared_ptr<const void> owner, const std::string& node, const std::string& flavor, const std::string& image
) {
    Reason reason;
    reason.code_ = Code::kVmChoice;
    reason.owner_ = std::move(owner);
    reason.vm_choice_[0] = &node;
    reason.vm_choice_[1] = &flavor;
    reason.vm_choice_[2] = &image;
    return reason;
}

Reason Reason::Deferred(Render render, std::shared_ptr<const void> owner, const void* subject, const void* detail) {
    Reason reason;
    reason.code_ = Code::kDeferred;
    reason.owner_ = std::move(owner);
    reason.deferred_ = {render, subject, detail};
    return reason;
}

std::string Reason::Text() const {
    switch (code_) {
        case Code::kText:
            return text_;
        case Code::kFixed:
            return std::string(fixed_.data, fixed_.size);
        case Code::kVmChoice: {
            const auto& [node, flavor, image] = vm_choice_;
            std::string text;
            text.reserve(32 + node->size() + flavor->size() + image->size());
            text.append("node '").append(*node).append("': flavor ").append(*flavor).append(", image '").append(*image);
            text.append("'");
            return text;
        }
        case Code::kDeferred:
            return deferred_.render(deferred_.subject, deferred_.detail);
    }
    return text_;
}

Reasons::Reasons(const std::vector<std::string>& texts) {
    for (const auto& text : texts) {
        push_back(Reason(text));
    }
}

void Reasons::push_back(Reason reason) {
    if (!first_) {
        first_ = std::move(reason);
    } else {
        rest_.push_back(std::move(reason));
    }
}

std::vector<std::string> Reasons::Texts() const {
    std::vector<std::string> out;
    out.reserve(size());
    for (const auto& reason : *this) {
        out.push_back(reason.Text());
    }
    return out;
}

}  // namespace orch::placement
