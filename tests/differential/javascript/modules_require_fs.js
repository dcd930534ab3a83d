// differential: workspace
// require('fs') and require('node:fs'): the same module, working below the working directory.
const fs = require('fs');
console.log(fs === require('node:fs'), typeof fs.readFileSync, typeof fs.writeFileSync);

fs.mkdirSync('require_fs_out/sub/deeper', { recursive: true });
fs.writeFileSync('require_fs_out/sub/a.txt', 'hello');
fs.appendFileSync('require_fs_out/sub/a.txt', ' world\n');
fs.writeFileSync('require_fs_out/bytes.bin', new Uint8Array([1, 2, 250]));
console.log(fs.readFileSync('require_fs_out/sub/a.txt', 'utf8').trim());
console.log(fs.readFileSync('require_fs_out/sub/a.txt', { encoding: 'utf8' }).length);
console.log(Array.from(fs.readFileSync('require_fs_out/bytes.bin')).join(','));
console.log(fs.readdirSync('require_fs_out').sort().join(','));
console.log(fs.readdirSync('require_fs_out/sub', { withFileTypes: true })
  .map((d) => `${d.name}:${d.isFile()}:${d.isDirectory()}`).sort().join(' '));

const st = fs.statSync('require_fs_out/sub/a.txt');
console.log(st.size, st.isFile(), st.isDirectory(), fs.statSync('require_fs_out/sub').isDirectory());

fs.renameSync('require_fs_out/sub/a.txt', 'require_fs_out/moved.txt');
console.log(fs.existsSync('require_fs_out/sub/a.txt'), fs.existsSync('require_fs_out/moved.txt'));

for (const attempt of [
  () => fs.readFileSync('require_fs_out/missing.txt'),
  () => fs.mkdirSync('require_fs_out/sub'),
  () => fs.rmdirSync('require_fs_out/sub'),
  () => fs.readdirSync('require_fs_out/moved.txt'),
]) {
  try {
    attempt();
    console.log('no error');
  } catch (e) {
    console.log(e.code, e.message);
  }
}

fs.unlinkSync('require_fs_out/moved.txt');
fs.rmSync('require_fs_out', { recursive: true, force: true });
fs.rmSync('require_fs_out', { force: true });
console.log(fs.existsSync('require_fs_out'));
