#include "imports/library.hpp"

#include "imports/document_cache.hpp"
#include "types/definitions_check.hpp"

#include <algorithm>

namespace orch::tosca {
namespace {

/// Repository name → base URL.
std::unordered_map<std::string, std::string> ReadRepositories(const yaml::Node* node, GrammarContext& ctx) {
    std::unordered_map<std::string, std::string> out;
    const Path path = Path().Key("repositories");
    if (node == nullptr || !ExpectMapping(node, path, "repositories", ctx)) {
        return out;
    }
    for (const auto& entry : node->entries) {
        const Path here = path.Key(entry.key->text);
        const yaml::Node* url = entry.value;
        if (url->IsMapping()) {
            CheckKeys(*url, {"url", "description", "credential"}, here, "a repository definition", ctx);
            url = url->Find("url");
        }
        if (auto text = ReadText(url, here, "a repository URL", ctx)) {
            out[entry.key->text] = *text;
        } else {
            ctx.sink.Error(
                DiagnosticCode::kMissingRequired, entry.value, here, "repository '" + entry.key->text + "' has no url"
            );
        }
    }
    return out;
}

std::string WithRepository(const std::string& base, const std::string& file) {
    if (base.empty()) {
        return file;
    }
    return base.back() == '/' ? base + file : base + "/" + file;
}

std::optional<ImportRef> ReadImportDefinition(
    const yaml::Node& def,
    const Path& here,
    const std::unordered_map<std::string, std::string>& repositories,
    GrammarContext& ctx
) {
    CheckKeys(def, {"file", "repository", "namespace_uri", "namespace_prefix"}, here, "an import definition", ctx);
    const auto file = ReadText(def.Find("file"), here.Key("file"), "file", ctx);
    if (!file) {
        ctx.sink.Error(DiagnosticCode::kImport, &def, here, "the import definition has no file");
        return std::nullopt;
    }
    std::string reference = *file;
    if (const auto repo = ReadText(def.Find("repository"), here.Key("repository"), "repository", ctx)) {
        const auto it = repositories.find(*repo);
        if (it == repositories.end()) {
            ctx.sink.Error(
                DiagnosticCode::kImport,
                def.Find("repository"),
                here.Key("repository"),
                "unknown repository '" + *repo + "' (not in repositories)"
            );
            return std::nullopt;
        }
        reference = WithRepository(it->second, *file);
    }
    return ImportRef{reference, &def, here.Str()};
}

class Loader {
   public:
    Loader(
        const ImportResolver& resolver,
        DocumentCache& documents,
        const EngineOptions& options,
        TypeRegistry& registry,
        DiagSink& inner,
        GrammarContext& defs
    )
        : resolver_(resolver),
          documents_(documents),
          options_(options),
          registry_(registry),
          inner_(inner),
          defs_(defs) {}

    /// Loads one document and what it imports; an error when it cannot be read or parsed.
    Status Load(const ImportLocation& location, int depth) {
        if (std::find(loaded_.begin(), loaded_.end(), location.logical) != loaded_.end()) {
            return Ok();  // each document once, also breaking import cycles
        }
        if (depth > options_.limits.max_import_depth) {
            return Error::InvalidArgument(
                "imports nest deeper than " + std::to_string(options_.limits.max_import_depth) + " levels at " +
                location.logical
            );
        }
        if (loaded_.size() >= options_.limits.max_imports) {
            return Error::InvalidArgument(
                "more than " + std::to_string(options_.limits.max_imports) + " documents are imported"
            );
        }
        loaded_.push_back(location.logical);
        auto parsed = documents_.Get(location, resolver_, options_);
        if (!parsed) {
            return std::move(parsed).error();
        }
        const ParsedImport& doc = **parsed;
        stamps_.push_back(doc.stamp);
        inner_.Append(doc.diagnostics);
        if (doc.doc.root == nullptr) {
            return Error::InvalidArgument("Failed to parse remote TOSCA dependency " + location.logical);
        }
        registry_.KeepAlive(doc.doc.arena);
        defs_.sink.Append(doc.definition_diagnostics);
        for (const ImportRef& ref : doc.imports) {
            auto nested = resolver_.Locate(ref.reference, &location, {});
            Status status = nested ? Load(*nested, depth + 1) : Status(std::move(nested).error());
            if (!status) {
                all_read_ = false;
                inner_.Error(
                    ImportDiagnosticCode(status.error()), ref.at, Path().Key(ref.path), status.error().message
                );
            }
        }
        for (const auto& def : doc.defs) {
            registry_.Add(def, defs_);
        }
        return Ok();
    }

    bool all_read() const { return all_read_; }
    std::vector<ImportStamp> TakeStamps() { return std::move(stamps_); }

   private:
    const ImportResolver& resolver_;
    DocumentCache& documents_;
    const EngineOptions& options_;
    TypeRegistry& registry_;
    DiagSink& inner_;
    GrammarContext& defs_;
    std::vector<std::string> loaded_;
    std::vector<ImportStamp> stamps_;
    bool all_read_ = true;
};

}  // namespace

std::vector<ImportRef> CollectImports(const yaml::Node& root, GrammarContext& ctx) {
    std::vector<ImportRef> out;
    const yaml::Node* imports = root.Find("imports");
    const Path path = Path().Key("imports");
    if (imports == nullptr || imports->IsNull() || !ExpectSequence(imports, path, "imports", ctx)) {
        return out;
    }
    const auto repositories = ReadRepositories(root.Find("repositories"), ctx);
    for (std::size_t i = 0; i < imports->items.size(); ++i) {
        const yaml::Node& item = *imports->items[i];
        const Path here = path.Index(i);
        if (item.IsScalar()) {
            out.push_back({item.text, &item, here.Str()});
            continue;
        }
        if (item.IsMapping() && item.Find("file") != nullptr) {
            if (auto ref = ReadImportDefinition(item, here, repositories, ctx)) {
                out.push_back(std::move(*ref));
            }
            continue;
        }
        const yaml::Entry* entry = SingleEntry(item, here, "an import", ctx);
        if (entry == nullptr) {
            continue;
        }
        const Path named = here.Key(entry->key->text);
        if (entry->value->IsScalar()) {
            out.push_back({entry->value->text, entry->value, named.Str()});
        } else if (entry->value->IsMapping()) {
            if (auto ref = ReadImportDefinition(*entry->value, named, repositories, ctx)) {
                out.push_back(std::move(*ref));
            }
        } else {
            ctx.sink.Error(
                DiagnosticCode::kImport,
                entry->value,
                named,
                "an import must be a URL, a file name or {file, repository}"
            );
        }
    }
    return out;
}

std::shared_ptr<const Library> BuildLibrary(
    const std::shared_ptr<const TypeRegistry>& normative,
    const std::vector<std::pair<ImportLocation, const ImportRef*>>& tops,
    const ImportResolver& resolver,
    DocumentCache& documents,
    const EngineOptions& options,
    DiagSink& sink,
    bool& cacheable
) {
    auto registry = std::make_shared<TypeRegistry>(normative);
    DiagSink inner(options.limits.max_diagnostics);
    // Problems in the imported type definitions are the type authors', not the template's: they
    // are warnings, and a type that cannot be used fails only the templates that use it.
    DiagSink defs(options.limits.max_diagnostics);
    GrammarContext defs_ctx{defs, options.mode == Mode::kStrict};
    Loader loader(resolver, documents, options, *registry, inner, defs_ctx);
    cacheable = true;
    for (const auto& [location, ref] : tops) {
        const Status loaded = loader.Load(location, 1);
        if (!loaded) {
            cacheable = false;
            sink.Error(ImportDiagnosticCode(loaded.error()), ref->at, Path().Key(ref->path), loaded.error().message);
        }
    }
    registry->Resolve(defs_ctx, true);
    CheckDefinitions(
        *registry, options.mode == Mode::kStrict ? LiteralTyping::kYamlTyped : LiteralTyping::kTextual, defs_ctx
    );
    for (Diagnostic d : defs.Take()) {
        d.severity = Severity::kWarning;
        inner.Append({d});
    }
    cacheable = cacheable && loader.all_read();
    auto library = std::make_shared<Library>();
    library->registry = std::move(registry);
    library->diagnostics = inner.Take();
    library->stamps = loader.TakeStamps();
    return library;
}

std::shared_ptr<const Library> LibraryCache::Find(const std::string& key, const ImportResolver& resolver) {
    std::shared_ptr<const Library> library;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        const auto it = slots_.find(key);
        if (it == slots_.end()) {
            ++misses_;
            return nullptr;
        }
        library = it->second.library;
        lru_.splice(lru_.begin(), lru_, it->second.position);
    }
    // Revalidation stats files; done outside the lock.
    const bool fresh = std::all_of(library->stamps.begin(), library->stamps.end(), [&](const ImportStamp& s) {
        return resolver.StillValid(s);
    });
    std::lock_guard<std::mutex> lock(mutex_);
    if (!fresh) {
        if (const auto it = slots_.find(key); it != slots_.end() && it->second.library == library) {
            lru_.erase(it->second.position);
            slots_.erase(it);
        }
        ++misses_;
        return nullptr;
    }
    ++hits_;
    return library;
}

void LibraryCache::Put(const std::string& key, std::shared_ptr<const Library> library) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (const auto it = slots_.find(key); it != slots_.end()) {
        it->second.library = std::move(library);
        lru_.splice(lru_.begin(), lru_, it->second.position);
        return;
    }
    while (!slots_.empty() && slots_.size() >= capacity_) {
        slots_.erase(lru_.back());
        lru_.pop_back();
    }
    if (capacity_ == 0) {
        return;
    }
    lru_.push_front(key);
    slots_.emplace(key, Slot{std::move(library), lru_.begin()});
}

void LibraryCache::Clear() {
    std::lock_guard<std::mutex> lock(mutex_);
    slots_.clear();
    lru_.clear();
}

std::size_t LibraryCache::size() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return slots_.size();
}

std::uint64_t LibraryCache::hits() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return hits_;
}

std::uint64_t LibraryCache::misses() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return misses_;
}

}  // namespace orch::tosca
