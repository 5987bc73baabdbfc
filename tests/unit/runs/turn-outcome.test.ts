import { describe, expect, it } from "vitest";
import { turnOutcome } from "@/lib/runs/turn-outcome";

describe("what History says a run answered", () => {
  it("says what the answer card said: answered, not certain, or no answer", () => {
    expect(turnOutcome({ status: "ANSWERED", refrained: false, certainty: null })).toBe("answered");
    expect(turnOutcome({ status: "ANSWERED", refrained: false, certainty: "certain" })).toBe("answered");
    expect(turnOutcome({ status: "ANSWERED", refrained: false, certainty: "uncertain" })).toBe("uncertain");
    expect(turnOutcome({ status: "REFRAINED", refrained: true, certainty: null })).toBe("refused");
    // A run stored as ANSWERED whose answer was withheld is a refusal on its card, so in History too.
    expect(turnOutcome({ status: "ANSWERED", refrained: true, certainty: null })).toBe("refused");
  });

  it("names runs that ended without an answer card", () => {
    expect(turnOutcome({ status: "CANCELLED", refrained: false, certainty: null })).toBe("cancelled");
    expect(turnOutcome({ status: "FAILED", refrained: false, certainty: null })).toBe("failed");
    expect(turnOutcome({ status: "RUNNING", refrained: false, certainty: null })).toBe("running");
    expect(turnOutcome({ status: "QUEUED", refrained: false, certainty: null })).toBe("running");
  });
});
