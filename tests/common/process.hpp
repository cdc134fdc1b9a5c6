// Test helpers that need a process of their own: running a check in a forked child (with
// a capped address space, or as another user, without touching the test process), and
// capturing what a call prints to stdout/stderr.
#pragma once

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <functional>
#include <iterator>
#include <string>

namespace strata::test {

// Runs f in a forked child and returns the text it returned; a child that dies or cannot
// report gives "(child failed, status N)", which no test expects.
inline std::string in_child(const std::function<std::string()>& f) {
  int fds[2];
  if (::pipe(fds) != 0) return "(pipe failed)";
  std::fflush(nullptr);  // nothing buffered is written twice
  const pid_t pid = ::fork();
  if (pid < 0) return "(fork failed)";
  if (pid == 0) {
    ::close(fds[0]);
    const std::string m = f();
    ::_exit(::write(fds[1], m.data(), m.size()) == ssize_t(m.size()) ? 0 : 1);
  }
  ::close(fds[1]);
  std::string out;
  char buf[1024];
  for (ssize_t n; (n = ::read(fds[0], buf, sizeof buf)) > 0;) out.append(buf, std::size_t(n));
  ::close(fds[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) return "(child failed, status " + std::to_string(status) + ")";
  return out;
}

// Runs f as this user, or, as root (whom permission bits do not stop), in a child process
// that has become `nobody` (uid/gid 65534); returns f's result (an error message).
inline std::string as_unprivileged(const std::function<std::string()>& f) {
  if (::geteuid() != 0) return f();
  return in_child([&] {
    if (::setresgid(65534, 65534, 65534) != 0 || ::setresuid(65534, 65534, 65534) != 0)
      return std::string("(setuid)");
    return f();
  });
}

// Runs f with stdout (and stderr when `and_stderr`) sent to `file`; returns what landed there.
inline std::string captured(const std::string& file, const std::function<void()>& f, bool and_stderr = true) {
  std::fflush(stdout);
  std::fflush(stderr);
  const int saved1 = ::dup(1), saved2 = ::dup(2);
  const int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  ::dup2(fd, 1);
  if (and_stderr) ::dup2(fd, 2);
  ::close(fd);
  f();
  std::fflush(stdout);
  std::fflush(stderr);
  ::dup2(saved1, 1);
  ::dup2(saved2, 2);
  ::close(saved1);
  ::close(saved2);
  std::ifstream in(file, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

}  // namespace strata::test
