import { db } from "@/lib/db/client";
import { withAuthRoute } from "@/lib/http/route";
import { createUser, listUsers } from "@/lib/users/users";
import { createUserSchema } from "@/lib/users/users.validation";

// Admin user management over HTTP (for provisioning scripts); the same domain functions as the Users page.
export const GET = withAuthRoute({ name: "admin.users.list", roles: ["ADMIN"] }, async () => ({ users: await listUsers(await db()) }));

export const POST = withAuthRoute({ name: "admin.users.create", roles: ["ADMIN"], input: createUserSchema }, async ({ input }) => {
  const user = await createUser(await db(), input);
  return Response.json({ user }, { status: 201 });
});
