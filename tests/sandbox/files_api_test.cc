// The sandbox files API, POST /files (docs/sandbox-api.md#files-api): every op and its response,
// MIME types, listings (FileInfo, hidden entries, recursion), validation, and every errno error
// with its code, status, context and operation.
#include <chrono>

#include "sandbox/mime_type.h"
#include "sandbox_test_fixture.h"

namespace sandbox::test {
namespace {

class FilesApi : public SandboxFixture {
 protected:
  void SetUp() override { start({}, {"kv"}); }

  boost::json::object op(const boost::json::object& body) { return post_ok("s1", "/files", body); }
  HttpResponse op_raw(const boost::json::object& body) { return post("s1", "/files", body); }
};

TEST_F(FilesApi, WriteReadAndTheirResponses) {
  const auto w = op({{"op", "write"}, {"path", "notes/../a.txt"}, {"content", "hello"}});
  EXPECT_EQ(w.at("success").as_bool(), true);
  EXPECT_EQ(w.at("path").as_string(), "/workspace/a.txt");
  std::int64_t ts = 0;
  EXPECT_TRUE(parse_iso8601_ms(std::string(w.at("timestamp").as_string()), ts));
  EXPECT_EQ(ts, clock_.now_ms());

  const auto r = op({{"op", "read"}, {"path", "/workspace/a.txt"}});
  EXPECT_EQ(r.at("content").as_string(), "hello");
  EXPECT_EQ(r.at("encoding").as_string(), "utf-8");
  EXPECT_EQ(r.at("isBinary").as_bool(), false);
  EXPECT_EQ(r.at("mimeType").as_string(), "text/plain");
  EXPECT_EQ(r.at("size").as_int64(), 5);

  const auto b64 = op({{"op", "read"}, {"path", "a.txt"}, {"encoding", "base64"}});
  EXPECT_EQ(b64.at("content").as_string(), "aGVsbG8=");
  EXPECT_EQ(b64.at("encoding").as_string(), "base64");

  // Binary content written as base64.
  op({{"op", "write"}, {"path", "blob.bin"}, {"content", "AAEC/w=="}, {"encoding", "base64"}});
  const auto bin = op({{"op", "read"}, {"path", "blob.bin"}, {"encoding", "base64"}});
  EXPECT_EQ(bin.at("content").as_string(), "AAEC/w==");
  EXPECT_EQ(bin.at("isBinary").as_bool(), true);
  EXPECT_EQ(bin.at("mimeType").as_string(), "application/octet-stream");
  EXPECT_EQ(bin.at("size").as_int64(), 4);

  // Content defaults to "".
  op({{"op", "write"}, {"path", "empty.txt"}});
  EXPECT_EQ(op({{"op", "read"}, {"path", "empty.txt"}}).at("size").as_int64(), 0);
}

TEST_F(FilesApi, MimeTypesByExtension) {
  EXPECT_EQ(mime_type_for("/workspace/a.JSON", false), "application/json");
  EXPECT_EQ(mime_type_for("/workspace/a.mjs", false), "text/javascript");
  EXPECT_EQ(mime_type_for("/workspace/a.py", false), "text/x-python");
  EXPECT_EQ(mime_type_for("/workspace/a.pl", false), "text/x-perl");
  EXPECT_EQ(mime_type_for("/workspace/a.rb", false), "text/x-ruby");
  EXPECT_EQ(mime_type_for("/workspace/a.md", false), "text/markdown");
  EXPECT_EQ(mime_type_for("/workspace/a.csv", false), "text/csv");
  EXPECT_EQ(mime_type_for("/workspace/a.svg", false), "image/svg+xml");
  EXPECT_EQ(mime_type_for("/workspace/a.jpeg", true), "image/jpeg");
  EXPECT_EQ(mime_type_for("/workspace/a.wasm", true), "application/wasm");
  EXPECT_EQ(mime_type_for("/workspace/a.tar.gz", true), "application/gzip");
  EXPECT_EQ(mime_type_for("/workspace/a.unknown", false), "text/plain");
  EXPECT_EQ(mime_type_for("/workspace/a.unknown", true), "application/octet-stream");
  EXPECT_EQ(mime_type_for("/workspace/dir.json/noext", false), "text/plain");
  op({{"op", "write"}, {"path", "p.py"}, {"content", "print(1)"}});
  EXPECT_EQ(op({{"op", "read"}, {"path", "p.py"}}).at("mimeType").as_string(), "text/x-python");
}

TEST_F(FilesApi, MkdirListExistsAndHiddenEntries) {
  const auto m = op({{"op", "mkdir"}, {"path", "a/b/c"}, {"recursive", true}});
  EXPECT_EQ(m.at("path").as_string(), "/workspace/a/b/c");
  EXPECT_EQ(m.at("recursive").as_bool(), true);
  EXPECT_EQ(op({{"op", "mkdir"}, {"path", "top"}}).at("recursive").as_bool(), false);
  op({{"op", "write"}, {"path", "a/file.txt"}, {"content", "12345"}});
  op({{"op", "write"}, {"path", "a/.hidden"}, {"content", "h"}});
  op({{"op", "mkdir"}, {"path", "a/.cache"}});
  op({{"op", "write"}, {"path", "a/.cache/x"}, {"content", "x"}});

  const auto shallow = op({{"op", "list"}, {"path", "a"}});
  EXPECT_EQ(shallow.at("path").as_string(), "/workspace/a");
  std::vector<std::string> names;
  for (const auto& f : shallow.at("files").as_array()) names.emplace_back(f.at("name").as_string());
  EXPECT_EQ(names, (std::vector<std::string>{"b", "file.txt"}));
  EXPECT_EQ(shallow.at("count").as_int64(), 2);

  const auto& dir = shallow.at("files").as_array()[0].as_object();
  EXPECT_EQ(dir.at("absolutePath").as_string(), "/workspace/a/b");
  EXPECT_EQ(dir.at("relativePath").as_string(), "b");
  EXPECT_EQ(dir.at("type").as_string(), "directory");
  EXPECT_EQ(dir.at("size").as_int64(), 0);
  EXPECT_EQ(dir.at("mode").as_string(), "drwxr-xr-x");
  EXPECT_EQ(dir.at("modifiedAt"), get_ok("s1").at("createdAt"));
  EXPECT_EQ(boost::json::serialize(dir.at("permissions")),
            R"({"readable":true,"writable":true,"executable":true})");
  const auto& file = shallow.at("files").as_array()[1].as_object();
  EXPECT_EQ(file.at("type").as_string(), "file");
  EXPECT_EQ(file.at("size").as_int64(), 5);
  EXPECT_EQ(file.at("mode").as_string(), "-rw-r--r--");
  EXPECT_EQ(file.at("modifiedAt").as_string(), iso8601_ms(clock_.now_ms()));
  EXPECT_EQ(file.at("permissions").at("executable").as_bool(), false);

  const auto deep =
      op({{"op", "list"}, {"path", "/workspace/a"}, {"recursive", true}, {"includeHidden", true}});
  names.clear();
  for (const auto& f : deep.at("files").as_array()) {
    names.emplace_back(f.at("relativePath").as_string());
  }
  EXPECT_EQ(names,
            (std::vector<std::string>{"b", "b/c", "file.txt", ".hidden", ".cache", ".cache/x"}));
  const auto visible = op({{"op", "list"}, {"path", "a"}, {"recursive", 1}});
  EXPECT_EQ(visible.at("count").as_int64(), 3);

  EXPECT_EQ(op({{"op", "exists"}, {"path", "a/b"}}).at("exists").as_bool(), true);
  EXPECT_EQ(op({{"op", "exists"}, {"path", "/workspace"}}).at("exists").as_bool(), true);
  EXPECT_EQ(op({{"op", "exists"}, {"path", "zz"}}).at("exists").as_bool(), false);
  EXPECT_EQ(op({{"op", "list"}, {"path", "/workspace"}}).at("count").as_int64(), 2);
}

TEST_F(FilesApi, DeleteRenameAndMove) {
  op({{"op", "mkdir"}, {"path", "d/e"}, {"recursive", true}});
  op({{"op", "write"}, {"path", "d/e/f.txt"}, {"content", "f"}});
  op({{"op", "write"}, {"path", "g.txt"}, {"content", "g"}});
  const auto renamed = op({{"op", "rename"}, {"path", "g.txt"}, {"newPath", "d/h.txt"}});
  EXPECT_EQ(renamed.at("path").as_string(), "/workspace/g.txt");
  EXPECT_EQ(renamed.at("newPath").as_string(), "/workspace/d/h.txt");
  const auto moved = op({{"op", "move"}, {"path", "d/e"}, {"newPath", "/workspace/e2"}});
  EXPECT_EQ(moved.at("newPath").as_string(), "/workspace/e2");
  EXPECT_EQ(op({{"op", "read"}, {"path", "e2/f.txt"}}).at("content").as_string(), "f");
  EXPECT_EQ(op({{"op", "delete"}, {"path", "d/h.txt"}}).at("path").as_string(),
            "/workspace/d/h.txt");
  op({{"op", "delete"}, {"path", "e2"}, {"recursive", true}});
  op({{"op", "delete"}, {"path", "missing/x"}, {"force", true}});
  EXPECT_EQ(
      op({{"op", "list"}, {"path", "/workspace"}, {"recursive", true}}).at("count").as_int64(),
      1);  // d/

  // Persisted: a restart sees the same tree.
  restart();
  EXPECT_EQ(
      op({{"op", "list"}, {"path", "/workspace"}, {"recursive", true}}).at("count").as_int64(), 1);
}

TEST_F(FilesApi, Validation) {
  const auto error = [&](const boost::json::object& body) { return error_of(op_raw(body)); };
  EXPECT_EQ(error({{"op", "chmod"}, {"path", "a"}}), "VALIDATION_FAILED: Unknown op");
  EXPECT_EQ(error({{"path", "a"}}), "VALIDATION_FAILED: Unknown op");
  EXPECT_EQ(error({{"op", "read"}}), "VALIDATION_FAILED: path is required");
  EXPECT_EQ(error({{"op", "read"}, {"path", ""}}), "VALIDATION_FAILED: path is required");
  EXPECT_EQ(error({{"op", "rename"}, {"path", "a"}}),
            "VALIDATION_FAILED: newPath is required for rename");
  EXPECT_EQ(error({{"op", "move"}, {"path", "a"}, {"newPath", ""}}),
            "VALIDATION_FAILED: newPath is required for move");
  EXPECT_EQ(error({{"op", "read"}, {"path", "a"}, {"encoding", "latin1"}}),
            "VALIDATION_FAILED: encoding must be utf-8 or base64");
  EXPECT_EQ(error({{"op", "write"}, {"path", "a"}, {"content", 5}}),
            "VALIDATION_FAILED: content must be a string");
  EXPECT_EQ(error_of(call("s1", "POST", "/files", "nope")), "VALIDATION_FAILED: Invalid JSON");
}

TEST_F(FilesApi, WorkspaceErrorsCarryTheirCodeStatusAndContext) {
  op({{"op", "mkdir"}, {"path", "dir"}});
  op({{"op", "mkdir"}, {"path", "full"}});
  op({{"op", "write"}, {"path", "full/x"}, {"content", "x"}});
  op({{"op", "write"}, {"path", "file.txt"}, {"content", "x"}});

  HttpResponse r = op_raw({{"op", "read"}, {"path", "nope.txt"}});
  EXPECT_EQ(r.status, 404);
  auto body = json_of(r);
  EXPECT_EQ(body.at("code").as_string(), "FILE_NOT_FOUND");
  EXPECT_EQ(body.at("operation").as_string(), "file.read");
  EXPECT_EQ(boost::json::serialize(body.at("context")),
            R"({"path":"nope.txt","operation":"file.read","errno":"ENOENT"})");
  EXPECT_EQ(body.at("httpStatus").as_int64(), 404);

  const auto expect = [&](const boost::json::object& request, int status, const std::string& code,
                          const std::string& errno_name, const std::string& operation) {
    const HttpResponse res = op_raw(request);
    EXPECT_EQ(res.status, status) << boost::json::serialize(request) << " -> " << res.body;
    const auto b = json_of(res);
    EXPECT_EQ(b.at("code").as_string(), code) << res.body;
    EXPECT_EQ(b.at("context").at("errno").as_string(), errno_name) << res.body;
    EXPECT_EQ(b.at("operation").as_string(), operation) << res.body;
    return b;
  };
  expect({{"op", "read"}, {"path", "dir"}}, 400, "IS_DIRECTORY", "EISDIR", "file.read");
  expect({{"op", "read"}, {"path", "/etc/passwd"}}, 403, "PERMISSION_DENIED", "EACCES",
         "file.read");
  expect({{"op", "write"}, {"path", "no/such/file"}}, 404, "FILE_NOT_FOUND", "ENOENT",
         "file.write");
  expect({{"op", "write"}, {"path", "file.txt/x"}}, 400, "NOT_DIRECTORY", "ENOTDIR", "file.write");
  expect({{"op", "write"}, {"path", "/workspace"}}, 400, "IS_DIRECTORY", "EISDIR", "file.write");
  expect({{"op", "write"}, {"path", "b.bin"}, {"content", "!!!"}, {"encoding", "base64"}}, 500,
         "FILESYSTEM_ERROR", "EINVAL", "file.write");
  const auto big =
      expect({{"op", "write"}, {"path", "big"}, {"content", std::string(1048577, 'x')}}, 413,
             "FILE_TOO_LARGE", "EFBIG", "file.write");
  EXPECT_EQ(big.at("context").at("maxSize").as_int64(), 1048576);
  EXPECT_EQ(big.at("context").at("actualSize").as_int64(), 1048577);
  // mkdir failures are FILESYSTEM_ERROR unless EACCES or ENOSPC.
  expect({{"op", "mkdir"}, {"path", "dir"}}, 500, "FILESYSTEM_ERROR", "EEXIST", "directory.create");
  expect({{"op", "mkdir"}, {"path", "x/y"}}, 500, "FILESYSTEM_ERROR", "ENOENT", "directory.create");
  expect({{"op", "mkdir"}, {"path", "../x"}}, 403, "PERMISSION_DENIED", "EACCES",
         "directory.create");
  expect({{"op", "delete"}, {"path", "/workspace"}}, 403, "PERMISSION_DENIED", "EACCES",
         "file.delete");
  expect({{"op", "delete"}, {"path", "dir"}}, 400, "IS_DIRECTORY", "EISDIR", "file.delete");
  expect({{"op", "delete"}, {"path", "gone"}}, 404, "FILE_NOT_FOUND", "ENOENT", "file.delete");
  expect({{"op", "rename"}, {"path", "dir"}, {"newPath", "full"}}, 500, "FILESYSTEM_ERROR",
         "ENOTEMPTY", "file.rename");
  expect({{"op", "move"}, {"path", "file.txt"}, {"newPath", "dir"}}, 400, "IS_DIRECTORY", "EISDIR",
         "file.move");
  expect({{"op", "list"}, {"path", "file.txt"}}, 400, "NOT_DIRECTORY", "ENOTDIR", "directory.list");
  expect({{"op", "exists"}, {"path", "/tmp"}}, 403, "PERMISSION_DENIED", "EACCES", "file.stat");

  // Nothing of the failures changed the tree.
  EXPECT_EQ(
      op({{"op", "list"}, {"path", "/workspace"}, {"recursive", true}}).at("count").as_int64(), 4);
}

TEST_F(FilesApi, TheWorkspaceLimitsAreEnforced) {
  const std::string mib(1048576, 'x');
  for (int i = 0; i < 16; ++i) {
    op({{"op", "write"}, {"path", "f" + std::to_string(i)}, {"content", mib}});
  }
  const HttpResponse r = op_raw({{"op", "write"}, {"path", "one-more"}, {"content", "x"}});
  EXPECT_EQ(r.status, 500);
  EXPECT_EQ(error_of(r), "NO_SPACE: Workspace exceeds 16 MiB total");
}

// Regression (issue 12): a recursive mkdir of a 2 MiB, 2,500-level path held a worker for
// 158 s; paths past the limits of <sandbox/workspace.h> or holding a NUL byte are malformed
// requests, refused at once with 400.
TEST_F(FilesApi, DeepOrLongPathsAreRefusedQuicklyWith400) {
  std::string deep;
  for (int i = 0; i < 2'500; ++i) deep.append(i ? "/" : "").append(std::string(800, 'd'));
  std::string too_deep;
  for (std::size_t i = 0; i <= kMaxPathDepth; ++i) too_deep.append(i ? "/a" : "a");
  const auto expect_400 = [&](const boost::json::object& request, const std::string& errno_name) {
    const HttpResponse res = op_raw(request);
    EXPECT_EQ(res.status, 400) << res.body.substr(0, 200);
    const auto b = json_of(res);
    EXPECT_EQ(b.at("code").as_string(), "VALIDATION_FAILED");
    EXPECT_EQ(b.at("context").at("errno").as_string(), errno_name);
  };
  const auto start = std::chrono::steady_clock::now();
  expect_400({{"op", "mkdir"}, {"path", deep}, {"recursive", true}}, "ENAMETOOLONG");
  expect_400({{"op", "mkdir"}, {"path", too_deep}, {"recursive", true}}, "ENAMETOOLONG");
  expect_400({{"op", "write"}, {"path", std::string(256, 'n')}}, "ENAMETOOLONG");
  expect_400({{"op", "write"}, {"path", std::string("a\0b", 3)}, {"content", "x"}}, "EINVAL");
  op({{"op", "write"}, {"path", "a.txt"}});
  expect_400({{"op", "rename"}, {"path", "a.txt"}, {"newPath", too_deep}}, "ENAMETOOLONG");
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(2));
  EXPECT_EQ(
      op({{"op", "list"}, {"path", "/workspace"}, {"recursive", true}}).at("count").as_int64(), 1);
}

}  // namespace
}  // namespace sandbox::test
