import type { Role } from "./db/generated/enums";

export interface NavItem {
  href: string;
  label: string;
  /** Roles that may open the page; the page guard and the nav read the same list. */
  roles: readonly Role[];
  description: string;
}

const ALL: readonly Role[] = ["ADMIN", "ANALYST", "USER"];
const CURATORS: readonly Role[] = ["ADMIN", "ANALYST"];
const ADMINS: readonly Role[] = ["ADMIN"];

export const NAV_ITEMS: readonly NavItem[] = [
  { href: "/ask", label: "Ask", roles: ALL, description: "Ask a question across your knowledge sources." },
  { href: "/history", label: "History", roles: ALL, description: "Your past questions and conversations." },
  { href: "/knowledge-bases", label: "Knowledge bases", roles: ADMINS, description: "Register and monitor knowledge bases." },
  {
    href: "/source-objects",
    label: "Source objects",
    roles: CURATORS,
    description: "Curate the units of content the pipeline retrieves from.",
  },
  { href: "/guides", label: "Extraction guides", roles: CURATORS, description: "Worked examples that steer retrieval." },
  { href: "/feedback", label: "Feedback review", roles: CURATORS, description: "Wrong-answer reports to review and turn into guides." },
  { href: "/evaluation", label: "Evaluation", roles: CURATORS, description: "Benchmark suites and metrics." },
  { href: "/users", label: "Users", roles: ADMINS, description: "People, roles and groups." },
  { href: "/settings", label: "Settings", roles: ADMINS, description: "Workspace, model and LLM settings." },
  { href: "/audit", label: "Audit log", roles: ADMINS, description: "Who signed in, asked, opened evidence and changed what." },
];

export function navItemsFor(role: Role): NavItem[] {
  return NAV_ITEMS.filter((item) => item.roles.includes(role));
}

export function rolesFor(href: string): readonly Role[] {
  const item = NAV_ITEMS.find((i) => i.href === href);
  if (!item) throw new Error(`No navigation entry for ${href}`);
  return item.roles;
}
