import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import {
  type Lockfile,
  TARGETS,
  binaryFamilies,
  missingOptionalDependencies,
  runsOn,
  uncoveredTargets,
} from "../../scripts/check-lockfile";

const target = (name: string) => TARGETS.find((t) => t.name === name)!;

describe("package-lock.json completeness", () => {
  it("holds every platform package that a locked package declares, with binaries for every supported system", () => {
    const lock = JSON.parse(readFileSync("package-lock.json", "utf8")) as Lockfile;
    expect(missingOptionalDependencies(lock)).toEqual([]);
    const families = binaryFamilies(lock);
    expect(families.map((f) => f.owner)).toEqual(expect.arrayContaining(["next", "@tailwindcss/oxide", "@node-rs/argon2"]));
    expect(uncoveredTargets(families)).toEqual([]);
  });

  it("reports a dropped platform package and the systems left without a binary", () => {
    const lock: Lockfile = {
      lockfileVersion: 3,
      packages: {
        "": {},
        "node_modules/next": {
          version: "16.4.6",
          optionalDependencies: {
            "@next/swc-linux-x64-gnu": "16.4.6",
            "@next/swc-linux-x64-musl": "16.4.6",
            "@next/swc-darwin-arm64": "16.4.6",
          },
        },
        "node_modules/@next/swc-linux-x64-gnu": { version: "16.4.6", optional: true, os: ["linux"], cpu: ["x64"], libc: ["glibc"] },
        "node_modules/@next/swc-linux-x64-musl": { version: "16.4.6", optional: true, os: ["linux"], cpu: ["x64"], libc: ["musl"] },
      },
    };
    expect(missingOptionalDependencies(lock)).toEqual([{ name: "@next/swc-darwin-arm64", range: "16.4.6", requiredBy: "next" }]);
    const gaps = uncoveredTargets(binaryFamilies(lock));
    expect(gaps).toEqual([
      { owner: "next", targets: ["macOS x64", "macOS arm64", "Linux arm64 (glibc)", "Linux arm64 (musl)", "Windows x64"] },
    ]);
  });

  it("finds a dependency nested under its owner, as Node resolves it", () => {
    const lock: Lockfile = {
      lockfileVersion: 3,
      packages: {
        "node_modules/a": {},
        "node_modules/a/node_modules/b": { optionalDependencies: { c: "1.0.0", d: "1.0.0" } },
        "node_modules/a/node_modules/c": {},
        "node_modules/d": {},
      },
    };
    expect(missingOptionalDependencies(lock)).toEqual([]);
  });

  it("matches os, cpu and libc as npm does, negations included", () => {
    expect(runsOn({ os: ["linux"], cpu: ["x64"], libc: ["musl"] }, target("Linux x64 (musl)"))).toBe(true);
    expect(runsOn({ os: ["linux"], cpu: ["x64"], libc: ["musl"] }, target("Linux x64 (glibc)"))).toBe(false);
    expect(runsOn({ os: ["linux"], cpu: ["x64"] }, target("Linux x64 (musl)"))).toBe(true);
    expect(runsOn({ os: ["!win32"] }, target("Windows x64"))).toBe(false);
    expect(runsOn({ os: ["!win32"] }, target("macOS arm64"))).toBe(true);
    expect(runsOn({ os: ["darwin"], libc: ["glibc"] }, target("macOS x64"))).toBe(true);
  });
});
