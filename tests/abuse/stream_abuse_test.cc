// Closing standard streams and preopened directories (defect 3): a guest that closes stdin,
// stdout, stderr or the /stdlib, /dev and /workspace descriptors may break its own run, but the
// NEXT run on the server (stateless runs share a post-initialisation image and may reuse an
// instance) must print, import from its library and compute as if nothing happened. In a context
// the closing context serves on (a 200), and another context of the sandbox is unaffected.
#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "abuse/abuse_fixture.h"

namespace sandbox::test {
namespace {

using StreamAbuse = AbuseTest;

// Programs that close a standard stream or a preopen, per language.
const std::map<std::string, std::vector<std::string>> kClosers = {
    {"python",
     {"import os\nos.close(3)", "import os\nos.close(1)", "import os\nos.close(2)",
      "import os\nos.close(0)", "import os\nos.close(4)", "import os\nos.close(5)",
      "import os\nfor fd in range(6):\n    try:\n        os.close(fd)\n    except OSError:\n       "
      " pass",
      "import sys\nsys.stdout.close()\nsys.stderr.close()"}},
    {"lua",
     {"io.stdout:close()", "io.stderr:close()", "io.stdin:close()",
      "io.stdout:close() io.stderr:close() io.stdin:close()", "io.output():close()"}},
    {"ruby",
     {"STDOUT.close", "STDERR.close", "STDIN.close", "$stdout.close; $stderr.close",
      "IO.new(3).close", "(0..5).each { |fd| IO.new(fd).close rescue nil }"}},
    {"perl",
     {"close(STDOUT); 1", "close(STDERR); 1", "close(STDIN); 1",
      "require POSIX; POSIX::close($_) for 0 .. 5; 1"}},
};

// A run that needs stdout, stderr and the library tree.
const std::map<std::string, std::string> kProbe = {
    {"python",
     "import json, sys\nprint('still here')\nsys.stderr.write('err here\\n')\njson.dumps(1 + 1)"},
    {"lua", "print('still here')\nio.stderr:write('err here\\n')\nreturn 1 + 1"},
    {"ruby", "require 'set'\nputs 'still here'\n$stderr.puts 'err here'\nSet[1 + 1].first"},
    {"perl",
     "use List::Util qw(sum); print \"still here\\n\"; print STDERR \"err here\\n\"; sum(1, 1)"},
};

void expect_probe_ok(const Reply& r) {
  ASSERT_EQ(r.status, 200) << r.describe();
  EXPECT_FALSE(r.has_error()) << r.describe();
  EXPECT_EQ(r.stdout_text(), "still here\n") << r.describe();
  EXPECT_EQ(r.stderr_text(), "err here\n") << r.describe();
  const std::string result = r.result_text();
  EXPECT_TRUE(result == "2" || result == "'2'") << r.describe();
}

TEST_P(StreamAbuse, ClosingStreamsDoesNotBreakTheNextStatelessRun) {
  const auto closers = kClosers.find(language());
  if (closers == kClosers.end()) GTEST_SKIP() << language() << " cannot close its streams";
  const std::string probe = kProbe.at(language());
  expect_probe_ok(api_->run(language(), probe));
  for (const auto& closer : closers->second) {
    SCOPED_TRACE(closer);
    const Reply closed = api_->run(language(), closer);
    EXPECT_EQ(closed.status, 200) << closed.describe();
    // Several runs: an instance pool may hand out the damaged instance to any of them.
    for (int i = 0; i < 3; ++i) expect_probe_ok(api_->run(language(), probe));
  }
}

TEST_P(StreamAbuse, ClosingStreamsInAContextLeavesOtherContextsIntact) {
  const auto closers = kClosers.find(language());
  if (closers == kClosers.end()) GTEST_SKIP() << language() << " cannot close its streams";
  const std::string probe = kProbe.at(language());
  for (const auto& closer : closers->second) {
    SCOPED_TRACE(closer);
    const Reply closed = api_->execute("closer", binding(), closer);
    EXPECT_EQ(closed.status, 200) << closed.describe();
    const Reply again = api_->execute("closer", binding(), "1 + 1");
    EXPECT_EQ(again.status, 200) << again.describe();
    expect_probe_ok(api_->execute("neighbour", binding(), probe));
    expect_probe_ok(api_->run(language(), probe));
  }
}

INSTANTIATE_TEST_SUITE_P(Languages, StreamAbuse, ::testing::ValuesIn(abuse_languages()),
                         language_name);

}  // namespace
}  // namespace sandbox::test
