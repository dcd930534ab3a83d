#!/usr/bin/env python3
"""scripts/fetch/debian-source.sh against a pool served on loopback (docs/languages.md#archive-churn).

A source package built here with dpkg-source is served from a temporary archive's pool; apt is
skipped (SANDBOX_DEBIAN_APT=0), so every download goes through the pool path. Checks: a pinned
version is fetched, verified and unpacked; the cache then builds without the archive; a .dsc
whose sha256 differs from the pin is refused; a version the archive no longer holds stops with
the message that names the pin to update.
"""
import hashlib
import os
import subprocess
import tempfile

from loopback_pool import check, serve

SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts", "fetch",
                      "debian-source.sh")


def make_package(root):
    """Builds fakepkg 1.0 (3.0 native) in root/pool/main/f/fakepkg; returns the .dsc's sha256."""
    src = os.path.join(root, "src", "fakepkg-1.0")
    os.makedirs(os.path.join(src, "debian", "source"))
    files = {
        "hello.txt": "hello from the pool\n",
        "debian/source/format": "3.0 (native)\n",
        "debian/control": "Source: fakepkg\nMaintainer: Test <t@example.invalid>\n\n"
                          "Package: fakepkg\nArchitecture: all\nDescription: test\n test\n",
        "debian/changelog": "fakepkg (1.0) unstable; urgency=low\n\n  * Test.\n\n"
                            " -- Test <t@example.invalid>  Thu, 03 Dec 2026 00:00:00 +0000\n",
    }
    for name, text in files.items():
        with open(os.path.join(src, name), "w") as f:
            f.write(text)
    pool = os.path.join(root, "archive", "pool", "main", "f", "fakepkg")
    os.makedirs(pool)
    subprocess.run(["dpkg-source", "-b", "fakepkg-1.0"], cwd=os.path.join(root, "src"),
                   check=True, capture_output=True)
    for name in os.listdir(os.path.join(root, "src")):
        if name.startswith("fakepkg_"):
            os.rename(os.path.join(root, "src", name), os.path.join(pool, name))
    with open(os.path.join(pool, "fakepkg_1.0.dsc"), "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def fetch(root, version, sha, mirror):
    env = dict(os.environ, SANDBOX_DEBIAN_APT="0", SANDBOX_DEBIAN_MIRRORS=mirror)
    return subprocess.run(
        ["bash", SCRIPT, "--name", "fakepkg", "--version", version, "--dsc-sha256", sha,
         "--cache", os.path.join(root, "cache"), "--dest", os.path.join(root, "out", version)],
        env=env, capture_output=True, text=True, timeout=120)


def main():
    with tempfile.TemporaryDirectory() as root:
        sha = make_package(root)
        server = serve(os.path.join(root, "archive"))
        mirror = f"http://127.0.0.1:{server.server_address[1]}"
        # An archive that is down (nothing listens on port 9 of loopback) is skipped.
        both = f"http://127.0.0.1:9 {mirror}"

        r = fetch(root, "1.0", sha, both)
        check(r.returncode == 0, "a pinned version in the pool is fetched and unpacked", r)
        with open(os.path.join(root, "out", "1.0", "hello.txt")) as f:
            check(f.read() == "hello from the pool\n", "the unpacked tree holds the package", r)

        server.shutdown()
        r = fetch(root, "1.0", sha, "http://127.0.0.1:9")
        check(r.returncode == 0, "the verified cache builds without the archive", r)

        server = serve(os.path.join(root, "archive"))
        mirror = f"http://127.0.0.1:{server.server_address[1]}"
        r = fetch(root, "1.0", "0" * 64, mirror)
        check(r.returncode != 0 and "expected " + "0" * 64 in r.stderr and
              "update the pin deliberately" in r.stderr, "a cached .dsc of another sha256 is refused", r)

        env_root = os.path.join(root, "fresh")
        os.makedirs(env_root)
        r = fetch(env_root, "1.0", "0" * 64, mirror)
        check(r.returncode != 0 and "the archive holds a different .dsc" in r.stderr,
              "a downloaded .dsc of another sha256 is refused", r)

        r = fetch(env_root, "0.9", sha, mirror)
        check(r.returncode != 0 and "is in none of the archives tried" in r.stderr and
              "Update the pin" in r.stderr and "fakepkg_0.9.dsc" in r.stderr,
              "a version that left the archive names the pin to update", r)
        server.shutdown()


if __name__ == "__main__":
    main()
