#include "calibrate/ntpcal/args.h"

#include <cerrno>
#include <cstdlib>

namespace ntpsim::ntpcal {

void Args::option(const std::string& name, const std::string& help, const std::string& default_text,
                  bool takes_value) {
  decls_[name] = Decl{help, default_text, takes_value, {}};
  order_.push_back(name);
}

void Args::alias(const std::string& short_name, const std::string& name) {
  aliases_[short_name] = name;
  auto& d = decls_[name];
  d.short_name = short_name;
}

Status Args::parse(int argc, char** argv, int first) {
  for (int i = first; i < argc; ++i) {
    std::string arg = argv[i];
    std::string value;
    bool inline_value = false;
    if (arg.size() >= 2 && arg[0] == '-' && arg[1] != '-') {
      const auto a = aliases_.find(arg.substr(0, 2));
      if (a != aliases_.end()) {
        if (arg.size() > 2) {
          value = arg.substr(arg[2] == '=' ? 3 : 2);
          inline_value = true;
        }
        arg = a->second;
      }
    }
    if (const size_t eq = arg.find('='); arg.rfind("--", 0) == 0 && eq != std::string::npos) {
      value = arg.substr(eq + 1);
      arg = arg.substr(0, eq);
      inline_value = true;
    }
    const auto it = decls_.find(arg);
    if (it == decls_.end()) return Error::bad_input("unknown option '" + arg + "' (see --help)");
    if (!it->second.takes_value) {
      if (inline_value) return Error::bad_input("option '" + arg + "' takes no value");
      values_[arg] = "1";
      continue;
    }
    if (!inline_value) {
      if (i + 1 >= argc) return Error::bad_input("option '" + arg + "' needs a value");
      value = argv[++i];
    }
    values_[arg] = value;
  }
  return Status::Ok();
}

std::string Args::help() const {
  std::string s;
  for (const auto& name : order_) {
    const Decl& d = decls_.at(name);
    std::string head = "  " + (d.short_name.empty() ? "" : d.short_name + ", ") + name +
                       (d.takes_value ? " VALUE" : "");
    if (head.size() < 28) head.resize(28, ' ');
    s += head + " " + d.help + (d.default_text.empty() ? "" : " [" + d.default_text + "]") + "\n";
  }
  return s;
}

std::string Args::text(const std::string& name) const {
  const auto it = values_.find(name);
  if (it != values_.end()) return it->second;
  const auto d = decls_.find(name);
  return d == decls_.end() ? std::string() : d->second.default_text;
}

namespace {

Result<double> to_double(const std::string& opt, const std::string& t) {
  errno = 0;
  char* end = nullptr;
  const double v = std::strtod(t.c_str(), &end);
  if (t.empty() || end != t.c_str() + t.size() || errno != 0) {
    return Error::bad_input("option " + opt + ": '" + t + "' is not a number");
  }
  return v;
}

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= s.size()) {
    const size_t c = s.find(',', start);
    const std::string part = s.substr(start, c == std::string::npos ? std::string::npos : c - start);
    if (!part.empty()) out.push_back(part);
    if (c == std::string::npos) break;
    start = c + 1;
  }
  return out;
}

}  // namespace

Result<int64_t> parse_size(const std::string& text) {
  std::string t = text;
  if (!t.empty() && (t.back() == 'B' || t.back() == 'b')) t.pop_back();
  int64_t mult = 1;
  if (!t.empty()) {
    switch (t.back()) {
      case 'K': case 'k': mult = int64_t{1} << 10; break;
      case 'M': case 'm': mult = int64_t{1} << 20; break;
      case 'G': case 'g': mult = int64_t{1} << 30; break;
      case 'T': case 't': mult = int64_t{1} << 40; break;
      default: break;
    }
    if (mult != 1) t.pop_back();
  }
  errno = 0;
  char* end = nullptr;
  const double v = std::strtod(t.c_str(), &end);
  if (t.empty() || end != t.c_str() + t.size() || errno != 0 || v < 0) {
    return Error::bad_input("'" + text + "' is not a size (e.g. 4096, 64K, 1G)");
  }
  return static_cast<int64_t>(v * static_cast<double>(mult));
}

Result<int64_t> Args::integer(const std::string& name) const {
  auto v = to_double(name, text(name));
  if (!v.ok()) return v.error();
  if (*v != static_cast<double>(static_cast<int64_t>(*v))) {
    return Error::bad_input("option " + name + ": '" + text(name) + "' is not a whole number");
  }
  return static_cast<int64_t>(*v);
}

Result<double> Args::number(const std::string& name) const { return to_double(name, text(name)); }

Result<std::vector<int64_t>> Args::integers(const std::string& name) const {
  std::vector<int64_t> out;
  for (const auto& part : split(text(name))) {
    const size_t dash = part.find('-', 1);
    if (dash != std::string::npos) {  // a range "2-8"
      auto lo = to_double(name, part.substr(0, dash));
      auto hi = to_double(name, part.substr(dash + 1));
      if (!lo.ok()) return lo.error();
      if (!hi.ok()) return hi.error();
      for (auto v = static_cast<int64_t>(*lo); v <= static_cast<int64_t>(*hi); ++v) out.push_back(v);
      continue;
    }
    auto v = to_double(name, part);
    if (!v.ok()) return v.error();
    out.push_back(static_cast<int64_t>(*v));
  }
  return out;
}

Result<std::vector<int64_t>> Args::sizes(const std::string& name) const {
  std::vector<int64_t> out;
  for (const auto& part : split(text(name))) {
    auto v = parse_size(part);
    if (!v.ok()) return Error::bad_input("option " + name + ": " + v.error().message);
    out.push_back(*v);
  }
  return out;
}

Result<std::vector<double>> Args::numbers(const std::string& name) const {
  std::vector<double> out;
  for (const auto& part : split(text(name))) {
    auto v = to_double(name, part);
    if (!v.ok()) return v.error();
    out.push_back(*v);
  }
  return out;
}

std::vector<std::string> Args::words(const std::string& name) const { return split(text(name)); }

}  // namespace ntpsim::ntpcal
