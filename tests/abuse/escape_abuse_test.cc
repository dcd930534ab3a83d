// Escapes from /workspace and /stdlib, in every language, against the real sandboxd: reading host
// files (/etc/passwd, a canary beside the server's database) by absolute paths, ../ chains and
// the other preopens; writing, renaming and deleting outside /workspace; symbolic and hard links
// pointing out; and writing into the shared read-only /stdlib tree. Each program reports every
// attempt ("denied ..." or "READ/WROTE ...") and ends with DONE, so a program that did not run
// cannot pass. The fixture then checks the host (canary, no new files).
#include <map>
#include <regex>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "abuse/abuse_fixture.h"

namespace sandbox::test {
namespace {

using EscapeAbuse = AbuseTest;

// Paths that lead out of the guest's three directories, seen from cwd /workspace.
std::vector<std::string> outside_read_paths(const std::string& canary) {
  return {"/etc/passwd",
          canary,
          "../../../../../../../.." + canary,
          "/workspace/../../../.." + canary,
          "/stdlib/../../../.." + canary,
          "/dev/../../../.." + canary,
          "/proc/self/environ",
          "/proc/self/cmdline",
          "../../../../../../../../etc/passwd"};
}

// Tries to read each path of PATHS, printing "READ <path>" or "denied <path>", then DONE.
const std::map<std::string, std::string> kReadEach = {
    {"python", R"(paths = PATHS
for p in paths:
    try:
        with open(p, 'rb') as f:
            data = f.read(300)
        print('READ', p, data)
    except BaseException as e:
        print('denied', p, type(e).__name__)
print('DONE'))"},
    {"javascript", R"(const paths = PATHS;
for (const p of paths) {
  try { const d = fs.readFileSync(p, 'utf8'); console.log('READ', p, String(d).slice(0, 300)); }
  catch (e) { console.log('denied', p, e.code || e.name); }
}
console.log('DONE'))"},
    {"lua", R"(local paths = PATHS
for _, p in ipairs(paths) do
  local f, err = io.open(p, 'rb')
  local data = f and f:read(300)
  if f then f:close() end
  if data then print('READ', p, data) else print('denied', p, err) end
end
print('DONE'))"},
    {"ruby", R"(paths = PATHS
paths.each do |p|
  begin
    d = File.binread(p, 300)
    puts "READ #{p} #{d}"
  rescue Exception => e
    puts "denied #{p} #{e.class}"
  end
end
puts 'DONE'
nil)"},
    {"perl", R"(my @paths = PATHS;
for my $p (@paths) {
  if (open(my $fh, '<', $p)) { my $d = ''; read($fh, $d, 300); print "READ $p $d\n"; }
  else { print "denied $p $!\n"; }
}
print "DONE\n"; undef)"},
};

// Checks the report of a kReadEach/kWriteEach-style program: it ran to DONE, and no attempt
// printed `success_word`.
void expect_all_denied(const Reply& r, const std::string& success_word) {
  ASSERT_EQ(r.status, 200) << r.describe();
  EXPECT_FALSE(r.has_error()) << r.describe();
  const std::string out = r.stdout_text();
  EXPECT_NE(out.find("DONE"), std::string::npos) << "the program did not finish: " << r.describe();
  EXPECT_EQ(out.find(success_word + " "), std::string::npos) << out;
  EXPECT_NE(out.find("denied"), std::string::npos) << out;
}

TEST_P(EscapeAbuse, ReadingOutsideTheWorkspaceIsDenied) {
  const std::string code = replace_all(
      program(kReadEach), "PATHS", list_literal(language(), outside_read_paths(canary_.string())));
  for (const bool in_context : {true, false}) {
    const Reply r =
        in_context ? api_->execute("reader", binding(), code) : api_->run(language(), code);
    SCOPED_TRACE(in_context ? "context" : "stateless");
    expect_all_denied(r, "READ");
    expect_no_host_data(r);
  }
}

// Tries to write each path of PATHS (create or overwrite), printing "WROTE <path>" or "denied".
const std::map<std::string, std::string> kWriteEach = {
    {"python", R"(paths = PATHS
for p in paths:
    try:
        with open(p, 'w') as f:
            f.write('pwned')
        print('WROTE', p)
    except BaseException as e:
        print('denied', p, type(e).__name__)
print('DONE'))"},
    {"javascript", R"(const paths = PATHS;
for (const p of paths) {
  try { fs.writeFileSync(p, 'pwned'); console.log('WROTE', p); }
  catch (e) { console.log('denied', p, e.code || e.name); }
}
console.log('DONE'))"},
    {"lua", R"(local paths = PATHS
for _, p in ipairs(paths) do
  local f, err = io.open(p, 'w')
  local ok = f and f:write('pwned') and f:close()
  if ok then print('WROTE', p) else print('denied', p, err) end
end
print('DONE'))"},
    {"ruby", R"(paths = PATHS
paths.each do |p|
  begin
    File.write(p, 'pwned')
    puts "WROTE #{p}"
  rescue Exception => e
    puts "denied #{p} #{e.class}"
  end
end
puts 'DONE'
nil)"},
    {"perl", R"(my @paths = PATHS;
for my $p (@paths) {
  if (open(my $fh, '>', $p) and print {$fh} 'pwned' and close($fh)) { print "WROTE $p\n"; }
  else { print "denied $p $!\n"; }
}
print "DONE\n"; undef)"},
};

TEST_P(EscapeAbuse, WritingOutsideTheWorkspaceIsDenied) {
  const std::string canary = canary_.string();
  const std::vector<std::string> paths = {
      canary,
      "../../../../../../../.." + canary,
      "/workspace/../../../.." + canary,
      host_.file("escaped.txt"),
      "../../../../../../../.." + host_.file("escaped.txt"),
      "/tmp/escaped-" + token_ + ".txt",
      "../../../../../../../../tmp/escaped-" + token_ + ".txt",
      "../escaped-" + token_ + ".txt",
      "/escaped-" + token_ + ".txt",
      "/stdlib/escaped.txt",
      "/stdlib/../tmp/escaped-" + token_ + ".txt",
      "/dev/escaped.txt",
      "/dev/../tmp/escaped-" + token_ + ".txt",
  };
  const std::string code =
      replace_all(program(kWriteEach), "PATHS", list_literal(language(), paths));
  const Reply r = api_->execute("writer", binding(), code);
  expect_all_denied(r, "WROTE");
  EXPECT_FALSE(std::filesystem::exists(host_.file("escaped.txt")));
}

// Renames, deletes and directories outside /workspace, and a rename of a workspace file out of it.
const std::map<std::string, std::string> kMoveOut = {
    {"python", R"(import os, shutil
open('/workspace/mine.txt', 'w').write('mine')
attempts = [
    ('remove canary', lambda: os.remove('{CANARY}')),
    ('rename canary in', lambda: os.rename('{CANARY}', '/workspace/stolen.txt')),
    ('rename out', lambda: os.rename('/workspace/mine.txt', '{HOSTDIR}/escaped.txt')),
    ('rename up', lambda: os.rename('/workspace/mine.txt', '../escaped-{TOKEN}.txt')),
    ('mkdir tmp', lambda: os.mkdir('/tmp/escaped-dir-{TOKEN}')),
    ('mkdir up', lambda: os.mkdir('../../../../tmp/escaped-dir-{TOKEN}')),
    ('mkdir stdlib', lambda: os.mkdir('/stdlib/escaped-dir')),
    ('rmdir hostdir', lambda: os.rmdir('{HOSTDIR}')),
    ('rmtree up', lambda: shutil.rmtree('/workspace/../../..{HOSTDIR}')),
    ('chdir up', lambda: (os.chdir('/workspace/../../../..{HOSTDIR}'), open('canary.txt').read())),
]
for name, f in attempts:
    try:
        f()
        print('DID', name)
    except BaseException as e:
        print('denied', name, type(e).__name__)
print('DONE'))"},
    {"javascript", R"(fs.writeFileSync('/workspace/mine.txt', 'mine');
const attempts = [
  ['remove canary', () => fs.unlinkSync('{CANARY}')],
  ['rename canary in', () => fs.renameSync('{CANARY}', '/workspace/stolen.txt')],
  ['rename out', () => fs.renameSync('/workspace/mine.txt', '{HOSTDIR}/escaped.txt')],
  ['rename up', () => fs.renameSync('/workspace/mine.txt', '../escaped-{TOKEN}.txt')],
  ['mkdir tmp', () => fs.mkdirSync('/tmp/escaped-dir-{TOKEN}')],
  ['mkdir up', () => fs.mkdirSync('../../../../tmp/escaped-dir-{TOKEN}')],
  ['mkdir stdlib', () => fs.mkdirSync('/stdlib/escaped-dir')],
  ['rm hostdir', () => fs.rmSync('/workspace/../../..{HOSTDIR}', {recursive: true})],
  ['chdir up', () => { process.chdir('/workspace/../../../..{HOSTDIR}'); return fs.readFileSync('canary.txt', 'utf8'); }],
];
for (const [name, f] of attempts) {
  try { f(); console.log('DID', name); }
  catch (e) { console.log('denied', name, e.code || e.name); }
}
console.log('DONE'))"},
    {"lua", R"(local f = assert(io.open('/workspace/mine.txt', 'w')); f:write('mine'); f:close()
local attempts = {
  {'remove canary', function() return os.remove('{CANARY}') end},
  {'rename canary in', function() return os.rename('{CANARY}', '/workspace/stolen.txt') end},
  {'rename out', function() return os.rename('/workspace/mine.txt', '{HOSTDIR}/escaped.txt') end},
  {'rename up', function() return os.rename('/workspace/mine.txt', '../escaped-{TOKEN}.txt') end},
  {'remove hostdir', function() return os.remove('{HOSTDIR}') end},
}
for _, a in ipairs(attempts) do
  local ok, res, err = pcall(a[2])
  if ok and res then print('DID', a[1]) else print('denied', a[1], err or res) end
end
print('DONE'))"},
    {"ruby", R"(File.write('/workspace/mine.txt', 'mine')
attempts = {
  'remove canary' => -> { File.unlink('{CANARY}') },
  'rename canary in' => -> { File.rename('{CANARY}', '/workspace/stolen.txt') },
  'rename out' => -> { File.rename('/workspace/mine.txt', '{HOSTDIR}/escaped.txt') },
  'rename up' => -> { File.rename('/workspace/mine.txt', '../escaped-{TOKEN}.txt') },
  'mkdir tmp' => -> { Dir.mkdir('/tmp/escaped-dir-{TOKEN}') },
  'mkdir up' => -> { Dir.mkdir('../../../../tmp/escaped-dir-{TOKEN}') },
  'mkdir stdlib' => -> { Dir.mkdir('/stdlib/escaped-dir') },
  'rmdir hostdir' => -> { Dir.rmdir('{HOSTDIR}') },
  'chdir up' => -> { Dir.chdir('/workspace/../../../..{HOSTDIR}'); File.read('canary.txt') },
}
attempts.each do |name, f|
  begin
    f.call
    puts "DID #{name}"
  rescue Exception => e
    puts "denied #{name} #{e.class}"
  end
end
puts 'DONE'
nil)"},
    {"perl", R"(open(my $m, '>', '/workspace/mine.txt') or die "$!"; print $m 'mine'; close $m;
my @attempts = (
  ['remove canary', sub { unlink('{CANARY}') }],
  ['rename canary in', sub { rename('{CANARY}', '/workspace/stolen.txt') }],
  ['rename out', sub { rename('/workspace/mine.txt', '{HOSTDIR}/escaped.txt') }],
  ['rename up', sub { rename('/workspace/mine.txt', '../escaped-{TOKEN}.txt') }],
  ['mkdir tmp', sub { mkdir('/tmp/escaped-dir-{TOKEN}') }],
  ['mkdir up', sub { mkdir('../../../../tmp/escaped-dir-{TOKEN}') }],
  ['mkdir stdlib', sub { mkdir('/stdlib/escaped-dir') }],
  ['rmdir hostdir', sub { rmdir('{HOSTDIR}') }],
  ['chdir up', sub { chdir('/workspace/../../../..{HOSTDIR}') && open(my $c, '<', 'canary.txt') }],
);
for my $a (@attempts) {
  my $ok = eval { $a->[1]->() };
  if ($ok) { print "DID $a->[0]\n" } else { print "denied $a->[0] $! $@\n" }
}
print "DONE\n"; undef)"},
};

TEST_P(EscapeAbuse, RenamesDeletesAndDirectoriesOutsideTheWorkspaceAreDenied) {
  const std::string code = program(kMoveOut);
  if (code.empty()) GTEST_SKIP();
  const Reply r = api_->execute("mover", binding(), code);
  expect_all_denied(r, "DID");
  expect_no_host_data(r);
  // The workspace file that was to be moved out is still in the workspace.
  const Reply mine = api_->read_file("mover", "/workspace/mine.txt");
  EXPECT_EQ(mine.status, 200) << mine.describe();
  const Reply stolen = api_->read_file("mover", "/workspace/stolen.txt");
  EXPECT_EQ(stolen.status, 404) << stolen.describe();
}

// Symbolic and hard links to host paths, then reads through them.
const std::map<std::string, std::string> kLinks = {
    {"python", R"(import os
tries = [
    ('symlink passwd', lambda: os.symlink('/etc/passwd', '/workspace/l1')),
    ('symlink canary', lambda: os.symlink('{CANARY}', '/workspace/l2')),
    ('symlink up', lambda: os.symlink('../../../../../..', '/workspace/up')),
    ('symlink stdlib', lambda: os.symlink('/stdlib', '/workspace/lib')),
    ('hardlink canary', lambda: os.link('{CANARY}', '/workspace/h1')),
    ('read l1', lambda: open('/workspace/l1').read()),
    ('read l2', lambda: open('/workspace/l2').read()),
    ('read up', lambda: open('/workspace/up{CANARY}').read()),
    ('read h1', lambda: open('/workspace/h1').read()),
    ('write via up', lambda: open('/workspace/up{HOSTDIR}/escaped.txt', 'w').write('x')),
]
for name, f in tries:
    try:
        f()
        print('DID', name)
    except BaseException as e:
        print('denied', name, type(e).__name__)
print('DONE'))"},
    {"ruby", R"(tries = {
  'symlink passwd' => -> { File.symlink('/etc/passwd', '/workspace/l1') },
  'symlink canary' => -> { File.symlink('{CANARY}', '/workspace/l2') },
  'symlink up' => -> { File.symlink('../../../../../..', '/workspace/up') },
  'hardlink canary' => -> { File.link('{CANARY}', '/workspace/h1') },
  'read l1' => -> { File.read('/workspace/l1') },
  'read l2' => -> { File.read('/workspace/l2') },
  'read up' => -> { File.read('/workspace/up{CANARY}') },
  'read h1' => -> { File.read('/workspace/h1') },
  'write via up' => -> { File.write('/workspace/up{HOSTDIR}/escaped.txt', 'x') },
}
tries.each do |name, f|
  begin
    f.call
    puts "DID #{name}"
  rescue Exception => e
    puts "denied #{name} #{e.class}"
  end
end
puts 'DONE'
nil)"},
    {"perl", R"(my @tries = (
  ['symlink passwd', sub { symlink('/etc/passwd', '/workspace/l1') }],
  ['symlink canary', sub { symlink('{CANARY}', '/workspace/l2') }],
  ['symlink up', sub { symlink('../../../../../..', '/workspace/up') }],
  ['hardlink canary', sub { link('{CANARY}', '/workspace/h1') }],
  ['read l1', sub { open(my $f, '<', '/workspace/l1') }],
  ['read l2', sub { open(my $f, '<', '/workspace/l2') }],
  ['read up', sub { open(my $f, '<', '/workspace/up{CANARY}') }],
  ['read h1', sub { open(my $f, '<', '/workspace/h1') }],
  ['write via up', sub { open(my $f, '>', '/workspace/up{HOSTDIR}/escaped.txt') }],
);
for my $t (@tries) {
  my $ok = eval { $t->[1]->() };
  if ($ok) { print "DID $t->[0]\n" } else { print "denied $t->[0] $!\n" }
}
print "DONE\n"; undef)"},
};

TEST_P(EscapeAbuse, LinksDoNotLeadOutOfTheWorkspace) {
  const std::string code = program(kLinks);
  if (code.empty()) GTEST_SKIP() << "no link functions in " << language();
  const Reply r = api_->execute("linker", binding(), code);
  expect_all_denied(r, "DID");
  expect_no_host_data(r);
}

// Finds the first regular file under /stdlib and prints "FILE <path> <size> <first bytes hex>"
// ("FILE  none" when the engine mounts no library files);
// with ATTACK set, then tries to change, truncate, delete or rename it and to create files
// beside it, printing "DID <attempt>" for any that succeeded.
const std::map<std::string, std::string> kStdlibTamper = {
    {"python", R"(import os
ATTACK = {ATTACK}
target = None
for root, dirs, files in os.walk('/stdlib'):
    dirs.sort()
    for name in sorted(files):
        target = os.path.join(root, name)
        break
    if target:
        break
def fingerprint():
    if target is None:
        return 'none'
    with open(target, 'rb') as f:
        return '%d %s' % (os.path.getsize(target), f.read(32).hex())
print('FILE', target, fingerprint())
if ATTACK:
    tries = [
        ('append', lambda: open(target, 'ab').write(b'HACKED')),
        ('overwrite', lambda: open(target, 'r+b').write(b'HACKED')),
        ('truncate', lambda: open(target, 'wb').write(b'')),
        ('os.truncate', lambda: os.truncate(target, 0)),
        ('remove', lambda: os.remove(target)),
        ('rename', lambda: os.rename(target, target + '.x')),
        ('create', lambda: open('/stdlib/evil.txt', 'w').write('x')),
        ('create beside', lambda: open(os.path.join(os.path.dirname(target or '/stdlib/x'), 'evil.py'), 'w').write('x')),
        ('mkdir', lambda: os.mkdir('/stdlib/evil')),
    ]
    for name, f in tries:
        try:
            f()
            print('DID', name)
        except BaseException as e:
            print('denied', name, type(e).__name__)
    print('FILE', target, fingerprint())
print('DONE'))"},
    {"javascript", R"(const ATTACK = {ATTACK};
const find = (dir) => {
  let names = [];
  try { names = fs.readdirSync(dir).sort(); } catch (e) { return null; }
  for (const n of names) {
    const p = dir + '/' + n;
    if (fs.statSync(p).isFile()) return p;
  }
  for (const n of names) {
    const p = dir + '/' + n;
    if (fs.statSync(p).isDirectory()) { const f = find(p); if (f) return f; }
  }
  return null;
};
const target = find('/stdlib');
const fingerprint = () => {
  if (!target) return 'none';
  const b = fs.readFileSync(target);
  return b.length + ' ' + Array.from(b.slice(0, 32), (x) => x.toString(16).padStart(2, '0')).join('');
};
console.log('FILE ' + (target || '') + ' ' + fingerprint());
if (ATTACK) {
  const tries = [
    ['append', () => fs.appendFileSync(target, 'HACKED')],
    ['overwrite', () => fs.writeFileSync(target, 'HACKED')],
    ['remove', () => fs.unlinkSync(target)],
    ['rename', () => fs.renameSync(target, target + '.x')],
    ['create', () => fs.writeFileSync('/stdlib/evil.txt', 'x')],
    ['mkdir', () => fs.mkdirSync('/stdlib/evil')],
  ];
  for (const [name, f] of tries) {
    try { f(); console.log('DID', name); }
    catch (e) { console.log('denied', name, e.code || e.name); }
  }
  console.log('FILE ' + (target || '') + ' ' + fingerprint());
}
console.log('DONE'))"},
    {"ruby", R"(ATTACK = {ATTACK}
target = Dir.glob('/stdlib/**/*').sort.find { |p| File.file?(p) }
fingerprint = -> { target ? "#{File.size(target)} #{File.binread(target, 32).unpack1('H*')}" : 'none' }
puts "FILE #{target} #{fingerprint.call}"
if ATTACK
  tries = {
    'append' => -> { File.open(target, 'ab') { |f| f.write('HACKED') } },
    'overwrite' => -> { File.open(target, 'r+b') { |f| f.write('HACKED') } },
    'truncate' => -> { File.open(target, 'wb') { |f| f.write('') } },
    'remove' => -> { File.unlink(target) },
    'rename' => -> { File.rename(target, target + '.x') },
    'create' => -> { File.write('/stdlib/evil.txt', 'x') },
    'create beside' => -> { File.write(File.join(File.dirname(target || '/stdlib/x'), 'evil.rb'), 'x') },
    'mkdir' => -> { Dir.mkdir('/stdlib/evil') },
  }
  tries.each do |name, f|
    begin
      f.call
      puts "DID #{name}"
    rescue Exception => e
      puts "denied #{name} #{e.class}"
    end
  end
  puts "FILE #{target} #{fingerprint.call}"
end
puts 'DONE'
nil)"},
    {"perl", R"(my $ATTACK = {ATTACK};
my @todo = ('/stdlib'); my $target;
while (!$target && @todo) {
  my $d = shift @todo;
  opendir(my $dh, $d) or next;
  for my $n (sort grep { !/^\.\.?$/ } readdir $dh) {
    my $p = "$d/$n";
    if (-f $p) { $target = $p; last } elsif (-d $p) { push @todo, $p }
  }
}
sub fingerprint { return 'none' unless defined $target; open(my $f, '<:raw', $target) or return "unreadable $!"; my $b = ''; read($f, $b, 32); (-s $target) . ' ' . unpack('H*', $b) }
print "FILE ", ($target // ''), ' ', fingerprint(), "\n";
if ($ATTACK) {
  (my $dir = $target // '/stdlib/x') =~ s{/[^/]+$}{};
  my @tries = (
    ['append', sub { open(my $f, '>>', $target) and print {$f} 'HACKED' and close $f }],
    ['overwrite', sub { open(my $f, '+<', $target) and print {$f} 'HACKED' and close $f }],
    ['truncate', sub { open(my $f, '>', $target) and close $f }],
    ['truncate()', sub { truncate($target, 0) }],
    ['remove', sub { unlink($target) }],
    ['rename', sub { rename($target, "$target.x") }],
    ['create', sub { open(my $f, '>', '/stdlib/evil.txt') }],
    ['create beside', sub { open(my $f, '>', "$dir/evil.pm") }],
    ['mkdir', sub { mkdir('/stdlib/evil') }],
  );
  for my $t (@tries) {
    my $ok = eval { $t->[1]->() };
    if ($ok) { print "DID $t->[0]\n" } else { print "denied $t->[0] $!\n" }
  }
  print "FILE ", ($target // ''), ' ', fingerprint(), "\n";
}
print "DONE\n"; undef)"},
};

// The FILE lines of a kStdlibTamper report.
std::vector<std::string> file_lines(const std::string& out) {
  std::vector<std::string> lines;
  std::size_t at = 0;
  while ((at = out.find("FILE ", at)) != std::string::npos) {
    const std::size_t end = out.find('\n', at);
    lines.push_back(out.substr(at, end - at));
    at = end;
  }
  return lines;
}

TEST_P(EscapeAbuse, TheSharedStdlibCannotBeChanged) {
  const std::string code = program(kStdlibTamper);
  if (code.empty()) GTEST_SKIP() << language() << " mounts no library files to tamper with";
  const bool perl = language() == "perl";
  const std::string attack_true = language() == "python" ? "True" : (perl ? "1" : "true");
  const std::string attack_false = language() == "python" ? "False" : (perl ? "0" : "false");
  const Reply attack =
      api_->execute("tamper", binding(), replace_all(code, "{ATTACK}", attack_true));
  expect_all_denied(attack, "DID");
  const auto seen = file_lines(attack.stdout_text());
  ASSERT_EQ(seen.size(), 2u) << attack.describe();
  EXPECT_EQ(seen[0], seen[1]) << "the stdlib file changed within the attacking context";
  // Another sandbox and a stateless run, sharing the same tree, see the original bytes.
  const Reply other =
      api_->execute("bystander", binding(), replace_all(code, "{ATTACK}", attack_false));
  ASSERT_EQ(file_lines(other.stdout_text()).size(), 1u) << other.describe();
  EXPECT_EQ(file_lines(other.stdout_text())[0], seen[0]);
  const Reply stateless = api_->run(language(), replace_all(code, "{ATTACK}", attack_false));
  ASSERT_EQ(file_lines(stateless.stdout_text()).size(), 1u) << stateless.describe();
  EXPECT_EQ(file_lines(stateless.stdout_text())[0], seen[0]);
}

INSTANTIATE_TEST_SUITE_P(Languages, EscapeAbuse, ::testing::ValuesIn(abuse_languages()),
                         language_name);

}  // namespace
}  // namespace sandbox::test
