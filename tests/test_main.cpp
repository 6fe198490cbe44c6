// Test driver: Kokkos is initialised once for the whole run through gigaseg::Runtime. The number
// of OpenMP threads comes from OMP_NUM_THREADS (ctest sets 1 and 2, see tests/CMakeLists.txt).
// A crash prints the failing test and a stack trace (binary+offset, for addr2line) before dying,
// so that a crash on a machine without a debugger can still be located.
#include "gigaseg/core/runtime.hpp"

#include <gtest/gtest.h>

#include <csignal>
#include <cstdio>
#include <cstring>
#include <execinfo.h>
#include <ucontext.h>
#include <unistd.h>

namespace {

void report_crash(int signal, siginfo_t* info, void* context) {
  char const header[] = "\n*** gigaseg_tests: fatal signal in ";
  ::write(STDERR_FILENO, header, sizeof header - 1);
  if (auto const* test = ::testing::UnitTest::GetInstance()->current_test_info()) {
    ::write(STDERR_FILENO, test->test_suite_name(), std::strlen(test->test_suite_name()));
    ::write(STDERR_FILENO, ".", 1);
    ::write(STDERR_FILENO, test->name(), std::strlen(test->name()));
  }
  char line[160];
  auto const* uc = static_cast<ucontext_t const*>(context);
  // A call through a null pointer faults at instruction 0 with the caller's return address on top
  // of the stack: print that too.
  void* const* const stack = reinterpret_cast<void* const*>(uc->uc_mcontext.gregs[REG_RSP]);
  int const length = std::snprintf(line, sizeof line, "faulting instruction %p, address %p, top of stack %p\n",
                                   reinterpret_cast<void*>(uc->uc_mcontext.gregs[REG_RIP]), info->si_addr, stack[0]);
  ::write(STDERR_FILENO, "\n", 1);
  ::write(STDERR_FILENO, line, std::size_t(length));
  void* frames[64];
  int const n = ::backtrace(frames, 64);
  ::backtrace_symbols_fd(frames, n, STDERR_FILENO);
  std::signal(signal, SIG_DFL);
  std::raise(signal);
}

}  // namespace

int main(int argc, char** argv) {
  struct sigaction action {};
  action.sa_sigaction = report_crash;
  action.sa_flags = SA_SIGINFO;
  for (int s : {SIGSEGV, SIGBUS, SIGABRT}) sigaction(s, &action, nullptr);
  ::testing::InitGoogleTest(&argc, argv);
  gigaseg::Runtime runtime;
  return RUN_ALL_TESTS();
}
