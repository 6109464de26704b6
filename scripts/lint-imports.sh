#!/usr/bin/env bash
# Check the import contracts in pyproject.toml ([tool.importlinter]) with import-linter.
#
# `connectors/` and `shell/` are the subpackages streamsql.connectors and streamsql.shell only
# once installed (package-dir), and import-linter reads packages from disk, so this lays the
# installed shape out in a scratch folder (copies, no build) and lints that.
# Usage: bash scripts/lint-imports.sh   (exit status of lint-imports)
set -euo pipefail
cd "$(dirname "$0")/.."
stage="$(mktemp -d)"
trap 'rm -rf "$stage"' EXIT
cp -r streamsql "$stage/streamsql"
cp -r connectors "$stage/streamsql/connectors"
cp -r shell "$stage/streamsql/shell"
find "$stage" -name __pycache__ -prune -exec rm -rf {} +
config="$PWD/pyproject.toml"
cd "$stage"   # lint-imports puts the working folder first on sys.path
PYTHONPATH="$stage" lint-imports "$config" --no-cache
