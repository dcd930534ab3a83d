#!/usr/bin/env python3
"""scripts/fetch/debian-pool-file.sh against a pool served on loopback (docs/languages.md#archive-churn).

A tarball with a quilt series and a .deb built here with dpkg-deb are served from a temporary
archive's pool. Checks: a pinned tarball is fetched, verified, unpacked (leading directory
stripped) and patched; the cache then unpacks without the archive; a .deb is unpacked with
dpkg-deb -x; a cached file and a downloaded file of another sha256 are refused; a file the
archive no longer holds stops with the message that names the pin to update.
"""
import hashlib
import os
import subprocess
import tarfile
import tempfile

from loopback_pool import check, serve

SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts", "fetch",
                      "debian-pool-file.sh")
POOL = "pool/main/f/fakepkg"


def sha256_of(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def make_pool(root):
    """Writes fakepkg_1.0.orig.tar.gz, its debian/ directory and fakepkg_1.0-1_all.deb."""
    pool = os.path.join(root, "archive", POOL)
    os.makedirs(pool)
    src = os.path.join(root, "src", "fakepkg-1.0")
    write(os.path.join(src, "hello.txt"), "hello from the pool\n")
    with tarfile.open(os.path.join(pool, "fakepkg_1.0.orig.tar.gz"), "w:gz") as tar:
        tar.add(src, arcname="fakepkg-1.0")
    debian = os.path.join(root, "debian")
    write(os.path.join(debian, "patches", "series"), "# applied in order\n0001-greet.patch\n")
    write(os.path.join(debian, "patches", "0001-greet.patch"),
          "--- a/hello.txt\n+++ b/hello.txt\n@@ -1 +1 @@\n-hello from the pool\n"
          "+hello from the patched pool\n")
    deb = os.path.join(root, "deb")
    write(os.path.join(deb, "usr", "src", "fakepkg", "fake.c"), "int fake(void) { return 1; }\n")
    write(os.path.join(deb, "DEBIAN", "control"),
          "Package: fakepkg-src\nVersion: 1.0-1\nArchitecture: all\n"
          "Maintainer: Test <t@example.invalid>\nDescription: test\n test\n")
    subprocess.run(["dpkg-deb", "--root-owner-group", "-b", deb,
                    os.path.join(pool, "fakepkg-src_1.0-1_all.deb")], check=True,
                   capture_output=True)
    return debian


def fetch(root, path, sha, mirror, dest, *extra):
    env = dict(os.environ, SANDBOX_DEBIAN_MIRRORS=mirror)
    return subprocess.run(
        ["bash", SCRIPT, "--path", path, "--sha256", sha, "--cache", os.path.join(root, "cache"),
         "--dest", os.path.join(root, "out", dest), *extra],
        env=env, capture_output=True, text=True, timeout=120)


def read(path):
    with open(path) as f:
        return f.read()


def main():
    with tempfile.TemporaryDirectory() as root:
        debian = make_pool(root)
        archive = os.path.join(root, "archive")
        tarball = f"{POOL}/fakepkg_1.0.orig.tar.gz"
        deb = f"{POOL}/fakepkg-src_1.0-1_all.deb"
        tar_sha = sha256_of(os.path.join(archive, tarball))
        deb_sha = sha256_of(os.path.join(archive, deb))
        server = serve(archive)
        mirror = f"http://127.0.0.1:{server.server_address[1]}"
        # An archive that is down (nothing listens on port 9 of loopback) is skipped.
        both = f"http://127.0.0.1:9 {mirror}"

        r = fetch(root, tarball, tar_sha, both, "tar", "--strip-components", "1",
                  "--quilt-patches", debian)
        check(r.returncode == 0, "a pinned tarball in the pool is fetched and unpacked", r)
        out = os.path.join(root, "out", "tar")
        check(read(os.path.join(out, "hello.txt")) == "hello from the patched pool\n",
              "the tree is unpacked without its top directory and the quilt series applied", r)
        check(os.path.isfile(os.path.join(out, "debian", "patches", "series")),
              "the Debian directory is copied into the tree", r)
        check(os.path.isfile(os.path.join(root, "cache", "debian-pool", tarball)),
              "the file is kept in the cache under its pool path", r)

        r = fetch(root, deb, deb_sha, mirror, "deb")
        check(r.returncode == 0, "a pinned .deb in the pool is fetched", r)
        check(read(os.path.join(root, "out", "deb", "usr", "src", "fakepkg", "fake.c")) ==
              "int fake(void) { return 1; }\n", "a .deb is unpacked with dpkg-deb -x", r)
        check(not os.path.exists(os.path.join(root, "out", "deb", "DEBIAN")),
              "a .deb's control files are not unpacked", r)

        server.shutdown()
        r = fetch(root, tarball, tar_sha, "http://127.0.0.1:9", "tar2", "--strip-components", "1")
        check(r.returncode == 0 and
              read(os.path.join(root, "out", "tar2", "hello.txt")) == "hello from the pool\n",
              "the verified cache unpacks without the archive", r)

        r = fetch(root, tarball, "0" * 64, "http://127.0.0.1:9", "tar3")
        check(r.returncode != 0 and "expected " + "0" * 64 in r.stderr and
              "update the pin deliberately" in r.stderr and
              not os.path.exists(os.path.join(root, "out", "tar3")),
              "a cached file of another sha256 is refused before unpacking", r)

        server = serve(archive)
        mirror = f"http://127.0.0.1:{server.server_address[1]}"
        fresh = os.path.join(root, "fresh")
        os.makedirs(fresh)
        r = fetch(fresh, deb, "0" * 64, mirror, "deb")
        check(r.returncode != 0 and "the archive holds a different file" in r.stderr and
              not os.path.exists(os.path.join(fresh, "out", "deb")) and
              not os.path.exists(os.path.join(fresh, "cache", "debian-pool", deb)),
              "a downloaded file of another sha256 is refused and not cached", r)

        gone = f"{POOL}/fakepkg_0.9.orig.tar.gz"
        r = fetch(fresh, gone, tar_sha, mirror, "gone")
        check(r.returncode != 0 and "is in none of the archives tried" in r.stderr and
              "Update the pin" in r.stderr and f"{mirror}/{gone}" in r.stderr and
              "tracker.debian.org/pkg/fakepkg" in r.stderr,
              "a file that left the archive names the pin to update and the URLs tried", r)
        server.shutdown()


if __name__ == "__main__":
    main()
