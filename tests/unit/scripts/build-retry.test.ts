import { describe, expect, it } from "vitest";
import { isTransientBuildFailure } from "../../../scripts/build-if-needed";

// The error Turbopack printed when its PostCSS helper missed its reply deadline on a busy machine
// (a first `npm start` on 2 cores at load 15–20), and errors that a second attempt cannot mend.
const TIMED_OUT = `> Build error occurred
Error: Turbopack build failed with 1 error:
./app/globals.css
Error: Error evaluating Node.js code
Error: Node.js subprocess crashed while evaluating loaders [postcss]: failed to receive message

Caused by:
- Node.js process is still running or its exit status is unavailable
- reading packet length
- timeout while receiving message from process
- deadline has elapsed`;

describe("first start's build retry", () => {
  it("retries a build whose CSS helper timed out", () => {
    expect(isTransientBuildFailure(TIMED_OUT)).toBe(true);
  });

  it("does not retry a real error in the sources", () => {
    expect(isTransientBuildFailure("./app/page.tsx:3:1\nModule not found: Can't resolve './missing'")).toBe(false);
    expect(isTransientBuildFailure("Error: Turbopack build failed with 1 error:\n./app/globals.css\nCssSyntaxError: Unclosed block")).toBe(
      false,
    );
  });
});
