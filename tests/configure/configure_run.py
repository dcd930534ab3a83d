"""What the configure checks of this directory share: their command line (the cmake, source
tree, generator and compilers of the build that runs them, as tests/configure/CMakeLists.txt
passes them) and one configure run of the source tree in a temporary build directory."""
import argparse
import subprocess

CONFIGURE_TIMEOUT_S = 240


def argument_parser():
    """The options every check takes; a check adds its own before parse_args()."""
    p = argparse.ArgumentParser()
    p.add_argument("--cmake", required=True)
    p.add_argument("--source", required=True)
    p.add_argument("--generator", required=True)
    p.add_argument("--c-compiler", required=True)
    p.add_argument("--cxx-compiler", required=True)
    return p


def configure(args, build_dir, options, env=None):
    """Configures args.source into build_dir with `options` (and `env`, default: ours); returns
    (exit code, what cmake printed on stdout and stderr)."""
    cmd = [args.cmake, "-S", args.source, "-B", build_dir, "-G", args.generator,
           "-DCMAKE_C_COMPILER=" + args.c_compiler, "-DCMAKE_CXX_COMPILER=" + args.cxx_compiler]
    cmd += options
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                       timeout=CONFIGURE_TIMEOUT_S, env=env)
    return r.returncode, r.stdout
