#!/usr/bin/env bash
# Lints the Playground's own JavaScript (web/playground, docs/sandbox-api.md#playground) the way
# scripts/check_format.sh and scripts/run_clang_tidy.sh check the C++: every finding is an error
# (exit 1). Three checks, all run even when one fails, so one run lists everything to fix:
#
#   eslint    web/playground/eslint.config.js over web/playground/src, the config files and the
#             tests under tests/playground (--max-warnings 0)
#   prettier  web/playground/.prettierrc.json: the same files are formatted (--check)
#   tsc       web/playground/tsconfig.json: every module of src/ opens with `// @ts-check`, and
#             its JSDoc types check (--noEmit, allowJs + checkJs, strict)
#
#   scripts/lint_playground.sh [--preset NAME] [--fix]
#
# The tools are the exact versions pinned in web/playground/package-lock.json, installed into
# build/<preset>/src/playground/npm by the build's `npm ci` (src/playground/CMakeLists.txt): build
# the target sandbox_playground_npm first (`make lint` does). Nothing is written to the source
# tree, except by --fix, which lets eslint and prettier rewrite what they can fix.
set -euo pipefail
cd "$(dirname "$0")/.."

preset=default
fix=0
while [[ $# -gt 0 ]]; do
  case "$1" in
    --preset) preset=$2; shift 2 ;;
    --fix) fix=1; shift ;;
    -h|--help) sed -n '2,18p' "$0"; exit 0 ;;
    *) echo "lint_playground: unknown argument $1" >&2; exit 2 ;;
  esac
done

npm_dir=build/$preset/src/playground/npm
modules=$npm_dir/node_modules
node=${SANDBOX_NODE:-$(command -v node || command -v nodejs || true)}
if [[ -z $node ]]; then
  echo "lint_playground: node not found; install it with scripts/bootstrap.sh (Debian package npm)" >&2
  exit 2
fi
for tool in eslint/bin/eslint.js prettier/bin/prettier.cjs typescript/bin/tsc; do
  if [[ ! -f $modules/$tool ]]; then
    echo "lint_playground: $modules/$tool is missing; install the pinned packages first:" \
         "cmake --preset $preset && cmake --build --preset $preset --target sandbox_playground_npm" >&2
    exit 2
  fi
done

web=web/playground
files=("$web"/src/*.js "$web"/*.js tests/playground/*.mjs tests/playground/*.cjs)

# Both configs import their packages by name; an ES module resolves those beside itself (never
# through NODE_PATH), so eslint's runs from a copy beside node_modules, which it names with
# --config (its file patterns are then relative to the working directory, the checkout). tsc's
# is extended by one in the build tree that maps bare imports (@codemirror/...) to node_modules.
cp "$web/eslint.config.js" "$npm_dir/eslint.config.js"
root=$(pwd -P)
cat >"$npm_dir/tsconfig.json" <<JSON
{
  "extends": "$root/$web/tsconfig.json",
  "compilerOptions": { "baseUrl": ".", "paths": { "*": ["./node_modules/*"] } },
  "include": ["$root/$web/src/*.js"]
}
JSON

status=0
eslint_args=(--config "$npm_dir/eslint.config.js" --max-warnings 0)
prettier_args=(--config "$web/.prettierrc.json" --log-level warn)
if [[ $fix == 1 ]]; then
  eslint_args+=(--fix)
  prettier_args+=(--write)
else
  prettier_args+=(--check)
fi
echo "-- eslint"
"$node" "$modules/eslint/bin/eslint.js" "${eslint_args[@]}" "${files[@]}" || status=1
echo "-- prettier"
"$node" "$modules/prettier/bin/prettier.cjs" "${prettier_args[@]}" "${files[@]}" || status=1
echo "-- tsc"
"$node" "$modules/typescript/bin/tsc" -p "$npm_dir/tsconfig.json" --pretty false || status=1
for f in "$web"/src/*.js; do
  if [[ $(head -n 1 "$f") != "// @ts-check" ]]; then
    echo "$f: the first line must be // @ts-check" >&2
    status=1
  fi
done
if [[ $status != 0 ]]; then
  echo "lint_playground: findings above (scripts/lint_playground.sh --fix rewrites what eslint" \
       "and prettier can fix)" >&2
fi
exit $status
