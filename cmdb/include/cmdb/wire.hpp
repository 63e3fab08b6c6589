#pragma once

#include "cmdb/site_model.hpp"
#include "common/json.hpp"
#include "common/result.hpp"

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace orch::cmdb {

/// Field-level readers of CMDB entities: `data` objects of the CMDB v1 documents and the entries
/// of the local catalogue file share the same field names. Errors name the entity and the field.
Result<Flavor> ParseFlavor(const Json& data, const std::string& doc_id);
Result<Image> ParseImage(const Json& data, const std::string& doc_id);
/// The tenant without its flavors and images (they come from separate calls/sections).
Result<Tenant> ParseTenant(const Json& data, const std::string& doc_id);
/// The service without its tenants.
Result<Service> ParseService(const Json& data, const std::string& doc_id);
/// The provider without its services.
Result<Provider> ParseProvider(const Json& data, const std::string& doc_id);

/// A CouchDB single document `{"_id", "data": {...}}` → (id, data). `_id` wins over `data.id`.
Result<std::pair<std::string, Json>> UnwrapDocument(const Json& document, std::string_view what);
/// A CouchDB row list `{"rows": [{"doc": {...}}]}` → (id, data) per row. `{}` is an empty list.
Result<std::vector<std::pair<std::string, Json>>> UnwrapRows(const Json& body, std::string_view what);

}  // namespace orch::cmdb
