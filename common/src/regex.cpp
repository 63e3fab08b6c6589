#include "common/regex.hpp"

#include <memory>

namespace orch {
namespace {

constexpr int kMaxNesting = 50;
constexpr int kMaxRepeat = 1000;

/// Parsed pattern: a small tree compiled to NFA code below.
struct Ast {
    enum Kind { kByte, kAny, kClass, kConcat, kAlternate, kRepeat, kBegin, kEnd, kEmpty } kind = kEmpty;
    std::uint8_t byte = 0;
    std::size_t class_index = 0;
    int min = 0;
    int max = 0;  ///< -1 = unbounded
    std::vector<std::unique_ptr<Ast>> children;
};

using AstPtr = std::unique_ptr<Ast>;

AstPtr MakeAst(Ast::Kind kind) {
    auto ast = std::make_unique<Ast>();
    ast->kind = kind;
    return ast;
}

}  // namespace

class RegexCompiler {
   public:
    RegexCompiler(std::string_view pattern, RegexLimits limits) : p_(pattern), limits_(limits) {}

    Result<Regex> Run() {
        Regex regex;
        regex.pattern_ = std::string(p_);
        if (p_.size() > limits_.max_pattern_bytes) {
            // Not echoed: the pattern itself is what is too long.
            return Error::InvalidArgument(
                "invalid pattern: longer than " + std::to_string(limits_.max_pattern_bytes) + " characters"
            );
        }
        AstPtr ast = ParseAlternation(0);
        if (!error_.empty()) {
            return Fail(error_);
        }
        if (pos_ != p_.size()) {
            return Fail("unbalanced ')' at offset " + std::to_string(pos_));
        }
        program_ = &regex.program_;
        Emit(*ast);
        Push({Regex::Inst::kMatch, 0, 0, 0});
        if (!error_.empty()) {
            return Fail(error_);
        }
        regex.classes_ = std::move(classes_);
        return regex;
    }

   private:
    Error Fail(const std::string& why) const {
        return Error::InvalidArgument("invalid pattern \"" + std::string(p_) + "\": " + why);
    }

    bool AtEnd() const { return pos_ >= p_.size(); }
    char Peek() const { return p_[pos_]; }

    AstPtr ParseAlternation(int depth) {
        if (depth > kMaxNesting) {
            error_ = "groups nested too deeply";
            return MakeAst(Ast::kEmpty);
        }
        AstPtr first = ParseConcat(depth);
        if (AtEnd() || Peek() != '|') {
            return first;
        }
        AstPtr alt = MakeAst(Ast::kAlternate);
        alt->children.push_back(std::move(first));
        while (!AtEnd() && Peek() == '|' && error_.empty()) {
            ++pos_;
            alt->children.push_back(ParseConcat(depth));
        }
        return alt;
    }

    AstPtr ParseConcat(int depth) {
        AstPtr concat = MakeAst(Ast::kConcat);
        while (!AtEnd() && Peek() != '|' && Peek() != ')' && error_.empty()) {
            AstPtr atom = ParseAtom(depth);
            if (!error_.empty()) {
                break;
            }
            concat->children.push_back(ParseQuantifiers(std::move(atom)));
        }
        return concat;
    }

    AstPtr ParseQuantifiers(AstPtr atom) {
        while (!AtEnd() && error_.empty()) {
            int min = 0;
            int max = 0;
            const char c = Peek();
            if (c == '*') {
                min = 0;
                max = -1;
                ++pos_;
            } else if (c == '+') {
                min = 1;
                max = -1;
                ++pos_;
            } else if (c == '?') {
                min = 0;
                max = 1;
                ++pos_;
            } else if (c == '{' && ParseBraces(min, max)) {
                // parsed
            } else {
                break;
            }
            if (!AtEnd() && Peek() == '?') {
                ++pos_;  // lazy: the same language for a whole-value match
            }
            if (atom->kind == Ast::kBegin || atom->kind == Ast::kEnd) {
                error_ = "quantifier after an anchor";
                break;
            }
            AstPtr repeat = MakeAst(Ast::kRepeat);
            repeat->min = min;
            repeat->max = max;
            repeat->children.push_back(std::move(atom));
            atom = std::move(repeat);
        }
        return atom;
    }

    // {n}, {n,}, {n,m}; anything else is a literal '{'.
    bool ParseBraces(int& min, int& max) {
        std::size_t i = pos_ + 1;
        auto number = [&](int& out) {
            const std::size_t start = i;
            long value = 0;
            while (i < p_.size() && p_[i] >= '0' && p_[i] <= '9') {
                value = value * 10 + (p_[i] - '0');
                if (value > kMaxRepeat) {
                    value = kMaxRepeat + 1;
                }
                ++i;
            }
            out = static_cast<int>(value);
            return i > start;
        };
        if (!number(min)) {
            return false;
        }
        max = min;
        if (i < p_.size() && p_[i] == ',') {
            ++i;
            if (!number(max)) {
                max = -1;
            }
        }
        if (i >= p_.size() || p_[i] != '}') {
            return false;
        }
        if (min > kMaxRepeat || max > kMaxRepeat) {
            error_ = "repetition count above " + std::to_string(kMaxRepeat);
        } else if (max != -1 && max < min) {
            error_ = "repetition {n,m} with m < n";
        }
        pos_ = i + 1;
        return true;
    }

    AstPtr ParseAtom(int depth) {
        const char c = Peek();
        ++pos_;
        switch (c) {
            case '(': {
                if (!AtEnd() && Peek() == '?') {
                    if (pos_ + 1 < p_.size() && p_[pos_ + 1] == ':') {
                        pos_ += 2;
                    } else {
                        error_ = "look-around and named groups are not supported";
                        return MakeAst(Ast::kEmpty);
                    }
                }
                AstPtr inner = ParseAlternation(depth + 1);
                if (AtEnd() || Peek() != ')') {
                    if (error_.empty()) {
                        error_ = "missing ')'";
                    }
                    return inner;
                }
                ++pos_;
                return inner;
            }
            case '[':
                return ParseClass();
            case '.':
                return MakeAst(Ast::kAny);
            case '^':
                return MakeAst(Ast::kBegin);
            case '$':
                return MakeAst(Ast::kEnd);
            case '\\':
                return ParseEscape();
            case '*':
            case '+':
            case '?':
                error_ = std::string("nothing to repeat before '") + c + "'";
                return MakeAst(Ast::kEmpty);
            default: {
                AstPtr byte = MakeAst(Ast::kByte);
                byte->byte = static_cast<std::uint8_t>(c);
                return byte;
            }
        }
    }

    static void AddClassEscape(char e, std::bitset<256>& set) {
        std::bitset<256> local;
        switch (e) {
            case 'd':
            case 'D':
                for (int b = '0'; b <= '9'; ++b) {
                    local.set(static_cast<std::size_t>(b));
                }
                break;
            case 'w':
            case 'W':
                for (int b = 0; b < 256; ++b) {
                    if ((b >= '0' && b <= '9') || (b >= 'a' && b <= 'z') || (b >= 'A' && b <= 'Z') || b == '_') {
                        local.set(static_cast<std::size_t>(b));
                    }
                }
                break;
            default:  // s / S
                for (char s : {' ', '\t', '\n', '\r', '\f', '\v'}) {
                    local.set(static_cast<unsigned char>(s));
                }
                break;
        }
        if (e == 'D' || e == 'W' || e == 'S') {
            local.flip();
        }
        set |= local;
    }

    static bool IsClassEscape(char e) { return e == 'd' || e == 'D' || e == 'w' || e == 'W' || e == 's' || e == 'S'; }

    // The byte an escape stands for (\n, \t, \., ...); false for unsupported escapes.
    bool EscapedByte(char e, std::uint8_t& out) {
        switch (e) {
            case 'n':
                out = '\n';
                return true;
            case 't':
                out = '\t';
                return true;
            case 'r':
                out = '\r';
                return true;
            case 'f':
                out = '\f';
                return true;
            case 'v':
                out = '\v';
                return true;
            default:
                break;
        }
        if ((e >= 'a' && e <= 'z') || (e >= 'A' && e <= 'Z') || (e >= '0' && e <= '9')) {
            error_ = std::string("unsupported escape '\\") + e + "'";
            return false;
        }
        out = static_cast<std::uint8_t>(e);
        return true;
    }

    AstPtr ParseEscape() {
        if (AtEnd()) {
            error_ = "pattern ends with '\\'";
            return MakeAst(Ast::kEmpty);
        }
        const char e = Peek();
        ++pos_;
        if (IsClassEscape(e)) {
            std::bitset<256> set;
            AddClassEscape(e, set);
            return ClassAst(set);
        }
        AstPtr byte = MakeAst(Ast::kByte);
        EscapedByte(e, byte->byte);
        return byte;
    }

    AstPtr ClassAst(const std::bitset<256>& set) {
        AstPtr ast = MakeAst(Ast::kClass);
        ast->class_index = classes_.size();
        classes_.push_back(set);
        return ast;
    }

    AstPtr ParseClass() {
        std::bitset<256> set;
        bool negate = false;
        if (!AtEnd() && Peek() == '^') {
            negate = true;
            ++pos_;
        }
        bool first = true;
        while (!AtEnd() && (Peek() != ']' || first) && error_.empty()) {
            first = false;
            std::uint8_t lo = 0;
            if (Peek() == '\\') {
                ++pos_;
                if (AtEnd()) {
                    break;
                }
                const char e = Peek();
                ++pos_;
                if (IsClassEscape(e)) {
                    AddClassEscape(e, set);
                    continue;
                }
                if (!EscapedByte(e, lo)) {
                    break;
                }
            } else {
                lo = static_cast<std::uint8_t>(Peek());
                ++pos_;
            }
            std::uint8_t hi = lo;
            if (pos_ + 1 < p_.size() && Peek() == '-' && p_[pos_ + 1] != ']') {
                ++pos_;
                if (Peek() == '\\') {
                    ++pos_;
                    if (AtEnd() || !EscapedByte(Peek(), hi)) {
                        break;
                    }
                    ++pos_;
                } else {
                    hi = static_cast<std::uint8_t>(Peek());
                    ++pos_;
                }
                if (hi < lo) {
                    error_ = "character range out of order";
                    break;
                }
            }
            for (int b = lo; b <= hi; ++b) {
                set.set(static_cast<std::size_t>(b));
            }
        }
        if (AtEnd() && error_.empty()) {
            error_ = "missing ']'";
        }
        if (!error_.empty()) {
            return MakeAst(Ast::kEmpty);
        }
        ++pos_;  // ']'
        if (negate) {
            set.flip();
        }
        return ClassAst(set);
    }

    std::uint32_t Pc() const { return static_cast<std::uint32_t>(program_->size()); }

    std::uint32_t Push(Regex::Inst inst) {
        if (program_->size() >= limits_.max_program) {
            if (error_.empty()) {
                error_ = "pattern too large once repetitions are expanded";
            }
            return Pc();
        }
        program_->push_back(inst);
        return Pc() - 1;
    }

    void Patch(std::uint32_t at, std::uint32_t x, std::uint32_t y) {
        if (at < program_->size()) {
            (*program_)[at].x = x;
            (*program_)[at].y = y;
        }
    }

    void Emit(const Ast& ast) {
        if (!error_.empty()) {
            return;
        }
        switch (ast.kind) {
            case Ast::kEmpty:
                return;
            case Ast::kByte:
                Push({Regex::Inst::kByte, ast.byte, 0, 0});
                return;
            case Ast::kAny:
                Push({Regex::Inst::kAny, 0, 0, 0});
                return;
            case Ast::kClass:
                Push({Regex::Inst::kClass, 0, static_cast<std::uint32_t>(ast.class_index), 0});
                return;
            case Ast::kBegin:
                Push({Regex::Inst::kBegin, 0, 0, 0});
                return;
            case Ast::kEnd:
                Push({Regex::Inst::kEnd, 0, 0, 0});
                return;
            case Ast::kConcat:
                for (const auto& child : ast.children) {
                    Emit(*child);
                }
                return;
            case Ast::kAlternate:
                EmitAlternate(ast, 0);
                return;
            case Ast::kRepeat:
                EmitRepeat(ast);
                return;
        }
    }

    void EmitAlternate(const Ast& ast, std::size_t index) {
        if (index + 1 == ast.children.size()) {
            Emit(*ast.children[index]);
            return;
        }
        const std::uint32_t split = Push({Regex::Inst::kSplit, 0, 0, 0});
        Emit(*ast.children[index]);
        const std::uint32_t jump = Push({Regex::Inst::kJump, 0, 0, 0});
        const std::uint32_t second = Pc();
        EmitAlternate(ast, index + 1);
        Patch(split, split + 1, second);
        Patch(jump, Pc(), 0);
    }

    void EmitRepeat(const Ast& ast) {
        const Ast& body = *ast.children.front();
        for (int i = 0; i < ast.min && error_.empty(); ++i) {
            Emit(body);
        }
        if (ast.max == -1) {
            // L: split body, out; body; jump L
            const std::uint32_t split = Push({Regex::Inst::kSplit, 0, 0, 0});
            Emit(body);
            Push({Regex::Inst::kJump, 0, split, 0});
            Patch(split, split + 1, Pc());
            return;
        }
        std::vector<std::uint32_t> splits;
        for (int i = ast.min; i < ast.max && error_.empty(); ++i) {
            splits.push_back(Push({Regex::Inst::kSplit, 0, 0, 0}));
            Emit(body);
        }
        for (const std::uint32_t split : splits) {
            Patch(split, split + 1, Pc());
        }
    }

    std::string_view p_;
    RegexLimits limits_;
    std::size_t pos_ = 0;
    std::string error_;
    std::vector<Regex::Inst>* program_ = nullptr;
    std::vector<std::bitset<256>> classes_;
};

Result<Regex> Regex::Compile(std::string_view pattern, RegexLimits limits) {
    return RegexCompiler(pattern, limits).Run();
}

namespace {

/// A set of program counters with O(1) insert and clear (sparse set).
class ThreadList {
   public:
    explicit ThreadList(std::size_t n) : dense_(n), sparse_(n) {}
    bool Contains(std::uint32_t pc) const { return sparse_[pc] < size_ && dense_[sparse_[pc]] == pc; }
    void Insert(std::uint32_t pc) {
        sparse_[pc] = static_cast<std::uint32_t>(size_);
        dense_[size_++] = pc;
    }
    void Clear() { size_ = 0; }
    std::size_t size() const { return size_; }
    std::uint32_t operator[](std::size_t i) const { return dense_[i]; }

   private:
    std::vector<std::uint32_t> dense_;
    std::vector<std::uint32_t> sparse_;
    std::size_t size_ = 0;
};

}  // namespace

bool Regex::FullMatch(std::string_view text) const {
    const std::size_t n = program_.size();
    ThreadList current(n);
    ThreadList next(n);
    std::vector<std::uint32_t> stack;
    // Follows jumps, splits and anchors from `pc` at input offset `at`, adding the byte-consuming
    // (and match) instructions reached to `list`.
    auto add = [&](ThreadList& list, std::uint32_t start, std::size_t at) {
        stack.push_back(start);
        while (!stack.empty()) {
            const std::uint32_t pc = stack.back();
            stack.pop_back();
            if (pc >= n || list.Contains(pc)) {
                continue;
            }
            list.Insert(pc);
            const Inst& inst = program_[pc];
            switch (inst.op) {
                case Inst::kJump:
                    stack.push_back(inst.x);
                    break;
                case Inst::kSplit:
                    stack.push_back(inst.y);
                    stack.push_back(inst.x);
                    break;
                case Inst::kBegin:
                    if (at == 0) {
                        stack.push_back(pc + 1);
                    }
                    break;
                case Inst::kEnd:
                    if (at == text.size()) {
                        stack.push_back(pc + 1);
                    }
                    break;
                default:
                    break;
            }
        }
    };
    add(current, 0, 0);
    for (std::size_t i = 0; i < text.size(); ++i) {
        const auto byte = static_cast<unsigned char>(text[i]);
        next.Clear();
        for (std::size_t t = 0; t < current.size(); ++t) {
            const std::uint32_t pc = current[t];
            const Inst& inst = program_[pc];
            const bool step = (inst.op == Inst::kByte && inst.byte == byte) || inst.op == Inst::kAny ||
                              (inst.op == Inst::kClass && classes_[inst.x].test(byte));
            if (step) {
                add(next, pc + 1, i + 1);
            }
        }
        std::swap(current, next);
        if (current.size() == 0) {
            return false;
        }
    }
    for (std::size_t t = 0; t < current.size(); ++t) {
        if (program_[current[t]].op == Inst::kMatch) {
            return true;
        }
    }
    return false;
}

}  // namespace orch
