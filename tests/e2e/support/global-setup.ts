import type { TestProject } from "vitest/node";
import { buildIfNeeded } from "../../../scripts/build-if-needed";
import { type AppServer, startAppServer } from "../../support/app-server";

declare module "vitest" {
  export interface ProvidedContext {
    baseUrl: string;
  }
}

let server: AppServer | undefined;

export async function setup(project: TestProject) {
  if (!buildIfNeeded()) throw new Error("next build failed");
  server = await startAppServer();
  project.provide("baseUrl", server.baseUrl);
}

export async function teardown() {
  await server?.stop();
}
