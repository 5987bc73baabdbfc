import type { Critique } from "../../contracts";

/** One check of the validator, passed or failed, with its detail. */
export type Check = Critique["checks"][number];
