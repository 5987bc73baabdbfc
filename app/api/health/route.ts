import { NextResponse } from "next/server";
import { initDatabase } from "@/lib/db/client";
import { withPublicRoute } from "@/lib/http/route";
import { modelsOverview } from "@/lib/models/runtime";

/**
 * Public liveness/readiness probe: the process is up and the database answers; and whether ranking is
 * semantic or classical (models off, missing or refused). Reveals no data, paths or model files.
 */
export const GET = withPublicRoute({ name: "health" }, async () => {
  try {
    const { handle } = await initDatabase();
    await handle.prisma.$queryRaw`SELECT 1`;
    let models: { ranking: "semantic" | "classical"; embedder: string; crossEncoder: string };
    try {
      const { status } = await modelsOverview(handle.prisma);
      models = status
        ? {
            ranking: status.embedder.state === "ready" ? "semantic" : "classical",
            embedder: status.embedder.state,
            crossEncoder: status.crossEncoder.state,
          }
        : { ranking: "classical", embedder: "off", crossEncoder: "off" };
    } catch {
      models = { ranking: "classical", embedder: "unavailable", crossEncoder: "unavailable" };
    }
    return NextResponse.json({ status: "ok", database: handle.engine, models });
  } catch {
    return NextResponse.json({ status: "unavailable" }, { status: 503 });
  }
});
