// MdpaScanner: the line-oriented lexer of the .mdpa reader (mdpa_reader.cpp,
// its only user): records, tokens, ids and numbers parsed in place with
// std::from_chars, blocks and their End lines, and the errors prefixed with
// "<file>:<line>: ". The grammar it reads is docs/file_formats.md §1; what the
// records mean is the reader's (its Parser derives from this class).
#pragma once

#include <charconv>
#include <cmath>
#include <cstring>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "kernel/core/error.h"
#include "kernel/core/types.h"

namespace tessera::mdpa_detail {

// Errors the reader formats itself (already prefixed with file:line).
class MdpaError final : public Error {
 public:
  using Error::Error;
};

inline bool IsBlank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v'; }

inline std::string Shorten(std::string_view s) {
  if (s.size() <= 40) return std::string(s);
  return std::string(s.substr(0, 37)) + "...";
}

struct Block {
  std::string_view kind;
  int begin_line;
};

class MdpaScanner {
 protected:
  MdpaScanner(std::string_view text, const std::string& source)
      : begin_(text.data()), p_(text.data()), end_(text.data() + text.size()), source_(source) {}

  // ------------------------------------------------------------------ errors
  template <class... Args>
  [[noreturn]] void FailAt(int line, Args&&... args) const {
    throw MdpaError(detail::Concat(source_, ":", line, ": ", std::forward<Args>(args)...));
  }
  // Records are single lines, so the record's line is where any error is.
  template <class... Args>
  [[noreturn]] void Fail(Args&&... args) const {
    FailAt(record_line_, std::forward<Args>(args)...);
  }
  // The last line of the file, for errors at its end.
  int LastLine() const { return begin_ < end_ && end_[-1] == '\n' ? line_ - 1 : line_; }

  // ------------------------------------------------------------------ lexing
  bool IsComment(const char* q) const { return q + 1 < end_ && q[0] == '/' && q[1] == '/'; }
  bool IsDelimiter(const char* q) const {
    return q >= end_ || IsBlank(*q) || *q == '\n' || IsComment(q);
  }
  void SkipBlanks() {
    while (p_ < end_ && IsBlank(*p_)) ++p_;
  }
  // True when only blanks and a comment are left on the line.
  bool AtLineEnd() {
    SkipBlanks();
    return p_ >= end_ || *p_ == '\n' || IsComment(p_);
  }
  void NextLine() {
    const void* nl = std::memchr(p_, '\n', static_cast<std::size_t>(end_ - p_));
    if (!nl) {
      p_ = end_;
      return;
    }
    p_ = static_cast<const char*>(nl) + 1;
    ++line_;
  }
  // The next token, for messages.
  std::string PeekToken() {
    SkipBlanks();
    if (p_ >= end_) return "end of file";
    if (*p_ == '\n' || IsComment(p_)) return "end of line";
    const char* q = p_;
    while (!IsDelimiter(q)) ++q;
    return "'" + Shorten(std::string_view(p_, static_cast<std::size_t>(q - p_))) + "'";
  }
  template <class... Args>
  void ExpectLineEnd(Args&&... after) {
    if (!AtLineEnd())
      Fail("unexpected ", PeekToken(), " after ", std::forward<Args>(after)...,
           "; expected the end of the line");
    NextLine();
  }
  // Moves to the first token of the next non-blank, non-comment line; false at
  // the end of the file.
  bool NextRecord() {
    for (;;) {
      SkipBlanks();
      if (p_ >= end_) return false;
      if (*p_ == '\n') {
        ++p_;
        ++line_;
        continue;
      }
      if (IsComment(p_)) {
        NextLine();
        continue;
      }
      record_line_ = line_;
      return true;
    }
  }
  std::string_view Word() {
    SkipBlanks();
    const char* start = p_;
    while (!IsDelimiter(p_)) ++p_;
    return {start, static_cast<std::size_t>(p_ - start)};
  }

  // ------------------------------------------------------------------ numbers
  // An integer token (ids, counts). `what` names it for the message.
  IdType ParseId(const char* what) {
    SkipBlanks();
    IdType v = 0;
    auto [q, ec] = std::from_chars(p_, end_, v);
    if (ec != std::errc() || !IsDelimiter(q)) FailToken(what);
    if (v < 0) Fail("expected ", what, ", got ", v, ": ids are non-negative integers");
    p_ = q;
    return v;
  }
  // A floating point token in any C form (leading zeros and '+' accepted).
  double ParseDouble(const char* what, const IdType* id = nullptr) {
    SkipBlanks();
    double v = 0.0;
    if (!ScanDouble(v, false)) FailToken(what, id);
    return v;
  }
  // Scans a double at p_; in a list, ',' ')' and ']' also end the number.
  // A value that is not finite is no number here: from_chars reads "nan" and
  // "inf", which no mesh means (Kratos' stream reader rejects them too), and a
  // NaN coordinate would otherwise run silently (a sphere the bounding box
  // drops, a face of no area).
  bool ScanDouble(double& v, bool in_list) {
    const char* q = p_;
    if (q < end_ && *q == '+') {
      if (++q < end_ && *q == '-') return false;
    }
    auto [r, ec] = std::from_chars(q, end_, v);
    if (ec != std::errc() || !std::isfinite(v)) return false;
    if (!IsDelimiter(r) && !(in_list && (*r == ',' || *r == ')' || *r == ']'))) return false;
    p_ = r;
    return true;
  }
  [[noreturn]] void FailToken(const char* what, const IdType* id = nullptr) {
    const std::string token = PeekToken();
    const std::string of = id ? " " + std::to_string(*id) : "";
    if (token == "'Begin'" && !open_.empty())
      Fail("expected ", what, of, ", got 'Begin' inside the ", open_.back().kind,
           " block opened at line ", open_.back().begin_line, " (is its 'End ", open_.back().kind,
           "' missing?)");
    Fail("expected ", what, of, ", got ", token);
  }

  // ------------------------------------------------------------------ blocks
  // Called at the start of a record inside block b: true (and the line is
  // consumed) when the record is b's End line.
  bool AtBlockEnd(const Block& b) {
    if (*p_ != 'E') return false;
    const char* save = p_;
    if (Word() != "End") {
      p_ = save;
      return false;
    }
    const std::string_view kind = Word();
    if (kind != b.kind)
      Fail("mismatched 'End ", Shorten(kind), "': expected 'End ", b.kind,
           "' to close the block opened at line ", b.begin_line);
    ExpectLineEnd("'End ", b.kind, "'");
    return true;
  }
  // Advances to the next record of block b; false once its End line is read.
  bool NextInBlock(const Block& b) {
    if (!NextRecord())
      FailAt(LastLine(), "unexpected end of file: 'Begin ", b.kind, "' at line ", b.begin_line,
             " is not closed by 'End ", b.kind, "'");
    return !AtBlockEnd(b);
  }
  // Skips a block's body (nested blocks included) without interpreting it.
  void SkipBlockBody(const Block& b) {
    std::vector<Block> nested;
    for (;;) {
      const Block& innermost = nested.empty() ? b : nested.back();
      if (!NextRecord())
        FailAt(LastLine(), "unexpected end of file: 'Begin ", innermost.kind, "' at line ",
               innermost.begin_line, " is not closed by 'End ", innermost.kind, "'");
      const std::string_view word = Word();
      if (word == "Begin") {
        nested.push_back({Word(), record_line_});
      } else if (word == "End") {
        const std::string_view kind = Word();
        if (kind != innermost.kind)
          Fail("mismatched 'End ", Shorten(kind), "': expected 'End ", innermost.kind,
               "' to close the block opened at line ", innermost.begin_line);
        if (nested.empty()) {
          ExpectLineEnd("'End ", b.kind, "'");
          return;
        }
        nested.pop_back();
      }
      NextLine();
    }
  }
  // Keeps the stack of open blocks (for "missing End" hints) in step with the
  // recursion.
  struct OpenBlock {
    OpenBlock(MdpaScanner& scanner, const Block& b) : scanner_(scanner) {
      scanner.open_.push_back(b);
    }
    ~OpenBlock() { scanner_.open_.pop_back(); }
    MdpaScanner& scanner_;
  };

  [[noreturn]] void FailUnknownBlock(const Block& b, const char* where, const char* known) {
    FailAt(b.begin_line, "unknown block 'Begin ", Shorten(b.kind), "' ", where,
           "; expected one of: ", known);
  }

  const char* begin_;
  const char* p_;
  const char* end_;
  int line_ = 1;
  int record_line_ = 1;
  const std::string& source_;
  std::vector<Block> open_;
};

}  // namespace tessera::mdpa_detail
