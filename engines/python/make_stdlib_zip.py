#!/usr/bin/env python3
"""Packs CPython's Lib/ into the engine's stdlib archive (mounted read-only at /stdlib).

The archive is an uncompressed (ZIP_STORED) zip: the WASI build has no zlib, so zipimport can
only read stored members. Next to each module it holds the .pyc compiled by the running
interpreter, which must be the build python of the same 3.11 (the bytecode format is per
minor version); the .pyc files use unchecked hash-based invalidation, so they never go stale
by timestamp and the archive is byte-for-byte reproducible (fixed dates, sorted entries).

Tests, IDLE, tkinter, turtledemo, ensurepip, lib2to3, venv, distutils and pydoc_data are left
out: they cannot work in the sandbox or only serve development.

  python3.11 make_stdlib_zip.py --lib <Lib dir> --output <zip> --mount /stdlib/python311.zip \
      [--extra <file>=<name in the archive>]...
"""
import argparse
import os
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


def add_module(archive, source_path, name, mount):
    with open(source_path, 'rb') as f:
        source = f.read()
    archive.writestr(zipfile.ZipInfo(name, DATE), source)
    with tempfile.TemporaryDirectory() as tmp:
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


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--lib', required=True)
    parser.add_argument('--output', required=True)
    parser.add_argument('--mount', required=True, help='the path of the archive in the guest')
    parser.add_argument('--extra', action='append', default=[], help='FILE=NAME')
    args = parser.parse_args()
    if sys.version_info[:2] != (3, 11):
        sys.exit(f'make_stdlib_zip: must run under Python 3.11, not {sys.version.split()[0]}')

    modules = []
    for root, dirs, files in os.walk(args.lib):
        rel = os.path.relpath(root, args.lib)
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS)
        for f in sorted(files):
            if f.endswith('.py') and f not in SKIP_FILES:
                name = os.path.normpath(os.path.join(rel, f)).replace(os.sep, '/')
                modules.append((name, os.path.join(root, f)))
    for extra in args.extra:
        path, sep, name = extra.partition('=')
        if not sep or not name.endswith('.py'):
            sys.exit(f'make_stdlib_zip: --extra wants FILE=NAME.py, got {extra!r}')
        modules.append((name, path))
    modules.sort()

    tmp_output = args.output + '.tmp'
    with zipfile.ZipFile(tmp_output, 'w', zipfile.ZIP_STORED) as archive:
        for name, path in modules:
            add_module(archive, path, name, args.mount)
    os.replace(tmp_output, args.output)
    print(f'-- [python stdlib] {args.output}: {len(modules)} modules, '
          f'{os.path.getsize(args.output) // 1024} KiB')


if __name__ == '__main__':
    main()
