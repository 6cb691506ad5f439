#include "tests/reference/json.h"

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "absl/strings/str_format.h"

namespace ssimd::testing {
namespace {

class Parser {
 public:
  explicit Parser(const std::string& text) : text_(text) {}

  absl::StatusOr<Json> Document() {
    Json value;
    if (!Value(value)) return Error();
    SkipSpace();
    if (pos_ != text_.size()) {
      error_ = "trailing characters";
      return Error();
    }
    return value;
  }

 private:
  absl::Status Error() const {
    return absl::InvalidArgumentError(absl::StrFormat("JSON: %s at offset %d", error_, pos_));
  }
  void SkipSpace() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\n' ||
                                   text_[pos_] == '\r' || text_[pos_] == '\t')) {
      ++pos_;
    }
  }
  bool Literal(const char* word) {
    const std::string w(word);
    if (text_.compare(pos_, w.size(), w) != 0) {
      error_ = "unexpected token";
      return false;
    }
    pos_ += w.size();
    return true;
  }
  bool String(std::string& out) {
    ++pos_;  // opening quote
    while (pos_ < text_.size() && text_[pos_] != '"') {
      char c = text_[pos_++];
      if (c == '\\') {
        if (pos_ >= text_.size()) break;
        const char e = text_[pos_++];
        switch (e) {
          case 'n': c = '\n'; break;
          case 't': c = '\t'; break;
          case 'r': c = '\r'; break;
          case 'b': c = '\b'; break;
          case 'f': c = '\f'; break;
          case 'u': {
            // Only ASCII escapes appear in the reference files; others become '?'.
            if (pos_ + 4 > text_.size()) break;
            const long code = std::strtol(text_.substr(pos_, 4).c_str(), nullptr, 16);
            pos_ += 4;
            c = code < 128 ? static_cast<char>(code) : '?';
            break;
          }
          default: c = e;
        }
      }
      out.push_back(c);
    }
    if (pos_ >= text_.size()) {
      error_ = "unterminated string";
      return false;
    }
    ++pos_;
    return true;
  }
  bool Value(Json& out) {
    SkipSpace();
    if (pos_ >= text_.size()) {
      error_ = "unexpected end";
      return false;
    }
    const char c = text_[pos_];
    if (c == '{') {
      out.type = Json::Type::kObject;
      ++pos_;
      SkipSpace();
      if (pos_ < text_.size() && text_[pos_] == '}') {
        ++pos_;
        return true;
      }
      for (;;) {
        SkipSpace();
        if (pos_ >= text_.size() || text_[pos_] != '"') {
          error_ = "expected a key";
          return false;
        }
        std::string key;
        if (!String(key)) return false;
        SkipSpace();
        if (pos_ >= text_.size() || text_[pos_] != ':') {
          error_ = "expected ':'";
          return false;
        }
        ++pos_;
        if (!Value(out.object[key])) return false;
        SkipSpace();
        if (pos_ < text_.size() && text_[pos_] == ',') {
          ++pos_;
          continue;
        }
        if (pos_ < text_.size() && text_[pos_] == '}') {
          ++pos_;
          return true;
        }
        error_ = "expected ',' or '}'";
        return false;
      }
    }
    if (c == '[') {
      out.type = Json::Type::kArray;
      ++pos_;
      SkipSpace();
      if (pos_ < text_.size() && text_[pos_] == ']') {
        ++pos_;
        return true;
      }
      for (;;) {
        out.array.emplace_back();
        if (!Value(out.array.back())) return false;
        SkipSpace();
        if (pos_ < text_.size() && text_[pos_] == ',') {
          ++pos_;
          continue;
        }
        if (pos_ < text_.size() && text_[pos_] == ']') {
          ++pos_;
          return true;
        }
        error_ = "expected ',' or ']'";
        return false;
      }
    }
    if (c == '"') {
      out.type = Json::Type::kString;
      return String(out.string);
    }
    if (c == 't' || c == 'f') {
      out.type = Json::Type::kBool;
      out.boolean = c == 't';
      return Literal(c == 't' ? "true" : "false");
    }
    if (c == 'n') {
      out.type = Json::Type::kNull;
      return Literal("null");
    }
    const char* start = text_.c_str() + pos_;
    char* end = nullptr;
    out.type = Json::Type::kNumber;
    out.number = std::strtod(start, &end);
    if (end == start) {
      error_ = "unexpected character";
      return false;
    }
    pos_ += static_cast<size_t>(end - start);
    return true;
  }

  const std::string& text_;
  size_t pos_ = 0;
  std::string error_;
};

}  // namespace

const Json& Json::operator[](const std::string& key) const {
  static const Json* const kNull = new Json();
  const auto it = object.find(key);
  return it == object.end() ? *kNull : it->second;
}

absl::StatusOr<Json> ParseJson(const std::string& text) { return Parser(text).Document(); }

absl::StatusOr<Json> ReadJsonFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrFormat("cannot open %s", path));
  std::stringstream buffer;
  buffer << in.rdbuf();
  auto parsed = ParseJson(buffer.str());
  if (!parsed.ok()) {
    return absl::InvalidArgumentError(absl::StrFormat("%s: %s", path, parsed.status().message()));
  }
  return parsed;
}

}  // namespace ssimd::testing
