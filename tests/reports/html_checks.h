// Structural HTML checks shared by the reports tests: a tag tokenizer, balance and
// self-containment assertions (gtest EXPECT/ADD_FAILURE, so a test can call several).
#pragma once

#include <gtest/gtest.h>

#include <cctype>
#include <set>
#include <string>
#include <vector>

namespace ntpsim::reports::testing {

struct Tag {
  std::string name;
  bool closing = false;
  bool self_closing = false;
  size_t pos = 0;
};

// A small tokenizer, enough for the markup this project writes: skips comments, <!DOCTYPE>,
// and the raw text of <style>; fails the test on an unterminated tag.
inline std::vector<Tag> tags(const std::string& html) {
  std::vector<Tag> out;
  size_t i = 0;
  while ((i = html.find('<', i)) != std::string::npos) {
    if (html.compare(i, 4, "<!--") == 0) {
      i = html.find("-->", i);
      EXPECT_NE(i, std::string::npos) << "unterminated comment";
      if (i == std::string::npos) break;
      continue;
    }
    const size_t end = html.find('>', i);
    EXPECT_NE(end, std::string::npos) << "unterminated tag at " << i;
    if (end == std::string::npos) break;
    if (html[i + 1] == '!') {
      i = end;
      continue;
    }
    Tag t;
    t.pos = i;
    size_t p = i + 1;
    if (html[p] == '/') {
      t.closing = true;
      ++p;
    }
    while (p < end && (std::isalnum(static_cast<unsigned char>(html[p])) || html[p] == '-')) {
      t.name += static_cast<char>(std::tolower(static_cast<unsigned char>(html[p])));
      ++p;
    }
    t.self_closing = html[end - 1] == '/';
    out.push_back(t);
    i = end;
    if (t.name == "style" && !t.closing) i = html.find("</style>", i);
  }
  return out;
}

inline const std::set<std::string> kVoid = {"meta", "br", "hr", "img", "input", "link", "wbr"};

// Every opened element is closed, innermost first (void and self-closed elements aside).
inline void expect_balanced(const std::string& html) {
  std::vector<std::string> stack;
  for (const Tag& t : tags(html)) {
    if (t.self_closing || kVoid.count(t.name)) continue;
    if (!t.closing) {
      stack.push_back(t.name);
      continue;
    }
    if (stack.empty()) {
      ADD_FAILURE() << "</" << t.name << "> with nothing open at " << t.pos;
      return;
    }
    if (stack.back() != t.name) {
      ADD_FAILURE() << "mismatched </" << t.name << "> at " << t.pos << ", open: <" << stack.back()
                    << ">";
      return;
    }
    stack.pop_back();
  }
  EXPECT_TRUE(stack.empty()) << stack.size() << " unclosed, innermost <"
                             << (stack.empty() ? "" : stack.back()) << ">";
}

// Nothing is fetched from outside the file: no scripts, links, images, fonts or URLs except
// in-page anchors and the SVG namespace name.
inline void expect_self_contained(const std::string& html) {
  for (const char* s : {"<script", "<link", "<img", " src=", "@import", "url(", "@font-face"})
    EXPECT_EQ(html.find(s), std::string::npos) << s;
  for (size_t i = html.find("href="); i != std::string::npos; i = html.find("href=", i + 1))
    EXPECT_EQ(html[i + 6], '#') << html.substr(i, 40);
  const std::string ns = "http://www.w3.org/2000/svg";
  for (size_t i = html.find("http"); i != std::string::npos; i = html.find("http", i + 1))
    EXPECT_EQ(html.compare(i, ns.size(), ns), 0) << html.substr(i, 60);
}

// Every <figure> holds a heading, its chart's <svg> and the table of its numbers; returns the
// number of figures.
inline size_t expect_figures_complete(const std::string& html) {
  size_t figures = 0;
  for (size_t i = html.find("<figure"); i != std::string::npos; i = html.find("<figure", i + 1)) {
    const size_t end = html.find("</figure>", i);
    if (end == std::string::npos) {
      ADD_FAILURE() << "unclosed <figure>";
      break;
    }
    const std::string fig = html.substr(i, end - i);
    EXPECT_NE(fig.find("<svg"), std::string::npos) << fig.substr(0, 80);
    EXPECT_NE(fig.find("<table"), std::string::npos) << fig.substr(0, 80);
    EXPECT_NE(fig.find("<h2>"), std::string::npos) << fig.substr(0, 80);
    ++figures;
  }
  return figures;
}

}  // namespace ntpsim::reports::testing
