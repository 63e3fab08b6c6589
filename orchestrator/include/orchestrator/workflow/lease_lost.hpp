#pragma once

// The error a WorkflowStore returns when the caller's job or callback lease was lost (another
// worker holds it now: workflow_store.hpp's fence). One definition so that both stores and their
// in-memory fakes answer alike, the store contract suite checking them against each other.
#include "common/error.hpp"

namespace orch::workflow {

inline const Error kLeaseLost = Error::Conflict("job lease lost");

}  // namespace orch::workflow
