// The Python engine's C-library modules (zlib, gzip, zipfile, bz2, lzma, sqlite3) and its
// time-zone database, against Debian's native python3.11 on the same inputs
// (docs/languages.md, Python section).
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>
#include <sys/wait.h>

#include "engines/corpus/session_snapshot.h"
#include "python_engine.h"
#include "support/isolation_under_test.h"

namespace sandbox {
namespace {

namespace fs = std::filesystem;

const Engine& python() {
  static const Engine engine = test::under_test(engines::make_python_engine());
  return engine;
}

std::string read_all(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// stdout of `code` run by Debian's python3.11, in UTC like the sandbox.
std::string native_stdout(const std::string& code) {
  char dir_template[] = "/tmp/sandbox-python-batteries-XXXXXX";
  const char* dir = mkdtemp(dir_template);
  if (dir == nullptr) throw std::runtime_error("mkdtemp failed");
  const fs::path d(dir);
  std::ofstream(d / "input.py", std::ios::binary) << code;
  const std::string command = "cd '" + d.string() +
                              "' && TZ=UTC LC_ALL=C timeout 60 /usr/bin/python3.11 -I input.py "
                              "</dev/null >stdout 2>stderr";
  const int status = std::system(command.c_str());
  const std::string out = read_all(d / "stdout");
  const std::string err = read_all(d / "stderr");
  fs::remove_all(d);
  if (status == -1 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    throw std::runtime_error("native python3.11 failed (scripts/bootstrap.sh installs it): " + err);
  }
  return out;
}

// stdout of `code` run statelessly in the sandbox; fails the test on an error.
std::string sandbox_stdout(const std::string& code) {
  const EngineOutcome o = python().run({code, {}});
  EXPECT_FALSE(o.error) << o.error->name << ": " << o.error->message;
  std::string out;
  for (const auto& line : o.logs.stdout_lines) out += line + "\n";
  return out;
}

void expect_same_as_native(const std::string& code) {
  const std::string native = native_stdout(code);
  EXPECT_FALSE(native.empty());
  EXPECT_EQ(sandbox_stdout(code), native) << code;
}

// Deterministic compressed output of each codec, hex-printed: zlib and bzip2 are the same
// library versions as Debian's, so their bytes must match the native ones exactly.
const char* const kCompressEverywhere = R"py(import bz2, gzip, hashlib, lzma, zlib
data = b''.join(b'line %d of some repetitive text\n' % i for i in range(2000))
for level in (1, 6, 9):
    c = zlib.compress(data, level)
    print('zlib', level, len(c), hashlib.sha256(c).hexdigest())
print('crc32', zlib.crc32(data), 'adler32', zlib.adler32(data))
c = bz2.compress(data, 9)
print('bz2', len(c), hashlib.sha256(c).hexdigest())
c = gzip.compress(data, 6, mtime=0)
print('gzip', len(c), hashlib.sha256(c).hexdigest())
c = lzma.compress(data, preset=3)
print('xz', len(c), hashlib.sha256(c).hexdigest())
c = lzma.compress(data, format=lzma.FORMAT_ALONE, preset=3 | lzma.PRESET_EXTREME)
print('lzma-alone', len(c), hashlib.sha256(c).hexdigest())
)py";

TEST(PythonBatteries, CompressedBytesEqualNative) { expect_same_as_native(kCompressEverywhere); }

TEST(PythonBatteries, DataCompressedNativelyDecompressesInTheSandbox) {
  const std::string native = native_stdout(R"py(import bz2, gzip, lzma, zlib
data = ''.join('%d é ✓ \n' % i for i in range(3000)).encode()
for name, c in (('zlib', zlib.compress(data, 9)), ('bz2', bz2.compress(data)),
                ('gzip', gzip.compress(data)), ('xz', lzma.compress(data))):
    print(name, c.hex())
)py");
  std::string program = "import bz2, gzip, hashlib, lzma, zlib\nblobs = {\n";
  std::istringstream lines(native);
  std::string name, hex;
  int count = 0;
  while (lines >> name >> hex) {
    program += "  '" + name + "': bytes.fromhex('" + hex + "'),\n";
    ++count;
  }
  ASSERT_EQ(count, 4);
  program += R"py(}
want = ''.join('%d é ✓ \n' % i for i in range(3000)).encode()
print(zlib.decompress(blobs['zlib']) == want, bz2.decompress(blobs['bz2']) == want,
      gzip.decompress(blobs['gzip']) == want, lzma.decompress(blobs['xz']) == want)
)py";
  EXPECT_EQ(sandbox_stdout(program), "True True True True\n");
}

TEST(PythonBatteries, DataCompressedInTheSandboxDecompressesNatively) {
  const std::string code = R"py(import bz2, lzma, zlib
data = bytes(range(256)) * 64 + b'tail'
print('zlib', zlib.compress(data).hex())
print('bz2', bz2.compress(data).hex())
print('xz', lzma.compress(data, check=lzma.CHECK_SHA256, preset=2).hex())
)py";
  const std::string sandboxed = sandbox_stdout(code);
  std::string program = "import bz2, lzma, zlib\nblobs = {\n";
  std::istringstream lines(sandboxed);
  std::string name, hex;
  int count = 0;
  while (lines >> name >> hex) {
    program += "  '" + name + "': bytes.fromhex('" + hex + "'),\n";
    ++count;
  }
  ASSERT_EQ(count, 3);
  program += R"py(}
want = bytes(range(256)) * 64 + b'tail'
print(zlib.decompress(blobs['zlib']) == want, bz2.decompress(blobs['bz2']) == want,
      lzma.decompress(blobs['xz']) == want)
)py";
  EXPECT_EQ(native_stdout(program), "True True True\n");
}

TEST(PythonBatteries, StreamingCompressorsAndErrorsMatchNative) {
  expect_same_as_native(R"py(import bz2, lzma, zlib
for make in (lambda: zlib.compressobj(7, zlib.DEFLATED, -15), bz2.BZ2Compressor,
             lambda: lzma.LZMACompressor(preset=1)):
    c = make()
    out = b''.join(c.compress(b'chunk %d ' % i) for i in range(500)) + c.flush()
    print(type(c).__name__, len(out))
d = zlib.decompressobj()
out = b''.join(d.decompress(bytes([b])) for b in zlib.compress(b'abc' * 1000))
print(len(out), d.eof)
for bad, f in ((zlib, zlib.decompress), (bz2, bz2.decompress), (lzma, lzma.decompress)):
    try:
        f(b'not compressed at all')
    except Exception as e:
        print(type(e).__name__, e)
)py");
}

TEST(PythonBatteries, ACompressedZipFileIsWrittenAndRead) {
  const std::string code = R"py(import hashlib, io, zipfile
buf = io.BytesIO()
with zipfile.ZipFile(buf, 'w') as z:
    for i, method in enumerate((zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED, zipfile.ZIP_BZIP2)):
        info = zipfile.ZipInfo('f%d.txt' % i, (2024, 1, 2, 3, 4, 6))
        info.compress_type = method
        z.writestr(info, ('member %d\n' % i) * 1000)
print(len(buf.getvalue()), hashlib.sha256(buf.getvalue()).hexdigest())
with zipfile.ZipFile(buf) as z:
    for info in z.infolist():
        print(info.filename, info.compress_type, info.file_size, info.compress_size,
              z.read(info).count(b'\n'))
    print(z.testzip())
)py";
  expect_same_as_native(code);
  // And on a file of the workspace, read back in a later execute.
  testing_corpus::SnapshotFixture f(python());
  f.expect_text(*f.session,
                "import zipfile\nwith zipfile.ZipFile('/workspace/a.zip', 'w', "
                "zipfile.ZIP_DEFLATED) as z:\n    z.writestr('x.txt', 'hello ' * 500)",
                "");
  f.expect_text(*f.session,
                "with zipfile.ZipFile('/workspace/a.zip') as z:\n"
                "    r = (z.getinfo('x.txt').compress_type, len(z.read('x.txt')))\nr",
                "(8, 3000)");
}

// An open connection holds the database file open, and a guest holding a file cannot be
// snapshotted (docs/contexts.md#cl8): closing it makes the context storable again.
TEST(PythonBatteries, AnSqlSessionPersistsAcrossExecutesAndARestore) {
  testing_corpus::SnapshotFixture f(python());
  f.expect_text(*f.session,
                "import sqlite3\ncon = sqlite3.connect('/workspace/app.db')\n"
                "con.execute('create table t (id integer primary key, name text, x real)')\n"
                "con.executemany('insert into t (name, x) values (?, ?)', "
                "[('a', 1.5), ('b', 2.5), ('é', None)])\ncon.commit()",
                "");
  f.expect_text(*f.session, "con.execute('select count(*), sum(x) from t').fetchone()", "(3, 4.0)");
  f.expect_text(*f.session,
                "with con:\n    con.execute(\"update t set x = 10 where name = 'b'\")\n"
                "repr(con.execute('select name, x from t order by id').fetchall())",
                "\"[('a', 1.5), ('b', 10.0), ('é', None)]\"");
  // A rolled-back transaction leaves the file as it was.
  f.expect_text(*f.session,
                "con.execute(\"insert into t (name) values ('gone')\")\ncon.rollback()\n"
                "con.execute('select count(*) from t').fetchone()[0]",
                "3");
  EXPECT_FALSE(f.session->can_snapshot());
  f.expect_text(*f.session, "con.close()", "");
  ASSERT_TRUE(f.session->can_snapshot());
  EXPECT_TRUE(f.workspace().exists("/workspace/app.db"));
  EXPECT_FALSE(f.workspace().exists("/workspace/app.db-journal"));
  auto restored = f.restore();
  f.expect_text(*restored,
                "from contextlib import closing\n"
                "with closing(sqlite3.connect('/workspace/app.db')) as c2, c2:\n"
                "    c2.execute('insert into t (name, x) values (?, ?)', ('after', 0.25))\n"
                "    rows = c2.execute('select name, x from t order by id').fetchall()\n"
                "repr(rows)",
                "\"[('a', 1.5), ('b', 10.0), ('é', None), ('after', 0.25)]\"");
  auto again = f.restore_from(*restored);
  f.expect_text(*again,
                "with closing(sqlite3.connect('/workspace/app.db')) as c3:\n"
                "    n = c3.execute('select count(*) from t').fetchone()[0]\nn",
                "4");
}

// lzma's default preset (6) compresses as native CPython does: the same bytes, with the
// one-shot functions, the streaming classes and zipfile's ZIP_LZMA (whose LZMA1 filter takes
// preset 6's settings). Its encoder needs 93 MiB on top of CPython's 10 MiB, within the 128 MiB
// memory cap (docs/languages.md#python-memory). An LZMACompressor holds its encoder until it is
// freed, so `e` is deleted before the next compression.
TEST(PythonBatteries, LzmaDefaultPresetCompressesAsNative) {
  expect_same_as_native(R"py(import hashlib, io, lzma, zipfile
data = b'x' * 100000
c = lzma.compress(data)
print(len(c), hashlib.sha256(c).hexdigest())
print(lzma.decompress(c) == data)
d = lzma.LZMADecompressor()
print(d.decompress(c) == data, d.eof)
e = lzma.LZMACompressor()
s = b''.join(e.compress(data[i:i + 7000]) for i in range(0, len(data), 7000)) + e.flush()
print(s == c)
del e
c = lzma.compress(data, format=lzma.FORMAT_ALONE)
print(len(c), hashlib.sha256(c).hexdigest(), lzma.decompress(c) == data)
buf = io.BytesIO()
with zipfile.ZipFile(buf, 'w', zipfile.ZIP_LZMA) as z:
    z.writestr(zipfile.ZipInfo('x.bin', (2024, 1, 2, 3, 4, 6)), data)
print(len(buf.getvalue()), hashlib.sha256(buf.getvalue()).hexdigest())
with zipfile.ZipFile(buf) as z:
    print(z.read('x.bin') == data)
)py");
}

// Presets 0-6 fit the 128 MiB cap; the encoders of 7-9 need 185-673 MiB: a MemoryError, and the
// sandbox carries on. So do two preset-6 compressors alive at once (186 MiB); freeing the first
// makes room for the second. Decompression needs at most 65 MiB (preset 9's 64 MiB dictionary),
// so data of every preset decompresses (LzmaDataOfEveryPresetDecompresses).
TEST(PythonBatteries, LzmaPresetsBeyondTheMemoryCapRaiseMemoryError) {
  EXPECT_EQ(sandbox_stdout(R"py(import lzma
data = b'x' * 1000
for preset in range(10):
    try:
        ok = lzma.decompress(lzma.compress(data, preset=preset)) == data
        print(preset, ok)
    except MemoryError as e:
        print(preset, type(e).__name__)
print(lzma.decompress(lzma.compress(data, preset=3)) == data)
first = lzma.LZMACompressor()
try:
    second = lzma.LZMACompressor()
except MemoryError:
    print('two at once: MemoryError')
del first
second = lzma.LZMACompressor()
print(len(second.compress(data) + second.flush()))
)py"),
            "0 True\n1 True\n2 True\n3 True\n4 True\n5 True\n6 True\n7 MemoryError\n"
            "8 MemoryError\n9 MemoryError\nTrue\ntwo at once: MemoryError\n76\n");
  // Uncaught, the error is the guest's MemoryError, and the next run works.
  const EngineOutcome o =
      python().run({"import lzma\nlzma.compress(b'x' * 1000, preset=9 | lzma.PRESET_EXTREME)", {}});
  EXPECT_EQ(o.error ? o.error->name : "no error", "MemoryError");
  EXPECT_EQ(sandbox_stdout("import lzma\nprint(len(lzma.compress(b'x' * 1000)))"), "76\n");
}

TEST(PythonBatteries, LzmaDataOfEveryPresetDecompresses) {
  const std::string native = native_stdout(R"py(import lzma
data = b'%d\n' * 1000 % tuple(range(1000))
for preset in (7, 8, 9, 9 | lzma.PRESET_EXTREME):
    print(lzma.compress(data, preset=preset).hex())
)py");
  std::string program = "import lzma\nblobs = [\n";
  std::istringstream lines(native);
  std::string hex;
  int count = 0;
  while (lines >> hex) {
    program += "  bytes.fromhex('" + hex + "'),\n";
    ++count;
  }
  ASSERT_EQ(count, 4);
  program += R"py(]
want = b'%d\n' * 1000 % tuple(range(1000))
print([lzma.decompress(b) == want for b in blobs])
d = lzma.LZMADecompressor()
print(d.decompress(blobs[3]) == want, d.eof)
)py";
  EXPECT_EQ(sandbox_stdout(program), "[True, True, True, True]\nTrue True\n");
}

// In a code context: a call that compresses with the default preset, one that fails with a
// MemoryError (preset 9 extreme), and later calls in the same context, and in a context restored
// from its snapshot, still work and see the variables.
TEST(PythonBatteries, LzmaInAContextLeavesItServing) {
  testing_corpus::SnapshotFixture f(python());
  f.expect_text(*f.session,
                "import lzma\ndata = b'x' * 100000\nc = lzma.compress(data)\n"
                "(len(c), lzma.decompress(c) == data)",
                "(148, True)");
  const SessionOutcome o =
      f.session->execute({"big = lzma.compress(data, preset=9 | lzma.PRESET_EXTREME)", {}});
  EXPECT_EQ(o.error ? o.error->name : "no error", "MemoryError");
  f.expect_text(*f.session, "'big' in globals(), len(c), lzma.decompress(c) == data",
                "(False, 148, True)");
  f.expect_text(*f.session, "len(lzma.compress(data, preset=6))", "148");
  auto restored = f.restore();
  f.expect_text(*restored, "lzma.decompress(lzma.compress(data)) == data, len(c)", "(True, 148)");
}

TEST(PythonBatteries, SqlBehavesAsNative) {
  expect_same_as_native(R"py(import sqlite3
con = sqlite3.connect(':memory:')
print(sqlite3.sqlite_version)
con.execute('create table p (k text primary key, v json)')
con.executemany('insert into p values (?, ?)', [('a', '{"n": 1}'), ('b', '{"n": 2.5}')])
print(con.execute("select k, json_extract(v, '$.n') * 2 from p order by k").fetchall())
print(con.execute("select printf('%.3f|%e|%g', 3.14159, 1e10/3, 1/3.0)").fetchone())
print(con.execute('select cast(0.1 + 0.2 as text), 7 / 2, 7 % 3, -7 / 2').fetchone())
print(con.execute("select upper('straße'), like('A%', 'abc'), soundex('Robert')").fetchone())
con.execute('create virtual table docs using fts4(body)')
con.execute("insert into docs values ('the quick brown fox'), ('lazy dogs')")
print(con.execute("select body from docs where docs match 'quick'").fetchall())
print(con.execute('pragma journal_mode').fetchone())
try:
    con.execute('select * from missing')
except sqlite3.OperationalError as e:
    print('OperationalError', e)
print(list(con.iterdump())[:3])
)py");
}

TEST(PythonBatteries, TimeZoneConversionsEqualNative) {
  expect_same_as_native(R"py(from datetime import datetime, timedelta, timezone
from zoneinfo import ZoneInfo
import zoneinfo
zones = ['UTC', 'Europe/Paris', 'America/New_York', 'Asia/Kolkata', 'Australia/Lord_Howe',
         'America/Sao_Paulo', 'Pacific/Chatham', 'Europe/London']
moments = [datetime(2024, m, d, h, 30, tzinfo=timezone.utc)
           for m, d, h in ((1, 15, 12), (3, 10, 6), (3, 10, 7), (3, 31, 0), (3, 31, 1),
                           (7, 1, 0), (10, 27, 0), (10, 27, 1), (11, 3, 5), (11, 3, 6))]
for z in zones:
    tz = ZoneInfo(z)
    for m in moments:
        local = m.astimezone(tz)
        print(z, local.isoformat(), local.tzname(), local.utcoffset(), local.dst())
# Wall times in a gap and a fold, both ways.
paris, ny = ZoneInfo('Europe/Paris'), ZoneInfo('America/New_York')
for wall in (datetime(2024, 3, 31, 2, 30), datetime(2024, 10, 27, 2, 30)):
    for fold in (0, 1):
        d = wall.replace(tzinfo=paris, fold=fold)
        print(d.isoformat(), d.tzname(), d.astimezone(timezone.utc).isoformat())
d = datetime(2024, 11, 3, 1, 30, tzinfo=ny)
print(d.tzname(), d.replace(fold=1).tzname(), (d + timedelta(hours=1)).tzname())
print(datetime(1950, 6, 1, tzinfo=paris).utcoffset(), datetime(2100, 6, 1, tzinfo=ny).tzname())
print(ZoneInfo('US/Eastern').utcoffset(datetime(2024, 7, 1)), ZoneInfo('Etc/GMT+5'))
print(sorted(zoneinfo.available_timezones() & set(zones)))
try:
    ZoneInfo('Mars/Olympus_Mons')
except zoneinfo.ZoneInfoNotFoundError as e:
    print('ZoneInfoNotFoundError', e)
)py");
}

}  // namespace
}  // namespace sandbox
