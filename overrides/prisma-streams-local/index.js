// See README.md: Prisma Streams is deliberately not installed. `prisma dev` is the only caller.
export async function startLocalDurableStreamsServer() {
  throw new Error(
    "`prisma dev` is not available in Mosaic: its Prisma Streams runtime needs Node 22 and is not installed " +
      "(package.json overrides). Mosaic's database is the embedded PGlite or a PostgreSQL server (DATABASE_URL).",
  );
}
