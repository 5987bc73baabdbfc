// npm run check:lockfile: fails when package-lock.json lacks a platform package that some locked
// package declares as an optional dependency (Next's SWC binaries, Tailwind's oxide, argon2, …).
//
// Why entries go missing: npm leaves an optional dependency out of the lockfile, without a word, when
// it cannot fetch that package's metadata while it resolves the tree (a registry mirror that holds only
// the builds for its own platform, a network error). `npm ci` on another system then installs no binary
// for it. This check compares what every locked package declares with what the lockfile holds, and
// reports, for the systems Mosaic supports, which native binaries `npm ci` would find.
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";

export interface LockEntry {
  version?: string;
  optional?: boolean;
  os?: string[];
  cpu?: string[];
  libc?: string[];
  optionalDependencies?: Record<string, string>;
  link?: boolean;
}

export interface Lockfile {
  lockfileVersion: number;
  packages: Record<string, LockEntry>;
}

export interface Target {
  name: string;
  os: string;
  cpu: string;
  libc?: "glibc" | "musl";
}

/** The systems users run Mosaic on. */
export const TARGETS: Target[] = [
  { name: "macOS x64", os: "darwin", cpu: "x64" },
  { name: "macOS arm64", os: "darwin", cpu: "arm64" },
  { name: "Linux x64 (glibc)", os: "linux", cpu: "x64", libc: "glibc" },
  { name: "Linux x64 (musl)", os: "linux", cpu: "x64", libc: "musl" },
  { name: "Linux arm64 (glibc)", os: "linux", cpu: "arm64", libc: "glibc" },
  { name: "Linux arm64 (musl)", os: "linux", cpu: "arm64", libc: "musl" },
  { name: "Windows x64", os: "win32", cpu: "x64" },
];

/** npm's own rule for os/cpu/libc lists: any match, minus negations ("!win32"). */
function allows(list: string[] | undefined, value: string | undefined): boolean {
  if (!list?.length || value === undefined) return true;
  if (list.includes(`!${value}`)) return false;
  const positives = list.filter((v) => !v.startsWith("!"));
  return positives.length === 0 || positives.includes(value);
}

export function runsOn(entry: LockEntry, target: Target): boolean {
  return allows(entry.os, target.os) && allows(entry.cpu, target.cpu) && (target.os !== "linux" || allows(entry.libc, target.libc));
}

const isPlatformSpecific = (e: LockEntry) => !!(e.os?.length || e.cpu?.length || e.libc?.length);

/** Where Node would find `name` from the package at `from` (its own node_modules, then each parent's, then the root's). */
function resolveFrom(lock: Lockfile, from: string, name: string): string | null {
  let dir = from;
  for (;;) {
    const candidate = dir ? `${dir}/node_modules/${name}` : `node_modules/${name}`;
    if (lock.packages[candidate]) return candidate;
    if (!dir) return null;
    const cut = dir.lastIndexOf("/node_modules/");
    dir = cut === -1 ? "" : dir.slice(0, cut);
  }
}

export interface Missing {
  name: string;
  range: string;
  requiredBy: string;
}

/** Optional dependencies that a locked package declares and the lockfile does not hold. */
export function missingOptionalDependencies(lock: Lockfile): Missing[] {
  const missing: Missing[] = [];
  for (const [at, entry] of Object.entries(lock.packages)) {
    if (entry.link) continue;
    for (const [name, range] of Object.entries(entry.optionalDependencies ?? {})) {
      if (!resolveFrom(lock, at, name)) missing.push({ name, range, requiredBy: at.replace(/^node_modules\//, "") || "(root)" });
    }
  }
  return missing;
}

export interface Family {
  /** The package that picks one of its platform packages at run time. */
  owner: string;
  /** Per target: the locked platform packages that install there. */
  byTarget: Record<string, string[]>;
}

/** Packages that ship native code as one optional package per platform, and which of those each target gets. */
export function binaryFamilies(lock: Lockfile): Family[] {
  const families: Family[] = [];
  for (const [at, entry] of Object.entries(lock.packages)) {
    const members = Object.keys(entry.optionalDependencies ?? {})
      .map((name) => resolveFrom(lock, at, name))
      .filter((p): p is string => !!p && isPlatformSpecific(lock.packages[p]));
    if (members.length < 2) continue;
    const byTarget: Record<string, string[]> = {};
    for (const t of TARGETS)
      byTarget[t.name] = members.filter((m) => runsOn(lock.packages[m], t)).map((m) => m.replace(/^.*node_modules\//, ""));
    families.push({ owner: at.replace(/^node_modules\//, ""), byTarget });
  }
  return families.sort((a, b) => a.owner.localeCompare(b.owner));
}

/** Supported systems for which a binary family has no locked package at all. */
export function uncoveredTargets(families: Family[]): { owner: string; targets: string[] }[] {
  return families
    .map((f) => ({ owner: f.owner, targets: TARGETS.filter((t) => f.byTarget[t.name].length === 0).map((t) => t.name) }))
    .filter((g) => g.targets.length > 0);
}

function main() {
  const lock = JSON.parse(readFileSync("package-lock.json", "utf8")) as Lockfile;
  const missing = missingOptionalDependencies(lock);
  const families = binaryFamilies(lock);
  const gaps = uncoveredTargets(families);
  console.log("Native binaries in package-lock.json per supported system:");
  for (const f of families) {
    const gap = gaps.find((g) => g.owner === f.owner);
    console.log(`  ${f.owner.padEnd(28)} ${gap ? `NONE for ${gap.targets.join(", ")}` : `all ${TARGETS.length} systems`}`);
  }
  if (missing.length) {
    console.error(
      `\npackage-lock.json lacks ${missing.length} optional ${missing.length === 1 ? "dependency" : "dependencies"} that npm ci on other systems needs:`,
    );
    for (const m of missing) console.error(`  ${m.name}@${m.range} (optional dependency of ${m.requiredBy})`);
    console.error("\nRun `npm install --no-audit --no-fund` with the registry reachable (it adds them), then run this check again.");
  }
  if (gaps.length) {
    console.error(
      `\nSome native packages have no build for a supported system (${TARGETS.map((t) => t.name).join(", ")}): ${gaps.map((g) => g.owner).join(", ")}.`,
    );
  }
  if (missing.length || gaps.length) process.exit(1);
  console.log(
    "\nEvery optional dependency that a locked package declares is in package-lock.json, and every supported system has its binaries.",
  );
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) main();
