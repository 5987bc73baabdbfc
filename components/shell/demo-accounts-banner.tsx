/**
 * Shown to admins on every page while demo accounts still accept the passwords the README publishes
 * (lib/demo/demo-accounts.ts): anyone who has read the README can sign in as them.
 */
export function DemoAccountsBanner({ emails }: { emails: string[] }) {
  if (!emails.length) return null;
  return (
    <div role="alert" data-testid="demo-accounts-banner" className="border-b border-amber-300 bg-amber-50 px-8 py-3 text-sm text-amber-900">
      <strong>Demo accounts are active with their published passwords:</strong> {emails.join(", ")}. Anyone who has read Mosaic&apos;s
      README can sign in as them. Change their passwords or deactivate them under{" "}
      <a href="/users" className="underline">
        Users
      </a>{" "}
      before real use.
    </div>
  );
}
