#include "util/path.hpp"

namespace orch::tosca {

std::string Path::Str() const {
    std::string out;
    AppendTo(out);
    return out;
}

void Path::AppendTo(std::string& out) const {
    if (parent_ != nullptr) {
        parent_->AppendTo(out);
    }
    if (index_ >= 0) {
        out += '[';
        out += std::to_string(index_);
        out += ']';
        return;
    }
    if (key_.empty()) {
        return;
    }
    if (!out.empty()) {
        out += '.';
    }
    out += key_;
}

}  // namespace orch::tosca
