import { db } from "@/lib/db/client";
import { withAuthRoute } from "@/lib/http/route";
import { auditedChange } from "@/lib/audit/change";
import { requestActor } from "@/lib/audit/request-actor";
import { userSnapshot } from "@/lib/audit/snapshots";
import { createUser, listUsers } from "@/lib/users/users";
import { createUserSchema } from "@/lib/users/users.validation";

// Admin user management over HTTP (for provisioning scripts); the same domain functions as the Users page.
export const GET = withAuthRoute({ name: "admin.users.list", roles: ["ADMIN"] }, async () => ({ users: await listUsers(await db()) }));

export const POST = withAuthRoute(
  { name: "admin.users.create", roles: ["ADMIN"], input: createUserSchema },
  async ({ req, user: admin, input }) => {
    const prisma = await db();
    // The password is never recorded.
    const detail = { email: input.email, name: input.name, role: input.role, groupIds: input.groupIds };
    const user = await auditedChange(
      prisma,
      requestActor(admin, req.headers),
      { action: "users.create", targetType: "user", snapshot: userSnapshot, idFrom: (r) => (r as { id: string }).id, detail },
      () => createUser(prisma, input),
    );
    return Response.json({ user }, { status: 201 });
  },
);
