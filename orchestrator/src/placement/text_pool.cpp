#include "orchestrator/placement/text_pool.hpp"

namespace orch::placement {

TextPool& TextPool::Process() {
    // Never destroyed: a verdict in static storage may be destroyed after this would be.
    static auto* const kPool = new TextPool(kMaxBytes);
    return *kPool;
}

SharedText TextPool::Intern(std::string_view text) {
    if (text.empty()) {
        return {};
    }
    const std::lock_guard lock(mutex_);
    if (const auto found = index_.find(text); found != index_.end()) {
        return {nullptr, *found};
    }
    const std::size_t cost = text.size() + kEntryOverhead;
    if (bytes_ + cost > max_bytes_) {
        return {std::string(text)};
    }
    const std::string_view kept = storage_.emplace_back(text);
    index_.insert(kept);
    bytes_ += cost;
    return {nullptr, kept};
}

std::size_t TextPool::bytes() const {
    const std::lock_guard lock(mutex_);
    return bytes_;
}

}  // namespace orch::placement
