// Runs once when the Next.js server starts: validate env, open the database, migrate, seed.
export async function register() {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  const { startServer } = await import("./lib/server/start");
  await startServer();
}
