import { NextResponse } from "next/server";
import { initDatabase } from "@/lib/db/client";

// Public liveness/readiness probe: the process is up and the database answers. Reveals no data.
export async function GET() {
  try {
    const { handle } = await initDatabase();
    await handle.prisma.$queryRaw`SELECT 1`;
    return NextResponse.json({ status: "ok", database: handle.engine });
  } catch {
    return NextResponse.json({ status: "unavailable" }, { status: 503 });
  }
}
