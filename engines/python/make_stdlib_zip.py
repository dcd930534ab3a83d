#!/usr/bin/env python3
"""Packs CPython's Lib/ into the engine's stdlib archive (mounted read-only at /stdlib).

The archive is an uncompressed (ZIP_STORED) zip, which zipimport reads without inflating. Next to each module it holds the .pyc compiled by the running
interpreter, which must be the build python of the same 3.11 (the bytecode format is per
minor version); the .pyc files use unchecked hash-based invalidation, so they never go stale
by timestamp and the archive is byte-for-byte reproducible (fixed dates, sorted entries).

Tests, IDLE, tkinter, turtledemo, ensurepip, lib2to3, venv, distutils and pydoc_data are left
out: they cannot work in the sandbox or only serve development.

--tzdata adds the IANA time-zone database compiled by zic as the `tzdata` package, in the layout
of PyPI's tzdata (tzdata/zoneinfo/<Area>/<Location> resources, tzdata/zones), which zoneinfo
falls back to when no TZPATH directory has the zone: the guest has no /usr/share/zoneinfo.

  python3.11 make_stdlib_zip.py --lib <Lib dir> --output <zip> --mount /stdlib/python311.zip \
      [--extra <file>=<name in the archive>]...
      [--sysconfigdata <file>=<name in the archive> [--rewrite <old>=<new>]...]
      [--tzdata <zic output dir> --tzdata-version <IANA version>]

--sysconfigdata adds the build configuration the sysconfig module reads; it names the build
tree, so --rewrite replaces those paths and the file is written out again in a canonical form,
which keeps the archive independent of where it was built.
"""
import argparse
import os
import pprint
import py_compile
import sys
import tempfile
import zipfile

SKIP_DIRS = {
    'test', 'tests', 'idlelib', 'tkinter', 'turtledemo', 'ensurepip', 'lib2to3', 'venv',
    'distutils', 'pydoc_data', '__pycache__', 'site-packages',
}
SKIP_FILES = {'turtle.py'}
DATE = (1980, 1, 1, 0, 0, 0)


def canonical_sysconfigdata(path, rewrites):
    """The module's build_time_vars with the paths rewritten, printed canonically."""
    namespace = {}
    with open(path, encoding='utf-8') as f:
        exec(f.read(), namespace)  # a file this build generated
    variables = {}
    for key, value in namespace['build_time_vars'].items():
        if isinstance(value, str):
            for old, new in rewrites:
                value = value.replace(old, new)
        variables[key] = value
    return ('# system configuration generated and used by the sysconfig module\n'
            f'build_time_vars = {pprint.pformat(variables, width=100)}\n').encode()


def add_module(archive, source_path, name, mount, rewrites=None):
    with open(source_path, 'rb') as f:
        source = f.read()
    with tempfile.TemporaryDirectory() as tmp:
        if rewrites is not None:
            source = canonical_sysconfigdata(source_path, rewrites)
            source_path = os.path.join(tmp, 'rewritten.py')
            with open(source_path, 'wb') as f:
                f.write(source)
        archive.writestr(zipfile.ZipInfo(name, DATE), source)
        pyc = os.path.join(tmp, 'module.pyc')
        try:
            py_compile.compile(source_path, cfile=pyc, dfile=f'{mount}/{name}', doraise=True,
                               invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH)
        except py_compile.PyCompileError as e:
            # A few files are deliberately invalid (lib2to3 test data and the like); the
            # source alone is then shipped, and importing it reports the error.
            print(f'make_stdlib_zip: not compiling {name}: {e.msg.splitlines()[0]}', file=sys.stderr)
            return
        with open(pyc, 'rb') as f:
            archive.writestr(zipfile.ZipInfo(name + 'c', DATE), f.read())


def tzdata_modules(zoneinfo_dir, version, tmp):
    """(name, path) of the tzdata package's files: TZif data and the package __init__ files."""
    version_source = os.path.join(tmp, 'tzdata_init.py')
    with open(version_source, 'w', encoding='utf-8') as f:
        f.write(f'# IANA time-zone database, compiled by zic for the sandbox\n'
                f'IANA_VERSION = {version!r}\n__version__ = {version!r}\n')
    empty = os.path.join(tmp, 'empty.py')
    open(empty, 'w').close()
    modules = [('tzdata/__init__.py', version_source), ('tzdata/zoneinfo/__init__.py', empty)]
    data, zones = [], []
    for root, dirs, files in os.walk(zoneinfo_dir):
        dirs.sort()
        rel = os.path.relpath(root, zoneinfo_dir)
        if rel != '.':
            modules.append((f'tzdata/zoneinfo/{rel}/__init__.py'.replace(os.sep, '/'), empty))
        for f in sorted(files):
            path = os.path.join(root, f)
            with open(path, 'rb') as tzif:
                if tzif.read(4) != b'TZif':
                    continue
            key = os.path.normpath(os.path.join(rel, f)).replace(os.sep, '/')
            zones.append(key)
            data.append((f'tzdata/zoneinfo/{key}', path))
    if 'UTC' not in zones or 'Europe/Paris' not in zones:
        sys.exit(f'make_stdlib_zip: {zoneinfo_dir} does not look like zic output (no UTC)')
    zones_list = os.path.join(tmp, 'zones')
    with open(zones_list, 'w', encoding='utf-8') as f:
        f.write('\n'.join(sorted(zones)) + '\n')
    data.append(('tzdata/zones', zones_list))
    return modules, data


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--lib', required=True)
    parser.add_argument('--output', required=True)
    parser.add_argument('--mount', required=True, help='the path of the archive in the guest')
    parser.add_argument('--extra', action='append', default=[], help='FILE=NAME')
    parser.add_argument('--sysconfigdata', help='FILE=NAME')
    parser.add_argument('--rewrite', action='append', default=[], help='OLD=NEW (--sysconfigdata)')
    parser.add_argument('--tzdata', help='a directory of zic output (TZif files)')
    parser.add_argument('--tzdata-version', help='its IANA version, e.g. 2026b')
    args = parser.parse_args()
    if sys.version_info[:2] != (3, 11):
        sys.exit(f'make_stdlib_zip: must run under Python 3.11, not {sys.version.split()[0]}')

    rewrites = []
    for rewrite in args.rewrite:
        old, sep, new = rewrite.partition('=')
        if not sep or not old:
            sys.exit(f'make_stdlib_zip: --rewrite wants OLD=NEW, got {rewrite!r}')
        rewrites.append((old, new))
    modules = []
    for root, dirs, files in os.walk(args.lib):
        rel = os.path.relpath(root, args.lib)
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS)
        for f in sorted(files):
            if f.endswith('.py') and f not in SKIP_FILES:
                name = os.path.normpath(os.path.join(rel, f)).replace(os.sep, '/')
                modules.append((name, os.path.join(root, f), None))
    extras = [(extra, None) for extra in args.extra]
    if args.sysconfigdata:
        extras.append((args.sysconfigdata, tuple(rewrites)))
    for extra, extra_rewrites in extras:
        path, sep, name = extra.partition('=')
        if not sep or not name.endswith('.py'):
            sys.exit(f'make_stdlib_zip: --extra/--sysconfigdata want FILE=NAME.py, got {extra!r}')
        modules.append((name, path, extra_rewrites))
    if bool(args.tzdata) != bool(args.tzdata_version):
        sys.exit('make_stdlib_zip: --tzdata and --tzdata-version go together')

    tmp_output = args.output + '.tmp'
    with tempfile.TemporaryDirectory() as tmp, \
            zipfile.ZipFile(tmp_output, 'w', zipfile.ZIP_STORED) as archive:
        data = []
        if args.tzdata:
            tz_modules, data = tzdata_modules(args.tzdata, args.tzdata_version, tmp)
            modules.extend((name, path, None) for name, path in tz_modules)
        modules.sort()
        for name, path, module_rewrites in modules:
            add_module(archive, path, name, args.mount, module_rewrites)
        for name, path in sorted(data):
            with open(path, 'rb') as f:
                archive.writestr(zipfile.ZipInfo(name, DATE), f.read())
    os.replace(tmp_output, args.output)
    print(f'-- [python stdlib] {args.output}: {len(modules)} modules, '
          f'{os.path.getsize(args.output) // 1024} KiB')


if __name__ == '__main__':
    main()
