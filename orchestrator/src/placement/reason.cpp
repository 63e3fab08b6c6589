#include "orchestrator/placement/reason.hpp"

namespace orch::placement {

Reason Reason::Fixed(std::string_view text) {
    Reason reason;
    reason.code_ = Code::kFixed;
    reason.args_[0] = text;
    return reason;
}

Reason Reason::VmChoice(std::string_view node, std::string_view flavor, std::string_view image) {
    Reason reason;
    reason.code_ = Code::kVmChoice;
    reason.args_[0] = node;
    reason.args_[1] = flavor;
    reason.args_[2] = image;
    return reason;
}

Reason Reason::Deferred(Render render, const void* subject, const void* detail) {
    Reason reason;
    reason.code_ = Code::kDeferred;
    reason.render_ = render;
    reason.subject_ = subject;
    reason.detail_ = detail;
    return reason;
}

std::string Reason::Text() const {
    switch (code_) {
        case Code::kText:
            return text_;
        case Code::kFixed:
            return std::string(args_[0]);
        case Code::kVmChoice: {
            std::string text;
            text.reserve(32 + args_[0].size() + args_[1].size() + args_[2].size());
            text.append("node '")
                .append(args_[0])
                .append("': flavor ")
                .append(args_[1])
                .append(", image '")
                .append(args_[2])
                .append("'");
            return text;
        }
        case Code::kDeferred:
            return render_(subject_, detail_);
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
