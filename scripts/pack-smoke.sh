#!/usr/bin/env bash
# npm run test:pack [-- <rev>]: install recover the way a user does, from a tarball packed in a fresh clone.
#
#   1. git clone the repository at <rev> (default HEAD: committed work only) — no dist/, no node_modules
#   2. npm ci in the clone (what a publisher does before packing)
#   3. npm pack: `prepare` must build dist/; the tarball must hold LICENSE, bin/recover, dist/main.cjs and no
#      source map whose sources it lacks
#   4. npm install -g of the tarball into a temporary prefix (never the user's global prefix)
#   5. <prefix>/bin/recover --version is package.json's version; it scans a copy of the demo opencode store and
#      of the demo Claude Code transcripts, exit 0, with findings listed, and leaves one code cache
#
# Prints each check and how long each phase took; exits non-zero on the first failure; removes its temp dir.
# Runs without a terminal (CI: root, CI=true, no stdin). Reuses npm's own cache (~/.npm) so a warm cache keeps
# it quick, unless that cache is not writable, then a throw-away one.
set -euo pipefail
exec </dev/null

root="$(cd "$(dirname "$0")/.." && pwd)"
rev="${1:-HEAD}"
sha="$(git -C "$root" rev-parse --verify --quiet "${rev}^{commit}")" || { echo "pack-smoke: no such commit: $rev" >&2; exit 2; }

work="$(mktemp -d "${TMPDIR:-/tmp}/recover-pack-smoke.XXXXXX")"
trap 'rm -rf "$work"' EXIT
clone="$work/clone" prefix="$work/prefix" logs="$work/logs"
mkdir -p "$logs" "$work/pack" "$work/stores" "$work/state"

# `npm run test:pack` exports the caller's prefix settings (npm_config_prefix=/usr, npm_config_local_prefix=<repo>);
# they must not steer the clone's npm ci or the install. Everything else (registry, cafile, nodedir, …) still
# comes from the user's and the global npmrc.
unset npm_config_prefix npm_config_local_prefix npm_config_global_prefix
if [[ -z "${npm_config_cache:-}" ]]; then npm_config_cache="$(npm config get cache 2>/dev/null || true)"; fi
if [[ -z "$npm_config_cache" ]] || ! mkdir -p "$npm_config_cache" 2>/dev/null || [[ ! -w "$npm_config_cache" ]]; then
  npm_config_cache="$work/npm-cache"
fi
export npm_config_cache
# recover itself: no colour, its state (locks, journal) and its code cache in the temp dir, not ~/.local/state and
# ~/.cache.
export NO_COLOR=1 XDG_STATE_HOME="$work/state" XDG_CACHE_HOME="$work/cache"

failures=0
timings=()
fail() { echo "  FAIL  $*"; failures=$((failures + 1)); }
ok() { echo "  ok    $*"; }
if [[ "$(date +%N)" =~ ^[0-9]+$ ]]; then now() { date +%s%N; }; else now() { echo "$(date +%s)000000000"; }; fi # BSD date: no %N
secs() { printf '%d.%d' $(($1 / 1000000000)) $(($1 % 1000000000 / 100000000)); } # nanoseconds -> "12.3"
timed() { timings+=("$(printf '%-26s %7s s' "$1" "$(secs "$2")")"); }
in_dir() ( cd "$1" && shift && "$@" )
# phase <name> <log> <command…>: run a command in its own log; on failure print the log's tail and stop.
phase() {
  local name="$1" log="$logs/$2"; shift 2
  local start; start="$(now)"
  echo "== $name: $*"
  if "$@" >"$log" 2>&1; then
    local ns=$(($(now) - start))
    timed "$name" "$ns"
    echo "   ($(secs "$ns") s)"
  else
    local rc=$?
    echo "  FAIL  $name exited $rc; last lines of its output:"
    tail -n 30 "$log" | sed 's/^/        /'
    exit 1
  fi
}
finish() {
  echo
  echo "timings:"
  for t in "${timings[@]}"; do echo "  $t"; done
  if ((failures > 0)); then echo "pack-smoke: $failures check(s) failed (rev $sha)"; exit 1; fi
  echo "pack-smoke: all checks passed (rev $sha)"
}

echo "pack-smoke: $(git -C "$root" log -1 --format='%h %s' "$sha")"
[[ -z "$(git -C "$root" status --porcelain --untracked-files=no)" ]] || echo "   (uncommitted changes in $root are not part of this test)"
echo "   work dir $work, npm cache $npm_config_cache, $(node --version), npm $(npm --version 2>/dev/null)"

phase "clone" clone.log git clone --quiet --no-checkout "$root" "$clone"
git -C "$clone" checkout --quiet --detach "$sha"
[[ ! -e "$clone/dist" && ! -e "$clone/node_modules" ]] && ok "fresh clone has no dist/ and no node_modules/" || fail "fresh clone is not clean"

# --ignore-scripts: the clone only needs the compiler and type packages to build dist/; compiling
# better-sqlite3 there would be wasted (the install below compiles its own), and npm pack runs prepare itself.
phase "npm ci (clone)" ci.log in_dir "$clone" npm ci --prefer-offline --ignore-scripts --no-audit --no-fund
phase "npm pack (builds dist)" pack.log in_dir "$clone" npm pack --pack-destination "$work/pack"

version="$(node -p 'require(process.argv[1]).version' "$clone/package.json")"
tarball="$(ls "$work/pack"/*.tgz 2>/dev/null | head -n 1 || true)"
[[ -n "$tarball" ]] || { fail "npm pack wrote no tarball"; finish; }
echo "== tarball $(basename "$tarball"), $(du -k "$tarball" | cut -f1) kB"
contents="$(tar -tzf "$tarball")"
for f in package/package.json package/LICENSE package/bin/recover package/bin/package.json package/dist/main.cjs package/dist/main.cjs.id package/dist/launch.cjs package/dist/recover.1; do
  grep -qxF "$f" <<<"$contents" && ok "tarball has ${f#package/}" || fail "tarball lacks ${f#package/}"
done
mkdir -p "$work/unpacked" && tar -xzf "$tarball" -C "$work/unpacked"
# A source map is fine only if every source it names is in the tarball or embedded in the map (sourcesContent).
if node - "$work/unpacked/package" <<'EOF'; then ok "no source map points at a source the tarball lacks"; else fail "source maps point at missing sources"; fi
const { readdirSync, readFileSync, existsSync } = require("node:fs");
const { join, dirname, resolve } = require("node:path");
const pkg = process.argv[2];
const maps = readdirSync(pkg, { recursive: true }).filter((f) => f.endsWith(".map"));
let bad = 0;
for (const m of maps) {
  const map = JSON.parse(readFileSync(join(pkg, m), "utf8"));
  (map.sources ?? []).forEach((s, i) => {
    if (typeof map.sourcesContent?.[i] === "string") return;
    const p = resolve(pkg, dirname(m), map.sourceRoot ?? "", s);
    if (!p.startsWith(pkg + "/") || !existsSync(p)) { bad++; if (bad <= 5) console.log(`        ${m} -> ${s} (missing)`); }
  });
}
console.log(`        ${maps.length} .map file(s) in the tarball`);
process.exit(bad ? 1 : 0);
EOF

phase "npm install -g (tarball)" install.log npm install -g --prefix "$prefix" --prefer-offline --no-audit --no-fund "$tarball"
bin="$prefix/bin/recover"
[[ -x "$bin" ]] && ok "installed $bin" || { fail "no executable $bin"; finish; }
# npm links package.json's "man" page where man looks under the prefix.
[[ -f "$prefix/share/man/man1/recover.1" ]] && ok "man page linked: share/man/man1/recover.1" || fail "no share/man/man1/recover.1 under the prefix"

cd "$work"
got="$("$bin" --version 2>&1)" || true
[[ "$got" == "$version" ]] && ok "recover --version: $got (package.json: $version)" || fail "recover --version printed '$got', want '$version'"

# scan <label> <fixture dir>: a copy of a demo store, scanned by the installed recover; exit 0 and findings listed.
scan() {
  local label="$1" store="$work/stores/$(basename "$2")"
  cp -R "$clone/$2" "$store"
  local out rc=0 start; start="$(now)"
  out="$("$bin" session scan --all --exit-zero --store "$store" 2>&1)" || rc=$?
  timed "scan $label" $(($(now) - start))
  local summary; summary="$(grep -E '[0-9]+ findings? ' <<<"$out" | tail -n 1 || true)"
  if [[ $rc -eq 0 ]] && grep -qE '(^|[^0-9])[1-9][0-9]* findings? ' <<<"$summary"; then
    ok "recover session scan --all --exit-zero --store <copy of $2>: exit 0, $summary"
  else
    fail "scan of $2 exited $rc with: $(tail -n 5 <<<"$out")"
  fi
}
scan opencode fixtures/demo/opencode
scan claude fixtures/demo/claude
# The first run of the installed copy left V8's code cache of its bundle for the next ones.
caches="$(ls "$work/cache/recover" 2>/dev/null | grep -c '^main\.cjs-.*\.v8cache$' || true)"
[[ "$caches" -eq 1 ]] && ok "code cache written: $(ls "$work/cache/recover")" || fail "want one code cache in \$XDG_CACHE_HOME/recover, found $caches"

finish
