#!/usr/bin/env python3
"""Writes an engine's /stdlib mount archive: an uncompressed ZIP (the format
StdlibTree::from_zip reads) holding the given files, sorted, with fixed dates, so the archive
is byte-for-byte reproducible.

  python3 make_mount_archive.py <output.zip> <name in archive>=<file>...
"""
import os
import sys
import zipfile


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__.strip().splitlines()[-1].strip())
    output = sys.argv[1]
    entries = []
    for arg in sys.argv[2:]:
        name, sep, path = arg.partition('=')
        if not sep or not name or name.startswith('/') or '..' in name.split('/'):
            sys.exit(f'make_mount_archive: bad entry {arg!r} (want NAME=FILE, NAME relative)')
        entries.append((name, path))
    entries.sort()
    tmp = output + '.tmp'
    with zipfile.ZipFile(tmp, 'w', zipfile.ZIP_STORED) as archive:
        for name, path in entries:
            with open(path, 'rb') as f:
                archive.writestr(zipfile.ZipInfo(name, (1980, 1, 1, 0, 0, 0)), f.read())
    os.replace(tmp, output)


if __name__ == '__main__':
    main()
