#!/usr/bin/env python3
"""Checks the third-party notices (docs/redistribution.md#third-party-notices).

  check_notices.py --manifest third_party_notices.json --notices THIRD_PARTY_NOTICES
                   --copyright copyright --license LICENSE [--build-dir BUILD]
                   [--program PROGRAM]...
    The expected components are derived from the manifest the fetches registered (a component
    entry as it is; an npm lock entry as every package of that lock but its devDependencies),
    not from a list kept here. THIRD_PARTY_NOTICES must have exactly one section per expected
    component, list each in its index, and hold the text of each component's licence files
    (found as the generator finds them: the registered FILES, else LICENSE*, LICENCE*,
    COPYING*, NOTICE* in its directory, else its package.json's "license"). Each PROGRAM's
    --licenses must print the file byte for byte; the copyright file must hold LICENSE and the
    notices.
    With --build-dir (a Ninja build), a fetch that registered nothing is found too: every
    step output <dir>.stamp of build.ninja whose <dir> holds an unpacked Debian source
    (debian/copyright) or binary package (usr/share/doc/*/copyright), an npm package
    (package/package.json) or an npm install (package-lock.json) must be a registered
    component's directory (or the directory of a registered npm install, or one registered as
    not shipped).

  check_notices.py --generator-self-test SandboxNoticesGenerate.cmake --cmake CMAKE
    Runs the generator over made-up components in a temporary directory: licence files found
    by name, a package.json licence, devDependencies left out, and a missing licence file
    stopping the generator with a message naming the component.
"""
import argparse
import glob
import json
import os
import re
import subprocess
import sys
import tempfile

RULE = "=" * 80
LICENCE_PREFIXES = ("LICENSE", "LICENCE", "COPYING", "NOTICE")


def read_text(path):
    with open(path, encoding="utf-8", errors="surrogateescape", newline="") as f:
        return f.read().replace("\r\n", "\n")


def licence_texts(directory, files):
    """What the section of a component in `directory` must contain: each licence file's text,
    or the package.json licence sentence."""
    if not files:
        files = sorted(name for name in os.listdir(directory)
                       if os.path.isfile(os.path.join(directory, name))
                       and name.upper().startswith(LICENCE_PREFIXES))
    if files:
        return [read_text(os.path.join(directory, f)) for f in files]
    with open(os.path.join(directory, "package.json"), encoding="utf-8") as f:
        licence = json.load(f)["license"]
    if isinstance(licence, dict):
        licence = licence["type"]
    return [f"its package.json gives its licence as: {licence}\n"]


def expected_components(manifest):
    """{"name version": (directory, files)} from the registrations."""
    expected = {}
    for entry in manifest["components"]:
        if entry["kind"] == "component":
            key = f'{entry["name"]} {entry["version"]}'
            expected.setdefault(key, (entry["dir"], entry["files"]))
        elif entry["kind"] == "npm-lock":
            with open(entry["lock"], encoding="utf-8") as f:
                lock = json.load(f)
            for path, package in lock["packages"].items():
                if not path or package.get("dev"):
                    continue
                relative = path[len("node_modules/"):]
                directory = os.path.join(entry["nodeModules"], relative)
                if package.get("optional") and not os.path.isdir(directory):
                    continue
                name = relative.rsplit("node_modules/", 1)[-1]
                expected.setdefault(f'{name} {package["version"]}', (directory, []))
        elif entry["kind"] != "not-shipped":
            raise SystemExit(f"unknown manifest entry kind {entry['kind']!r}")
    return expected


def unregistered_fetches(build_dir, manifest):
    """The unpacked fetches of the build graph that no registration names."""
    registered = set()
    for entry in manifest["components"]:
        if entry["kind"] in ("component", "not-shipped"):
            registered.add(os.path.realpath(entry["dir"]))
        elif entry["kind"] == "npm-lock":
            registered.add(os.path.realpath(os.path.dirname(entry["nodeModules"])))
    with open(os.path.join(build_dir, "build.ninja"), encoding="utf-8") as f:
        outputs = re.findall(r"^build (\S+)\.stamp[ :|]", f.read(), re.M)
    found, missing = 0, []
    for output in sorted(set(outputs)):
        directory = os.path.realpath(os.path.join(build_dir, output))
        if (os.path.isfile(os.path.join(directory, "debian", "copyright")) or
                glob.glob(os.path.join(directory, "usr", "share", "doc", "*", "copyright"))):
            candidate = directory
        elif os.path.isfile(os.path.join(directory, "package", "package.json")):
            candidate = os.path.join(directory, "package")
        elif os.path.isfile(os.path.join(directory, "package-lock.json")):
            candidate = directory
        else:
            continue  # a build step's stamp, or a fetch not unpacked yet
        found += 1
        if candidate not in registered:
            missing.append(os.path.relpath(directory, build_dir))
    return found, missing


def sections_of(notices):
    """{"name version": section text} and the index's lines."""
    index_match = re.search(r"\nComponents \((\d+)\):\n((?:  .*\n)*)", notices)
    if not index_match:
        raise SystemExit("THIRD_PARTY_NOTICES has no 'Components (N):' index")
    index = [line.strip() for line in index_match.group(2).splitlines()]
    if int(index_match.group(1)) != len(index):
        raise SystemExit(f"the index says {index_match.group(1)} components and lists {len(index)}")
    sections = {}
    parts = notices.split("\n" + RULE + "\n")
    # parts: the preamble, then a heading and a body in turn.
    for heading, body in zip(parts[1::2], parts[2::2]):
        title = heading.splitlines()[0]
        if title in sections:
            raise SystemExit(f"two sections for {title}")
        sections[title] = heading + "\n" + body
    return sections, index


def check_build(args):
    failures = []
    with open(args.manifest, encoding="utf-8") as f:
        manifest = json.load(f)
    expected = expected_components(manifest)
    if not expected:
        failures.append("the manifest registers no component")
    kinds = {entry["kind"] for entry in manifest["components"]}
    print(f"{len(manifest['components'])} registrations ({', '.join(sorted(kinds))}), "
          f"{len(expected)} components expected")
    with open(args.notices, "rb") as f:
        notices_bytes = f.read()
    notices = notices_bytes.decode("utf-8", errors="surrogateescape")
    if not notices.startswith(f"Third-party notices of sandbox-workers {manifest['version']}\n"):
        failures.append("THIRD_PARTY_NOTICES does not start with its title and the version")
    sections, index = sections_of(notices)
    for key in sorted(set(expected) - set(sections)):
        failures.append(f"no section for {key}")
    for key in sorted(set(sections) - set(expected)):
        failures.append(f"a section for {key}, which no fetch registered")
    if sorted(index) != sorted(expected):
        failures.append(f"the index lists {sorted(set(index) ^ set(expected))} wrongly")
    for key, (directory, files) in sorted(expected.items()):
        if key not in sections:
            continue
        for text in licence_texts(directory, files):
            if text not in sections[key]:
                failures.append(f"the section of {key} lacks its licence text "
                                f"({text[:60]!r}...)")

    if args.build_dir:
        found, missing = unregistered_fetches(args.build_dir, manifest)
        print(f"{found} unpacked fetches in the build graph")
        for directory in missing:
            failures.append(f"{directory} is fetched but registers no third-party notice "
                            "(cmake/SandboxNotices.cmake: sandbox_third_party_notice, or "
                            "sandbox_third_party_not_shipped)")

    for program in args.program:
        name = os.path.basename(program)
        result = subprocess.run([program, "--licenses"], capture_output=True, timeout=60)
        if result.returncode != 0:
            failures.append(f"{name} --licenses exited {result.returncode}: {result.stderr!r}")
        elif result.stdout != notices_bytes:
            failures.append(f"{name} --licenses printed {len(result.stdout)} bytes that are not "
                            f"THIRD_PARTY_NOTICES ({len(notices_bytes)} bytes)")
        else:
            print(f"{name} --licenses: THIRD_PARTY_NOTICES, {len(notices_bytes)} bytes")

    copyright_text = read_text(args.copyright)
    if read_text(args.license) not in copyright_text:
        failures.append("the copyright file lacks LICENSE")
    if not copyright_text.endswith(notices):
        failures.append("the copyright file does not end with THIRD_PARTY_NOTICES")
    return failures


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def generator_self_test(args):
    failures = []
    with tempfile.TemporaryDirectory(prefix="notices-") as tmp:
        write(f"{tmp}/LICENSE", "Our licence.\n")
        write(f"{tmp}/deb/debian/copyright", "Debian copyright of pkg-a.\r\n")
        write(f"{tmp}/npm/package/license.md", "Licence of pkg-b, lower-case file name.\n")
        write(f"{tmp}/npm/package/NOTICE", "Notice of pkg-b.")
        write(f"{tmp}/npm/package/package.json", '{"license": "ISC"}')
        write(f"{tmp}/nm/node_modules/field-only/package.json", '{"license": "MIT"}')
        write(f"{tmp}/nm/node_modules/dev-tool/LICENSE", "Licence of a build tool.\n")
        write(f"{tmp}/nm/package-lock.json", json.dumps({"packages": {
            "": {"name": "project"},
            "node_modules/field-only": {"version": "1.0.0"},
            "node_modules/dev-tool": {"version": "2.0.0", "dev": True},
            "node_modules/absent-optional": {"version": "3.0.0", "optional": True},
        }}))
        components = [
            {"kind": "component", "name": "pkg-a", "version": "1-1", "origin": "Debian",
             "dir": f"{tmp}/deb", "files": ["debian/copyright"], "note": ""},
            {"kind": "component", "name": "pkg-b", "version": "2.0.0", "origin": "npm",
             "dir": f"{tmp}/npm/package", "files": [], "note": "a note"},
            {"kind": "npm-lock", "lock": f"{tmp}/nm/package-lock.json",
             "nodeModules": f"{tmp}/nm/node_modules", "origin": "lock"},
            # The same component registered twice gets one section.
            {"kind": "component", "name": "pkg-a", "version": "1-1", "origin": "Debian",
             "dir": f"{tmp}/deb", "files": ["debian/copyright"], "note": ""},
        ]

        def generate(entries):
            write(f"{tmp}/manifest.json", json.dumps(
                {"project": "sandbox-workers", "version": "9.8.7", "components": entries}))
            return subprocess.run(
                [args.cmake, f"-DMANIFEST={tmp}/manifest.json", f"-DLICENSE={tmp}/LICENSE",
                 f"-DNOTICES={tmp}/NOTICES", f"-DCOPYRIGHT={tmp}/copyright", "-P",
                 args.generator_self_test], capture_output=True, text=True)

        result = generate(components)
        if result.returncode != 0:
            return [f"the generator failed: {result.stderr}"]
        notices = read_text(f"{tmp}/NOTICES")
        sections, index = sections_of(notices)
        if index != ["field-only 1.0.0", "pkg-a 1-1", "pkg-b 2.0.0"]:
            failures.append(f"index {index}: expected field-only, pkg-a, pkg-b in order")
        if "Debian copyright of pkg-a.\n" not in sections.get("pkg-a 1-1", ""):
            failures.append("pkg-a's section lacks debian/copyright (CRLF as LF)")
        b = sections.get("pkg-b 2.0.0", "")
        for text in ("--- NOTICE ---", "Notice of pkg-b.\n", "--- license.md ---",
                     "Licence of pkg-b, lower-case file name.", "Note: a note"):
            if text not in b:
                failures.append(f"pkg-b's section lacks {text!r}")
        if "package.json" in b:
            failures.append("pkg-b's section cites package.json although it has licence files")
        if "its package.json gives its licence as: MIT" not in sections.get("field-only 1.0.0", ""):
            failures.append("field-only's section lacks its package.json licence")
        if "dev-tool" in notices or "absent-optional" in notices:
            failures.append("a devDependency or an uninstalled optional package has a notice")
        copyright_text = read_text(f"{tmp}/copyright")
        if "Our licence.\n" not in copyright_text or not copyright_text.endswith(notices):
            failures.append("the copyright file is not LICENSE followed by the notices")

        missing = [{"kind": "component", "name": "pkg-c", "version": "1", "origin": "x",
                    "dir": f"{tmp}/nowhere", "files": ["debian/copyright"], "note": ""}]
        result = generate(missing)
        # CMake wraps its messages: compare with the whitespace collapsed.
        if result.returncode == 0 or "debian/copyright does not exist" not in " ".join(
                result.stderr.split()):
            failures.append(f"a missing licence file did not stop the generator: {result.stderr}")
        write(f"{tmp}/bare/README", "no licence here\n")
        bare = [{"kind": "component", "name": "pkg-d", "version": "1", "origin": "x",
                 "dir": f"{tmp}/bare", "files": [], "note": ""}]
        result = generate(bare)
        if result.returncode == 0 or "pkg-d" not in result.stderr:
            failures.append(f"a component without a licence did not stop the generator: "
                            f"{result.stderr}")
    if not failures:
        print("the generator: files found by name, package.json licences, devDependencies left "
              "out, duplicates merged, missing licences refused")
    return failures


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--manifest")
    parser.add_argument("--notices")
    parser.add_argument("--copyright")
    parser.add_argument("--license")
    parser.add_argument("--build-dir")
    parser.add_argument("--program", action="append", default=[])
    parser.add_argument("--generator-self-test")
    parser.add_argument("--cmake", default="cmake")
    args = parser.parse_args()
    if args.generator_self_test:
        failures = generator_self_test(args)
    else:
        for required in ("manifest", "notices", "copyright", "license"):
            if not getattr(args, required):
                parser.error(f"--{required} is required")
        failures = check_build(args)
    if failures:
        print("\n".join(failures), file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
