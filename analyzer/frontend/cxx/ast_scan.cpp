// Compiled without RTTI (see CMakeLists.txt): it subclasses clang's classes,
// and Debian's clang libraries carry no RTTI.
#include "frontend/cxx/ast_scan.h"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <stdexcept>
#include <string_view>
#include <unordered_map>

#include <clang/AST/ASTConsumer.h>
#include <clang/AST/ASTContext.h>
#include <clang/AST/Attr.h>
#include <clang/AST/ExprCXX.h>
#include <clang/AST/RecursiveASTVisitor.h>
#include <clang/AST/Stmt.h>
#include <clang/Basic/Diagnostic.h>
#include <clang/Basic/DiagnosticIDs.h>
#include <clang/Basic/DiagnosticLex.h>
#include <clang/Basic/FileManager.h>
#include <clang/Basic/SourceManager.h>
#include <clang/Frontend/CompilerInstance.h>
#include <clang/Frontend/FrontendAction.h>
#include <clang/Lex/Lexer.h>
#include <clang/Lex/MacroInfo.h>
#include <clang/Lex/PPCallbacks.h>
#include <clang/Lex/Preprocessor.h>
#include <clang/Lex/PreprocessorOptions.h>
#include <clang/Sema/Sema.h>
#include <clang/Sema/SemaConsumer.h>
#include <clang/Sema/TemplateInstCallback.h>
#include <clang/Tooling/ArgumentsAdjusters.h>
#include <clang/Tooling/CompilationDatabase.h>
#include <clang/Tooling/JSONCompilationDatabase.h>
#include <clang/Tooling/Tooling.h>
#include <llvm/ADT/SmallString.h>
#include <llvm/Support/CrashRecoveryContext.h>
#include <llvm/Support/ErrorHandling.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/Path.h>
#include <llvm/Support/VirtualFileSystem.h>

#include "core/isolated_worker.h"
#include "core/text.h"
#include "frontend/cxx/parse_wire.h"

namespace mpsaudit::cxx {
namespace {

std::atomic<std::uint64_t> clang_run_count{0};
std::atomic<std::uint64_t> skipped_body_count{0};
std::atomic<std::uint64_t> dropped_instantiation_count{0};

// Where the embedded shim appears inside the in-memory file system.
constexpr const char *kShimPath = "/mpsaudit-shim/mpsaudit_cuda_shim.h";
// More syntax errors than this (and than one per ten lines) means the
// recovery AST is mostly noise: the token path stands alone.
constexpr std::uint32_t kMinParseErrorsForFallback = 20;
// A file gets at most this many missing-include diagnostics, then a summary.
constexpr std::size_t kMaxMissingIncludeDiagnostics = 20;

// ---------------------------------------------------------------- diagnostics

// Collects clang's diagnostics instead of printing them.
class RecordingConsumer : public clang::DiagnosticConsumer {
public:
  void HandleDiagnostic(clang::DiagnosticsEngine::Level level, const clang::Diagnostic &info) override {
    clang::DiagnosticConsumer::HandleDiagnostic(level, info);
    if (level < clang::DiagnosticsEngine::Error)
      return;
    const unsigned id = info.getID();
    const std::uint32_t line = main_file_line(info);
    if (id == clang::diag::err_pp_file_not_found) {
      const std::string header = info.getNumArgs() > 0 ? info.getArgStdStr(0) : "?";
      if (seen_headers_.insert(header).second)
        summary.missing_includes.push_back({header, line});
      return;
    }
    // Formatted only when kept: a hostile file can make clang report
    // millions of errors.
    const auto message = [&info] {
      llvm::SmallString<160> text;
      info.FormatDiagnostic(text);
      return std::string(text.str());
    };
    if (summary.first_error.empty()) {
      summary.first_error = message();
      summary.first_error_line = line;
    }
    if (level == clang::DiagnosticsEngine::Fatal) {
      summary.fatal = true;
      if (summary.fatal_message.empty())
        summary.fatal_message = message();
    }
    const llvm::StringRef category =
        clang::DiagnosticIDs::getCategoryNameFromID(clang::DiagnosticIDs::getCategoryNumberForDiag(id));
    if (category == "Parse Issue" || category == "Lexical or Preprocessor Issue") {
      if (summary.parse_errors++ == 0) {
        summary.first_parse_error = message();
        summary.first_parse_error_line = line;
      }
    }
  }

  DiagnosticSummary summary;

private:
  // The line in the main file the diagnostic belongs to: its own line, or
  // the #include that led to the header it is in. 0 when there is none.
  static std::uint32_t main_file_line(const clang::Diagnostic &info) {
    if (!info.hasSourceManager() || info.getLocation().isInvalid())
      return 0;
    const clang::SourceManager &sources = info.getSourceManager();
    clang::SourceLocation location = sources.getExpansionLoc(info.getLocation());
    for (int depth = 0; depth < 64 && location.isValid(); ++depth) {
      const clang::FileID file = sources.getFileID(location);
      if (file == sources.getMainFileID())
        return sources.getExpansionLineNumber(location);
      location = sources.getIncludeLoc(file);
      if (location.isValid())
        location = sources.getExpansionLoc(location);
    }
    return 0;
  }

  std::set<std::string> seen_headers_;
};

// ---------------------------------------------------------------- AST visitor

bool mentions_double(clang::QualType type) {
  if (type.isNull() || type->isDependentType())
    return false;
  const clang::Type *inner = type.getCanonicalType().getTypePtr();
  for (int depth = 0; depth < 8 && inner; ++depth) {
    if (inner->isSpecificBuiltinType(clang::BuiltinType::Double) ||
        inner->isSpecificBuiltinType(clang::BuiltinType::LongDouble))
      return true;
    if (inner->isReferenceType())
      inner = inner->getPointeeType().getTypePtrOrNull();
    else if (inner->isPointerType() || inner->isArrayType())
      inner = inner->getPointeeOrArrayElementType();
    else
      break;
  }
  return false;
}

class Collector : public clang::RecursiveASTVisitor<Collector> {
public:
  Collector(clang::ASTContext &context, FileModel &model)
      : sources_(context.getSourceManager()), model_(model) {}

  // Declarations from headers (the shim, the standard library) are skipped
  // whole: only the main file is audited.
  bool TraverseDecl(clang::Decl *decl) {
    if (!decl)
      return true;
    if (!llvm::isa<clang::TranslationUnitDecl>(decl)) {
      const clang::SourceLocation location = sources_.getExpansionLoc(decl->getLocation());
      if (location.isValid() && !sources_.isInMainFile(location))
        return true;
    }
    return clang::RecursiveASTVisitor<Collector>::TraverseDecl(decl);
  }

  bool VisitFunctionDecl(clang::FunctionDecl *function) {
    if (!function->doesThisDeclarationHaveABody())
      return true;
    if (const auto *method = llvm::dyn_cast<clang::CXXMethodDecl>(function))
      if (method->getParent() && method->getParent()->isLambda())
        return true; // device lambdas belong to the enclosing function
    const bool global = function->hasAttr<clang::CUDAGlobalAttr>();
    const auto *device = function->getAttr<clang::CUDADeviceAttr>();
    const bool explicit_device = device && !device->isImplicit();
    if (!global && !explicit_device)
      return true;
    const clang::SourceLocation location = sources_.getExpansionLoc(function->getLocation());
    if (!sources_.isInMainFile(location))
      return true;
    CodeRegion region;
    region.is_kernel = global;
    if (!global)
      if (const auto *host = function->getAttr<clang::CUDAHostAttr>())
        region.host_device = !host->isImplicit();
    region.is_template = function->isTemplated();
    region.name = function->getNameAsString();
    region.qualified_name = function->getQualifiedNameAsString();
    region.line = sources_.getExpansionLineNumber(location);
    region.column = sources_.getExpansionColumnNumber(location);
    region.end_column = region.column + static_cast<std::uint32_t>(region.name.size());
    const clang::CharSourceRange body = sources_.getExpansionRange(function->getBody()->getSourceRange());
    region.body_begin_line = sources_.getExpansionLineNumber(body.getBegin());
    region.body_end_line = sources_.getExpansionLineNumber(body.getEnd());
    region.origin = "ast";
    model_.regions.push_back(std::move(region));
    return true;
  }

  bool VisitCUDAKernelCallExpr(clang::CUDAKernelCallExpr *call) {
    const clang::SourceLocation location = sources_.getExpansionLoc(call->getBeginLoc());
    if (!sources_.isInMainFile(location))
      return true;
    LaunchSite launch;
    launch.via = "triple-chevron";
    launch.kernel = "?";
    const clang::Expr *callee = call->getCallee()->IgnoreParenImpCasts();
    if (const auto *reference = llvm::dyn_cast<clang::DeclRefExpr>(callee))
      launch.kernel = reference->getNameInfo().getAsString();
    else if (const auto *lookup = llvm::dyn_cast<clang::UnresolvedLookupExpr>(callee))
      launch.kernel = lookup->getName().getAsString();
    // Where the launch is written: inside a macro's argument (a dispatch
    // macro's lambda) that is a line of the main file, the line the token
    // scan reports too; inside a macro's own body, the line using the macro.
    clang::SourceLocation written = sources_.getFileLoc(call->getBeginLoc());
    if (!sources_.isInMainFile(written))
      written = location;
    launch.line = sources_.getExpansionLineNumber(written);
    launch.column = sources_.getExpansionColumnNumber(written);
    launch.end_column = launch.column + static_cast<std::uint32_t>(launch.kernel.size());
    launch.origin = "ast";
    model_.launches.push_back(std::move(launch));
    return true;
  }

  bool VisitGCCAsmStmt(clang::GCCAsmStmt *statement) {
    const clang::SourceLocation location = sources_.getExpansionLoc(statement->getAsmLoc());
    if (!sources_.isInMainFile(location))
      return true;
    AsmSite site;
    if (const auto *text = statement->getAsmString())
      site.text = text->getString().str();
    site.line = sources_.getExpansionLineNumber(location);
    site.column = sources_.getExpansionColumnNumber(location);
    site.end_column = site.column + 3;
    site.origin = "ast";
    model_.asm_sites.push_back(std::move(site));
    return true;
  }

  bool VisitVarDecl(clang::VarDecl *variable) {
    const clang::SourceLocation location = sources_.getExpansionLoc(variable->getLocation());
    if (!sources_.isInMainFile(location))
      return true;
    const std::uint32_t line = sources_.getExpansionLineNumber(location);
    if (variable->hasAttr<clang::CUDASharedAttr>())
      model_.shared_lines.push_back(line);
    if (mentions_double(variable->getType()))
      model_.double_lines.push_back(line);
    return true;
  }

  bool VisitExplicitCastExpr(clang::ExplicitCastExpr *cast) {
    const clang::SourceLocation location = sources_.getExpansionLoc(cast->getBeginLoc());
    if (sources_.isInMainFile(location) && mentions_double(cast->getTypeAsWritten()))
      model_.double_lines.push_back(sources_.getExpansionLineNumber(location));
    return true;
  }

private:
  clang::SourceManager &sources_;
  FileModel &model_;
};

// ---------------------------------------------------- function bodies skipped
//
// Nearly all of a parse's time goes into function bodies (and the template
// instantiations they cause), and the Collector reads few of them: those of
// kernels and device functions, and host bodies holding a launch, an asm
// statement or a device declaration. The parser asks, for each body, whether
// to skip it (clang's -skip-function-bodies, decided per function); a body is
// skipped unparsed when nothing in it can reach the model:
//   - a function outside the main file: the Collector skips those whole;
//   - a host function of the main file whose body, as written between its
//     braces, holds none of clang_evidence_words (nor `<<<`), directly or
//     through a macro defined at that point (followed recursively).
// Kernels, explicit device functions, constructors (their initializers hold
// braces too), bodies with a preprocessor directive inside (the braces as
// written may not be the parsed ones), bodies made by a macro and functions
// that share a line with other code are parsed.
class BodyFilter {
public:
  explicit BodyFilter(clang::CompilerInstance &compiler)
      : sources_(compiler.getSourceManager()), preprocessor_(compiler.getPreprocessor()),
        language_(compiler.getLangOpts()), cuda_(compiler.getLangOpts().CUDA) {}

  bool can_skip(const clang::Decl *decl) {
    const clang::FunctionDecl *function = decl->getAsFunction();
    if (!function)
      return false;
    const clang::SourceLocation location = sources_.getExpansionLoc(function->getLocation());
    if (location.isValid() && !sources_.isInMainFile(location))
      return true;
    if (function->hasAttr<clang::CUDAGlobalAttr>())
      return false;
    if (const auto *device = function->getAttr<clang::CUDADeviceAttr>(); device && !device->isImplicit())
      return false;
    if (llvm::isa<clang::CXXConstructorDecl>(function))
      return false;
    const clang::SourceLocation end = function->getEndLoc();
    if (end.isInvalid() || end.isMacroID() || !sources_.isInMainFile(end))
      return false;
    return starts_its_line(decl->getBeginLoc()) && body_is_unread(end);
  }

private:
  // Whether only blanks precede `location` on its line. Evidence lines are
  // counted per line: a host body sharing a line with a kernel's first or
  // last line would lend it its double lines.
  bool starts_its_line(clang::SourceLocation location) const {
    if (location.isInvalid() || location.isMacroID() || !sources_.isInMainFile(location))
      return false;
    const auto [file, offset] = sources_.getDecomposedLoc(location);
    const llvm::StringRef before = sources_.getBufferData(file).take_front(offset);
    const llvm::StringRef line = before.substr(before.rfind('\n') + 1);
    return line.find_first_not_of(" \t\r") == llvm::StringRef::npos;
  }

  // Whether nothing but blanks, `;` or a // comment follows `offset`.
  static bool ends_its_line(llvm::StringRef buffer, unsigned offset) {
    const llvm::StringRef rest = buffer.substr(offset).take_until([](char c) { return c == '\n'; });
    const llvm::StringRef code = rest.substr(0, rest.find("//"));
    return code.find_first_not_of(" \t\r;") == llvm::StringRef::npos;
  }

  // Lexes, unpreprocessed, from the end of the declarator to the end of the
  // body; true when the body holds nothing the Collector could read and
  // ends its line.
  bool body_is_unread(clang::SourceLocation declarator_end) {
    const auto [file, offset] = sources_.getDecomposedLoc(declarator_end);
    const llvm::StringRef buffer = sources_.getBufferData(file);
    clang::Lexer lexer(sources_.getLocForStartOfFile(file), language_, buffer.begin(),
                       buffer.begin() + offset, buffer.end());
    clang::Token token;
    lexer.LexFromRawLexer(token); // the declarator's last token
    int parentheses = 0;
    for (int steps = 0;; ++steps) {
      if (lexer.LexFromRawLexer(token) || steps > 256 ||
          (token.is(clang::tok::hash) && token.isAtStartOfLine()))
        return false;
      if (token.isOneOf(clang::tok::l_paren, clang::tok::l_square))
        ++parentheses;
      else if (token.isOneOf(clang::tok::r_paren, clang::tok::r_square))
        --parentheses;
      else if (parentheses == 0 && token.is(clang::tok::l_brace))
        break;
      else if (parentheses == 0 && token.isOneOf(clang::tok::semi, clang::tok::colon, clang::tok::equal))
        return false;
      else if (token.is(clang::tok::raw_identifier) && token.getRawIdentifier() == "try")
        return false;
    }
    const unsigned body_begin = sources_.getFileOffset(token.getLocation());
    std::vector<llvm::StringRef> names;
    for (int depth = 1; depth > 0;) {
      if (lexer.LexFromRawLexer(token) || (token.is(clang::tok::hash) && token.isAtStartOfLine()))
        return false;
      if (token.is(clang::tok::l_brace))
        ++depth;
      else if (token.is(clang::tok::r_brace))
        --depth;
      else if (token.is(clang::tok::raw_identifier))
        names.push_back(token.getRawIdentifier());
    }
    const unsigned body_end = sources_.getFileOffset(token.getLocation()) + 1;
    if (!ends_its_line(buffer, body_end))
      return false;
    if (has_clang_evidence(std::string_view(buffer.data() + body_begin, body_end - body_begin), cuda_))
      return false;
    // Looked up without adding the name to the identifier table: an
    // identifier the table does not hold names no macro, and adding one from
    // here would allocate from clang's arena through its inline allocator,
    // compiled into this file (under AddressSanitizer that allocator poisons
    // the rest of the slab, which clang's own, uninstrumented, code then
    // writes to).
    const clang::IdentifierTable &identifiers = preprocessor_.getIdentifierTable();
    for (const llvm::StringRef name : names) {
      const auto known = identifiers.find(name);
      if (known == identifiers.end())
        continue;
      const clang::IdentifierInfo *identifier = known->getValue();
      if (identifier && identifier->hasMacroDefinition() &&
          macro_has_evidence(preprocessor_.getMacroInfo(identifier), 0))
        return false;
    }
    return true;
  }

  bool macro_has_evidence(const clang::MacroInfo *macro, int depth) {
    if (!macro)
      return false;
    if (depth > 64)
      return true;
    const auto known = macros_.find(macro);
    if (known != macros_.end())
      return known->second;
    macros_[macro] = false; // a macro that names itself is not expanded again
    const bool found = tokens_have_evidence(macro, depth) || pastes_evidence(macro, depth);
    macros_[macro] = found;
    return found;
  }

  // Whether `macro` has `<<<` or an evidence word, or names a macro that does.
  bool tokens_have_evidence(const clang::MacroInfo *macro, int depth) {
    const auto &words = clang_evidence_words(cuda_);
    for (const clang::Token &token : macro->tokens()) {
      if (token.is(clang::tok::lesslessless))
        return true;
      const clang::IdentifierInfo *identifier = token.getIdentifierInfo();
      if (!identifier)
        continue;
      if (std::find(words.begin(), words.end(), std::string_view(identifier->getName())) != words.end() ||
          (identifier->hasMacroDefinition() &&
           macro_has_evidence(preprocessor_.getMacroInfo(identifier), depth + 1)))
        return true;
    }
    return false;
  }

  // Whether a name that `macro` pastes together (`##`) may be a macro with
  // evidence: a chain whose first piece is written out may name any macro
  // that begins with it, one whose last piece is, any that ends with it, and
  // one that begins and ends with parameters, any macro at all. A paste with
  // no identifier on its left (GNU's `, ## __VA_ARGS__`) forms no name. The
  // gate reads pastes the same way (`expands_clang_evidence` in
  // cxx_frontend.cpp).
  bool pastes_evidence(const clang::MacroInfo *macro, int depth) {
    const auto tokens = macro->tokens();
    const auto written = [&](const clang::Token &token) {
      const clang::IdentifierInfo *identifier = token.getIdentifierInfo();
      return identifier && !token.is(clang::tok::numeric_constant) &&
             macro->getParameterNum(identifier) < 0 && identifier->getName() != "__VA_ARGS__";
    };
    std::vector<llvm::StringRef> prefixes, suffixes;
    for (std::size_t k = 1; k < tokens.size(); ++k) {
      if (!tokens[k].is(clang::tok::hashhash))
        continue;
      const clang::Token &first = tokens[k - 1];
      std::size_t last = k + 1; // the chain's last piece; its inner pastes belong to it
      while (last + 2 < tokens.size() && tokens[last + 1].is(clang::tok::hashhash))
        last += 2;
      k = last;
      if (!first.getIdentifierInfo())
        continue; // no name formed
      if (written(first))
        prefixes.push_back(first.getIdentifierInfo()->getName());
      else if (last < tokens.size() && written(tokens[last]))
        suffixes.push_back(tokens[last].getIdentifierInfo()->getName());
      else
        return true;
    }
    if (prefixes.empty() && suffixes.empty())
      return false;
    for (const auto &[identifier, state] : preprocessor_.macros()) {
      static_cast<void>(state);
      const llvm::StringRef name = identifier->getName();
      const bool formed = std::any_of(prefixes.begin(), prefixes.end(),
                                      [&](llvm::StringRef piece) { return name.startswith(piece); }) ||
                          std::any_of(suffixes.begin(), suffixes.end(),
                                      [&](llvm::StringRef piece) { return name.endswith(piece); });
      if (formed && identifier->hasMacroDefinition() &&
          macro_has_evidence(preprocessor_.getMacroInfo(identifier), depth + 1))
        return true;
    }
    return false;
  }

  clang::SourceManager &sources_;
  clang::Preprocessor &preprocessor_;
  const clang::LangOptions &language_;
  const bool cuda_;
  std::unordered_map<const clang::MacroInfo *, bool> macros_;
};

// ------------------------------------------------------------------ budget
//
// clang charges the file's ParseBudget (parse_budget.h) as it works: every
// macro expansion and every header entered (preprocessor callbacks), every
// token lexed at any level, arguments' pre-expansion and directives included
// (the token watcher), every template instantiation (a Sema callback), and,
// every few thousand charges, what its allocators hold. Past a bound, clang
// is made to finish at once, as far as it can be from a callback:
//   - no #include is entered any more (single-file parse mode);
//   - no macro expands any more (every identifier forgets its macro);
//   - the file being lexed ends here, and so does each includer as clang
//     returns to it;
//   - no template is instantiated and no constant evaluated any more, the
//     parser stops at its next bracket, and diagnostics are dropped.
// What is already on clang's stack still runs to its end: an argument being
// pre-expanded is copied into each use of its parameter, so nested calls of
// a macro that uses its parameter twice double at every level without
// calling back. The worker process the parse runs in bounds that
// (run_bounded_clang below). The model of a stopped parse is not used.
class ClangBudget {
public:
  explicit ClangBudget(ParseBudget &budget) : budget_(budget) {}

  void attach(clang::CompilerInstance &compiler) {
    compiler_ = &compiler;
    stack_base_ = stack_here();
  }
  void detach() { compiler_ = nullptr; }

  void expand_macro() { settle(budget_.expand_macro(stack_depth())); }
  void read_token() { settle(budget_.read_token()); }
  void instantiate_template() { settle(budget_.instantiate_template()); }
  void check_time() { settle(budget_.check_time()); }
  void enter_file(clang::SourceLocation start) {
    if (!compiler_)
      return;
    const clang::SourceManager &sources = compiler_->getSourceManager();
    settle(budget_.enter_file(sources.getFileIDSize(sources.getFileID(start))));
  }
  void leave_file() {
    budget_.leave_file();
    if (compiler_ && stopped_)
      cut_current_file(); // the includer clang returns to
  }

private:
  static std::uintptr_t stack_here() { return reinterpret_cast<std::uintptr_t>(__builtin_frame_address(0)); }

  // How far the stack has grown since the parse began; 0 when unknown
  // (clang moved to another thread's stack).
  std::uint64_t stack_depth() const {
    const std::uintptr_t here = stack_here();
    return here < stack_base_ && stack_base_ - here < (1u << 30) ? stack_base_ - here : 0;
  }

  void settle(bool within) {
    if (!compiler_ || stopped_)
      return;
    if (within && budget_.memory_check_due())
      within = budget_.hold_memory(clang_memory());
    if (!within)
      stop();
  }

  // What clang's preprocessor, source manager and AST allocators hold.
  std::uint64_t clang_memory() const {
    const clang::SourceManager &sources = compiler_->getSourceManager();
    std::uint64_t bytes = compiler_->getPreprocessor().getTotalMemory() + sources.getDataStructureSizes() +
                          sources.getContentCacheSize() + sources.getMemoryBufferSizes().malloc_bytes;
    if (compiler_->hasASTContext()) {
      const clang::ASTContext &context = compiler_->getASTContext();
      bytes += context.getASTAllocatedMemory() + context.getSideTableAllocatedMemory();
    }
    return bytes;
  }

  void stop() {
    stopped_ = true;
    clang::Preprocessor &preprocessor = compiler_->getPreprocessor();
    preprocessor.getPreprocessorOpts().SingleFileParseMode = true;
    for (const auto &[identifier, state] : preprocessor.macros()) {
      static_cast<void>(state);
      const_cast<clang::IdentifierInfo *>(identifier)->setHasMacroDefinition(false);
    }
    cut_current_file();
    compiler_->getDiagnostics().setSuppressAllDiagnostics(true);
    clang::LangOptions &language = compiler_->getLangOpts();
    language.InstantiationDepth = 0;
    language.ConstexprStepLimit = 1;
    language.ConstexprCallDepth = 1;
    language.BracketDepth = 0;
  }

  // Moves the lexer of the file being read to its end, as clang's own
  // cutOffLexing (private) does. Lexer is the only kind of
  // PreprocessorLexer (clang 16).
  void cut_current_file() {
    if (clang::PreprocessorLexer *file = compiler_->getPreprocessor().getCurrentFileLexer()) {
      auto *lexer = static_cast<clang::Lexer *>(file);
      lexer->seek(static_cast<unsigned>(lexer->getBuffer().size()), /*IsAtStartOfLine=*/true);
    }
  }

  ParseBudget &budget_;
  clang::CompilerInstance *compiler_ = nullptr;
  std::uintptr_t stack_base_ = 0;
  bool stopped_ = false;
};

class BudgetCallbacks : public clang::PPCallbacks {
public:
  explicit BudgetCallbacks(ClangBudget &budget) : budget_(budget) {}
  void FileChanged(clang::SourceLocation location, FileChangeReason reason, clang::SrcMgr::CharacteristicKind,
                   clang::FileID) override {
    if (reason == EnterFile)
      budget_.enter_file(location);
    else if (reason == ExitFile)
      budget_.leave_file();
  }
  void MacroExpands(const clang::Token &, const clang::MacroDefinition &, clang::SourceRange,
                    const clang::MacroArgs *) override {
    budget_.expand_macro();
  }

private:
  ClangBudget &budget_;
};

class InstantiationBudget : public clang::TemplateInstantiationCallback {
public:
  explicit InstantiationBudget(ClangBudget &budget) : budget_(budget) {}
  void initialize(const clang::Sema &) override {}
  void finalize(const clang::Sema &) override {}
  void atTemplateBegin(const clang::Sema &, const clang::Sema::CodeSynthesisContext &) override {
    budget_.instantiate_template();
  }
  void atTemplateEnd(const clang::Sema &, const clang::Sema::CodeSynthesisContext &) override {}

private:
  ClangBudget &budget_;
};

class CollectorConsumer : public clang::SemaConsumer {
public:
  CollectorConsumer(FileModel &model, bool &ran, ClangBudget &budget, std::unique_ptr<BodyFilter> bodies)
      : model_(model), ran_(ran), budget_(budget), bodies_(std::move(bodies)) {}
  void InitializeSema(clang::Sema &sema) override {
    sema_ = &sema;
    sema.TemplateInstCallbacks.push_back(std::make_unique<InstantiationBudget>(budget_));
  }
  void ForgetSema() override { sema_ = nullptr; }
  // The collector reads templates as written, never their instantiations, so
  // the function bodies that uses of templates queue for the end of the file
  // are dropped before clang instantiates them.
  bool HandleTopLevelDecl(clang::DeclGroupRef) override {
    budget_.check_time();
    if (sema_ && !sema_->PendingInstantiations.empty()) {
      dropped_instantiation_count.fetch_add(sema_->PendingInstantiations.size(), std::memory_order_relaxed);
      sema_->PendingInstantiations.clear();
    }
    return true;
  }
  void HandleTranslationUnit(clang::ASTContext &context) override {
    ran_ = true;
    Collector(context, model_).TraverseDecl(context.getTranslationUnitDecl());
  }
  bool shouldSkipFunctionBody(clang::Decl *decl) override {
    const bool skip = bodies_ && bodies_->can_skip(decl);
    if (skip)
      skipped_body_count.fetch_add(1, std::memory_order_relaxed);
    return skip;
  }

private:
  FileModel &model_;
  bool &ran_;
  ClangBudget &budget_;
  std::unique_ptr<BodyFilter> bodies_; // null: every body is parsed
  clang::Sema *sema_ = nullptr;
};

class CollectAction : public clang::ASTFrontendAction {
public:
  CollectAction(FileModel &model, bool &ran, ClangBudget &budget, bool skip_unread_bodies)
      : model_(model), ran_(ran), budget_(budget), skip_unread_bodies_(skip_unread_bodies) {}

protected:
  bool BeginSourceFileAction(clang::CompilerInstance &compiler) override {
    clang::DiagnosticsEngine &diagnostics = compiler.getDiagnostics();
    // A missing header is fatal by default, and after a fatal error clang
    // stops entering includes and instantiating templates. As a plain error
    // it lets the rest of the file build.
    diagnostics.setSeverity(clang::diag::err_pp_file_not_found, clang::diag::Severity::Error,
                            clang::SourceLocation());
    // Asks the consumer before each body (BodyFilter); read by ExecuteAction.
    compiler.getFrontendOpts().SkipFunctionBodies = skip_unread_bodies_;
    budget_.attach(compiler);
    clang::Preprocessor &preprocessor = compiler.getPreprocessor();
    preprocessor.addPPCallbacks(std::make_unique<BudgetCallbacks>(budget_));
    preprocessor.setPreprocessToken(true); // every token, at every level of expansion
    preprocessor.setTokenWatcher([budget = &budget_](const clang::Token &) { budget->read_token(); });
    return true;
  }
  void EndSourceFileAction() override { budget_.detach(); }
  std::unique_ptr<clang::ASTConsumer> CreateASTConsumer(clang::CompilerInstance &compiler,
                                                        llvm::StringRef) override {
    return std::make_unique<CollectorConsumer>(
        model_, ran_, budget_, skip_unread_bodies_ ? std::make_unique<BodyFilter>(compiler) : nullptr);
  }

private:
  FileModel &model_;
  bool &ran_;
  ClangBudget &budget_;
  bool skip_unread_bodies_;
};

// ------------------------------------------------------ compilation databases

// compile_commands.json files, loaded once per directory per process.
class CompilationDatabases {
public:
  std::vector<clang::tooling::CompileCommand> commands_for(const std::string &directory,
                                                           const std::string &path, std::string &error) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto found = cache_.find(directory);
    if (found == cache_.end()) {
      std::string load_error;
      auto database = clang::tooling::JSONCompilationDatabase::loadFromFile(
          directory + "/compile_commands.json", load_error,
          clang::tooling::JSONCommandLineSyntax::AutoDetect);
      found = cache_.emplace(directory, Entry{std::move(database), load_error}).first;
    }
    if (!found->second.database) {
      error = found->second.error;
      return {};
    }
    return found->second.database->getCompileCommands(path);
  }

private:
  struct Entry {
    std::unique_ptr<clang::tooling::CompilationDatabase> database;
    std::string error;
  };
  std::mutex mutex_;
  std::map<std::string, Entry> cache_;
};

CompilationDatabases &databases() {
  static CompilationDatabases instance;
  return instance;
}

bool file_exists(const std::string &path) {
  return llvm::sys::fs::exists(path);
}

std::string resource_directory() {
#ifdef MPSAUDIT_CLANG_RESOURCE_DIR
  static const std::string directory =
      file_exists(MPSAUDIT_CLANG_RESOURCE_DIR) ? MPSAUDIT_CLANG_RESOURCE_DIR : "";
  return directory;
#else
  return {};
#endif
}

std::vector<std::string> language_flags(SourceLanguage language) {
  switch (language) {
  case SourceLanguage::Cuda:
    return {"-xcuda", "--cuda-host-only", "-nocudainc", "-nocudalib", "-std=c++17"};
  case SourceLanguage::ObjCxx:
    return {"-xobjective-c++", "-std=c++17"};
  case SourceLanguage::C:
    return {"-xc"};
  case SourceLanguage::Cxx:
  case SourceLanguage::Metal:
    break;
  }
  return {"-xc++", "-std=c++17"};
}

// Flags every invocation gets: keep going, stay quiet, skip typo correction.
void append_common_flags(std::vector<std::string> &arguments) {
  // -fno-caret-diagnostics also stops clang printing "N errors generated".
  for (const char *flag : {"-fsyntax-only", "-ferror-limit=0", "-w", "-fno-spell-checking",
                           "-fno-caret-diagnostics", "-Qunused-arguments"})
    arguments.emplace_back(flag);
  const std::string resources = resource_directory();
  if (!resources.empty())
    arguments.push_back("-resource-dir=" + resources);
}

// The command line used when no compilation database covers the file: no
// system headers (results do not depend on what the scanning machine has
// installed, and parses stay small), the shim, the scan root on the path.
std::vector<std::string> fixed_command(SourceLanguage language, const std::string &main_path,
                                       const std::string &root, const std::vector<std::string> &extra_flags) {
  std::vector<std::string> arguments{"clang"};
  for (auto &flag : language_flags(language))
    arguments.push_back(std::move(flag));
  append_common_flags(arguments);
  arguments.emplace_back("-nostdlibinc");
  arguments.emplace_back("-include");
  arguments.emplace_back(kShimPath);
  if (!root.empty())
    arguments.push_back("-I" + root);
  for (const auto &flag : extra_flags)
    arguments.push_back(flag);
  arguments.push_back(main_path);
  return arguments;
}

// -I/-D/-U/-isystem/-std flags of an nvcc command, which clang cannot run.
std::vector<std::string> portable_flags(const std::vector<std::string> &command,
                                        const std::string &directory) {
  std::vector<std::string> flags;
  auto absolute = [&](const std::string &path) {
    if (path.empty() || llvm::sys::path::is_absolute(path))
      return path;
    llvm::SmallString<256> joined(directory);
    llvm::sys::path::append(joined, path);
    return std::string(joined.str());
  };
  for (std::size_t i = 1; i < command.size(); ++i) {
    const std::string &argument = command[i];
    auto value_of = [&](const std::string &prefix) -> std::optional<std::string> {
      if (argument == prefix && i + 1 < command.size())
        return command[++i];
      if (argument.size() > prefix.size() && argument.compare(0, prefix.size(), prefix) == 0)
        return argument.substr(prefix.size());
      return std::nullopt;
    };
    if (auto include = value_of("-I"))
      flags.push_back("-I" + absolute(*include));
    else if (auto system = value_of("-isystem"))
      flags.push_back("-I" + absolute(*system));
    else if (auto define = value_of("-D"))
      flags.push_back("-D" + *define);
    else if (auto undefine = value_of("-U"))
      flags.push_back("-U" + *undefine);
  }
  return flags;
}

bool is_nvcc(const std::string &compiler) {
  return llvm::sys::path::filename(compiler).contains("nvcc");
}

// A file system that opens regular files only. An #include names any path,
// and clang would open a FIFO, a terminal or `/dev/stdin` (a pipe in a hook
// or CI job) and wait for it to end: such an include is "not found" instead.
class RegularFilesOnly : public llvm::vfs::ProxyFileSystem {
public:
  using ProxyFileSystem::ProxyFileSystem;
  llvm::ErrorOr<std::unique_ptr<llvm::vfs::File>> openFileForRead(const llvm::Twine &path) override {
    const llvm::ErrorOr<llvm::vfs::Status> found = status(path);
    if (found && !found->isRegularFile())
      return std::make_error_code(std::errc::no_such_file_or_directory);
    return ProxyFileSystem::openFileForRead(path);
  }
};

// One clang run on the request's file, in this process, charging `budget`;
// the model and what clang said go into `outcome`.
void run_clang(const ParseRequest &request, ParseBudget &budget, ParseOutcome &outcome) {
  const Invocation &invocation = request.invocation;
  // createPhysicalFileSystem, not getRealFileSystem: the latter is shared by
  // the process and changing its working directory would chdir every thread.
  auto overlay = llvm::makeIntrusiveRefCnt<llvm::vfs::OverlayFileSystem>(
      llvm::makeIntrusiveRefCnt<RegularFilesOnly>(llvm::vfs::createPhysicalFileSystem()));
  auto memory = llvm::makeIntrusiveRefCnt<llvm::vfs::InMemoryFileSystem>();
  overlay->pushOverlay(memory);
  memory->addFile(request.main_path, 0,
                  llvm::MemoryBuffer::getMemBufferCopy(request.text, request.main_path));
  memory->addFile(kShimPath, 0, llvm::MemoryBuffer::getMemBuffer(cuda_shim_text(), kShimPath));
  if (!invocation.working_directory.empty())
    overlay->setCurrentWorkingDirectory(invocation.working_directory);
  auto files = llvm::makeIntrusiveRefCnt<clang::FileManager>(clang::FileSystemOptions(), overlay);
  static const auto pch_operations = std::make_shared<clang::PCHContainerOperations>();
  ClangBudget clang_budget(budget);
  RecordingConsumer diagnostics;
  clang::tooling::ToolInvocation tool(
      invocation.arguments,
      std::make_unique<CollectAction>(outcome.model, outcome.ran, clang_budget, request.skip_unread_bodies),
      files.get(), pch_operations);
  tool.setDiagnosticConsumer(&diagnostics);
  // Bad input must not take the scan down: should clang crash on a file,
  // the crash is contained to this call and the file falls back to tokens.
  static const bool recovery_enabled = [] {
    llvm::CrashRecoveryContext::Enable();
    return true;
  }();
  (void)recovery_enabled;
  llvm::CrashRecoveryContext recovery;
  // run() is false whenever the file has errors; `ran` says whether the AST was built.
  if (!recovery.RunSafely([&] { tool.run(); })) {
    outcome.ran = false;
    outcome.crashed = true;
  }
  outcome.diagnostics = std::move(diagnostics.summary);
}

// ------------------------------------------------------ the parse's process
//
// A parse runs in a worker process (core/isolated_worker.h), one per
// scanning thread, that is killed at the file's deadline and may add at most
// ExtractOptions::parse_memory_bytes of address space: the budget stops
// clang early and names the bound it passed, the worker's limits hold where
// the budget cannot stop clang (see ClangBudget). parse_wire.h says what
// goes to it and what comes back.

// In the worker: an allocation refused under the memory cap ends it as out
// of memory (LLVM's own allocators report it here, not to new's handler);
// any other fatal error of LLVM's ends it as a crash, without the exit
// handlers of the parent it is a copy of.
void report_failures_as_isolated() {
  static const bool installed = [] {
    llvm::install_bad_alloc_error_handler([](void *, const char *, bool) { exit_isolated_out_of_memory(); });
    llvm::install_fatal_error_handler([](void *, const char *, bool) { std::abort(); });
    return true;
  }();
  static_cast<void>(installed);
}

// run_clang under a budget of its own; what it spent goes into `outcome`
// (the worker's counters too: they count in the worker's process).
ParseOutcome run_clang_counted(const ParseRequest &request, const ParseBudget &budget) {
  ParseBudget run_budget = budget;
  const std::uint64_t skipped = skipped_body_count.load();
  const std::uint64_t dropped = dropped_instantiation_count.load();
  ParseOutcome outcome;
  run_clang(request, run_budget, outcome);
  outcome.bound = run_budget.bound();
  outcome.usage = run_budget.usage();
  outcome.skipped_bodies = skipped_body_count.load() - skipped;
  outcome.dropped_instantiations = dropped_instantiation_count.load() - dropped;
  return outcome;
}

// The worker's handler: one parse, under the request's bounds and deadline.
std::string serve_parse(const std::string &bytes) {
  report_failures_as_isolated();
  const std::optional<ParseRequest> request = decode_request(bytes);
  if (!request)
    throw std::runtime_error("malformed parse request");
  const ParseOutcome outcome =
      run_clang_counted(*request, ParseBudget::until(request->limits, request->deadline));
  return encode_outcome(outcome);
}

// Each scanning thread's worker; stop_parse_workers ends them all.
class ParseWorkers {
public:
  static ParseWorkers &instance() {
    static ParseWorkers workers;
    return workers;
  }
  void use_program(std::vector<std::string> program) {
    const std::lock_guard<std::mutex> lock(mutex_);
    program_ = std::move(program);
  }
  std::vector<std::string> program() const {
    const std::lock_guard<std::mutex> lock(mutex_);
    return program_;
  }
  void add(IsolatedWorker *worker) {
    const std::lock_guard<std::mutex> lock(mutex_);
    workers_.insert(worker);
  }
  void remove(IsolatedWorker *worker) {
    const std::lock_guard<std::mutex> lock(mutex_);
    workers_.erase(worker);
  }
  void stop_all() {
    const std::lock_guard<std::mutex> lock(mutex_);
    for (IsolatedWorker *worker : workers_)
      worker->stop();
  }

private:
  mutable std::mutex mutex_;
  std::set<IsolatedWorker *> workers_;
  std::vector<std::string> program_; // empty: workers are forks (IsolatedWorker)
};

struct ThreadWorker {
  ThreadWorker() { ParseWorkers::instance().add(&worker); }
  ~ThreadWorker() { ParseWorkers::instance().remove(&worker); }
  IsolatedWorker worker{&serve_parse, ParseWorkers::instance().program()};
};

IsolatedWorker &this_threads_worker() {
  thread_local ThreadWorker mine;
  return mine.worker;
}

// Adds what a run spent and the bound it passed to the file's budget.
void account(ParseBudget &budget, const ParseOutcome &outcome) {
  budget.add_usage(outcome.usage);
  if (outcome.bound != ParseBound::None)
    budget.record(outcome.bound);
}

// run_clang in this thread's worker process, under the budget's bounds and
// deadline and at most `memory_bytes` more address space (0: no cap); in
// this process, under the budget alone, when no worker can be started.
ParseOutcome run_bounded_clang(const ParseRequest &request, ParseBudget &budget, std::uint64_t memory_bytes) {
  clang_run_count.fetch_add(1, std::memory_order_relaxed);
  IsolationLimits limits;
  limits.deadline = request.deadline;
  limits.memory_bytes = memory_bytes;
  const IsolationResult answer = this_threads_worker().call(encode_request(request), limits);
  ParseOutcome outcome;
  switch (answer.outcome) {
  case IsolationOutcome::Finished:
    if (std::optional<ParseOutcome> decoded = decode_outcome(answer.answer)) {
      skipped_body_count.fetch_add(decoded->skipped_bodies, std::memory_order_relaxed);
      dropped_instantiation_count.fetch_add(decoded->dropped_instantiations, std::memory_order_relaxed);
      account(budget, *decoded);
      return std::move(*decoded);
    }
    outcome.crashed = true;
    return outcome;
  case IsolationOutcome::TimedOut:
    budget.record(ParseBound::Time);
    return outcome;
  case IsolationOutcome::OutOfMemory:
    budget.record(ParseBound::Memory);
    return outcome;
  case IsolationOutcome::Crashed:
    outcome.crashed = true;
    return outcome;
  case IsolationOutcome::NotStarted:
    break;
  }
  outcome = run_clang_counted(request, budget.with_nothing_spent());
  account(budget, outcome);
  return outcome;
}

// The path clang sees for the file: its real location when known, so that
// quoted includes next to it resolve on the real file system.
std::string virtual_main_path(const SourceFile &file) {
  if (!file.absolute_path.empty()) {
    llvm::SmallString<256> path(file.absolute_path);
    if (!llvm::sys::fs::make_absolute(path))
      return std::string(path.str());
  }
  std::string path = file.path.empty() ? "input.cu" : file.path;
  return "/mpsaudit-input/" + path;
}

} // namespace

int parse_worker_process() {
  return this_threads_worker().child();
}

void stop_parse_workers() {
  ParseWorkers::instance().stop_all();
}

void use_parse_worker_program(const std::string &executable) {
  ParseWorkers::instance().use_program({executable});
}

void serve_parse_worker(int socket, std::uint64_t memory_bytes) {
  serve_isolated_requests(socket, &serve_parse, memory_bytes);
}

bool compilation_database_applies(const ExtractOptions &options) {
  return !options.compile_commands_dir.empty() ||
         (!options.root.empty() && file_exists(options.root + "/compile_commands.json"));
}

std::vector<std::string> builtin_header_directories() {
  const std::string resources = resource_directory();
  if (resources.empty())
    return {};
  // cuda_wrappers too: clang may add it to a CUDA parse's search path.
  return {resources + "/include", resources + "/include/cuda_wrappers"};
}

std::uint64_t clang_runs() {
  return clang_run_count.load(std::memory_order_relaxed);
}

std::uint64_t skipped_function_bodies() {
  return skipped_body_count.load(std::memory_order_relaxed);
}

std::uint64_t dropped_template_instantiations() {
  return dropped_instantiation_count.load(std::memory_order_relaxed);
}

AstScanResult scan_ast(const SourceFile &file, SourceLanguage language, const ExtractOptions &options,
                       std::uint32_t line_count, ParseBudget &budget, bool skip_unread_bodies) {
  AstScanResult result;
  const std::string main_path = virtual_main_path(file);

  std::vector<Invocation> attempts;
  std::string database_directory = options.compile_commands_dir;
  if (database_directory.empty() && !options.root.empty() &&
      file_exists(options.root + "/compile_commands.json"))
    database_directory = options.root;
  std::vector<std::string> extra_flags;
  if (!database_directory.empty()) {
    std::string error;
    const auto commands = databases().commands_for(database_directory, main_path, error);
    if (!error.empty() && !options.compile_commands_dir.empty())
      result.diagnostics.push_back({DiagnosticLevel::Warning, file.path, 0, "compile-commands",
                                    "cannot read " + database_directory + "/compile_commands.json: " + error +
                                        "; using the fixed command line"});
    if (!commands.empty()) {
      const auto &command = commands.front();
      if (is_nvcc(command.CommandLine.empty() ? "" : command.CommandLine.front())) {
        extra_flags = portable_flags(command.CommandLine, command.Directory);
      } else {
        using namespace clang::tooling;
        CommandLineArguments arguments = command.CommandLine;
        arguments = getClangStripOutputAdjuster()(arguments, command.Filename);
        arguments = getClangStripDependencyFileAdjuster()(arguments, command.Filename);
        arguments = getClangSyntaxOnlyAdjuster()(arguments, command.Filename);
        std::vector<std::string> extra;
        append_common_flags(extra);
        if (language == SourceLanguage::Cuda) {
          extra.emplace_back("--cuda-host-only");
          extra.emplace_back("-nocudalib");
          // A command that opts out of the CUDA headers still needs the
          // execution-space attributes: the shim supplies them.
          const auto &line = command.CommandLine;
          if (std::find(line.begin(), line.end(), "-nocudainc") != line.end()) {
            extra.emplace_back("-include");
            extra.emplace_back(kShimPath);
          }
        }
        arguments =
            getInsertArgumentAdjuster(extra, ArgumentInsertPosition::END)(arguments, command.Filename);
        attempts.push_back({std::move(arguments), command.Directory, "compile_commands.json"});
      }
    }
  }
  attempts.push_back({fixed_command(language, main_path, options.root, extra_flags), "",
                      extra_flags.empty() ? "fixed" : "fixed+compile_commands.json"});

  for (const auto &attempt : attempts) {
    ParseRequest request;
    request.invocation = attempt;
    request.main_path = main_path;
    request.text = file.text;
    request.skip_unread_bodies = skip_unread_bodies;
    request.limits = budget.limits();
    request.deadline = budget.deadline();
    ParseOutcome outcome = run_bounded_clang(request, budget, options.parse_memory_bytes);
    result.command_source = attempt.source;
    if (budget.exceeded()) {
      // What clang said before it was stopped depends on where it stopped.
      result.unusable_reason = budget.describe();
      break;
    }
    if (!outcome.ran && &attempt != &attempts.back())
      continue; // the database's command did not run: try the fixed one
    const DiagnosticSummary &seen = outcome.diagnostics;

    std::size_t reported = 0;
    for (const auto &missing : seen.missing_includes) {
      if (reported++ == kMaxMissingIncludeDiagnostics) {
        result.diagnostics.push_back(
            {DiagnosticLevel::Warning, file.path, 0, "missing-include",
             std::to_string(seen.missing_includes.size() - kMaxMissingIncludeDiagnostics) +
                 " more headers not found"});
        break;
      }
      result.diagnostics.push_back({DiagnosticLevel::Warning, file.path, missing.line, "missing-include",
                                    "'" + missing.header + "' not found (" + attempt.source +
                                        " command line); analysis continued without it"});
    }
    // With headers missing, syntax errors are mostly their echo (an unknown
    // macro such as TORCH_LIBRARY_IMPL reads as a malformed declaration):
    // a note then, a warning when every header was found.
    if (seen.parse_errors > 0)
      result.diagnostics.push_back(
          {seen.missing_includes.empty() ? DiagnosticLevel::Warning : DiagnosticLevel::Note, file.path,
           seen.first_parse_error_line, "parse-error",
           counted(seen.parse_errors, "syntax error") + "; first: " + seen.first_parse_error +
               (seen.missing_includes.empty() ? "" : " (missing headers may cause some)")});

    const std::uint32_t error_budget = std::max(kMinParseErrorsForFallback, line_count / 10);
    if (outcome.crashed) {
      result.unusable_reason = "clang crashed on this file";
    } else if (!outcome.ran) {
      result.unusable_reason =
          "clang did not build an AST" + (seen.first_error.empty() ? std::string() : ": " + seen.first_error);
    } else if (seen.fatal) {
      result.unusable_reason = "fatal error: " + seen.fatal_message;
    } else if (seen.parse_errors > error_budget) {
      result.unusable_reason = std::to_string(seen.parse_errors) + " syntax errors";
    } else {
      result.usable = true;
      result.model = std::move(outcome.model);
    }
    break;
  }
  return result;
}

} // namespace mpsaudit::cxx
