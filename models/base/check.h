// Invariant checks that stay on in release builds (STYLE.md §8).
//
// NTPSIM_CHECK(cond) aborts with file, line and the condition when an internal invariant is
// broken: a bug in ntpsim, never bad user input (that is an Error, see status.h).
#pragma once

#include <cstdio>
#include <cstdlib>

#define NTPSIM_CHECK(cond)                                                             \
  do {                                                                                 \
    if (!(cond)) [[unlikely]] {                                                        \
      std::fprintf(stderr, "ntpsim: internal error at %s:%d: check failed: %s\n", __FILE__, \
                   __LINE__, #cond);                                                   \
      std::abort();                                                                    \
    }                                                                                  \
  } while (false)

#define NTPSIM_CHECK_MSG(cond, msg)                                                    \
  do {                                                                                 \
    if (!(cond)) [[unlikely]] {                                                        \
      std::fprintf(stderr, "ntpsim: internal error at %s:%d: check failed: %s (%s)\n", \
                   __FILE__, __LINE__, #cond, msg);                                    \
      std::abort();                                                                    \
    }                                                                                  \
  } while (false)
