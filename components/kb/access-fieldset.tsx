"use client";

/**
 * "Who may use it" on the registration form and the knowledge base's settings. Private by default
 * (issue 29): nothing ticked means admins only, and the form says so in words, so a new HR database is
 * never shared by leaving a box empty.
 */
export function KbAccessFieldset({
  idPrefix,
  groups,
  groupIds,
  openToEveryone,
  onChange,
  error,
}: {
  idPrefix: string;
  groups: { id: string; name: string }[];
  groupIds: string[];
  openToEveryone: boolean;
  onChange: (next: { groupIds: string[]; openToEveryone: boolean }) => void;
  error?: string;
}) {
  const summary = openToEveryone
    ? "Every signed-in user may use it."
    : groupIds.length
      ? `Admins and the members of ${groups
          .filter((g) => groupIds.includes(g.id))
          .map((g) => g.name)
          .join(", ")} may use it.`
      : "Only admins may use it until you choose groups or every signed-in user.";
  return (
    <fieldset aria-describedby={`${idPrefix}-access-summary`}>
      <legend className="text-sm font-medium">Who may use it</legend>
      <p className="mb-1 text-xs text-slate-500">
        New knowledge bases are private: with nothing chosen, only admins see it. Admins always see every knowledge base.
      </p>
      <label className="mb-1 flex items-center gap-1.5 text-sm">
        <input
          id={`${idPrefix}-everyone`}
          type="checkbox"
          checked={openToEveryone}
          onChange={(e) => onChange({ groupIds, openToEveryone: e.target.checked })}
        />
        Every signed-in user
      </label>
      {groups.length > 0 && (
        <div className="flex flex-wrap gap-x-4 gap-y-1" aria-label="Groups">
          {groups.map((g) => (
            <label key={g.id} className="flex items-center gap-1.5 text-sm">
              <input
                type="checkbox"
                disabled={openToEveryone}
                checked={groupIds.includes(g.id)}
                onChange={(e) =>
                  onChange({
                    openToEveryone,
                    groupIds: e.target.checked ? [...groupIds, g.id] : groupIds.filter((x) => x !== g.id),
                  })
                }
              />
              {g.name}
            </label>
          ))}
        </div>
      )}
      <p id={`${idPrefix}-access-summary`} className="mt-1 text-sm text-slate-700" role="status">
        {summary}
      </p>
      {error && <p className="text-xs text-rose-700">{error}</p>}
    </fieldset>
  );
}
