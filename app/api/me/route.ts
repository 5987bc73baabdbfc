import { withAuthRoute } from "@/lib/http/route";
import { navItemsFor } from "@/lib/navigation";

// The signed-in user's profile and the pages their role may open (for scripts and the UI).
export const GET = withAuthRoute({ name: "me.get" }, async ({ user }) => ({
  id: user.id,
  email: user.email,
  name: user.name,
  role: user.role,
  pages: navItemsFor(user.role).map((i) => i.href),
}));
